/**
 * Typed errors. Every error SiteForge raises on purpose has a stable `code`; the CLI prints
 * `message` (never a stack) for these and treats anything else as a bug.
 */

/** Base class of all deliberate SiteForge errors. */
export class SiteForgeError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * How bad an issue is: errors fail the run; warnings are printed and let it pass (unless the
 * caller is strict); notes only inform (a skipped document).
 */
export type Severity = 'error' | 'warning' | 'note';

/** One problem found in an input file, positioned at the offending value. */
export interface InputIssue {
  readonly severity: Severity;
  /** Stable identifier, e.g. `VIP_OUTSIDE_MACHINE_NETWORK`. */
  readonly code: string;
  readonly message: string;
  /** How to fix it. */
  readonly hint?: string;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** JSON-pointer-like path of the value in its document, e.g. `/spec/clusters/0/apiVIPs/1`. */
  readonly path: string;
}

/** The input was invalid; `issues` holds every problem found, not only the first. */
export class SiteConfigError extends SiteForgeError {
  constructor(readonly issues: readonly InputIssue[]) {
    const errors = issues.filter((issue) => issue.severity === 'error');
    super('SITECONFIG_INVALID', `${String(errors.length)} error(s) in SiteConfig input`);
  }
}

/** The command line was wrong (unknown flag, missing argument). */
export class UsageError extends SiteForgeError {
  constructor(message: string) {
    super('USAGE', message);
  }
}

/** Characters of a value that a message quotes; the rest is cut (a 200 MB value stays a line). */
export const QUOTE_LIMIT = 80;
/** Characters of a whole message or hint; the last guard against a value quoted without quote(). */
export const MESSAGE_LIMIT = 2_000;

/**
 * A value as messages quote it: a JSON string (control characters escaped, so a value cannot
 * move the terminal's cursor), cut after QUOTE_LIMIT characters with its length said. Maps and
 * lists are named, not printed. Every message that shows a value from an input file uses this.
 */
export function quote(value: unknown, limit = QUOTE_LIMIT): string {
  if (typeof value === 'string') {
    if (value.length <= limit) return JSON.stringify(value);
    // Cut on a code point, never between the halves of a surrogate pair.
    const code = value.charCodeAt(limit - 1);
    const end = code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
    return `${JSON.stringify(value.slice(0, end))}… (${String(value.length)} characters)`;
  }
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a map' : `a ${typeof value}`;
}

/** Text cut to `limit` characters, saying how long it was; for texts that are not values. */
export function clip(text: string, limit = MESSAGE_LIMIT): string {
  return text.length <= limit
    ? text
    : `${text.slice(0, limit)}… (${String(text.length)} characters)`;
}

/** Formats an issue the way compilers do: `file:line:column: error CODE: message` + hint line. */
export function formatIssue(issue: InputIssue): string {
  const head = `${clip(issue.file)}:${String(issue.line)}:${String(issue.column)}: ${issue.severity} ${issue.code}: ${clip(issue.message)}`;
  return issue.hint ? `${head}\n  hint: ${clip(issue.hint)}` : head;
}

/** Orders issues by file, line, column, then code, so reports are stable. */
export function compareIssues(a: InputIssue, b: InputIssue): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}
