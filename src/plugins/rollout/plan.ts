/**
 * A rollout plan: the sites a change between two revisions touches, in waves, each with the gate
 * it must pass before the next starts and the pace its sites are released at. Pure: the
 * classified changes (revision-changes.ts) and the policy (policy.ts) in, the plan out, the same
 * plan for the same input.
 *
 * The plan's JSON form (`siteforge rollout plan --json`) is a contract: `siteforge rollout run`
 * stores its waves in the `spec.waves` of a `Rollout` (siteforge.io/v1alpha1) on the hub, and
 * dashboards read them. Fields are only ever added within `apiVersion: siteforge.io/v1alpha1`;
 * a change to the meaning or shape of a field is a new apiVersion. docs/rollout.md describes it;
 * ROLLOUT_PLAN_SCHEMA (plan-schema.ts) checks it.
 *
 * What is held out of the waves, and why (an experienced ZTP operator's expectations):
 * - changes the hub rejects (immutable AgentClusterInstall and ClusterDeployment fields): always;
 *   syncing them fails the Application's sync, and they never apply anyway;
 * - dangerous changes (a host renamed or dropped without `remove: true`, a BareMetalHost not
 *   after its InfraEnv, a renamed cluster): unless the run says `--include-dangerous`;
 * - removed sites: in waves of their own after every other wave (`removals.placement: last`),
 *   or held (`hold`); held in any case when more than `removals.maxFleetShare` of the fleet
 *   would go, since a deleted folder must not plan the deletion of a region;
 * - sites no wave rule selects.
 * A renamed cluster, when included, is removed in the removal waves and installed under its new
 * name in a wave after them: the new cluster takes the old one's hosts.
 */
import { compileGlob } from '../argocd/parameters.js';
import type { ChangeImpact, Finding } from '../../siteconfig/index.js';
import type { Gate, LabelSelector, Pacing, RolloutPolicy, SiteMatch } from './policy.js';
import type { Revision, SiteChange } from './revision-changes.js';

export const PLAN_API_VERSION = 'siteforge.io/v1alpha1';
export const PLAN_KIND = 'RolloutPlan';

/** Why a site is in no wave. */
export type HoldReason = 'REJECTED' | 'DANGEROUS' | 'REMOVAL_HELD' | 'MASS_REMOVAL' | 'UNSELECTED';

/** One wave of the plan. */
export interface PlanWave {
  /** Unique in the plan; a lower-case DNS label. */
  readonly name: string;
  /** `canary` (first), `rollout` (the policy's waves, and renamed clusters after removals), `removal`. */
  readonly type: 'canary' | 'rollout' | 'removal';
  /** `apply`: put the sites in their target state; `remove`: delete them from the hub. */
  readonly action: 'apply' | 'remove';
  /** Cluster names, sorted. */
  readonly sites: readonly string[];
  readonly gate: Gate;
  readonly pacing: Pacing;
  /** Seconds it takes to release every site at the wave's pace: the least the wave lasts. */
  readonly releaseSeconds: number;
}

/** One site the change touches. */
export interface PlanSite {
  /** The cluster name. */
  readonly name: string;
  /** Its SiteConfig's (or ClusterInstance's) `metadata.name`. */
  readonly site: string;
  readonly change: 'added' | 'changed' | 'removed';
  readonly impact: ChangeImpact;
  /** The wave it is in, or null when held. */
  readonly wave: string | null;
  /** Why it is in no wave, or null. */
  readonly held: { readonly reason: HoldReason; readonly message: string } | null;
  readonly labels: Readonly<Record<string, string>>;
  /** Its site file, relative to the top of the repository. */
  readonly file: string;
  readonly objects: SiteChange['objects'];
  readonly findings: readonly Omit<Finding, 'cluster'>[];
}

/** The plan. */
export interface RolloutPlan {
  readonly apiVersion: typeof PLAN_API_VERSION;
  readonly kind: typeof PLAN_KIND;
  readonly from: Revision;
  readonly to: Revision;
  /** The folder of the site files, relative to the top of the repository. */
  readonly path: string;
  /** Where the policy came from. */
  readonly policy: string;
  readonly includeDangerous: boolean;
  readonly summary: {
    /** Clusters at the target revision. */
    readonly fleet: number;
    readonly added: number;
    readonly changed: number;
    readonly removed: number;
    /** Sites in waves. */
    readonly planned: number;
    readonly held: number;
    readonly waves: number;
    /** The sum of the waves' releaseSeconds. */
    readonly releaseSeconds: number;
  };
  readonly waves: readonly PlanWave[];
  /** Every site the change touches, sorted by name. */
  readonly sites: readonly PlanSite[];
  /** What a reviewer should know (a canary that matched nothing). */
  readonly warnings: readonly string[];
}

