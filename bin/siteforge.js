#!/usr/bin/env node
// Entry point of the `siteforge` command; the code lives in build/ (compiled by `npm run build`,
// which `npm ci` runs through the prepare script).
import { once } from 'node:events';
import { runSiteforge } from '../build/src/plugins/cli/entry-point.js';

// generate streams: a reader that goes away (`| head`, a killed pipe) or a full disk is found
// while writing, maybe after the last write. Say so and fail, rather than a stack trace or a
// success with half the output.
process.stdout.on('error', (err) => {
  process.stderr.write(`siteforge: stdout: ${err.message}; the output is incomplete\n`);
  process.exit(1);
});

process.exitCode = await runSiteforge(process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  // A pipe to a slow reader queues what it cannot take yet; generate waits for it to drain
  // before it renders more, so the queue never holds more than a cluster.
  stdoutDrained: () =>
    process.stdout.writableNeedDrain
      ? once(process.stdout, 'drain').then(() => undefined)
      : undefined,
  stderr: (text) => process.stderr.write(text),
});
