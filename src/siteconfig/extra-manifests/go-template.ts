/**
 * A Go `text/template` interpreter for the subset that extra-manifest templates use, so that
 * the `.tmpl` files users copied from siteconfig-generator keep rendering byte for byte.
 *
 * Supported: text and actions with `{{-`/`-}}` trim markers and comments; pipelines with `|`;
 * fields (`.A.B`), `.`, `$`, variables (`$x := …`, `$x = …`) and field chains on variables and
 * parenthesised pipelines; string (quoted and raw), character, number, bool and nil literals;
 * `if`/`else if`/`else`, `with`/`else with`/`else`, `range` (arrays, maps in key order,
 * integers; one or two variables; `else`; `break`/`continue`); the functions `and or not eq ne
 * lt le gt ge len index print printf println`.
 *
 * Not supported, and reported as parse errors: `define`, `template`, `block` and every other
 * function. As in Go, functions and variables are resolved at parse time, fields at execution
 * time. Execution never throws anything but a TemplateError; a step and output budget bounds
 * runaway templates (`range 1000000000`).
 *
 * Values are JSON-shaped data (maps are plain objects, nil is null or undefined) plus
 * TemplateStruct, which models a Go struct: a fixed set of fields, zero values for absent
 * ones, "can't evaluate field" for unknown ones, and always true in a condition.
 */
import { clip, quote } from '../../shared/errors.js';
import { defaultLimits } from '../../shared/limits.js';
import type { Limits } from '../../shared/limits.js';

/** Marker returned by TemplateStruct.field for a field the struct type does not have. */
export const NO_FIELD: unique symbol = Symbol('siteforge.template.noField');

/** A Go struct as template data: fields by name, the type's name for messages. */
export abstract class TemplateStruct {
  /** The Go type name, as Go's error messages print it (`siteConfig.Clusters`). */
  abstract readonly goType: string;
  /** The value of a field, or NO_FIELD when the type has no such field. */
  abstract field(name: string): unknown;
  /** The field names in declaration order, for printing `{v1 v2 …}`. */
  abstract fieldNames(): readonly string[];
}

/** A template that failed to parse or to execute, at a line of the template file. */
export class TemplateError extends Error {
  constructor(
    readonly phase: 'parse' | 'execute',
    /** 1-based line in the template file. */
    readonly line: number,
    readonly detail: string,
    /** The limit of the run the rendering went over, when that is why it failed. */
    readonly limit?: 'templateSteps' | 'templateOutputBytes',
  ) {
    super(`${String(line)}: ${detail}`);
    this.name = 'TemplateError';
  }
}

/** A parsed template, ready to execute any number of times. */
export interface GoTemplate {
  readonly name: string;
  /**
   * The names used in field chains anywhere in the template, lower-cased with underscores
   * removed (`.Data.DiskEncryption.Type` gives `data`, `diskencryption`, `type`).
   */
  readonly fieldNames: ReadonlySet<string>;
  /**
   * Renders the template with `data` as `.` and `$`. Throws TemplateError.
   * @param budget what the rendering may cost; @default a budget of its own (defaultLimits)
   */
  execute(data: unknown, budget?: TemplateBudget): string;
  /**
   * Renders like execute, and also returns every struct field the rendering read, with a
   * digest of its value (undefined when the rendering used data the record cannot pin down).
   * Same reads, same output: see readsMatch.
   */
  executeTracked(
    root: TemplateStruct,
    budget?: TemplateBudget,
  ): {
    readonly output: string;
    readonly reads: readonly FieldRead[] | undefined;
  };
}

/**
 * One struct field read while rendering: field `name` of the struct produced by read `via`
 * (-1: the root), or of element `elem` of the list that read produced.
 */
export interface FieldRead {
  readonly via: number;
  readonly elem: number;
  readonly name: string;
  readonly pin: Pin;
}

/**
 * What pins a read value: a scalar by value, a struct by being one (its fields are reads of
 * their own), a list of structs by its length, anything else by its JSON text.
 */
export type Pin =
  | { readonly kind: 'scalar'; readonly value: string | number | boolean | null }
  | { readonly kind: 'struct' }
  | { readonly kind: 'structs'; readonly length: number }
  | { readonly kind: 'json'; readonly text: string };

/**
 * True when rendering with `root` would read exactly the values recorded in `reads`, and so
 * produce the recorded output: the interpreter sees template data only through struct fields,
 * and every other value it reads (maps, lists of scalars, scalars) is pinned by its digest.
 */
export function readsMatch(root: TemplateStruct, reads: readonly FieldRead[]): boolean {
  const values: unknown[] = [];
  for (const read of reads) {
    let parent: unknown = read.via < 0 ? root : values[read.via];
    if (read.elem >= 0)
      parent = Array.isArray(parent) ? (parent as unknown[])[read.elem] : undefined;
    if (!(parent instanceof TemplateStruct)) return false;
    const value = parent.field(read.name);
    if (!pinned(value, read.pin)) return false;
    values.push(value);
  }
  return true;
}

const STRUCT_PIN: Pin = { kind: 'struct' };

/** What pins a read value; undefined for values that cannot be pinned. */
function pinOf(value: unknown): Pin | undefined {
  if (value === null || value === undefined) return { kind: 'scalar', value: null };
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return { kind: 'scalar', value };
  if (typeof value !== 'object') return undefined;
  if (value instanceof TemplateStruct) return STRUCT_PIN;
  if (Array.isArray(value)) {
    const list: readonly unknown[] = value;
    const structs = list.filter((item) => item instanceof TemplateStruct).length;
    if (structs === list.length && structs > 0) return { kind: 'structs', length: structs };
    if (structs > 0) return undefined;
  }
  return { kind: 'json', text: JSON.stringify(value) };
}

/** True when `value` is what `pin` recorded. */
function pinned(value: unknown, pin: Pin): boolean {
  switch (pin.kind) {
    case 'scalar':
      return value === pin.value || (pin.value === null && value === undefined);
    case 'struct':
      return value instanceof TemplateStruct;
    case 'structs':
      return (
        Array.isArray(value) &&
        value.length === pin.length &&
        (value as readonly unknown[]).every((item) => item instanceof TemplateStruct)
      );
    case 'json':
      return (
        value !== null &&
        typeof value === 'object' &&
        !(value instanceof TemplateStruct) &&
        !(
          Array.isArray(value) &&
          (value as readonly unknown[]).some((item) => item instanceof TemplateStruct)
        ) &&
        JSON.stringify(value) === pin.text
      );
  }
}

/** Records the struct fields an execution reads, and where each struct came from. */
class ReadRecorder {
  readonly reads: FieldRead[] = [];
  replayable = true;
  private readonly index = new Map<string, number>();
  private readonly origins = new Map<TemplateStruct, readonly [number, number]>();

  constructor(root: TemplateStruct) {
    this.origins.set(root, [-1, -1]);
  }

  note(struct: TemplateStruct, name: string, value: unknown): void {
    const origin = this.origins.get(struct);
    if (!origin) {
      this.replayable = false;
      return;
    }
    const key = `${String(origin[0])}/${String(origin[1])}/${name}`;
    let at = this.index.get(key);
    if (at === undefined) {
      const pin = pinOf(value);
      if (pin === undefined) {
        this.replayable = false;
        return;
      }
      at = this.reads.length;
      this.reads.push({ via: origin[0], elem: origin[1], name, pin });
      this.index.set(key, at);
    }
    if (value instanceof TemplateStruct) {
      if (!this.origins.has(value)) this.origins.set(value, [at, -1]);
    } else if (Array.isArray(value)) {
      const list: readonly unknown[] = value;
      for (let i = 0; i < list.length; i++) {
        const item = list[i];
        if (item instanceof TemplateStruct && !this.origins.has(item))
          this.origins.set(item, [at, i]);
      }
    }
  }
}