/** What the plan is made of besides the changes and the policy. */
export interface PlanInput {
  readonly from: Revision;
  readonly to: Revision;
  readonly path: string;
  readonly sites: readonly SiteChange[];
  /** Clusters at the target revision. */
  readonly fleetSize: number;
  readonly includeDangerous: boolean;
}

/** Plans the waves of a change. */
export function planRollout(input: PlanInput, policy: RolloutPolicy): RolloutPlan {
  const held = new Map<string, { reason: HoldReason; message: string }>();
  const waveOf = new Map<string, string>();
  const waves: PlanWave[] = [];
  const warnings: string[] = [];
  const names = new WaveNames();
  const byName = new Map(input.sites.map((s) => [s.cluster, s]));

  const hold = (site: SiteChange, reason: HoldReason, message: string): void => {
    if (!held.has(site.cluster)) held.set(site.cluster, { reason, message });
  };

  // Renamed clusters: the removed name and the name that takes its hosts go together.
  const renamedTo = new Map<string, string>();
  for (const site of input.sites)
    for (const f of site.findings)
      if (f.code === 'CLUSTER_RENAMED' && f.renamedTo && byName.has(f.renamedTo))
        renamedTo.set(site.cluster, f.renamedTo);
  const successors = new Set(renamedTo.values());

  const removed = input.sites.filter((s) => s.change === 'removed');
  const baseFleet = input.fleetSize + removed.length - count(input.sites, 'added');
  const massRemoval =
    removed.length > 0 && removed.length * 100 > policy.removals.maxFleetShare * baseFleet;

  for (const site of input.sites) {
    const successor = renamedTo.get(site.cluster);
    if (site.impact === 'rejected') {
      hold(site, 'REJECTED', rejection(site));
      continue;
    }
    if (successor !== undefined || successors.has(site.cluster)) {
      const pair = successor ?? [...renamedTo].find(([, to]) => to === site.cluster)![0];
      const old = successor === undefined ? pair : site.cluster;
      const next = successor ?? site.cluster;
      if (!input.includeDangerous)
        hold(
          site,
          'DANGEROUS',
          `cluster ${old} is renamed to ${next}: ${old} is deleted and its hosts installed again as ${next}; held unless --include-dangerous`,
        );
      else if (policy.removals.placement === 'hold')
        hold(site, 'REMOVAL_HELD', `rename of ${old} to ${next}: the policy holds removals`);
      else if (massRemoval)
        hold(site, 'MASS_REMOVAL', massRemovalMessage(removed.length, baseFleet, policy));
      continue;
    }
    if (site.change === 'removed') {
      if (policy.removals.placement === 'hold')
        hold(site, 'REMOVAL_HELD', 'the policy holds removals (removals.placement: hold)');
      else if (massRemoval)
        hold(site, 'MASS_REMOVAL', massRemovalMessage(removed.length, baseFleet, policy));
      continue;
    }
    if (site.impact === 'dangerous' && !input.includeDangerous)
      hold(
        site,
        'DANGEROUS',
        `${site.findings
          .filter((f) => f.impact === 'dangerous')
          .map((f) => f.code)
          .join(', ')}: held unless --include-dangerous`,
      );
  }
  // A rename is all or nothing: hold both halves when either is held.
  for (const [old, next] of renamedTo) {
    const h = held.get(old) ?? held.get(next);
    if (h) {
      held.set(old, held.get(old) ?? h);
      held.set(next, held.get(next) ?? h);
    }
  }

  const applying = input.sites.filter(
    (s) => s.change !== 'removed' && !held.has(s.cluster) && !successors.has(s.cluster),
  );
  let left = [...applying];

  // The canary: the first wave, when the change touches any canary site.
  if (policy.canary) {
    const canary = policy.canary;
    const picked = left.filter((s) => matches(canary.match, s)).slice(0, canary.maxSites);
    if (picked.length > 0) {
      waves.push(wave(names.take('canary'), 'canary', 'apply', picked, canary));
      const taken = new Set(picked.map((s) => s.cluster));
      left = left.filter((s) => !taken.has(s.cluster));
    } else if (applying.length > 0)
      warnings.push(
        'no site of this change matches the canary (spec.canary); the rollout starts with the first wave of spec.waves',
      );
  }

  for (const rule of policy.waves) {
    const mine = rule.match ? left.filter((s) => matches(rule.match!, s)) : left;
    if (mine.length === 0) continue;
    const taken = new Set(mine.map((s) => s.cluster));
    left = left.filter((s) => !taken.has(s.cluster));
    for (const group of groups(mine, rule.groupBy, rule.order)) {
      const chunks = balancedChunks(group.sites, rule.maxSites);
      chunks.forEach((chunk, i) => {
        const base = [rule.name, ...group.values.map(nameFragment)].join('-');
        const name = names.take(chunks.length > 1 ? `${base}-${String(i + 1)}` : base);
        waves.push(wave(name, 'rollout', 'apply', chunk, rule));
      });
    }
  }
  for (const site of left)
    hold(site, 'UNSELECTED', 'no wave of the policy selects it (spec.waves); add a wave that does');

  const removing = removed.filter((s) => !held.has(s.cluster));
  balancedChunks(removing, policy.removals.maxSites).forEach((chunk, i, all) => {
    const name = names.take(all.length > 1 ? `removals-${String(i + 1)}` : 'removals');
    waves.push(wave(name, 'removal', 'remove', chunk, policy.removals));
  });
  const renamed = [...successors]
    .filter((n) => !held.has(n))
    .map((n) => byName.get(n)!)
    .sort(byCluster);
  balancedChunks(renamed, policy.maxSitesPerWave).forEach((chunk, i, all) => {
    const name = names.take(all.length > 1 ? `renamed-${String(i + 1)}` : 'renamed');
    waves.push(wave(name, 'rollout', 'apply', chunk, { gate: policy.gate, pacing: policy.pacing }));
  });

  for (const w of waves) for (const s of w.sites) waveOf.set(s, w.name);
  const sites = input.sites.map((s): PlanSite => ({
    name: s.cluster,
    site: s.site,
    change: s.change,
    impact: s.impact,
    wave: waveOf.get(s.cluster) ?? null,
    held: held.get(s.cluster) ?? null,
    labels: s.labels,
    file: s.file,
    objects: s.objects,
    findings: s.findings.map((f) => ({
      code: f.code,
      impact: f.impact,
      message: f.message,
      hint: f.hint,
      ...(f.renamedTo === undefined ? {} : { renamedTo: f.renamedTo }),
    })),
  }));
  return {
    apiVersion: PLAN_API_VERSION,
    kind: PLAN_KIND,
    from: input.from,
    to: input.to,
    path: input.path,
    policy: policy.source,
    includeDangerous: input.includeDangerous,
    summary: {
      fleet: input.fleetSize,
      added: count(input.sites, 'added'),
      changed: count(input.sites, 'changed'),
      removed: removed.length,
      planned: waveOf.size,
      held: held.size,
      waves: waves.length,
      releaseSeconds: waves.reduce((sum, w) => sum + w.releaseSeconds, 0),
    },
    waves,
    sites,
    warnings,
  };
}

