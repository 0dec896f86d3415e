/**
 * Attacks on `fromDirectory` credentials: one sidecar serves the Applications of many teams,
 * so a site must only ever read the credentials of its own Argo CD project, and only a named
 * sub-directory of them. And `siteforge diff` must read the same credentials as `generate`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArgoCdCommand } from '../../src/plugins/argocd/cmp.js';
import { repoRoot, snoSite } from '../support/sites.js';

/** A secrets directory shared by two teams (projects), as one sidecar mounts it. */
function sharedSecrets(): string {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-secrets-'));
  const put = (path: string, files: Record<string, string>): void => {
    mkdirSync(join(dir, path), { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, path, name), text);
  };
  put('team-a/bmc', { username: 'admin', password: 'team-a-password' });
  put('team-b/bmc', { username: 'admin', password: 'team-b-password' });
  put('team-b/other-team-bmc', { username: 'admin', password: 'team-b-password' });
  // The secrets directory itself holds credentials too (a careless mount).
  put('.', { username: 'root', password: 'root-password' });
  put('other-team-bmc', { username: 'admin', password: 'root-level-password' });
  return dir;
}

/** A site whose one node reads its BMC credentials from `fromDirectory: <from>`. */
function siteFrom(from: string): string {
  return snoSite({
    node: `          bmcCredentials:\n            fromDirectory: ${JSON.stringify(from)}\n`,
  }).replace('          bmcCredentialsName:\n            name: sno1-bmc\n', '');
}

function appWith(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-app-'));
  writeFileSync(join(dir, 'site.yaml'), text);
  return dir;
}

/** `siteforge argocd generate` for an Application of `project`, in a sidecar with `secrets`. */
async function generate(
  app: string,
  secrets: string,
  project: string | undefined,
): Promise<{ status: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const status = await runArgoCdCommand(['generate'], {
    cwd: app,
    env: {
      SITEFORGE_SECRETS_DIR: secrets,
      ...(project === undefined ? {} : { ARGOCD_APP_PROJECT_NAME: project }),
    },
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
  });
  return { status, out, err };
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');

describe('fromDirectory in the Argo CD plugin', () => {
  it("renders the credentials of the Application's own project", async () => {
    const { status, out } = await generate(appWith(siteFrom('bmc')), sharedSecrets(), 'team-a');
    expect(status).toBe(0);
    expect(out).toContain(b64('team-a-password'));
    expect(out).not.toContain(b64('team-b-password'));
  });

  it("never renders another team's credentials", async () => {
    const secrets = sharedSecrets();
    for (const from of ['other-team-bmc', '../team-b/bmc', 'team-b/bmc', '../../team-b/bmc']) {
      const { status, out, err } = await generate(appWith(siteFrom(from)), secrets, 'team-a');
      expect(status, from).toBe(1);
      expect(out).toBe('');
      expect(err).toMatch(/error SECRET_DIRECTORY_(INVALID|NOT_FOUND)/);
      expect(err).not.toMatch(/password/i);
    }
  });

  it('refuses "." and the files at the root of the secrets directory', async () => {
    const secrets = sharedSecrets();
    for (const from of ['.', './', 'bmc/.', './bmc', '..data']) {
      const { status, out, err } = await generate(appWith(siteFrom(from)), secrets, 'team-a');
      expect(status, from).toBe(1);
      expect(out).toBe('');
      expect(err, from).toMatch(
        /site\.yaml:\d+:\d+: error SECRET_DIRECTORY_INVALID: fromDirectory ".*" (is not the name of a sub-directory|leaves)/,
      );
    }
  });

  it('reads no credentials at all when the project is unknown (Argo CD before 3.0)', async () => {
    const { status, out, err } = await generate(
      appWith(siteFrom('bmc')),
      sharedSecrets(),
      undefined,
    );
    expect(status).toBe(1);
    expect(out).toBe('');
    expect(err).toContain('ARGOCD_APP_PROJECT_NAME is not set');
    // A project name that is a path is no project either.
    const escaping = await generate(appWith(siteFrom('bmc')), sharedSecrets(), '../team-b');
    expect(escaping.status).toBe(1);
    expect(escaping.out).toBe('');
  });
});

describe('fromDirectory on the command line', () => {
  function siteforge(
    args: string[],
    cwd: string,
    env: Record<string, string> = {},
  ): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync(process.execPath, [join(repoRoot, 'bin', 'siteforge.js'), ...args], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it('refuses "." there too', () => {
    const secrets = sharedSecrets();
    const app = appWith(siteFrom('.'));
    const { status, stdout, stderr } = siteforge(
      ['generate', 'site.yaml', '--secrets-dir', secrets],
      app,
    );
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/site\.yaml:\d+:\d+: error SECRET_DIRECTORY_INVALID/);
    expect(stderr).not.toContain('root-password');
  });

  it('diff reads --secrets-dir and SITEFORGE_SECRETS_DIR', () => {
    const secrets = join(sharedSecrets(), 'team-a');
    const work = mkdtempSync(join(tmpdir(), 'siteforge-diff-'));
    for (const side of ['old', 'new']) {
      mkdirSync(join(work, side));
      writeFileSync(join(work, side, 'site.yaml'), siteFrom('bmc'));
    }
    // A change to the site between the two sides, so there is something to report.
    writeFileSync(
      join(work, 'new', 'site.yaml'),
      siteFrom('bmc').replace('10.0.0.0/24', '10.0.0.0/23'),
    );
    const byFlag = siteforge(['diff', 'old', 'new', '--secrets-dir', secrets], work);
    expect(byFlag.stderr).toBe('');
    expect(byFlag.status).toBe(3); // a changed machine network cannot be applied: dangerous
    expect(byFlag.stdout).toContain('cluster sno1 (changed)');
    expect(byFlag.stdout).not.toContain('team-a-password');
    const byEnv = siteforge(['diff', 'old', 'new'], work, { SITEFORGE_SECRETS_DIR: secrets });
    expect(byEnv.stdout).toBe(byFlag.stdout);
    // And between git revisions.
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd: work,
        encoding: 'utf8',
      });
    git('init', '-q');
    git('add', 'old');
    git('commit', '-qm', 'one');
    const revision = siteforge(['diff', 'HEAD', 'HEAD', 'old', '--secrets-dir', secrets], work);
    expect(revision.stderr).toBe('');
    expect(revision.status).toBe(0);
  });
});
