/**
 * The Agent's conditions, computed from its host record as assisted-service's agent controller
 * does (assisted.md §3.2; AS ctl/agent_controller.go updateStatus): same types, reasons,
 * messages, and `lastTransitionTime` changed only when a condition's status flips.
 */
import { HostStatus } from '../model.js';
import type { HostRecord } from '../model.js';
import { AgentCondition, AgentMessage, AgentReason } from './agent-names.js';

/** One condition as the Agent CRD stores it (openshift/custom-resource-status conditionsv1). */
export interface AgentConditionEntry {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
}

/** A failure to apply the Agent spec: an input error (4xx) or a backend error (5xx). */
export interface SpecSyncError {
  readonly internal: boolean;
  readonly message: string;
}

type Computed = Omit<AgentConditionEntry, 'lastTransitionTime'>;

const S = HostStatus;

function cond(
  type: AgentCondition,
  status: Computed['status'],
  reason: string,
  message: string,
): Computed {
  return { type, status, reason, message };
}

function unknownStatus(type: AgentCondition, status: string): Computed {
  return cond(
    type,
    'Unknown',
    AgentReason.UnknownStatus,
    `${AgentMessage.UnknownStatus} ${status}`,
  );
}

function specSynced(error: SpecSyncError | undefined): Computed {
  if (error === undefined)
    return cond(AgentCondition.SpecSynced, 'True', AgentReason.SyncOK, AgentMessage.SyncOK);
  return error.internal
    ? cond(
        AgentCondition.SpecSynced,
        'False',
        AgentReason.BackendError,
        `${AgentMessage.BackendError} ${error.message}`,
      )
    : cond(
        AgentCondition.SpecSynced,
        'False',
        AgentReason.InputError,
        `${AgentMessage.InputError} ${error.message}`,
      );
}

function connected(status: HostStatus): Computed {
  return status === S.Disconnected || status === S.DisconnectedUnbound
    ? cond(
        AgentCondition.Connected,
        'False',
        AgentReason.AgentIsDisconnected,
        AgentMessage.Disconnected,
      )
    : cond(AgentCondition.Connected, 'True', AgentReason.AgentIsConnected, AgentMessage.Connected);
}

/** Looks `status` up in a table of outcomes; statuses it lacks get `fallback`. */
function lookup(
  table: Partial<Record<HostStatus, Computed>>,
  status: HostStatus,
  fallback: Computed,
): Computed {
  return table[status] ?? fallback;
}

function fill(
  statuses: readonly HostStatus[],
  outcome: Computed,
): Partial<Record<HostStatus, Computed>> {
  return Object.fromEntries(statuses.map((s) => [s, outcome]));
}

const PREPARING_OR_INSTALLING = [
  S.PreparingForInstallation,
  S.PreparingSuccessful,
  S.Installing,
  S.InstallingInProgress,
  S.InstallingPendingUserAction,
] as const;

const RM = AgentCondition.RequirementsMet;
const REQUIREMENTS_MET: Partial<Record<HostStatus, Computed>> = {
  ...fill(
    [
      S.Insufficient,
      S.Disconnected,
      S.InsufficientUnbound,
      S.DisconnectedUnbound,
      S.DiscoveringUnbound,
      S.Discovering,
      S.PendingForInput,
    ],
    cond(RM, 'False', AgentReason.AgentNotReady, AgentMessage.NotReady),
  ),
  ...fill(
    PREPARING_OR_INSTALLING,
    cond(RM, 'True', AgentReason.AgentAlreadyInstalling, AgentMessage.AlreadyInstalling),
  ),
  ...fill(
    [S.Installed, S.Error, S.AddedToExistingCluster],
    cond(RM, 'True', AgentReason.AgentInstallationStopped, AgentMessage.InstallationStopped),
  ),
  [S.Binding]: cond(RM, 'False', AgentReason.Binding, AgentMessage.Binding),
  ...fill(
    [S.Unbinding, S.UnbindingPendingUserAction],
    cond(RM, 'False', AgentReason.Unbinding, AgentMessage.Unbinding),
  ),
};

function requirementsMet(status: HostStatus, approved: boolean): Computed {
  if (status === S.Known || status === S.KnownUnbound)
    return approved
      ? cond(RM, 'True', AgentReason.AgentIsReady, AgentMessage.Ready)
      : cond(RM, 'False', AgentReason.AgentIsNotApproved, AgentMessage.NotApproved);
  return lookup(REQUIREMENTS_MET, status, unknownStatus(RM, status));
}

/** Messages of the validations that neither pass nor are disabled, comma-joined as upstream. */
export function failingValidationMessages(host: HostRecord): string {
  const messages: string[] = [];
  for (const results of Object.values(host.validationsInfo))
    for (const result of results)
      if (result.status !== 'success' && result.status !== 'disabled')
        messages.push(result.message);
  return messages.join(',');
}

