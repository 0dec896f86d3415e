/**
 * The rollout policy: how `siteforge rollout plan` groups the sites a change touches into waves.
 * One YAML document, `apiVersion: siteforge.io/v1alpha1`, `kind: RolloutPolicy`, kept in the
 * sites repository (by default `rollout-policy.yaml` in the folder of the site files) so a
 * change to it is reviewed like any other:
 *
 * ```yaml
 * apiVersion: siteforge.io/v1alpha1
 * kind: RolloutPolicy
 * spec:
 *   canary:                       # the first wave: these sites, if the change touches them
 *     sites: [sno-00001, lab-*]   # cluster or SiteConfig names, globs as the sites parameter
 *     selector: {matchLabels: {canary: "true"}}
 *   waves:                        # then, in order; a site goes to the first wave that selects it
 *     - name: east
 *       selector: {matchLabels: {region: us-east}}
 *       groupBy: [rack]           # one wave per rack
 *     - name: rest                # no sites and no selector: every site left
 *       groupBy: [region]
 *   maxSitesPerWave: 500
 *   pacing: {sitesPerHour: 500, maxInFlight: 500}
 *   gate: {minInstalled: 95%, maxFailures: 5, timeout: 3h}
 *   removals: {placement: last, maxFleetShare: 10%}
 * ```
 *
 * Every problem of the file is reported at once, at its `file:line:column`, with a hint.
 */
import { SiteForgeError, compareIssues, formatIssue, quote } from '../../shared/errors.js';
import type { InputIssue } from '../../shared/errors.js';
import { defaultLimits } from '../../shared/limits.js';
import type { Limits } from '../../shared/limits.js';
import { locate, parseYamlFile } from '../../shared/source-yaml.js';
import type { SourcePos } from '../../shared/source-yaml.js';
import { globProblem } from '../argocd/parameters.js';

export const POLICY_API_VERSION = 'siteforge.io/v1alpha1';
export const POLICY_KIND = 'RolloutPolicy';
/** Where the policy is looked for, in the folder of the site files, when none is named. */
export const DEFAULT_POLICY_FILE = 'rollout-policy.yaml';

/** What a wave must reach before the next one starts. */
export interface Gate {
  /** Sites of the wave that must succeed (installed; removed, for a removal wave), in percent. */
  readonly minSucceededPercent: number;
  /** Failed sites the wave tolerates; one more stops the rollout. */
  readonly maxFailures: number;
  /** Seconds the wave has to pass its gate, counted from the release of its last site. */
  readonly timeoutSeconds: number;
}

/** How fast a wave's sites are released. */
export interface Pacing {
  /** Sites released per hour, at most. */
  readonly sitesPerHour: number;
  /** Sites installing (or being removed) at once, at most. */
  readonly maxInFlight: number;
}

/** A Kubernetes label selector over a cluster's labels. */
export interface LabelSelector {
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly matchExpressions: readonly {
    readonly key: string;
    readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    readonly values: readonly string[];
  }[];
}

/** Which sites a rule takes: by name (globs) or by labels; a site matching either is taken. */
export interface SiteMatch {
  readonly sites: readonly string[];
  readonly selector?: LabelSelector;
}

/** One entry of `spec.waves`. */
export interface WaveRule {
  readonly name: string;
  /** Undefined: every site left. */
  readonly match?: SiteMatch;
  /** Labels whose values split the rule's sites into waves of their own, in order. */
  readonly groupBy: readonly string[];
  /** Values of the first `groupBy` label whose waves come first, in this order. */
  readonly order: readonly string[];
  readonly maxSites: number;
  readonly gate: Gate;
  readonly pacing: Pacing;
}

/** The canary wave. */
export interface CanaryRule {
  readonly match: SiteMatch;
  readonly maxSites: number;
  readonly gate: Gate;
  readonly pacing: Pacing;
}

