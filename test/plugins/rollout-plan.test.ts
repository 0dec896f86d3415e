import { spawnSync } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanSite, RolloutPlan } from '../../src/plugins/rollout/plan.js';
import { specFromPlan } from '../../src/rollout/plan-spec.js';
import { snoClusterInstance } from '../support/cluster-instances.js';
import { fleetSite, ScriptedRepo } from '../support/fleet-repo.js';
import { repoRoot } from '../support/sites.js';

function siteforge(
  args: string[],
  cwd: string,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'siteforge.js'), ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `rollout plan --json`, parsed; fails the test on anything but exit 0 or 3. */
function plan(
  repo: ScriptedRepo,
  args: string[],
): { status: number | null; plan: RolloutPlan; stderr: string } {
  const r = siteforge(['rollout', 'plan', '--json', ...args], repo.dir);
  if (r.status !== 0 && r.status !== 3) throw new Error(`exit ${String(r.status)}: ${r.stderr}`);
  return { status: r.status, plan: JSON.parse(r.stdout) as RolloutPlan, stderr: r.stderr };
}

const byName = (p: RolloutPlan): Map<string, PlanSite> => new Map(p.sites.map((s) => [s.name, s]));

const POLICY = `apiVersion: siteforge.io/v1alpha1
kind: RolloutPolicy
metadata:
  name: prod
spec:
  canary:
    sites: [sno-0100]
    selector:
      matchLabels:
        canary: "true"
  waves:
    - name: by-region
      groupBy: [region]
      order: [west]
  maxSitesPerWave: 200
  pacing:
    sitesPerHour: 400
  gate:
    minInstalled: 90%
    maxFailures: 3
    timeout: 2h
`;

const KAC_TEMPLATE = (apps: boolean): string => `apiVersion: agent.open-cluster-management.io/v1
kind: KlusterletAddonConfig
metadata:
  name: "{{ .Cluster.ClusterName }}"
  namespace: "{{ .Cluster.ClusterName }}"
  annotations:
    argocd.argoproj.io/sync-wave: "2"
spec:
  clusterName: "{{ .Cluster.ClusterName }}"
  clusterNamespace: "{{ .Cluster.ClusterName }}"
  applicationManager:
    enabled: ${String(apps)}
`;

const EXTRA_MANIFEST = (seconds: number): string => `apiVersion: v1
kind: ConfigMap
metadata:
  name: site-tuning
  namespace: openshift-config
data:
  timeout: "${String(seconds)}"
`;

/** Labels of site i: two regions, five racks; site 101 is a canary by label. */
const labels = (i: number): Record<string, string> => ({
  region: i % 2 === 0 ? 'east' : 'west',
  rack: `r${String(i % 5)}`,
  ...(i === 101 ? { canary: 'true' } : {}),
});

/** Sites 0-4 read a crTemplate, 5-9 an extra-manifests folder. */
const site = (i: number, extra: Record<string, string> = {}, cluster = ''): string =>
  fleetSite(i, {
    labels: { ...labels(i), ...extra },
    cluster:
      (i < 5 ? '      crTemplates:\n        KlusterletAddonConfig: templates/kac.yaml\n' : '') +
      (i >= 5 && i < 10
        ? '      extraManifests:\n        searchPaths:\n          - extra/\n'
        : '') +
      cluster,
  });

