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

/** How to raise a limit, for the hint of the error that names it. */
export function raiseLimitHint(name: keyof Limits): string {
  const env = name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
  return `raise the limit ${name} with --limit ${name}=N or SITEFORGE_LIMIT_${env}=N`;
}
