/**
 * YAML parsing that remembers where every value came from, so that validation can point at
 * `file:line:column` in the user's file.
 *
 * Two parsers produce the same result. A line-based fast path handles the block-style subset that
 * SiteConfig files are written in (block maps and sequences, plain and one-line quoted scalars,
 * literal and folded block scalars, comments). Anything outside that subset (flow collections,
 * anchors, tags, multi-line flow scalars, CRLF, ...) makes the fast path give up, and the file is
 * parsed again with the `yaml` library, which also produces every syntax error message. The fast
 * path exists because the library alone costs ~0.5 ms per small file, too slow for fleets of
 * thousands of sites (see bench/).
 *
 * Files come from git and are untrusted, so both paths bound what one document may cost: the
 * nesting depth of its collections, and the count and size of what its aliases expand to (a
 * "billion laughs" of nested aliases is refused after measuring it, without expanding it).
 * Merge keys (`<<`) are merged as yaml.v3 (siteconfig-generator) merges them.
 *
 * Both paths also note the plain scalars they read as strings that Go's YAML 1.1 readers read as
 * booleans or numbers (`yes`, `on`, `1_000`), so that validation can point at them.
 */
import { createRequire } from 'node:module';
import type * as YamlModule from 'yaml';
import type {
  Alias,
  CST,
  Document,
  LineCounter as LineCounterType,
  Node as YamlNode,
  YAMLMap,
} from 'yaml';
import { goYaml11Reading } from './go-yaml-reading.js';
import type { GoYamlReading } from './go-yaml-reading.js';
import { defaultLimits, limitHint } from './limits.js';
import type { Limits } from './limits.js';

/** A 1-based line and column in a source file. */
export interface SourcePos {
  readonly line: number;
  readonly column: number;
}

/** Where a value (and, for map entries, its key) starts in the source. */
export interface NodeLoc {
  readonly value: SourcePos;
  readonly key?: SourcePos;
}

/** Key under which parsed maps and sequences keep the positions of their children. */
export const LOCATIONS: unique symbol = Symbol('siteforge.locations');
/** Key under which parsed maps and sequences keep the source text of non-string scalars. */
export const RAW_TEXT: unique symbol = Symbol('siteforge.raw');

type LocTable = Map<string | number, NodeLoc>;
type RawTable = Map<string | number, string>;
interface Located {
  [LOCATIONS]?: LocTable;
  [RAW_TEXT]?: RawTable;
}

/**
 * A plain (unquoted) scalar that this reader (YAML 1.2 core schema) took as a string but Go's
 * YAML 1.1 readers would not: `yes` or `on` (a boolean there), `1_000` or `0X1F` (a number).
 * Where it is, is told by its container and its key there, so that it is found again in the
 * same document parsed with positions.
 */
export interface YamlLookalike {
  /** The map or sequence of the document that holds it. */
  readonly container: object;
  /** Its key in `container` (the map key, or the sequence index). */
  readonly key: string | number;
  /** Whether the scalar is the map key itself, rather than the value under it. */
  readonly role: 'key' | 'value';
  /** The scalar as written (and as this reader reads it). */
  readonly text: string;
  /** What Go's readers make of it. */
  readonly reading: LookalikeReading;
}

/**
 * The Go readings that differ from a string. A timestamp is not one of them: yaml.v2 gives it
 * to `interface{}` (what sigs.k8s.io/yaml decodes into) as the string it was.
 */
export type LookalikeReading = Exclude<GoYamlReading, 'string' | 'timestamp' | 'merge'>;

/** One YAML document of a file. */
export interface SourceDocument {
  readonly file: string;
  /** 0-based index of the document in its file. */
  readonly index: number;
  readonly value: unknown;
  readonly pos: SourcePos;
  /**
   * The YAML 1.1 look-alikes of the document, in document order; almost always none, so
   * recording them costs nothing for normal files.
   */
  readonly lookalikes: readonly YamlLookalike[];
}

/** A YAML syntax error, or a document over one of its limits, positioned. */
export interface YamlSyntaxIssue {
  readonly file: string;
  readonly pos: SourcePos;
  readonly code: string;
  readonly message: string;
  /** How to fix it, where the reader knows better than "fix the YAML syntax". */
  readonly hint?: string;
}

/** Result of parsing one file. */
export interface ParsedFile {
  readonly documents: SourceDocument[];
  readonly errors: YamlSyntaxIssue[];
}

/** Options of parseYamlFile. */
export interface ParseOptions {
  /**
   * Record the position of every value. Turning it off makes parsing cheaper; parse the file
   * again with positions when there is something to report.
   * @default true
   */
  readonly locations?: boolean;
  /**
   * The budgets of one document: collection nesting, alias dereferences and the nodes aliases
   * copy. A document over one of them is an error, not a value.
   * @default defaultLimits
   */
  readonly limits?: ReaderLimits;
}

/** The limits the reader enforces. */
export type ReaderLimits = Pick<Limits, 'aliases' | 'aliasedNodes' | 'nestingDepth'>;

/** Parses every document of a YAML file. */
export function parseYamlFile(file: string, text: string, options: ParseOptions = {}): ParsedFile {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const limits = options.limits ?? defaultLimits;
  const fast = fastParse(file, body, options.locations ?? true, limits);
  return fast ?? libraryParse(file, body, limits);
}

