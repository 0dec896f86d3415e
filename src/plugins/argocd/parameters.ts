/**
 * The options of the Argo CD plugin, read from the build environment Argo CD gives every plugin
 * command: Application parameters (`ARGOCD_APP_PARAMETERS`, or the `PARAM_*` variables derived
 * from it) and Application env entries (`ARGOCD_ENV_*`). Every problem is collected, then
 * reported once; an unknown name is an error, so a typo never silently changes what is synced.
 */
import { UsageError } from '../../shared/errors.js';

/** What the plugin emits. */
export const OutputFormat = {
  /** The hub objects siteconfig-generator made (Namespace, AgentClusterInstall, ...). */
  Crs: 'crs',
  /** ClusterInstance objects for the SiteConfig operator, with what it does not render. */
  ClusterInstance: 'clusterinstance',
} as const;
export type OutputFormat = (typeof OutputFormat)[keyof typeof OutputFormat];

/** The plugin's options, after defaults. */
export interface CmpOptions {
  /** @default 'crs' */
  readonly format: OutputFormat;
  /** Site globs; `!glob` excludes. Empty selects every site. @default [] */
  readonly sites: readonly string[];
  /** Warnings (and patterns that match no site) fail the generation. @default false */
  readonly strict: boolean;
}

/** The names Applications may set, as parameters or as `ARGOCD_ENV_<NAME>`. */
export const ParameterName = { Format: 'format', Sites: 'sites', Strict: 'strict' } as const;
export type ParameterName = (typeof ParameterName)[keyof typeof ParameterName];

const NAMES: readonly ParameterName[] = Object.values(ParameterName);

/** The environment the plugin command runs in. */
export type BuildEnv = Readonly<Record<string, string | undefined>>;

/** One raw value and where it came from, for messages. */
interface RawValue {
  readonly source: string;
  readonly value: string | readonly string[];
}

/**
 * Reads the options from the build environment. Throws a UsageError that lists every problem:
 * unknown names, wrong shapes, bad values, and an option set both as parameter and as env.
 * Values of unknown variables are never echoed (they may hold secrets).
 */
export function readCmpOptions(env: BuildEnv): CmpOptions {
  const problems: string[] = [];
  const fromParams = readParameters(env, problems);
  const fromEnv = readEnvEntries(env, problems);
  const raw = new Map<ParameterName, RawValue>();
  for (const name of NAMES) {
    const param = fromParams.get(name);
    const entry = fromEnv.get(name);
    if (param && entry)
      problems.push(
        `"${name}" is set twice (${param.source} and ${entry.source}); set it in one place`,
      );
    const chosen = param ?? entry;
    if (chosen) raw.set(name, chosen);
  }
  const options = {
    format: parseFormat(raw.get('format'), problems),
    sites: parseSites(raw.get('sites'), problems),
    strict: parseStrict(raw.get('strict'), problems),
  };
  if (problems.length > 0) throw new UsageError(problems.join('\n  '));
  return options;
}

/**
 * `ARGOCD_APP_PARAMETERS` is the structured source Argo CD derives `PARAM_*` from; `PARAM_*`
 * alone is read only when it is absent (a command run by hand).
 */
function readParameters(env: BuildEnv, problems: string[]): Map<ParameterName, RawValue> {
  const json = env['ARGOCD_APP_PARAMETERS'];
  if (json !== undefined && json.trim() !== '') return readParametersJson(json, problems);
  return readParamVariables(env, problems);
}

function readParametersJson(json: string, problems: string[]): Map<ParameterName, RawValue> {
  const found = new Map<ParameterName, RawValue>();
  let list: unknown;
  try {
    list = JSON.parse(json);
  } catch {
    problems.push('ARGOCD_APP_PARAMETERS is not valid JSON');
    return found;
  }
  if (list === null) return found; // an Application without parameters
  if (!Array.isArray(list)) {
    problems.push('ARGOCD_APP_PARAMETERS must be a JSON array of parameters');
    return found;
  }
  for (const item of list as unknown[]) {
    const param = (item ?? {}) as Record<string, unknown>;
    const name = param['name'];
    if (typeof name !== 'string') {
      problems.push('a parameter has no name');
      continue;
    }
    if (!isKnown(name)) {
      problems.push(unknownName(`parameter "${name}"`));
      continue;
    }
    const source = `parameter "${name}"`;
    if (found.has(name)) {
      problems.push(`${source} is given more than once`);
      continue;
    }
    if (param['map'] !== undefined)
      problems.push(`${source} must be a string or an array, not a map`);
    else if (Array.isArray(param['array'])) {
      const items = param['array'] as unknown[];
      if (items.every((x) => typeof x === 'string')) found.set(name, { source, value: items });
      else problems.push(`${source}: every array item must be a string`);
    } else if (typeof param['string'] === 'string')
      found.set(name, { source, value: param['string'] });
    else if (param['string'] !== undefined || param['array'] !== undefined)
      problems.push(`${source} has a value of the wrong type`);
    // A parameter with no value at all is as good as unset.
  }
  return found;
}

