/**
 * The host state machine as data (assisted.md §4.1–4.3). `hostTransitions` lists upstream's
 * rules in upstream's order: `internal/host/statemachine.go` (NewHostStateMachine) followed by
 * `internal/host/pool_host_statemachine.go` (NewPoolHostStateMachine), as `host.go` NewManager
 * chains them. Like upstream's stateswitch, the first row whose event, source status and
 * condition match decides; when none matches the event is refused.
 *
 * Left out on purpose, each noted where it would sit:
 * - soft timeouts (`ENABLE_SOFT_TIMEOUTS` and an OCM organisation feature, never on in kube-api
 *   mode): their rows only ever fire with the feature on;
 * - log-collection timeouts in `error`/`cancelled`: they change logs progress, not status, so
 *   the plain "stay" rows cover them.
 */
import { ClusterStatus, HostRole, HostStage, HostStatus } from '../model.js';
import type { HostProgress, HostRecord, ValidationsInfo, WireDisk } from '../model.js';
import { all, any, fact, not } from './condition.js';
import type { Condition } from './condition.js';
import { hasEnoughMastersAndWorkers } from './cluster-counts.js';
import type { ClusterTopology } from './cluster-counts.js';
import { HostRefusalReason, HostStatusInfo, STATUS_INFO_MAX_LENGTH } from './host-status-info.js';
import {
  SNO_REBOOT_TIMEOUT_MS,
  WRONG_BOOT_ORDER_IGNORE_TIMEOUT_STAGES,
  goDuration,
  hostStageTimeoutMs,
  installationPercentage,
  isPreReboot,
  stagesFor,
} from './host-stages.js';
import {
  HostValidationSets,
  failingValidationMessages,
  hostValidationPasses,
} from './validation-sets.js';

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