/** How printing reads struct fields; the executor routes it through its recorder. */
let readField = (struct: TemplateStruct, name: string): unknown => struct.field(name);

/**
 * What renderings may cost. One budget serves every rendering of a run, so that a template
 * rendered for thousands of clusters cannot take minutes a step at a time: `templateSteps` is
 * spent by all of them together, `templateOutputBytes` bounds each rendering's output.
 */
export class TemplateBudget {
  private spent = 0;

  constructor(
    readonly limits: Pick<Limits, 'templateSteps' | 'templateOutputBytes'> = defaultLimits,
  ) {}

  /** Spends `steps`; false once the run has spent more than its budget. */
  spend(steps: number): boolean {
    this.spent += steps;
    return this.spent <= this.limits.templateSteps;
  }
}

/** Parses a template. Throws TemplateError (phase `parse`). */
export function parseGoTemplate(name: string, text: string): GoTemplate {
  const parser = new Parser(lex(text));
  const list = parser.parseRoot();
  const fieldNames = parser.fieldNames;
  return {
    name,
    fieldNames,
    execute: (data, budget = new TemplateBudget()) =>
      new Executor(data, budget, undefined).run(list),
    executeTracked: (root, budget = new TemplateBudget()) => {
      const recorder = new ReadRecorder(root);
      const output = new Executor(root, budget, recorder).run(list);
      return { output, reads: recorder.replayable ? recorder.reads : undefined };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Lexer

type TokenKind =
  | 'field'
  | 'variable'
  | 'dot'
  | 'ident'
  | 'keyword'
  | 'string'
  | 'number'
  | 'bool'
  | 'nil'
  | 'lparen'
  | 'rparen'
  | 'pipe'
  | 'declare'
  | 'assign'
  | 'comma';

interface Token {
  readonly kind: TokenKind;
  /** The token's source text. */
  readonly text: string;
  readonly line: number;
  /** True when whitespace separates this token from the previous one. */
  readonly space: boolean;
  /** Field chain of `field` and `variable` tokens. */
  readonly chain?: readonly string[];
  /** Value of literals; the name of variables. */
  readonly value?: unknown;
}

type Piece =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'action'; readonly tokens: readonly Token[]; readonly line: number };

const KEYWORDS = new Set([
  'if',
  'else',
  'end',
  'range',
  'with',
  'define',
  'template',
  'block',
  'break',
  'continue',
]);

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n';
}

function isAlnum(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_]/.test(c);
}

const NUMBER_RE =
  /[+-]?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?)/y;

function lex(text: string): Piece[] {
  const pieces: Piece[] = [];
  let pos = 0;
  let line = 1;
  let trimNext = false;
  const advanceLines = (from: number, to: number): void => {
    for (let k = from; k < to; k++) if (text.charCodeAt(k) === 10) line++;
  };
  while (pos <= text.length) {
    const open = text.indexOf('{{', pos);
    let chunk = text.slice(pos, open < 0 ? text.length : open);
    if (trimNext) chunk = chunk.replace(/^[ \t\r\n]+/, '');
    if (open < 0) {
      if (chunk !== '') pieces.push({ kind: 'text', text: chunk });
      break;
    }
    let k = open + 2;
    if (text[k] === '-' && isSpace(text[k + 1])) {
      chunk = chunk.replace(/[ \t\r\n]+$/, '');
      k += 2;
    }
    if (chunk !== '') pieces.push({ kind: 'text', text: chunk });
    advanceLines(pos, open);
    const actionLine = line;
    if (text.startsWith('/*', k)) {
      const close = text.indexOf('*/', k + 2);
      if (close < 0) throw new TemplateError('parse', actionLine, 'unclosed comment');
      let end = close + 2;
      trimNext = false;
      if (isSpace(text[end]) && text.startsWith('-}}', end + 1)) {
        trimNext = true;
        end += 4;
      } else if (text.startsWith('}}', end)) end += 2;
      else throw new TemplateError('parse', actionLine, 'comment ends before closing delimiter');
      advanceLines(open, end);
      pos = end;
      continue;
    }
    const scanned = lexAction(text, k, line);
    pieces.push({ kind: 'action', tokens: scanned.tokens, line: actionLine });
    advanceLines(open, scanned.end);
    trimNext = scanned.trimRight;
    pos = scanned.end;
  }
  return pieces;
}

function lexAction(
  text: string,
  start: number,
  startLine: number,
): { tokens: Token[]; end: number; trimRight: boolean } {
  const tokens: Token[] = [];
  let k = start;
  let line = startLine;
  let space = true;
  const push = (kind: TokenKind, from: number, extra: Partial<Token> = {}): void => {
    tokens.push({ kind, text: text.slice(from, k), line, space, ...extra });
    space = false;
  };
  for (;;) {
    const c = text[k];
    if (c === undefined) throw new TemplateError('parse', startLine, 'unclosed action');
    if (c === '}' && text[k + 1] === '}') return { tokens, end: k + 2, trimRight: false };
    if (isSpace(c)) {
      if (text.startsWith('-}}', k + 1)) {
        if (c === '\n') line++;
        return { tokens, end: k + 4, trimRight: true };
      }
      if (c === '\n') line++;
      k++;
      space = true;
      continue;
    }
    const from = k;
    if (c === '|') {
      k++;
      push('pipe', from);
    } else if (c === '(') {
      k++;
      push('lparen', from);
    } else if (c === ')') {
      k++;
      push('rparen', from);
    } else if (c === ',') {
      k++;
      push('comma', from);
    } else if (c === ':' && text[k + 1] === '=') {
      k += 2;
      push('declare', from);
    } else if (c === '=') {
      k++;
      push('assign', from);
    } else if (c === '"') {
      k++;
      while (text[k] !== '"') {
        if (text[k] === '\\') k++;
        if (k >= text.length || text[k] === '\n')
          throw new TemplateError('parse', line, 'unterminated quoted string');
        k++;
      }
      k++;
      push('string', from, { value: unquote(text.slice(from, k), line) });
    } else if (c === '`') {
      const close = text.indexOf('`', k + 1);
      if (close < 0) throw new TemplateError('parse', line, 'unterminated raw quoted string');
      k = close + 1;
      const raw = text.slice(from + 1, close);
      push('string', from, { value: raw.replace(/\r/g, '') });
      for (const ch of raw) if (ch === '\n') line++;
    } else if (c === "'") {
      k++;
      while (text[k] !== "'") {
        if (text[k] === '\\') k++;
        if (k >= text.length || text[k] === '\n')
          throw new TemplateError('parse', line, 'unterminated character constant');
        k++;
      }
      k++;
      const decoded = unquote(`"${text.slice(from + 1, k - 1)}"`, line);
      const codePoints = Array.from(decoded);
      if (codePoints.length !== 1)
        throw new TemplateError(
          'parse',
          line,
          `malformed character constant: ${text.slice(from, k)}`,
        );
      push('number', from, { value: codePoints[0]!.codePointAt(0) });
    } else if (c === '$') {
      k++;
      while (isAlnum(text[k])) k++;
      const name = text.slice(from, k);
      const chain = lexChain(text, k);
      k = chain.end;
      push('variable', from, { value: name, chain: chain.names });
    } else if (c === '.' && /[A-Za-z_]/.test(text[k + 1] ?? '')) {
      const chain = lexChain(text, k);
      k = chain.end;
      push('field', from, { chain: chain.names });
    } else if (
      /[0-9]/.test(c) ||
      ((c === '+' || c === '-' || c === '.') && /[0-9.]/.test(text[k + 1] ?? ''))
    ) {
      NUMBER_RE.lastIndex = k;
      const match = NUMBER_RE.exec(text);
      if (!match) throw new TemplateError('parse', line, `bad number syntax: ${quote(c)}`);
      k += match[0].length;
      if (isAlnum(text[k]) || text[k] === '.')
        throw new TemplateError(
          'parse',
          line,
          `bad number syntax: ${quote(text.slice(from, k + 1))}`,
        );
      push('number', from, { value: parseNumber(match[0], line) });
    } else if (c === '.') {
      k++;
      push('dot', from);
    } else if (/[A-Za-z_]/.test(c)) {
      while (isAlnum(text[k])) k++;
      const word = text.slice(from, k);
      if (word === 'true' || word === 'false') push('bool', from, { value: word === 'true' });
      else if (word === 'nil') push('nil', from, { value: null });
      else if (KEYWORDS.has(word)) push('keyword', from);
      else push('ident', from);
    } else {
      const code = c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      throw new TemplateError('parse', line, `unrecognized character in action: U+${code} '${c}'`);
    }
  }
}

