/**
 * The budgets of one run. Files from git are untrusted: every limit here bounds the time or
 * memory one hostile or careless file can cost a shared Argo CD repo-server. Each limit has a
 * default that a real fleet never reaches and can be raised by a flag or an environment
 * variable (the edges map `--limit NAME=VALUE` and `SITEFORGE_LIMIT_<NAME>` onto these fields).
 */

/** The budgets of one run; every field is a hard ceiling. */
export interface Limits {
  /** Bytes of one input file. */
  readonly fileBytes: number;
  /** Bytes of all input files together. */
  readonly totalInputBytes: number;
  /** YAML documents across all input files. */
  readonly documents: number;
  /** Nodes listed by one cluster. */
  readonly nodesPerCluster: number;
  /** Alias dereferences in one YAML document (what the `yaml` package calls maxAliasCount). */
  readonly aliases: number;
  /** Nesting depth of block and flow collections in one YAML document. */
  readonly nestingDepth: number;
  /** Bytes one rendered Go template may produce. */
  readonly templateOutputBytes: number;
  /**
   * Work of all Go template renderings of one run together: one step per action, text piece
   * and loop iteration, and one per 16 characters of output.
   */
  readonly templateSteps: number;
  /** Milliseconds one run may take before it stops with an error. */
  readonly totalMs: number;
}

/** The defaults: far above a real fleet (3,500 sites), far below what hurts a shared sidecar. */
export const defaultLimits: Limits = {
  fileBytes: 32 * 1024 * 1024,
  totalInputBytes: 256 * 1024 * 1024,
  documents: 100_000,
  nodesPerCluster: 1_000,
  aliases: 1_000,
  nestingDepth: 256,
  templateOutputBytes: 4 * 1024 * 1024,
  templateSteps: 10_000_000,
  totalMs: 45_000,
};

/** The name of a limit on the command line, e.g. `file-bytes` for `fileBytes`. */
export function limitFlagName(limit: keyof Limits): string {
  return limit.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The environment variable of a limit, e.g. `SITEFORGE_LIMIT_FILE_BYTES` for `fileBytes`. */
export function limitEnvName(limit: keyof Limits): string {
  return `SITEFORGE_LIMIT_${limitFlagName(limit).replace(/-/g, '_').toUpperCase()}`;
}

/** The issue code of a limit, e.g. `LIMIT_FILE_BYTES` for `fileBytes`. */
export function limitCode(limit: keyof Limits): string {
  return `LIMIT_${limitFlagName(limit).replace(/-/g, '_').toUpperCase()}`;
}

/** The hint of every over-limit message: how to raise that limit, by flag and by env. */
export function limitHint(limit: keyof Limits): string {
  return `raise it with --limit ${limitFlagName(limit)}=N or ${limitEnvName(limit)}=N (in Argo CD: in the environment of the siteforge sidecar)`;
}