/** Position of a direct child (`key` of a map or index of a sequence), if recorded. */
export function childLoc(container: unknown, key: string | number): NodeLoc | undefined {
  if (container === null || typeof container !== 'object') return undefined;
  return (container as Located)[LOCATIONS]?.get(key);
}

/** Source text of a child that was a plain scalar read as a number, boolean or null. */
export function rawText(container: unknown, key: string | number): string | undefined {
  if (container === null || typeof container !== 'object') return undefined;
  return (container as Located)[RAW_TEXT]?.get(key);
}

/** True when the value carries recorded positions. */
export function hasLocations(value: unknown): boolean {
  return value !== null && typeof value === 'object' && (value as Located)[LOCATIONS] !== undefined;
}

/**
 * Position of the value at `path` below `root`, or of its nearest recorded ancestor when the
 * path does not exist (a missing field is reported where its parent is).
 * @param at `key` points at the map key rather than at the value, where there is one.
 */
export function locate(
  root: unknown,
  rootPos: SourcePos,
  path: readonly (string | number)[],
  at: 'value' | 'key' = 'value',
): SourcePos {
  let node = root;
  let pos = rootPos;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i]!;
    const loc = childLoc(node, segment);
    if (!loc) break;
    const last = i === path.length - 1;
    pos = last && at === 'key' && loc.key ? loc.key : loc.value;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return pos;
}

function setRaw(container: object, key: string | number, raw: string): void {
  const located = container as Located;
  (located[RAW_TEXT] ??= new Map()).set(key, raw);
}

const NO_LOOKALIKES: readonly YamlLookalike[] = Object.freeze([]);

/**
 * First characters of the text that YAML 1.2 reads as a string and Go's readers may not: the
 * YAML 1.1 booleans (`y`, `n`, `on`, ...) and numbers. Text that starts otherwise (`t`, `f`,
 * `~`: true, false and null are the same words to both) is settled by one lookup.
 */
const LOOKALIKE_START = new Uint8Array(128);
for (const c of 'yYnNoO0123456789+-.') LOOKALIKE_START[c.charCodeAt(0)] = 1;

/** How Go reads `text`, a plain scalar read here as a string, when that is not a string. */
function lookalikeReading(text: string): LookalikeReading | undefined {
  const first = text.charCodeAt(0);
  if (LOOKALIKE_START[first] !== 1) return undefined;
  // Addresses (10.16.0.10, 0c:42:a1:00:00:10) are most of the text that starts with a digit:
  // no Go integer or float holds a colon or two dots (a timestamp may, and reads as text).
  if (first <= 57 && (text.includes(':') || text.indexOf('.') !== text.lastIndexOf('.')))
    return undefined;
  const reading = goYaml11Reading(text);
  return reading === 'string' || reading === 'timestamp' || reading === 'merge'
    ? undefined
    : reading;
}

/** A document that cannot be read: it breaks a rule or a limit. Both paths report it alike. */
class YamlInputError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly pos: SourcePos,
    readonly hint?: string,
  ) {
    super(message);
  }
}

function tooDeep(limits: ReaderLimits, pos: SourcePos): YamlInputError {
  return new YamlInputError(
    'LIMIT_NESTING_DEPTH',
    `collections nest more than ${String(limits.nestingDepth)} deep (the nestingDepth limit)`,
    pos,
    limitHint('nestingDepth'),
  );
}

