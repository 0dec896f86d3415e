import { SiteForgeError, UsageError } from '../shared/errors.js';
import { LimitExceededError } from '../shared/limits.js';

/** Exit codes of every SiteForge command and plugin entry point. */
export const ExitCode = {
  Ok: 0,
  /** The input (site files) is invalid; nothing was written. */
  Invalid: 1,
  /** The command line or the plugin parameters are wrong. */
  Usage: 2,
  /** `diff` found a change the hub rejects or that deletes or re-provisions something. */
  Dangerous: 3,
  /** `apply` or `check` could not reach the hub, or the hub refused the credentials. */
  Unreachable: 3,
  /** A bug in SiteForge. */
  Internal: 70,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * Prints why a command failed, one clear line and never a stack trace, and returns its exit
 * code: usage errors with `usageHint`, input errors as they are, anything else as a bug. A run
 * over a limit is an input error, printed like an issue: `FILE: error LIMIT_...: ...` and how to
 * raise the limit.
 */
export function reportFailure(
  err: unknown,
  io: { readonly stderr: (text: string) => void },
  usageHint: string,
): ExitCode {
  if (err instanceof UsageError) {
    io.stderr(`siteforge: ${err.message}\n${usageHint}\n`);
    return ExitCode.Usage;
  }
  if (err instanceof LimitExceededError) {
    io.stderr(
      `${err.file ?? 'siteforge'}: error ${err.code}: ${err.message}\n  hint: ${err.hint}\n`,
    );
    return ExitCode.Invalid;
  }
  if (err instanceof SiteForgeError) {
    io.stderr(`siteforge: ${err.message}\n`);
    return ExitCode.Invalid;
  }
  const message = err instanceof Error ? err.message : String(err);
  io.stderr(
    `siteforge: internal error: ${message}\nThis is a bug in SiteForge; please report it with the input that caused it.\n`,
  );
  return ExitCode.Internal;
}
