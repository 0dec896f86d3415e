/**
 * The Rollout resource (`siteforge.io/v1alpha1`, namespaced): the hub object that holds one
 * rollout of a fleet. Its spec is the plan (waves of sites with their gates, max in flight,
 * pacing, the target that moves sites into their desired state) plus the operator's switches
 * (`paused`, `abort`); its status is the progress the runner writes, always with the
 * resourceVersion it read, so a runner that crashes resumes where it stopped and two writers
 * never overwrite each other. The dashboard reads `spec.waves[].{name,sites}` and
 * `status.waves[].{name,phase}`.
 *
 * Everything read from the hub is checked here: a Rollout edited by hand into something the
 * runner cannot follow fails with the field and what was expected, never halfway through a wave.
 */
import type { GroupVersionKind, KubeObject } from '../kube/index.js';
import { SiteForgeError } from '../shared/errors.js';

/** Group, version and kind of the Rollout resource. */
export const RolloutGvk: GroupVersionKind = {
  apiVersion: 'siteforge.io/v1alpha1',
  kind: 'Rollout',
};

/** The largest number of sites one Rollout may hold (the hub's object size, ~1.5 MB, is the bound). */
export const MAX_ROLLOUT_SITES = 20_000;

/** How waves reach the hub. */
export const TargetMode = {
  /** Through the fleet's Argo CD Applications (the plugin's `sites` parameter, sync operations). */
  ArgoCd: 'ArgoCD',
  /** Server-side apply of the sites' objects, as `siteforge apply`, for hubs without Argo CD. */
  Apply: 'Apply',
} as const;
export type TargetMode = (typeof TargetMode)[keyof typeof TargetMode];

/** How an Argo CD target brings changes of sites that Argo CD already renders to the hub. */
export const SyncStrategy = {
  /**
   * The Applications do not sync automatically; each wave is a sync operation limited to the
   * resources of its sites, at the plan's target commit (additions, changes, removals gated).
   */
  Operation: 'Operation',
  /**
   * The Applications sync automatically: only additions are gated (held back in the `sites`
   * selection until their wave); changes and removals reach the hub at Argo CD's next sync.
   */
  Selection: 'Selection',
} as const;
export type SyncStrategy = (typeof SyncStrategy)[keyof typeof SyncStrategy];

/** When a wave counts as healthy, so the next one may start. */
export interface Gate {
  /** Percent of the wave's sites that must succeed: installed (removed, for removals). @default 100 */
  readonly minSucceededPercent: number;
  /** How many of the wave's sites may fail before the gate fails. @default 0 */
  readonly maxFailures: number;
  /**
   * How long after its last site was released the wave may take to pass. @default 7200 (2 h,
   * the time after which assisted installs are given up in practice)
   */
  readonly timeoutSeconds: number;
}

/** One wave of the plan. */
export interface WaveSpec {
  readonly name: string;
  /** Every site (cluster name) of the wave, in release order. */
  readonly sites: readonly string[];
  /** Sites of the wave that are new: they are installed. @default none */
  readonly added: readonly string[];
  /** Sites of the wave that the rollout deletes (deprovisions). @default none */
  readonly removed: readonly string[];
  readonly gate: Gate;
  /** Overrides spec.maxInFlight for this wave (the smaller one wins). */
  readonly maxInFlight?: number;
  /** Overrides spec.pacing.sitesPerHour for this wave (the smaller one wins). */
  readonly sitesPerHour?: number;
  /**
   * Sites the pacing may release at once after a pause in releases (its token bucket's size).
   * @default five minutes' worth of sitesPerHour
   */
  readonly burst?: number;
}

/** Argo CD target settings. */
export interface ArgoCdTarget {
  /** Namespace of the Applications. */
  readonly namespace: string;
  /** The Applications that render the fleet. */
  readonly applications: readonly string[];
  /** @default Operation when no Application syncs automatically, else Selection */
  readonly syncStrategy?: SyncStrategy;
}

/** Apply target settings: where the sites' files are. */
export interface ApplyTarget {
  /** Folder of the site files inside the repository (the plan's path), `.` for its root. */
  readonly path: string;
}

/** How waves reach the hub. */
export interface Target {
  readonly mode: TargetMode;
  readonly argocd?: ArgoCdTarget;
  readonly apply?: ApplyTarget;
}

