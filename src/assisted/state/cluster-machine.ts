/**
 * The cluster state machine as data (assisted.md §4.4). `clusterTransitions` lists upstream's
 * rules of `internal/cluster/statemachine.go` (NewClusterStateMachine) in upstream's order;
 * status texts are `internal/cluster/common.go`'s. First matching row wins, as in stateswitch.
 *
 * Left out on purpose, each noted where it would sit:
 * - VIP DHCP allocation rows: the AgentClusterInstall has no such setting, so the non-DHCP rows
 *   are the ones that apply;
 * - soft timeouts and finalizing-stage timeouts (soft timeouts are an OCM organisation feature;
 *   the record has no finalizing stage): `installing` has no cluster-level timeout without them,
 *   as upstream;
 * - AMS subscription updates and log-collection timeouts (no status change).
 *
 * Preparation (upstream's asynchronous install-config/manifests generation after the install
 * request) is reported with PreparationSucceeded / PreparationFailed, which only record the
 * outcome in `lastPreparation`; the next Refresh acts on it, as upstream's monitor does.
 */
import { ClusterStatus, HostStatus } from '../model.js';
import type { ClusterRecord, HostRecord, ValidationsInfo } from '../model.js';
import { all, any, fact, not } from './condition.js';
import type { Condition } from './condition.js';
import { hasEnoughMastersAndWorkers, hostsInStatus, numberOfWorkers } from './cluster-counts.js';
import { ClusterValidationSets, clusterValidationPasses } from './validation-sets.js';

// ---- Events, context, results -------------------------------------------------------------

/** What can happen to a cluster (upstream transition types, plus preparation outcomes). */
export type ClusterEvent =
  /** The monitor's periodic re-evaluation. */
  | { readonly type: 'Refresh' }
  /** The install request on a ready cluster. */
  | { readonly type: 'PrepareForInstallation' }
  /** Install config and manifests were generated. */
  | { readonly type: 'PreparationSucceeded' }
  | { readonly type: 'PreparationFailed'; readonly reason: string }
  /** @default reason `Installation was cancelled by user` */
  | { readonly type: 'CancelInstallation'; readonly reason?: string }
  /** @default reason `cluster was reset by user` */
  | { readonly type: 'ResetCluster'; readonly reason?: string };

/** The `type` of a cluster event. */
export type ClusterEventType = ClusterEvent['type'];

/** Everything the cluster machine judges besides the cluster record itself. */
export interface ClusterMachineContext {
  readonly now: Date;
  /** The cluster's validations, already computed by the caller. */
  readonly validations: ValidationsInfo;
  /** The cluster's hosts, with their current statuses. */
  readonly hosts: readonly HostRecord[];
  /** Ignored cluster validations (ACI annotation); `all` ignores every ignorable one. */
  readonly ignoredValidations: readonly string[];
  /**
   * The installer controller uploaded the kubeconfig (upstream: the kubeconfig object exists).
   * @default false
   */
  readonly kubeconfigUploaded?: boolean;
  /**
   * Every monitored operator reports available or failed (vacuously true with none).
   * @default true
   */
  readonly monitoredOperatorsDone?: boolean;
  /** OLM operators that failed: an installed cluster is then `installed but degraded`. */
  readonly failedOlmOperators?: readonly string[];
}

type LastPreparation = ClusterRecord['lastPreparation'];

/** An accepted event: the cluster's new status and what else changes with it. */
export interface ClusterTransitionOk {
  readonly ok: true;
  readonly status: ClusterStatus;
  readonly statusInfo: string;
  /** Status or status info differ from the cluster's. */
  readonly changed: boolean;
  /** The status differs: only then does `statusUpdatedAt` move to now (timeouts count from it). */
  readonly statusChanged: boolean;
  /** Name of the upstream rule that decided. */
  readonly rule: string;
  /** Set on PrepareForInstallation (the install's start). */
  readonly installStartedAt?: string;
  /** Set on entering `installed`, `error` or `cancelled`. */
  readonly installCompletedAt?: string;
  readonly lastPreparation?: LastPreparation;
}