/** What becomes of removed sites. */
export interface RemovalRule {
  /** `last`: waves of their own after every other wave; `hold`: held out of the plan. */
  readonly placement: 'last' | 'hold';
  readonly maxSites: number;
  /**
   * More removals than this share of the fleet (at the base revision) are held, whatever the
   * placement: a deleted folder must not plan the deletion of a region.
   */
  readonly maxFleetShare: number;
  readonly gate: Gate;
  readonly pacing: Pacing;
}

/** A checked policy, with every default filled in. */
export interface RolloutPolicy {
  /** Where it was read (`<revision>:<path>` or a path), or `defaults`. */
  readonly source: string;
  readonly canary?: CanaryRule;
  readonly waves: readonly WaveRule[];
  readonly maxSitesPerWave: number;
  readonly gate: Gate;
  readonly pacing: Pacing;
  readonly removals: RemovalRule;
}

/**
 * The hub's published pace: batches of at most 500 sites, 500 per hour (the ACM scale tests);
 * the gate tolerates a few failed installs per wave and gives the last site of a wave three hours
 * (an assisted install takes about an hour and a quarter; installs normally finish within two).
 */
export const DEFAULTS = {
  maxSitesPerWave: 500,
  pacing: { sitesPerHour: 500, maxInFlight: 500 },
  gate: { minSucceededPercent: 95, maxFailures: 5, timeoutSeconds: 3 * 3600 },
  /** Canaries must all install. */
  canaryGate: { minSucceededPercent: 100, maxFailures: 0 },
  removals: { placement: 'last', maxFleetShare: 10 },
} as const;

/** Names the plan gives its own waves; a wave rule cannot take them. */
export const RESERVED_WAVE_NAMES: readonly string[] = ['canary', 'removals', 'renamed'];

/** A wave rule's name: a DNS label short enough for the suffixes the plan adds. */
const WAVE_NAME = /^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/;
/** A label key: an optional DNS prefix and `/`, then a name (Kubernetes' rules, loosely). */
const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
/** A Go duration made of hours, minutes and seconds. */
const DURATION = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
/** The longest gate timeout: a week. */
const MAX_TIMEOUT_SECONDS = 7 * 24 * 3600;
/** The largest count a policy may give (sites per wave, per hour, in flight, failures). */
const MAX_COUNT = 1_000_000;

/** The policy file is invalid; `issues` holds every problem found. */
export class RolloutPolicyError extends SiteForgeError {
  constructor(readonly issues: readonly InputIssue[]) {
    const sorted = [...issues].sort(compareIssues);
    super(
      'ROLLOUT_POLICY_INVALID',
      `the rollout policy is invalid (${String(sorted.length)} error(s)):\n${sorted.map(formatIssue).join('\n')}`,
    );
  }
}

/** The policy of a run that names none: every default, no canary, one rule for every site. */
export function defaultPolicy(source = 'defaults'): RolloutPolicy {
  return {
    source,
    waves: [
      {
        name: 'sites',
        groupBy: [],
        order: [],
        maxSites: DEFAULTS.maxSitesPerWave,
        gate: DEFAULTS.gate,
        pacing: DEFAULTS.pacing,
      },
    ],
    maxSitesPerWave: DEFAULTS.maxSitesPerWave,
    gate: DEFAULTS.gate,
    pacing: DEFAULTS.pacing,
    removals: {
      placement: DEFAULTS.removals.placement,
      maxSites: DEFAULTS.maxSitesPerWave,
      maxFleetShare: DEFAULTS.removals.maxFleetShare,
      gate: DEFAULTS.gate,
      pacing: DEFAULTS.pacing,
    },
  };
}

const HINT = {
  shape: `a rollout policy is one YAML document: apiVersion: ${POLICY_API_VERSION}, kind: ${POLICY_KIND}, spec: {...} (docs/rollout.md)`,
  count: 'give a whole number',
  percent: 'give a percentage such as 95% (or a fraction such as 0.95)',
  duration: 'give a duration such as 90m, 3h or 1h30m',
  glob: 'cluster or SiteConfig names, with globs as the Argo CD sites parameter takes them (*, ?, [a-z], {a,b})',
  selector:
    'a Kubernetes label selector: matchLabels: {key: value} and/or matchExpressions: [{key, operator: In|NotIn|Exists|DoesNotExist, values: [...]}]',
} as const;