/** The two revisions the plan compares. */
export interface PlanRevisions {
  /** As the user named it (`main~1`), for people. */
  readonly revision: string;
  /** The commit it resolved to, which the rollout uses. */
  readonly commit: string;
}

/** Where a site comes from in the repository (from the plan), for the Argo CD target. */
export interface SiteSource {
  /** The `metadata.name` of its SiteConfig or ClusterInstance. */
  readonly siteConfig?: string;
  /** Its site file, relative to the top of the repository. */
  readonly file?: string;
}

/** The spec of a Rollout. */
export interface RolloutSpec {
  /** Version of the plan format the spec was made from. */
  readonly planVersion: string;
  readonly from: PlanRevisions;
  readonly to: PlanRevisions;
  readonly target: Target;
  /**
   * Sites of the whole rollout installing (or being removed) at once, at most, over every
   * wave's own maxInFlight. @default no limit beyond the waves'
   */
  readonly maxInFlight?: number;
  /** Sites released per hour, at most; absent: no pacing. */
  readonly pacing?: { readonly sitesPerHour: number };
  readonly waves: readonly WaveSpec[];
  /**
   * Where each site comes from, by cluster name: which Application renders it (Argo CD target),
   * which file to compile (apply target).
   */
  readonly sources?: Readonly<Record<string, SiteSource>>;
  /** No new site is released while true; sites already released carry on. @default false */
  readonly paused: boolean;
  /** Stop for good: nothing more is released; released sites carry on. @default false */
  readonly abort: boolean;
}

/** The phase of a whole rollout. */
export const RolloutPhase = {
  Pending: 'Pending',
  Progressing: 'Progressing',
  Paused: 'Paused',
  Succeeded: 'Succeeded',
  /** A wave's gate failed; `siteforge rollout resume` retries the gate. */
  Failed: 'Failed',
  Aborted: 'Aborted',
} as const;
export type RolloutPhase = (typeof RolloutPhase)[keyof typeof RolloutPhase];

/** Whether nothing more happens without a person. */
export function isFinished(phase: RolloutPhase): boolean {
  return (
    phase === RolloutPhase.Succeeded ||
    phase === RolloutPhase.Failed ||
    phase === RolloutPhase.Aborted
  );
}

/** The phase of one wave. */
export const WavePhase = {
  Pending: 'Pending',
  Progressing: 'Progressing',
  Passed: 'Passed',
  Failed: 'Failed',
  Aborted: 'Aborted',
} as const;
export type WavePhase = (typeof WavePhase)[keyof typeof WavePhase];

/** A site that failed the gate or kept it from passing, with the hub's exact words. */
export interface SiteFailure {
  readonly site: string;
  /** The site's state (`failed`, `insufficient`, `installing`, `absent`, ...). */
  readonly state: string;
  /** The object the message is on, `Kind namespace/name`. */
  readonly object?: string;
  /** The condition type the message comes from. */
  readonly condition?: string;
  readonly reason?: string;
  /** The message exactly as the object carries it. */
  readonly message?: string;
  /** What to look at or do. */
  readonly hint?: string;
}

/** The status of one wave. */
export interface WaveStatus {
  readonly name: string;
  readonly phase: WavePhase;
  /** The first `released` sites of spec.sites are released (recorded before they are acted on). */
  readonly released: number;
  /** The first `applied` sites were acted on (applied, selected, synced) by the target. */
  readonly applied: number;
  readonly installed: number;
  readonly failed: number;
  /** Released sites neither installed nor failed. */
  readonly inProgress: number;
  readonly startedAt?: string;
  /** When the last site was released: the gate's timeout runs from here. */
  readonly releasedAllAt?: string;
  readonly finishedAt?: string;
  readonly message?: string;
  /** Failed sites (and, when the gate fails, the sites that kept it from passing); at most 50. */
  readonly failures: readonly SiteFailure[];
}

/** Release budget of the pacing, a token bucket. */
export interface PacingStatus {
  readonly tokens: number;
  readonly updatedAt: string;
}

/** The status of a Rollout. */
export interface RolloutStatus {
  readonly phase: RolloutPhase;
  readonly observedGeneration?: number;
  readonly message?: string;
  /** Identity of the runner that last wrote the status. */
  readonly runner?: string;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  /** Index of the wave under way (or that failed); waves.length when all passed. */
  readonly currentWave: number;
  readonly pacing?: PacingStatus;
  /** The sync strategy the runner uses (Argo CD target), once decided. */
  readonly syncStrategy?: SyncStrategy;
  readonly waves: readonly WaveStatus[];
}

