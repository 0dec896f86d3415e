import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClientNodeRuntimeKubeClient } from '../../src/kube/index.js';
import type { KubeObject } from '../../src/kube/index.js';
import { ApplicationGvk, heldBack, sitesParameter } from '../../src/rollout/argocd-target.js';
import { ArgoCdStandIn } from '../support/argocd-standin.js';
import { hubClient, hubKubeconfig, useNamespace, waitUntil } from '../support/hub.js';
import type { RunResult } from '../support/hub.js';
import { ScriptedInstaller } from '../support/scripted-installer.js';
import { serviceAccountKubeconfig } from '../support/rbac.js';
import { ROLLOUT_ARGOCD_RULES, ROLLOUT_RULES } from '../../src/rollout/permissions.js';
import { repoRoot, snoSite } from '../support/sites.js';

const ns = useNamespace('rollout-argocd');
const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
}, 90_000);

/**
 * A sites repository: base sites b1..b3 on main; branch next adds n1..n4, gives b1 a label
 * and removes b3. Returns the commits and the site names.
 */
function fleetRepo(prefix: string) {
  const repo = mkdtempSync(join(tmpdir(), 'siteforge-argocd-repo-'));
  const name = (s: string): string => `${prefix}-${s}`;
  const git = (...args: string[]): string => {
    const done = spawnSync(
      'git',
      ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args],
      {
        cwd: repo,
        encoding: 'utf8',
      },
    );
    if (done.status !== 0) throw new Error(`git ${args.join(' ')}: ${done.stderr}`);
    return done.stdout.trim();
  };
  const macs = ['b1', 'b2', 'b3', 'n1', 'n2', 'n3', 'n4'];
  const write = (s: string, labels = ''): void => {
    const mac = `aa:bb:cc:${prefix
      .slice(-2)
      .padStart(2, '0')
      .replace(/[^0-9a-f]/g, 'e')}:00:${String(macs.indexOf(s) + 10)}`;
    writeFileSync(
      join(repo, 'sites', `${name(s)}.yaml`),
      snoSite({ name: name(s), mac, cluster: labels }),
    );
  };
  mkdirSync(join(repo, 'sites'));
  git('init', '-q', '-b', 'main');
  for (const s of ['b1', 'b2', 'b3']) write(s);
  git('add', '.');
  git('commit', '-qm', 'base');
  const from = git('rev-parse', 'HEAD');
  git('checkout', '-q', '-b', 'next');
  for (const s of ['n1', 'n2', 'n3', 'n4']) write(s);
  write('b1', '      clusterLabels:\n        tier: gold\n');
  rmSync(join(repo, 'sites', `${name('b3')}.yaml`));
  git('add', '-A');
  git('commit', '-qm', 'next');
  const to = git('rev-parse', 'HEAD');
  git('checkout', '-q', 'main');
  cleanup.push(async () => {
    const client = hubClient();
    for (const s of ['b1', 'b2', 'b3', 'n1', 'n2', 'n3', 'n4']) {
      await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: name(s) });
      await client.delete({
        apiVersion: 'cluster.open-cluster-management.io/v1',
        kind: 'ManagedCluster',
        name: name(s),
      });
    }
    rmSync(repo, { recursive: true, force: true });
  });
  const plan = join(repo, '..', `${prefix}-plan.json`);
  const site = (s: string, change: string) => ({
    name: name(s),
    site: `site-${name(s)}`,
    change,
    impact: 'safe',
    wave: null,
    held: null,
    file: `sites/${name(s)}.yaml`,
  });
  const gate = { minSucceededPercent: 100, maxFailures: 0, timeoutSeconds: 120 };
  const pacing = { sitesPerHour: 3600, maxInFlight: 4 };
  writeFileSync(
    plan,
    JSON.stringify({
      apiVersion: 'siteforge.io/v1alpha1',
      kind: 'RolloutPlan',
      from: { revision: 'main', commit: from },
      to: { revision: 'next', commit: to },
      path: 'sites',
      waves: [
        { name: 'canary', type: 'canary', action: 'apply', sites: [name('n1')], gate, pacing },
        {
          name: 'wave-1',
          type: 'rollout',
          action: 'apply',
          sites: [name('b1'), name('n2'), name('n3'), name('n4')],
          gate,
          pacing,
        },
        { name: 'removal-1', type: 'removal', action: 'remove', sites: [name('b3')], gate, pacing },
      ],
      sites: [
        site('b1', 'changed'),
        site('b3', 'removed'),
        ...['n1', 'n2', 'n3', 'n4'].map((s) => site(s, 'added')),
      ],
    }),
  );
  return { repo, git, from, to, name, plan };
}