/** A refused cluster event: nothing changes; the API answers with this status and reason. */
export interface ClusterRefusal {
  readonly ok: false;
  readonly httpStatus: 400 | 409;
  readonly reason: string;
}

/** The outcome of `applyClusterEvent`. */
export type ClusterTransitionResult = ClusterTransitionOk | ClusterRefusal;

/** Cluster status-info texts (upstream `internal/cluster/common.go`). */
export const ClusterStatusInfo = {
  ready: 'Cluster ready to be installed',
  insufficient: 'Cluster is not ready for install',
  installing: 'Installation in progress',
  finalizing: 'Finalizing cluster installation',
  installed: 'Cluster is installed',
  degraded: 'Cluster is installed but degraded',
  notAllWorkersInstalled: 'Cluster is installed but some workers did not join',
  preparingForInstallation: 'Preparing cluster for installation',
  preparingForInstallationTimeout: 'Preparing cluster for installation timeout',
  finalizingTimeout: 'Cluster installation timeout while finalizing',
  pendingForInput: 'User input required',
  error: 'cluster has hosts in error',
  pendingUserActionTimeout:
    'cluster installation timed out while pending user action (a manual booting from installation disk)',
  addingHosts: 'cluster is adding hosts to existing OCP cluster',
  installingPendingUserAction: 'Cluster has hosts pending user action',
  unpreparingHostExists: 'At least one host has stopped preparing for installation',
  failedToPrepare: 'Cluster failed to prepare for installation',
  /** The default reason of a cluster reset. */
  resetByUser: 'cluster was reset by user',
  /** The default reason of a cancel. */
  cancelledByUser: 'Installation was cancelled by user',
} as const;

/** Texts upstream records as the last preparation's reason. */
export const PreparationReason = {
  success: 'Installation preparation successful',
  timedOut: 'Installation failed. Try again, and contact support if the issue persists.',
} as const;

const MINUTE_MS = 60_000;
/** `PREPARE_FOR_INSTALLATION_TIMEOUT`, counted from entering preparing. */
export const CLUSTER_PREPARE_TIMEOUT_MS = 10 * MINUTE_MS;
/** `INSTALLATION_TIMEOUT`, counted from the install's start. */
export const CLUSTER_INSTALLATION_TIMEOUT_MS = 24 * 60 * MINUTE_MS;
/** `FINALIZING_TIMEOUT`, counted from entering finalizing. */
export const CLUSTER_FINALIZING_TIMEOUT_MS = 5 * 60 * MINUTE_MS;

// ---- Facts ----------------------------------------------------------------------------------

/** The booleans one cluster event is judged on. */
export interface ClusterFacts {
  readonly pendingInput: boolean;
  readonly vipsDefined: boolean;
  readonly requiredForInstall: boolean;
  readonly preparingTimedOut: boolean;
  readonly allHostsPreparedSuccessfully: boolean;
  readonly unpreparingHostsExist: boolean;
  readonly failedPreparingHostsExist: boolean;
  readonly preparationSucceeded: boolean;
  readonly preparationFailed: boolean;
  /** Enough masters and workers are installing or further (upstream IsInstalling). */
  readonly enoughInstalling: boolean;
  /** Enough masters and workers are installed (upstream IsFinalizing). */
  readonly enoughInstalled: boolean;
  readonly hostsPendingUserAction: boolean;
  readonly installationTimedOut: boolean;
  readonly finalizingTimedOut: boolean;
  /** Every host is `installed` or `error`. */
  readonly allHostsDone: boolean;
  /** Kubeconfig uploaded and monitored operators done (upstream hasClusterCompleteInstallation). */
  readonly installationComplete: boolean;
}

function elapsedMs(since: string | undefined, now: Date): number {
  if (since === undefined) return 0;
  const t = Date.parse(since);
  return Number.isNaN(t) ? 0 : now.getTime() - t;
}