/** A Rollout as the runner sees it. */
export interface Rollout {
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly spec: RolloutSpec;
  readonly status?: RolloutStatus;
}

/** A Rollout object that the runner cannot follow, with the field at fault. */
export class RolloutInvalidError extends SiteForgeError {
  constructor(
    readonly rollout: string,
    readonly problems: readonly string[],
  ) {
    super(
      'ROLLOUT_INVALID',
      `Rollout ${rollout} is invalid:\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
  }
}

/** Default gate of a wave that names none. */
export const DEFAULT_GATE: Gate = {
  minSucceededPercent: 100,
  maxFailures: 0,
  timeoutSeconds: 7200,
};

const SITE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

type Json = Record<string, unknown>;

const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads fields of one map, collecting problems with their paths. */
class Reader {
  constructor(
    private readonly problems: string[],
    private readonly path: string,
    private readonly value: Json,
  ) {}

  at(key: string): Reader | undefined {
    const v = this.value[key];
    if (v === undefined) return undefined;
    if (!isMap(v)) {
      this.problems.push(`${this.path}.${key}: expected a map`);
      return undefined;
    }
    return new Reader(this.problems, `${this.path}.${key}`, v);
  }

  string(key: string, required: boolean, pattern?: RegExp): string | undefined {
    const v = this.value[key];
    if (v === undefined) {
      if (required) this.problems.push(`${this.path}.${key}: required`);
      return undefined;
    }
    if (typeof v !== 'string' || v === '') {
      this.problems.push(`${this.path}.${key}: expected a non-empty string`);
      return undefined;
    }
    if (pattern && !pattern.test(v)) {
      this.problems.push(
        `${this.path}.${key}: ${JSON.stringify(v.slice(0, 80))} is not a valid name`,
      );
      return undefined;
    }
    return v;
  }

  int(key: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
    const v = this.value[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      this.problems.push(
        `${this.path}.${key}: expected a whole number from ${String(min)}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${String(max)}`}`,
      );
      return undefined;
    }
    return v;
  }

  bool(key: string): boolean {
    const v = this.value[key];
    if (v === undefined) return false;
    if (typeof v !== 'boolean') {
      this.problems.push(`${this.path}.${key}: expected true or false`);
      return false;
    }
    return v;
  }

  names(key: string, pattern: RegExp): string[] {
    const v = this.value[key];
    if (v === undefined) return [];
    if (!Array.isArray(v)) {
      this.problems.push(`${this.path}.${key}: expected a list of names`);
      return [];
    }
    const out: string[] = [];
    v.forEach((item, i) => {
      if (typeof item !== 'string' || !pattern.test(item))
        this.problems.push(`${this.path}.${key}[${String(i)}]: expected a cluster name`);
      else out.push(item);
    });
    return out;
  }

  list(key: string): Reader[] {
    const v = this.value[key];
    if (v === undefined) return [];
    if (!Array.isArray(v)) {
      this.problems.push(`${this.path}.${key}: expected a list`);
      return [];
    }
    const out: Reader[] = [];
    v.forEach((item, i) => {
      if (!isMap(item)) this.problems.push(`${this.path}.${key}[${String(i)}]: expected a map`);
      else out.push(new Reader(this.problems, `${this.path}.${key}[${String(i)}]`, item));
    });
    return out;
  }

  oneOf<T extends string>(key: string, values: readonly T[], required: boolean): T | undefined {
    const v = this.value[key];
    if (v === undefined) {
      if (required) this.problems.push(`${this.path}.${key}: required (${values.join(' or ')})`);
      return undefined;
    }
    if (typeof v !== 'string' || !values.includes(v as T)) {
      this.problems.push(`${this.path}.${key}: expected ${values.join(' or ')}`);
      return undefined;
    }
    return v as T;
  }
}

/**
 * Checks a Rollout spec as the runner needs it: names, wave lists, every site in one wave only,
 * `added` and `removed` subsets of the wave's sites, numbers in range.
 * @throws RolloutInvalidError listing every problem
 */