function application(name: string, automated: boolean): KubeObject {
  return {
    ...ApplicationGvk,
    metadata: { name, namespace: ns.name },
    spec: {
      project: 'default',
      destination: { server: 'https://kubernetes.default.svc' },
      source: {
        repoURL: 'https://git.example.com/sites.git',
        targetRevision: 'main',
        path: 'sites',
        plugin: { name: 'siteforge-v1' },
      },
      syncPolicy: {
        ...(automated && { automated: { prune: true, selfHeal: true } }),
        syncOptions: ['PrunePropagationPolicy=background'],
      },
    },
  };
}

const runtime = (): ClientNodeRuntimeKubeClient =>
  ClientNodeRuntimeKubeClient.fromKubeconfig(hubKubeconfig());

async function app(name: string): Promise<KubeObject> {
  return (await runtime().get({ ...ApplicationGvk, namespace: ns.name, name }))!;
}

async function clusterDeployment(site: string): Promise<KubeObject | undefined> {
  return hubClient().get({
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterDeployment',
    namespace: site,
    name: site,
  });
}

async function labels(site: string): Promise<Readonly<Record<string, string>>> {
  const mc = await hubClient().get({
    apiVersion: 'cluster.open-cluster-management.io/v1',
    kind: 'ManagedCluster',
    name: site,
  });
  return mc?.metadata.labels ?? {};
}

