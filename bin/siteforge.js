#!/usr/bin/env node
// Entry point of the `siteforge` command; the code lives in build/ (compiled by `npm run build`,
// which `npm ci` runs through the prepare script).
import { runSiteforge } from '../build/src/plugins/cli/entry-point.js';

process.exitCode = await runSiteforge(process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
