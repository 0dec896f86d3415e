/**
 * What the host machine judges an event on: the events themselves, the context the caller
 * gives, the facts computed from both, and the results (upstream `internal/host/host.go`,
 * `conditions.go`, `validator.go` isConnected, `transition.go` conditions).
 */
import { ClusterStatus, HostRole, HostStage, HostStatus } from '../model.js';
import type { HostProgress, HostRecord, ValidationsInfo } from '../model.js';
import { hasEnoughMastersAndWorkers } from './cluster-counts.js';
import type { ClusterTopology } from './cluster-counts.js';
import {
  SNO_REBOOT_TIMEOUT_MS,
  WRONG_BOOT_ORDER_IGNORE_TIMEOUT_STAGES,
  hostStageTimeoutMs,
  isPreReboot,
} from './host-stages.js';
import { HostValidationSets, hostValidationPasses } from './validation-sets.js';

// ---- Events, context, results -------------------------------------------------------------

/** What can happen to a host (upstream transition types, plus the progress report). */
export type HostEvent =
  /** The agent called register (a host already on record; a new one: `registerNewHost`). */
  | { readonly type: 'RegisterHost' }
  /** The monitor's periodic re-evaluation (validations, connectivity, timeouts). */
  | { readonly type: 'Refresh' }
  | { readonly type: 'BindHost' }
  | { readonly type: 'UnbindHost' }
  | { readonly type: 'ReclaimHost' }
  | { readonly type: 'RebootingForReclaim' }
  | { readonly type: 'ReclaimFailed' }
  /** Install one day-2 host (day-1 hosts move to installing on Refresh). */
  | { readonly type: 'InstallHost' }
  /** The installer reported a stage (`PUT …/progress`). */
  | { readonly type: 'HostProgress'; readonly stage: HostStage; readonly progressInfo?: string }
  /** @default reason `installation command failed` */
  | { readonly type: 'HostInstallationFailed'; readonly reason?: string }
  | { readonly type: 'MediaDisconnect' }
  /** @default reason `Installation was cancelled by user` */
  | { readonly type: 'CancelInstallation'; readonly reason?: string }
  /** Cluster reset: the host must be booted into the discovery image again. */
  | { readonly type: 'ResetPendingUserAction' };

/** The `type` of a host event. */
export type HostEventType = HostEvent['type'];

/** Everything the host machine judges besides the host record itself. */
export interface HostMachineContext {
  readonly now: Date;
  /** The host is bound to a cluster (has a ClusterDeployment). */
  readonly bound: boolean;
  /** The host is added to an installed cluster (upstream host kind AddToExistingClusterHost). */
  readonly day2: boolean;
  /** Status of the cluster the host is bound to. */
  readonly clusterStatus?: ClusterStatus;
  /** The host's validations, already computed by the caller. */
  readonly validations: ValidationsInfo;
  /** Ignored host validations (ACI annotation); `all` ignores every ignorable one. */
  readonly ignoredValidations: readonly string[];
  /**
   * The agent checked in recently (3 min, bootstrap 5 min). The machine itself only counts a
   * disconnection before the `Rebooting` stage, as upstream does.
   */
  readonly connected: boolean;
  /** The bound cluster is single-node. */
  readonly sno: boolean;
  /**
   * Installation disk speed measured and sufficient (or not needed: save-partitions, install
   * to the live root). Judged in preparing-for-installation.
   * @default false
   */
  readonly installationDiskSpeedCheckSuccessful?: boolean;
  /**
   * Every container image the install needs was pulled by the host (at least one reported).
   * @default false
   */
  readonly containerImagesAvailable?: boolean;
  /**
   * The bound cluster's hosts and shape, for "would the cluster succeed without this host"
   * when a host waits too long for a user. Without it the host keeps waiting.
   */
  readonly cluster?: ClusterTopology & { readonly hosts: readonly HostRecord[] };
}