/** Reads `.A.B.C` starting at `k` (which may not be a dot: then the chain is empty). */
function lexChain(text: string, k: number): { names: string[]; end: number } {
  const names: string[] = [];
  let pos = k;
  while (text[pos] === '.' && /[A-Za-z_]/.test(text[pos + 1] ?? '')) {
    let end = pos + 1;
    while (isAlnum(text[end])) end++;
    names.push(text.slice(pos + 1, end));
    pos = end;
  }
  return { names, end: pos };
}

function parseNumber(text: string, line: number): number {
  const clean = text.replace(/_/g, '');
  const sign = clean.startsWith('-') ? -1 : 1;
  const body = clean.replace(/^[+-]/, '');
  let value: number;
  if (/^0[xX]/.test(body)) value = parseInt(body.slice(2), 16);
  else if (/^0[oO]/.test(body)) value = parseInt(body.slice(2), 8);
  else if (/^0[bB]/.test(body)) value = parseInt(body.slice(2), 2);
  else if (/^0[0-7]+$/.test(body)) value = parseInt(body.slice(1), 8);
  else value = Number(body);
  if (Number.isNaN(value))
    throw new TemplateError('parse', line, `bad number syntax: ${quote(text)}`);
  return sign * value;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  '"': '"',
  "'": "'",
};

