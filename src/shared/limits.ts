/**
 * The budgets of one run. Files from git are untrusted: every limit here bounds the time or
 * memory one hostile or careless file can cost a shared Argo CD repo-server. Each limit has a
 * default that a real fleet never reaches and can be raised by a flag or an environment
 * variable (the edges map `--limit NAME=VALUE` and `SITEFORGE_LIMIT_<NAME>` onto these fields).
 */
import { SiteForgeError } from './errors.js';

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
  /**
   * Alias dereferences in one YAML document, counting the aliases inside what an alias copies
   * (as the `yaml` package's maxAliasCount does), so nested aliases cannot multiply unseen.
   */
  readonly aliases: number;
  /**
   * Nodes that alias dereferences copy into one YAML document: what an alias costs beyond its
   * count (one alias of a large anchored value is as dear as many small ones).
   */
  readonly aliasedNodes: number;
  /** Nesting depth of block and flow collections in one YAML document, aliases expanded. */
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

/**
 * The defaults: far above a real fleet (3,500 sites are 7.4 MB of SiteConfig files, about 2 KB
 * a site), far below what hurts a shared sidecar. Files are read whole, so one file's parse
 * runs before the deadline can be checked again: a 2 MB file of flow-style YAML took 12 s and
 * 450 MB to read (on 2 busy cores), hence 4 MiB a file; a 1,000-site Application, the
 * guidance in docs/argocd.md, generates in about a second, hence 30 s in all, well under the
 * 60 s Argo CD gives a generation (which also streams and unpacks the repository).
 */
export const defaultLimits: Limits = {
  fileBytes: 4 * 1024 * 1024,
  totalInputBytes: 64 * 1024 * 1024,
  documents: 100_000,
  nodesPerCluster: 1_000,
  aliases: 1_000,
  aliasedNodes: 100_000,
  nestingDepth: 256,
  templateOutputBytes: 4 * 1024 * 1024,
  templateSteps: 10_000_000,
  totalMs: 30_000,
};

/**
 * What the image server grants its clients. BMCs are not trusted to read, or even to finish a
 * request: every client holds at most one connection slot, a bounded buffer and bounded time.
 * BMCs read slowly over long links, so the timeouts are long.
 */
export interface ImageServerLimits {
  /** Connections open at once; more are closed as they arrive. */
  readonly maxConnections: number;
  /** Milliseconds a client has to send its request headers (then 408 and closed). */
  readonly headersTimeoutMs: number;
  /** Milliseconds a response may wait for its client to take any of its pending bytes. */
  readonly stallTimeoutMs: number;
  /**
   * Bytes of 1 MiB read buffers all responses together may have in flight; past it, responses
   * read and send 64 KiB at a time.
   */
  readonly responseBufferBytes: number;
}

/** A few thousand BMCs at once, none able to hold the server's memory or sockets for long. */
export const defaultImageServerLimits: ImageServerLimits = {
  maxConnections: 4_096,
  headersTimeoutMs: 20_000,
  stallTimeoutMs: 90_000,
  responseBufferBytes: 256 * 1024 * 1024,
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

/**
 * A run went over one of its limits. Thrown where the run cannot go on (a file too big to
 * read, the deadline passed); the edges print it as `FILE: error LIMIT_...: message` with the
 * hint of {@link limitHint} and exit 1, with nothing on stdout.
 */
export class LimitExceededError extends SiteForgeError {
  /** The hint: how to raise the limit. */
  readonly hint: string;

  constructor(
    /** Which limit. */
    readonly limit: keyof Limits,
    /** What went over it, e.g. `file is 209715200 bytes, over the limit of 33554432`. */
    message: string,
    /** The file it happened in, when there is one. */
    readonly file?: string,
  ) {
    super(limitCode(limit), message);
    this.hint = limitHint(limit);
  }
}
