/**
 * A rollout plan (`siteforge rollout plan --json`) turned into the spec of a Rollout: its
 * waves with their sites in order, which of them are added and removed, gates, max in flight
 * and pacing, and the target the runner was told to use. The plan is checked as untrusted
 * input: every problem is reported with its place in the file.
 */
import { SiteForgeError } from '../shared/errors.js';
import type { Gate, RolloutSpec, Target, WaveSpec } from './rollout-resource.js';
import { DEFAULT_GATE, readRolloutSpec, RolloutInvalidError } from './rollout-resource.js';

/** The plan file cannot be used. */
export class PlanInvalidError extends SiteForgeError {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(
      'PLAN_INVALID',
      `${file}: not a usable rollout plan:\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
  }
}

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How a plan names a site's change. */
type Change = 'added' | 'changed' | 'removed';

/**
 * The Rollout spec of a plan.
 * @param file how messages name the plan
 * @throws PlanInvalidError listing every problem
 */
export function specFromPlan(file: string, plan: unknown, target: Target): RolloutSpec {
  if (!isMap(plan))
    throw new PlanInvalidError(file, ['expected a JSON object (siteforge rollout plan --json)']);
  const problems: string[] = [];
  const changes = new Map<string, Change>();
  const sites = plan['sites'];
  if (Array.isArray(sites))
    for (const s of sites)
      if (isMap(s) && typeof s['name'] === 'string' && isChange(s['change']))
        changes.set(s['name'], s['change']);

  const waves: WaveSpec[] = [];
  const rawWaves = plan['waves'];
  if (!Array.isArray(rawWaves)) problems.push('waves: expected a list');
  else
    rawWaves.forEach((w, i) => {
      if (!isMap(w)) {
        problems.push(`waves[${String(i)}]: expected an object`);
        return;
      }
      const names: string[] = [];
      const rawSites = Array.isArray(w['sites']) ? w['sites'] : [];
      for (const s of rawSites) {
        if (typeof s === 'string') names.push(s);
        else if (isMap(s) && typeof s['name'] === 'string') {
          names.push(s['name']);
          if (isChange(s['change'])) changes.set(s['name'], s['change']);
        } else problems.push(`waves[${String(i)}].sites: expected site names`);
      }
      waves.push({
        name: typeof w['name'] === 'string' ? w['name'] : `wave-${String(i)}`,
        sites: names,
        added: names.filter((n) => (changes.get(n) ?? 'added') === 'added'),
        removed: names.filter((n) => changes.get(n) === 'removed'),
        gate: gateOf(w['gate']),
        ...(typeof w['maxInFlight'] === 'number' && { maxInFlight: w['maxInFlight'] }),
        ...(typeof w['sitesPerHour'] === 'number' && { sitesPerHour: w['sitesPerHour'] }),
      });
    });
  // `added` was defaulted before every change was known: settle it now.
  const settled = waves.map((w) => ({
    ...w,
    added: w.sites.filter((n) => (changes.get(n) ?? 'added') === 'added'),
    removed: w.sites.filter((n) => changes.get(n) === 'removed'),
  }));
  const revision = (key: string): Json => {
    const v = plan[key];
    if (isMap(v)) return { revision: v['revision'], commit: v['commit'] };
    problems.push(`${key}: expected {revision, commit}`);
    return {};
  };
  const pacing = plan['pacing'];
  const raw = {
    planVersion:
      typeof plan['version'] === 'string' || typeof plan['version'] === 'number'
        ? String(plan['version'])
        : '',
    from: revision('from'),
    to: revision('to'),
    target,
    ...(typeof plan['maxInFlight'] === 'number' && { maxInFlight: plan['maxInFlight'] }),
    ...(isMap(pacing) &&
      typeof pacing['sitesPerHour'] === 'number' && {
        pacing: { sitesPerHour: pacing['sitesPerHour'] },
      }),
    waves: settled,
  };
  if (problems.length > 0) throw new PlanInvalidError(file, problems);
  try {
    return readRolloutSpec(file, raw);
  } catch (err) {
    if (err instanceof RolloutInvalidError) throw new PlanInvalidError(file, err.problems);
    throw err;
  }
}

function isChange(v: unknown): v is Change {
  return v === 'added' || v === 'changed' || v === 'removed';
}

/** A plan's gate: `minInstalled` as a fraction (0.9) or `minInstalledPercent` (90). */
function gateOf(raw: unknown): Gate {
  if (!isMap(raw)) return DEFAULT_GATE;
  const fraction = raw['minInstalled'] ?? raw['minInstalledFraction'];
  const percent =
    typeof raw['minInstalledPercent'] === 'number'
      ? raw['minInstalledPercent']
      : typeof fraction === 'number'
        ? Math.round(fraction * 100)
        : DEFAULT_GATE.minInstalledPercent;
  return {
    minInstalledPercent: percent,
    maxFailures:
      typeof raw['maxFailures'] === 'number' ? raw['maxFailures'] : DEFAULT_GATE.maxFailures,
    timeoutSeconds:
      typeof raw['timeoutSeconds'] === 'number'
        ? raw['timeoutSeconds']
        : DEFAULT_GATE.timeoutSeconds,
  };
}