type Path = readonly (string | number)[];

/** Collects the problems of one policy document at their positions. */
class PolicyChecker {
  readonly issues: InputIssue[] = [];

  constructor(
    private readonly file: string,
    private readonly root: unknown,
    private readonly rootPos: SourcePos,
  ) {}

  error(
    path: Path,
    code: string,
    message: string,
    hint: string,
    at: 'key' | 'value' = 'value',
  ): void {
    const { line, column } = locate(this.root, this.rootPos, path, at);
    this.issues.push({
      severity: 'error',
      code,
      message,
      hint,
      file: this.file,
      line,
      column,
      path: `/${path.join('/')}`,
    });
  }

  /** The map at `path`, whatever its keys; undefined (and reported) when not a map. */
  anyMap(value: unknown, path: Path): Record<string, unknown> | undefined {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.error(
        path,
        'POLICY_TYPE',
        `${describe(path)} must be a map, not ${quote(value)}`,
        HINT.shape,
      );
      return undefined;
    }
    return value as Record<string, unknown>;
  }

  /** The map at `path`, its unknown keys reported; undefined (and reported) when not a map. */
  map(value: unknown, path: Path, known: readonly string[]): Record<string, unknown> | undefined {
    const map = this.anyMap(value, path);
    if (!map) return undefined;
    for (const key of Object.keys(map)) {
      if (known.includes(key)) continue;
      const near = nearest(key, known);
      this.error(
        [...path, key],
        'POLICY_UNKNOWN_FIELD',
        `unknown field ${quote(key)} in ${describe(path)}`,
        near
          ? `did you mean ${near}? (fields: ${known.join(', ')})`
          : `fields: ${known.join(', ')}`,
        'key',
      );
    }
    return map;
  }

  list(value: unknown, path: Path): unknown[] | undefined {
    if (Array.isArray(value)) return value as unknown[];
    this.error(
      path,
      'POLICY_TYPE',
      `${describe(path)} must be a list, not ${quote(value)}`,
      HINT.shape,
    );
    return undefined;
  }

  strings(value: unknown, path: Path): string[] | undefined {
    const list = this.list(value, path);
    if (!list) return undefined;
    const out: string[] = [];
    list.forEach((item, i) => {
      if (typeof item === 'string' && item !== '') out.push(item);
      else
        this.error(
          [...path, i],
          'POLICY_TYPE',
          `${describe([...path, i])} must be a non-empty string, not ${quote(item)}`,
          HINT.shape,
        );
    });
    return out.length === list.length ? out : undefined;
  }

  count(value: unknown, path: Path, min: number): number | undefined {
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= MAX_COUNT)
      return value;
    this.error(
      path,
      'POLICY_VALUE',
      `${describe(path)} must be a whole number from ${String(min)} to ${String(MAX_COUNT)}, not ${quote(value)}`,
      HINT.count,
    );
    return undefined;
  }

  percent(value: unknown, path: Path): number | undefined {
    let percent: number | undefined;
    if (typeof value === 'string' && /^\d{1,3}%$/.test(value.trim()))
      percent = Number(value.trim().slice(0, -1));
    else if (typeof value === 'number' && value >= 0 && value <= 1) percent = value * 100;
    if (percent !== undefined && Math.abs(percent - Math.round(percent)) < 1e-9 && percent <= 100)
      return Math.round(percent);
    this.error(
      path,
      'POLICY_VALUE',
      `${describe(path)} must be a whole percentage from 0% to 100%, not ${quote(value)}`,
      HINT.percent,
    );
    return undefined;
  }

  duration(value: unknown, path: Path): number | undefined {
    const match = typeof value === 'string' && value !== '' ? DURATION.exec(value.trim()) : null;
    if (match) {
      const seconds =
        Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
      if (seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS) return seconds;
    }
    this.error(
      path,
      'POLICY_VALUE',
      `${describe(path)} must be a duration from 1s to 168h, not ${quote(value)}`,
      HINT.duration,
    );
    return undefined;
  }
}