const INSTALLING_STATUSES: readonly HostStatus[] = [
  HostStatus.Installing,
  HostStatus.InstallingInProgress,
  HostStatus.Installed,
  HostStatus.InstallingPendingUserAction,
  HostStatus.PreparingSuccessful,
];
const PREPARING_STATUSES: readonly HostStatus[] = [
  HostStatus.PreparingForInstallation,
  HostStatus.PreparingSuccessful,
  HostStatus.PreparingFailed,
  HostStatus.Known,
];

/** Computes the facts for `cluster` with its hosts as they are now. */
export function clusterFacts(cluster: ClusterRecord, ctx: ClusterMachineContext): ClusterFacts {
  const passes = (id: string): boolean =>
    clusterValidationPasses(ctx.validations, id, ctx.ignoredValidations);
  const allPass = (ids: readonly string[]): boolean => ids.every(passes);
  const hosts = ctx.hosts;
  const statusAge = elapsedMs(cluster.statusUpdatedAt, ctx.now);
  return {
    pendingInput: allPass(ClusterValidationSets.pendingInput),
    vipsDefined: allPass(ClusterValidationSets.vipsDefined),
    requiredForInstall: allPass(ClusterValidationSets.requiredForInstall),
    preparingTimedOut: statusAge > CLUSTER_PREPARE_TIMEOUT_MS,
    allHostsPreparedSuccessfully: hosts.every((h) => h.status === HostStatus.PreparingSuccessful),
    unpreparingHostsExist: hosts.some((h) => !PREPARING_STATUSES.includes(h.status)),
    failedPreparingHostsExist: hosts.some((h) => h.status === HostStatus.PreparingFailed),
    preparationSucceeded: cluster.lastPreparation.status === 'success',
    preparationFailed: cluster.lastPreparation.status === 'failed',
    enoughInstalling: hasEnoughMastersAndWorkers(hosts, INSTALLING_STATUSES, cluster),
    enoughInstalled: hasEnoughMastersAndWorkers(hosts, [HostStatus.Installed], cluster),
    hostsPendingUserAction: hosts.some((h) => h.status === HostStatus.InstallingPendingUserAction),
    installationTimedOut:
      elapsedMs(cluster.installStartedAt, ctx.now) > CLUSTER_INSTALLATION_TIMEOUT_MS,
    finalizingTimedOut: statusAge > CLUSTER_FINALIZING_TIMEOUT_MS,
    allHostsDone: hosts.every(
      (h) => h.status === HostStatus.Installed || h.status === HostStatus.Error,
    ),
    installationComplete: (ctx.kubeconfigUploaded ?? false) && (ctx.monitoredOperatorsDone ?? true),
  };
}

// ---- The table ------------------------------------------------------------------------------

/** Where a row's status info comes from. */
export type ClusterStatusInfoRule =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'keep' }
  | { readonly kind: 'event-reason' }
  /** Installed, installed but degraded, or installed without every worker. */
  | { readonly kind: 'completion' };

/** One rule: on `event` from one of `from`, when `when` holds, go to `to`. */
export interface ClusterTransition {
  readonly event: ClusterEventType;
  /** The upstream rule's documentation name. */
  readonly name: string;
  readonly from: readonly ClusterStatus[];
  /** @default always */
  readonly when?: Condition<ClusterFacts>;
  readonly to: ClusterStatus;
  readonly info: ClusterStatusInfoRule;
  /** What the row records about the last preparation. */
  readonly lastPreparation?: LastPreparation | 'from-event';
  /** The row starts an installation (install start time). */
  readonly startsInstall?: true;
}

const C = ClusterStatus;
const T = ClusterStatusInfo;
const text = (t: string): ClusterStatusInfoRule => ({ kind: 'text', text: t });
const KEEP: ClusterStatusInfoRule = { kind: 'keep' };
const EVENT_REASON: ClusterStatusInfoRule = { kind: 'event-reason' };
const f = (key: keyof ClusterFacts): Condition<ClusterFacts> => fact<ClusterFacts>(key);

