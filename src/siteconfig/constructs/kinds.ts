/**
 * The upstream kinds SiteForge emits, with their group/version/kind taken from the types that
 * `cdk8s import` generated from crds/ (so crds/ stays the single source of these facts).
 */
import type { GroupVersionKind } from 'cdk8s';
import { KlusterletAddonConfig } from '../../imports/agent.open-cluster-management.io.js';
import { InfraEnv, NmStateConfig } from '../../imports/agent-install.openshift.io.js';
import { ManagedCluster } from '../../imports/cluster.open-cluster-management.io.js';
import { AgentClusterInstall } from '../../imports/extensions.hive.openshift.io.js';
import { ExternalSecret, ExternalSecretV1Beta1 } from '../../imports/external-secrets.io.js';
import { ClusterDeployment } from '../../imports/hive.openshift.io.js';
import { BareMetalHost, HostFirmwareSettings } from '../../imports/metal3.io.js';
import { ClusterInstance } from '../../imports/siteconfig.open-cluster-management.io.js';

/** The group/versions/kind the compiler can emit, by kind (ExternalSecret has two versions). */
export const EmittedKinds: Readonly<Record<string, readonly GroupVersionKind[]>> = {
  Namespace: [{ apiVersion: 'v1', kind: 'Namespace' }],
  ConfigMap: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
  Secret: [{ apiVersion: 'v1', kind: 'Secret' }],
  AgentClusterInstall: [AgentClusterInstall.GVK],
  ClusterDeployment: [ClusterDeployment.GVK],
  InfraEnv: [InfraEnv.GVK],
  NMStateConfig: [NmStateConfig.GVK],
  BareMetalHost: [BareMetalHost.GVK],
  HostFirmwareSettings: [HostFirmwareSettings.GVK],
  ManagedCluster: [ManagedCluster.GVK],
  KlusterletAddonConfig: [KlusterletAddonConfig.GVK],
  ClusterInstance: [ClusterInstance.GVK],
  ExternalSecret: [ExternalSecret.GVK, ExternalSecretV1Beta1.GVK],
};
