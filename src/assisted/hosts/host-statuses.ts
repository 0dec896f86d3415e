/**
 * Groups of host statuses the host side decides by (AS internal/host/common.go,
 * ctl/agent_controller.go, internal/host/monitor.go).
 */
import { HostStatus } from '../model.js';

const S = HostStatus;

/** Before installation or unbound: the statuses in which the Agent spec flows into the host. */
export const BEFORE_INSTALLATION_OR_UNBOUND: ReadonlySet<HostStatus> = new Set([
  S.Discovering,
  S.Known,
  S.Disconnected,
  S.Insufficient,
  S.PendingForInput,
  S.DisconnectedUnbound,
  S.InsufficientUnbound,
  S.DiscoveringUnbound,
  S.KnownUnbound,
  S.Binding,
]);

/** Installation under way: a non-day-2 host in one of these may not be unbound. */
export const INSTALLING: ReadonlySet<HostStatus> = new Set([
  S.PreparingForInstallation,
  S.PreparingSuccessful,
  S.Installing,
  S.InstallingInProgress,
  S.InstallingPendingUserAction,
]);

/** The statuses the monitor refreshes (bound hosts, then unbound ones). */
export const MONITORED: ReadonlySet<HostStatus> = new Set([
  S.Discovering,
  S.Known,
  S.Disconnected,
  S.Insufficient,
  S.PendingForInput,
  S.PreparingForInstallation,
  S.PreparingFailed,
  S.PreparingSuccessful,
  S.Installing,
  S.InstallingInProgress,
  S.InstallingPendingUserAction,
  S.ResettingPendingUserAction,
  S.Binding,
  S.DisconnectedUnbound,
  S.DiscoveringUnbound,
  S.InsufficientUnbound,
  S.KnownUnbound,
  S.Reclaiming,
  S.ReclaimingRebooting,
]);

/** Statuses whose inventory may still be replaced by a new inventory reply. */
export const INVENTORY_UPDATABLE: ReadonlySet<HostStatus> = new Set([
  S.Discovering,
  S.Known,
  S.Disconnected,
  S.Insufficient,
  S.PendingForInput,
  S.InstallingInProgress,
  S.DiscoveringUnbound,
  S.KnownUnbound,
  S.DisconnectedUnbound,
  S.InsufficientUnbound,
]);

/** Unbound statuses (late binding). */
export const UNBOUND: ReadonlySet<HostStatus> = new Set([
  S.DiscoveringUnbound,
  S.KnownUnbound,
  S.InsufficientUnbound,
  S.DisconnectedUnbound,
  S.DisabledUnbound,
]);
