/**
 * What the demo prints: progress (a bar per state with counts and rates on a terminal, a plain
 * line now and then otherwise) and the final table of every site, also as JSON. Pure: the
 * numbers come in, text goes out.
 */
import { SITE_STATES, SITE_STATE_LABEL } from '../../fleet/index.js';
import type { SiteState } from '../../fleet/index.js';

/** A site's final state in the demo: the model's, or `held` (its SiteConfig holds the install). */
export type DemoSiteState = SiteState | 'held';

/** One row of the final table. */
export interface SiteOutcome {
  /** The cluster name. */
  readonly name: string;
  readonly namespace: string;
  readonly state: DemoSiteState;
  /** From the apply of its objects to installed or failed; to the end of the run otherwise. */
  readonly seconds: number;
  /** For a site not installed: the condition message that says why (empty when none). */
  readonly message: string;
  /** What to look at, when there is a message. */
  readonly hint?: string;
}

/** The run as a whole. */
export interface DemoTotals {
  readonly sites: number;
  readonly hosts: number;
  readonly installed: number;
  readonly failed: number;
  readonly held: number;
  /** Neither installed, failed nor held when the run ended. */
  readonly unfinished: number;
  /** From the first apply to the end. */
  readonly seconds: number;
  readonly byState: Readonly<Record<string, number>>;
  /** Why the run ended. */
  readonly ended: 'all-final' | 'idle' | 'timeout' | 'interrupted';
}

/** The summary file: `{sites: [{name, state, seconds, message}], totals}`. */
export interface DemoSummary {
  readonly sites: readonly {
    readonly name: string;
    readonly namespace: string;
    readonly state: DemoSiteState;
    readonly seconds: number;
    readonly message: string;
    readonly hint?: string;
  }[];
  readonly totals: DemoTotals;
}

/** Whether the run succeeded: every site installed (or held by its own SiteConfig). */
export function allInstalled(totals: DemoTotals): boolean {
  return totals.installed + totals.held === totals.sites && totals.sites > 0;
}

export function summaryOf(outcomes: readonly SiteOutcome[], totals: DemoTotals): DemoSummary {
  return {
    sites: outcomes.map((o) => ({
      name: o.name,
      namespace: o.namespace,
      state: o.state,
      seconds: Math.round(o.seconds * 10) / 10,
      message: o.message,
      ...(o.hint !== undefined && o.hint !== '' && { hint: o.hint }),
    })),
    totals,
  };
}

/** `2m05s`, `41s`, `1h02m`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${String(s)}s`;
  if (s < 3600) return `${String(Math.floor(s / 60))}m${String(s % 60).padStart(2, '0')}s`;
  return `${String(Math.floor(s / 3600))}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

const ENDED: Readonly<Record<DemoTotals['ended'], string>> = {
  'all-final': 'every site reached a final state',
  idle: 'no site changed state for a while',
  timeout: 'the time limit was reached',
  interrupted: 'interrupted',
};

/** The final table: every site, its state, its time and, when not installed, why. */
export function summaryTable(outcomes: readonly SiteOutcome[], totals: DemoTotals): string {
  const rows = [...outcomes].sort(
    (a, b) => rank(a.state) - rank(b.state) || a.name.localeCompare(b.name),
  );
  const nameWidth = Math.max(4, ...rows.map((r) => r.name.length));
  const stateWidth = Math.max(5, ...rows.map((r) => r.state.length));
  const lines = [
    `${'SITE'.padEnd(nameWidth)}  ${'STATE'.padEnd(stateWidth)}  ${'TIME'.padStart(7)}  MESSAGE`,
  ];
  for (const row of rows) {
    lines.push(
      `${row.name.padEnd(nameWidth)}  ${row.state.padEnd(stateWidth)}  ${duration(row.seconds).padStart(7)}  ${row.message}`.trimEnd(),
    );
    if (row.hint !== undefined && row.hint !== '' && row.state !== 'installed')
      lines.push(`${' '.repeat(nameWidth + stateWidth + 13)}hint: ${row.hint}`);
  }
  const parts = [
    `${String(totals.installed)}/${String(totals.sites)} sites installed`,
    ...(totals.held > 0 ? [`${String(totals.held)} held by their SiteConfig`] : []),
    ...(totals.failed > 0 ? [`${String(totals.failed)} failed`] : []),
    ...(totals.unfinished > 0 ? [`${String(totals.unfinished)} not finished`] : []),
  ];
  lines.push(
    '',
    `${parts.join(', ')} in ${duration(totals.seconds)} (${String(totals.hosts)} hosts; ${ENDED[totals.ended]})`,
  );
  return `${lines.join('\n')}\n`;
}