/** An accepted event: the host's new status and what else changes with it. */
export interface HostTransitionOk {
  readonly ok: true;
  readonly status: HostStatus;
  readonly statusInfo: string;
  /** Status or status info differ from the host's (a caller writes and emits events only then). */
  readonly changed: boolean;
  /**
   * The status differs from the host's: only then does `statusUpdatedAt` move to now (the
   * status timeouts count from it, as upstream's UpdateHostStatus).
   */
  readonly statusChanged: boolean;
  /** Name of the upstream rule that decided. */
  readonly rule: string;
  /** The host's progress, when it changes (an empty object clears it). */
  readonly progress?: HostProgress;
  readonly bootstrap?: boolean;
  readonly role?: HostRole;
  /** Forget the inventory (the agent sends a fresh one). */
  readonly clearInventory?: boolean;
  /**
   * Forget the cluster: binding, role and suggested role (to `auto-assign`), installation disk,
   * machine config pool, step results.
   */
  readonly unbind?: boolean;
  /** The cluster's last preparation goes back to never tried (a host re-registered while preparing). */
  readonly resetClusterPreparation?: boolean;
}

/** A refused event: nothing changes; the API answers with this status and reason. */
export interface HostRefusal {
  readonly ok: false;
  readonly httpStatus: 400 | 409;
  readonly reason: string;
}

/** The outcome of `applyHostEvent`. */
export type HostTransitionResult = HostTransitionOk | HostRefusal;

// ---- Facts the conditions read ------------------------------------------------------------

/** The booleans one event is judged on, computed once from the host, the event and the context. */
export interface HostFacts {
  readonly bound: boolean;
  readonly day2: boolean;
  readonly connected: boolean;
  readonly mediaConnected: boolean;
  readonly hasInventory: boolean;
  readonly inventoryNotFullyTruncated: boolean;
  readonly hasValidInventory: boolean;
  readonly minHardware: boolean;
  readonly requiredInput: boolean;
  readonly sufficientForInstall: boolean;
  readonly vsphereDiskUuid: boolean;
  readonly sufficientToBeBound: boolean;
  readonly validRoleForInstallation: boolean;
  readonly clusterPreparing: boolean;
  readonly clusterInstalling: boolean;
  readonly clusterInError: boolean;
  readonly clusterPendingUserAction: boolean;
  readonly clusterPostInstallation: boolean;
  readonly diskSpeedCheckSuccessful: boolean;
  readonly diskSpeedSufficientOrUnknown: boolean;
  readonly imagesAvailable: boolean;
  readonly imagesSufficientOrUnknown: boolean;
  readonly preparingTimedOut: boolean;
  readonly installationTimedOut: boolean;
  readonly stageTimedOut: boolean;
  readonly pendingUserActionTimedOut: boolean;
  readonly reclaimTimedOut: boolean;
  readonly inReboot: boolean;
  readonly inDone: boolean;
  readonly inWrongBootStages: boolean;
  readonly inWritingImage: boolean;
  readonly inCopyingRegistry: boolean;
  readonly clusterWouldSucceedWithoutHost: boolean;
}

const MINUTE_MS = 60_000;
/** `InstallationTimeout`: a host in `installing` that never starts. */
export const HOST_INSTALLATION_TIMEOUT_MS = 20 * MINUTE_MS;
/** `PREPARE_FOR_INSTALLATION_HOST_TIMEOUT`. */
export const HOST_PREPARE_TIMEOUT_MS = 8 * MINUTE_MS;
/** `HOST_INSTALLING_PENDING_USER_ACTION_TIMEOUT`. */
export const HOST_PENDING_USER_ACTION_TIMEOUT_MS = 60 * MINUTE_MS;
/** `ReclaimTimeout`. */
export const HOST_RECLAIM_TIMEOUT_MS = 60 * MINUTE_MS;

