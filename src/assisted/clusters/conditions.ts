/**
 * The AgentClusterInstall conditions (assisted.md §3.3), with upstream's exact types, reasons and
 * messages — code over docs (§9): SpecSynced True says literally `SyncOK`. Each condition is a
 * pure function of the cluster's status and a few counts, so tests can check every row.
 */
import type { ClusterStatus, ValidationsInfo } from '../model.js';
import type { ClusterInstallCondition } from './kinds.js';

/** Condition types. `InstallerBackend` is ours: which backend generates the ignition. */
export const AciCondition = {
  SpecSynced: 'SpecSynced',
  Validated: 'Validated',
  RequirementsMet: 'RequirementsMet',
  Completed: 'Completed',
  Failed: 'Failed',
  Stopped: 'Stopped',
  LastInstallationPreparationFailed: 'LastInstallationPreparationFailed',
  InstallerBackend: 'InstallerBackend',
} as const;

/** A condition before its times are set. */
export type ConditionValue = Omit<ClusterInstallCondition, 'lastProbeTime' | 'lastTransitionTime'>;

/** An error that keeps the spec from being applied: the user's (input) or ours (backend). */
export interface SyncError {
  readonly kind: 'input' | 'backend';
  readonly message: string;
}

const NOT_AVAILABLE = { reason: 'NotAvailable', message: 'Information not available' } as const;

function unknownStatus(type: string, status: string): ConditionValue {
  return {
    type,
    status: 'Unknown',
    reason: 'UnknownStatus',
    message: `The installation status is currently not recognized: ${status}`,
  };
}

/** SpecSynced. */
export function specSynced(error: SyncError | undefined): ConditionValue {
  const type = AciCondition.SpecSynced;
  if (error === undefined) return { type, status: 'True', reason: 'SyncOK', message: 'SyncOK' };
  return error.kind === 'input'
    ? {
        type,
        status: 'False',
        reason: 'InputError',
        message: `The Spec could not be synced due to an input error: ${error.message}`,
      }
    : {
        type,
        status: 'False',
        reason: 'BackendError',
        message: `The Spec could not be synced due to backend error: ${error.message}`,
      };
}

/** Counts RequirementsMet compares while the cluster is ready. */
export interface AgentCounts {
  readonly expected: {
    readonly masters: number;
    readonly arbiters: number;
    readonly workers: number;
  };
  /** Hosts by suggested role (effective role when not auto-assign). */
  readonly registered: {
    readonly masters: number;
    readonly arbiters: number;
    readonly workers: number;
  };
  readonly approved: number;
  readonly unsynced: number;
}

/** RequirementsMet. */
export function requirementsMet(status: string, counts: AgentCounts): ConditionValue {
  const type = AciCondition.RequirementsMet;
  switch (status) {
    case 'ready': {
      const { expected: e, registered: r } = counts;
      const expectedHosts = e.masters + e.arbiters + e.workers;
      if (r.masters !== e.masters || r.workers !== e.workers || r.arbiters !== e.arbiters)
        return {
          type,
          status: 'False',
          reason: 'InsufficientAgents',
          message: `The cluster currently requires exactly ${String(e.masters)} master agents, ${String(e.arbiters)} arbiter agents and ${String(e.workers)} worker agents, but currently registered ${String(r.masters)} master agents, ${String(r.arbiters)} arbiter agents and ${String(r.workers)} worker agents`,
        };
      if (counts.unsynced !== 0)
        return {
          type,
          status: 'False',
          reason: 'UnsyncedAgents',
          message: `The cluster currently has ${String(counts.unsynced)} agents with spec error`,
        };
      if (counts.approved < expectedHosts)
        return {
          type,
          status: 'False',
          reason: 'UnapprovedAgents',
          message: `The installation is pending on the approval of ${String(expectedHosts - counts.approved)} agents`,
        };
      return {
        type,
        status: 'True',
        reason: 'ClusterIsReady',
        message: 'The cluster is ready to begin the installation',
      };
    }
    case 'insufficient':
    case 'pending-for-input':
      return {
        type,
        status: 'False',
        reason: 'ClusterNotReady',
        message: 'The cluster is not ready to begin the installation',
      };
    case 'preparing-for-installation':
    case 'installing':
    case 'installing-pending-user-action':
    case 'adding-hosts':
    case 'finalizing':
      return {
        type,
        status: 'True',
        reason: 'ClusterAlreadyInstalling',
        message: 'The cluster requirements are met',
      };
    case 'installed':
    case 'error':
      return {
        type,
        status: 'True',
        reason: 'ClusterInstallationStopped',
        message: 'The cluster installation stopped',
      };
    default:
      return unknownStatus(type, status);
  }
}

