/**
 * Attacks on the budgets of a run: files too big to read, too many of them or of their
 * documents, clusters with too many nodes, runs that outlive Argo CD's deadline, and site
 * patterns that make a backtracking matcher run for hours. Every limit is set small by flag or
 * env so the tests stay fast; what is asserted is what a user sees: exit 1, nothing on stdout,
 * and a message that names the limit and how to raise it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArgoCdCommand } from '../../src/plugins/argocd/cmp.js';
import { compileGlob, siteSelection } from '../../src/plugins/argocd/parameters.js';
import { runCli } from '../../src/plugins/cli/main.js';
import { defaultLimits } from '../../src/shared/limits.js';
import { repoRoot, snoSite } from '../support/sites.js';

/** Runs the real `siteforge` binary, as a user would. */
function siteforge(
  args: string[],
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(repoRoot, 'bin', 'siteforge.js'), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A directory with the given files. */
function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-budgets-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** The output of an in-process run, with a clock that moves as the test says. */
async function runInProcess(
  argv: string[],
  now: () => number,
): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(argv, {
    cwd: repoRoot,
    env: {},
    now,
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { status, stdout, stderr };
}

const site = snoSite();
const siteBytes = Buffer.byteLength(site);

describe('file size', () => {
  it('refuses a file over the limit, naming the limit, its value and how to raise it', () => {
    const dir = dirWith({ 'site.yaml': site });
    const file = join(dir, 'site.yaml');
    const { status, stdout, stderr } = siteforge(['generate', file, '--limit', 'file-bytes=100']);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `${file}: error LIMIT_FILE_BYTES: file is ${String(siteBytes)} bytes, over the limit of 100\n` +
        '  hint: raise it with --limit file-bytes=N or SITEFORGE_LIMIT_FILE_BYTES=N (in Argo CD: in the environment of the siteforge sidecar)\n',
    );
    // The same limit from the environment, and raised again by the flag, which wins.
    expect(siteforge(['validate', file], { SITEFORGE_LIMIT_FILE_BYTES: '100' }).status).toBe(1);
    const raised = siteforge(['generate', file, '--limit=file-bytes=1Ki'], {
      SITEFORGE_LIMIT_FILE_BYTES: '100',
    });
    expect(raised.status).toBe(0);
    expect(raised.stdout).toContain('kind: BareMetalHost');
  });

  it('stops reading a file that reports no size (a device) at the limit', () => {
    const { status, stdout, stderr } = siteforge([
      'validate',
      '/dev/zero',
      '--limit',
      'file-bytes=64Ki',
    ]);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('/dev/zero: error LIMIT_FILE_BYTES: file is over the limit of 65536');
  });

  it('bounds the files a SiteConfig refers to, like the input files', () => {
    const big = `apiVersion: metal3.io/v1alpha1\nkind: HostFirmwareSettings\nspec:\n  settings:\n${'    A: "1"\n'.repeat(400)}`;
    const dir = dirWith({
      'site.yaml': snoSite({ node: '          biosConfigRef:\n            filePath: bios.yaml\n' }),
      'bios.yaml': big,
    });
    const { status, stdout, stderr } = siteforge([
      'generate',
      join(dir, 'site.yaml'),
      '--limit',
      'file-bytes=2Ki',
    ]);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/bios\.yaml: error LIMIT_FILE_BYTES: file is \d+ bytes/);
  });
});