/** Milliseconds from `since` (RFC 3339) to `now`; 0 when unknown. */
export function elapsedMs(since: string | undefined, now: Date): number {
  if (since === undefined) return 0;
  const t = Date.parse(since);
  return Number.isNaN(t) ? 0 : now.getTime() - t;
}

/** Computes the facts for `host` (whose progress is already the one to judge). */
export function hostFacts(host: HostRecord, ctx: HostMachineContext): HostFacts {
  const passes = (id: string): boolean =>
    hostValidationPasses(ctx.validations, id, ctx.ignoredValidations);
  const allPass = (ids: readonly string[]): boolean => ids.every(passes);
  const stage = host.progress.currentStage;
  const status = ctx.clusterStatus;
  const statusAge = elapsedMs(host.statusUpdatedAt, ctx.now);
  const stageLimit =
    stage === HostStage.Rebooting && ctx.sno ? SNO_REBOOT_TIMEOUT_MS : hostStageTimeoutMs(stage);
  const diskSpeedCheckSuccessful = ctx.installationDiskSpeedCheckSuccessful ?? false;
  const imagesAvailable = ctx.containerImagesAvailable ?? false;
  const inStage = (s: HostStage): boolean => stage === s;
  return {
    bound: ctx.bound,
    day2: ctx.day2,
    connected: ctx.connected || !isPreReboot(stage),
    mediaConnected: passes('media-connected'),
    // No inventory on record is judged so even when the caller reported nothing about it.
    hasInventory: host.inventory !== undefined && passes('has-inventory'),
    inventoryNotFullyTruncated: passes('inventory-not-fully-truncated'),
    hasValidInventory: host.inventory !== undefined && allPass(HostValidationSets.validInventory),
    minHardware: allPass(HostValidationSets.minHardware),
    requiredInput: allPass(HostValidationSets.requiredInput),
    sufficientForInstall: allPass(HostValidationSets.sufficientForInstall),
    vsphereDiskUuid: allPass(HostValidationSets.vsphereDiskUuid),
    sufficientToBeBound: allPass(HostValidationSets.sufficientToBeBound),
    validRoleForInstallation:
      host.role === HostRole.Master ||
      host.role === HostRole.Arbiter ||
      host.role === HostRole.Worker,
    clusterPreparing: status === ClusterStatus.PreparingForInstallation,
    clusterInstalling: status === ClusterStatus.Installing,
    clusterInError: status === ClusterStatus.Error,
    clusterPendingUserAction: status === ClusterStatus.InstallingPendingUserAction,
    clusterPostInstallation:
      status === ClusterStatus.Installed || status === ClusterStatus.AddingHosts,
    diskSpeedCheckSuccessful,
    diskSpeedSufficientOrUnknown: passes('sufficient-installation-disk-speed'),
    imagesAvailable,
    imagesSufficientOrUnknown: passes('container-images-available'),
    preparingTimedOut: statusAge > HOST_PREPARE_TIMEOUT_MS,
    installationTimedOut: statusAge > HOST_INSTALLATION_TIMEOUT_MS,
    stageTimedOut: elapsedMs(host.progress.stageUpdatedAt, ctx.now) > stageLimit,
    pendingUserActionTimedOut: statusAge > HOST_PENDING_USER_ACTION_TIMEOUT_MS,
    reclaimTimedOut: statusAge > HOST_RECLAIM_TIMEOUT_MS,
    inReboot: inStage(HostStage.Rebooting),
    inDone: inStage(HostStage.Done),
    inWrongBootStages:
      stage !== undefined && WRONG_BOOT_ORDER_IGNORE_TIMEOUT_STAGES.includes(stage),
    inWritingImage: inStage(HostStage.WritingImageToDisk),
    inCopyingRegistry: inStage(HostStage.CopyingRegistryData),
    clusterWouldSucceedWithoutHost:
      ctx.cluster !== undefined &&
      hasEnoughMastersAndWorkers(ctx.cluster.hosts, [HostStatus.Installed], ctx.cluster),
  };
}