/** Messages of validations that did not pass, comma-joined as upstream (`status != success`). */
function failingMessages(validationsInfo: ValidationsInfo): string {
  return Object.values(validationsInfo)
    .flatMap((results) => results.filter((r) => r.status !== 'success').map((r) => r.message))
    .join(',');
}

/** Validated. */
export function validated(status: string, validationsInfo: ValidationsInfo): ConditionValue {
  const type = AciCondition.Validated;
  if (status === 'insufficient')
    return {
      type,
      status: 'False',
      reason: 'ValidationsFailing',
      message: `The cluster's validations are failing: ${failingMessages(validationsInfo)}`,
    };
  if (status === 'pending-for-input')
    return {
      type,
      status: 'False',
      reason: 'ValidationsUserPending',
      message: `The cluster's validations are pending for user: ${failingMessages(validationsInfo)}`,
    };
  if (status !== 'adding-hosts' && Object.keys(validationsInfo).length === 0)
    return {
      type,
      status: 'Unknown',
      reason: 'ValidationsUnknown',
      message: "The cluster's validations have not yet been calculated",
    };
  return {
    type,
    status: 'True',
    reason: 'ValidationsPassing',
    message: "The cluster's validations are passing",
  };
}

/** Completed. */
export function completed(status: string, statusInfo: string, onHold: boolean): ConditionValue {
  const type = AciCondition.Completed;
  switch (status) {
    case 'installed':
    case 'adding-hosts':
      return {
        type,
        status: 'True',
        reason: 'InstallationCompleted',
        message: `The installation has completed: ${statusInfo}`,
      };
    case 'error':
      return {
        type,
        status: 'False',
        reason: 'InstallationFailed',
        message: `The installation has failed: ${statusInfo}`,
      };
    case 'ready':
      return onHold
        ? {
            type,
            status: 'False',
            reason: 'InstallationOnHold',
            message: 'The installation is on hold. To unhold set holdInstallation to false',
          }
        : {
            type,
            status: 'False',
            reason: 'InstallationNotStarted',
            message: 'The installation has not yet started',
          };
    case 'insufficient':
    case 'pending-for-input':
      return {
        type,
        status: 'False',
        reason: 'InstallationNotStarted',
        message: 'The installation has not yet started',
      };
    case 'preparing-for-installation':
    case 'installing':
    case 'finalizing':
    case 'installing-pending-user-action':
      return {
        type,
        status: 'False',
        reason: 'InstallationInProgress',
        message: `The installation is in progress: ${statusInfo}`,
      };
    default:
      return unknownStatus(type, status);
  }
}

/** Failed. */
export function failed(status: string, statusInfo: string): ConditionValue {
  const type = AciCondition.Failed;
  return status === 'error'
    ? {
        type,
        status: 'True',
        reason: 'InstallationFailed',
        message: `The installation failed: ${statusInfo}`,
      }
    : {
        type,
        status: 'False',
        reason: 'InstallationNotFailed',
        message: 'The installation has not failed',
      };
}

/** Stopped. */
export function stopped(status: string): ConditionValue {
  const type = AciCondition.Stopped;
  switch (status) {
    case 'error':
      return {
        type,
        status: 'True',
        reason: 'InstallationFailed',
        message: 'The installation has stopped due to error',
      };
    case 'cancelled':
      return {
        type,
        status: 'True',
        reason: 'InstallationCancelled',
        message: 'The installation has stopped because it was cancelled',
      };
    case 'installed':
    case 'adding-hosts':
      return {
        type,
        status: 'True',
        reason: 'InstallationCompleted',
        message: 'The installation has stopped because it completed successfully',
      };
    default:
      return {
        type,
        status: 'False',
        reason: 'InstallationNotStopped',
        message: 'The installation is waiting to start or in progress',
      };
  }
}