function rank(state: DemoSiteState): number {
  // Problems first: what a user looks at.
  const order: DemoSiteState[] = ['failed', 'insufficient', ...SITE_STATES, 'held'];
  const i = order.indexOf(state);
  return state === 'installed' ? 100 : i;
}

/** Counts of sites entering each state, for rates. */
export class StateRates {
  private readonly entries = new Map<string, number[]>();

  constructor(private readonly windowMs = 60_000) {}

  /** A site entered `state` at `atMs`. */
  entered(state: DemoSiteState, atMs: number): void {
    const list = this.entries.get(state) ?? [];
    list.push(atMs);
    this.entries.set(state, list);
  }

  /** Sites per minute that entered `state` over the last window (or since `startMs`). */
  perMinute(state: DemoSiteState, nowMs: number, startMs: number): number {
    const list = this.entries.get(state) ?? [];
    const from = Math.max(startMs, nowMs - this.windowMs);
    while (list.length > 0 && list[0]! < nowMs - this.windowMs) list.shift();
    const span = Math.max(1_000, nowMs - from);
    return (list.filter((t) => t >= from && t <= nowMs).length * 60_000) / span;
  }
}

/** What progress shows at one moment. */
export interface ProgressSnapshot {
  readonly elapsedMs: number;
  readonly sites: number;
  readonly hosts: number;
  readonly counts: Readonly<Record<DemoSiteState, number>>;
  /** Sites per minute entering each state. */
  readonly rates: Readonly<Partial<Record<DemoSiteState, number>>>;
  /** What the run is doing now, e.g. `applying wave 1`. */
  readonly activity: string;
}

const BAR_STATES: readonly DemoSiteState[] = [...SITE_STATES, 'held'];
const LABEL: Readonly<Record<DemoSiteState, string>> = { ...SITE_STATE_LABEL, held: 'Held' };

/** A terminal block: a heading, then a bar per state with its count and rate. */
export function progressBlock(snapshot: ProgressSnapshot, columns: number): string[] {
  const width = Math.max(10, Math.min(50, columns - 36));
  const lines = [
    `SiteForge demo · ${duration(snapshot.elapsedMs / 1000)} · ${String(snapshot.sites)} sites, ${String(snapshot.hosts)} hosts · ${snapshot.activity}`.slice(
      0,
      Math.max(20, columns - 1),
    ),
  ];
  for (const state of BAR_STATES) {
    const count = snapshot.counts[state];
    if (state === 'held' && count === 0) continue;
    const filled = snapshot.sites === 0 ? 0 : Math.round((count / snapshot.sites) * width);
    const rate = snapshot.rates[state] ?? 0;
    lines.push(
      `  ${LABEL[state].padEnd(12)} ${'█'.repeat(filled)}${'░'.repeat(width - filled)} ${String(count).padStart(5)}${rate > 0 ? `  ${rate.toFixed(1)}/min` : ''}`,
    );
  }
  return lines;
}

/** One plain line for logs and CI: counts of every state with sites, and the install rate. */
export function progressLine(snapshot: ProgressSnapshot): string {
  const parts = BAR_STATES.filter((s) => snapshot.counts[s] > 0 || s === 'installed').map(
    (s) => `${s} ${String(snapshot.counts[s])}`,
  );
  const rate = snapshot.rates.installed ?? 0;
  return `[${duration(snapshot.elapsedMs / 1000).padStart(6)}] ${parts.join(', ')} of ${String(snapshot.sites)}${rate > 0 ? ` (${rate.toFixed(1)} installed/min)` : ''} · ${snapshot.activity}`;
}