const ALL_STATUSES: readonly ClusterStatus[] = Object.values(ClusterStatus);
const DISCOVERY: readonly ClusterStatus[] = [C.PendingForInput, C.Ready, C.Insufficient];
const inputsGiven = all(f('vipsDefined'), f('pendingInput'));
const installingOrFinalizing = any(f('enoughInstalling'), f('enoughInstalled'));

function stay(
  event: ClusterEventType,
  states: readonly ClusterStatus[],
  name: (s: ClusterStatus) => string,
  lastPreparation?: ClusterTransition['lastPreparation'],
): ClusterTransition[] {
  return states.map((s) => ({
    event,
    name: name(s),
    from: [s],
    to: s,
    info: KEEP,
    ...(lastPreparation === undefined ? {} : { lastPreparation }),
  }));
}

/** The cluster transitions, in upstream order (first match wins). */
export const clusterTransitions: readonly ClusterTransition[] = [
  {
    event: 'CancelInstallation',
    name: 'Cancel installation of installing cluster',
    from: [C.Installing, C.InstallingPendingUserAction, C.Error, C.Finalizing],
    to: C.Cancelled,
    info: EVENT_REASON,
  },
  {
    event: 'CancelInstallation',
    name: 'Cancel installation of preparing cluster',
    from: [C.PreparingForInstallation],
    to: C.Ready,
    info: EVENT_REASON,
  },
  {
    event: 'ResetCluster',
    name: 'Reset installation',
    from: [
      C.PreparingForInstallation,
      C.Installing,
      C.InstallingPendingUserAction,
      C.Error,
      C.Cancelled,
      C.Finalizing,
    ],
    to: C.Insufficient,
    info: EVENT_REASON,
    lastPreparation: { status: 'never' },
  },
  {
    event: 'PrepareForInstallation',
    name: 'Start installation',
    from: [C.Ready],
    to: C.PreparingForInstallation,
    info: text(T.preparingForInstallation),
    lastPreparation: { status: 'never' },
    startsInstall: true,
  },
  // (VIP DHCP allocation rows left out: non-DHCP rows only)
  {
    event: 'Refresh',
    name: 'Refresh discovering cluster - detect required input',
    from: DISCOVERY,
    when: not(inputsGiven),
    to: C.PendingForInput,
    info: text(T.pendingForInput),
  },
  {
    event: 'Refresh',
    name: 'Refresh discovering cluster - detect insufficient',
    from: DISCOVERY,
    when: all(inputsGiven, not(f('requiredForInstall'))),
    to: C.Insufficient,
    info: text(T.insufficient),
  },
  {
    event: 'Refresh',
    name: 'Refresh discovering cluster - detect ready',
    from: DISCOVERY,
    when: all(f('pendingInput'), f('vipsDefined'), f('requiredForInstall')),
    to: C.Ready,
    info: text(T.ready),
  },
  {
    event: 'Refresh',
    name: 'Refresh preparing cluster - detect timeout',
    from: [C.PreparingForInstallation],
    // A preparation that is done installs, however late its cluster's pass comes: upstream
    // refreshes every few seconds, so there the timeout only catches a preparation that hangs;
    // here a pass can wait in a busy controller's queue, and that wait is not the cluster's.
    when: all(
      f('preparingTimedOut'),
      not(f('failedPreparingHostsExist')),
      not(all(f('allHostsPreparedSuccessfully'), f('preparationSucceeded'))),
    ),
    to: C.Ready,
    info: text(T.preparingForInstallationTimeout),
    lastPreparation: { status: 'failed', reason: PreparationReason.timedOut },
  },
  {
    event: 'Refresh',
    name: 'Refresh preparing cluster - done preparing',
    from: [C.PreparingForInstallation],
    when: all(f('allHostsPreparedSuccessfully'), f('preparationSucceeded')),
    to: C.Installing,
    info: text(T.installing),
  },
  {
    event: 'Refresh',
    name: 'Refresh preparing cluster - insufficient',
    from: [C.PreparingForInstallation],
    when: f('unpreparingHostsExist'),
    to: C.Insufficient,
    info: text(T.unpreparingHostExists),
  },
  {
    event: 'Refresh',
    name: 'Refresh preparing cluster - failed',
    from: [C.PreparingForInstallation],
    when: any(
      f('failedPreparingHostsExist'),
      all(not(f('unpreparingHostsExist')), f('preparationFailed')),
    ),
    to: C.Ready,
    info: text(T.failedToPrepare),
  },
  {
    event: 'Refresh',
    name: 'Installing pending user action without enough installing hosts',
    from: [C.InstallingPendingUserAction],
    when: not(installingOrFinalizing),
    to: C.Error,
    info: text(T.error),
  },
  {
    event: 'Refresh',
    name: 'Timed out while waiting for user',
    from: [C.InstallingPendingUserAction],
    when: f('installationTimedOut'),
    to: C.Error,
    info: text(T.pendingUserActionTimeout),
  },
  // (soft timeouts: "Timed out while installing" left out)
  {
    event: 'Refresh',
    name: 'Timed out while finalizing',
    from: [C.Finalizing],
    when: f('finalizingTimedOut'),
    to: C.Error,
    info: text(T.finalizingTimeout),
  },
  // (finalizing stage timeouts left out: the record has no finalizing stage)
  {
    event: 'Refresh',
    name: 'Stay pending user action while a host waits for the user',
    from: [C.InstallingPendingUserAction],
    when: all(f('hostsPendingUserAction'), installingOrFinalizing),
    to: C.InstallingPendingUserAction,
    info: KEEP,
  },
  {
    event: 'Refresh',
    name: 'Back to installing once no host waits for the user',
    from: [C.InstallingPendingUserAction],
    when: all(not(f('hostsPendingUserAction')), f('enoughInstalling'), not(f('enoughInstalled'))),
    to: C.Installing,
    info: text(T.installing),
  },
  {
    event: 'Refresh',
    name: 'On to finalizing once no host waits for the user',
    from: [C.InstallingPendingUserAction],
    when: all(not(f('hostsPendingUserAction')), f('enoughInstalled')),
    to: C.Finalizing,
    info: text(T.finalizing),
  },
  {
    event: 'Refresh',
    name: 'A host waits for the user',
    from: [C.Installing, C.Finalizing],
    when: all(installingOrFinalizing, f('hostsPendingUserAction')),
    to: C.InstallingPendingUserAction,
    info: text(T.installingPendingUserAction),
  },
  {
    event: 'Refresh',
    name: 'Move to finalizing',
    from: [C.Installing],
    when: all(f('enoughInstalled'), not(f('hostsPendingUserAction'))),
    to: C.Finalizing,
    info: text(T.finalizing),
  },
  {
    event: 'Refresh',
    name: 'Stay in installing',
    from: [C.Installing],
    when: all(not(f('enoughInstalled')), not(f('hostsPendingUserAction')), f('enoughInstalling')),
    to: C.Installing,
    info: text(T.installing),
  },
  // (AMS subscription update in finalizing left out: SaaS only, no status change)
  {
    event: 'Refresh',
    name: 'Finalizing complete',
    from: [C.Finalizing],
    when: all(f('allHostsDone'), f('installationComplete')),
    to: C.Installed,
    info: { kind: 'completion' },
  },
  {
    event: 'Refresh',
    name: 'Installation error',
    from: [C.Installing],
    when: all(not(f('enoughInstalled')), not(f('enoughInstalling'))),
    to: C.Error,
    info: text(T.error),
  },
  // (log collection timeouts in error/cancelled change logs progress only: covered below)
  ...stay(
    'Refresh',
    [
      C.PreparingForInstallation,
      C.Finalizing,
      C.Installed,
      C.Error,
      C.Cancelled,
      C.AddingHosts,
      C.Unmonitored,
    ],
    (s) => `Maintain ${s} state`,
  ),
  // Not upstream rules: upstream's install goroutine writes the outcome to the record directly
  // (HandlePreInstallSuccess / HandlePreInstallError), whatever the status.
  ...stay('PreparationSucceeded', ALL_STATUSES, (s) => `Record successful preparation in ${s}`, {
    status: 'success',
    reason: PreparationReason.success,
  }),
  ...stay(
    'PreparationFailed',
    ALL_STATUSES,
    (s) => `Record failed preparation in ${s}`,
    'from-event',
  ),
];

