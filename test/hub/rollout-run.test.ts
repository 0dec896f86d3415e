import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientNodeRuntimeKubeClient } from '../../src/kube/index.js';
import { ROLLOUT_APPLY_RULES, ROLLOUT_RULES } from '../../src/rollout/permissions.js';
import { RolloutStore } from '../../src/rollout/rollout-store.js';
import type { Rollout } from '../../src/rollout/rollout-resource.js';
import {
  hubClient,
  hubKubeconfig,
  siteforgeAsync,
  useNamespace,
  waitUntil,
} from '../support/hub.js';
import type { RunResult } from '../support/hub.js';
import { repoRoot, snoSite } from '../support/sites.js';
import { ScriptedInstaller } from '../support/scripted-installer.js';
import { serviceAccountKubeconfig } from '../support/rbac.js';

const ns = useNamespace('rollout-run');
const prefix = `ro${Math.random().toString(36).slice(2, 6)}`;
const site = (n: number): string => `${prefix}-${String(n)}`;

/** Sites of the repository: 1..3 at the first commit, 4..20 added by the second. */
const BASE = [1, 2, 3].map(site);
const ADDED = Array.from({ length: 17 }, (_, i) => site(i + 4));
let repo: string;
let from: string;
let to: string;

function git(...args: string[]): string {
  const done = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
    cwd: repo,
    encoding: 'utf8',
  });
  if (done.status !== 0) throw new Error(`git ${args.join(' ')}: ${done.stderr}`);
  return done.stdout.trim();
}

function writeSite(n: number): void {
  const mac = `aa:bb:cc:00:${(n >> 8).toString(16).padStart(2, '0')}:${(n & 0xff).toString(16).padStart(2, '0')}`;
  writeFileSync(join(repo, 'sites', `${site(n)}.yaml`), snoSite({ name: site(n), mac }));
}

beforeAll(async () => {
  repo = mkdtempSync(join(tmpdir(), 'siteforge-rollout-repo-'));
  mkdirSync(join(repo, 'sites'));
  git('init', '-q', '-b', 'main');
  [1, 2, 3].forEach(writeSite);
  git('add', '.');
  git('commit', '-qm', 'three sites');
  from = git('rev-parse', 'HEAD');
  // The base sites are on the hub and installed already, as after an earlier rollout.
  const applied = await siteforgeAsync(['apply', 'sites', '--kubeconfig', hubKubeconfig()], repo);
  expect(applied.stderr).toContain('siteforge: applied');
  for (let n = 4; n <= 20; n++) writeSite(n);
  git('add', '.');
  git('commit', '-qm', 'six more');
  to = git('rev-parse', 'HEAD');
});

afterAll(async () => {
  rmSync(repo, { recursive: true, force: true });
  const client = hubClient();
  for (const name of [...BASE, ...ADDED])
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name });
}, 60_000);

/** A plan (siteforge rollout plan --json) of added sites: a canary, then waves. */
function writePlan(file: string, waves: string[][]): string {
  const path = join(repo, '..', `${prefix}-${file}`);
  const gate = { minSucceededPercent: 100, maxFailures: 0, timeoutSeconds: 120 };
  const pacing = { sitesPerHour: 3600, maxInFlight: 2 };
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'siteforge.io/v1alpha1',
      kind: 'RolloutPlan',
      from: { revision: 'main~1', commit: from },
      to: { revision: 'main', commit: to },
      path: 'sites',
      waves: waves.map((sites, i) => ({
        name: i === 0 ? 'canary' : `wave-${String(i)}`,
        type: i === 0 ? 'canary' : 'rollout',
        action: 'apply',
        sites,
        gate,
        pacing,
      })),
      sites: waves.flat().map((name) => ({
        name,
        site: `site-${name}`,
        change: 'added',
        impact: 'safe',
        wave: null,
        held: null,
        file: `sites/${name}.yaml`,
      })),
    }),
  );
  return path;
}