/** `spec.waves[1].gate`: how messages name a place in the policy. */
function describe(path: Path): string {
  if (path.length === 0) return 'the document';
  return path
    .map((p, i) => (typeof p === 'number' ? `[${String(p)}]` : i === 0 ? p : `.${p}`))
    .join('');
}

/** The known name closest to `key` (a typo), if any is close. */
function nearest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const candidate of known) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3 || a.length > 64 || b.length > 64) return 99;
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next.push(
        Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)),
      );
    row = next;
  }
  return row[b.length]!;
}

/**
 * Parses and checks a policy file.
 * @param file how messages name it
 * @throws RolloutPolicyError listing every problem
 */
export function parseRolloutPolicy(
  file: string,
  text: string,
  limits: Limits = defaultLimits,
): RolloutPolicy {
  const parsed = parseYamlFile(file, text, { limits });
  const syntax: InputIssue[] = parsed.errors.map((e) => ({
    severity: 'error',
    code: e.code,
    message: e.message,
    hint: e.hint ?? 'fix the YAML syntax at this position',
    file,
    line: e.pos.line,
    column: e.pos.column,
    path: '/',
  }));
  if (syntax.length > 0) throw new RolloutPolicyError(syntax);
  const documents = parsed.documents.filter((d) => d.value !== null && d.value !== undefined);
  const doc = documents[0];
  if (doc === undefined || documents.length > 1) {
    const pos = documents[1]?.pos ?? { line: 1, column: 1 };
    throw new RolloutPolicyError([
      {
        severity: 'error',
        code: 'POLICY_DOCUMENTS',
        message:
          doc === undefined
            ? 'the file holds no rollout policy'
            : 'the file holds more than one YAML document; a rollout policy is one',
        hint: HINT.shape,
        file,
        line: pos.line,
        column: pos.column,
        path: '/',
      },
    ]);
  }
  const check = new PolicyChecker(file, doc.value, doc.pos);
  const policy = readPolicy(check, doc.value, file);
  if (check.issues.length > 0 || !policy) throw new RolloutPolicyError(check.issues);
  return policy;
}

function readPolicy(
  check: PolicyChecker,
  value: unknown,
  source: string,
): RolloutPolicy | undefined {
  const top = check.map(value, [], ['apiVersion', 'kind', 'metadata', 'spec']);
  if (!top) return undefined;
  if (top['apiVersion'] !== POLICY_API_VERSION)
    check.error(
      ['apiVersion'],
      'POLICY_API_VERSION',
      `apiVersion must be ${POLICY_API_VERSION}, not ${quote(top['apiVersion'])}`,
      HINT.shape,
    );
  if (top['kind'] !== POLICY_KIND)
    check.error(
      ['kind'],
      'POLICY_KIND',
      `kind must be ${POLICY_KIND}, not ${quote(top['kind'])}`,
      HINT.shape,
    );
  if (top['metadata'] !== undefined)
    check.map(top['metadata'], ['metadata'], ['name', 'labels', 'annotations']);
  if (top['spec'] === undefined) {
    check.error([], 'POLICY_SPEC', 'the policy has no spec', HINT.shape);
    return undefined;
  }
  const spec = check.map(
    top['spec'],
    ['spec'],
    ['canary', 'waves', 'maxSitesPerWave', 'pacing', 'gate', 'removals'],
  );
  if (!spec) return undefined;
  const at = (key: string): Path => ['spec', key];
  const maxSitesPerWave =
    spec['maxSitesPerWave'] === undefined
      ? DEFAULTS.maxSitesPerWave
      : (check.count(spec['maxSitesPerWave'], at('maxSitesPerWave'), 1) ??
        DEFAULTS.maxSitesPerWave);
  const gate = readGate(check, spec['gate'], at('gate'), DEFAULTS.gate);
  const pacing = readPacing(check, spec['pacing'], at('pacing'), DEFAULTS.pacing);
  const canary =
    spec['canary'] === undefined
      ? undefined
      : readCanary(check, spec['canary'], at('canary'), maxSitesPerWave, gate, pacing);
  const waves =
    spec['waves'] === undefined
      ? defaultPolicy().waves.map((w) => ({ ...w, maxSites: maxSitesPerWave, gate, pacing }))
      : readWaves(check, spec['waves'], at('waves'), maxSitesPerWave, gate, pacing);
  const removals = readRemovals(
    check,
    spec['removals'],
    at('removals'),
    maxSitesPerWave,
    gate,
    pacing,
  );
  return {
    source,
    ...(canary ? { canary } : {}),
    waves,
    maxSitesPerWave,
    gate,
    pacing,
    removals,
  };
}

