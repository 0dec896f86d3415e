import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/plugins/cli/main.js';

const dir = mkdtempSync(join(tmpdir(), 'siteforge-rollout-cli-'));

/** Runs `siteforge ...` in-process; a kubeconfig that points nowhere, so nothing reaches a hub. */
async function siteforge(
  ...args: string[]
): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {token: t}}]\n',
  );
  const status = await runCli(['rollout', ...args, '--kubeconfig', kubeconfig], {
    cwd: dir,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: {},
  });
  return { status, stdout, stderr };
}

describe('siteforge rollout run|pause|resume|abort|status: the command line', () => {
  it('prints its usage with --help', async () => {
    const { status, stdout } = await siteforge('--help');
    expect(status).toBe(0);
    expect(stdout).toContain('run PLAN.json --name NAME --target argocd|apply');
  });

  it('says what is missing or wrong, before it touches a hub', async () => {
    const cases: [string[], string][] = [
      [['run', 'plan.json'], 'rollout run needs --name NAME'],
      [['run', 'plan.json', '--name', 'Bad_Name'], 'is not a valid Rollout name'],
      [['pause'], 'rollout pause needs the name of a Rollout'],
      [
        ['run', '--name', 'r', '--poll-interval', '0'],
        '--poll-interval needs a number of seconds above 0',
      ],
      [
        ['run', '--name', 'r', '--lease-duration', '1'],
        '--lease-duration needs whole seconds, at least 3',
      ],
      [['run', '--name', 'r', '--target', 'kubectl'], '--target needs argocd or apply'],
      [['status', 'r', '--frobnicate'], 'unknown option --frobnicate'],
      [['restart', 'r'], 'unknown rollout command "restart"'],
    ];
    for (const [args, message] of cases) {
      const { status, stderr } = await siteforge(...args);
      expect([args.join(' '), status]).toEqual([args.join(' '), 2]);
      expect(stderr).toContain(message);
      expect(stderr).not.toContain('    at ');
      // The way out is this command's own help, not the whole CLI's.
      expect(stderr.trimEnd().split('\n').at(-1)).toBe("Run 'siteforge rollout --help' for usage.");
    }
  });

  it('refuses a plan file that is not a plan, with the file named', async () => {
    writeFileSync(join(dir, 'not-json.json'), '{ waves: [');
    const notJson = await siteforge('run', 'not-json.json', '--name', 'r', '--target', 'apply');
    expect(notJson.status).toBe(2);
    expect(notJson.stderr).toContain('not-json.json:1:3: not JSON');
    expect(notJson.stderr).toContain('siteforge rollout plan --json');
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap' }));
    const other = await siteforge('run', 'other.json', '--name', 'r', '--target', 'apply');
    expect(other.status).toBe(1);
    expect(other.stderr).toContain(
      'other.json: not a usable rollout plan:\n  apiVersion "v1", kind "ConfigMap": expected a RolloutPlan of siteforge.io/v1alpha1',
    );
    const noTarget = await siteforge('run', 'other.json', '--name', 'r');
    expect(noTarget.status).toBe(2);
    expect(noTarget.stderr).toContain('rollout run needs --target argocd or --target apply');
  });

  it('reports a hub it cannot reach with exit 3', async () => {
    const { status, stderr } = await siteforge('status', 'r');
    expect(status).toBe(3);
    expect(stderr).toMatch(/^siteforge: /);
    expect(stderr).not.toContain('    at ');
  }, 60_000);
});
