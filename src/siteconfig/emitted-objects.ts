/**
 * The types of the objects the compilers emit, exactly as the JSON the API server takes: the
 * specs of custom resources are the ones generated from crds/ (src/imports), the core kinds are
 * client-node's. The compilers build every object against these types, so a misspelt field
 * (`bootMacAddress`), a wrong type or an enum value the CRD does not allow fails to compile.
 */
import type { V1ConfigMap, V1Namespace, V1Secret } from '@kubernetes/client-node';
import type {
  InfraEnvGVK,
  InfraEnvSpec,
  NMStateConfigGVK,
  NMStateConfigSpec,
} from '../imports/agent-install.openshift.io.js';
import type {
  KlusterletAddonConfigGVK,
  KlusterletAddonConfigSpec,
} from '../imports/agent.open-cluster-management.io.js';
import type {
  ManagedClusterGVK,
  ManagedClusterSpec,
} from '../imports/cluster.open-cluster-management.io.js';
import type {
  AgentClusterInstallGVK,
  AgentClusterInstallSpec,
} from '../imports/extensions.hive.openshift.io.js';
import type {
  ExternalSecretGVK,
  ExternalSecretSpec,
  ExternalSecretV1beta1GVK,
  ExternalSecretV1beta1Spec,
} from '../imports/external-secrets.io.js';
import type { ClusterDeploymentGVK, ClusterDeploymentSpec } from '../imports/hive.openshift.io.js';
import type {
  BareMetalHostGVK,
  BareMetalHostSpec,
  HostFirmwareSettingsGVK,
  HostFirmwareSettingsSpec,
} from '../imports/metal3.io.js';
import type {
  ClusterInstanceGVK,
  ClusterInstanceSpec,
} from '../imports/siteconfig.open-cluster-management.io.js';

/** The metadata the compilers write: every object has a name. */
export interface ObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/**
 * An object of a custom resource kind. A type alias, not an interface, so that it is
 * assignable to Manifest, the loose shape the rest of the pipeline handles (an interface has
 * no implicit index signature).
 */
// eslint-disable-next-line @typescript-eslint/consistent-type-definitions -- see above
type CustomObject<GVK extends { apiVersion: string; kind: string }, Spec> = {
  readonly apiVersion: GVK['apiVersion'];
  readonly kind: GVK['kind'];
  readonly metadata: ObjectMeta;
  readonly spec: Spec;
};

/** An object of a core (`v1`) kind: client-node's type, with our metadata and without status. */
type CoreObject<Kind extends string, Type> = {
  readonly apiVersion: 'v1';
  readonly kind: Kind;
  readonly metadata: ObjectMeta;
} & Readonly<Omit<Type, 'apiVersion' | 'kind' | 'metadata' | 'status'>>;

export type Namespace = CoreObject<'Namespace', V1Namespace>;
export type Secret = CoreObject<'Secret', V1Secret>;
export type ConfigMap = CoreObject<'ConfigMap', V1ConfigMap>;

/**
 * The CRD requires `networking`; a SiteConfig that names none of clusterNetwork, machineNetwork
 * and serviceNetwork has always compiled to an AgentClusterInstall without it (networkType goes
 * to the install-config overrides), so here it is optional.
 */
export type AgentClusterInstall = CustomObject<
  typeof AgentClusterInstallGVK,
  Omit<AgentClusterInstallSpec, 'networking'> & Partial<Pick<AgentClusterInstallSpec, 'networking'>>
>;
export type ClusterDeployment = CustomObject<typeof ClusterDeploymentGVK, ClusterDeploymentSpec>;
export type InfraEnv = CustomObject<typeof InfraEnvGVK, InfraEnvSpec>;
export type NMStateConfig = CustomObject<typeof NMStateConfigGVK, NMStateConfigSpec>;
export type BareMetalHost = CustomObject<typeof BareMetalHostGVK, BareMetalHostSpec>;
export type HostFirmwareSettings = CustomObject<
  typeof HostFirmwareSettingsGVK,
  HostFirmwareSettingsSpec
>;
export type ManagedCluster = CustomObject<typeof ManagedClusterGVK, ManagedClusterSpec>;
export type KlusterletAddonConfig = CustomObject<
  typeof KlusterletAddonConfigGVK,
  KlusterletAddonConfigSpec
>;
/** Either served version: the compiler writes the one the SiteConfig names. */
export type ExternalSecret =
  | CustomObject<typeof ExternalSecretGVK, ExternalSecretSpec>
  | CustomObject<typeof ExternalSecretV1beta1GVK, ExternalSecretV1beta1Spec>;
/** The ClusterInstance as applied (the input model is cluster-instance/types.ts). */
export type ClusterInstanceObject = CustomObject<typeof ClusterInstanceGVK, ClusterInstanceSpec>;

/** Every object a compiler emits by default (crTemplates may replace them with anything). */
export type EmittedObject =
  | Namespace
  | Secret
  | ConfigMap
  | AgentClusterInstall
  | ClusterDeployment
  | InfraEnv
  | NMStateConfig
  | BareMetalHost
  | HostFirmwareSettings
  | ManagedCluster
  | KlusterletAddonConfig
  | ExternalSecret
  | ClusterInstanceObject;

/** The type of the objects of one kind. */
export type EmittedObjectOf<Kind extends EmittedObject['kind']> = Extract<
  EmittedObject,
  { readonly kind: Kind }
>;