function readGate(check: PolicyChecker, value: unknown, path: Path, base: Gate): Gate {
  if (value === undefined) return base;
  const map = check.map(value, path, ['minInstalled', 'maxFailures', 'timeout']);
  if (!map) return base;
  return {
    minSucceededPercent:
      map['minInstalled'] === undefined
        ? base.minSucceededPercent
        : (check.percent(map['minInstalled'], [...path, 'minInstalled']) ??
          base.minSucceededPercent),
    maxFailures:
      map['maxFailures'] === undefined
        ? base.maxFailures
        : (check.count(map['maxFailures'], [...path, 'maxFailures'], 0) ?? base.maxFailures),
    timeoutSeconds:
      map['timeout'] === undefined
        ? base.timeoutSeconds
        : (check.duration(map['timeout'], [...path, 'timeout']) ?? base.timeoutSeconds),
  };
}

function readPacing(check: PolicyChecker, value: unknown, path: Path, base: Pacing): Pacing {
  if (value === undefined) return base;
  const map = check.map(value, path, ['sitesPerHour', 'maxInFlight']);
  if (!map) return base;
  return {
    sitesPerHour:
      map['sitesPerHour'] === undefined
        ? base.sitesPerHour
        : (check.count(map['sitesPerHour'], [...path, 'sitesPerHour'], 1) ?? base.sitesPerHour),
    maxInFlight:
      map['maxInFlight'] === undefined
        ? base.maxInFlight
        : (check.count(map['maxInFlight'], [...path, 'maxInFlight'], 1) ?? base.maxInFlight),
  };
}

/** `sites` and `selector` of a rule; undefined when it has neither (every site). */
function readMatch(
  check: PolicyChecker,
  map: Record<string, unknown>,
  path: Path,
): SiteMatch | undefined {
  const sites =
    map['sites'] === undefined ? [] : (check.strings(map['sites'], [...path, 'sites']) ?? []);
  sites.forEach((pattern, i) => {
    const problem = globProblem(pattern);
    if (problem)
      check.error(
        [...path, 'sites', i],
        'POLICY_SITE_PATTERN',
        `site pattern ${quote(pattern)} ${problem}`,
        HINT.glob,
      );
  });
  const selector =
    map['selector'] === undefined
      ? undefined
      : readSelector(check, map['selector'], [...path, 'selector']);
  if (sites.length === 0 && !selector) return undefined;
  return { sites, ...(selector ? { selector } : {}) };
}

