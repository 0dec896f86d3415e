/**
 * The real coreos-installer as a test peer, and the small live ISO of src/sim/live-iso.ts (in the
 * layout coreos-installer expects) with xorriso found or installed.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ensureCoreosInstaller, ensureXorriso } from '../../scripts/hub/coreos-installer.mjs';
import { buildLiveIso, LIVE_ISO_DEFAULT_KARGS } from '../../src/sim/live-iso.js';
import type { LiveIsoOptions } from '../../src/sim/live-iso.js';

const exec = promisify(execFile);

/** The default kernel arguments of the test ISO. */
export const TEST_ISO_DEFAULT_KARGS = LIVE_ISO_DEFAULT_KARGS;

/** Options of {@link buildTestIso}: those of buildLiveIso, xorriso found or installed. */
export type TestIsoOptions = Omit<LiveIsoOptions, 'xorriso'>;

/** Builds the test ISO in `dir`; returns its path. */
export async function buildTestIso(dir: string, options: TestIsoOptions = {}): Promise<string> {
  return buildLiveIso(dir, { ...options, xorriso: await ensureXorriso() });
}

/** Runs coreos-installer with `args`; resolves with its stdout. */
export async function coreosInstaller(...args: string[]): Promise<string> {
  const exe = await ensureCoreosInstaller();
  const { stdout } = await exec(exe, args, { maxBuffer: 64 << 20 });
  return stdout;
}
