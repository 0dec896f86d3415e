/**
 * A small, fast YAML emitter for JSON-shaped data (objects, arrays, strings, finite numbers,
 * booleans, null). Map keys are written in sorted order, so equal data gives equal bytes.
 *
 * Written for throughput: the `yaml` library's stringify costs seconds for the ~35k objects of a
 * 3,500-site fleet. Output is plain block YAML with 2-space indentation; multi-line strings use
 * literal block scalars; anything that a plain scalar could misread is quoted. "Misread" means by
 * any reader the output meets: the `yaml` package (YAML 1.2) and Go's YAML 1.1 readers, which
 * are what the API server, kubectl, Argo CD and siteconfig-generator use.
 */
import { goYaml11Reading } from './go-yaml-reading.js';

/** Serialises one value as a YAML document body (no `---`), ending with a newline. */
export function emitYaml(value: unknown): string {
  if (!isCollection(value) || isEmptyCollection(value)) {
    // A literal block at the top level still needs indented content: libyaml-based readers
    // (Go's among them) require at least one space.
    const text = scalar(value, 2);
    return text.endsWith('\n') ? text : `${text}\n`;
  }
  // Pieces are collected and joined once: the result is one flat string, where concatenation
  // would leave a rope of thousands of nodes per document alive until it is written.
  const out: string[] = [];
  block(value, 0, out);
  return out.join('');
}

/** Serialises several values as one `---`-separated YAML stream. */
export function emitYamlStream(values: readonly unknown[]): string {
  return values.map((value) => `---\n${emitYaml(value)}`).join('');
}

type Collection = readonly unknown[] | Readonly<Record<string, unknown>>;

function isCollection(value: unknown): value is Collection {
  return value !== null && typeof value === 'object';
}

function isEmptyCollection(value: Collection): boolean {
  if (Array.isArray(value)) return value.length === 0;
  for (const key of Object.keys(value))
    if ((value as Record<string, unknown>)[key] !== undefined) return false;
  return true;
}

const PAD: string[] = [];
function pad(indent: number): string {
  return (PAD[indent] ??= ' '.repeat(indent));
}

/**
 * Writes a map or sequence. `first` is what starts its first line: the padding, or a single
 * space when the block continues a `- ` line (maps inside sequences start on the dash line).
 */
function block(value: Collection, indent: number, out: string[], first = pad(indent)): void {
  // A frozen object cannot change, so its rendering can be reused: fleets share large frozen
  // maps (the default extra manifests) between thousands of objects.
  if (Object.isFrozen(value) && !Array.isArray(value)) {
    const key = `${String(indent)}:${first}`;
    let renderings = FROZEN_BLOCKS.get(value);
    const cached = renderings?.get(key);
    if (cached !== undefined) {
      out.push(cached);
      return;
    }
    const pieces: string[] = [];
    writeBlock(value, indent, pieces, first);
    const text = pieces.join('');
    if (!renderings) FROZEN_BLOCKS.set(value, (renderings = new Map<string, string>()));
    renderings.set(key, text);
    out.push(text);
    return;
  }
  writeBlock(value, indent, out, first);
}

const FROZEN_BLOCKS = new WeakMap<object, Map<string, string>>();

function writeBlock(value: Collection, indent: number, out: string[], first: string): void {
  let lead = first;
  if (Array.isArray(value)) {
    for (const item of value as readonly unknown[]) {
      out.push(lead, '-');
      child(item, indent + 2, out, true);
      lead = pad(indent);
    }
    return;
  }
  const record = value as Readonly<Record<string, unknown>>;
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined) continue;
    const rendered = plainKey(key);
    // An implicit key ends within 1024 characters in YAML; a longer one needs `? key` / `:`.
    if (rendered.length < IMPLICIT_KEY_LIMIT) out.push(lead, rendered, ':');
    else out.push(lead, '? ', rendered, '\n', pad(indent), ':');
    child(item, indent + 2, out, false);
    lead = pad(indent);
  }
}

const IMPLICIT_KEY_LIMIT = 1024;

/** Writes the value after `key:` or `-`. */
function child(item: unknown, indent: number, out: string[], inSequence: boolean): void {
  if (!isCollection(item) || isEmptyCollection(item)) {
    const text = scalar(item, indent);
    out.push(' ', text, text.endsWith('\n') ? '' : '\n');
  } else if (inSequence) {
    block(item, indent, out, ' ');
  } else {
    out.push('\n');
    block(item, indent, out);
  }
}