/** LastInstallationPreparationFailed: upstream puts the explanation in the reason. */
export function lastPreparationFailed(preparation: {
  readonly status: 'never' | 'success' | 'failed';
  readonly reason?: string;
}): ConditionValue {
  const type = AciCondition.LastInstallationPreparationFailed;
  switch (preparation.status) {
    case 'never':
      return {
        type,
        status: 'False',
        reason: 'Cluster preparation has never been performed for this cluster',
        message: '',
      };
    case 'success':
      return {
        type,
        status: 'False',
        reason: 'There is no failing prior preparation attempt',
        message: '',
      };
    case 'failed':
      return {
        type,
        status: 'True',
        reason: 'The last installation preparation failed',
        message: preparation.reason ?? '',
      };
  }
}

/** Ours: which installer backend generates the ignition, or why the installation waits for it. */
export function installerBackend(
  name: string,
  availability:
    | { readonly available: true; readonly description: string }
    | {
        readonly available: false;
        readonly reason: string;
      },
): ConditionValue {
  const type = AciCondition.InstallerBackend;
  if (!availability.available)
    return { type, status: 'False', reason: 'InstallerNotAvailable', message: availability.reason };
  return {
    type,
    status: 'True',
    reason: name === 'simulated' ? 'SimulatedInstaller' : 'InstallerAvailable',
    message: availability.description,
  };
}

/** The conditions of an AgentClusterInstall whose backend cluster does not exist (yet). */
export function notAvailable(): ConditionValue[] {
  return [
    AciCondition.Validated,
    AciCondition.RequirementsMet,
    AciCondition.Completed,
    AciCondition.Failed,
    AciCondition.Stopped,
  ].map((type) => ({ type, status: 'Unknown', ...NOT_AVAILABLE }));
}

/** Everything the cluster conditions are computed from. */
export interface ClusterConditionInput {
  readonly status: ClusterStatus;
  readonly statusInfo: string;
  readonly validationsInfo: ValidationsInfo;
  readonly counts: AgentCounts;
  readonly onHold: boolean;
  readonly lastPreparation: {
    readonly status: 'never' | 'success' | 'failed';
    readonly reason?: string;
  };
}

/** Every condition of a cluster that exists, in upstream's order. */
export function clusterConditions(input: ClusterConditionInput): ConditionValue[] {
  return [
    requirementsMet(input.status, input.counts),
    validated(input.status, input.validationsInfo),
    completed(input.status, input.statusInfo, input.onHold),
    failed(input.status, input.statusInfo),
    stopped(input.status),
    lastPreparationFailed(input.lastPreparation),
  ];
}

/**
 * `conditions` with `value` set the way hive's conditions are: a new or changed condition (status,
 * reason or message) gets both lastProbeTime and lastTransitionTime of now; an unchanged one keeps
 * its times.
 */
export function setClusterCondition(
  conditions: readonly ClusterInstallCondition[],
  value: ConditionValue,
  now: number,
): ClusterInstallCondition[] {
  const time = new Date(Math.floor(now / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  const index = conditions.findIndex((c) => c.type === value.type);
  const previous = conditions[index];
  if (
    previous?.status === value.status &&
    previous.reason === value.reason &&
    previous.message === value.message
  )
    return [...conditions];
  const next: ClusterInstallCondition = { ...value, lastProbeTime: time, lastTransitionTime: time };
  if (index < 0) return [...conditions, next];
  return conditions.map((c, i) => (i === index ? next : c));
}

/** The condition of `type`, if any. */
export function findClusterCondition(
  conditions: readonly ClusterInstallCondition[] | undefined,
  type: string,
): ClusterInstallCondition | undefined {
  return conditions?.find((c) => c.type === type);
}