/** Trailing spaces and tabs: the only white space YAML trims (String#trim also eats NBSP, ...). */
function trimEndWhite(text: string): string {
  let end = text.length;
  for (let c = text.charCodeAt(end - 1); c === 32 || c === 9; c = text.charCodeAt(end - 1)) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** The index of the first character after leading spaces and tabs. */
function skipWhite(text: string, from = 0): number {
  let k = from;
  for (let c = text.charCodeAt(k); c === 32 || c === 9; c = text.charCodeAt(k)) k++;
  return k;
}

// ---------------------------------------------------------------------------------------------
// Fast path

/** Thrown inside the fast parser when the input leaves the supported subset. */
class OutOfSubset extends Error {}

const NULL_RE = /^(?:~|null|Null|NULL)?$/;
const BOOL_RE = /^(?:true|True|TRUE|false|False|FALSE)$/;
const INT_RE = /^[-+]?[0-9]+$/;
const OCT_RE = /^0o[0-7]+$/;
const HEX_RE = /^0x[0-9a-fA-F]+$/;
const FLOAT_RE = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
const EXP_RE = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const INF_RE = /^[-+]?\.(?:inf|Inf|INF)$/;
const NAN_RE = /^\.(?:nan|NaN|NAN)$/;
/** First characters that make a plain scalar something else (YAML indicators). */
const INDICATORS = new Set([
  '?',
  ':',
  ',',
  '[',
  ']',
  '{',
  '}',
  '#',
  '&',
  '*',
  '!',
  '|',
  '>',
  "'",
  '"',
  '%',
  '@',
  '`',
]);
/** Escapes JSON.parse understands with the same meaning as YAML. */
const JSON_ESCAPES = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/g;

/** Resolves a plain scalar by the YAML 1.2 core schema, as the `yaml` library does. */
function resolvePlain(text: string): unknown {
  // Most scalars are names: a first character that no null, bool or number starts with.
  const c = text.charCodeAt(0);
  const maybeSpecial =
    Number.isNaN(c) ||
    (c >= 48 && c <= 57) ||
    c === 43 ||
    c === 45 ||
    c === 46 ||
    c === 126 ||
    c === 110 ||
    c === 78 ||
    c === 116 ||
    c === 84 ||
    c === 102 ||
    c === 70;
  if (!maybeSpecial) return text;
  if (NULL_RE.test(text)) return null;
  if (BOOL_RE.test(text)) return text.startsWith('t') || text.startsWith('T');
  if (INT_RE.test(text)) return Number(text);
  if (OCT_RE.test(text)) return parseInt(text.slice(2), 8);
  if (HEX_RE.test(text)) return parseInt(text.slice(2), 16);
  if (FLOAT_RE.test(text) || EXP_RE.test(text)) return Number(text);
  if (INF_RE.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (NAN_RE.test(text)) return NaN;
  return text;
}

interface Scalar {
  value: unknown;
  raw?: string | undefined;
  /** Set for a plain scalar read as a string that Go's readers read otherwise. */
  lookalike?: LookalikeReading | undefined;
}

class FastParser {
  private readonly lines: string[];
  /** Effective indentation of each line (changed for compact `- key: value` items). */
  private readonly indent: Int32Array;
  /** 1 for lines without content: blank, or only a comment. */
  private readonly empty: Uint8Array;
  private i = 0;
  private end = 0;
  /** Collections open around the current line. */
  private depth = 0;
  /** The look-alikes of the current document, created at the first one. */
  private lookalikes: YamlLookalike[] | undefined;

  constructor(
    text: string,
    private readonly located: boolean,
    private readonly limits: ReaderLimits,
  ) {
    this.lines = text.split('\n');
    this.indent = new Int32Array(this.lines.length);
    this.empty = new Uint8Array(this.lines.length);
    for (let n = 0; n < this.lines.length; n++) {
      const line = this.lines[n]!;
      let k = 0;
      while (line.charCodeAt(k) === 32) k++;
      const c = line.charCodeAt(k);
      // A tab after the indentation is left to the library (blank lines, block scalars).
      if (c === 9) throw new OutOfSubset();
      this.indent[n] = k;
      if (Number.isNaN(c) || c === 35) this.empty[n] = 1;
    }
  }

  parseDocuments(file: string): ParsedFile {
    const documents: SourceDocument[] = [];
    const errors: YamlSyntaxIssue[] = [];
    let start = 0;
    let explicitStart = false;
    const flush = (stop: number): void => {
      this.i = start;
      this.end = stop;
      const first = this.nextContent();
      if (first < 0) {
        // An empty document between two markers, or before the first one, is no document.
        if (explicitStart) {
          documents.push({
            file,
            index: documents.length,
            value: null,
            pos: { line: start + 1, column: 1 },
            lookalikes: NO_LOOKALIKES,
          });
        }
        return;
      }
      const pos = { line: first + 1, column: this.indent[first]! + 1 };
      this.depth = 0;
      this.takeLookalikes(); // drops the notes of a document refused over a limit
      let value: unknown;
      try {
        value = this.parseNode(-1).value;
      } catch (err) {
        if (!(err instanceof YamlInputError)) throw err;
        // As on the library path: the document is left out, the others are read.
        errors.push({ file, pos: err.pos, code: err.code, message: err.message, hint: err.hint });
        return;
      }
      if (this.nextContent() >= 0) throw new OutOfSubset();
      const lookalikes = this.takeLookalikes();
      documents.push({ file, index: documents.length, value, pos, lookalikes });
    };
    for (let n = 0; n < this.lines.length; n++) {
      const line = this.lines[n]!;
      if (line.startsWith('%') || line.startsWith('...')) throw new OutOfSubset();
      if (line.startsWith('---')) {
        if (!/^---(?:[ \t]+(?:#.*)?)?$/.test(line)) throw new OutOfSubset();
        flush(n);
        start = n + 1;
        explicitStart = true;
      }
    }
    flush(this.lines.length);
    return { documents, errors };
  }

  /** Opens a collection whose first entry is on line `n`; refused past the nesting limit. */
  private enter(n: number): void {
    if (++this.depth > this.limits.nestingDepth) {
      throw tooDeep(this.limits, { line: n + 1, column: this.indent[n]! + 1 });
    }
  }

  /** The look-alikes noted since the last call (one document's), leaving none. */
  private takeLookalikes(): readonly YamlLookalike[] {
    const noted = this.lookalikes ?? NO_LOOKALIKES;
    this.lookalikes = undefined;
    return noted;
  }

  /** Records a look-alike (a rare event: most documents have none). */
  private lookalike(
    container: object,
    key: string | number,
    role: 'key' | 'value',
    text: string,
    reading: LookalikeReading,
  ): void {
    (this.lookalikes ??= []).push({ container, key, role, text, reading });
  }

  /** Index of the next line with content (not blank, not a comment), or -1. */
  private nextContent(): number {
    while (this.i < this.end) {
      if (this.empty[this.i] === 0) return this.i;
      this.i++;
    }
    return -1;
  }

  private content(n: number): string {
    return this.lines[n]!.slice(this.indent[n]);
  }

  /** Parses the block node that starts at the next content line, if it is indented past `parent`. */
  private parseNode(parent: number): Scalar & { pos?: SourcePos | undefined } {
    const n = this.nextContent();
    if (n < 0 || this.indent[n]! <= parent) return { value: null };
    const indent = this.indent[n]!;
    const text = this.content(n);
    const pos = this.located ? { line: n + 1, column: indent + 1 } : undefined;
    if (isSeqItem(text)) return { value: this.parseSeq(indent), pos };
    if (splitKey(text)) return { value: this.parseMap(indent), pos };
    this.i = n;
    const scalar = this.parseInlineValue(n, text, parent);
    return { value: scalar.value, raw: scalar.raw, lookalike: scalar.lookalike, pos };
  }

  private parseMap(indent: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    const locs = this.located ? new Map<string, NodeLoc>() : undefined;
    if (locs) (map as Located)[LOCATIONS] = locs;
    this.enter(this.nextContent());
    for (;;) {
      const n = this.nextContent();
      if (n < 0 || this.indent[n]! < indent) break;
      if (this.indent[n]! > indent) throw new OutOfSubset();
      const text = this.content(n);
      const split = splitKey(text);
      if (!split) {
        if (isSeqItem(text)) break; // an indentless sequence ends at the parent's next key
        throw new OutOfSubset();
      }
      const { key, valueOffset } = split;
      if (Object.hasOwn(map, key) || key === '__proto__' || key === '<<') throw new OutOfSubset();
      if (text.charCodeAt(0) !== 34 && text.charCodeAt(0) !== 39) {
        const reading = lookalikeReading(key);
        if (reading !== undefined) this.lookalike(map, key, 'key', key, reading);
      }
      const rest = text.slice(valueOffset);
      let valuePos: SourcePos | undefined;
      if (isEmptyValue(rest)) {
        this.i = n + 1;
        const next = this.nextContent();
        if (next >= 0 && this.indent[next] === indent && isSeqItem(this.content(next))) {
          map[key] = this.parseSeq(indent);
          if (locs) valuePos = { line: next + 1, column: indent + 1 };
        } else {
          const child = this.parseNode(indent);
          map[key] = child.value;
          valuePos = child.pos;
          if (child.lookalike !== undefined)
            this.lookalike(map, key, 'value', child.value as string, child.lookalike);
        }
      } else {
        const spaces = leadingSpaces(rest);
        const scalar = this.parseInlineValue(n, spaces === 0 ? rest : rest.slice(spaces), indent);
        map[key] = scalar.value;
        if (scalar.raw !== undefined) setRaw(map, key, scalar.raw);
        else if (scalar.lookalike !== undefined)
          this.lookalike(map, key, 'value', scalar.value as string, scalar.lookalike);
        if (locs) valuePos = { line: n + 1, column: indent + valueOffset + spaces + 1 };
      }
      if (locs) {
        const keyPos = { line: n + 1, column: indent + 1 };
        locs.set(key, { key: keyPos, value: valuePos ?? keyPos });
      }
    }
    this.depth--;
    return map;
  }

  private parseSeq(indent: number): unknown[] {
    const seq: unknown[] = [];
    const locs = this.located ? new Map<number, NodeLoc>() : undefined;
    if (locs) (seq as Located)[LOCATIONS] = locs;
    this.enter(this.nextContent());
    for (;;) {
      const n = this.nextContent();
      if (n < 0 || this.indent[n]! < indent) break;
      if (this.indent[n]! > indent) throw new OutOfSubset();
      const text = this.content(n);
      if (!isSeqItem(text)) break;
      const rest = text.slice(1);
      const spaces = leadingSpaces(rest);
      const itemIndent = indent + 1 + spaces;
      const item = rest.slice(spaces);
      const index = seq.length;
      if (isEmptyValue(item)) {
        this.i = n + 1;
        const child = this.parseNode(indent);
        seq.push(child.value);
        if (child.lookalike !== undefined)
          this.lookalike(seq, index, 'value', child.value as string, child.lookalike);
        locs?.set(index, { value: child.pos ?? { line: n + 1, column: indent + 1 } });
        continue;
      }
      if (isSeqItem(item)) throw new OutOfSubset();
      locs?.set(index, { value: { line: n + 1, column: itemIndent + 1 } });
      if (splitKey(item)) {
        // `- key: value` opens a map whose keys line up with `key`.
        this.indent[n] = itemIndent;
        this.i = n;
        seq.push(this.parseMap(itemIndent));
        continue;
      }
      const scalar = this.parseInlineValue(n, item, indent);
      seq.push(scalar.value);
      if (scalar.raw !== undefined) setRaw(seq, index, scalar.raw);
      else if (scalar.lookalike !== undefined)
        this.lookalike(seq, index, 'value', scalar.value as string, scalar.lookalike);
    }
    this.depth--;
    return seq;
  }

  /**
   * Parses a value that starts on line `n` (text = the value's own text): a scalar, a block
   * scalar, or an empty flow collection. Leaves `this.i` after the value.
   */
  private parseInlineValue(n: number, text: string, parent: number): Scalar {
    const first = text[0];
    let result: Scalar;
    if (first === '|' || first === '>') return this.parseBlockScalar(n, text, parent);
    if (first === '"' || first === "'") {
      const quoted = parseQuoted(text);
      // Only white space or a comment may follow, and a comment only after white space.
      if (!quoted || !isEmptyRest(text, quoted.length)) throw new OutOfSubset();
      result = { value: quoted.value };
    } else if (first === '[' || first === '{') {
      const body = stripComment(text);
      if (body === '[]') result = { value: [] };
      else if (body === '{}') result = { value: {} };
      else throw new OutOfSubset();
    } else {
      const plain = stripComment(text);
      if (
        first === undefined ||
        INDICATORS.has(first) ||
        (first === '-' && /^-(?:[ \t]|$)/.test(plain))
      ) {
        throw new OutOfSubset();
      }
      if (plain.includes(': ') || plain.endsWith(':') || plain.includes('\t'))
        throw new OutOfSubset();
      const value = resolvePlain(plain);
      if (typeof value !== 'string') result = { value, raw: plain };
      else {
        const lookalike = lookalikeReading(value);
        result = lookalike === undefined ? { value } : { value, lookalike };
      }
    }
    this.i = n + 1;
    // A following line indented past the parent would continue a multi-line scalar.
    const next = this.nextContent();
    if (next >= 0 && this.indent[next]! > parent) throw new OutOfSubset();
    return result;
  }

  private parseBlockScalar(n: number, header: string, parent: number): Scalar {
    const match = /^([|>])([-+]?)(?:[ \t]+(?:#.*)?)?$/.exec(header);
    if (!match) throw new OutOfSubset();
    const folded = match[1] === '>';
    const chomp = match[2];
    if (chomp === '+') throw new OutOfSubset();
    const body: string[] = [];
    let contentIndent = -1;
    let m = n + 1;
    for (; m < this.end; m++) {
      const line = this.lines[m]!;
      // Spaces only (a tab after the indentation already left the fast path).
      const blank = this.indent[m] === line.length;
      if (contentIndent < 0) {
        if (blank) {
          if (line.length > 0) throw new OutOfSubset(); // spaces-only leading lines: library rules
          body.push('');
          continue;
        }
        if (this.indent[m]! <= parent) break;
        contentIndent = this.indent[m]!;
      } else if (!blank && this.indent[m]! < contentIndent) {
        break;
      }
      body.push(line.length > contentIndent ? line.slice(contentIndent) : '');
    }
    if (m === this.lines.length && this.lines[m - 1] !== '') throw new OutOfSubset(); // no final newline
    while (body.length > 0 && body[body.length - 1] === '') body.pop();
    if (contentIndent < 0 || body.length === 0) {
      this.i = m;
      return { value: '' };
    }
    let text: string;
    if (folded) {
      if (body[0] === '' || body.some((line) => line.startsWith(' ') || line.startsWith('\t'))) {
        throw new OutOfSubset();
      }
      text = '';
      for (let k = 0; k < body.length; k++) {
        const line = body[k]!;
        if (k === 0) text = line;
        else if (line === '') text += '\n';
        else text += body[k - 1] === '' ? line : ` ${line}`;
      }
    } else {
      text = body.join('\n');
    }
    this.i = m;
    return { value: chomp === '-' ? text : `${text}\n` };
  }
}

function leadingSpaces(text: string): number {
  let n = 0;
  while (text.charCodeAt(n) === 32) n++;
  return n;
}

function isSeqItem(text: string): boolean {
  return text === '-' || text.startsWith('- ') || text.startsWith('-\t');
}

/** True for the empty rest of a line after an indicator, or one that holds only a comment. */
function isEmptyValue(rest: string): boolean {
  const k = skipWhite(rest);
  return k === rest.length || rest.charCodeAt(k) === 35;
}

/** True when `text` ends at `from`, or goes on with white space and maybe a comment. */
function isEmptyRest(text: string, from: number): boolean {
  if (from === text.length) return true;
  const c = text.charCodeAt(from);
  return (c === 32 || c === 9) && isEmptyValue(text.slice(from));
}

/** Removes a trailing ` # comment` from a plain scalar and trims it. */
function stripComment(text: string): string {
  const hash = text.search(/[ \t]#/);
  return trimEndWhite(hash < 0 ? text : text.slice(0, hash));
}

/** Splits `key: rest` (plain or quoted key); undefined when the line is not a map entry. */
function splitKey(text: string): { key: string; valueOffset: number } | undefined {
  const first = text[0];
  if (first === '"' || first === "'") {
    const quoted = parseQuoted(text);
    if (!quoted || text[quoted.length] !== ':') return undefined;
    const after = text[quoted.length + 1];
    if (after !== undefined && after !== ' ') return undefined;
    return { key: quoted.value, valueOffset: quoted.length + 1 };
  }
  if (first === undefined || INDICATORS.has(first) || (first === '-' && /^-(?:[ \t]|$)/.test(text)))
    return undefined;
  let colon = text.indexOf(':');
  while (colon >= 0) {
    const after = text[colon + 1];
    if (after === undefined || after === ' ') break;
    colon = text.indexOf(':', colon + 1);
  }
  if (colon < 0) return undefined;
  const key = trimEndWhite(text.slice(0, colon));
  if (/[ \t]#/.test(key) || key.includes('\t')) return undefined;
  if (typeof resolvePlain(key) !== 'string') throw new OutOfSubset();
  return { key, valueOffset: colon + 1 };
}

/** Parses a one-line quoted scalar at the start of `text`; undefined if it does not close. */
function parseQuoted(text: string): { value: string; length: number } | undefined {
  if (text.startsWith("'")) {
    for (let j = 1; j < text.length; j++) {
      if (text[j] !== "'") continue;
      if (text[j + 1] === "'") {
        j++;
        continue;
      }
      return { value: text.slice(1, j).replace(/''/g, "'"), length: j + 1 };
    }
    return undefined;
  }
  for (let j = 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\\') {
      j++;
      continue;
    }
    if (c !== '"') continue;
    const inner = text.slice(1, j);
    // Control characters and escapes JSON lacks (\x, \0, \e, \N, ...) are left to the library.
    // eslint-disable-next-line no-control-regex -- control characters are what we look for
    if (/[\u0000-\u001f\u007f]/.test(inner)) throw new OutOfSubset();
    if (inner.replace(JSON_ESCAPES, '').includes('\\')) throw new OutOfSubset();
    return { value: JSON.parse(`"${inner}"`) as string, length: j + 1 };
  }
  return undefined;
}

function fastParse(
  file: string,
  text: string,
  located: boolean,
  limits: ReaderLimits,
): ParsedFile | undefined {
  if (text.includes('\r')) return undefined;
  try {
    return new FastParser(text, located, limits).parseDocuments(file);
  } catch (err) {
    if (err instanceof OutOfSubset) return undefined;
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Library path

type YamlLibrary = typeof YamlModule;

/** The `yaml` library, loaded on first use: most runs never need it. */
let yamlLibrary: YamlLibrary | undefined;
function library(): YamlLibrary {
  yamlLibrary ??= createRequire(import.meta.url)('yaml') as YamlLibrary;
  return yamlLibrary;
}

function libraryParse(file: string, text: string, limits: ReaderLimits): ParsedFile {
  const { Composer, Lexer, LineCounter, Parser } = library();
  const lineCounter: LineCounterType = new LineCounter();
  const errors: YamlSyntaxIssue[] = [];
  const documents: SourceDocument[] = [];
  const toPos = (offset: number): SourcePos => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  // What parseAllDocuments does, one lexeme at a time, watching the parser's stack of open
  // collections: at the first collection nested past the limit, reading stops. The composer
  // (which recurses) never sees such a document, and the parser does not go on through the
  // rest of a file that may be megabytes of brackets.
  const parser = new Parser(lineCounter.addNewLine);
  lineCounter.addNewLine(0);
  const tokens: CST.Token[] = [];
  let tooDeepOffset: number | undefined;
  for (const lexeme of new Lexer().lex(text)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    if (parser.stack.length > limits.nestingDepth + 1) {
      tooDeepOffset = tooDeepAt(parser.stack, limits.nestingDepth);
      if (tooDeepOffset !== undefined) break;
    }
  }
  if (tooDeepOffset === undefined) for (const token of parser.end()) tokens.push(token);
  const list: Document.Parsed[] = Array.from(new Composer().compose(tokens));
  for (const doc of list) {
    for (const error of doc.errors) {
      errors.push({
        file,
        pos: toPos(error.pos[0]),
        code: `YAML_${error.code}`,
        message: error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''),
      });
    }
    if (doc.errors.length > 0) continue;
    const contents = doc.contents;
    const pos = contents?.range ? toPos(contents.range[0]) : { line: 1, column: 1 };
    try {
      let value: unknown = null;
      let lookalikes = NO_LOOKALIKES;
      if (contents) {
        const converter = new Converter(toPos, limits);
        converter.measure(contents, 0);
        value = converter.convert(contents);
        if (converter.lookalikes.length > 0) lookalikes = converter.lookalikes;
      }
      documents.push({ file, index: documents.length, value, pos, lookalikes });
    } catch (err) {
      if (!(err instanceof YamlInputError)) throw err;
      errors.push({ file, pos: err.pos, code: err.code, message: err.message, hint: err.hint });
    }
  }
  if (tooDeepOffset !== undefined) {
    // The documents before it are read; the rest of the file is not.
    const { code, message, pos, hint } = tooDeep(limits, toPos(tooDeepOffset));
    errors.push({ file, pos, code, message, hint });
  }
  return { documents, errors };
}

/**
 * Offset of the collection nested past `limit` in the parser's stack (the document, then one
 * entry per open collection, and whatever scalar is being read), if there is one.
 */
function tooDeepAt(stack: readonly CST.Token[], limit: number): number | undefined {
  let depth = 0;
  for (const token of stack) {
    if (
      token.type !== 'block-map' &&
      token.type !== 'block-seq' &&
      token.type !== 'flow-collection'
    )
      continue;
    if (++depth > limit) return token.offset;
  }
  return undefined;
}

/** What a node becomes once its aliases are expanded. */
interface Extent {
  /** Alias dereferences, counting those inside what the aliases copy. */
  readonly derefs: number;
  /** Nodes (scalars, collections, map keys). */
  readonly nodes: number;
  /** Collections on the longest path down (0 for a scalar). */
  readonly height: number;
}

const SCALAR_EXTENT: Extent = { derefs: 0, nodes: 1, height: 0 };

/**
 * Turns one document of the library into plain values with positions. `measure` first walks
 * the document as written, once, resolving every alias and adding up what expanding it would
 * cost from the memoized extents of the anchored nodes; only a document within its limits is
 * then expanded by `convert`. So a billion laughs costs a walk over its few hundred bytes.
 */
class Converter {
  /** Anchors defined so far in document order: an alias refers to the last one before it. */
  private readonly anchors = new Map<string, YamlNode>();
  private readonly targets = new Map<Alias, YamlNode>();
  /** Extents of the anchored nodes walked so far. */
  private readonly extents = new Map<YamlNode, Extent>();
  /** Anchored nodes being walked: an alias to one of them would contain itself. */
  private readonly open = new Set<YamlNode>();
  private derefs = 0;
  private aliasedNodes = 0;
  /** The look-alikes of the converted values, in document order. */
  readonly lookalikes: YamlLookalike[] = [];

  constructor(
    private readonly toPos: (offset: number) => SourcePos,
    private readonly limits: ReaderLimits,
  ) {}

  /** Walks `node` as written, `depth` collections down; throws at the first limit it breaks. */
  measure(node: YamlNode | null, depth: number): Extent {
    if (node === null) return SCALAR_EXTENT;
    const { isAlias, isMap, isScalar, isSeq } = library();
    if (isAlias(node)) return this.measureAlias(node, depth);
    if (node.anchor !== undefined) {
      this.anchors.set(node.anchor, node);
      this.open.add(node);
    }
    let extent = SCALAR_EXTENT;
    if (isMap(node) || isSeq(node)) {
      if (depth + 1 > this.limits.nestingDepth) throw tooDeep(this.limits, this.pos(node));
      let derefs = 0;
      let nodes = 1;
      let height = 0;
      const add = (child: YamlNode | null): void => {
        const inner = this.measure(child, depth + 1);
        derefs += inner.derefs;
        nodes += inner.nodes;
        height = Math.max(height, inner.height);
      };
      for (const item of node.items as unknown[]) {
        if (isMap(node)) {
          const pair = item as { key: unknown; value: unknown };
          add(pair.key as YamlNode | null);
          add(pair.value as YamlNode | null);
        } else add(item as YamlNode | null);
      }
      extent = { derefs, nodes, height: height + 1 };
    } else if (!isScalar(node)) {
      throw new YamlInputError('YAML_UNSUPPORTED', 'unsupported YAML node', this.pos(node));
    }
    if (node.anchor !== undefined) {
      this.open.delete(node);
      this.extents.set(node, extent);
    }
    return extent;
  }

  private measureAlias(alias: Alias, depth: number): Extent {
    const pos = this.pos(alias);
    const target = this.anchors.get(alias.source);
    if (target === undefined || this.open.has(target)) {
      throw new YamlInputError(
        'YAML_BAD_ALIAS',
        target === undefined
          ? `alias *${alias.source} refers to no anchor &${alias.source} before it`
          : `alias *${alias.source} refers to a collection that contains it`,
        pos,
      );
    }
    this.targets.set(alias, target);
    const extent = this.extents.get(target)!;
    this.derefs += 1 + extent.derefs;
    if (this.derefs > this.limits.aliases) {
      throw new YamlInputError(
        'LIMIT_ALIASES',
        `aliases expand to more than ${String(this.limits.aliases)} alias dereferences in this document (the aliases limit); an alias bomb?`,
        pos,
        limitHint('aliases'),
      );
    }
    this.aliasedNodes += extent.nodes;
    if (this.aliasedNodes > this.limits.aliasedNodes) {
      throw new YamlInputError(
        'LIMIT_ALIASED_NODES',
        `aliases copy more than ${String(this.limits.aliasedNodes)} nodes into this document (the aliasedNodes limit)`,
        pos,
        limitHint('aliasedNodes'),
      );
    }
    if (depth + extent.height > this.limits.nestingDepth) throw tooDeep(this.limits, pos);
    return { derefs: 1 + extent.derefs, nodes: extent.nodes, height: extent.height };
  }

  /** Expands a measured node into plain values. */
  convert(node: YamlNode): unknown {
    const { isAlias, isMap, isScalar, isSeq } = library();
    if (isAlias(node)) return this.convert(this.targets.get(node)!);
    if (isScalar(node)) return node.value;
    if (isSeq(node)) {
      const seq: unknown[] = [];
      const locs: LocTable = new Map();
      (seq as Located)[LOCATIONS] = locs;
      for (const item of node.items) {
        const child = item as YamlNode | null;
        locs.set(seq.length, { value: this.pos(child) });
        const raw = rawOf(child);
        if (raw !== undefined) setRaw(seq, seq.length, raw);
        this.noteLookalike(seq, seq.length, 'value', child);
        seq.push(child ? this.convert(child) : null);
      }
      return seq;
    }
    if (isMap(node)) return this.convertMap(node);
    throw new YamlInputError('YAML_UNSUPPORTED', 'unsupported YAML node', this.pos(node));
  }

  private convertMap(node: YAMLMap): Record<string, unknown> {
    const { isScalar } = library();
    const map: Record<string, unknown> = {};
    const locs: LocTable = new Map();
    (map as Located)[LOCATIONS] = locs;
    /** Keys that came from a merge: an explicit key replaces them, wherever it is written. */
    let merged: Set<string> | undefined;
    for (const pair of node.items) {
      const keyNode = pair.key as YamlNode | null;
      const valueNode = pair.value as YamlNode | null;
      if (keyNode && !isScalar(keyNode)) {
        throw new YamlInputError(
          'YAML_UNSUPPORTED',
          'only scalar map keys are supported',
          this.pos(keyNode),
        );
      }
      if (isScalar(keyNode) && keyNode.value === '<<' && keyNode.type === 'PLAIN') {
        merged ??= new Set();
        this.merge(map, merged, keyNode, valueNode);
        continue;
      }
      const key = keyNode && isScalar(keyNode) ? scalarKey(keyNode.value) : '';
      const keyPos = this.pos(keyNode);
      if (merged?.has(key)) this.dropLookalikes(map, key);
      this.noteLookalike(map, key, 'key', keyNode);
      this.noteLookalike(map, key, 'value', valueNode);
      define(map, key, valueNode ? this.convert(valueNode) : null);
      locs.set(key, { key: keyPos, value: valueNode?.range ? this.pos(valueNode) : keyPos });
      const raw = rawOf(valueNode);
      if (raw !== undefined) setRaw(map, key, raw);
      else if (merged?.delete(key)) (map as Located)[RAW_TEXT]?.delete(key);
    }
    return map;
  }

  /**
   * Merges `<<: source` into `map` as yaml.v3 does: the source is a map, an alias of one, or a
   * list of those; a key already in `map` stays, so explicit keys win, and an earlier source in
   * the list wins over a later one.
   */
  private merge(
    map: Record<string, unknown>,
    merged: Set<string>,
    keyNode: YamlNode,
    valueNode: YamlNode | null,
  ): void {
    const { isAlias, isMap, isSeq } = library();
    const sources = isSeq(valueNode) ? (valueNode.items as (YamlNode | null)[]) : [valueNode];
    for (const source of sources) {
      const resolved = isAlias(source) ? this.targets.get(source) : source;
      if (!isMap(resolved)) {
        throw new YamlInputError(
          'YAML_BAD_MERGE',
          'a merge key << takes a map, an alias of a map, or a list of those',
          this.pos(source ?? keyNode),
        );
      }
      const noted = this.lookalikes.length;
      const from = this.convert(resolved) as Record<string, unknown> & Located;
      const locs = (map as Located)[LOCATIONS]!;
      const copied = new Set<string>();
      for (const key of Object.keys(from)) {
        if (Object.hasOwn(map, key)) continue;
        define(map, key, from[key]);
        merged.add(key);
        copied.add(key);
        const loc = from[LOCATIONS]?.get(key);
        if (loc) locs.set(key, loc);
        const raw = from[RAW_TEXT]?.get(key);
        if (raw !== undefined) setRaw(map, key, raw);
      }
      this.moveLookalikes(noted, from, map, copied);
    }
  }

  /**
   * Look-alikes noted from index `start` on in the merge source `source` now belong to `map`,
   * where their key was copied; those of keys `map` already had are gone with them.
   */
  private moveLookalikes(
    start: number,
    source: object,
    map: object,
    copied: ReadonlySet<string>,
  ): void {
    for (let i = start; i < this.lookalikes.length; i++) {
      const entry = this.lookalikes[i]!;
      if (entry.container !== source) continue;
      if (copied.has(entry.key as string)) this.lookalikes[i] = { ...entry, container: map };
      else this.lookalikes.splice(i--, 1);
    }
  }

  /** Forgets the look-alikes of `key` in `map`, whose entry is being replaced. */
  private dropLookalikes(map: object, key: string): void {
    for (let i = this.lookalikes.length - 1; i >= 0; i--) {
      const entry = this.lookalikes[i]!;
      if (entry.container === map && entry.key === key) this.lookalikes.splice(i, 1);
    }
  }

  /** Notes `node` when it is a plain scalar read as a string that Go's readers read otherwise. */
  private noteLookalike(
    container: object,
    key: string | number,
    role: 'key' | 'value',
    node: YamlNode | null,
  ): void {
    const { isAlias, isScalar } = library();
    const scalar = isAlias(node) ? this.targets.get(node) : node;
    // A tag (`!!str yes`) says what the scalar is, to Go's readers as well.
    if (!isScalar(scalar) || scalar.type !== 'PLAIN' || scalar.tag !== undefined) return;
    if (typeof scalar.value !== 'string') return;
    const reading = lookalikeReading(scalar.value);
    if (reading !== undefined)
      this.lookalikes.push({ container, key, role, text: scalar.value, reading });
  }

  private pos(node: YamlNode | null | undefined): SourcePos {
    return node?.range ? this.toPos(node.range[0]) : { line: 1, column: 1 };
  }
}

/** Sets an own, plain property, even one named `__proto__`. */
function define(map: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A map key as a string, as the library's toJS() writes keys. */
function scalarKey(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function rawOf(node: YamlNode | null): string | undefined {
  if (
    node &&
    library().isScalar(node) &&
    typeof node.value !== 'string' &&
    typeof node.source === 'string'
  ) {
    return node.source;
  }
  return undefined;
}