/**
 * Statuses no event leaves (beyond refreshes that keep them), with why: `installed` (the end
 * of a day-1 install; day-2 is a separate `adding-hosts` cluster upstream), `adding-hosts` and
 * `unmonitored` (entered by APIs outside this machine, which never leaves them).
 */
export const TERMINAL_CLUSTER_STATUSES: readonly ClusterStatus[] = [
  C.Installed,
  C.AddingHosts,
  C.Unmonitored,
];

// ---- Applying an event ------------------------------------------------------------------------

/** The first row for `event` from `source` whose condition holds. */
export function findClusterTransition(
  event: ClusterEventType,
  source: ClusterStatus,
  facts: ClusterFacts,
): ClusterTransition | undefined {
  return clusterTransitions.find(
    (row) =>
      row.event === event &&
      row.from.includes(source) &&
      (row.when === undefined || row.when.test(facts)),
  );
}

function eventReason(event: ClusterEvent): string {
  switch (event.type) {
    case 'CancelInstallation':
      return event.reason ?? T.cancelledByUser;
    case 'ResetCluster':
      return event.reason ?? T.resetByUser;
    case 'PreparationFailed':
      return event.reason;
    case 'Refresh':
    case 'PrepareForInstallation':
    case 'PreparationSucceeded':
      return '';
  }
}

