/**
 * The kinds install orchestration reads and writes — ClusterDeployment, AgentClusterInstall,
 * ClusterImageSet, Agent, Secret — as the plain data the API server holds, and the well-known
 * strings with upstream's exact spelling (assisted.md §3.3, §8).
 */
import type { GroupVersionKind, KubeObject } from '../../kube/index.js';
import {
  IGNORED_CLUSTER_VALIDATIONS_ANNOTATION,
  IGNORED_HOST_VALIDATIONS_ANNOTATION,
} from '../validations/ignored.js';

/** The kinds the cluster controller reads or writes. */
export const ClusterGvk = {
  ClusterDeployment: { apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment' },
  AgentClusterInstall: {
    apiVersion: 'extensions.hive.openshift.io/v1beta1',
    kind: 'AgentClusterInstall',
  },
  ClusterImageSet: { apiVersion: 'hive.openshift.io/v1', kind: 'ClusterImageSet' },
  Agent: { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'Agent' },
  InfraEnv: { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'InfraEnv' },
  Secret: { apiVersion: 'v1', kind: 'Secret' },
  ConfigMap: { apiVersion: 'v1', kind: 'ConfigMap' },
} as const satisfies Record<string, GroupVersionKind>;

/** Finalizers (assisted.md §8). */
export const ClusterFinalizer = {
  AgentClusterInstall: 'agentclusterinstall.agent-install.openshift.io/ai-deprovision',
  ClusterDeployment: 'clusterdeployments.agent-install.openshift.io/ai-deprovision',
} as const;

/** Annotations read on the AgentClusterInstall and ClusterDeployment. */
export const ClusterAnnotation = {
  InstallConfigOverrides: 'agent-install.openshift.io/install-config-overrides',
  IgnoredClusterValidations: IGNORED_CLUSTER_VALIDATIONS_ANNOTATION,
  IgnoredHostValidations: IGNORED_HOST_VALIDATIONS_ANNOTATION,
  /** On the ClusterDeployment: `true` holds the installation as `spec.holdInstallation` does. */
  ReconcilePause: 'hive.openshift.io/reconcile-pause',
  /**
   * Ours, on the AgentClusterInstall: what the status does not show of the cluster record
   * (times, the last preparation, the installer's ids), so a restarted controller loses nothing.
   */
  ClusterState: 'assisted.siteforge.io/cluster-state',
} as const;

/** Labels the cluster controller reads or writes. */
export const ClusterLabel = {
  ClusterDeploymentName: 'hive.openshift.io/cluster-deployment-name',
  SecretType: 'hive.openshift.io/secret-type',
  /** On an Agent: the namespace of its ClusterDeployment (set by the agent controller). */
  ClusterDeploymentNamespace: 'agent-install.openshift.io/clusterdeployment-namespace',
  InfraEnv: 'infraenvs.agent-install.openshift.io',
  Consumer: 'agentclusterinstalls.agent-install.openshift.io/consumer',
} as const;

/** The group of AgentClusterInstall in a ClusterDeployment's `clusterInstallRef`. */
export const ACI_GROUP = 'extensions.hive.openshift.io';

/** Mutable plain data, as read from the cache and edited before one write. */
export type Draft<T> = { -readonly [K in keyof T]: T[K] };

interface Meta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string;
  creationTimestamp?: string;
  ownerReferences?: {
    apiVersion: string;
    kind: string;
    name: string;
    uid: string;
    controller?: boolean;
    blockOwnerDeletion?: boolean;
  }[];
}

/** hive ClusterMetadata. */
export interface ClusterMetadata {
  clusterID: string;
  infraID: string;
  adminKubeconfigSecretRef: { name: string };
  adminPasswordSecretRef?: { name: string };
}

/** A hive ClusterDeployment, the fields we use. */
export interface ClusterDeployment {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  spec?: {
    clusterName?: string;
    baseDomain?: string;
    installed?: boolean;
    preserveOnDelete?: boolean;
    pullSecretRef?: { name?: string };
    clusterInstallRef?: { group?: string; version?: string; kind?: string; name?: string };
    clusterMetadata?: ClusterMetadata;
    [field: string]: unknown;
  };
  status?: Record<string, unknown>;
}

/** hive ClusterInstallCondition. */
export interface ClusterInstallCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
}

/** An AgentClusterInstall, the fields we use. */
export interface AgentClusterInstall {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  spec?: {
    clusterDeploymentRef?: { name?: string };
    imageSetRef?: { name?: string };
    clusterMetadata?: ClusterMetadata;
    holdInstallation?: boolean;
    sshPublicKey?: string;
    platformType?: string;
    mastersSchedulable?: boolean;
    apiVIP?: string;
    ingressVIP?: string;
    apiVIPs?: string[];
    ingressVIPs?: string[];
    networking?: {
      clusterNetwork?: { cidr?: string; hostPrefix?: number }[];
      serviceNetwork?: string[];
      machineNetwork?: { cidr?: string }[];
      networkType?: string;
      userManagedNetworking?: boolean;
    };
    provisionRequirements?: {
      controlPlaneAgents?: number;
      workerAgents?: number;
      arbiterAgents?: number;
    };
    proxy?: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
    [field: string]: unknown;
  };
  status?: AgentClusterInstallStatus;
}

/** The AgentClusterInstall status we write. */
export interface AgentClusterInstallStatus {
  conditions?: ClusterInstallCondition[];
  debugInfo?: { state?: string; stateInfo?: string; eventsURL?: string; logsURL?: string };
  progress?: { totalPercentage?: number };
  controlPlaneAgentsDiscovered?: number;
  controlPlaneAgentsReady?: number;
  workerAgentsDiscovered?: number;
  workerAgentsReady?: number;
  connectivityMajorityGroups?: string;
  machineNetwork?: { cidr: string }[];
  apiVIP?: string;
  apiVIPs?: string[];
  ingressVIP?: string;
  ingressVIPs?: string[];
  userManagedNetworking?: boolean;
  platformType?: string;
  validationsInfo?: Record<string, { id: string; status: string; message: string }[]>;
  [field: string]: unknown;
}

/** A hive ClusterImageSet (cluster-scoped). */
export interface ClusterImageSet {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  spec?: { releaseImage?: string };
}

/** An Agent, the fields the cluster controller reads or changes on deletion. */
export interface Agent {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  spec?: {
    clusterDeploymentName?: { name?: string; namespace?: string } | null;
    [field: string]: unknown;
  };
  status?: { conditions?: { type: string; status: string }[]; [field: string]: unknown };
}

/** An InfraEnv, the field deletion reads. */
export interface InfraEnv {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  spec?: { clusterRef?: { name?: string; namespace?: string } | null };
}

/** A typed, editable copy of a cache object. */
// The caller names the view it wants: that is the point of the type parameter.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export function draft<T>(object: KubeObject): T {
  return structuredClone(object) as unknown as T;
}

/**
 * A cached object read as `T` without a copy, for reading only (the cache's objects are frozen:
 * an edit throws). Copying a fleet's Agents, inventories and all, to read two fields of each was
 * a large part of the cluster controller's time.
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- as draft's
export function view<T>(object: KubeObject): T {
  return object as unknown as T;
}

/** Back to the wire shape. */
export function asKube(object: object): KubeObject {
  return object as unknown as KubeObject;
}