export function readRolloutSpec(rollout: string, raw: unknown): RolloutSpec {
  const problems: string[] = [];
  if (!isMap(raw)) throw new RolloutInvalidError(rollout, ['spec: expected a map']);
  const r = new Reader(problems, 'spec', raw);
  const revisions = (key: string): PlanRevisions => {
    const m = r.at(key);
    if (!m) problems.push(`spec.${key}: required`);
    return { revision: m?.string('revision', true) ?? '', commit: m?.string('commit', true) ?? '' };
  };
  const planVersion = r.string('planVersion', true) ?? '';
  const from = revisions('from');
  const to = revisions('to');

  const t = r.at('target');
  if (!t) problems.push('spec.target: required');
  const mode = t?.oneOf('mode', Object.values(TargetMode), true) ?? TargetMode.Apply;
  const a = t?.at('argocd');
  const p = t?.at('apply');
  let target: Target = { mode };
  if (mode === TargetMode.ArgoCd) {
    if (!a) problems.push('spec.target.argocd: required when mode is ArgoCD');
    const strategy = a?.oneOf('syncStrategy', Object.values(SyncStrategy), false);
    const applications = a?.names('applications', OBJECT_NAME) ?? [];
    if (a && applications.length === 0)
      problems.push('spec.target.argocd.applications: name at least one Application');
    target = {
      mode,
      argocd: {
        namespace: a?.string('namespace', true, OBJECT_NAME) ?? '',
        applications,
        ...(strategy !== undefined && { syncStrategy: strategy }),
      },
    };
  } else if (t) {
    target = { mode, apply: { path: p?.string('path', false) ?? '.' } };
  }

  const maxInFlight = r.int('maxInFlight', 1);
  const pacingReader = r.at('pacing');
  const sitesPerHour = pacingReader?.int('sitesPerHour', 1);
  const seen = new Map<string, string>();
  let siteCount = 0;
  const waves = r.list('waves').map((w, i): WaveSpec => {
    const name = w.string('name', true, OBJECT_NAME) ?? `wave-${String(i)}`;
    const sites = w.names('sites', SITE_NAME);
    siteCount += sites.length;
    for (const site of sites) {
      const other = seen.get(site);
      if (other !== undefined)
        problems.push(`spec.waves[${String(i)}].sites: ${site} is also in wave ${other}`);
      else seen.set(site, name);
    }
    const inWave = new Set(sites);
    const subset = (key: 'added' | 'removed'): string[] => {
      const names = w.names(key, SITE_NAME);
      for (const n of names)
        if (!inWave.has(n))
          problems.push(`spec.waves[${String(i)}].${key}: ${n} is not one of the wave's sites`);
      return names;
    };
    const added = subset('added');
    const removed = subset('removed');
    for (const n of added)
      if (removed.includes(n))
        problems.push(`spec.waves[${String(i)}]: ${n} is both added and removed`);
    const g = w.at('gate');
    const gate: Gate = {
      minSucceededPercent:
        g?.int('minSucceededPercent', 0, 100) ?? DEFAULT_GATE.minSucceededPercent,
      maxFailures: g?.int('maxFailures', 0) ?? DEFAULT_GATE.maxFailures,
      timeoutSeconds: g?.int('timeoutSeconds', 1) ?? DEFAULT_GATE.timeoutSeconds,
    };
    const waveInFlight = w.int('maxInFlight', 1);
    const waveRate = w.int('sitesPerHour', 1);
    const burst = w.int('burst', 1);
    return {
      name,
      sites,
      added,
      removed,
      gate,
      ...(waveInFlight !== undefined && { maxInFlight: waveInFlight }),
      ...(waveRate !== undefined && { sitesPerHour: waveRate }),
      ...(burst !== undefined && { burst }),
    };
  });
  if (waves.length === 0) problems.push('spec.waves: the plan has no wave');
  const waveNames = new Set<string>();
  for (const w of waves) {
    if (waveNames.has(w.name)) problems.push(`spec.waves: two waves are named ${w.name}`);
    waveNames.add(w.name);
  }
  if (siteCount > MAX_ROLLOUT_SITES)
    problems.push(
      `spec.waves: ${String(siteCount)} sites, more than the ${String(MAX_ROLLOUT_SITES)} one Rollout holds; split the rollout`,
    );
  const sources = readSources(raw['sources'], seen, problems);
  const spec: RolloutSpec = {
    planVersion,
    from,
    to,
    target,
    ...(maxInFlight !== undefined && { maxInFlight }),
    ...(sitesPerHour !== undefined && { pacing: { sitesPerHour } }),
    waves,
    ...(sources !== undefined && { sources }),
    paused: r.bool('paused'),
    abort: r.bool('abort'),
  };
  if (problems.length > 0) throw new RolloutInvalidError(rollout, problems);
  return spec;
}

