/**
 * A rollout plan (`siteforge rollout plan --json`, apiVersion siteforge.io/v1alpha1, kind
 * RolloutPlan) turned into the spec of a Rollout: its waves with their sites in order, which of
 * them are added and which removed (a removal wave's sites, and any site the plan says is
 * removed), each wave's gate and pacing, and the target the runner was told to use. Sites the
 * plan holds out of its waves are not in the spec: the runner never touches them. The plan is
 * untrusted input; every problem is reported with its place in the file.
 */
import { SiteForgeError } from '../shared/errors.js';
import type { Gate, RolloutSpec, SiteSource, Target } from './rollout-resource.js';
import { DEFAULT_GATE, readRolloutSpec, RolloutInvalidError } from './rollout-resource.js';

/** The plan format this runner reads. */
export const PLAN_API_VERSION = 'siteforge.io/v1alpha1';
export const PLAN_KIND = 'RolloutPlan';

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

/** What the spec of a plan leaves out, for the user to know. */
export interface PlanNotes {
  /** Sites the plan holds out of its waves, with why. */
  readonly held: readonly { readonly name: string; readonly message: string }[];
}

/**
 * The Rollout spec of a plan.
 * @param file how messages name the plan
 * @throws PlanInvalidError listing every problem
 */
export function specFromPlan(
  file: string,
  plan: unknown,
  target: Target,
): { spec: RolloutSpec; notes: PlanNotes } {
  if (!isMap(plan))
    throw new PlanInvalidError(file, ['expected a JSON object (siteforge rollout plan --json)']);
  if (plan['apiVersion'] !== PLAN_API_VERSION || plan['kind'] !== PLAN_KIND)
    throw new PlanInvalidError(file, [
      `apiVersion ${JSON.stringify(plan['apiVersion'])}, kind ${JSON.stringify(plan['kind'])}: expected a ${PLAN_KIND} of ${PLAN_API_VERSION}, as siteforge rollout plan --json writes it`,
    ]);
  const problems: string[] = [];
  const change = new Map<string, unknown>();
  const sources: Record<string, SiteSource> = {};
  const held: { name: string; message: string }[] = [];
  const sites = Array.isArray(plan['sites']) ? plan['sites'] : [];
  sites.forEach((s, i) => {
    if (!isMap(s) || typeof s['name'] !== 'string') {
      problems.push(`sites[${String(i)}]: expected a site with a name`);
      return;
    }
    change.set(s['name'], s['change']);
    sources[s['name']] = {
      ...(typeof s['site'] === 'string' && { siteConfig: s['site'] }),
      ...(typeof s['file'] === 'string' && { file: s['file'] }),
    };
    const h = s['held'];
    if (isMap(h)) held.push({ name: s['name'], message: text(h['message']) });
  });

  const rawWaves = plan['waves'];
  if (!Array.isArray(rawWaves)) problems.push('waves: expected a list');
  const waves = (Array.isArray(rawWaves) ? rawWaves : []).map((w, i): Json => {
    if (!isMap(w)) {
      problems.push(`waves[${String(i)}]: expected an object`);
      return {};
    }
    const names = Array.isArray(w['sites'])
      ? w['sites'].filter((s): s is string => typeof s === 'string')
      : [];
    const removal = w['action'] === 'remove';
    const pacing = isMap(w['pacing']) ? w['pacing'] : {};
    return {
      name: w['name'],
      sites: w['sites'],
      added: removal ? [] : names.filter((n) => change.get(n) === 'added'),
      removed: removal ? names : names.filter((n) => change.get(n) === 'removed'),
      gate: gateOf(w['gate']),
      ...(pacing['maxInFlight'] !== undefined && { maxInFlight: pacing['maxInFlight'] }),
      ...(pacing['sitesPerHour'] !== undefined && { sitesPerHour: pacing['sitesPerHour'] }),
      ...(pacing['burst'] !== undefined && { burst: pacing['burst'] }),
    };
  });
  const inWaves = new Set<unknown>(
    waves.flatMap((w) => (Array.isArray(w['sites']) ? (w['sites'] as unknown[]) : [])),
  );
  const raw = {
    planVersion: `${PLAN_API_VERSION}/${PLAN_KIND}`,
    from: plan['from'],
    to: plan['to'],
    target,
    waves,
    sources: Object.fromEntries(Object.entries(sources).filter(([n]) => inWaves.has(n))),
  };
  if (problems.length > 0) throw new PlanInvalidError(file, problems);
  try {
    return { spec: readRolloutSpec(file, raw), notes: { held } };
  } catch (err) {
    if (err instanceof RolloutInvalidError) throw new PlanInvalidError(file, err.problems);
    throw err;
  }
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A plan's gate; absent fields take the defaults, wrong ones are caught by readRolloutSpec. */
function gateOf(raw: unknown): Partial<Record<keyof Gate, unknown>> {
  if (!isMap(raw)) return DEFAULT_GATE;
  return {
    minSucceededPercent: raw['minSucceededPercent'] ?? DEFAULT_GATE.minSucceededPercent,
    maxFailures: raw['maxFailures'] ?? DEFAULT_GATE.maxFailures,
    timeoutSeconds: raw['timeoutSeconds'] ?? DEFAULT_GATE.timeoutSeconds,
  };
}