/** Decodes a Go interpreted string literal (with its quotes). */
function unquote(literal: string, line: number): string {
  let out = '';
  const body = literal.slice(1, -1);
  for (let k = 0; k < body.length; k++) {
    const c = body[k]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++k];
    if (e === undefined) throw new TemplateError('parse', line, `invalid syntax: ${literal}`);
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    const hexLength = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (hexLength > 0) {
      const hex = body.slice(k + 1, k + 1 + hexLength);
      if (!new RegExp(`^[0-9a-fA-F]{${String(hexLength)}}$`).test(hex))
        throw new TemplateError('parse', line, `invalid syntax: ${literal}`);
      out += String.fromCodePoint(parseInt(hex, 16));
      k += hexLength;
      continue;
    }
    const octal = body.slice(k, k + 3);
    if (/^[0-7]{3}$/.test(octal)) {
      out += String.fromCharCode(parseInt(octal, 8));
      k += 2;
      continue;
    }
    throw new TemplateError('parse', line, `invalid syntax: ${literal}`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Parser

type Operand =
  | { readonly t: 'field'; readonly chain: readonly string[]; readonly text: string }
  | { readonly t: 'dot'; readonly text: string }
  | {
      readonly t: 'variable';
      readonly name: string;
      readonly chain: readonly string[];
      readonly text: string;
    }
  | { readonly t: 'func'; readonly name: string; readonly text: string }
  | { readonly t: 'literal'; readonly value: unknown; readonly text: string }
  | {
      readonly t: 'paren';
      readonly pipe: Pipeline;
      readonly chain: readonly string[];
      readonly text: string;
    };

interface Command {
  readonly args: readonly Operand[];
  readonly text: string;
}

interface Pipeline {
  readonly line: number;
  readonly decl: readonly string[];
  /** True for `$x = …` (assignment to an existing variable), false for `$x := …`. */
  readonly assign: boolean;
  readonly cmds: readonly Command[];
}

type Node =
  | { readonly t: 'text'; readonly text: string }
  | { readonly t: 'action'; readonly pipe: Pipeline }
  | {
      readonly t: 'if' | 'with' | 'range';
      readonly pipe: Pipeline;
      readonly list: readonly Node[];
      readonly elseList: readonly Node[] | undefined;
    }
  | { readonly t: 'break' | 'continue'; readonly line: number };

const FUNCTIONS = new Set([
  'and',
  'or',
  'not',
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'len',
  'index',
  'print',
  'printf',
  'println',
]);

type Terminator =
  | { readonly kind: 'eof' }
  | { readonly kind: 'end'; readonly line: number }
  | { readonly kind: 'else'; readonly line: number; readonly rest: readonly Token[] };

/**
 * How deeply actions may nest: if/with/range bodies and parenthesised pipelines together. Go
 * allows 10,000 parentheses on its growable stacks; a JavaScript stack is fixed, so the parser
 * and the executor, which recurse once per level, refuse what they could not finish. Real
 * templates nest a handful of levels; this is a guard, not a budget.
 */
export const MAX_TEMPLATE_NESTING = 200;

class Parser {
  private index = 0;
  private depth = 0;
  private vars: string[] = ['$'];
  private rangeDepth = 0;
  readonly fieldNames = new Set<string>();

  constructor(private readonly pieces: readonly Piece[]) {}

  parseRoot(): Node[] {
    const { list, term } = this.parseList();
    if (term.kind === 'end') throw new TemplateError('parse', term.line, 'unexpected {{end}}');
    if (term.kind === 'else') throw new TemplateError('parse', term.line, 'unexpected {{else}}');
    return list;
  }

  private parseList(): { list: Node[]; term: Terminator } {
    const list: Node[] = [];
    while (this.index < this.pieces.length) {
      const piece = this.pieces[this.index++]!;
      if (piece.kind === 'text') {
        list.push({ t: 'text', text: piece.text });
        continue;
      }
      const [first, ...rest] = piece.tokens;
      if (first === undefined)
        throw new TemplateError('parse', piece.line, 'missing value for command');
      if (first.kind !== 'keyword') {
        list.push({ t: 'action', pipe: this.parsePipeline(piece.tokens, piece.line, 'command') });
        continue;
      }
      switch (first.text) {
        case 'end':
          if (rest.length > 0) throw unexpected(rest[0]!, 'end');
          return { list, term: { kind: 'end', line: piece.line } };
        case 'else':
          return { list, term: { kind: 'else', line: piece.line, rest } };
        case 'if':
        case 'with':
        case 'range':
          list.push(this.parseControl(first.text, rest, piece.line));
          break;
        case 'break':
        case 'continue':
          if (rest.length > 0) throw unexpected(rest[0]!, first.text);
          if (this.rangeDepth === 0)
            throw new TemplateError('parse', piece.line, `{{${first.text}}} outside {{range}}`);
          list.push({ t: first.text, line: piece.line });
          break;
        default:
          throw new TemplateError(
            'parse',
            piece.line,
            `{{${first.text}}} is not supported in extra-manifest templates (no define, template or block)`,
          );
      }
    }
    return { list, term: { kind: 'eof' } };
  }

  /** Enters one level of nesting; throws past MAX_TEMPLATE_NESTING. */
  private enter(line: number): void {
    if (++this.depth > MAX_TEMPLATE_NESTING)
      throw new TemplateError(
        'parse',
        line,
        `actions nest more than ${String(MAX_TEMPLATE_NESTING)} levels deep (if, with, range and parentheses together)`,
      );
  }

  private parseControl(
    kind: 'if' | 'with' | 'range',
    tokens: readonly Token[],
    line: number,
  ): Node {
    this.enter(line);
    try {
      return this.parseControlBody(kind, tokens, line);
    } finally {
      this.depth--;
    }
  }

  private parseControlBody(
    kind: 'if' | 'with' | 'range',
    tokens: readonly Token[],
    line: number,
  ): Node {
    const mark = this.vars.length;
    const pipe = this.parsePipeline(tokens, line, kind);
    if (kind === 'range') this.rangeDepth++;
    const body = this.parseList();
    if (kind === 'range') this.rangeDepth--;
    let elseList: Node[] | undefined;
    const term = body.term;
    if (term.kind === 'eof')
      throw new TemplateError('parse', line, `unexpected EOF in {{${kind}}}`);
    if (term.kind === 'else') {
      const [next, ...rest] = term.rest;
      if (next !== undefined) {
        if (kind === 'range' || next.kind !== 'keyword' || next.text !== kind)
          throw unexpected(next, 'else');
        // `else if` / `else with` chains share the final {{end}}.
        elseList = [this.parseControl(kind, rest, term.line)];
      } else {
        const tail = this.parseList();
        if (tail.term.kind === 'eof')
          throw new TemplateError('parse', term.line, `unexpected EOF in {{${kind}}}`);
        if (tail.term.kind === 'else')
          throw new TemplateError('parse', tail.term.line, `expected end; found {{else}}`);
        elseList = tail.list;
      }
    }
    this.vars.length = mark;
    return { t: kind, pipe, list: body.list, elseList };
  }

  private parsePipeline(tokens: readonly Token[], line: number, context: string): Pipeline {
    let pos = 0;
    const decl: string[] = [];
    let assign = false;
    // Declarations: `$x :=`, `$x =`, and for range `$i, $v :=`.
    const isVar = (k: number): boolean => {
      const token = tokens[k];
      return token?.kind === 'variable' && (token.chain?.length ?? 0) === 0;
    };
    if (isVar(0) && (tokens[1]?.kind === 'declare' || tokens[1]?.kind === 'assign')) {
      decl.push(tokens[0]!.value as string);
      assign = tokens[1].kind === 'assign';
      pos = 2;
    } else if (
      context === 'range' &&
      isVar(0) &&
      tokens[1]?.kind === 'comma' &&
      isVar(2) &&
      tokens[3]?.kind === 'declare'
    ) {
      decl.push(tokens[0]!.value as string, tokens[2]!.value as string);
      pos = 4;
    }
    if (assign) {
      if (!this.vars.includes(decl[0]!))
        throw new TemplateError('parse', line, `undefined variable ${quote(decl[0]!)}`);
    }
    const stream = new TokenStream(tokens, pos, line);
    const cmds = this.parseCommands(stream, context, false);
    if (!stream.done()) throw unexpected(stream.peek()!, context);
    if (!assign) this.vars.push(...decl);
    return { line, decl, assign, cmds };
  }

  private parseCommands(stream: TokenStream, context: string, inParens: boolean): Command[] {
    const cmds: Command[] = [];
    for (;;) {
      const args: Operand[] = [];
      while (!stream.done()) {
        const token = stream.peek()!;
        if (token.kind === 'pipe' || (inParens && token.kind === 'rparen')) break;
        args.push(this.parseOperand(stream, context));
      }
      if (args.length === 0) {
        throw new TemplateError(
          'parse',
          stream.line,
          cmds.length === 0 ? `missing value for ${context}` : 'missing command after "|"',
        );
      }
      const first = args[0]!;
      if (first.t === 'literal' && first.value === null)
        throw new TemplateError('parse', stream.line, 'nil is not a command');
      cmds.push({ args, text: args.map((a) => a.text).join(' ') });
      if (stream.done() || stream.peek()!.kind !== 'pipe') return cmds;
      stream.next();
    }
  }

  private parseOperand(stream: TokenStream, context: string): Operand {
    const token = stream.next()!;
    switch (token.kind) {
      case 'field':
        this.noteFields(token.chain!);
        return { t: 'field', chain: token.chain!, text: token.text };
      case 'dot':
        return { t: 'dot', text: token.text };
      case 'variable': {
        const name = token.value as string;
        if (!this.vars.includes(name))
          throw new TemplateError('parse', token.line, `undefined variable ${quote(name)}`);
        this.noteFields(token.chain!);
        return { t: 'variable', name, chain: token.chain!, text: token.text };
      }
      case 'ident':
        if (!FUNCTIONS.has(token.text))
          throw new TemplateError('parse', token.line, `function ${quote(token.text)} not defined`);
        return { t: 'func', name: token.text, text: token.text };
      case 'string':
      case 'number':
      case 'bool':
      case 'nil':
        return { t: 'literal', value: token.value, text: token.text };
      case 'lparen': {
        this.enter(token.line);
        const cmds = this.parseCommands(stream, context, true);
        this.depth--;
        const close = stream.next();
        if (close?.kind !== 'rparen')
          throw new TemplateError('parse', token.line, 'unclosed left paren');
        const pipe: Pipeline = { line: token.line, decl: [], assign: false, cmds };
        const next = stream.peek();
        let chain: readonly string[] = [];
        if (next?.kind === 'field' && !next.space) {
          stream.next();
          chain = next.chain!;
          this.noteFields(chain);
        }
        const text = `(${cmds.map((c) => c.text).join(' | ')})${chain.map((n) => `.${n}`).join('')}`;
        return { t: 'paren', pipe, chain, text };
      }
      case 'rparen':
        throw new TemplateError('parse', token.line, `unexpected right paren`);
      case 'keyword':
      case 'pipe':
      case 'declare':
      case 'assign':
      case 'comma':
        throw unexpected(token, context);
    }
  }

  private noteFields(chain: readonly string[]): void {
    for (const name of chain) this.fieldNames.add(normalizeFieldName(name));
  }
}

/** A field name as the lookup compares it: lower case, without underscores. */
export function normalizeFieldName(name: string): string {
  let normalized = NORMALIZED.get(name);
  if (normalized === undefined) {
    normalized = name.toLowerCase().replace(/_/g, '');
    if (NORMALIZED.size < 10_000) NORMALIZED.set(name, normalized);
  }
  return normalized;
}
const NORMALIZED = new Map<string, string>();

function unexpected(token: Token, context: string): TemplateError {
  return new TemplateError('parse', token.line, `unexpected ${quote(token.text)} in ${context}`);
}

class TokenStream {
  constructor(
    private readonly tokens: readonly Token[],
    private pos: number,
    private readonly fallbackLine: number,
  ) {}
  done(): boolean {
    return this.pos >= this.tokens.length;
  }
  peek(): Token | undefined {
    return this.tokens[this.pos];
  }
  next(): Token | undefined {
    return this.tokens[this.pos++];
  }
  get line(): number {
    return this.tokens[Math.min(this.pos, this.tokens.length - 1)]?.line ?? this.fallbackLine;
  }
}

// ---------------------------------------------------------------------------------------------
// Execution

/** Thrown by {{break}} and {{continue}} to the enclosing range; never leaves the executor. */
class LoopSignal extends Error {}
const BREAK = new LoopSignal('break');
const CONTINUE = new LoopSignal('continue');
/** Marks "no value piped in" (distinct from a piped nil). */
const NOTHING: unique symbol = Symbol('nothing');

interface Variable {
  readonly name: string;
  value: unknown;
}

class Executor {
  private readonly out: string[] = [];
  private outBytes = 0;
  private readonly vars: Variable[];
  private line = 1;

  constructor(
    root: unknown,
    private readonly budget: TemplateBudget,
    private readonly recorder: ReadRecorder | undefined,
  ) {
    this.vars = [{ name: '$', value: root }];
  }

  run(list: readonly Node[]): string {
    const previous = readField;
    readField = this.read;
    try {
      this.walkList(list, this.vars[0]!.value);
    } finally {
      readField = previous;
    }
    return this.out.join('');
  }

  /** Reads a struct field, recording it when the execution is tracked. */
  private readonly read = (struct: TemplateStruct, name: string): unknown => {
    const value = struct.field(name);
    if (this.recorder && value !== NO_FIELD) this.recorder.note(struct, name, value);
    return value;
  };

  private fail(detail: string, limit?: 'templateSteps' | 'templateOutputBytes'): never {
    throw new TemplateError('execute', this.line, detail, limit);
  }

  private tick(steps = 1): void {
    if (!this.budget.spend(steps))
      this.fail(
        `the templates of this run took more than ${String(this.budget.limits.templateSteps)} steps (a loop that never ends?)`,
        'templateSteps',
      );
  }

  private write(text: string): void {
    // Output is work too: reading the rendered YAML costs more than producing it.
    if (text.length >= 16) this.tick(text.length >>> 4);
    this.outBytes += Buffer.byteLength(text, 'utf8');
    if (this.outBytes > this.budget.limits.templateOutputBytes) this.failOutput();
    this.out.push(text);
  }

  private failOutput(): never {
    return this.fail(
      `the output is larger than ${String(this.budget.limits.templateOutputBytes)} bytes`,
      'templateOutputBytes',
    );
  }

  private walkList(list: readonly Node[], dot: unknown): void {
    for (const node of list) this.walk(node, dot);
  }

  private walk(node: Node, dot: unknown): void {
    this.tick();
    switch (node.t) {
      case 'text':
        this.write(node.text);
        return;
      case 'action': {
        const value = this.evalPipeline(node.pipe, dot);
        if (node.pipe.decl.length === 0) this.write(printValue(value));
        return;
      }
      case 'if':
      case 'with': {
        const mark = this.vars.length;
        const value = this.evalPipeline(node.pipe, dot);
        if (truth(value)) this.walkList(node.list, node.t === 'with' ? value : dot);
        else if (node.elseList) this.walkList(node.elseList, dot);
        this.vars.length = mark;
        return;
      }
      case 'range':
        this.walkRange(node, dot);
        return;
      case 'break':
        this.line = node.line;
        throw BREAK;
      case 'continue':
        this.line = node.line;
        throw CONTINUE;
    }
  }

  private walkRange(
    node: { pipe: Pipeline; list: readonly Node[]; elseList: readonly Node[] | undefined },
    dot: unknown,
  ): void {
    const mark = this.vars.length;
    const { pipe } = node;
    const value = this.evalCommands(pipe, dot);
    // Entries are produced one at a time: `range 100000000` must hit the step budget, not
    // the heap.
    let count = 0;
    let entry: (i: number) => [unknown, unknown] = (i) => [i, i];
    if (Array.isArray(value)) {
      const list: readonly unknown[] = value;
      count = list.length;
      entry = (i) => [i, list[i]];
    } else if (isMap(value)) {
      const map = value;
      const keys = Object.keys(map).sort();
      count = keys.length;
      entry = (i) => [keys[i], map[keys[i]!]];
    } else if (typeof value === 'number' && Number.isInteger(value)) {
      count = Math.max(0, value);
    } else if (value !== null && value !== undefined) {
      this.line = pipe.line;
      this.fail(`range can't iterate over ${clip(formatValue(value), 80)}`);
    }
    if (count === 0) {
      if (node.elseList) this.walkList(node.elseList, dot);
      this.vars.length = mark;
      return;
    }
    for (let i = 0; i < count; i++) {
      this.tick();
      const [key, item] = entry(i);
      this.vars.length = mark;
      if (pipe.decl.length === 1) this.vars.push({ name: pipe.decl[0]!, value: item });
      else if (pipe.decl.length === 2) {
        this.vars.push({ name: pipe.decl[0]!, value: key }, { name: pipe.decl[1]!, value: item });
      }
      try {
        this.walkList(node.list, item);
      } catch (signal) {
        if (signal === BREAK) break;
        if (signal !== CONTINUE) throw signal;
      }
    }
    this.vars.length = mark;
  }

  /** Evaluates a pipeline and performs its declaration or assignment. */
  private evalPipeline(pipe: Pipeline, dot: unknown): unknown {
    const value = this.evalCommands(pipe, dot);
    if (pipe.decl.length > 0) {
      if (pipe.assign) this.lookup(pipe.decl[0]!).value = value;
      else for (const name of pipe.decl) this.vars.push({ name, value });
    }
    return value;
  }

  private evalCommands(pipe: Pipeline, dot: unknown): unknown {
    this.line = pipe.line;
    let value: unknown = NOTHING;
    for (const cmd of pipe.cmds) value = this.evalCommand(cmd, dot, value);
    return value;
  }

  private lookup(name: string): Variable {
    for (let k = this.vars.length - 1; k >= 0; k--)
      if (this.vars[k]!.name === name) return this.vars[k]!;
    return this.fail(`undefined variable: ${name}`);
  }

  private evalCommand(cmd: Command, dot: unknown, piped: unknown): unknown {
    const first = cmd.args[0]!;
    if (first.t === 'func') return this.call(first.name, cmd.args, 1, dot, piped, cmd.text);
    if (cmd.args.length > 1 || piped !== NOTHING)
      this.fail(`executing <${cmd.text}>: can't give argument to non-function ${first.text}`);
    return this.evalOperand(first, dot);
  }

  private evalOperand(arg: Operand, dot: unknown): unknown {
    switch (arg.t) {
      case 'field':
        return this.chain(dot, arg.chain, arg.text);
      case 'dot':
        return dot;
      case 'variable':
        return this.chain(this.lookup(arg.name).value, arg.chain, arg.text);
      case 'literal':
        return arg.value;
      case 'func':
        return this.call(arg.name, [], 0, dot, NOTHING, arg.text);
      case 'paren': {
        const line = this.line;
        const value = this.evalCommands(arg.pipe, dot);
        this.line = line;
        return this.chain(value, arg.chain, arg.text);
      }
    }
  }

  private chain(receiver: unknown, names: readonly string[], text: string): unknown {
    let value = receiver;
    for (const name of names) {
      if (value instanceof TemplateStruct) {
        const next = this.read(value, name);
        if (next === NO_FIELD)
          this.fail(`executing <${text}>: can't evaluate field ${name} in type ${value.goType}`);
        value = next;
      } else if (isMap(value)) {
        value = Object.hasOwn(value, name) ? value[name] : undefined;
      } else if (value === null || value === undefined) {
        this.fail(`executing <${text}>: nil pointer evaluating interface {}.${name}`);
      } else {
        this.fail(`executing <${text}>: can't evaluate field ${name} in type ${goTypeOf(value)}`);
      }
    }
    return value;
  }

  /** Calls function `name` with the operands `argNodes[from..]` and the piped value. */
  private call(
    name: string,
    argNodes: readonly Operand[],
    from: number,
    dot: unknown,
    piped: unknown,
    text: string,
  ): unknown {
    const count = argNodes.length - from + (piped === NOTHING ? 0 : 1);
    if (name === 'and' || name === 'or') {
      // Go 1.18+: stop at the first operand that decides.
      if (count === 0) this.wrongCount(name, 'at least 1', 0, text);
      let value: unknown;
      for (let k = 0; k < count; k++) {
        value = from + k < argNodes.length ? this.evalOperand(argNodes[from + k]!, dot) : piped;
        if (truth(value) === (name === 'or')) return value;
      }
      return value;
    }
    const args: unknown[] = [];
    for (let k = from; k < argNodes.length; k++) args.push(this.evalOperand(argNodes[k]!, dot));
    if (piped !== NOTHING) args.push(piped);
    return this.apply(name, args, text);
  }

  private wrongCount(name: string, want: string, got: number, text: string): never {
    return this.fail(
      `executing <${text}>: wrong number of args for ${name}: want ${want} got ${String(got)}`,
    );
  }

  private apply(name: string, args: readonly unknown[], text: string): unknown {
    const fail = (detail: string): never =>
      this.fail(`executing <${text}>: error calling ${name}: ${detail}`);
    const want = (n: number): void => {
      if (args.length !== n) this.wrongCount(name, String(n), args.length, text);
    };
    switch (name) {
      case 'not':
        want(1);
        return !truth(args[0]);
      case 'eq': {
        if (args.length < 2) fail('missing argument for comparison');
        for (let k = 1; k < args.length; k++)
          if (compare(args[0], args[k], true, fail) === 0) return true;
        return false;
      }
      case 'ne':
        want(2);
        return compare(args[0], args[1], true, fail) !== 0;
      case 'lt':
        want(2);
        return compare(args[0], args[1], false, fail) < 0;
      case 'le':
        want(2);
        return compare(args[0], args[1], false, fail) <= 0;
      case 'gt':
        want(2);
        return compare(args[0], args[1], false, fail) > 0;
      case 'ge':
        want(2);
        return compare(args[0], args[1], false, fail) >= 0;
      case 'len': {
        want(1);
        const value = args[0];
        if (typeof value === 'string') return utf8Length(value);
        if (Array.isArray(value)) return value.length;
        if (isMap(value)) return Object.keys(value).length;
        return fail(`len of type ${goTypeOf(value)}`);
      }
      case 'index': {
        if (args.length === 0) this.wrongCount(name, 'at least 1', 0, text);
        let value = args[0];
        for (let k = 1; k < args.length; k++) value = indexValue(value, args[k], fail);
        return value;
      }
      case 'print':
        return sprint(args);
      case 'println':
        return `${args.map((value) => formatValue(value)).join(' ')}\n`;
      case 'printf': {
        if (args.length === 0) this.wrongCount(name, 'at least 1', 0, text);
        const format = args[0];
        if (typeof format !== 'string')
          fail(`wrong type for value; expected string; got ${goTypeOf(format)}`);
        return sprintf(
          format as string,
          args.slice(1),
          this.budget.limits.templateOutputBytes - this.outBytes,
          () => this.failOutput(),
        );
      }
      default:
        return this.fail(`function ${quote(name)} not defined`);
    }
  }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    !(value instanceof TemplateStruct)
  );
}

/** Go's notion of truth: false, 0, nil and empty strings, slices and maps are false. */
export function truth(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value !== '';
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof TemplateStruct) return true;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

type Kind = 'bool' | 'int' | 'float' | 'string' | 'nil' | 'other';

function kindOf(value: unknown): Kind {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'string';
  return 'other';
}

function compare(
  a: unknown,
  b: unknown,
  equality: boolean,
  fail: (detail: string) => never,
): number {
  const ka = kindOf(a);
  const kb = kindOf(b);
  const numeric = (k: Kind): boolean => k === 'int' || k === 'float';
  if (ka === 'other' || kb === 'other')
    fail(`non-comparable type ${goTypeOf(ka === 'other' ? a : b)}`);
  if (ka === 'nil' || kb === 'nil') {
    if (equality && ka === kb) return 0;
    fail('invalid type for comparison');
  }
  if (ka !== kb && !(numeric(ka) && numeric(kb))) fail('incompatible types for comparison');
  if (ka === 'bool') {
    if (!equality) fail('invalid type for comparison');
    return a === b ? 0 : 1;
  }
  const x = a as number | string;
  const y = b as number | string;
  return x < y ? -1 : x > y ? 1 : 0;
}

function indexValue(value: unknown, key: unknown, fail: (detail: string) => never): unknown {
  if (value === null || value === undefined) return fail('index of untyped nil');
  if (Array.isArray(value) || typeof value === 'string') {
    if (typeof key !== 'number' || !Number.isInteger(key))
      return fail(`cannot index slice/array with type ${goTypeOf(key)}`);
    if (key < 0 || key >= value.length) return fail(`index out of range: ${String(key)}`);
    return typeof value === 'string' ? value.charCodeAt(key) : value[key];
  }
  if (isMap(value)) {
    if (typeof key !== 'string') return fail(`value has type ${goTypeOf(key)}; should be string`);
    return Object.hasOwn(value, key) ? value[key] : undefined;
  }
  return fail(`can't index item of type ${goTypeOf(value)}`);
}

function utf8Length(text: string): number {
  let length = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    length += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return length;
}

/** The Go type name of a value, for messages and `%T`. */
function goTypeOf(value: unknown): string {
  switch (kindOf(value)) {
    case 'nil':
      return '<nil>';
    case 'bool':
      return 'bool';
    case 'int':
      return 'int';
    case 'float':
      return 'float64';
    case 'string':
      return 'string';
    case 'other':
      if (Array.isArray(value)) return '[]interface {}';
      if (value instanceof TemplateStruct) return value.goType;
      return 'map[string]interface {}';
  }
}

/** What `{{ value }}` prints: `<no value>` for nil, Go's `%v` otherwise. */
function printValue(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  return formatValue(value);
}

/** Go's `%v`. */
export function formatValue(value: unknown): string {
  switch (kindOf(value)) {
    case 'nil':
      return '<nil>';
    case 'bool':
      return (value as boolean) ? 'true' : 'false';
    case 'int':
      return String(value);
    case 'float':
      return formatFloatG(value as number);
    case 'string':
      return value as string;
    case 'other':
      if (Array.isArray(value)) return `[${value.map((item) => formatValue(item)).join(' ')}]`;
      if (value instanceof TemplateStruct) {
        const struct = value;
        return `{${struct
          .fieldNames()
          .map((name) => formatValue(readField(struct, name)))
          .join(' ')}}`;
      }
      return `map[${Object.keys(value as object)
        .sort()
        .map((k) => `${k}:${formatValue((value as Record<string, unknown>)[k])}`)
        .join(' ')}]`;
  }
}

/** Go's `%v` of a float64: `%g` with the shortest digits that read back as the same number. */
function formatFloatG(value: number): string {
  return formatFloat(value, 'g', undefined);
}

/** fmt.Sprint: operands separated by a space when neither side is a string. */
function sprint(values: readonly unknown[]): string {
  let out = '';
  values.forEach((value, k) => {
    if (k > 0 && typeof value !== 'string' && typeof values[k - 1] !== 'string') out += ' ';
    out += formatValue(value);
  });
  return out;
}

/** Go's strconv.Quote. */
export function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (code === 7) out += '\\a';
    else if (code === 8) out += '\\b';
    else if (code === 12) out += '\\f';
    else if (code === 11) out += '\\v';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code >= 0x80 && code < 0xa0) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Go's fmt refuses widths and precisions beyond a million (tooLarge in fmt/print.go). */