function readParamVariables(env: BuildEnv, problems: string[]): Map<ParameterName, RawValue> {
  const found = new Map<ParameterName, RawValue>();
  const items = new Map<ParameterName, { index: number; value: string }[]>();
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('PARAM_') || value === undefined) continue;
    const rest = key.slice('PARAM_'.length);
    const item = /^([A-Z]+)_(\d+)$/.exec(rest);
    const name = (item ? item[1]! : rest).toLowerCase();
    if (!isKnown(name)) {
      problems.push(unknownName(key));
      continue;
    }
    if (item) {
      const list = items.get(name) ?? [];
      list.push({ index: Number(item[2]), value });
      items.set(name, list);
    } else found.set(name, { source: key, value });
  }
  for (const [name, list] of items) {
    const source = `PARAM_${name.toUpperCase()}_<i>`;
    if (found.has(name)) problems.push(`${source} and PARAM_${name.toUpperCase()} are both set`);
    else
      found.set(name, {
        source,
        value: list.sort((a, b) => a.index - b.index).map((x) => x.value),
      });
  }
  return found;
}

/** `ARGOCD_ENV_<NAME>`; an empty value counts as unset (Argo CD passes empty entries). */
function readEnvEntries(env: BuildEnv, problems: string[]): Map<ParameterName, RawValue> {
  const found = new Map<ParameterName, RawValue>();
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('ARGOCD_ENV_') || value === undefined) continue;
    const name = key.slice('ARGOCD_ENV_'.length).toLowerCase();
    if (!isKnown(name)) problems.push(unknownName(`env entry ${key.slice('ARGOCD_ENV_'.length)}`));
    else if (value.trim() !== '')
      found.set(name, { source: `env entry ${name.toUpperCase()}`, value });
  }
  return found;
}

function isKnown(name: string): name is ParameterName {
  return (NAMES as readonly string[]).includes(name);
}

function unknownName(what: string): string {
  return `unknown ${what}; SiteForge knows ${NAMES.join(', ')}`;
}

function single(raw: RawValue, problems: string[]): string | undefined {
  if (typeof raw.value === 'string') return raw.value.trim();
  problems.push(`${raw.source} must be a single string, not an array`);
  return undefined;
}

function parseFormat(raw: RawValue | undefined, problems: string[]): OutputFormat {
  if (!raw) return OutputFormat.Crs;
  const value = single(raw, problems);
  const formats: readonly string[] = Object.values(OutputFormat);
  if (value !== undefined && formats.includes(value)) return value as OutputFormat;
  if (value !== undefined)
    problems.push(`${raw.source}: format "${value}" is not one of ${formats.join(', ')}`);
  return OutputFormat.Crs;
}

function parseStrict(raw: RawValue | undefined, problems: string[]): boolean {
  if (!raw) return false;
  const value = single(raw, problems);
  if (value === 'true' || value === 'false') return value === 'true';
  if (value !== undefined) problems.push(`${raw.source}: strict must be "true" or "false"`);
  return false;
}

/** A string holds globs separated by commas or white space; an array holds one per item. */
function parseSites(raw: RawValue | undefined, problems: string[]): string[] {
  if (!raw) return [];
  const patterns =
    typeof raw.value === 'string' ? splitPatterns(raw.value) : raw.value.map((p) => p.trim());
  for (const pattern of patterns) {
    const problem = globProblem(pattern);
    if (problem)
      problems.push(
        `${raw.source}: "${pattern.length > 80 ? `${pattern.slice(0, 80)}...` : pattern}" ${problem}`,
      );
  }
  return patterns;
}