function runner(args: string[], cwd: string, kubeconfig = hubKubeconfig()): Promise<RunResult> {
  return new Promise((resolve, reject) => {
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
      { cwd, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Waits for `check` while the runner runs; fails at once with its output if it ends first. */
async function whileRunning(
  run: Promise<RunResult>,
  what: string,
  check: () => Promise<boolean>,
): Promise<void> {
  let ended: RunResult | undefined;
  void run.then((r) => (ended = r));
  await waitUntil(
    what,
    async () => {
      if (ended !== undefined)
        throw new Error(`${what}: the runner ended (${String(ended.status)}): ${ended.stderr}`);
      return check();
    },
    90_000,
  );
}

describe('siteforge rollout run against Argo CD Applications (stand-in controller)', () => {
  it('automated sync: new sites are held back in the sites selection until their wave; installed sites are never pruned', async () => {
    const fleet = fleetRepo(`sa${Math.random().toString(36).slice(2, 5)}`);
    const n = fleet.name;
    const argocd = new ArgoCdStandIn(fleet.repo, ns.name, ['auto']).start();
    const installer = new ScriptedInstaller(
      new Set(['b1', 'b2', 'b3', 'n1', 'n2', 'n3', 'n4'].map(n)),
    )
      .hold(n('n1'))
      .start();
    cleanup.push(() => {
      installer.stop();
      argocd.stop();
    });
    await runtime().create(application('auto', true));
    await waitUntil(
      'the base sites synced',
      async () => (await clusterDeployment(n('b3'))) !== undefined,
      90_000,
    );
    const b1 = (await clusterDeployment(n('b1')))!.metadata['uid'];

    const run = runner(
      [
        'run',
        fleet.plan,
        '--name',
        'auto',
        '--target',
        'argocd',
        '--argocd-namespace',
        ns.name,
        '--app',
        'auto',
      ],
      fleet.repo,
    );
    await whileRunning(
      run,
      'the new sites held back',
      async () => heldBack(await app('auto')).length === 3,
    );
    // Only now does the branch Argo CD follows get the new sites.
    fleet.git('merge', '-q', '--ff-only', 'next');
    await whileRunning(
      run,
      'Argo CD synced the new revision',
      async () =>
        argocd.syncs.some((s) => s.revision === fleet.to) &&
        (await clusterDeployment(n('n1'))) !== undefined,
    );
    expect(sitesParameter(await app('auto'))).toEqual([
      `!${n('n2')}`,
      `!${n('n3')}`,
      `!${n('n4')}`,
    ]);
    for (const s of ['n2', 'n3', 'n4']) expect(await clusterDeployment(n(s))).toBeUndefined();
    // Automated sync: changes and removals of rendered sites are not gated (the runner says so).
    expect((await labels(n('b1')))['tier']).toBe('gold');
    installer.letGo(n('n1'));
    const { status, stderr } = await run;
    expect(stderr).toContain('Argo CD sync strategy Selection');
    expect(stderr).toContain("changed or removed site(s) reach the hub at Argo CD's next sync");
    expect(status).toBe(0);
    for (const s of ['n2', 'n3', 'n4']) expect(await clusterDeployment(n(s))).toBeDefined();
    expect(await clusterDeployment(n('b3'))).toBeUndefined();
    // b1 was never deleted and re-created, and the selection is back to the user's own.
    expect((await clusterDeployment(n('b1')))?.metadata['uid']).toBe(b1);
    expect(sitesParameter(await app('auto'))).toEqual([]);
    expect(heldBack(await app('auto'))).toEqual([]);
    expect(argocd.syncs.flatMap((s) => s.pruned).filter((p) => !p.includes(n('b3')))).toEqual([]);
    expect(argocd.errors).toEqual([]);
  }, 240_000);

  it('manual sync: each wave is a sync operation of its sites; changes and removals wait for their wave', async () => {
    const fleet = fleetRepo(`op${Math.random().toString(36).slice(2, 5)}`);
    const n = fleet.name;
    const argocd = new ArgoCdStandIn(fleet.repo, ns.name, ['manual']).start();
    const installer = new ScriptedInstaller(
      new Set(['b1', 'b2', 'b3', 'n1', 'n2', 'n3', 'n4'].map(n)),
    )
      .hold(n('n1'))
      .start();
    cleanup.push(() => {
      installer.stop();
      argocd.stop();
    });
    await runtime().create({
      ...application('manual', false),
      operation: { initiatedBy: { username: 'admin' }, sync: { prune: true } },
    });
    await waitUntil(
      'the base sites synced',
      async () => (await clusterDeployment(n('b3'))) !== undefined,
      90_000,
    );
    // The merge lands first: without automated sync nothing reaches the hub.
    fleet.git('merge', '-q', '--ff-only', 'next');

    // The runner with the rights docs/rollout.md lists for the Argo CD target, no more.
    const account = await serviceAccountKubeconfig(
      ns.name,
      'argocd-runner',
      [...ROLLOUT_RULES, ...ROLLOUT_ARGOCD_RULES],
      fleet.repo,
    );
    cleanup.push(account.remove);
    const run = runner(
      [
        'run',
        fleet.plan,
        '--name',
        'manual',
        '--target',
        'argocd',
        '--argocd-namespace',
        ns.name,
        '--app',
        'manual',
      ],
      fleet.repo,
      account.kubeconfig,
    );
    const synced = (site: string) =>
      argocd.syncs.find((s) => !s.automated && s.applied.some((a) => a.includes(site)));
    await whileRunning(run, 'the canary synced', () =>
      Promise.resolve(synced(n('n1')) !== undefined),
    );
    const canarySync = synced(n('n1'))!;
    expect(canarySync.revision).toBe(fleet.to);
    expect(canarySync.applied.filter((a) => !a.includes(n('n1')))).toEqual([]);
    expect((await labels(n('b1')))['tier']).toBeUndefined();
    expect(await clusterDeployment(n('b3'))).toBeDefined();
    expect(await clusterDeployment(n('n2'))).toBeUndefined();

    installer.letGo(n('n1'));
    const { status, stderr } = await run;
    expect(stderr).toContain('Argo CD sync strategy Operation');
    expect(status).toBe(0);
    expect((await labels(n('b1')))['tier']).toBe('gold');
    expect(await clusterDeployment(n('b3'))).toBeUndefined();
    const removal = argocd.syncs.find((s) => s.pruned.length > 0)!;
    expect(removal.pruned.every((p) => p.includes(n('b3')))).toBe(true);
    expect(argocd.errors).toEqual([]);
  }, 240_000);
});