function validated(host: HostRecord): Computed {
  const type = AgentCondition.Validated;
  const { status } = host;
  if (status === S.Binding) return cond(type, 'False', AgentReason.Binding, AgentMessage.Binding);
  if (status === S.Unbinding || status === S.UnbindingPendingUserAction)
    return cond(type, 'False', AgentReason.Unbinding, AgentMessage.Unbinding);
  if (status === S.Insufficient || status === S.InsufficientUnbound)
    return cond(
      type,
      'False',
      AgentReason.ValidationsFailing,
      `${AgentMessage.ValidationsFailing} ${failingValidationMessages(host)}`,
    );
  if (status === S.PendingForInput)
    return cond(
      type,
      'False',
      AgentReason.ValidationsUserPending,
      `${AgentMessage.ValidationsUserPending} ${failingValidationMessages(host)}`,
    );
  return Object.keys(host.validationsInfo).length === 0
    ? cond(type, 'Unknown', AgentReason.ValidationsUnknown, AgentMessage.ValidationsUnknown)
    : cond(type, 'True', AgentReason.ValidationsPassing, AgentMessage.ValidationsPassing);
}

const IN = AgentCondition.Installed;
const INSTALLED: Partial<Record<HostStatus, Computed>> = {
  ...fill(
    [
      S.Insufficient,
      S.InsufficientUnbound,
      S.Disconnected,
      S.DisconnectedUnbound,
      S.Discovering,
      S.DiscoveringUnbound,
      S.Known,
      S.KnownUnbound,
      S.PendingForInput,
    ],
    cond(IN, 'False', AgentReason.InstallationNotStarted, AgentMessage.InstallationNotStarted),
  ),
  [S.Binding]: cond(IN, 'False', AgentReason.Binding, AgentMessage.Binding),
  ...fill(
    [S.Unbinding, S.UnbindingPendingUserAction],
    cond(IN, 'False', AgentReason.Unbinding, AgentMessage.Unbinding),
  ),
};

function installed(status: HostStatus, statusInfo: string): Computed {
  if (status === S.Installed || status === S.AddedToExistingCluster)
    return cond(
      IN,
      'True',
      AgentReason.InstallationCompleted,
      `${AgentMessage.Installed} ${statusInfo}`,
    );
  if (status === S.Error)
    return cond(
      IN,
      'False',
      AgentReason.InstallationFailed,
      `${AgentMessage.InstallationFailed} ${statusInfo}`,
    );
  if ((PREPARING_OR_INSTALLING as readonly HostStatus[]).includes(status))
    return cond(
      IN,
      'False',
      AgentReason.InstallationInProgress,
      `${AgentMessage.InstallationInProgress} ${statusInfo}`,
    );
  return lookup(INSTALLED, status, unknownStatus(IN, status));
}

const BO = AgentCondition.Bound;
const BOUND: Partial<Record<HostStatus, Computed>> = {
  [S.Binding]: cond(BO, 'False', AgentReason.Binding, AgentMessage.Binding),
  [S.Unbinding]: cond(BO, 'False', AgentReason.Unbinding, AgentMessage.Unbinding),
  [S.UnbindingPendingUserAction]: cond(
    BO,
    'False',
    AgentReason.UnbindingPendingUserAction,
    AgentMessage.UnbindingPendingUserAction,
  ),
  ...fill(
    [
      S.DisconnectedUnbound,
      S.KnownUnbound,
      S.InsufficientUnbound,
      S.DisabledUnbound,
      S.DiscoveringUnbound,
    ],
    cond(BO, 'False', AgentReason.Unbound, AgentMessage.Unbound),
  ),
};

function bound(status: HostStatus): Computed {
  return lookup(BOUND, status, cond(BO, 'True', AgentReason.Bound, AgentMessage.Bound));
}

function notAvailable(type: AgentCondition): Computed {
  return cond(type, 'Unknown', AgentReason.NotAvailable, AgentMessage.NotAvailable);
}

/**
 * The conditions of an Agent whose host is `host` (undefined: no backend host, all but
 * SpecSynced Unknown/NotAvailable). `approved` is the Agent's `spec.approved`.
 */
export function computeAgentConditions(
  host: HostRecord | undefined,
  approved: boolean,
  syncError: SpecSyncError | undefined,
): readonly Computed[] {
  if (host === undefined)
    return [
      specSynced(syncError),
      notAvailable(AgentCondition.Connected),
      notAvailable(AgentCondition.RequirementsMet),
      notAvailable(AgentCondition.Validated),
      notAvailable(AgentCondition.Installed),
      notAvailable(AgentCondition.Bound),
    ];
  return [
    specSynced(syncError),
    connected(host.status),
    requirementsMet(host.status, approved),
    validated(host),
    installed(host.status, host.statusInfo),
    bound(host.status),
  ];
}

/**
 * Merges computed conditions into the existing ones (conditionsv1 SetStatusConditionNoHeartbeat):
 * reason and message follow, `lastTransitionTime` changes only when the status flips; conditions
 * not computed (Cleanup) are kept.
 */
export function mergeConditions(
  existing: readonly AgentConditionEntry[],
  computed: readonly Computed[],
  now: string,
): AgentConditionEntry[] {
  const merged = existing.map((c) => ({ ...c }));
  for (const c of computed) {
    const index = merged.findIndex((e) => e.type === c.type);
    const before = index === -1 ? undefined : merged[index];
    const lastTransitionTime = before?.status === c.status ? before.lastTransitionTime : now;
    const entry = { ...c, lastTransitionTime };
    if (index === -1) merged.push(entry);
    else merged[index] = entry;
  }
  return merged;
}
