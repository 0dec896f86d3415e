/**
 * `generate` streams: every site is checked first, then each cluster is rendered and written
 * before the next, so a fleet's memory stays flat (the figures are in `npm run bench`). What a
 * user must still be able to count on: byte-for-byte the same stream, nothing on stdout when
 * any site is invalid (even the last one), a slow reader holding back the rendering instead of
 * the output piling up, and `-o DIR` replaced as a whole or not at all.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArgoCdCommand } from '../../src/plugins/argocd/cmp.js';
import { runCli } from '../../src/plugins/cli/main.js';
import { replaceOutputDir } from '../../src/plugins/cli/output-dir.js';
import { renderFleet, toYamlStream } from '../../src/plugins/render-fleet.js';
import { repoRoot, snoSite } from '../support/sites.js';

const NAMES = ['alpha', 'bravo', 'charlie', 'delta'];

/** A folder of single-node sites, one file each; `last` replaces the text of the last one. */
function fleetDir(last?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-stream-'));
  NAMES.forEach((name, i) => {
    const mac = `aa:bb:cc:00:00:0${String(i + 1)}`;
    const text = i === NAMES.length - 1 && last !== undefined ? last : snoSite({ name, mac });
    writeFileSync(join(dir, `${name}.yaml`), text);
  });
  return dir;
}

/**
 * What a command wrote, with a stdout that drains only when the test says so, like a pipe to a
 * reader that has not read yet.
 */
function slowReader(dir: string) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const waiting: (() => void)[] = [];
  const io = {
    cwd: dir,
    env: { ARGOCD_APP_SOURCE_PATH: 'sites', ARGOCD_APP_NAME: 'sites' },
    stdout: (text: string) => {
      stdout.push(text);
    },
    stderr: (text: string) => {
      stderr.push(text);
    },
    stdoutDrained: () => new Promise<void>((resolve) => waiting.push(resolve)),
  };
  /** Lets the reader take what was written, then gives the command a turn to go on. */
  const read = async (): Promise<void> => {
    for (const resolve of waiting.splice(0)) resolve();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { io, stdout, stderr, read };
}

/** The stream as the whole-fleet path renders it, to compare the streamed bytes with. */
function expectedStream(dir: string): string {
  const files = readdirSync(dir)
    .sort()
    .map((f) => ({ path: f, text: readFileSync(join(dir, f), 'utf8') }));
  return toYamlStream(renderFleet(files).clusters);
}

describe('siteforge generate streams the fleet', () => {
  it('writes one cluster, then waits for a slow reader before it renders the next', async () => {
    const dir = fleetDir();
    const { io, stdout, read } = slowReader(dir);
    const run = runCli(['generate', '.'], io);
    // The first cluster is out before the reader has taken anything; the rest wait for it.
    expect(stdout).toHaveLength(1);
    expect(stdout[0]).toContain('name: alpha');
    for (let i = 2; i <= NAMES.length; i++) {
      await read();
      expect(stdout).toHaveLength(i);
      expect(stdout[i - 1]).toContain(`name: ${NAMES[i - 1]!}`);
    }
    await read();
    expect(await run).toBe(0);
    expect(stdout.join('')).toBe(expectedStream(dir));
  });

  it.each([
    [
      'an invalid field',
      snoSite({
        name: 'delta',
        mac: 'aa:bb:cc:00:00:04',
        node: '          bootMode: UEFISecure\n',
      }),
    ],
    // Found only when the last document is compared with the first.
    ['the boot MAC of the first site', snoSite({ name: 'delta', mac: 'aa:bb:cc:00:00:01' })],
  ])('prints nothing on stdout when the last site has %s', async (_, last) => {
    const { io, stdout, stderr, read } = slowReader(fleetDir(last));
    const run = runCli(['generate', '.'], io);
    await read();
    expect(await run).toBe(1);
    expect(stdout).toEqual([]);
    expect(stderr.join('')).toMatch(/delta\.yaml:\d+:\d+: error .*nothing was generated/s);
  });

  it('with --strict, refuses a ClusterInstance that would lose a field of the last site, before the first byte', async () => {
    const last = snoSite({
      name: 'delta',
      mac: 'aa:bb:cc:00:00:04',
      node: '          userData:\n            name: x\n',
    });
    const { io, stdout, stderr, read } = slowReader(fleetDir(last));
    const run = runCli(['generate', '--strict', '--format', 'clusterinstance', '.'], io);
    await read();
    expect(await run).toBe(1);
    expect(stdout).toEqual([]);
    expect(stderr.join('')).toContain('error CONVERT_USER_DATA');
  });
});

