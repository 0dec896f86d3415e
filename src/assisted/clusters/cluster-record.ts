/**
 * The ClusterRecord of a ClusterDeployment and its AgentClusterInstall: the spec part read from
 * the two objects each pass; the state part (status, times, the last preparation) kept in memory
 * and persisted in the ACI — its status (debugInfo.state/stateInfo, progress, validationsInfo, …)
 * and one annotation of ours for the rest — so that a restarted controller picks it up again.
 */
import type { ClusterRecord, ClusterStatus, ValidationsInfo } from '../model.js';
import { parseIgnoredValidations } from '../validations/ignored.js';
import { ClusterAnnotation } from './kinds.js';
import type { AgentClusterInstall, ClusterDeployment } from './kinds.js';

/** What our annotation keeps. */
export interface PersistedClusterState {
  readonly statusUpdatedAt: string;
  readonly installStartedAt?: string;
  readonly installCompletedAt?: string;
  readonly preparationStartedAt?: string;
  readonly lastPreparation: ClusterRecord['lastPreparation'];
  /** The ids the installer backend gave this installation. */
  readonly installer?: { readonly clusterId: string; readonly infraId: string };
  readonly installConfigOverrides?: string;
}

/** The record plus what only orchestration needs. */
export interface ClusterInstallation {
  readonly record: ClusterRecord;
  readonly preparationStartedAt?: string;
  /** The ids the installer backend gave this installation. */
  readonly installer?: { readonly clusterId: string; readonly infraId: string };
  /** The install-config overrides last accepted (JSON text, '' for none). */
  readonly installConfigOverrides: string;
}

const STATUSES: readonly string[] = [
  'insufficient',
  'pending-for-input',
  'ready',
  'preparing-for-installation',
  'installing',
  'installing-pending-user-action',
  'finalizing',
  'installed',
  'error',
  'cancelled',
  'adding-hosts',
  'unmonitored',
];

/**
 * The networks of a cluster whose ACI names none: assisted-service's defaults when it registers
 * a cluster (CLUSTER_NETWORK_CIDR, CLUSTER_NETWORK_HOST_PREFIX, SERVICE_NETWORK_CIDR;
 * bminventory setDefaultRegisterClusterParams). Machine networks have no default.
 */
export const DEFAULT_CLUSTER_NETWORK = { cidr: '10.128.0.0/14', hostPrefix: 23 } as const;
export const DEFAULT_SERVICE_NETWORK = '172.30.0.0/16';

/** Status info of a new cluster (AS internal/cluster/common.go). */
export const INSUFFICIENT_STATUS_INFO = 'Cluster is not ready for install';
/** Status info of an imported (day-2) cluster. */
export const ADDING_HOSTS_STATUS_INFO = 'cluster is adding hosts to existing OCP cluster';

/** The ACI `platformType` (hive spelling) → the assisted platform type. */
function platformOf(spec: AgentClusterInstall['spec'], userManaged: boolean): string {
  switch (spec?.platformType ?? '') {
    case 'BareMetal':
      return 'baremetal';
    case 'None':
      return 'none';
    case 'VSphere':
      return 'vsphere';
    case 'Nutanix':
      return 'nutanix';
    case 'External':
      return 'external';
    default:
      return userManaged ? 'none' : 'baremetal';
  }
}

/** The assisted platform type → the ACI status spelling. */
export function hivePlatformType(platform: string): string {
  const names: Record<string, string> = {
    baremetal: 'BareMetal',
    none: 'None',
    vsphere: 'VSphere',
    nutanix: 'Nutanix',
    external: 'External',
  };
  return names[platform] ?? '';
}

/** The version in a release image's tag (`…:4.16.3-x86_64` → `4.16.3`). */
export function versionOfReleaseImage(image: string): string {
  const tag = /:([^:/@]+)$/.exec(image)?.[1] ?? '';
  const match = /^(\d+\.\d+(?:\.\d+)?(?:-(?:ec|rc|fc)\.\d+)?)/.exec(tag);
  return match?.[1] ?? tag;
}

