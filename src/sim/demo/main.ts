/**
 * The edge of `npm run demo`: argv, stdio, signals and the exit code (scripts/demo.mjs passes
 * the repository's hub and xorriso helpers in).
 */
import { UsageError } from '../../shared/errors.js';
import { DEMO_USAGE, parseDemoArgs } from './demo-args.js';
import { runDemo } from './demo.js';
import type { DemoDeps } from './demo.js';

/** Runs the demo with `argv`; resolves with the exit code. */
export async function main(argv: readonly string[], deps: DemoDeps): Promise<number> {
  let options;
  try {
    options = parseDemoArgs(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`demo: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (options === 'help') {
    process.stdout.write(DEMO_USAGE);
    return 0;
  }
  const stop = new AbortController();
  let signals = 0;
  const onSignal = (): void => {
    signals++;
    // A second Ctrl-C while stopping: the user wants out now.
    if (signals > 1) process.exit(130);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await runDemo(options, deps, {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      // Undefined (falsy), not false, when stdout is a pipe or a file.
      isTTY: process.stdout.isTTY,
      columns: process.stdout.columns > 0 ? process.stdout.columns : 80,
      // npm runs scripts in the package root; INIT_CWD is where the user typed the command.
      cwd: process.env['INIT_CWD'] ?? process.cwd(),
      signal: stop.signal,
      env: process.env,
    });
    return result.exitCode;
  } catch (err) {
    // A --sites-dir that does not exist or cannot be read: one line, not a stack trace.
    if (err instanceof UsageError) {
      process.stderr.write(`demo: ${err.message}\n`);
      return 2;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