function count(sites: readonly SiteChange[], change: SiteChange['change']): number {
  return sites.filter((s) => s.change === change).length;
}

function byCluster(a: SiteChange, b: SiteChange): number {
  return a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0;
}

function rejection(site: SiteChange): string {
  const codes = site.findings.filter((f) => f.impact === 'rejected').map((f) => f.code);
  return `${[...new Set(codes)].join(', ')}: the hub rejects this change; revert it (or reinstall the site on purpose) and plan again`;
}

function massRemovalMessage(removed: number, fleet: number, policy: RolloutPolicy): string {
  return `the change removes ${String(removed)} of ${String(fleet)} sites, more than removals.maxFleetShare (${String(policy.removals.maxFleetShare)}%); if that is meant, raise it in the policy`;
}

function wave(
  name: string,
  type: PlanWave['type'],
  action: PlanWave['action'],
  sites: readonly SiteChange[],
  rule: { readonly gate: Gate; readonly pacing: Pacing },
): PlanWave {
  return {
    name,
    type,
    action,
    sites: sites.map((s) => s.cluster).sort(),
    gate: rule.gate,
    pacing: rule.pacing,
    releaseSeconds: Math.ceil((sites.length * 3600) / rule.pacing.sitesPerHour),
  };
}

/** Compiled site patterns, once per pattern. */
const globs = new Map<string, ReturnType<typeof compileGlob>>();