/** `spec.sources`: kept for the sites of the waves, strings only. */
function readSources(
  raw: unknown,
  sites: ReadonlyMap<string, string>,
  problems: string[],
): Record<string, SiteSource> | undefined {
  if (raw === undefined) return undefined;
  if (!isMap(raw)) {
    problems.push('spec.sources: expected a map of cluster names');
    return undefined;
  }
  const out: Record<string, SiteSource> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (!sites.has(name) || !isMap(value)) continue;
    const { siteConfig, file } = value;
    out[name] = {
      ...(typeof siteConfig === 'string' && { siteConfig }),
      ...(typeof file === 'string' && { file }),
    };
  }
  return out;
}

/** The status as stored, or undefined when there is none yet (or it is not one of ours). */
export function readRolloutStatus(raw: unknown): RolloutStatus | undefined {
  if (!isMap(raw) || typeof raw['phase'] !== 'string' || !Array.isArray(raw['waves']))
    return undefined;
  // Written by the runner only (status subresource); kept as it is, with defaults for counts.
  const waves = (raw['waves'] as unknown[]).filter(isMap).map((w): WaveStatus => ({
    name: typeof w['name'] === 'string' ? w['name'] : '',
    phase: (Object.values(WavePhase) as unknown[]).includes(w['phase'])
      ? (w['phase'] as WavePhase)
      : WavePhase.Pending,
    released: count(w['released']),
    applied: count(w['applied']),
    installed: count(w['installed']),
    failed: count(w['failed']),
    inProgress: count(w['inProgress']),
    ...times(w, ['startedAt', 'releasedAllAt', 'finishedAt', 'message']),
    failures: Array.isArray(w['failures']) ? (w['failures'] as SiteFailure[]) : [],
  }));
  const phase = (Object.values(RolloutPhase) as unknown[]).includes(raw['phase'])
    ? (raw['phase'] as RolloutPhase)
    : RolloutPhase.Pending;
  const pacing = raw['pacing'];
  const strategy = raw['syncStrategy'];
  return {
    phase,
    currentWave: count(raw['currentWave']),
    ...(typeof raw['observedGeneration'] === 'number' && {
      observedGeneration: raw['observedGeneration'],
    }),
    ...times(raw, ['message', 'runner', 'startedAt', 'finishedAt']),
    ...(isMap(pacing) &&
      typeof pacing['tokens'] === 'number' &&
      typeof pacing['updatedAt'] === 'string' && {
        pacing: { tokens: pacing['tokens'], updatedAt: pacing['updatedAt'] },
      }),
    ...((strategy === SyncStrategy.Operation || strategy === SyncStrategy.Selection) && {
      syncStrategy: strategy,
    }),
    waves,
  };
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0;
}

function times<K extends string>(m: Json, keys: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const k of keys) if (typeof m[k] === 'string') out[k] = m[k];
  return out;
}

/** A Rollout object read from the hub. @throws RolloutInvalidError */
export function rolloutOf(object: KubeObject): Rollout {
  const { name, namespace, resourceVersion } = object.metadata;
  const key = `${namespace ?? ''}/${name}`;
  const generation = object.metadata['generation'];
  const status = readRolloutStatus(object['status']);
  return {
    namespace: namespace ?? '',
    name,
    ...(resourceVersion !== undefined && { resourceVersion }),
    ...(typeof generation === 'number' && { generation }),
    spec: readRolloutSpec(key, object['spec']),
    ...(status !== undefined && { status }),
  };
}

/** The Rollout as a hub object (spec and, when set, status). */
export function rolloutObject(
  rollout: Rollout,
  labels?: Readonly<Record<string, string>>,
): KubeObject {
  return {
    ...RolloutGvk,
    metadata: {
      name: rollout.name,
      namespace: rollout.namespace,
      ...(labels !== undefined && { labels }),
      ...(rollout.resourceVersion !== undefined && { resourceVersion: rollout.resourceVersion }),
    },
    spec: rollout.spec,
    ...(rollout.status !== undefined && { status: rollout.status }),
  };
}

/** `namespace/name` of a Rollout. */
export function rolloutKey(rollout: { namespace: string; name: string }): string {
  return `${rollout.namespace}/${rollout.name}`;
}
