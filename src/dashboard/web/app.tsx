/**
 * The fleet dashboard page: totals by state, rollout waves, the sites that need attention with
 * the hub's exact message and a hint, a paged and filtered list of every site, and one site's
 * timeline at a time. Built with Preact (small, maintained, JSX compiled by esbuild without a
 * plugin); lists are paged so 3,500 sites never become 3,500 DOM rows or timelines.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { JSX } from 'preact';
import { SITE_STATES, SITE_STATE_LABEL, STUCK_HINT } from '../../fleet/site-state.js';
import type { SiteState } from '../../fleet/site-state.js';
import type { WaveSummary } from '../../fleet/fleet-model.js';
import type { TimelineEntry } from '../../fleet/site-status.js';
import type { SiteDetail, SiteRow } from '../api.js';
import type { FleetStore, FleetView } from './fleet-store.js';
import { between, clock, count, duration } from './format.js';

const PAGE_SIZE = 50;
const ATTENTION_PAGE_SIZE = 6;

/** A filter on the site list. */
interface Filter {
  readonly state?: SiteState | 'problem';
  /** `rollout\u0000wave`, or '' for sites in no wave. */
  readonly wave?: string;
  /** A problem group's key (kind, condition, reason). */
  readonly problem?: string;
  readonly text: string;
}

function waveKeyOf(row: SiteRow): string {
  return row.wave === undefined ? '' : `${row.wave.rollout}\u0000${row.wave.wave}`;
}

function waveKeyOfSummary(wave: WaveSummary): string {
  return wave.rollout === undefined ? '' : `${wave.rollout}\u0000${wave.wave}`;
}

function useFleet(store: FleetStore): FleetView {
  const [view, setView] = useState(store.current);
  useEffect(
    () =>
      store.subscribe(() => {
        setView(store.current);
      }),
    [store],
  );
  return view;
}

/** Re-renders every `ms`, for "in state for" durations. */
function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => {
      setNow(Date.now());
    }, ms);
    return () => {
      clearInterval(timer);
    };
  }, [ms]);
  return now;
}

function selectedFromHash(): string | undefined {
  const match = /^#site=([^/]+\/[^/]+)$/.exec(location.hash);
  return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
}

export function App({ store }: { readonly store: FleetStore }): JSX.Element {
  const view = useFleet(store);
  const now = useNow(5000);
  const [filter, setFilter] = useState<Filter>({ text: '' });
  const [selected, setSelected] = useState<string | undefined>(selectedFromHash());
  useEffect(() => {
    const onHash = (): void => {
      setSelected(selectedFromHash());
    };
    addEventListener('hashchange', onHash);
    return () => {
      removeEventListener('hashchange', onHash);
    };
  }, []);
  const select = (key: string | undefined): void => {
    history.replaceState(null, '', key === undefined ? ' ' : `#site=${key}`);
    setSelected(key);
  };
  return (
    <div class="page">
      <Header view={view} now={now} />
      {view.totals === undefined ? (
        <p class="loading">Loading the fleet…</p>
      ) : (
        <main>
          {!view.synced && (
            <p class="banner" data-testid="syncing">
              The controller is still listing the hub: the counts below are partial.
            </p>
          )}
          <Totals view={view} filter={filter} setFilter={setFilter} />
          <div class="columns">
            <Waves view={view} filter={filter} setFilter={setFilter} />
            <Attention
              view={view}
              now={now}
              filter={filter}
              setFilter={setFilter}
              select={select}
            />
          </div>
          <Sites
            view={view}
            now={now}
            filter={filter}
            setFilter={setFilter}
            select={select}
            selected={selected}
          />
        </main>
      )}
      {selected !== undefined && (
        <Drawer
          siteKey={selected}
          row={view.rows.get(selected)}
          now={now}
          close={() => {
            select(undefined);
          }}
        />
      )}
    </div>
  );
}

function Header({ view, now }: { readonly view: FleetView; readonly now: number }): JSX.Element {
  const label =
    view.connection === 'live'
      ? 'Live'
      : view.connection === 'connecting'
        ? 'Connecting…'
        : 'Reconnecting…';
  return (
    <header class="top">
      <div class="brand">
        <span class="logo" aria-hidden="true">
          ◆
        </span>
        SiteForge <span class="muted">fleet</span>
      </div>
      <div class="status" data-testid="connection" data-connection={view.connection}>
        <span class={`dot ${view.connection}`} aria-hidden="true" />
        {label}
        {view.updatedAt !== undefined && (
          <span class="muted">
            {' '}
            · updated{' '}
            {now - view.updatedAt < 2000 ? 'just now' : `${duration(now - view.updatedAt)} ago`}
          </span>
        )}
      </div>
    </header>
  );
}