const PLAIN_START = /^[A-Za-z0-9_./=+(]/;
/**
 * Characters that only a double-quoted escape carries safely: controls, the line breaks of
 * YAML 1.1 (NEL, U+2028, U+2029), the byte-order mark, and the non-characters U+FFFE/U+FFFF
 * that libyaml-based readers refuse as "control characters".
 */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;
/**
 * Plain scalars that a YAML 1.2 reader or another YAML 1.1 reader (PyYAML) would not read back
 * as the same string: null, booleans, numbers, sexagesimals, timestamps, the value key `=`.
 * Go's readers are asked separately (goYaml11Reading), to the letter of their resolvers.
 */
const SPECIAL_PLAIN =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|y|Y|n|N|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|=|[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|0b[01_]+|[-+]?\.[0-9]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*)$/;

/** True when `text` reads back as the same string when written without quotes. */
function isPlainSafe(text: string): boolean {
  return (
    PLAIN_START.test(text) &&
    !UNPRINTABLE.test(text) &&
    !text.includes(': ') &&
    !text.includes(' #') &&
    !text.endsWith(':') &&
    !text.endsWith(' ') &&
    // `...` then a space or the end ends the document when it starts a line (a top-level key).
    !(text.startsWith('...') && (text.length === 3 || text[3] === ' ')) &&
    !SPECIAL_PLAIN.test(text) &&
    goYaml11Reading(text) === 'string'
  );
}

/** Rendered keys and one-line strings: fleets repeat the same few thousand of them. */
const KEY_CACHE = new Map<string, string>();
const STRING_CACHE = new Map<string, string>();
const CACHE_LIMIT = 100_000;

function plainKey(key: string): string {
  let text = KEY_CACHE.get(key);
  if (text === undefined) {
    text = isPlainSafe(key) ? key : quote(key);
    if (KEY_CACHE.size < CACHE_LIMIT) KEY_CACHE.set(key, text);
  }
  return text;
}

function scalar(value: unknown, indent: number): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return String(value);
    if (Number.isNaN(value)) return '.nan';
    return value > 0 ? '.inf' : '-.inf';
  }
  if (Array.isArray(value)) return '[]';
  if (typeof value === 'object') return '{}';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text.includes('\n')) return canBeLiteral(text) ? literal(text, indent) : quote(text);
  let rendered = STRING_CACHE.get(text);
  if (rendered === undefined) {
    rendered = isPlainSafe(text) ? text : quote(text);
    if (STRING_CACHE.size < CACHE_LIMIT && text.length < 256) STRING_CACHE.set(text, rendered);
  }
  return rendered;
}

function quote(text: string): string {
  // Single quotes keep JSON values readable; they cannot carry escapes or line breaks.
  if (!UNPRINTABLE.test(text)) return `'${text.replace(/'/g, "''")}'`;
  // JSON strings are valid YAML double-quoted scalars; escape what JSON leaves raw but YAML forbids.
  return JSON.stringify(text).replace(/[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

function canBeLiteral(text: string): boolean {
  // Literal blocks cannot carry control characters or a carriage return, and lines of only
  // spaces before content would change the detected indentation.
  if (UNPRINTABLE.test(text.replace(/[\n\t]/g, ''))) return false;
  // Lines of only spaces would be misread, and a leading space or empty line would need an
  // indentation indicator; quote those instead. So would a leading tab: Go's readers take it
  // for indentation and refuse the document.
  return (
    !/(^|\n) +(\n|$)/.test(text) &&
    !text.startsWith(' ') &&
    !text.startsWith('\n') &&
    !text.startsWith('\t')
  );
}

function literal(text: string, indent: number): string {
  let chomp = '-';
  let body = text;
  if (text.endsWith('\n')) {
    body = text.slice(0, -1);
    chomp = body.endsWith('\n') || body === '' ? '+' : '';
  }
  const prefix = pad(indent);
  const lines = body.split('\n').map((line) => (line === '' ? '' : prefix + line));
  return `|${chomp}\n${lines.join('\n')}\n`;
}