describe('siteforge rollout plan', () => {
  const repo = new ScriptedRepo();
  let base = '';
  let grown = '';
  let day2 = '';
  const compact = readFileSync(join(repoRoot, 'examples', 'sites', 'compact-3node.yaml'), 'utf8');

  beforeAll(() => {
    // 1: twenty sites, a compact cluster, the files some of them read, and the policy.
    repo.write('sites/rollout-policy.yaml', POLICY);
    repo.write('sites/templates/kac.yaml', KAC_TEMPLATE(true));
    repo.write('sites/extra/tuning.yaml', EXTRA_MANIFEST(10));
    repo.write('sites/compact.yaml', compact);
    repo.write('README.md', 'sites\n');
    for (let i = 0; i < 20; i++) repo.write(`sites/site-${String(i)}.yaml`, site(i));
    base = repo.commit('twenty sites');
    // 2: five hundred sites more.
    for (let i = 100; i < 600; i++) repo.write(`sites/site-${String(i)}.yaml`, site(i));
    grown = repo.commit('500 sites');
    // 3: a day-2 commit.
    for (let i = 10; i < 20; i++)
      repo.write(`sites/site-${String(i)}.yaml`, site(i, { tier: 'gold' }));
    for (const i of [200, 201, 202]) repo.remove(`sites/site-${String(i)}.yaml`);
    repo.write('sites/compact.yaml', compact.replace('- 10.20.0.5', '- 10.20.0.7'));
    repo.write('sites/site-300.yaml', fleetSite(300, { name: 'sno-0300-b', labels: labels(300) }));
    repo.write('sites/templates/kac.yaml', KAC_TEMPLATE(false));
    repo.write('sites/extra/tuning.yaml', EXTRA_MANIFEST(20));
    repo.write('README.md', 'sites, day 2\n');
    day2 = repo.commit('day 2');
  });
  afterAll(() => {
    repo.dispose();
  });

  it('plans 500 added sites: the canaries first, then waves per region in the order given, split evenly at most 200 each', () => {
    const { status, plan: p } = plan(repo, ['--from', base, '--to', grown, 'sites']);
    expect(status).toBe(0);
    expect(plan(repo, ['--from', base, '--to', grown, '--validate-all', 'sites']).plan).toEqual(p);
    expect(p.summary).toMatchObject({ added: 500, changed: 0, removed: 0, planned: 500, held: 0 });
    expect(p.summary.fleet).toBe(521);
    expect(p.from.commit).toBe(base);
    expect(p.to.commit).toBe(grown);
    expect(p.policy).toBe(`${grown}:sites/rollout-policy.yaml`);
    expect(p.waves.map((w) => [w.name, w.sites.length])).toEqual([
      ['canary', 2],
      ['by-region-west-1', 125],
      ['by-region-west-2', 124],
      ['by-region-east-1', 125],
      ['by-region-east-2', 124],
    ]);
    expect(p.waves[0]!.sites).toEqual(['sno-0100', 'sno-0101']);
    expect(p.waves[0]!.gate).toEqual({
      minSucceededPercent: 100,
      maxFailures: 0,
      timeoutSeconds: 7200,
    });
    expect(p.waves[1]!.gate).toEqual({
      minSucceededPercent: 90,
      maxFailures: 3,
      timeoutSeconds: 7200,
    });
    expect(p.waves[1]!.pacing).toEqual({ sitesPerHour: 400, maxInFlight: 500 });
    expect(p.waves[1]!.releaseSeconds).toBe(Math.ceil((125 * 3600) / 400));
    for (const w of p.waves.slice(1)) {
      const regions = new Set(w.sites.map((s) => byName(p).get(s)!.labels['region']));
      expect(regions.size).toBe(1);
    }
    const planned = p.waves.flatMap((w) => w.sites);
    expect(new Set(planned).size).toBe(500);
    expect(
      p.sites.every((s) => s.change === 'added' && s.impact === 'safe' && s.wave !== null),
    ).toBe(true);
  });

  it('classifies a day-2 commit: labels, a removal, a VIP change, a rename, and the files sites read', () => {
    const { status, plan: p } = plan(repo, ['--from', grown, '--to', day2, 'sites']);
    expect(status).toBe(3); // sites are held
    const sites = byName(p);
    // Only the sites the commit touches: ten relabelled, three removed, the compact cluster,
    // the renamed pair, the five that read the template and the five that read the folder.
    expect([...sites.keys()].sort()).toEqual(
      [
        ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19].map(
          (i) => `sno-${String(i).padStart(4, '0')}`,
        ),
        'compact-1',
        'sno-0200',
        'sno-0201',
        'sno-0202',
        'sno-0300',
        'sno-0300-b',
      ].sort(),
    );
    expect(p.summary).toMatchObject({ added: 1, changed: 21, removed: 4 });
    // Labels and the template: safe, in the waves.
    expect(sites.get('sno-0010')).toMatchObject({ change: 'changed', impact: 'safe', held: null });
    expect(sites.get('sno-0003')).toMatchObject({ change: 'changed', impact: 'safe' });
    expect(sites.get('sno-0003')!.objects).toEqual({ added: 0, removed: 0, changed: 1 });
    // The extra manifests: the hub takes them, installed sites never read them again.
    expect(sites.get('sno-0007')).toMatchObject({ impact: 'reinstall', held: null });
    expect(sites.get('sno-0007')!.findings[0]).toMatchObject({ code: 'INSTALL_TIME_ONLY' });
    expect(sites.get('sno-0007')!.wave).not.toBeNull();
    // The VIP: rejected by the hub, held.
    expect(sites.get('compact-1')).toMatchObject({
      impact: 'rejected',
      wave: null,
      held: { reason: 'REJECTED' },
    });
    expect(sites.get('compact-1')!.findings[0]!.message).toContain('spec.apiVIPs');
    // The rename: both names held as dangerous.
    expect(sites.get('sno-0300')).toMatchObject({
      change: 'removed',
      held: { reason: 'DANGEROUS' },
    });
    expect(sites.get('sno-0300-b')).toMatchObject({
      change: 'added',
      held: { reason: 'DANGEROUS' },
    });
    // The removals: a wave of their own, last.
    const last = p.waves[p.waves.length - 1]!;
    expect(last).toMatchObject({ name: 'removals', type: 'removal', action: 'remove' });
    expect(last.sites).toEqual(['sno-0200', 'sno-0201', 'sno-0202']);
    expect(p.summary.held).toBe(3);
    // No canary site is touched: said so.
    expect(p.warnings[0]).toContain('no site of this change matches the canary');
    // Validating every site of the target revision plans the same.
    const all = plan(repo, ['--from', grown, '--to', day2, '--validate-all', 'sites']);
    expect(all.plan).toEqual(p);
  });

  it('with --include-dangerous, removes the old name of a renamed cluster, then installs the new one', () => {
    const { status, plan: p } = plan(repo, [
      '--from',
      grown,
      '--to',
      day2,
      '--include-dangerous',
      'sites',
    ]);
    expect(status).toBe(3); // the VIP change stays held
    const names = p.waves.map((w) => w.name);
    expect(names.slice(-2)).toEqual(['removals', 'renamed']);
    expect(p.waves.find((w) => w.name === 'removals')!.sites).toContain('sno-0300');
    expect(p.waves.find((w) => w.name === 'renamed')!.sites).toEqual(['sno-0300-b']);
    expect(byName(p).get('compact-1')!.held!.reason).toBe('REJECTED');
  });

  it('writes the plan siteforge rollout run reads: waves, gates, pacing, added and removed sites', () => {
    const { plan: p } = plan(repo, ['--from', grown, '--to', day2, 'sites']);
    const { spec, notes } = specFromPlan('plan.json', p, {
      mode: 'Apply',
      apply: { path: 'sites' },
    });
    expect(spec.waves.map((w) => w.name)).toEqual(p.waves.map((w) => w.name));
    const removals = spec.waves.find((w) => w.name === 'removals')!;
    expect(removals.removed).toEqual(['sno-0200', 'sno-0201', 'sno-0202']);
    expect(removals.gate).toEqual(p.waves.find((w) => w.name === 'removals')!.gate);
    expect(spec.waves[0]!.sitesPerHour).toBe(400);
    expect(notes.held.map((h) => h.name).sort()).toEqual(['compact-1', 'sno-0300', 'sno-0300-b']);
  });

  it('prints a table for people, and reads the objects only: no worktree, the working tree untouched', () => {
    const r = siteforge(['rollout', 'plan', '--from', grown, '--to', day2, 'sites'], repo.dir);
    expect(r.status).toBe(3);
    expect(r.stdout).toMatch(
      /^rollout plan \S+ \([0-9a-f]{12}\) → \S+ \([0-9a-f]{12}\) in sites$/m,
    );
    expect(r.stdout).toMatch(/^#\s+WAVE\s+TYPE\s+ACTION\s+SITES\s+GATE\s+PACE\s+RELEASE/m);
    expect(r.stdout).toMatch(/removals\s+removal\s+remove\s+3\s+≥90% removed, ≤3 failed, 2h/);
    expect(r.stdout).toContain('compact-1 (changed) REJECTED');
    expect(r.stdout).toContain('install-time-only changes (5 site(s))');
    expect(r.stderr).toBe('');
    expect(repo.git('worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('plans from a sub-folder given as the working directory, and an empty change', () => {
    const r = siteforge(['rollout', 'plan', '--from', day2, '--json'], join(repo.dir, 'sites'));
    expect(r.status).toBe(0);
    const p = JSON.parse(r.stdout) as RolloutPlan;
    expect(p.path).toBe('sites');
    expect(p.summary).toMatchObject({ added: 0, changed: 0, removed: 0, waves: 0 });
  });

  it('refuses bad revisions, a missing folder and options it does not know, with exit 2', () => {
    const bad = siteforge(['rollout', 'plan', '--from', 'no-such-branch', 'sites'], repo.dir);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('"no-such-branch" names no commit');
    const dash = siteforge(['rollout', 'plan', '--from', '--output=x', 'sites'], repo.dir);
    expect(dash.status).toBe(2);
    expect(siteforge(['rollout', 'plan', 'sites'], repo.dir).stderr).toContain('needs --from REV');
    expect(siteforge(['rollout', 'plan', '--from', base, '--frm', 'x'], repo.dir).stderr).toContain(
      'unknown option --frm',
    );
    const gone = siteforge(['rollout', 'plan', '--from', base, 'nowhere'], repo.dir);
    expect(gone.status).toBe(2);
    expect(gone.stderr).toContain('nowhere: no such directory');
    expect(siteforge(['rollout', 'plan', '--from', base, '/'], repo.dir).stderr).toContain(
      'is not inside a git work tree',
    );
  });
});

describe('siteforge rollout plan on bad input', () => {
  it('reports an invalid site at its revision and line, and plans nothing', () => {
    const repo = new ScriptedRepo();
    repo.write(
      'sites/rollout-policy.yaml',
      'apiVersion: siteforge.io/v1alpha1\nkind: RolloutPolicy\nspec: {}\n',
    );
    repo.write('sites/a.yaml', fleetSite(1));
    const one = repo.commit('one');
    repo.write('sites/b.yaml', fleetSite(2).replace('10.0.2.0/24', 'not-a-cidr'));
    repo.commit('two');
    const r = siteforge(['rollout', 'plan', '--from', one], join(repo.dir, 'sites'));
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^HEAD:sites\/b\.yaml:\d+:\d+: error CIDR_INVALID/m);
    expect(r.stderr).toContain('error(s) in the sites at HEAD; nothing was planned');
    repo.dispose();
  });

  it('plans ClusterInstance files like SiteConfigs, labels from extraLabels', () => {
    const repo = new ScriptedRepo();
    repo.write(
      'sites/rollout-policy.yaml',
      'apiVersion: siteforge.io/v1alpha1\nkind: RolloutPolicy\nspec:\n  waves: [{name: zone, groupBy: [zone]}]\n',
    );
    repo.write('sites/a.yaml', fleetSite(1));
    const one = repo.commit('one');
    repo.write(
      'sites/ci.yaml',
      snoClusterInstance({ cluster: '  extraLabels:\n    ManagedCluster:\n      zone: z1\n' }),
    );
    repo.commit('a ClusterInstance');
    const { status, plan: p } = plan(repo, ['--from', one, 'sites']);
    expect(status).toBe(0);
    expect(p.sites).toEqual([
      expect.objectContaining({
        name: 'ci-1',
        site: 'ci-1',
        change: 'added',
        file: 'sites/ci.yaml',
        wave: 'zone-z1',
      }),
    ]);
    expect(p.sites[0]!.labels['zone']).toBe('z1');
    repo.dispose();
  });

  it('finds a new site that takes the name or MAC of a site the change does not touch', () => {
    const repo = new ScriptedRepo();
    repo.write(
      'sites/rollout-policy.yaml',
      'apiVersion: siteforge.io/v1alpha1\nkind: RolloutPolicy\nspec: {}\n',
    );
    for (let i = 0; i < 30; i++) repo.write(`sites/s${String(i)}.yaml`, fleetSite(i));
    const one = repo.commit('thirty');
    // Site 40 under the name of site 7; site 41 with the MAC of site 9.
    repo.write('sites/new-a.yaml', fleetSite(40, { name: 'sno-0007' }));
    repo.write('sites/new-b.yaml', fleetSite(41).replace('0c:42:a1:00:29:01', '0c:42:a1:00:09:01'));
    repo.commit('two more');
    const r = siteforge(['rollout', 'plan', '--from', one, 'sites'], repo.dir);
    expect(r.status).toBe(1);
    // Reported where the loader meets the second one (files in name order).
    expect(r.stderr).toContain(
      'HEAD:sites/s7.yaml:13:20: error CLUSTER_NAME_DUPLICATE: clusterName "sno-0007" is already used at sites/new-a.yaml:13',
    );
    expect(r.stderr).toMatch(
      /^HEAD:sites\/s9\.yaml:\d+:\d+: error MAC_DUPLICATE: MAC 0c:42:a1:00:09:01 is also used by sno-0041/m,
    );
    repo.dispose();
  });

  it('asks for a policy, and reports every problem of an invalid one at its line and column', () => {
    const repo = new ScriptedRepo();
    repo.write('sites/a.yaml', fleetSite(1));
    const one = repo.commit('one');
    const missing = siteforge(['rollout', 'plan', '--from', one, 'sites'], repo.dir);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('HEAD:sites/rollout-policy.yaml: no rollout policy');
    repo.write(
      'sites/rollout-policy.yaml',
      [
        'apiVersion: siteforge.io/v1alpha1',
        'kind: RolloutPolicy',
        'spec:',
        '  gate:',
        '    minInstaled: 95%',
        '    timeout: soon',
        '  waves:',
        '    - name: East',
        '      selector: {matchExpressions: [{key: region, operator: Near}]}',
        '',
      ].join('\n'),
    );
    repo.commit('bad policy');
    const invalid = siteforge(['rollout', 'plan', '--from', one, 'sites'], repo.dir);
    expect(invalid.status).toBe(1);
    expect(invalid.stderr).toContain(
      'HEAD:sites/rollout-policy.yaml:5:5: error POLICY_UNKNOWN_FIELD: unknown field "minInstaled" in spec.gate\n  hint: did you mean minInstalled?',
    );
    expect(invalid.stderr).toContain('HEAD:sites/rollout-policy.yaml:6:14: error POLICY_VALUE');
    expect(invalid.stderr).toContain('HEAD:sites/rollout-policy.yaml:8:13: error POLICY_WAVE_NAME');
    expect(invalid.stderr).toMatch(
      /rollout-policy\.yaml:9:\d+: error POLICY_VALUE: operator must be In/,
    );
    expect(invalid.stderr).toContain('the rollout policy is invalid; nothing was planned');
    // --policy reads a file on disk instead.
    repo.write(
      'local-policy.yaml',
      'apiVersion: siteforge.io/v1alpha1\nkind: RolloutPolicy\nspec: {}\n',
    );
    const local = siteforge(
      ['rollout', 'plan', '--from', one, '--policy', 'local-policy.yaml', 'sites'],
      repo.dir,
    );
    expect(local.status).toBe(0);
    expect(local.stdout).toContain('policy: local-policy.yaml');
    const none = siteforge(
      ['rollout', 'plan', '--from', one, '--policy', 'nope.yaml', 'sites'],
      repo.dir,
    );
    expect(none.status).toBe(2);
    repo.dispose();
  });

  it('never reads outside the repository, even through a link, and keeps to the limits', () => {
    const repo = new ScriptedRepo();
    repo.write(
      'sites/rollout-policy.yaml',
      'apiVersion: siteforge.io/v1alpha1\nkind: RolloutPolicy\nspec: {}\n',
    );
    repo.write('sites/a.yaml', fleetSite(1));
    const one = repo.commit('one');
    symlinkSync('/etc/hostname', join(repo.dir, 'sites', 'outside.yaml'));
    repo.write(
      'sites/b.yaml',
      fleetSite(2, {
        cluster: '      crTemplates:\n        KlusterletAddonConfig: outside.yaml\n',
      }),
    );
    repo.write(
      'sites/c.yaml',
      fleetSite(3, {
        cluster: '      crTemplates:\n        KlusterletAddonConfig: ../../../etc/hostname\n',
      }),
    );
    repo.commit('two');
    const r = siteforge(['rollout', 'plan', '--from', one, 'sites'], repo.dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/HEAD:sites\/b\.yaml:\d+:\d+: error \w+: .*outside\.yaml/);
    expect(r.stderr).toMatch(/HEAD:sites\/c\.yaml:\d+:\d+: error \w+: .*etc\/hostname/);
    const small = siteforge(
      ['rollout', 'plan', '--from', one, '--limit', 'file-bytes=100', 'sites'],
      repo.dir,
    );
    expect(small.status).toBe(1);
    expect(small.stderr).toContain('error LIMIT_FILE_BYTES');
    repo.dispose();
  });

  it('holds removals of more than a tenth of the fleet, unless the policy allows them', () => {
    const repo = new ScriptedRepo();
    repo.write(
      'sites/rollout-policy.yaml',
      'apiVersion: siteforge.io/v1alpha1\nkind: RolloutPolicy\nspec: {}\n',
    );
    for (let i = 0; i < 20; i++) repo.write(`sites/s${String(i)}.yaml`, fleetSite(i));
    const one = repo.commit('twenty');
    for (let i = 0; i < 5; i++) repo.remove(`sites/s${String(i)}.yaml`);
    repo.commit('five gone');
    const held = plan(repo, ['--from', one, 'sites']);
    expect(held.status).toBe(3);
    expect(held.plan.sites.map((s) => s.held?.reason)).toEqual(Array(5).fill('MASS_REMOVAL'));
    expect(held.plan.waves).toEqual([]);
    repo.write(
      'sites/rollout-policy.yaml',
      'apiVersion: siteforge.io/v1alpha1\nkind: RolloutPolicy\nspec:\n  removals: {maxFleetShare: 30%, maxSites: 2}\n',
    );
    repo.commit('allow it');
    const allowed = plan(repo, ['--from', one, 'sites']);
    expect(allowed.status).toBe(0);
    expect(allowed.plan.waves.map((w) => [w.name, w.sites.length])).toEqual([
      ['removals-1', 2],
      ['removals-2', 2],
      ['removals-3', 1],
    ]);
    repo.dispose();
  });
});
