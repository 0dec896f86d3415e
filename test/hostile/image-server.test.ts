import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const here = import.meta.dirname;

/** Runs a child script of this suite with node; kills it after `timeoutMs`. */
async function runChild(
  script: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(here, script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe('the image server in a process that loaded undici', () => {
  it('survives sources that close the connection after the body while the disk lags', async () => {
    // undici 7's HTTP/1 parser asserts `!this.paused` when the connection ends while the body
    // is held back, and kills the process: on the first or second of these downloads when the
    // image server fetched through the process-wide dispatcher.
    const { code, stdout, stderr } = await runChild(
      'close-delimited-download.mjs',
      ['10', '--with-undici-index'],
      60_000,
    );
    expect(stderr).not.toContain('assert(!this.paused)');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ whole: 10 });
  });

  it('is not handed undici as the process-wide fetch dispatcher by the Redfish module', async () => {
    const { code, stdout } = await runChild('close-delimited-download.mjs', ['1'], 60_000);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ installedByRedfish: false, whole: 1 });
  });
});