function Totals({
  view,
  filter,
  setFilter,
}: {
  readonly view: FleetView;
  readonly filter: Filter;
  readonly setFilter: (f: Filter) => void;
}): JSX.Element {
  const totals = view.totals!;
  const toggle = (state: Filter['state']): void => {
    setFilter({ ...filter, state: filter.state === state ? undefined : state });
  };
  return (
    <section class="card totals" aria-label="Fleet totals">
      <div class="headline">
        <div>
          <div class="big" data-testid="total-sites">
            {count(totals.sites)}
          </div>
          <div class="muted">sites</div>
        </div>
        <div class="headline-side">
          <div class="big ok">
            {totals.sites === 0 ? 0 : Math.floor((totals.byState.installed / totals.sites) * 100)}%
          </div>
          <div class="muted">installed</div>
        </div>
        <button
          type="button"
          class={`headline-side problem-count ${filter.state === 'problem' ? 'active' : ''}`}
          data-testid="total-problems"
          onClick={() => {
            toggle('problem');
          }}
        >
          <div class={`big ${totals.withProblem > 0 ? 'bad' : ''}`}>
            {count(totals.withProblem)}
          </div>
          <div class="muted">with a problem</div>
        </button>
      </div>
      <StackBar counts={totals.byState} total={totals.sites} tall />
      <div class="tiles">
        {SITE_STATES.map((state) => (
          <button
            type="button"
            key={state}
            class={`tile s-${state} ${filter.state === state ? 'active' : ''}`}
            data-testid={`total-${state}`}
            data-count={totals.byState[state]}
            onClick={() => {
              toggle(state);
            }}
            title={`Show ${SITE_STATE_LABEL[state].toLowerCase()} sites`}
          >
            <span class="tile-count">{count(totals.byState[state])}</span>
            <span class="tile-label">{SITE_STATE_LABEL[state]}</span>
          </button>
        ))}
      </div>
    </section>
  );
}

function StackBar({
  counts,
  total,
  tall,
}: {
  readonly counts: Readonly<Record<SiteState, number>>;
  readonly total: number;
  readonly tall?: boolean;
}): JSX.Element {
  return (
    <div class={`stack ${tall === true ? 'tall' : ''}`} role="img" aria-label="sites by state">
      {total > 0 &&
        SITE_STATES.filter((s) => counts[s] > 0).map((s) => (
          <span
            key={s}
            class={`seg s-${s}`}
            style={{ width: `${String((counts[s] / total) * 100)}%` }}
            title={`${SITE_STATE_LABEL[s]}: ${count(counts[s])}`}
          />
        ))}
    </div>
  );
}

