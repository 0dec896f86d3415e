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

/** Formats an issue the way compilers do: `file:line:column: error CODE: message` + hint line. */
export function formatIssue(issue: InputIssue): string {
  const head = `${issue.file}:${String(issue.line)}:${String(issue.column)}: ${issue.severity} ${issue.code}: ${issue.message}`;
  return issue.hint ? `${head}\n  hint: ${issue.hint}` : head;
}

/** Orders issues by file, line, column, then code, so reports are stable. */
export function compareIssues(a: InputIssue, b: InputIssue): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}