function readSelector(check: PolicyChecker, value: unknown, path: Path): LabelSelector | undefined {
  const map = check.map(value, path, ['matchLabels', 'matchExpressions']);
  if (!map) return undefined;
  const matchLabels: Record<string, string> = {};
  if (map['matchLabels'] !== undefined) {
    const labels = check.anyMap(map['matchLabels'], [...path, 'matchLabels']);
    for (const [key, v] of Object.entries(labels ?? {})) {
      if (!LABEL_KEY.test(key))
        check.error(
          [...path, 'matchLabels', key],
          'POLICY_LABEL',
          `${quote(key)} is not a label key`,
          HINT.selector,
          'key',
        );
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
        matchLabels[key] = String(v);
      else
        check.error(
          [...path, 'matchLabels', key],
          'POLICY_TYPE',
          `the value of label ${quote(key)} must be a string, not ${quote(v)}`,
          HINT.selector,
        );
    }
  }
  const matchExpressions: LabelSelector['matchExpressions'][number][] = [];
  if (map['matchExpressions'] !== undefined) {
    const list = check.list(map['matchExpressions'], [...path, 'matchExpressions']) ?? [];
    list.forEach((item, i) => {
      const at = [...path, 'matchExpressions', i];
      const e = check.map(item, at, ['key', 'operator', 'values']);
      if (!e) return;
      const key = e['key'];
      if (typeof key !== 'string' || !LABEL_KEY.test(key)) {
        check.error(
          [...at, 'key'],
          'POLICY_LABEL',
          `key must be a label key, not ${quote(key)}`,
          HINT.selector,
        );
        return;
      }
      const operator = e['operator'];
      if (
        operator !== 'In' &&
        operator !== 'NotIn' &&
        operator !== 'Exists' &&
        operator !== 'DoesNotExist'
      ) {
        check.error(
          [...at, 'operator'],
          'POLICY_VALUE',
          `operator must be In, NotIn, Exists or DoesNotExist, not ${quote(operator)}`,
          HINT.selector,
        );
        return;
      }
      const needsValues = operator === 'In' || operator === 'NotIn';
      const values =
        e['values'] === undefined ? [] : (check.strings(e['values'], [...at, 'values']) ?? []);
      if (needsValues && values.length === 0)
        check.error(at, 'POLICY_VALUE', `operator ${operator} needs values`, HINT.selector);
      if (!needsValues && values.length > 0)
        check.error(
          [...at, 'values'],
          'POLICY_VALUE',
          `operator ${operator} takes no values`,
          HINT.selector,
        );
      matchExpressions.push({ key, operator, values });
    });
  }
  if (Object.keys(matchLabels).length === 0 && matchExpressions.length === 0) {
    check.error(
      path,
      'POLICY_SELECTOR_EMPTY',
      'the selector selects nothing in particular',
      `${HINT.selector}; leave selector out to take every site`,
    );
    return undefined;
  }
  return { matchLabels, matchExpressions };
}

function readCanary(
  check: PolicyChecker,
  value: unknown,
  path: Path,
  maxSitesPerWave: number,
  gate: Gate,
  pacing: Pacing,
): CanaryRule | undefined {
  const map = check.map(value, path, ['sites', 'selector', 'maxSites', 'gate', 'pacing']);
  if (!map) return undefined;
  const match = readMatch(check, map, path);
  if (!match) {
    check.error(
      path,
      'POLICY_CANARY_EMPTY',
      'the canary names no sites and no selector',
      'give sites: [names or globs] and/or selector: {matchLabels: {...}}, or leave canary out',
    );
    return undefined;
  }
  const canaryGate: Gate = { ...gate, ...DEFAULTS.canaryGate };
  return {
    match,
    maxSites:
      map['maxSites'] === undefined
        ? maxSitesPerWave
        : (check.count(map['maxSites'], [...path, 'maxSites'], 1) ?? maxSitesPerWave),
    gate: readGate(check, map['gate'], [...path, 'gate'], canaryGate),
    pacing: readPacing(check, map['pacing'], [...path, 'pacing'], pacing),
  };
}