describe('total input and documents', () => {
  it('refuses the file that takes the input over its total', () => {
    const a = snoSite({ name: 'a', mac: 'aa:bb:cc:00:00:0a' });
    const b = snoSite({ name: 'b', mac: 'aa:bb:cc:00:00:0b' });
    const dir = dirWith({ 'a.yaml': a, 'b.yaml': b });
    const total = Buffer.byteLength(a) + Buffer.byteLength(b);
    const limit = String(total - 1);
    // Raised to the total, the same input is valid.
    expect(
      siteforge(['validate', dir, '--limit', `total-input-bytes=${String(total)}`]).status,
    ).toBe(0);
    const { status, stdout, stderr } = siteforge([
      'validate',
      dir,
      '--limit',
      `total-input-bytes=${limit}`,
    ]);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      `b.yaml: error LIMIT_TOTAL_INPUT_BYTES: the input files add up to ${String(total)} bytes with this one, over the limit of ${limit}`,
    );
    expect(stderr).toContain('--limit total-input-bytes=N or SITEFORGE_LIMIT_TOTAL_INPUT_BYTES=N');
  });

  it('counts YAML documents across the input', () => {
    const configMap = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n';
    const dir = dirWith({ 'many.yaml': `${site}${`---\n${configMap}`.repeat(5)}` });
    const { status, stdout, stderr } = siteforge(['generate', dir], {
      SITEFORGE_LIMIT_DOCUMENTS: '4',
    });
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      'many.yaml: error LIMIT_DOCUMENTS: the input holds more than 4 YAML documents (this file brings it to 6)',
    );
  });
});

describe('nodes per cluster', () => {
  it('reports a cluster over the limit at its nodes list and generates nothing', () => {
    const { status, stdout, stderr } = siteforge([
      'generate',
      'examples/sites/compact-3node.yaml',
      '--limit',
      'nodes-per-cluster=2',
    ]);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      'examples/sites/compact-3node.yaml:31:9: error LIMIT_NODES_PER_CLUSTER: the cluster lists 3 nodes, over the limit of 2',
    );
    expect(stderr).toContain('--limit nodes-per-cluster=N or SITEFORGE_LIMIT_NODES_PER_CLUSTER=N');
  });
});

describe('total time', () => {
  it('stops a run that goes past its time limit, between files and sites', async () => {
    let clock = 0;
    // Every look at the clock finds 10 s more gone: the fourth look is past the default 30 s.
    const { status, stdout, stderr } = await runInProcess(['generate', 'examples/sites'], () => {
      clock += 10_000;
      return clock;
    });
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^siteforge: error LIMIT_TOTAL_MS: the run took \d+ ms, over the limit of 30000 ms; nothing was generated\n {2}hint: raise it with --limit total-ms=N or SITEFORGE_LIMIT_TOTAL_MS=N/,
    );
  });

  it('ends well under the 60 s Argo CD gives a generation by default', () => {
    expect(defaultLimits.totalMs).toBeLessThanOrEqual(30_000);
  });

  it('lets a user raise it', async () => {
    let clock = 0;
    const { status, stdout } = await runInProcess(
      ['generate', 'examples/sites', '--limit', 'total-ms=100000000'],
      () => (clock += 10_000),
    );
    expect(status).toBe(0);
    expect(stdout).toContain('kind: AgentClusterInstall');
  });
});

describe('limits on the command line', () => {
  it('rejects unknown names and values that are not whole numbers above 0 (exit 2)', () => {
    for (const [args, env, message] of [
      [['--limit', 'file-bytes=0'], {}, '--limit file-bytes: "0" is not a whole number above 0'],
      [['--limit', 'files=3'], {}, '--limit files: unknown limit; the limits are file-bytes,'],
      [['--limit', 'file-bytes'], {}, 'give NAME=VALUE'],
      [['--limit', 'total-ms=3Mi'], {}, '"3Mi" is not a whole number above 0\n'],
      [[], { SITEFORGE_LIMIT_FILES: '3' }, 'unknown limit SITEFORGE_LIMIT_FILES'],
    ] as const) {
      const { status, stdout, stderr } = siteforge(['validate', 'examples/sites', ...args], env);
      expect(status, args.join(' ')).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain(message);
    }
  });
});

