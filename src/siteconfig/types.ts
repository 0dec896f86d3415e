/**
 * The SiteConfig input model (`ran.openshift.io/v1` and `/v2`), field for field as users write
 * it today. These types serve both the YAML reader and the TypeScript construct API.
 */

/** The SiteConfig apiVersions SiteForge reads. */
export const SiteConfigApiVersion = {
  V1: 'ran.openshift.io/v1',
  V2: 'ran.openshift.io/v2',
} as const;
export type SiteConfigApiVersion = (typeof SiteConfigApiVersion)[keyof typeof SiteConfigApiVersion];

/** A reference to an object by name, as Kubernetes writes it. */
export interface NameRef {
  readonly name: string;
}

/** A secret kept in an external store, materialised on the hub by external-secrets.io. */
export interface ExternalSecretRef {
  /** The SecretStore or ClusterSecretStore to read from. */
  readonly storeRef: {
    readonly name: string;
    readonly kind?: 'SecretStore' | 'ClusterSecretStore';
  };
  /** The remote key (path) of the secret in the store. */
  readonly key: string;
  /** @default "1h" */
  readonly refreshInterval?: string;
  /**
   * The ExternalSecret API the hub's operator serves: external-secrets 0.17 and later serve v1
   * only; 0.16 serves both; earlier releases, and older OpenShift operator builds, v1beta1 only.
   * @default "external-secrets.io/v1"
   */
  readonly apiVersion?: ExternalSecretApiVersion;
}

/** The ExternalSecret versions SiteForge can emit; their fields are the same. */
export type ExternalSecretApiVersion = 'external-secrets.io/v1' | 'external-secrets.io/v1beta1';

/**
 * Where credentials come from, instead of a Secret created by hand: an ExternalSecret, or a
 * directory read at render time (a Kubernetes Secret mounted into the Argo CD plugin, or the
 * directory given with `siteforge --secrets-dir`). Exactly one of the two.
 */
export interface CredentialsSource {
  readonly externalSecret?: ExternalSecretRef;
  /** A sub-directory of the secrets directory holding one file per key. */
  readonly fromDirectory?: string;
}