function readWaves(
  check: PolicyChecker,
  value: unknown,
  path: Path,
  maxSitesPerWave: number,
  gate: Gate,
  pacing: Pacing,
): WaveRule[] {
  const list = check.list(value, path) ?? [];
  if (list.length === 0 && Array.isArray(value))
    check.error(
      path,
      'POLICY_VALUE',
      'spec.waves is empty',
      'list at least one wave, or leave waves out for one wave rule that takes every site',
    );
  const rules: WaveRule[] = [];
  const seen = new Map<string, number>();
  list.forEach((item, i) => {
    const at = [...path, i];
    const map = check.map(item, at, [
      'name',
      'sites',
      'selector',
      'groupBy',
      'order',
      'maxSites',
      'gate',
      'pacing',
    ]);
    if (!map) return;
    const rawName = map['name'];
    if (typeof rawName !== 'string' || !WAVE_NAME.test(rawName)) {
      check.error(
        rawName === undefined ? at : [...at, 'name'],
        'POLICY_WAVE_NAME',
        rawName === undefined
          ? 'the wave has no name'
          : `wave name ${quote(rawName)} is not a lower-case DNS label of at most 40 characters`,
        'name it with lower-case letters, digits and "-", e.g. east-racks',
      );
    }
    const name = typeof rawName === 'string' ? rawName : `waves-${String(i)}`;
    if (RESERVED_WAVE_NAMES.includes(name))
      check.error(
        [...at, 'name'],
        'POLICY_WAVE_NAME',
        `wave name ${quote(name)} is reserved for the plan's own waves`,
        `pick another name; ${RESERVED_WAVE_NAMES.join(', ')} are reserved`,
      );
    if (seen.has(name))
      check.error(
        [...at, 'name'],
        'POLICY_WAVE_NAME',
        `wave name ${quote(name)} is also the name of spec.waves[${String(seen.get(name))}]`,
        'give every wave its own name',
      );
    seen.set(name, i);
    const groupBy =
      map['groupBy'] === undefined ? [] : (check.strings(map['groupBy'], [...at, 'groupBy']) ?? []);
    groupBy.forEach((key, j) => {
      if (!LABEL_KEY.test(key))
        check.error(
          [...at, 'groupBy', j],
          'POLICY_LABEL',
          `${quote(key)} is not a label key`,
          'name cluster labels (clusterLabels of the SiteConfig), e.g. region or rack',
        );
    });
    const order =
      map['order'] === undefined ? [] : (check.strings(map['order'], [...at, 'order']) ?? []);
    if (order.length > 0 && groupBy.length === 0)
      check.error(
        [...at, 'order'],
        'POLICY_VALUE',
        'order needs groupBy: it orders the values of the first groupBy label',
        'add groupBy: [label], or remove order',
      );
    const match = readMatch(check, map, at);
    if (!match && i < list.length - 1)
      check.error(
        at,
        'POLICY_WAVE_UNREACHABLE',
        `wave ${quote(name)} takes every site left, so the waves after it get none`,
        'give it sites or a selector, or move it last',
      );
    rules.push({
      name,
      ...(match ? { match } : {}),
      groupBy,
      order,
      maxSites:
        map['maxSites'] === undefined
          ? maxSitesPerWave
          : (check.count(map['maxSites'], [...at, 'maxSites'], 1) ?? maxSitesPerWave),
      gate: readGate(check, map['gate'], [...at, 'gate'], gate),
      pacing: readPacing(check, map['pacing'], [...at, 'pacing'], pacing),
    });
  });
  return rules;
}

function readRemovals(
  check: PolicyChecker,
  value: unknown,
  path: Path,
  maxSitesPerWave: number,
  gate: Gate,
  pacing: Pacing,
): RemovalRule {
  const base: RemovalRule = {
    placement: DEFAULTS.removals.placement,
    maxSites: maxSitesPerWave,
    maxFleetShare: DEFAULTS.removals.maxFleetShare,
    gate,
    pacing,
  };
  if (value === undefined) return base;
  const map = check.map(value, path, ['placement', 'maxSites', 'maxFleetShare', 'gate', 'pacing']);
  if (!map) return base;
  const placement = map['placement'] ?? base.placement;
  if (placement !== 'last' && placement !== 'hold')
    check.error(
      [...path, 'placement'],
      'POLICY_VALUE',
      `placement must be last or hold, not ${quote(placement)}`,
      'last: removal waves after every other wave; hold: removals stay out of the plan',
    );
  return {
    placement: placement === 'hold' ? 'hold' : 'last',
    maxSites:
      map['maxSites'] === undefined
        ? maxSitesPerWave
        : (check.count(map['maxSites'], [...path, 'maxSites'], 1) ?? maxSitesPerWave),
    maxFleetShare:
      map['maxFleetShare'] === undefined
        ? base.maxFleetShare
        : (check.percent(map['maxFleetShare'], [...path, 'maxFleetShare']) ?? base.maxFleetShare),
    gate: readGate(check, map['gate'], [...path, 'gate'], gate),
    pacing: readPacing(check, map['pacing'], [...path, 'pacing'], pacing),
  };
}