const FMT_NUMBER_LIMIT = 1e6;

/** A printf directive: flags, width and precision (as Go's fmt.pp keeps them). */
interface Directive {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width: number | undefined;
  precision: number | undefined;
}

/**
 * fmt.Sprintf for the verbs templates use (v s q d t x X o b c U e E f F g G T and %%), with
 * Go's answers to bad input written into the output, never thrown: %!d(string=x), MISSING,
 * EXTRA, NOVERB, BADWIDTH and BADPREC. `room` is the output the rendering may still produce:
 * a width or precision beyond it fails the rendering before a string that size is built.
 */
function sprintf(
  format: string,
  args: readonly unknown[],
  room: number,
  tooLarge: () => never,
): string {
  let out = '';
  let argIndex = 0;
  let pos = 0;
  const end = format.length;
  /** Go's parsenum: digits, refusing (and consuming the rest of the format) past 1e6. */
  const parseNumber = (): number | undefined | 'overflow' => {
    let num = 0;
    let any = false;
    while (pos < end && format.charCodeAt(pos) >= 48 && format.charCodeAt(pos) <= 57) {
      if (num > FMT_NUMBER_LIMIT) {
        pos = end;
        return 'overflow';
      }
      num = num * 10 + format.charCodeAt(pos) - 48;
      any = true;
      pos++;
    }
    return any ? num : undefined;
  };
  /** Go's intFromArg: an int operand within ±1e6, or undefined. */
  const intArg = (): number | undefined => {
    if (argIndex >= args.length) return undefined;
    const value = args[argIndex++];
    return typeof value === 'number' &&
      Number.isInteger(value) &&
      Math.abs(value) <= FMT_NUMBER_LIMIT
      ? value
      : undefined;
  };
  while (pos < end) {
    const percent = format.indexOf('%', pos);
    if (percent < 0) {
      out += format.slice(pos);
      break;
    }
    out += format.slice(pos, percent);
    pos = percent + 1;
    const d: Directive = {
      minus: false,
      plus: false,
      sharp: false,
      space: false,
      zero: false,
      width: undefined,
      precision: undefined,
    };
    for (; pos < end; pos++) {
      const c = format[pos];
      if (c === '#') d.sharp = true;
      else if (c === '0') d.zero = !d.minus;
      else if (c === '+') d.plus = true;
      else if (c === '-') {
        d.minus = true;
        d.zero = false;
      } else if (c === ' ') d.space = true;
      else break;
    }
    if (format[pos] === '*') {
      pos++;
      const width = intArg();
      if (width === undefined) out += '%!(BADWIDTH)';
      else if (width < 0) {
        d.width = -width;
        d.minus = true;
        d.zero = false;
      } else d.width = width;
    } else {
      const width = parseNumber();
      if (width !== 'overflow') d.width = width;
    }
    if (pos + 1 < end && format[pos] === '.') {
      pos++;
      if (format[pos] === '*') {
        pos++;
        const precision = intArg();
        if (precision === undefined) out += '%!(BADPREC)';
        else if (precision >= 0) d.precision = precision;
      } else {
        const precision = parseNumber();
        if (precision !== 'overflow') d.precision = precision ?? 0;
      }
    }
    if (pos >= end) {
      out += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(pos)!);
    pos += verb.length;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argIndex >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    if ((d.width ?? 0) > room || (d.precision ?? 0) > room) tooLarge();
    const value = args[argIndex++];
    out += pad(formatVerb(verb, value, d), d);
  }
  if (argIndex < args.length) {
    out += `%!(EXTRA ${args
      .slice(argIndex)
      .map((v) => `${goTypeOf(v)}=${formatValue(v)}`)
      .join(', ')})`;
  }
  return out;
}

