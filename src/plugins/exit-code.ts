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