/** Upstream createClusterCompletionStatusInfo. */
function completionInfo(hosts: readonly HostRecord[], ctx: ClusterMachineContext): string {
  const failed = ctx.failedOlmOperators ?? [];
  if (failed.length > 0) return `${T.degraded}. Failed OLM operators: ${failed.join(', ')}`;
  const installedWorkers = hostsInStatus(hosts, [HostStatus.Installed]).workers;
  return installedWorkers < numberOfWorkers(hosts) ? T.notAllWorkersInstalled : T.installed;
}

function statusInfoFor(
  row: ClusterTransition,
  cluster: ClusterRecord,
  event: ClusterEvent,
  ctx: ClusterMachineContext,
): string {
  const rule = row.info;
  switch (rule.kind) {
    case 'text':
      return rule.text;
    case 'keep':
      return cluster.statusInfo;
    case 'event-reason':
      return eventReason(event);
    case 'completion':
      return completionInfo(ctx.hosts, ctx);
  }
}

const COMPLETED: readonly ClusterStatus[] = [C.Installed, C.Error, C.Cancelled];

/**
 * Applies one event to a cluster. Never throws: every event in every status is either a
 * transition or a refusal (409 `no condition found to run transition`, as upstream). A refused
 * Refresh means the cluster stays as it is.
 */
export function applyClusterEvent(
  cluster: ClusterRecord,
  event: ClusterEvent,
  ctx: ClusterMachineContext,
): ClusterTransitionResult {
  const facts = clusterFacts(cluster, ctx);
  const row = findClusterTransition(event.type, cluster.status, facts);
  if (row === undefined) {
    return { ok: false, httpStatus: 409, reason: 'no condition found to run transition' };
  }
  const now = ctx.now.toISOString();
  const statusInfo = statusInfoFor(row, cluster, event, ctx);
  const entersCompleted = row.to !== cluster.status && COMPLETED.includes(row.to);
  let lastPreparation: LastPreparation | undefined;
  if (row.lastPreparation === 'from-event') {
    lastPreparation = { status: 'failed', reason: eventReason(event) };
  } else {
    lastPreparation = row.lastPreparation;
  }
  return {
    ok: true,
    status: row.to,
    statusInfo,
    changed: row.to !== cluster.status || statusInfo !== cluster.statusInfo,
    statusChanged: row.to !== cluster.status,
    rule: row.name,
    ...(row.startsInstall === true ? { installStartedAt: now } : {}),
    ...(entersCompleted ? { installCompletedAt: now } : {}),
    ...(lastPreparation === undefined ? {} : { lastPreparation }),
  };
}
