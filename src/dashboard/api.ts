/**
 * What the dashboard's HTTP API answers, shared by the server and the page (types only, and
 * the row builder, which imports nothing with I/O).
 *
 * - `GET /api/fleet`: FleetSnapshot (every site as a row, totals, waves);
 * - `GET /api/sites/NAMESPACE/NAME`: SiteDetail (one site's whole status);
 * - `GET /api/events`: server-sent events: `snapshot` (a FleetSnapshot) on connect, then
 *   `update` (a FleetUpdate) at most twice a second while sites change.
 *
 * Nothing here holds a secret: rows and statuses are built from chosen fields (states,
 * condition messages, names, times), never from Secrets, URLs with tokens or whole objects.
 */
import type {
  FleetTotals,
  HostCounts,
  SiteProblem,
  SiteStatus,
  WavePlacement,
  WaveSummary,
} from '../fleet/index.js';
import type { SiteState } from '../fleet/site-state.js';

/** One site in the fleet list: enough to filter, sort and show a line. */
export interface SiteRow {
  /** `namespace/name`. */
  readonly key: string;
  readonly name: string;
  readonly namespace: string;
  readonly state: SiteState;
  readonly stage?: string;
  readonly percent?: number;
  readonly since?: string;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  readonly hosts: HostCounts;
  readonly wave?: WavePlacement;
  readonly problem?: Pick<SiteProblem, 'severity' | 'reason' | 'message' | 'hint' | 'source'> & {
    readonly condition?: string;
  };
}

/** The whole fleet, as the page starts from. */
export interface FleetSnapshot {
  /** False while the controller is still listing the hub: the counts are partial. */
  readonly synced: boolean;
  readonly totals: FleetTotals;
  readonly waves: readonly WaveSummary[];
  readonly sites: readonly SiteRow[];
}

/** What changed since the last snapshot or update. */
export interface FleetUpdate {
  readonly synced: boolean;
  readonly totals: FleetTotals;
  readonly waves: readonly WaveSummary[];
  /** Rows of sites that changed, appeared or moved between waves. */
  readonly changed: readonly SiteRow[];
  /** Keys of sites that are gone. */
  readonly removed: readonly string[];
}

/** One site in full: its timeline and hosts. */
export interface SiteDetail {
  readonly status: SiteStatus;
  readonly wave?: WavePlacement;
}

/** The row of a site. */
export function siteRow(status: SiteStatus, wave: WavePlacement | undefined): SiteRow {
  const problem = status.problem;
  return {
    key: status.key,
    name: status.name,
    namespace: status.namespace,
    state: status.state,
    ...(status.stage !== undefined && { stage: status.stage }),
    ...(status.percent !== undefined && { percent: status.percent }),
    ...(status.since !== undefined && { since: status.since }),
    ...(status.startedAt !== undefined && { startedAt: status.startedAt }),
    ...(status.finishedAt !== undefined && { finishedAt: status.finishedAt }),
    hosts: status.hosts,
    ...(wave !== undefined && { wave }),
    ...(problem !== undefined && {
      problem: {
        severity: problem.severity,
        source: problem.source,
        ...(problem.condition !== undefined && { condition: problem.condition }),
        reason: problem.reason,
        message: problem.message,
        hint: problem.hint,
      },
    }),
  };
}