/** True when the rule takes the site: a name pattern matches it, or its labels match the selector. */
function matches(match: SiteMatch, site: SiteChange): boolean {
  for (const pattern of match.sites) {
    let glob = globs.get(pattern);
    if (!glob) globs.set(pattern, (glob = compileGlob(pattern)));
    if (glob.matches(site.cluster) || glob.matches(site.site)) return true;
  }
  return match.selector !== undefined && selects(match.selector, site.labels);
}

/** Kubernetes label-selector semantics: every matchLabels entry and every expression hold. */
export function selects(
  selector: LabelSelector,
  labels: Readonly<Record<string, string>>,
): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels))
    if (!Object.hasOwn(labels, key) || labels[key] !== value) return false;
  for (const e of selector.matchExpressions) {
    const has = Object.hasOwn(labels, e.key);
    const value = has ? labels[e.key]! : undefined;
    switch (e.operator) {
      case 'In':
        if (value === undefined || !e.values.includes(value)) return false;
        break;
      case 'NotIn':
        if (value !== undefined && e.values.includes(value)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
    }
  }
  return true;
}

/** A group of a wave rule: the values of its groupBy labels, and its sites sorted by name. */
interface SiteGroup {
  readonly values: readonly string[];
  readonly sites: readonly SiteChange[];
}

/** What a site without a groupBy label is grouped under. */
const NO_VALUE = '';

/**
 * Splits sites by the values of `keys`: the values of the first key listed in `order` first, in
 * that order, then the others sorted, sites without the label last.
 */
function groups(
  sites: readonly SiteChange[],
  keys: readonly string[],
  order: readonly string[],
): SiteGroup[] {
  const byKey = new Map<string, { values: string[]; sites: SiteChange[] }>();
  for (const site of sites) {
    const values = keys.map((k) => (Object.hasOwn(site.labels, k) ? site.labels[k]! : NO_VALUE));
    const key = JSON.stringify(values);
    const group = byKey.get(key) ?? { values, sites: [] };
    group.sites.push(site);
    byKey.set(key, group);
  }
  const rank = (values: readonly string[]): number => {
    const first = values[0];
    if (first === undefined) return 0;
    const i = order.indexOf(first);
    return i >= 0 ? i : first === NO_VALUE ? order.length + 1 : order.length;
  };
  return [...byKey.values()]
    .sort((a, b) => {
      const r = rank(a.values) - rank(b.values);
      if (r !== 0) return r;
      for (let i = 0; i < a.values.length; i++) {
        const x = a.values[i]!;
        const y = b.values[i]!;
        if (x === y) continue;
        if (x === NO_VALUE) return 1;
        if (y === NO_VALUE) return -1;
        return x < y ? -1 : 1;
      }
      return 0;
    })
    .map((g) => ({ values: g.values, sites: [...g.sites].sort(byCluster) }));
}

/** Splits sites (sorted by name) into the fewest waves of at most `max`, as even as can be. */
function balancedChunks<T>(sites: readonly T[], max: number): T[][] {
  if (sites.length === 0) return [];
  const n = Math.ceil(sites.length / max);
  const size = Math.floor(sites.length / n);
  const extra = sites.length % n;
  const chunks: T[][] = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    const len = size + (i < extra ? 1 : 0);
    chunks.push(sites.slice(at, at + len));
    at += len;
  }
  return chunks;
}

/** A label value as part of a wave name: lower case, `-` for anything else, `none` for no value. */
function nameFragment(value: string): string {
  const fragment = value
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return fragment === '' ? 'none' : fragment.slice(0, 40);
}

/** Unique wave names, at most 63 characters. */
class WaveNames {
  private readonly used = new Set<string>();

  take(wanted: string): string {
    const base = wanted.slice(0, 58).replace(/-+$/, '');
    let name = base;
    for (let i = 2; this.used.has(name); i++) name = `${base}-${String(i)}`;
    this.used.add(name);
    return name;
  }
}
