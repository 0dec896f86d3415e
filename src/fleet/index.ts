/**
 * The fleet status model (issue 13): per site a state, a timeline and, when stuck, the hub's
 * exact message with a hint; per fleet totals by state and by rollout wave. Pure: feed it
 * object changes (FleetModel.apply), read statuses (siteStatus, FleetModel). The demo's
 * progress and the dashboard both read it. See docs/dashboard.md.
 */
export { SiteState, SITE_STATES, SITE_STATE_LABEL, STUCK_HINT, isFinal } from './site-state.js';
export { siteStatus } from './site-status.js';
export type {
  HostCounts,
  HostView,
  ProblemSource,
  SiteObjects,
  SiteProblem,
  SiteStatus,
  StageEntry,
  StageMemory,
  TimelineEntry,
  TimelineStep,
} from './site-status.js';
export { FleetModel } from './fleet-model.js';
export type {
  FleetChange,
  FleetEvent,
  FleetTotals,
  StateCounts,
  WavePlacement,
  WaveSummary,
} from './fleet-model.js';
export { FLEET_KINDS, RolloutKind, SiteKind } from './kinds.js';
