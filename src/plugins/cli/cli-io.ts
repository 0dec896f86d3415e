/**
 * The CLI's window on the world, in a module of its own so that the commands main.ts loads on
 * demand can name it without importing main.ts back.
 */

/** Where the CLI writes; injectable for tests. */
export interface CliIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  /**
   * Resolves when stdout has taken what was written (the `drain` of a pipe), or undefined when
   * it has; `generate` waits for it between clusters, so a slow reader holds back rendering
   * instead of the output piling up in memory. @default never waits
   */
  readonly stdoutDrained?: () => Promise<void> | undefined;
  readonly stderr: (text: string) => void;
  /** The environment the Argo CD and kustomize plugin modes read. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The clock of the run's time limit, in milliseconds. @default performance.now */
  readonly now?: () => number;
}