/** Pads to the width, in characters (Go counts runes), with zeros after the sign for numbers. */
function pad(text: string, d: Directive): string {
  const width = d.width;
  if (width === undefined) return text;
  const length = runeCount(text);
  if (length >= width) return text;
  if (d.minus) return text + ' '.repeat(width - length);
  if (d.zero && /^[-+ ]?[0-9.]/.test(text)) {
    const sign = /^[-+ ]/.test(text) ? text[0]! : '';
    return sign + '0'.repeat(width - length) + text.slice(sign.length);
  }
  return ' '.repeat(width - length) + text;
}

function runeCount(text: string): number {
  let count = 0;
  for (let k = 0; k < text.length; k++) {
    const code = text.charCodeAt(k);
    if (code < 0xd800 || code > 0xdbff) count++;
  }
  return count;
}

function badVerb(verb: string, value: unknown): string {
  return `%!${verb}(${goTypeOf(value)}=${formatValue(value)})`;
}

/** The character of a rune as Go writes it: U+FFFD for anything that is not a Unicode scalar. */
function runeText(n: number): string {
  const valid = n >= 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff);
  return String.fromCodePoint(valid ? n : 0xfffd);
}

/** Go's strconv.QuoteRune: a rune in single quotes, escaped as Go escapes it. */
function goQuoteRune(n: number): string {
  const ch = runeText(n);
  if (ch === "'") return "'\\''";
  if (ch === '"') return `'"'`;
  return `'${goQuote(ch).slice(1, -1)}'`;
}