describe('siteforge generate, the real process', () => {
  it('says the output is incomplete when its reader goes away, without a stack trace', async () => {
    // Enough clusters that the stream outgrows the pipe's buffer (64 KiB) several times over.
    const dir = mkdtempSync(join(tmpdir(), 'siteforge-stream-'));
    for (let i = 0; i < 40; i++) {
      const name = `site${String(i).padStart(2, '0')}`;
      const mac = `aa:bb:cc:00:01:${i.toString(16).padStart(2, '0')}`;
      writeFileSync(join(dir, `${name}.yaml`), snoSite({ name, mac }));
    }
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'siteforge.js'), 'generate', dir]);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Like `| head -c 1`: read the first bytes, then close the pipe.
    child.stdout.once('data', () => {
      child.stdout.destroy();
    });
    const status = await new Promise<number | null>((resolve) => {
      child.once('close', resolve);
    });
    expect(status).toBe(1);
    expect(stderr).toBe('siteforge: stdout: write EPIPE; the output is incomplete\n');
  });
});

describe('the Argo CD plugin streams the fleet', () => {
  /** The app directory as argocd-cmp-server prepares it: the repository with the app in sites/. */
  function appDir(last?: string): string {
    const repo = mkdtempSync(join(tmpdir(), 'siteforge-stream-repo-'));
    const sites = fleetDir(last);
    mkdirSync(join(repo, 'sites'));
    for (const f of readdirSync(sites))
      writeFileSync(join(repo, 'sites', f), readFileSync(join(sites, f)));
    return join(repo, 'sites');
  }

  it('writes cluster by cluster, and counts the objects on stderr at the end', async () => {
    const app = appDir();
    const { io, stdout, stderr, read } = slowReader(app);
    const run = runArgoCdCommand(['generate'], io);
    expect(stdout).toHaveLength(1);
    for (const name of NAMES.slice(1)) {
      await read();
      expect(stdout.at(-1)).toContain(`name: ${name}`);
    }
    await read();
    expect(await run).toBe(0);
    expect(stdout).toHaveLength(NAMES.length);
    expect(stdout.join('')).toBe(expectedStream(app));
    const objects = stdout.join('').split(/^---$/m).length - 1;
    expect(stderr.join('')).toBe(
      `siteforge: ${String(objects)} object(s) for 4 cluster(s) from 4 SiteConfig(s) in sites\n`,
    );
  });

  it('prints nothing on stdout when the last site is invalid', async () => {
    const app = appDir(snoSite({ name: 'delta', mac: 'aa:bb:cc:00:00:01' }));
    const { io, stdout, stderr, read } = slowReader(app);
    const run = runArgoCdCommand(['generate'], io);
    await read();
    expect(await run).toBe(1);
    expect(stdout).toEqual([]);
    expect(stderr.join('')).toContain('nothing was generated');
  });
});

describe('generate -o DIR, written as the clusters render', () => {
  it('leaves DIR as it was when the output fails half-way', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'siteforge-stream-out-')), 'out');
    replaceOutputDir(dir, [{ path: 'alpha/namespace_alpha.yaml', text: 'old\n' }], 'generate');
    function* failing() {
      yield { path: 'alpha/namespace_alpha.yaml', text: 'new\n' };
      throw new Error('the disk is full');
    }
    expect(() => {
      replaceOutputDir(dir, failing(), 'generate');
    }).toThrow('the disk is full');
    expect(readFileSync(join(dir, 'alpha', 'namespace_alpha.yaml'), 'utf8')).toBe('old\n');
    expect(readdirSync(join(dir, '..'))).toEqual(['out']);
  });

  it('writes the same files as the stream holds, and nothing when the last site is invalid', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'siteforge-stream-out-')), 'out');
    const quiet = { stdout: () => undefined, stderr: () => undefined };
    expect(await runCli(['generate', '.', '-o', out], { cwd: fleetDir(), ...quiet })).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['.siteforge-output', ...NAMES]);
    const bad = fleetDir(snoSite({ name: 'delta', mac: 'aa:bb:cc:00:00:01' }));
    expect(await runCli(['generate', '.', '-o', out], { cwd: bad, ...quiet })).toBe(1);
    expect(readdirSync(out).sort()).toEqual(['.siteforge-output', ...NAMES]);
    expect(existsSync(join(out, 'delta', 'namespace_delta.yaml'))).toBe(true);
  });
});
