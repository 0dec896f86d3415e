/**
 * The ClusterInstance input model (`siteconfig.open-cluster-management.io/v1alpha1`), field for
 * field as users write it for the SiteConfig operator: one cluster per document.
 */
import type { NameRef, NodeNetwork, ProxySettings, RootDeviceHints } from '../types.js';

/** The ClusterInstance apiVersion SiteForge reads and writes. */
export const ClusterInstanceApiVersion = 'siteconfig.open-cluster-management.io/v1alpha1';

/** A template ConfigMap the operator renders from. */
export interface TemplateRef {
  readonly name: string;
  readonly namespace: string;
}

/** An object kind by group/version, for `pruneManifests`. */
export interface ResourceRef {
  readonly apiVersion: string;
  readonly kind: string;
}

/** Map of Kind to labels or annotations, added to the rendered objects of that kind. */
export type ExtraMetadata = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** Topologies of the ClusterInstance API; SiteForge renders all but HostedControlPlane. */
export const ClusterType = {
  SNO: 'SNO',
  HighlyAvailable: 'HighlyAvailable',
  HostedControlPlane: 'HostedControlPlane',
  HighlyAvailableArbiter: 'HighlyAvailableArbiter',
} as const;
export type ClusterType = (typeof ClusterType)[keyof typeof ClusterType];

/** One host of a ClusterInstance. */
export interface ClusterInstanceNode {
  readonly hostName: string;
  /** @default "master" */
  readonly role?: 'master' | 'worker' | 'arbiter';
  readonly bmcAddress: string;
  readonly bmcCredentialsName: NameRef;
  readonly bootMACAddress: string;
  /** @default "UEFI" */
  readonly bootMode?: 'UEFI' | 'UEFISecureBoot' | 'legacy';
  /** @default "disabled" */
  readonly automatedCleaningMode?: 'disabled' | 'metadata';
  readonly rootDeviceHints?: RootDeviceHints;
  readonly nodeNetwork?: NodeNetwork;
  readonly nodeLabels?: Readonly<Record<string, string>>;
  /** A BareMetalHost in another namespace to use for this node. */
  readonly hostRef?: { readonly name: string; readonly namespace: string };
  /** Inherits the cluster's `cpuArchitecture` when unset. */
  readonly cpuArchitecture?: 'x86_64' | 'aarch64';
  /** A JSON array of installer arguments, as a string. */
  readonly installerArgs?: string;
  /** A JSON ignition override, as a string. */
  readonly ignitionConfigOverride?: string;
  /** `""` inspects the host; `disabled` skips inspection. @default "" */
  readonly ironicInspect?: '' | 'disabled';
  readonly extraAnnotations?: ExtraMetadata;
  readonly extraLabels?: ExtraMetadata;
  readonly suppressedManifests?: readonly string[];
  readonly pruneManifests?: readonly ResourceRef[];
  readonly templateRefs: readonly TemplateRef[];
}

/** The spec of a ClusterInstance. */
export interface ClusterInstanceSpec {
  readonly clusterName: string;
  readonly baseDomain: string;
  readonly pullSecretRef: NameRef;
  readonly clusterImageSetNameRef: string;
  readonly sshPublicKey?: string;
  readonly clusterType?: ClusterType;
  readonly apiVIPs?: readonly string[];
  readonly ingressVIPs?: readonly string[];
  /** @default false */
  readonly holdInstallation?: boolean;
  readonly additionalNTPSources?: readonly string[];
  readonly machineNetwork?: readonly { readonly cidr: string }[];
  readonly clusterNetwork?: readonly { readonly cidr: string; readonly hostPrefix?: number }[];
  /** Objects, where a SiteConfig lists plain CIDR strings. */
  readonly serviceNetwork?: readonly { readonly cidr: string }[];
  /** @default "OVNKubernetes" */
  readonly networkType?: 'OVNKubernetes' | 'OpenShiftSDN';
  readonly platformType?: '' | 'BareMetal' | 'None' | 'VSphere' | 'Nutanix' | 'External';
  readonly extraAnnotations?: ExtraMetadata;
  /** `extraLabels.ManagedCluster` replaces a SiteConfig's `clusterLabels`. */
  readonly extraLabels?: ExtraMetadata;
  /** A JSON object, as a string, merged into the install-config. */
  readonly installConfigOverrides?: string;
  /** A JSON ignition override for the discovery ISO, as a string. */
  readonly ignitionConfigOverride?: string;
  readonly diskEncryption?: {
    readonly type?: string;
    readonly tang?: readonly { readonly url: string; readonly thumbprint: string }[];
  };
  readonly proxy?: ProxySettings;
  /** ConfigMaps of extra manifests, supplied beside the ClusterInstance. */
  readonly extraManifestsRefs?: readonly NameRef[];
  readonly suppressedManifests?: readonly string[];
  readonly pruneManifests?: readonly ResourceRef[];
  /** @default "None" */
  readonly cpuPartitioningMode?: 'None' | 'AllNodes';
  /** @default "x86_64" */
  readonly cpuArchitecture?: 'x86_64' | 'aarch64' | 'multi';
  readonly templateRefs: readonly TemplateRef[];
  readonly caBundleRef?: NameRef;
  readonly reinstall?: {
    readonly generation: string;
    /** @default "None" */
    readonly preservationMode?: 'None' | 'All' | 'ClusterIdentity';
  };
  readonly nodes: readonly ClusterInstanceNode[];
}

/** A whole ClusterInstance document. */
export interface ClusterInstance {
  readonly apiVersion: typeof ClusterInstanceApiVersion;
  readonly kind: 'ClusterInstance';
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec: ClusterInstanceSpec;
}

/** The default assisted-installer template ConfigMaps the operator writes at start-up. */
export const DefaultTemplates = {
  cluster: 'ai-cluster-templates-v1',
  node: 'ai-node-templates-v1',
  /** The namespace of the operator in the ACM docs and samples. */
  namespace: 'open-cluster-management',
} as const;