function formatVerb(verb: string, value: unknown, d: Directive): string {
  const kind = kindOf(value);
  const precision = d.precision;
  switch (verb) {
    case 'v':
      return formatValue(value);
    case 'T':
      return goTypeOf(value);
    case 's':
      if (kind === 'string') {
        const text = value as string;
        return precision === undefined ? text : Array.from(text).slice(0, precision).join('');
      }
      if (Array.isArray(value)) return `[${value.map((v) => formatVerb('s', v, d)).join(' ')}]`;
      return badVerb(verb, value);
    case 'q':
      if (kind === 'string') return goQuote(value as string);
      if (kind === 'int') return goQuoteRune(value as number);
      if (Array.isArray(value)) return `[${value.map((v) => formatVerb('q', v, d)).join(' ')}]`;
      return badVerb(verb, value);
    case 't':
      return kind === 'bool' ? formatValue(value) : badVerb(verb, value);
    case 'c':
      return kind === 'int' ? runeText(value as number) : badVerb(verb, value);
    case 'U': {
      if (kind !== 'int') return badVerb(verb, value);
      const n = value as number;
      const hex = (n < 0 ? BigInt.asUintN(64, BigInt(n)) : BigInt(n)).toString(16).toUpperCase();
      return `U+${hex.padStart(4, '0')}`;
    }
    case 'd':
    case 'b':
    case 'o':
    case 'x':
    case 'X': {
      if (kind === 'string' && (verb === 'x' || verb === 'X')) {
        const hex = [...new TextEncoder().encode(value as string)]
          .map((byte) => byte.toString(16).padStart(2, '0'))
          .join('');
        return verb === 'X' ? hex.toUpperCase() : hex;
      }
      if (kind !== 'int') return badVerb(verb, value);
      const n = value as number;
      const radix = verb === 'd' ? 10 : verb === 'b' ? 2 : verb === 'o' ? 8 : 16;
      let digits = Math.abs(n).toString(radix);
      if (verb === 'X') digits = digits.toUpperCase();
      // Go: a precision is a minimum number of digits, and %.0d of 0 prints nothing.
      if (precision !== undefined)
        digits = precision === 0 && n === 0 ? '' : digits.padStart(precision, '0');
      if (d.sharp && verb !== 'd')
        digits = (verb === 'o' ? '0' : verb === 'b' ? '0b' : verb === 'X' ? '0X' : '0x') + digits;
      return (n < 0 ? '-' : d.plus ? '+' : d.space ? ' ' : '') + digits;
    }
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G': {
      // As in Go, an integer is not a float: printf "%f" 5 prints %!f(int=5).
      if (kind !== 'float') return badVerb(verb, value);
      const n = value as number;
      const lower = verb.toLowerCase() as 'e' | 'f' | 'g';
      let text = formatFloat(n, lower, lower === 'g' ? precision : (precision ?? 6));
      if (verb === 'E' || verb === 'G') text = text.toUpperCase();
      if (Number.isNaN(n)) return d.plus ? '+NaN' : d.space ? ' NaN' : 'NaN';
      if (text.startsWith('-') || text.startsWith('+')) return text;
      return d.plus ? `+${text}` : d.space ? ` ${text}` : text;
    }
    default:
      return badVerb(verb, value);
  }
}