describe('limits in the Argo CD plugin', () => {
  async function pluginRun(
    env: Record<string, string>,
  ): Promise<{ status: number; out: string; err: string }> {
    const app = dirWith({ 'site.yaml': site });
    let out = '';
    let err = '';
    const status = await runArgoCdCommand(['generate'], {
      cwd: app,
      env: { ARGOCD_APP_SOURCE_PATH: 'apps/sites', ARGOCD_APP_PARAMETERS: 'null', ...env },
      stdout: (text) => (out += text),
      stderr: (text) => (err += text),
    });
    return { status, out, err };
  }

  it('come from the sidecar environment', async () => {
    const { status, out, err } = await pluginRun({ SITEFORGE_LIMIT_FILE_BYTES: '100' });
    expect(status).toBe(1);
    expect(out).toBe('');
    expect(err).toContain('apps/sites/site.yaml: error LIMIT_FILE_BYTES');
  });

  it('cannot be raised by an Application, neither by env entry nor by parameter', async () => {
    const byEnv = await pluginRun({
      SITEFORGE_LIMIT_FILE_BYTES: '100',
      ARGOCD_ENV_SITEFORGE_LIMIT_FILE_BYTES: '1000000',
    });
    expect(byEnv.status).toBe(2);
    expect(byEnv.out).toBe('');
    expect(byEnv.err).toContain('unknown env entry SITEFORGE_LIMIT_FILE_BYTES');
    const byParameter = await pluginRun({
      SITEFORGE_LIMIT_FILE_BYTES: '100',
      ARGOCD_APP_PARAMETERS: JSON.stringify([{ name: 'limit', string: 'file-bytes=1000000' }]),
    });
    expect(byParameter.status).toBe(2);
    expect(byParameter.err).toContain('unknown parameter "limit"');
  });
});

describe('site patterns', () => {
  it('match a pathological pattern against a long name in linear time', () => {
    // A backtracking RegExp (^.*a.*a.*a.*b$) takes hours here; the test would time out.
    const name = 'a'.repeat(3000);
    const selection = siteSelection(['*a*a*a*b']);
    expect(selection.select(name, name)).toBe(false);
    expect(selection.select(`${name}b`, 'x')).toBe(true);
    expect(compileGlob('*a*a*a*a*a*a*a*a*a*a*b').matches(name)).toBe(false);
  });

  it('match exactly what the glob means (compared with a RegExp on short names)', () => {
    const alphabet = ['a', 'b', '*', '?', '[ab]', '[!a]', '{a,bb}', '{,b}'];
    const toRegExp: Record<string, string> = {
      '*': '.*',
      '?': '.',
      '[ab]': '[ab]',
      '[!a]': '[^a]',
      '{a,bb}': '(?:a|bb)',
      '{,b}': '(?:|b)',
    };
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 2000; i++) {
      const parts = Array.from({ length: 1 + random(5) }, () => alphabet[random(alphabet.length)]!);
      const name = Array.from({ length: random(7) }, () => 'ab'[random(2)]).join('');
      const expected = new RegExp(`^${parts.map((p) => toRegExp[p] ?? p).join('')}$`).test(name);
      expect(compileGlob(parts.join('')).matches(name), `${parts.join('')} ~ ${name}`).toBe(
        expected,
      );
    }
  });

  it('refuses a pattern longer than any site name could need, quoting only its start', async () => {
    const pattern = `${'x'.repeat(5000)}*`;
    let out = '';
    let err = '';
    const status = await runArgoCdCommand(['generate'], {
      cwd: dirWith({ 'site.yaml': site }),
      env: { PARAM_SITES: pattern },
      stdout: (text) => (out += text),
      stderr: (text) => (err += text),
    });
    expect(status).toBe(2);
    expect(out).toBe('');
    expect(err).toContain('is longer than 1024 characters');
    expect(err.length).toBeLessThan(1000);
  });
});

describe('the kustomize plugin', () => {
  it('reads its limits from the environment kustomize runs in', () => {
    const dir = dirWith({ 'site.yaml': site });
    const { status, stdout, stderr } = siteforge(['kustomize-plugin', join(dir, 'site.yaml')], {
      SITEFORGE_LIMIT_FILE_BYTES: '100',
    });
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('error LIMIT_FILE_BYTES');
  });
});