/** A runner, as a child process the test can kill. */
function runner(
  args: string[],
  kubeconfig = hubKubeconfig(),
): {
  child: ChildProcess;
  done: Promise<RunResult>;
  stderr: () => string;
} {
  const child = spawn(
    process.execPath,
    [
      join(repoRoot, 'bin', 'siteforge.js'),
      'rollout',
      ...args,
      '-n',
      ns.name,
      '--kubeconfig',
      kubeconfig,
      '--poll-interval',
      '0.5',
      '--lease-duration',
      '3',
    ],
    { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
  const done = new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
  return { child, done, stderr: () => stderr };
}

function rollouts(): RolloutStore {
  return new RolloutStore(ClientNodeRuntimeKubeClient.fromKubeconfig(hubKubeconfig()));
}

async function rollout(name: string): Promise<Rollout> {
  const r = await rollouts().get(ns.name, name);
  if (!r) throw new Error(`no Rollout ${name}`);
  return r;
}

/** The status of a Rollout, or undefined while it does not exist yet. */
async function statusOf(name: string): Promise<Rollout['status']> {
  return (await rollouts().get(ns.name, name))?.status;
}

async function onHub(name: string): Promise<boolean> {
  return (
    (await hubClient().get({
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterDeployment',
      namespace: name,
      name,
    })) !== undefined
  );
}

async function siteforge(...args: string[]): Promise<RunResult> {
  return siteforgeAsync(['rollout', ...args, '-n', ns.name, '--kubeconfig', hubKubeconfig()], repo);
}

describe('siteforge rollout run (apply target, scripted installs)', () => {
  it('stops at a canary that fails, with the exact condition message, and never applies the next wave', async () => {
    const installer = new ScriptedInstaller(new Set(ADDED))
      .fail(site(4), 'Host ro-4: failed to write image to disk: No space left on device')
      .start();
    try {
      const plan = writePlan('canary.json', [[site(4)], [site(5), site(6)]]);
      const { status, stderr } = await runner([
        'run',
        plan,
        '--name',
        'canary-fails',
        '--target',
        'apply',
      ]).done;
      expect(status).toBe(1);
      expect(stderr).toContain('wave canary: failed');
      expect(stderr).toContain(
        `site ${site(4)} (failed): AgentClusterInstall ${site(4)}/${site(4)} Failed InstallationFailed: The installation failed: Host ro-4: failed to write image to disk: No space left on device`,
      );
      expect(await onHub(site(5))).toBe(false);
      expect(await onHub(site(6))).toBe(false);
      const r = await rollout('canary-fails');
      expect(r.status?.phase).toBe('Failed');
      expect(r.status?.waves.map((w) => w.phase)).toEqual(['Failed', 'Pending']);
      const shown = await siteforge('status', 'canary-fails');
      expect(shown.stdout).toMatch(/canary\s+Failed\s+1\s+1\s+0\s+1\s+0/);
      expect(shown.stdout).toContain('The installation failed: Host ro-4');
    } finally {
      installer.stop();
    }
  }, 120_000);
  it('keeps max in flight, pauses and resumes', async () => {
    const [canary, a, b, c] = [7, 8, 9, 10].map(site) as [string, string, string, string];
    const installer = new ScriptedInstaller(new Set(ADDED)).hold(a, b, c).start();
    try {
      const plan = writePlan('pause.json', [[canary], [a, b, c]]);
      const run = runner(['run', plan, '--name', 'pause-resume', '--target', 'apply']);
      await waitUntil(
        'two sites of wave-1 released',
        async () => (await statusOf('pause-resume'))?.waves[1]?.applied === 2,
      );
      // Both are installing (held): the third waits for a slot.
      expect(await onHub(a)).toBe(true);
      expect(await onHub(b)).toBe(true);
      expect(await onHub(c)).toBe(false);
      expect((await siteforge('pause', 'pause-resume')).status).toBe(0);
      installer.letGo(a, b);
      await waitUntil('the runner sees both installed, paused', async () => {
        const r = await rollout('pause-resume');
        return r.status?.phase === 'Paused' && r.status.waves[1]?.installed === 2;
      });
      expect(await onHub(c)).toBe(false);
      expect((await rollout('pause-resume')).status?.waves[1]?.released).toBe(2);
      installer.letGo(c);
      expect((await siteforge('resume', 'pause-resume')).status).toBe(0);
      const { status, stderr } = await run.done;
      expect(stderr).toContain('rollout ' + ns.name + '/pause-resume: Paused');
      expect(status).toBe(0);
      expect(await onHub(c)).toBe(true);
      expect(installer.seen.slice(0, 1)).toEqual([canary]);
      const r = await rollout('pause-resume');
      expect(r.status?.waves.map((w) => [w.phase, w.installed])).toEqual([
        ['Passed', 1],
        ['Passed', 3],
      ]);
    } finally {
      installer.stop();
    }
  }, 120_000);

  it('refuses a second runner; a runner killed mid-wave is resumed by a new one', async () => {
    const [canary, a, b, c] = [11, 12, 13, 14].map(site) as [string, string, string, string];
    const installer = new ScriptedInstaller(new Set(ADDED)).hold(a, b, c).start();
    try {
      const plan = writePlan('kill.json', [[canary], [a, b, c]]);
      const first = runner(['run', plan, '--name', 'killed', '--target', 'apply']);
      await waitUntil(
        'two sites of wave-1 released',
        async () => (await statusOf('killed'))?.waves[1]?.applied === 2,
      );
      const second = await runner(['run', '--name', 'killed']).done;
      expect(second.status).toBe(4);
      expect(second.stderr).toContain('is driven by another runner');
      expect(second.stderr).toContain((await rollout('killed')).status?.runner ?? '?');

      first.child.kill('SIGKILL');
      await first.done;
      const before = await rollout('killed');
      installer.letGo(a, b, c);
      const third = await runner(['run', '--name', 'killed']).done;
      expect(third.status).toBe(0);
      const after = await rollout('killed');
      expect(after.status?.phase).toBe('Succeeded');
      expect(after.status?.runner).not.toBe(before.status?.runner);
      expect(await onHub(c)).toBe(true);
    } finally {
      installer.stop();
    }
  }, 120_000);

  it('aborts: nothing more is released and released sites are left alone', async () => {
    const [canary, a, b] = [15, 16, 17].map(site) as [string, string, string];
    const installer = new ScriptedInstaller(new Set(ADDED)).hold(canary).start();
    try {
      const plan = writePlan('abort.json', [[canary], [a, b]]);
      const run = runner(['run', plan, '--name', 'aborted', '--target', 'apply']);
      await waitUntil(
        'the canary released',
        async () => (await statusOf('aborted'))?.waves[0]?.applied === 1,
      );
      expect((await siteforge('abort', 'aborted')).status).toBe(0);
      const { status, stderr } = await run.done;
      expect(status).toBe(1);
      expect(stderr).toContain('Aborted');
      installer.letGo(canary);
      expect(await onHub(canary)).toBe(true);
      expect(await onHub(a)).toBe(false);
      expect((await rollout('aborted')).status?.waves.map((w) => w.phase)).toEqual([
        'Aborted',
        'Pending',
      ]);
      const again = await siteforge('resume', 'aborted');
      expect(again.status).toBe(2);
      expect(again.stderr).toContain('cannot resume');
    } finally {
      installer.stop();
    }
  }, 120_000);

  it('runs with the permissions docs/rollout.md lists, and says which one is missing', async () => {
    const [canary, a] = [18, 19].map(site) as [string, string];
    const dir = join(repo, '..');
    const noStatus = ROLLOUT_RULES.filter((r) => !r.resources.includes('rollouts/status'));
    const short = await serviceAccountKubeconfig(
      ns.name,
      'runner-short',
      [...noStatus, ...ROLLOUT_APPLY_RULES],
      dir,
    );
    const full = await serviceAccountKubeconfig(
      ns.name,
      'runner',
      [...ROLLOUT_RULES, ...ROLLOUT_APPLY_RULES],
      dir,
    );
    const installer = new ScriptedInstaller(new Set(ADDED)).start();
    try {
      const plan = writePlan('rbac.json', [[canary], [a]]);
      const refused = await runner(
        ['run', plan, '--name', 'rbac-short', '--target', 'apply'],
        short.kubeconfig,
      ).done;
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(
        `User "${short.user}" cannot update resource "rollouts/status"`,
      );

      const { status, stderr } = await runner(
        ['run', plan, '--name', 'rbac', '--target', 'apply'],
        full.kubeconfig,
      ).done;
      expect(stderr).toContain('Succeeded');
      expect(status).toBe(0);
      expect(await onHub(a)).toBe(true);
    } finally {
      installer.stop();
      await short.remove();
      await full.remove();
    }
  }, 120_000);
});