function persistedState(aci: AgentClusterInstall): PersistedClusterState | undefined {
  const text = aci.metadata.annotations?.[ClusterAnnotation.ClusterState];
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as PersistedClusterState;
    return typeof parsed.statusUpdatedAt === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The spec part of the record, from the two objects. */
export function clusterSpecFields(
  cd: ClusterDeployment,
  aci: AgentClusterInstall,
  openshiftVersion: string,
  pullSecretSet: boolean,
): Omit<
  ClusterRecord,
  | 'status'
  | 'statusInfo'
  | 'statusUpdatedAt'
  | 'validationsInfo'
  | 'installStartedAt'
  | 'installCompletedAt'
  | 'lastPreparation'
  | 'totalPercentage'
> {
  const spec = aci.spec ?? {};
  const req = spec.provisionRequirements ?? {};
  const controlPlaneAgents = req.controlPlaneAgents ?? 0;
  const workerAgents = req.workerAgents ?? 0;
  const singleNode = controlPlaneAgents === 1 && workerAgents === 0;
  const userManagedNetworking = spec.networking?.userManagedNetworking === true || singleNode;
  const vips = (list: string[] | undefined, one: string | undefined): string[] =>
    list !== undefined && list.length > 0 ? [...list] : one ? [one] : [];
  const annotations = aci.metadata.annotations ?? {};
  return {
    id: cd.metadata.uid ?? '',
    namespace: cd.metadata.namespace ?? '',
    clusterDeploymentName: cd.metadata.name,
    agentClusterInstallName: aci.metadata.name,
    name: cd.spec?.clusterName ?? cd.metadata.name,
    baseDnsDomain: cd.spec?.baseDomain ?? '',
    openshiftVersion,
    highAvailabilityMode: singleNode ? 'None' : 'Full',
    controlPlaneAgents,
    workerAgents,
    arbiterAgents: req.arbiterAgents ?? 0,
    userManagedNetworking,
    platformType: platformOf(spec, userManagedNetworking),
    networkType: spec.networking?.networkType ?? 'OVNKubernetes',
    clusterNetworks:
      (spec.networking?.clusterNetwork ?? []).length === 0
        ? [DEFAULT_CLUSTER_NETWORK]
        : (spec.networking?.clusterNetwork ?? []).map((n) => ({
            cidr: n.cidr ?? '',
            hostPrefix: n.hostPrefix ?? 0,
          })),
    serviceNetworks:
      (spec.networking?.serviceNetwork ?? []).length === 0
        ? [DEFAULT_SERVICE_NETWORK]
        : [...(spec.networking?.serviceNetwork ?? [])],
    machineNetworks: (spec.networking?.machineNetwork ?? []).map((n) => n.cidr ?? ''),
    apiVips: vips(spec.apiVIPs, spec.apiVIP),
    ingressVips: vips(spec.ingressVIPs, spec.ingressVIP),
    pullSecretSet,
    ...(spec.sshPublicKey !== undefined &&
      spec.sshPublicKey !== '' && { sshPublicKey: spec.sshPublicKey }),
    ignoredHostValidations:
      parseIgnoredValidations(annotations[ClusterAnnotation.IgnoredHostValidations], 'skip') ?? [],
    ignoredClusterValidations:
      parseIgnoredValidations(annotations[ClusterAnnotation.IgnoredClusterValidations], 'skip') ??
      [],
    holdInstallation: spec.holdInstallation === true,
  };
}

/**
 * The record of the pair: the spec from the objects, the state from `previous` (this process's
 * memory), else from what the ACI persisted (a restart), else a new cluster's.
 */
export function clusterInstallationOf(
  cd: ClusterDeployment,
  aci: AgentClusterInstall,
  openshiftVersion: string,
  pullSecretSet: boolean,
  previous: ClusterInstallation | undefined,
  now: Date,
): ClusterInstallation {
  const spec = clusterSpecFields(cd, aci, openshiftVersion, pullSecretSet);
  if (previous?.record.id === spec.id)
    return { ...previous, record: { ...previous.record, ...spec } };
  const persisted = persistedState(aci);
  const state = aci.status?.debugInfo?.state;
  if (persisted !== undefined && state !== undefined && STATUSES.includes(state)) {
    const record: ClusterRecord = {
      ...spec,
      status: state as ClusterStatus,
      statusInfo: aci.status?.debugInfo?.stateInfo ?? '',
      statusUpdatedAt: persisted.statusUpdatedAt,
      validationsInfo: (aci.status?.validationsInfo ?? {}) as ValidationsInfo,
      lastPreparation: persisted.lastPreparation,
      ...(persisted.installStartedAt !== undefined && {
        installStartedAt: persisted.installStartedAt,
      }),
      ...(persisted.installCompletedAt !== undefined && {
        installCompletedAt: persisted.installCompletedAt,
      }),
      ...(aci.status?.progress?.totalPercentage !== undefined && {
        totalPercentage: aci.status.progress.totalPercentage,
      }),
    };
    return {
      record,
      installConfigOverrides: persisted.installConfigOverrides ?? '',
      ...(persisted.preparationStartedAt !== undefined && {
        preparationStartedAt: persisted.preparationStartedAt,
      }),
      ...(persisted.installer !== undefined && { installer: persisted.installer }),
    };
  }
  // A ClusterDeployment installed by other means is imported as a day-2 cluster.
  const imported = cd.spec?.installed === true;
  return {
    installConfigOverrides: '',
    record: {
      ...spec,
      status: imported ? 'adding-hosts' : 'insufficient',
      statusInfo: imported ? ADDING_HOSTS_STATUS_INFO : INSUFFICIENT_STATUS_INFO,
      statusUpdatedAt: now.toISOString(),
      validationsInfo: {},
      lastPreparation: { status: 'never' },
    },
  };
}

/** Statuses whose timeout counts from `statusUpdatedAt` (preparing: 10 min, finalizing: 5 h). */
const TIMED_FROM_STATUS_UPDATE: readonly string[] = ['preparing-for-installation', 'finalizing'];

/**
 * The annotation value of an installation. `previous`, the value the ACI has: kept as it is when
 * only `statusUpdatedAt` moved and the new status has no timeout counted from it (a restart
 * needs that time only for those), so such a move costs the ACI one write, not two.
 */
export function persistedStateOf(installation: ClusterInstallation, previous?: string): string {
  const text = persistedText(installation, installation.record.statusUpdatedAt);
  if (previous === undefined || TIMED_FROM_STATUS_UPDATE.includes(installation.record.status))
    return text;
  let kept: string | undefined;
  try {
    kept = (JSON.parse(previous) as Partial<PersistedClusterState>).statusUpdatedAt;
  } catch {
    return text;
  }
  return typeof kept === 'string' && persistedText(installation, kept) === previous
    ? previous
    : text;
}

function persistedText(installation: ClusterInstallation, statusUpdatedAt: string): string {
  const { record } = installation;
  const state: PersistedClusterState = {
    statusUpdatedAt,
    ...(record.installStartedAt !== undefined && { installStartedAt: record.installStartedAt }),
    ...(record.installCompletedAt !== undefined && {
      installCompletedAt: record.installCompletedAt,
    }),
    ...(installation.preparationStartedAt !== undefined && {
      preparationStartedAt: installation.preparationStartedAt,
    }),
    lastPreparation: record.lastPreparation,
    ...(installation.installer !== undefined && { installer: installation.installer }),
    ...(installation.installConfigOverrides !== '' && {
      installConfigOverrides: installation.installConfigOverrides,
    }),
  };
  return JSON.stringify(state);
}
