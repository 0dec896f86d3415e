/**
 * The upstream kinds SiteForge emits, with their group/version/kind taken from the types
 * generated from crds/ (so crds/ stays the single source of these facts).
 */
import type { GroupVersionKind } from 'cdk8s';
import { KlusterletAddonConfigGVK } from '../../imports/agent.open-cluster-management.io.js';
import { InfraEnvGVK, NMStateConfigGVK } from '../../imports/agent-install.openshift.io.js';
import { ManagedClusterGVK } from '../../imports/cluster.open-cluster-management.io.js';
import { AgentClusterInstallGVK } from '../../imports/extensions.hive.openshift.io.js';
import { ExternalSecretGVK, ExternalSecretV1beta1GVK } from '../../imports/external-secrets.io.js';
import { ClusterDeploymentGVK } from '../../imports/hive.openshift.io.js';
import { BareMetalHostGVK, HostFirmwareSettingsGVK } from '../../imports/metal3.io.js';
import { ClusterInstanceGVK } from '../../imports/siteconfig.open-cluster-management.io.js';
import type { EmittedObject, EmittedObjectOf } from '../emitted-objects.js';

/**
 * The group/versions/kind the compiler can emit, by kind (ExternalSecret has two versions):
 * every kind of EmittedObject, and no other.
 */
export const EmittedKinds: Readonly<Record<string, readonly GroupVersionKind[]>> = {
  Namespace: [{ apiVersion: 'v1', kind: 'Namespace' }],
  ConfigMap: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
  Secret: [{ apiVersion: 'v1', kind: 'Secret' }],
  AgentClusterInstall: [AgentClusterInstallGVK],
  ClusterDeployment: [ClusterDeploymentGVK],
  InfraEnv: [InfraEnvGVK],
  NMStateConfig: [NMStateConfigGVK],
  BareMetalHost: [BareMetalHostGVK],
  HostFirmwareSettings: [HostFirmwareSettingsGVK],
  ManagedCluster: [ManagedClusterGVK],
  KlusterletAddonConfig: [KlusterletAddonConfigGVK],
  ClusterInstance: [ClusterInstanceGVK],
  ExternalSecret: [ExternalSecretGVK, ExternalSecretV1beta1GVK],
} satisfies EmittedGVKs;

/** For each kind of EmittedObject, the group/versions its objects may have. */
type EmittedGVKs = {
  readonly [Kind in EmittedObject['kind']]: readonly Pick<
    EmittedObjectOf<Kind>,
    'apiVersion' | 'kind'
  >[];
};
