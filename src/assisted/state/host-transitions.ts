/**
 * The host state machine as data (assisted.md §4.1–4.2). `hostTransitions` lists upstream's
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
import { HostStatus } from '../model.js';
import { all, any, fact, not } from './condition.js';
import type { Condition } from './condition.js';
import type { HostEventType, HostFacts } from './host-facts.js';
import { HostRefusalReason, HostStatusInfo } from './host-status-info.js';

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