function Waves({
  view,
  filter,
  setFilter,
}: {
  readonly view: FleetView;
  readonly filter: Filter;
  readonly setFilter: (f: Filter) => void;
}): JSX.Element {
  const rollouts = new Set(view.waves.flatMap((w) => (w.rollout === undefined ? [] : [w.rollout])));
  return (
    <section class="card waves" aria-label="Rollout waves">
      <h2>Rollout waves</h2>
      {rollouts.size === 0 && (
        <p class="muted small">No Rollout on the hub: every site is in no wave.</p>
      )}
      <table class="wave-table">
        <tbody>
          {view.waves
            .filter((w) => w.rollout !== undefined || w.sites > 0)
            .map((wave) => {
              const key = waveKeyOfSummary(wave);
              const done = wave.byState.installed;
              return (
                <tr
                  key={key}
                  class={`wave-row ${filter.wave === key ? 'active' : ''}`}
                  data-testid="wave"
                  data-wave={wave.wave}
                  onClick={() => {
                    setFilter({ ...filter, wave: filter.wave === key ? undefined : key });
                  }}
                >
                  <td class="wave-name">
                    <div>{wave.wave}</div>
                    {wave.rollout !== undefined && <div class="muted small">{wave.rollout}</div>}
                  </td>
                  <td>
                    {wave.phase !== undefined && (
                      <span class={`phase p-${wave.phase.toLowerCase()}`}>{wave.phase}</span>
                    )}
                  </td>
                  <td class="wave-bar">
                    <StackBar counts={wave.byState} total={wave.sites} />
                  </td>
                  <td class="num" data-testid="wave-count">
                    {count(done)}/{count(wave.sites)}
                  </td>
                  <td class="num">
                    {wave.byState.failed > 0 && (
                      <span class="pill bad">{count(wave.byState.failed)} failed</span>
                    )}
                  </td>
                </tr>
              );
            })}
        </tbody>
      </table>
      <ul class="legend" aria-label="state colours">
        {SITE_STATES.map((state) => (
          <li key={state} class={`s-${state}`}>
            <span class="swatch" aria-hidden="true" />
            {SITE_STATE_LABEL[state]}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Failed first, then insufficient, then the other errors, then warnings. */
function attentionRank(row: SiteRow): number {
  if (row.state === 'failed') return 0;
  if (row.state === 'insufficient') return 1;
  return row.problem?.severity === 'error' ? 2 : 3;
}

/** Sites stuck for the same reason, reported by the same kind of object and condition. */
interface ProblemGroup {
  readonly key: string;
  readonly rank: number;
  readonly rows: readonly SiteRow[];
}

function problemKey(row: SiteRow): string {
  const p = row.problem;
  return p === undefined ? row.state : `${p.source.kind}|${p.condition ?? ''}|${p.reason}`;
}

const SITES_PER_GROUP = 3;

function Attention({
  view,
  now,
  filter,
  setFilter,
  select,
}: {
  readonly view: FleetView;
  readonly now: number;
  readonly filter: Filter;
  readonly setFilter: (f: Filter) => void;
  readonly select: (key: string) => void;
}): JSX.Element {
  const [page, setPage] = useState(0);
  const groups = useMemo(() => {
    const byKey = new Map<string, SiteRow[]>();
    for (const row of view.rows.values()) {
      if (row.problem === undefined && row.state !== 'failed') continue;
      const key = problemKey(row);
      let rows = byKey.get(key);
      if (rows === undefined) byKey.set(key, (rows = []));
      rows.push(row);
    }
    const out: ProblemGroup[] = [];
    for (const [key, rows] of byKey) {
      rows.sort(
        (a, b) => (a.since ?? '').localeCompare(b.since ?? '') || a.key.localeCompare(b.key),
      );
      out.push({ key, rank: Math.min(...rows.map(attentionRank)), rows });
    }
    return out.sort(
      (a, b) => a.rank - b.rank || b.rows.length - a.rows.length || a.key.localeCompare(b.key),
    );
  }, [view.version]);
  const total = groups.reduce((n, g) => n + g.rows.length, 0);
  const pages = Math.max(1, Math.ceil(groups.length / ATTENTION_PAGE_SIZE));
  const current = Math.min(page, pages - 1);
  const shown = groups.slice(current * ATTENTION_PAGE_SIZE, (current + 1) * ATTENTION_PAGE_SIZE);
  return (
    <section class="card attention" aria-label="Sites that need attention">
      <h2>
        Needs attention{' '}
        <span class={`pill ${total > 0 ? 'bad' : 'ok'}`} data-testid="attention-count">
          {count(total)}
        </span>
        {groups.length > 1 && (
          <span class="muted small">in {String(groups.length)} kinds of problem</span>
        )}
      </h2>
      {total === 0 && <p class="muted">Nothing is stuck or failed.</p>}
      <ul class="groups">
        {shown.map((group) => {
          const first = group.rows[0]!;
          const problem = first.problem;
          const severity = first.state === 'failed' ? 'error' : (problem?.severity ?? 'error');
          return (
            <li
              key={group.key}
              class={`group sev-${severity}`}
              data-testid="problem-group"
              data-reason={problem?.reason}
            >
              <div class="group-head">
                <span class="group-reason">{problem?.reason ?? SITE_STATE_LABEL[first.state]}</span>
                <span class="muted small">
                  {problem?.source.kind}
                  {problem?.condition !== undefined && ` · ${problem.condition}`}
                </span>
                <span class="group-count">
                  {count(group.rows.length)} {group.rows.length === 1 ? 'site' : 'sites'}
                </span>
              </div>
              {problem !== undefined && problem.hint !== '' && (
                <div class="hint">{problem.hint}</div>
              )}
              <ul class="problems">
                {group.rows.slice(0, SITES_PER_GROUP).map((row) => (
                  <li key={row.key} class="problem" data-testid="attention" data-site={row.name}>
                    <div class="problem-head">
                      <button
                        type="button"
                        class="link"
                        onClick={() => {
                          select(row.key);
                        }}
                      >
                        {row.name}
                      </button>
                      <StateBadge state={row.state} />
                      <span class="muted small right">for {between(row.since, now)}</span>
                    </div>
                    <div class="message" data-testid="problem-message">
                      {row.problem?.message}
                    </div>
                  </li>
                ))}
              </ul>
              {group.rows.length > SITES_PER_GROUP && (
                <button
                  type="button"
                  class="link small more"
                  onClick={() => {
                    setFilter({ ...filter, problem: group.key, state: undefined });
                    document.getElementById('sites')?.scrollIntoView({ behavior: 'smooth' });
                  }}
                >
                  Show all {count(group.rows.length)} in the site list →
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {pages > 1 && <Pager page={current} pages={pages} setPage={setPage} />}
    </section>
  );
}

function Pager({
  page,
  pages,
  setPage,
  label,
}: {
  readonly page: number;
  readonly pages: number;
  readonly setPage: (p: number) => void;
  readonly label?: string;
}): JSX.Element {
  return (
    <nav class="pager" aria-label="pages">
      <button
        type="button"
        disabled={page === 0}
        onClick={() => {
          setPage(page - 1);
        }}
        aria-label="previous page"
      >
        ‹
      </button>
      <span data-testid="page-label">{label ?? `${String(page + 1)} / ${String(pages)}`}</span>
      <button
        type="button"
        disabled={page >= pages - 1}
        onClick={() => {
          setPage(page + 1);
        }}
        aria-label="next page"
      >
        ›
      </button>
    </nav>
  );
}

function StateBadge({ state }: { readonly state: SiteState }): JSX.Element {
  return (
    <span class={`badge s-${state}`} data-state={state}>
      {SITE_STATE_LABEL[state]}
    </span>
  );
}

type SortKey = 'name' | 'state' | 'since';

function Sites({
  view,
  now,
  filter,
  setFilter,
  select,
  selected,
}: {
  readonly view: FleetView;
  readonly now: number;
  readonly filter: Filter;
  readonly setFilter: (f: Filter) => void;
  readonly select: (key: string) => void;
  readonly selected: string | undefined;
}): JSX.Element {
  const [page, setPage] = useState(0);
  const [sort, setSort] = useState<SortKey>('name');
  const rows = useMemo(() => {
    const text = filter.text.trim().toLowerCase();
    const order = new Map(SITE_STATES.map((s, i) => [s, i]));
    return [...view.rows.values()]
      .filter(
        (r) =>
          (filter.state === undefined ||
            (filter.state === 'problem' ? r.problem !== undefined : r.state === filter.state)) &&
          (filter.wave === undefined || waveKeyOf(r) === filter.wave) &&
          (filter.problem === undefined || problemKey(r) === filter.problem) &&
          (text === '' || r.key.toLowerCase().includes(text)),
      )
      .sort((a, b) =>
        sort === 'state'
          ? (order.get(b.state) ?? 0) - (order.get(a.state) ?? 0) || a.key.localeCompare(b.key)
          : sort === 'since'
            ? (a.since ?? '~').localeCompare(b.since ?? '~') || a.key.localeCompare(b.key)
            : a.name.localeCompare(b.name) || a.namespace.localeCompare(b.namespace),
      );
  }, [view.version, filter, sort]);
  useEffect(() => {
    setPage(0);
  }, [filter, sort]);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const current = Math.min(page, pages - 1);
  const shown = rows.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE);
  const waveOptions = view.waves.filter((w) => w.rollout !== undefined || w.sites > 0);
  return (
    <section class="card sites" aria-label="Sites" id="sites">
      <div class="sites-head">
        <h2>Sites</h2>
        <input
          type="search"
          placeholder="Search sites"
          value={filter.text}
          data-testid="search"
          onInput={(e) => {
            setFilter({ ...filter, text: (e.target as HTMLInputElement).value });
          }}
        />
        <select
          aria-label="State"
          data-testid="state-filter"
          value={filter.state ?? ''}
          onChange={(e) => {
            const value = (e.target as HTMLSelectElement).value;
            setFilter({ ...filter, state: value === '' ? undefined : (value as Filter['state']) });
          }}
        >
          <option value="">All states</option>
          {SITE_STATES.map((s) => (
            <option key={s} value={s}>
              {SITE_STATE_LABEL[s]}
            </option>
          ))}
          <option value="problem">With a problem</option>
        </select>
        <select
          aria-label="Wave"
          value={filter.wave ?? '*'}
          onChange={(e) => {
            const value = (e.target as HTMLSelectElement).value;
            setFilter({ ...filter, wave: value === '*' ? undefined : value });
          }}
        >
          <option value="*">All waves</option>
          {waveOptions.map((w) => (
            <option key={waveKeyOfSummary(w)} value={waveKeyOfSummary(w)}>
              {w.rollout === undefined ? 'No wave' : `${w.wave} (${w.rollout.split('/')[1] ?? ''})`}
            </option>
          ))}
        </select>
        <select
          aria-label="Sort"
          value={sort}
          onChange={(e) => {
            setSort((e.target as HTMLSelectElement).value as SortKey);
          }}
        >
          <option value="name">By name</option>
          <option value="state">By state</option>
          <option value="since">Longest in state</option>
        </select>
        {filter.problem !== undefined && (
          <button
            type="button"
            class="chip"
            data-testid="problem-filter"
            onClick={() => {
              setFilter({ ...filter, problem: undefined });
            }}
            title="Show every site again"
          >
            {filter.problem.split('|')[2] ?? filter.problem} ×
          </button>
        )}
        <span class="muted small right" data-testid="sites-count">
          {rows.length === 0
            ? 'no sites'
            : `${count(current * PAGE_SIZE + 1)}–${count(current * PAGE_SIZE + shown.length)} of ${count(rows.length)}`}
        </span>
        {pages > 1 && <Pager page={current} pages={pages} setPage={setPage} />}
      </div>
      <table class="site-table">
        <thead>
          <tr>
            <th>Site</th>
            <th>Wave</th>
            <th>State</th>
            <th class="progress-col">Progress</th>
            <th class="num">Hosts</th>
            <th>In state</th>
            <th>Problem</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((row) => (
            <tr
              key={row.key}
              class={`site-row ${selected === row.key ? 'selected' : ''}`}
              data-testid="site-row"
              data-site={row.name}
              data-state={row.state}
              onClick={() => {
                select(row.key);
              }}
            >
              <td>
                {/* A button, so the list can be walked with the keyboard (Tab, Enter). */}
                <button type="button" class="site-name plain">
                  {row.name}
                </button>
                {row.namespace !== row.name && <div class="muted small">{row.namespace}</div>}
              </td>
              <td class="small">{row.wave?.wave ?? <span class="muted">–</span>}</td>
              <td>
                <StateBadge state={row.state} />
              </td>
              <td class="progress-col">
                <Progress row={row} />
              </td>
              <td class="num small">
                {row.state === 'installed'
                  ? `${String(row.hosts.installed)}/${String(row.hosts.expected)}`
                  : `${String(row.hosts.registered)}/${String(row.hosts.expected)}`}
              </td>
              <td class="small">
                {row.state === 'installed' || row.state === 'failed'
                  ? row.finishedAt !== undefined && row.startedAt !== undefined
                    ? `took ${between(row.startedAt, row.finishedAt)}`
                    : ''
                  : between(row.since, now)}
              </td>
              <td class="small problem-cell">
                {row.problem !== undefined && (
                  <span class={`sev sev-${row.problem.severity}`} title={row.problem.message}>
                    {row.problem.reason}
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Progress({ row }: { readonly row: SiteRow }): JSX.Element {
  if (row.state === 'installed') return <span class="muted small">done</span>;
  if (row.percent === undefined) return <span class="muted small">{row.stage ?? ''}</span>;
  return (
    <div class="progress" title={`${row.stage ?? ''} ${String(row.percent)}%`}>
      <div class="bar">
        <span class={`fill s-${row.state}`} style={{ width: `${String(row.percent)}%` }} />
      </div>
      <span class="small">{`${row.stage ?? ''} · ${String(row.percent)}%`}</span>
    </div>
  );
}

function Drawer({
  siteKey,
  row,
  now,
  close,
}: {
  readonly siteKey: string;
  readonly row: SiteRow | undefined;
  readonly now: number;
  readonly close: () => void;
}): JSX.Element {
  const [detail, setDetail] = useState<SiteDetail | undefined | null>(undefined);
  useEffect(() => {
    const controller = new AbortController();
    const [namespace = '', name = ''] = siteKey.split('/');
    fetch(`api/sites/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`, {
      signal: controller.signal,
    })
      .then(async (response) => {
        setDetail(response.ok ? ((await response.json()) as SiteDetail) : null);
      })
      .catch(() => undefined);
    return () => {
      controller.abort();
    };
    // Fetched again whenever the site's row changes (an update named it).
  }, [siteKey, row]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') close();
    };
    addEventListener('keydown', onKey);
    return () => {
      removeEventListener('keydown', onKey);
    };
  }, [close]);
  const status = detail?.status;
  return (
    <aside class="drawer" aria-label={`Site ${siteKey}`} data-testid="drawer">
      <div class="drawer-head">
        <div>
          <h2 data-testid="drawer-title">{status?.name ?? siteKey.split('/')[1]}</h2>
          <div class="muted small">
            namespace {siteKey.split('/')[0]}
            {detail?.wave !== undefined && ` · wave ${detail.wave.wave} of ${detail.wave.rollout}`}
          </div>
        </div>
        {status !== undefined && <StateBadge state={status.state} />}
        <button type="button" class="close" onClick={close} aria-label="close">
          ×
        </button>
      </div>
      {detail === null && <p class="muted">This site is no longer on the hub.</p>}
      {status !== undefined && (
        <div class="drawer-body">
          {status.problem !== undefined ? (
            <div class={`problem-box sev-${status.problem.severity}`} data-testid="drawer-problem">
              <div class="small muted">
                {status.problem.source.kind} {status.problem.source.namespace}/
                {status.problem.source.name}
                {status.problem.condition !== undefined && ` · ${status.problem.condition}`} ·{' '}
                <strong>{status.problem.reason}</strong>
                {status.problem.since !== undefined && ` · since ${clock(status.problem.since)}`}
              </div>
              <div class="message">{status.problem.message}</div>
              {status.problem.hint !== '' && <div class="hint">{status.problem.hint}</div>}
            </div>
          ) : (
            status.state !== 'installed' && (
              <div class="stuck-hint small muted">
                If it stays {status.state} for long: {STUCK_HINT[status.state]}
              </div>
            )
          )}
          <h3>Timeline</h3>
          <ol class="timeline" data-testid="timeline">
            {status.timeline.map((entry) => (
              <TimelineItem key={entry.step} entry={entry} now={now} />
            ))}
          </ol>
          <h3>Hosts</h3>
          <table class="host-table">
            <thead>
              <tr>
                <th>Host</th>
                <th>Role</th>
                <th>BareMetalHost</th>
                <th>Agent</th>
                <th>Stage</th>
              </tr>
            </thead>
            <tbody>
              {status.hostViews.map((host) => (
                <tr key={host.name}>
                  <td>{host.name}</td>
                  <td class="small">{host.role ?? ''}</td>
                  <td class="small">
                    {host.bareMetalHost === undefined
                      ? '–'
                      : `${host.bareMetalHost.state || 'new'}${host.bareMetalHost.operationalStatus === 'error' ? ` (${host.bareMetalHost.errorType ?? 'error'})` : ''}`}
                  </td>
                  <td class="small">{host.agent?.state ?? '–'}</td>
                  <td class="small">
                    {host.agent?.stage ?? ''}
                    {host.agent?.percent !== undefined && ` · ${String(host.agent.percent)}%`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </aside>
  );
}

function TimelineItem({
  entry,
  now,
}: {
  readonly entry: TimelineEntry;
  readonly now: number;
}): JSX.Element {
  const took =
    entry.start !== undefined && entry.end !== undefined
      ? between(entry.start, entry.end)
      : entry.start !== undefined && entry.status === 'active'
        ? `${between(entry.start, now)} so far`
        : undefined;
  return (
    <li class={`step t-${entry.status}`} data-step={entry.step} data-status={entry.status}>
      <span class="step-dot" aria-hidden="true" />
      <div class="step-body">
        <div class="step-head">
          <strong>{entry.label}</strong>
          <span class="muted small">
            {entry.start !== undefined && entry.end !== undefined && entry.start !== entry.end
              ? `${clock(entry.start)} → ${clock(entry.end)}`
              : entry.end !== undefined
                ? clock(entry.end)
                : entry.start !== undefined
                  ? `since ${clock(entry.start)}`
                  : ''}
            {took !== undefined && ` · ${took}`}
          </span>
        </div>
        {entry.detail !== undefined && entry.detail !== '' && (
          <div class="small step-detail">{entry.detail}</div>
        )}
        {entry.stages !== undefined && entry.stages.length > 0 && entry.status !== 'pending' && (
          <ol class="stages">
            {entry.stages.map((stage) => (
              <li key={stage.name} class={`stage t-${stage.status}`} data-status={stage.status}>
                <span class="stage-name">{stage.name}</span>
                <span class="muted small">{stage.at !== undefined ? clock(stage.at) : ''}</span>
              </li>
            ))}
          </ol>
        )}
      </div>
    </li>
  );
}