/** Map of Kind to annotations to add (`crAnnotations.add`). */
export interface CrAnnotations {
  readonly add?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** Cluster-wide proxy settings, copied to the AgentClusterInstall and the InfraEnv. */
export interface ProxySettings {
  readonly httpProxy?: string;
  readonly httpsProxy?: string;
  readonly noProxy?: string;
}

/** One interface binding of a node network: NIC name to MAC address. */
export interface NodeInterface {
  readonly name: string;
  readonly macAddress: string;
}

/** Static network configuration of a node: nmstate `config` plus the NIC/MAC bindings. */
export interface NodeNetwork {
  readonly interfaces?: readonly NodeInterface[];
  /** Raw nmstate configuration (interfaces, routes, dns-resolver). */
  readonly config?: Readonly<Record<string, unknown>>;
}

/** A partition of the SNO image-registry disk layout. */
export interface DiskPartitionEntry {
  readonly mount_point: string;
  readonly size: number;
  readonly start: number;
  /** @default "xfs" */
  readonly file_system_format?: string;
}

/** A disk and the partitions to create on it (SNO only). */
export interface DiskPartition {
  readonly device: string;
  readonly partitions: readonly DiskPartitionEntry[];
}

/** Root disk selection hints, passed through to the BareMetalHost. */
export interface RootDeviceHints {
  readonly deviceName?: string;
  readonly hctl?: string;
  readonly model?: string;
  readonly vendor?: string;
  readonly serialNumber?: string;
  readonly minSizeGigabytes?: number;
  readonly wwn?: string;
  readonly wwnWithExtension?: string;
  readonly wwnVendorExtension?: string;
  readonly rotational?: boolean;
}

/** Node roles. */
export const NodeRole = { Master: 'master', Worker: 'worker' } as const;
export type NodeRole = (typeof NodeRole)[keyof typeof NodeRole];

/** Boot modes a BareMetalHost accepts. */
export const BootMode = {
  UEFI: 'UEFI',
  UEFISecureBoot: 'UEFISecureBoot',
  Legacy: 'legacy',
} as const;
export type BootMode = (typeof BootMode)[keyof typeof BootMode];

/** One host of a cluster. */
export interface SiteConfigNode {
  readonly hostName: string;
  /** @default "master" */
  readonly role?: NodeRole;
  readonly bmcAddress: string;
  readonly bmcCredentialsName?: NameRef;
  /**
   * Where the BMC username and password come from (keys `username` and `password`). SiteForge
   * then emits the Secret (or ExternalSecret) named `bmcCredentialsName.name`, by default
   * `<hostName>-bmc-secret`.
   */
  readonly bmcCredentials?: CredentialsSource;
  readonly bootMACAddress: string;
  /** @default "UEFI" */
  readonly bootMode?: BootMode;
  /** @default "disabled" */
  readonly automatedCleaningMode?: 'disabled' | 'metadata';
  readonly rootDeviceHints?: RootDeviceHints;
  readonly nodeNetwork?: NodeNetwork;
  /** Values are stringified into BareMetalHost annotations. */
  readonly nodeLabels?: Readonly<Record<string, string>>;
  /** A JSON array of installer arguments, as a string (`'["--append-karg","x"]'`). */
  readonly installerArgs?: string;
  /** A JSON ignition override, as a string. */
  readonly ignitionConfigOverride?: string;
  /** @default "enabled" */
  readonly ironicInspect?: '' | 'enabled' | 'disabled';
  readonly userData?: Readonly<Record<string, unknown>>;
  /** Deprecated in favour of the cluster's `cpuPartitioningMode`. */
  readonly cpuset?: string;
  readonly diskPartition?: readonly DiskPartition[];
  readonly biosConfigRef?: { readonly filePath: string };
  readonly crTemplates?: Readonly<Record<string, string>>;
  readonly crAnnotations?: CrAnnotations;
  readonly crSuppression?: readonly string[];
  /** In the upstream CRD but read by no generator; accepted with a warning. */
  readonly hardwareProfile?: string;
  /**
   * Removes the host from its cluster in one sync: the BareMetalHost is applied once more with
   * `bmac.agent-install.openshift.io/remove-agent-and-node-on-delete` and, as an Argo CD PostSync
   * hook, deleted right after, so that BMAC removes its Agent and Node. Delete the node entry
   * after that sync.
   * @default false
   */
  readonly remove?: boolean;
}

/** Extra-manifest sources and filters of a cluster. */
export interface ExtraManifests {
  readonly searchPaths?: readonly string[];
  /**
   * The shipped default set used when `searchPaths` is not set; `none` for no defaults.
   * @default "default"
   */
  readonly defaultSet?: string;
  readonly filter?: {
    readonly inclusionDefault?: 'include' | 'exclude';
    readonly include?: readonly string[];
    readonly exclude?: readonly string[];
  };
}

/** One cluster of a site. */
export interface SiteConfigCluster {
  readonly clusterName: string;
  readonly clusterImageSetNameRef?: string;
  /** @default "OVNKubernetes" */
  readonly networkType?: 'OVNKubernetes' | 'OpenShiftSDN';
  /** A JSON object, as a string, merged into the install-config. */
  readonly installConfigOverrides?: string;
  /** @default "None" */
  readonly cpuPartitioningMode?: 'None' | 'AllNodes';
  /** @default false */
  readonly holdInstallation?: boolean;
  /** Deprecated: use `apiVIPs`. */
  readonly apiVIP?: string;
  /** Deprecated: use `ingressVIPs`. */
  readonly ingressVIP?: string;
  readonly apiVIPs?: readonly string[];
  readonly ingressVIPs?: readonly string[];
  readonly machineNetwork?: readonly { readonly cidr: string }[];
  readonly clusterNetwork?: readonly { readonly cidr: string; readonly hostPrefix?: number }[];
  readonly serviceNetwork?: readonly string[];
  readonly additionalNTPSources?: readonly string[];
  /** A JSON ignition override for the discovery ISO, as a string. */
  readonly ignitionConfigOverride?: string;
  readonly proxy?: ProxySettings;
  /** Values are stringified into ManagedCluster labels. */
  readonly clusterLabels?: Readonly<Record<string, string>>;
  readonly diskEncryption?: {
    readonly type?: 'none' | 'nbde' | 'tpm2';
    readonly tang?: readonly { readonly url: string; readonly thumbprint: string }[];
    readonly tpm2?: { readonly pcrList?: string };
  };
  /** Deprecated since 4.14: use `extraManifests.searchPaths`. */
  readonly extraManifestPath?: string;
  readonly extraManifests?: ExtraManifests;
  /** @default false */
  readonly mergeDefaultMachineConfigs?: boolean;
  /** v2 only: a second ConfigMap for site data. */
  readonly siteConfigMap?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly data?: Readonly<Record<string, string>>;
  };
  readonly biosConfigRef?: { readonly filePath: string };
  readonly crTemplates?: Readonly<Record<string, string>>;
  readonly crAnnotations?: CrAnnotations;
  readonly crSuppression?: readonly string[];
  readonly nodes: readonly SiteConfigNode[];
}

/** The `spec` of a SiteConfig: site-wide defaults and the clusters of the site. */
export interface SiteConfigSpec {
  readonly baseDomain: string;
  readonly pullSecretRef: NameRef;
  /**
   * Where the pull secret comes from (key `.dockerconfigjson`); SiteForge then emits the Secret
   * named `pullSecretRef.name` in every cluster namespace.
   */
  readonly pullSecret?: CredentialsSource;
  readonly clusterImageSetNameRef?: string;
  readonly sshPublicKey?: string;
  /** Parsed for compatibility; no generated object uses it. */
  readonly sshPrivateKeySecretRef?: NameRef;
  readonly crTemplates?: Readonly<Record<string, string>>;
  readonly crAnnotations?: CrAnnotations;
  readonly biosConfigRef?: { readonly filePath: string };
  readonly clusters: readonly SiteConfigCluster[];
}

/** A whole SiteConfig document. */
export interface SiteConfig {
  readonly apiVersion: SiteConfigApiVersion;
  readonly kind: 'SiteConfig';
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly spec: SiteConfigSpec;
}