/** Splits at white space and at commas outside `{a,b}` alternatives. */
function splitPatterns(text: string): string[] {
  const patterns: string[] = [];
  let current = '';
  let depth = 0;
  for (const c of text) {
    if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
    if ((c === ',' && depth === 0) || /\s/.test(c)) {
      if (current !== '') patterns.push(current);
      current = '';
    } else current += c;
  }
  if (current !== '') patterns.push(current);
  return patterns;
}

/**
 * The longest site pattern: far above any name a cluster can have (a Kubernetes namespace name
 * has at most 63 characters), and it bounds what matching one name can cost.
 */
const MAX_PATTERN_LENGTH = 1024;

/** Why a site pattern is not usable, or undefined when it is. */
export function globProblem(pattern: string): string | undefined {
  const body = pattern.startsWith('!') ? pattern.slice(1) : pattern;
  if (body === '') return 'is empty';
  if (body.length > MAX_PATTERN_LENGTH)
    return `is longer than ${String(MAX_PATTERN_LENGTH)} characters; give long lists of sites as array items`;
  try {
    compileGlob(body);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : 'is not a valid pattern';
  }
}

/** A compiled site glob. */
export interface SiteGlob {
  /** True when the glob matches the whole name. */
  matches(name: string): boolean;
}

/**
 * One state of a glob's automaton: a character test that leads to `next`, a `*` (stays on any
 * character, or moves on to `next` without one), a choice between `{a,b}` alternatives, or the
 * end of the pattern.
 */
type GlobState =
  | { readonly kind: 'char'; readonly test: (c: string) => boolean; readonly next: number }
  | { readonly kind: 'star'; readonly next: number }
  | { readonly kind: 'split'; readonly next: readonly number[] }
  | { readonly kind: 'end' };

/** The parsed pattern: a sequence of atoms, `*`, and alternatives of such sequences. */
type GlobPart =
  | { readonly kind: 'char'; readonly test: (c: string) => boolean }
  | { readonly kind: 'star' }
  | { readonly kind: 'alternatives'; readonly options: readonly GlobPart[][] };

/**
 * Compiles a glob: `*` any run of characters, `?` one character, `[a-z]` and `[!0-9]` classes,
 * `{a,b}` alternatives (not nested). Site names hold no `/`, so `*` and `**` are the same.
 *
 * Matching runs the pattern as an automaton over the name, all its states at once, so it takes
 * time proportional to the name's length times the pattern's, whatever the pattern: `*a*a*a*b`
 * against a long name costs what a plain name does (a backtracking RegExp takes exponential
 * time there, and the patterns come from Applications).
 */
export function compileGlob(glob: string): SiteGlob {
  const states: GlobState[] = [{ kind: 'end' }];
  const add = (state: GlobState): number => states.push(state) - 1;
  /** Builds the states of `parts` (backwards), leading to `next`; returns the first state. */
  const build = (parts: readonly GlobPart[], next: number): number => {
    let entry = next;
    for (let i = parts.length - 1; i >= 0; i--) {
      const part = parts[i]!;
      if (part.kind === 'char') entry = add({ kind: 'char', test: part.test, next: entry });
      else if (part.kind === 'star') entry = add({ kind: 'star', next: entry });
      else {
        const target = entry;
        entry = add({ kind: 'split', next: part.options.map((o) => build(o, target)) });
      }
    }
    return entry;
  };
  const start = build(parseGlob(glob), 0);
  /** Adds `state` and every state reachable from it without reading a character. */
  const close = (state: number, into: Set<number>): void => {
    if (into.has(state)) return;
    into.add(state);
    const s = states[state]!;
    if (s.kind === 'star') close(s.next, into);
    else if (s.kind === 'split') for (const n of s.next) close(n, into);
  };
  return {
    matches: (name) => {
      let current = new Set<number>();
      close(start, current);
      for (const c of name) {
        const next = new Set<number>();
        for (const index of current) {
          const s = states[index]!;
          if (s.kind === 'star') close(index, next);
          else if (s.kind === 'char' && s.test(c)) close(s.next, next);
        }
        if (next.size === 0) return false;
        current = next;
      }
      return current.has(0);
    },
  };
}