function elapsedMs(since: string | undefined, now: Date): number {
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

// ---- The table ------------------------------------------------------------------------------

/** A host with no record yet (upstream's empty source state). */
export const NEW_HOST = '';
/** A row's source: a status, or no record yet. */
export type HostSource = HostStatus | typeof NEW_HOST;

/** Where a row's status info comes from. */
export type HostStatusInfoRule =
  /** A text; its `$…` macros are filled in. */
  | { readonly kind: 'template'; readonly template: string }
  /** Upstream has no post-transition here: the status info stays. */
  | { readonly kind: 'keep' }
  /** The event's reason (cancel, installation failed). */
  | { readonly kind: 'event-reason' }
  /** The reported stage's name. */
  | { readonly kind: 'stage' }
  /** The media text; in `error`, `Failed - <media text>. <previous info>`. */
  | { readonly kind: 'media-disconnect' }
  /** Which preparation checks did not finish in time. */
  | { readonly kind: 'preparation-timeout' }
  /** The host booted the discovery image again instead of its installation disk. */
  | { readonly kind: 'wrong-boot-order' };

/** What else a row resets (upstream resetFields / restFieldsOnUnbind). */
export type HostReset =
  /** progress */
  | 'progress'
  /** progress, inventory, bootstrap */
  | 'discovery'
  /** progress, inventory, bootstrap and the cluster binding */
  | 'unbind';

/** One rule: on `event` from one of `from`, when `when` holds, go to `to`. */
export interface HostTransition {
  readonly event: HostEventType;
  /** The upstream rule's documentation name. */
  readonly name: string;
  readonly from: readonly HostSource[];
  /** @default always */
  readonly when?: Condition<HostFacts>;
  readonly to: HostStatus;
  readonly info: HostStatusInfoRule;
  readonly resets?: HostReset;
  /** The cluster's last preparation is reset too. */
  readonly resetClusterPreparation?: true;
  /** The row matches, but upstream's post-transition refuses the request (nothing changes). */
  readonly refusal?: { readonly httpStatus: 400 | 409; readonly reason: string };
  /** Refresh the stage's update time (upstream PostRefreshHostRefreshStageUpdateTime). */
  readonly touchStageUpdatedAt?: true;
}

const H = HostStatus;
const text = (template: string): HostStatusInfoRule => ({ kind: 'template', template });
const KEEP: HostStatusInfoRule = { kind: 'keep' };
const EVENT_REASON: HostStatusInfoRule = { kind: 'event-reason' };
const STAGE: HostStatusInfoRule = { kind: 'stage' };
const MEDIA: HostStatusInfoRule = { kind: 'media-disconnect' };
const I = HostStatusInfo;
const f = (key: keyof HostFacts): Condition<HostFacts> => fact<HostFacts>(key);

/** One "stay" row per state (upstream adds these in a loop). */
function stay(
  event: HostEventType,
  states: readonly HostStatus[],
  name: (s: HostStatus) => string,
  when?: Condition<HostFacts>,
): HostTransition[] {
  return states.map((s) => ({
    event,
    name: name(s),
    from: [s],
    to: s,
    info: KEEP,
    ...(when === undefined ? {} : { when }),
  }));
}

const online = all(f('connected'), f('mediaConnected'));
const offline = any(not(f('connected')), not(f('mediaConnected')));
const diskSpeedUnknown = all(not(f('diskSpeedCheckSuccessful')), f('diskSpeedSufficientOrUnknown'));
const imagesUnknown = all(not(f('imagesAvailable')), f('imagesSufficientOrUnknown'));
const preparationChecksSucceeded = all(f('diskSpeedCheckSuccessful'), f('imagesAvailable'));
const preparationChecksNotFailed = all(
  f('diskSpeedSufficientOrUnknown'),
  f('imagesSufficientOrUnknown'),
);
const preparationChecksPending = all(
  any(diskSpeedUnknown, imagesUnknown),
  preparationChecksNotFailed,
);
const ignoreStageTimeout = all(f('inWrongBootStages'), f('clusterPendingUserAction'));
const readyForInstall = all(
  online,
  f('hasValidInventory'),
  f('minHardware'),
  f('requiredInput'),
  f('sufficientForInstall'),
  f('vsphereDiskUuid'),
);

const PRE_INSTALL: readonly HostStatus[] = [
  H.Known,
  H.Discovering,
  H.Disconnected,
  H.Insufficient,
  H.PendingForInput,
];
const UNBOUND: readonly HostStatus[] = [
  H.DiscoveringUnbound,
  H.InsufficientUnbound,
  H.KnownUnbound,
  H.DisconnectedUnbound,
];

/** The host transitions, in upstream order (first match wins). */
export const hostTransitions: readonly HostTransition[] = [
  // ---- internal/host/statemachine.go ----
  {
    event: 'RegisterHost',
    name: 'Initial registration',
    from: [NEW_HOST],
    when: f('bound'),
    to: H.Discovering,
    info: text(I.discovering),
  },
  {
    event: 'HostProgress',
    name: 'host progress installing-in-progress on rebooting in kube-api mode',
    from: [H.InstallingInProgress, H.Installing],
    when: all(f('inReboot'), f('day2')),
    to: H.InstallingInProgress,
    info: STAGE,
  },
  {
    event: 'HostProgress',
    name: 'host progress changed to added-to-existing-cluster for day2 host',
    from: [H.InstallingInProgress, H.Installing, H.InstallingPendingUserAction],
    when: all(f('inDone'), f('day2')),
    to: H.AddedToExistingCluster,
    info: STAGE,
  },
  {
    event: 'HostProgress',
    name: 'host progress changed to installed',
    from: [H.InstallingInProgress, H.Installing],
    when: f('inDone'),
    to: H.Installed,
    info: STAGE,
  },
  {
    event: 'HostProgress',
    name: 'default host progress changed',
    from: [H.InstallingInProgress, H.Installing, H.InstallingPendingUserAction],
    to: H.InstallingInProgress,
    info: STAGE,
  },
  ...stay(
    'HostProgress',
    [H.Installed, H.InstallingPendingUserAction, H.ResettingPendingUserAction],
    (s) => `Host progress change during ${s} state should stay in ${s} state`,
  ),
  {
    event: 'RegisterHost',
    name: 'Re-registration during preparation',
    from: [H.PreparingForInstallation, H.PreparingSuccessful],
    to: H.Known,
    info: text(I.known),
    resets: 'progress',
    resetClusterPreparation: true,
  },
  {
    event: 'RegisterHost',
    name: 'Re-registration',
    from: [
      H.Discovering,
      H.Known,
      H.Disconnected,
      H.Insufficient,
      H.ResettingPendingUserAction,
      H.Binding,
      H.PendingForInput,
    ],
    to: H.Discovering,
    info: text(I.discovering),
    resets: 'discovery',
  },
  {
    event: 'RegisterHost',
    name: 'Ignore register while rebooting host in resetting',
    from: [H.Resetting],
    when: f('inReboot'),
    to: H.Resetting,
    info: KEEP,
  },
  {
    event: 'RegisterHost',
    name: 'Register non-rebooting host in resetting',
    from: [H.Resetting],
    when: not(f('inReboot')),
    to: H.Discovering,
    info: text(I.discovering),
    resets: 'discovery',
  },
  {
    // Upstream: one rule; from installing-pending-user-action its post-transition refuses.
    event: 'RegisterHost',
    name: 'Wrong boot order detection (already pending user action)',
    from: [H.InstallingPendingUserAction],
    when: any(f('inReboot'), all(f('day2'), f('inDone'))),
    to: H.InstallingPendingUserAction,
    info: KEEP,
    refusal: { httpStatus: 400, reason: HostRefusalReason.bootFromDisk },
  },
  {
    event: 'RegisterHost',
    name: 'Wrong boot order detection',
    from: [H.InstallingInProgress, H.AddedToExistingCluster],
    when: any(f('inReboot'), all(f('day2'), f('inDone'))),
    to: H.InstallingPendingUserAction,
    info: { kind: 'wrong-boot-order' },
  },
  {
    event: 'RegisterHost',
    name: 'Register during installation',
    from: [H.Installing, H.InstallingInProgress],
    to: H.Error,
    info: text(I.restartedDuringInstallation),
  },
  {
    event: 'RegisterHost',
    name: 'Register during error',
    from: [H.Error],
    to: H.Error,
    info: KEEP,
  },
  {
    event: 'RegisterHost',
    name: 'Register post-installation',
    from: [H.Installed],
    to: H.Installed,
    info: KEEP,
    refusal: { httpStatus: 409, reason: HostRefusalReason.registerAfterInstallation },
  },
  {
    event: 'HostInstallationFailed',
    name: 'Installation failed while host is installing',
    from: [H.Installing, H.InstallingInProgress],
    to: H.Error,
    info: EVENT_REASON,
  },
  {
    event: 'CancelInstallation',
    name: 'Installation canceled while host is installing',
    from: [
      H.InstallingPendingUserAction,
      H.Installing,
      H.InstallingInProgress,
      H.Installed,
      H.Error,
    ],
    to: H.Cancelled,
    info: EVENT_REASON,
  },
  {
    event: 'CancelInstallation',
    name: 'Cancel while preparing',
    from: [H.PreparingForInstallation, H.PreparingSuccessful],
    to: H.Known,
    info: EVENT_REASON,
  },
  {
    event: 'CancelInstallation',
    name: 'Cancel while known',
    from: [H.Known],
    to: H.Known,
    info: KEEP,
  },
  {
    event: 'InstallHost',
    name: 'Install known host',
    from: [H.Known],
    when: f('day2'),
    to: H.Installing,
    info: text(I.installing),
  },
  {
    event: 'ResetPendingUserAction',
    name: 'Reset pending user action all states',
    from: [
      H.Resetting,
      H.Discovering,
      H.Known,
      H.InstallingPendingUserAction,
      H.Installing,
      H.PreparingForInstallation,
      H.PreparingSuccessful,
      H.PreparingFailed,
      H.PendingForInput,
      H.ResettingPendingUserAction,
      H.InstallingInProgress,
      H.Installed,
      H.Error,
      H.Cancelled,
      H.AddedToExistingCluster,
    ],
    to: H.ResettingPendingUserAction,
    info: text(I.resettingPendingUserAction),
  },
  {
    event: 'UnbindHost',
    name: 'Unbind pre-installation',
    from: PRE_INSTALL,
    to: H.Unbinding,
    info: text(I.unbinding),
    resets: 'unbind',
  },
  {
    event: 'UnbindHost',
    name: 'Unbind during or after installation',
    from: [
      H.PreparingForInstallation,
      H.PreparingSuccessful,
      H.PreparingFailed,
      H.Installing,
      H.InstallingInProgress,
      H.InstallingPendingUserAction,
      H.Installed,
      H.AddedToExistingCluster,
      H.Error,
      H.Cancelled,
    ],
    to: H.UnbindingPendingUserAction,
    info: text(I.unbinding),
    resets: 'unbind',
  },
  {
    event: 'ReclaimHost',
    name: 'Reclaim successful host',
    from: [H.Installed, H.AddedToExistingCluster],
    to: H.Reclaiming,
    info: text(I.unbinding),
    resets: 'unbind',
  },
  {
    event: 'RebootingForReclaim',
    name: 'Rebooting for reclaim reclaiming host',
    from: [H.Reclaiming],
    to: H.ReclaimingRebooting,
    info: text(I.rebootingForReclaim),
  },
  {
    event: 'ReclaimFailed',
    name: 'Reclaim failure for reclaiming host',
    from: [H.Reclaiming, H.ReclaimingRebooting],
    to: H.UnbindingPendingUserAction,
    info: text(I.unbinding),
    resets: 'unbind',
  },
  {
    event: 'Refresh',
    name: 'Refresh reclaiming host',
    from: [H.Reclaiming, H.ReclaimingRebooting],
    when: f('reclaimTimedOut'),
    to: H.UnbindingPendingUserAction,
    info: text(I.unbinding),
    resets: 'unbind',
  },
  {
    event: 'ReclaimHost',
    name: 'Reclaim pre-installation',
    from: PRE_INSTALL,
    to: H.Unbinding,
    info: text(I.unbinding),
    resets: 'unbind',
  },
  {
    event: 'ReclaimHost',
    name: 'Reclaim failed host',
    from: [H.Error, H.Cancelled],
    to: H.UnbindingPendingUserAction,
    info: text(I.unbinding),
    resets: 'unbind',
  },
  {
    // Upstream writes the "finished preparing" text on entering preparing (its
    // "preparing for installation" text is never used).
    event: 'Refresh',
    name: 'Refresh known host in preparing cluster',
    from: [H.Known],
    when: all(f('validRoleForInstallation'), online, f('clusterPreparing')),
    to: H.PreparingForInstallation,
    info: text(I.preparationSuccessful),
  },
  {
    event: 'Refresh',
    name: 'Refresh successfully preparing host',
    from: [H.PreparingForInstallation],
    when: all(online, preparationChecksSucceeded, f('clusterPreparing')),
    to: H.PreparingSuccessful,
    info: text(I.preparationSuccessful),
  },
  {
    event: 'Refresh',
    name: 'Stay in preparing successful',
    from: [H.PreparingSuccessful],
    when: all(online, f('clusterPreparing')),
    to: H.PreparingSuccessful,
    info: KEEP,
  },
  {
    event: 'Refresh',
    name: 'Move successfully prepared host to installing',
    from: [H.PreparingSuccessful],
    when: all(online, f('clusterInstalling')),
    to: H.Installing,
    info: text(I.installing),
  },
  {
    event: 'Refresh',
    name: 'Move preparing host to known when cluster stops preparing',
    from: [H.PreparingForInstallation],
    when: all(online, preparationChecksNotFailed, not(f('clusterPreparing'))),
    to: H.Known,
    info: text(I.known),
  },
  {
    event: 'Refresh',
    name: 'Preparing failed disk speed host move to insufficient',
    from: [H.PreparingForInstallation, H.PreparingFailed, H.Known],
    when: all(online, not(f('diskSpeedSufficientOrUnknown'))),
    to: H.Insufficient,
    info: text(I.notReadyForInstall),
  },
  {
    event: 'Refresh',
    name: 'Preparing timed out host move to known',
    from: [H.PreparingForInstallation],
    when: all(
      online,
      f('preparingTimedOut'),
      any(diskSpeedUnknown, imagesUnknown),
      preparationChecksNotFailed,
    ),
    to: H.PreparingFailed,
    info: { kind: 'preparation-timeout' },
  },
  {
    event: 'Refresh',
    name: 'Preparing failed image pull host move to preparing failed',
    from: [H.PreparingForInstallation],
    when: all(online, not(f('imagesSufficientOrUnknown'))),
    to: H.PreparingFailed,
    info: text(I.preparationFailure),
  },
  {
    event: 'Refresh',
    name: 'Stay in preparing for installation',
    from: [H.PreparingForInstallation],
    when: all(online, preparationChecksPending, f('clusterPreparing')),
    to: H.PreparingForInstallation,
    info: KEEP,
  },
  {
    event: 'Refresh',
    name: 'Failed preparing to known when cluster is no longer preparing',
    from: [H.PreparingFailed],
    when: all(online, not(f('clusterPreparing'))),
    to: H.Known,
    info: text(I.known),
  },
  {
    event: 'Refresh',
    name: 'Successful preparing to known when cluster is no longer preparing',
    from: [H.PreparingSuccessful],
    when: all(online, not(any(f('clusterPreparing'), f('clusterInstalling')))),
    to: H.Known,
    info: text(I.known),
  },
  {
    event: 'Refresh',
    name: 'Move host to disconnected when connected times out',
    from: [
      H.Discovering,
      H.Insufficient,
      H.Known,
      H.PendingForInput,
      H.Disconnected,
      H.PreparingFailed,
    ],
    when: offline,
    to: H.Disconnected,
    info: text(I.disconnected),
  },
  {
    event: 'MediaDisconnect',
    name: 'Move to disconnected when virtual media disconnects pre-installation',
    from: [H.Discovering, H.Insufficient, H.Known, H.PendingForInput, H.Disconnected, H.Binding],
    to: H.Disconnected,
    info: MEDIA,
  },
  {
    event: 'MediaDisconnect',
    name: 'Move to error when virtual media disconnects post-installation',
    from: [
      H.PreparingForInstallation,
      H.PreparingFailed,
      H.PreparingSuccessful,
      H.Installing,
      H.InstallingInProgress,
      H.Error,
    ],
    to: H.Error,
    info: MEDIA,
  },
  {
    event: 'Refresh',
    name: 'Move host to error when cluster is in error',
    from: [
      H.Installing,
      H.InstallingInProgress,
      H.Installed,
      H.ResettingPendingUserAction,
      H.InstallingPendingUserAction,
    ],
    when: all(f('clusterInError'), not(f('day2'))),
    to: H.Error,
    info: text(I.abortingDueClusterErrors),
  },
  {
    event: 'Refresh',
    name: 'Move host to error when installation times out',
    from: [H.Installing],
    when: f('installationTimedOut'),
    to: H.Error,
    info: text(I.installationTimedOut),
  },
  {
    event: 'Refresh',
    name: 'Move preparing host to disconnected when connection times out',
    from: [H.PreparingForInstallation, H.PreparingSuccessful],
    when: offline,
    to: H.Disconnected,
    info: text(I.connectionTimedOutPreparing),
  },
  {
    event: 'Refresh',
    name: 'Move installing host to error when connection times out',
    from: [H.Installing, H.InstallingInProgress],
    when: not(f('connected')),
    to: H.Error,
    info: text(I.connectionTimedOutInstalling),
  },
  // (soft timeouts: "Keep installing host when connection times out / recovers" left out)
  {
    event: 'Refresh',
    name: 'Ignore timeout if host is in particular installation in progress stages',
    from: [H.InstallingInProgress],
    when: ignoreStageTimeout,
    to: H.InstallingInProgress,
    info: KEEP,
    touchStageUpdatedAt: true,
  },
  {
    event: 'Refresh',
    name: 'Move to error on timeout if host is in particular installation in progress stages other than [writing-image-to-disk, copying-registry-data-to-disk, rebooting]',
    from: [H.InstallingInProgress],
    when: all(
      not(any(f('inWritingImage'), f('inCopyingRegistry'), f('inReboot'))),
      f('stageTimedOut'),
      not(ignoreStageTimeout),
    ),
    to: H.Error,
    info: text(I.stageTimedOut),
  },
  {
    event: 'Refresh',
    name: 'Move to error on timeout if host is in particular installation in progress stage writing-image-to-disk',
    from: [H.InstallingInProgress],
    when: all(f('inWritingImage'), f('stageTimedOut'), not(ignoreStageTimeout)),
    to: H.Error,
    info: text(I.stageNotProgressing),
  },
  {
    event: 'Refresh',
    name: 'Move to error on timeout if host is in particular installation in progress stage copying-registry-data-to-disk',
    from: [H.InstallingInProgress],
    when: all(f('inCopyingRegistry'), f('stageTimedOut'), not(ignoreStageTimeout)),
    to: H.Error,
    info: text(I.stageNotProgressing),
  },
  // (soft timeouts: the three "Indicate that timeout occurred and continue" rows left out)
  {
    event: 'Refresh',
    name: 'Tell user about boot order wen reboot takes too long',
    from: [H.InstallingInProgress],
    when: all(f('stageTimedOut'), f('inReboot')),
    to: H.InstallingPendingUserAction,
    info: text(I.rebootTimeout),
  },
  {
    event: 'Refresh',
    name: 'Host pending user action timeout with cluster viability check (day1 only)',
    from: [H.InstallingPendingUserAction],
    when: all(
      f('pendingUserActionTimedOut'),
      f('clusterWouldSucceedWithoutHost'),
      not(f('clusterPostInstallation')),
    ),
    to: H.Error,
    info: text(I.pendingUserActionTimeout),
  },
  ...stay(
    'Refresh',
    [
      H.Installing,
      H.InstallingInProgress,
      H.Installed,
      H.InstallingPendingUserAction,
      H.ResettingPendingUserAction,
    ],
    (s) => `Refresh during ${s} state without cluster error should stay in ${s} state`,
    not(f('clusterInError')),
  ),
  {
    event: 'Refresh',
    name: 'Host reconnected without inventory',
    from: [H.Disconnected, H.Discovering],
    when: all(online, not(f('hasValidInventory'))),
    to: H.Discovering,
    info: text(I.discovering),
  },
  {
    event: 'Refresh',
    name: 'Host has insufficient hardware',
    from: [H.Disconnected, H.Discovering, H.Insufficient, H.Known, H.PendingForInput],
    when: all(online, f('hasValidInventory'), not(f('minHardware'))),
    to: H.Insufficient,
    info: text(I.insufficientHardware),
  },
  {
    event: 'Refresh',
    name: 'Host pending input',
    from: [H.Disconnected, H.Discovering, H.Insufficient, H.Known, H.PendingForInput],
    when: all(
      online,
      f('hasValidInventory'),
      f('vsphereDiskUuid'),
      f('minHardware'),
      not(f('requiredInput')),
    ),
    to: H.PendingForInput,
    info: text(I.pendingForInput),
  },
  {
    event: 'Refresh',
    name: 'Host not ready',
    from: [H.Disconnected, H.Insufficient, H.PendingForInput, H.Discovering, H.Known],
    when: all(
      online,
      f('hasInventory'),
      any(f('minHardware'), not(f('inventoryNotFullyTruncated'))),
      any(not(f('vsphereDiskUuid')), all(f('requiredInput'), not(f('sufficientForInstall')))),
    ),
    to: H.Insufficient,
    info: text(I.notReadyForInstall),
  },
  {
    event: 'Refresh',
    name: 'Host ready',
    from: [H.Disconnected, H.Insufficient, H.PendingForInput, H.Discovering],
    when: readyForInstall,
    to: H.Known,
    info: text(I.known),
  },
  {
    event: 'Refresh',
    name: 'Host stay ready',
    from: [H.Known],
    when: all(readyForInstall, not(all(f('clusterPreparing'), f('validRoleForInstallation')))),
    to: H.Known,
    info: text(I.known),
  },
  // (log collection timeouts in error/cancelled change logs progress only: covered below)
  ...stay(
    'Refresh',
    [H.Error, H.Cancelled, H.Resetting],
    (s) => `Refresh during ${s} should stay in ${s}`,
  ),
  {
    event: 'Refresh',
    name: 'Day 2 hosts should stay in added state',
    from: [H.AddedToExistingCluster],
    when: f('day2'),
    to: H.AddedToExistingCluster,
    info: KEEP,
  },
  ...stay(
    'Refresh',
    [H.Reclaiming, H.ReclaimingRebooting],
    (s) => `Refresh without timeout during ${s} should stay in ${s}`,
    not(f('reclaimTimedOut')),
  ),

  // ---- internal/host/pool_host_statemachine.go ----
  {
    event: 'RegisterHost',
    name: 'Initial registration (unbound)',
    from: [NEW_HOST],
    when: not(f('bound')),
    to: H.DiscoveringUnbound,
    info: text(I.discovering),
  },
  {
    event: 'RegisterHost',
    name: 'Re-registration (unbound)',
    from: [...UNBOUND, H.Unbinding, H.UnbindingPendingUserAction, H.ReclaimingRebooting],
    to: H.DiscoveringUnbound,
    info: text(I.discovering),
    resets: 'discovery',
  },
  {
    event: 'BindHost',
    name: 'Bind host',
    from: [H.KnownUnbound],
    to: H.Binding,
    info: text(I.binding),
    resets: 'discovery',
  },
  {
    event: 'Refresh',
    name: 'Move host to disconnected when connected times out (unbound)',
    from: [...UNBOUND, H.Unbinding],
    when: not(f('connected')),
    to: H.DisconnectedUnbound,
    info: text(I.disconnected),
  },
  {
    event: 'MediaDisconnect',
    name: 'Move to disconnected when virtual media disconnects pre-installation (unbound)',
    from: [...UNBOUND, H.Unbinding],
    to: H.DisconnectedUnbound,
    info: MEDIA,
  },
  {
    event: 'Refresh',
    name: 'Host reconnected without inventory (unbound)',
    from: [H.DisconnectedUnbound, H.DiscoveringUnbound],
    when: all(online, not(f('hasValidInventory'))),
    to: H.DiscoveringUnbound,
    info: text(I.discovering),
  },
  {
    event: 'Refresh',
    name: 'Host has insufficient hardware (unbound)',
    from: UNBOUND,
    when: all(online, f('hasValidInventory'), not(f('sufficientToBeBound'))),
    to: H.InsufficientUnbound,
    info: text(I.insufficientHardware),
  },
  ...stay('Refresh', [H.Binding, H.Unbinding], (s) => `Refresh during ${s} should stay in ${s}`),
  {
    event: 'Refresh',
    name: 'Host ready (unbound)',
    from: UNBOUND,
    when: all(online, f('hasValidInventory'), f('sufficientToBeBound')),
    to: H.KnownUnbound,
    info: text(I.readyToBeBound),
  },
];

/**
 * Statuses no event leaves in upstream's tables (beyond refreshes that keep them), with why:
 * - `disabled`, `disabled-unbound`: obsolete upstream (no rule enters or leaves them);
 * - `unbinding-pending-user-action`: left only when the user boots the host into the discovery
 *   image again, i.e. a RegisterHost (listed) — not terminal;
 * - `cancelled`, `error`: left by a cluster reset (ResetPendingUserAction) or unbind — not
 *   terminal either.
 * Only the two `disabled` statuses are terminal.
 */
export const TERMINAL_HOST_STATUSES: readonly HostStatus[] = [H.Disabled, H.DisabledUnbound];

// ---- Applying an event ------------------------------------------------------------------------

function sourceMatches(row: HostTransition, source: HostSource): boolean {
  return row.from.includes(source);
}

/** The first row for `event` from `source` whose condition holds. */
export function findHostTransition(
  event: HostEventType,
  source: HostSource,
  facts: HostFacts,
): HostTransition | undefined {
  return hostTransitions.find(
    (row) =>
      row.event === event &&
      sourceMatches(row, source) &&
      (row.when === undefined || row.when.test(facts)),
  );
}

function noTransition(event: HostEventType): HostRefusal {
  return {
    ok: false,
    httpStatus: event === 'RegisterHost' ? 400 : 409,
    reason: HostRefusalReason.noTransition,
  };
}

function truncateInfo(info: string): string {
  return info.length > STATUS_INFO_MAX_LENGTH ? info.slice(0, STATUS_INFO_MAX_LENGTH) : info;
}

/** The disk the host installs to (matched by id, by-path or `/dev/<name>`, as upstream). */
function installationDisk(host: HostRecord): WireDisk | undefined {
  const path = host.installationDiskId;
  if (path === undefined || path === '') return undefined;
  return host.inventory?.disks?.find(
    (d) => d.id === path || d.by_path === path || `/dev/${d.name ?? ''}` === path,
  );
}

function diskLabel(disk: WireDisk): string {
  const id = disk.id !== undefined && disk.id !== '' ? disk.id : `/dev/${disk.name ?? ''}`;
  return `(${disk.name ?? ''}, ${id})`;
}

/** Fills in `$STAGE`, `$MAX_TIME`, `$INSTALLATION_DISK` and `$FAILING_VALIDATIONS`. */
export function renderHostStatusInfo(
  template: string,
  host: HostRecord,
  validations: ValidationsInfo,
): string {
  const stage = host.progress.currentStage;
  let out = template
    .replace('$STAGE', stage ?? '')
    .replace('$MAX_TIME', goDuration(hostStageTimeoutMs(stage)));
  if (out.includes('$INSTALLATION_DISK')) {
    const disk = installationDisk(host);
    out = out.replace('$INSTALLATION_DISK', disk === undefined ? '' : diskLabel(disk));
  }
  if (out.includes('$FAILING_VALIDATIONS')) {
    out = out.replace('$FAILING_VALIDATIONS', failingValidationMessages(validations));
  }
  return truncateInfo(out);
}

type InfoOutcome = { readonly ok: true; readonly info: string } | HostRefusal;

function statusInfoFor(
  row: HostTransition,
  host: HostRecord,
  event: HostEvent,
  facts: HostFacts,
  ctx: HostMachineContext,
): InfoOutcome {
  const rule = row.info;
  switch (rule.kind) {
    case 'template':
      return { ok: true, info: renderHostStatusInfo(rule.template, host, ctx.validations) };
    case 'keep':
      return { ok: true, info: host.statusInfo };
    case 'event-reason':
      return { ok: true, info: eventReason(event) };
    case 'stage':
      return { ok: true, info: host.progress.currentStage ?? '' };
    case 'media-disconnect':
      return { ok: true, info: mediaDisconnectInfo(host) };
    case 'preparation-timeout': {
      const failing: string[] = [];
      if (!facts.diskSpeedCheckSuccessful) failing.push(I.preparationTimeoutDiskSpeed);
      if (!facts.imagesAvailable) failing.push(I.preparationTimeoutImageAvailability);
      return {
        ok: true,
        info: truncateInfo(I.preparationTimeout.replace('$FAILING_CONDITIONS', failing.join('\n'))),
      };
    }
    case 'wrong-boot-order':
      return wrongBootOrderInfo(host);
  }
}

function eventReason(event: HostEvent): string {
  if (event.type === 'CancelInstallation') return event.reason ?? I.cancelledByUser;
  if (event.type === 'HostInstallationFailed') return event.reason ?? I.installationCommandFailed;
  return '';
}

function mediaDisconnectInfo(host: HostRecord): string {
  if (host.status !== H.Error) return I.mediaDisconnected;
  // The installer reports its own failure: add the diagnosis to it once.
  const reason = `${HostStage.Failed} - ${I.mediaDisconnected}`;
  if (host.statusInfo.includes(reason)) return host.statusInfo;
  return `${reason}. ${host.statusInfo}`;
}

function wrongBootOrderInfo(host: HostRecord): InfoOutcome {
  const path = host.installationDiskId ?? '';
  if (path === '' || host.inventory === undefined) {
    return {
      ok: false,
      httpStatus: 400,
      reason: `PostRegisterDuringReboot host ${host.id} doesn't have installation_disk_path or inventory`,
    };
  }
  const disk = installationDisk(host);
  if (disk === undefined) {
    return {
      ok: false,
      httpStatus: 400,
      reason: `PostRegisterDuringReboot Could not find installation disk ${path} for host ${host.id}`,
    };
  }
  const parts: string[] = [I.wrongBootOrder];
  if (disk.model !== undefined && disk.model !== '') parts.push(disk.model);
  if (disk.serial !== undefined && disk.serial !== '') parts.push(disk.serial);
  parts.push(diskLabel(disk));
  return { ok: true, info: parts.join(' ') };
}

function resetEffects(reset: HostReset | undefined): Partial<HostTransitionOk> {
  switch (reset) {
    case undefined:
      return {};
    case 'progress':
      return { progress: {} };
    case 'discovery':
      return { progress: {}, clearInventory: true, bootstrap: false };
    case 'unbind':
      return {
        progress: {},
        clearInventory: true,
        bootstrap: false,
        unbind: true,
        role: HostRole.AutoAssign,
      };
  }
}

function run(
  source: HostSource,
  host: HostRecord,
  event: HostEvent,
  ctx: HostMachineContext,
  extra: Partial<HostTransitionOk> = {},
): HostTransitionResult {
  const facts = hostFacts(host, ctx);
  const row = findHostTransition(event.type, source, facts);
  if (row === undefined) return noTransition(event.type);
  if (row.refusal !== undefined) {
    return {
      ok: false,
      httpStatus: row.refusal.httpStatus,
      reason: row.refusal.reason.replace('$INSTALLATION_PATH', host.installationDiskId ?? ''),
    };
  }
  const info = statusInfoFor(row, host, event, facts, ctx);
  if (!info.ok) return info;
  const touched =
    row.touchStageUpdatedAt === true &&
    elapsedMs(host.progress.stageUpdatedAt, ctx.now) >= MINUTE_MS
      ? { progress: { ...host.progress, stageUpdatedAt: ctx.now.toISOString() } }
      : {};
  return {
    ok: true,
    status: row.to,
    statusInfo: info.info,
    changed: row.to !== host.status || info.info !== host.statusInfo,
    statusChanged: row.to !== host.status,
    rule: row.name,
    ...extra,
    ...touched,
    ...resetEffects(row.resets),
    ...(row.resetClusterPreparation === true ? { resetClusterPreparation: true } : {}),
  };
}

/**
 * A host registers for the first time: `discovering` when bound, `discovering-unbound` when
 * not. Its role: `worker` for day-2, `master` (and bootstrap) in a single-node cluster,
 * otherwise `auto-assign` (upstream V2RegisterHost).
 */
export function registerNewHost(ctx: HostMachineContext): HostTransitionOk {
  let role: HostRole = HostRole.AutoAssign;
  let bootstrap = false;
  if (ctx.bound && ctx.day2) role = HostRole.Worker;
  else if (ctx.bound && ctx.sno) {
    role = HostRole.Master;
    bootstrap = true;
  }
  const facts = hostFacts(newHostPlaceholder(ctx), ctx);
  const row = findHostTransition('RegisterHost', NEW_HOST, facts)!;
  return {
    ok: true,
    status: row.to,
    statusInfo: I.discovering,
    changed: true,
    statusChanged: true,
    rule: row.name,
    role,
    bootstrap,
    progress: {},
  };
}

function newHostPlaceholder(ctx: HostMachineContext): HostRecord {
  const now = ctx.now.toISOString();
  return {
    id: '',
    namespace: '',
    infraEnvName: '',
    infraEnvId: '',
    status: H.Discovering,
    statusInfo: '',
    statusUpdatedAt: now,
    role: HostRole.AutoAssign,
    suggestedRole: HostRole.AutoAssign,
    bootstrap: false,
    approved: false,
    registeredAt: now,
    checkedInAt: now,
    validationsInfo: {},
    progress: {},
    stepResults: {},
  };
}

const PROGRESS_STATUSES: readonly HostStatus[] = [
  H.Installing,
  H.InstallingInProgress,
  H.InstallingPendingUserAction,
];

/** A progress report (upstream `host.go` UpdateInstallProgress, then the HostProgress rows). */
function applyProgress(
  host: HostRecord,
  event: Extract<HostEvent, { type: 'HostProgress' }>,
  ctx: HostMachineContext,
): HostTransitionResult {
  const now = ctx.now.toISOString();
  const previous = host.progress;
  const info = event.progressInfo ?? '';
  if (previous.currentStage === event.stage) {
    // Same stage: only the info and its time move, whatever the status.
    if ((previous.progressInfo ?? '') === info) {
      return {
        ok: true,
        status: host.status,
        statusInfo: host.statusInfo,
        changed: false,
        statusChanged: false,
        rule: 'same stage',
      };
    }
    return {
      ok: true,
      status: host.status,
      statusInfo: host.statusInfo,
      changed: false,
      statusChanged: false,
      rule: 'same stage, new progress info',
      progress: { ...previous, progressInfo: info, stageUpdatedAt: now },
    };
  }
  if (!PROGRESS_STATUSES.includes(host.status)) {
    return {
      ok: false,
      httpStatus: 409,
      reason: `Can't set progress <${event.stage}> to host in status <${host.status}>`,
    };
  }
  if (event.stage === HostStage.Failed) {
    // The host fails where it stands: progress is kept, no HostProgress row runs.
    const statusInfo = info === '' ? HostStage.Failed : `${HostStage.Failed} - ${info}`;
    return {
      ok: true,
      status: H.Error,
      statusInfo,
      changed: true,
      statusChanged: host.status !== H.Error,
      rule: 'progress Failed',
    };
  }
  const stages = stagesFor(host.role, host.bootstrap, ctx.sno);
  const previousStage = previous.currentStage;
  if (previousStage !== undefined) {
    const index = stages.indexOf(event.stage);
    if (index === -1) {
      return {
        ok: false,
        httpStatus: 409,
        reason: `Stages ${event.stage} isn't available for host role ${host.role} bootstrap ${String(host.bootstrap)}`,
      };
    }
    if (index < stages.indexOf(previousStage)) {
      return {
        ok: false,
        httpStatus: 409,
        reason: `Can't assign lower stage "${event.stage}" after host has been in stage "${previousStage}"`,
      };
    }
  }
  const progress: HostProgress = {
    currentStage: event.stage,
    progressInfo: info,
    stageStartedAt: now,
    stageUpdatedAt: now,
    installationPercentage: installationPercentage(event.stage, stages),
  };
  return run(host.status, { ...host, progress }, event, ctx, { progress });
}

/**
 * Applies one event to a host already on record. Never throws: every event in every status is
 * either a transition or a refusal with upstream's HTTP status and wording.
 */
export function applyHostEvent(
  host: HostRecord,
  event: HostEvent,
  ctx: HostMachineContext,
): HostTransitionResult {
  if (event.type === 'HostProgress') return applyProgress(host, event, ctx);
  return run(host.status, host, event, ctx);
}