// ---------------------------------------------------------------------------------------------
// Floats, as Go's strconv formats them: from the exact decimal value of the double, rounded
// half to even, so that any precision works (JavaScript's toFixed stops at 100 digits).

/** The exact decimal digits of a positive finite double: value = 0.digits × 10^point. */
function exactDigits(x: number): { digits: string; point: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const high = view.getUint32(0);
  const biased = (high >>> 20) & 0x7ff;
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  let exponent = -1074;
  if (biased !== 0) {
    mantissa |= 1n << 52n;
    exponent = biased - 1075;
  }
  let digits: string;
  let point: number;
  if (exponent >= 0) {
    digits = (mantissa << BigInt(exponent)).toString();
    point = digits.length;
  } else {
    digits = (mantissa * 5n ** BigInt(-exponent)).toString();
    point = digits.length + exponent;
  }
  return { digits: digits.replace(/0+$/, ''), point };
}

/** The shortest digits that read back as `x` (what JavaScript and Go both print by default). */
function shortestDigits(x: number): { digits: string; point: number } {
  const [mantissa, exponent] = x.toExponential().split('e');
  const digits = mantissa!.replace('.', '');
  return { digits: digits.replace(/0+$/, '') || '0', point: Number(exponent) + 1 };
}

/** Keeps `count` digits, rounding half to even as strconv's decimal.Round does. */
function roundDigits(
  d: { digits: string; point: number },
  count: number,
): { digits: string; point: number } {
  const { digits, point } = d;
  if (count < 0) return { digits: '', point };
  if (count >= digits.length) return d;
  const next = digits.charCodeAt(count) - 48;
  const up =
    next === 5 && count + 1 === digits.length
      ? count > 0 && (digits.charCodeAt(count - 1) - 48) % 2 === 1
      : next >= 5;
  if (!up) return { digits: digits.slice(0, count).replace(/0+$/, ''), point };
  let k = count - 1;
  while (k >= 0 && digits[k] === '9') k--;
  if (k < 0) return { digits: '1', point: point + 1 };
  return { digits: digits.slice(0, k) + String.fromCharCode(digits.charCodeAt(k) + 1), point };
}

/** Digit `index` (0-based) of a digit string, '0' beyond it. */
function digitAt(digits: string, index: number): string {
  return index >= 0 && index < digits.length ? digits[index]! : '0';
}

/** %f: all integer digits, then `precision` fraction digits. */
function fixedText(d: { digits: string; point: number }, precision: number): string {
  let whole = '0';
  if (d.point > 0) whole = d.digits.slice(0, d.point).padEnd(d.point, '0');
  if (precision === 0) return whole;
  let fraction = '';
  if (d.point < 0) fraction = '0'.repeat(Math.min(-d.point, precision));
  fraction += d.digits.slice(
    Math.max(d.point, 0),
    Math.max(d.point, 0) + precision - fraction.length,
  );
  return `${whole}.${fraction.padEnd(precision, '0')}`;
}

/** %e: one digit, `precision` fraction digits, and an exponent of at least two digits. */
function exponentText(
  d: { digits: string; point: number },
  precision: number,
  zero: boolean,
): string {
  const exponent = zero ? 0 : d.point - 1;
  let text = digitAt(d.digits, 0);
  if (precision > 0) {
    const fraction = d.digits.slice(1, 1 + precision);
    text += `.${fraction.padEnd(precision, '0')}`;
  }
  return `${text}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/**
 * strconv.FormatFloat(x, verb, precision, 64) for %e, %f and %g; `precision` undefined means
 * the shortest digits that read back as `x` (Go's -1).
 */
function formatFloat(x: number, verb: 'e' | 'f' | 'g', precision: number | undefined): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  const negative = x < 0 || Object.is(x, -0);
  const zero = x === 0;
  const abs = Math.abs(x);
  let d: { digits: string; point: number };
  let shortest = false;
  let prec = precision ?? 0;
  if (precision === undefined) {
    d = zero ? { digits: '', point: 0 } : shortestDigits(abs);
    shortest = true;
    prec =
      verb === 'e'
        ? d.digits.length - 1
        : verb === 'f'
          ? Math.max(d.digits.length - d.point, 0)
          : d.digits.length;
  } else {
    d = zero ? { digits: '', point: 0 } : exactDigits(abs);
    if (verb === 'e') d = roundDigits(d, prec + 1);
    else if (verb === 'f') d = roundDigits(d, d.point + prec);
    else {
      if (prec === 0) prec = 1;
      d = roundDigits(d, prec);
    }
  }
  let text: string;
  if (verb === 'e') text = exponentText(d, prec, zero);
  else if (verb === 'f') text = fixedText(d, prec);
  else {
    const count = d.digits.length;
    let eprec = prec;
    if (eprec > count && count >= d.point) eprec = count;
    if (shortest) eprec = 6;
    const exponent = zero ? 0 : d.point - 1;
    if (exponent < -4 || exponent >= eprec) {
      if (prec > count) prec = count;
      text = exponentText(d, prec - 1, zero);
    } else {
      if (prec > d.point) prec = count;
      text = fixedText(d, Math.max(prec - d.point, 0));
    }
  }
  return negative ? `-${text}` : text;
}