/** Parses a glob into its parts; throws an Error saying what is wrong. */
function parseGlob(glob: string): GlobPart[] {
  const chars = Array.from(glob); // code points, as the names are matched
  const top: GlobPart[] = [];
  let options: GlobPart[][] | undefined;
  let current = top;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '*') {
      if (current[current.length - 1]?.kind !== 'star') current.push({ kind: 'star' });
    } else if (c === '?') current.push({ kind: 'char', test: () => true });
    else if (c === '[') {
      const end = chars.indexOf(']', i + 2);
      if (end < 0) throw new Error('has a "[" without a closing "]"');
      const negate = chars[i + 1] === '!' || chars[i + 1] === '^';
      const test = classTest(chars.slice(negate ? i + 2 : i + 1, end));
      current.push({ kind: 'char', test: negate ? (x) => !test(x) : test });
      i = end;
    } else if (c === '{') {
      if (options) throw new Error('nests "{"; alternatives cannot be nested');
      options = [[]];
      current = options[0]!;
    } else if (c === '}' && options) {
      top.push({ kind: 'alternatives', options });
      options = undefined;
      current = top;
    } else if (c === ',' && options) {
      current = [];
      options.push(current);
    } else current.push({ kind: 'char', test: (x) => x === c });
  }
  if (options) throw new Error('has a "{" without a closing "}"');
  return top;
}

/** The test of a class body such as `a-z0-9_`. */
function classTest(body: readonly string[]): (c: string) => boolean {
  const ranges: [number, number][] = [];
  for (let i = 0; i < body.length; i++) {
    const from = body[i]!.codePointAt(0)!;
    if (body[i + 1] === '-' && i + 2 < body.length) {
      ranges.push([from, body[i + 2]!.codePointAt(0)!]);
      i += 2;
    } else ranges.push([from, from]);
  }
  return (c) => {
    const code = c.codePointAt(0)!;
    return ranges.some(([lo, hi]) => code >= lo && code <= hi);
  };
}

/** Tracks which site patterns selected what, so unused patterns can be reported. */
export interface SiteSelection {
  /** True when the cluster (or its SiteConfig's metadata.name) is selected. */
  readonly select: (clusterName: string, siteName: string) => boolean;
  /** The include patterns that matched no site, in the order given. */
  readonly unmatched: () => string[];
}

/** A pattern without glob characters: it matches one name, itself. */
function isLiteral(pattern: string): boolean {
  return !/[*?[{]/.test(pattern);
}

/**
 * Builds the selection for `sites`: a cluster is kept when an include pattern matches its name
 * or its SiteConfig's name (or there are no include patterns) and no `!` pattern does. Plain
 * names are looked up, not matched: an Application listing its 1,000 sites by name (siteforge
 * argocd apps) costs one lookup per site, not 1,000 matches.
 */
export function siteSelection(patterns: readonly string[]): SiteSelection {
  const literalIncludes = new Set<string>();
  const literalExcludes = new Set<string>();
  const globIncludes: { pattern: string; glob: SiteGlob }[] = [];
  const globExcludes: SiteGlob[] = [];
  for (const p of patterns) {
    const exclude = p.startsWith('!');
    const body = exclude ? p.slice(1) : p;
    if (isLiteral(body)) (exclude ? literalExcludes : literalIncludes).add(body);
    else if (exclude) globExcludes.push(compileGlob(body));
    else globIncludes.push({ pattern: p, glob: compileGlob(body) });
  }
  const includes = patterns.filter((p) => !p.startsWith('!'));
  const used = new Set<string>();
  return {
    select: (clusterName, siteName) => {
      const hits = (glob: SiteGlob): boolean => glob.matches(clusterName) || glob.matches(siteName);
      let included = includes.length === 0;
      for (const name of [clusterName, siteName])
        if (literalIncludes.has(name)) {
          used.add(name);
          included = true;
        }
      for (const p of globIncludes)
        if (hits(p.glob)) {
          used.add(p.pattern);
          included = true;
        }
      if (!included) return false;
      if (literalExcludes.has(clusterName) || literalExcludes.has(siteName)) return false;
      return !globExcludes.some(hits);
    },
    unmatched: () => includes.filter((p) => !used.has(p)),
  };
}
