import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileSiteConfig, diffFleets, worstImpact } from '../../src/siteconfig/index.js';
import type { CompiledCluster, Manifest } from '../../src/siteconfig/index.js';
import { loadText, repoRoot, snoSite } from '../support/sites.js';

function siteforge(
  args: string[],
  cwd: string,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'siteforge.js'), ...args], {
    cwd,
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Two directories holding the old and the new version of one site file. */
function versions(before: string, after: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-diff-'));
  mkdirSync(join(dir, 'old'));
  mkdirSync(join(dir, 'new'));
  writeFileSync(join(dir, 'old', 'site.yaml'), before);
  writeFileSync(join(dir, 'new', 'site.yaml'), after);
  return dir;
}

const worker = (name: string, mac: string, extra = ''): string =>
  `        - hostName: ${name}\n          role: worker\n          bmcAddress: redfish-virtualmedia://10.0.1.9/redfish/v1/Systems/1\n          bmcCredentialsName:\n            name: ${name}-bmc\n          bootMACAddress: "${mac}"\n${extra}`;

describe('siteforge diff', () => {
  it('lists added, removed and changed objects per cluster, and exits 0 when nothing is dangerous', () => {
    const dir = versions(
      snoSite(),
      snoSite({ cluster: '      clusterLabels:\n        tier: gold\n' }),
    );
    const { status, stdout } = siteforge(['diff', 'old', 'new'], dir);
    expect(stdout).toBe(
      'cluster sno1 (changed)\n  ~ ManagedCluster sno1: metadata.labels.tier\n1 cluster(s) changed, 0 dangerous change(s)\n',
    );
    expect(status).toBe(0);
  });

  it('flags immutable AgentClusterInstall fields and exits 3', () => {
    const dir = versions(snoSite(), snoSite().replace('10.0.0.0/24', '10.0.8.0/24'));
    const { status, stdout } = siteforge(['diff', 'old', 'new'], dir);
    expect(status).toBe(3);
    expect(stdout).toContain(
      'danger IMMUTABLE_FIELD_CHANGED (cluster sno1): AgentClusterInstall sno1: spec.networking.machineNetwork changed; the hub rejects this once the cluster is installed',
    );
  });

  it('recognises a renamed cluster as a delete and a re-install', () => {
    const dir = versions(snoSite({ name: 'edge-a' }), snoSite({ name: 'edge-b' }));
    const { status, stdout } = siteforge(['diff', 'old', 'new'], dir);
    expect(status).toBe(3);
    expect(stdout).toContain(
      'danger CLUSTER_RENAMED (cluster edge-a): cluster edge-a is renamed to edge-b',
    );
    expect(stdout).not.toContain('CLUSTER_DELETED');
  });

  it('flags a host renamed, or dropped without remove: true, but not a planned removal', () => {
    const base = snoSite({ node: worker('w1', 'aa:bb:cc:00:00:09') });
    const renamed = siteforge(
      ['diff', 'old', 'new'],
      versions(base, snoSite({ node: worker('w2', 'aa:bb:cc:00:00:09') })),
    );
    expect(renamed.stdout).toContain(
      'danger HOST_RENAMED (cluster sno1): host w1 is renamed to w2',
    );
    const dropped = siteforge(['diff', 'old', 'new'], versions(base, snoSite()));
    expect(dropped.stdout).toContain(
      'danger HOST_DELETED_WITHOUT_REMOVAL (cluster sno1): host w1 is dropped without remove: true',
    );
    const planned = snoSite({
      node: worker('w1', 'aa:bb:cc:00:00:09', '          remove: true\n'),
    });
    const afterPlanned = siteforge(['diff', 'old', 'new'], versions(planned, snoSite()));
    expect(afterPlanned.status).toBe(0);
    expect(afterPlanned.stdout).toContain('  - BareMetalHost sno1/w1');
  });

  it('flags a removed cluster', () => {
    const dir = mkdtempSync(join(tmpdir(), 'siteforge-diff-'));
    mkdirSync(join(dir, 'old'));
    mkdirSync(join(dir, 'new'));
    writeFileSync(join(dir, 'old', 'a.yaml'), snoSite({ name: 'edge-a' }));
    writeFileSync(
      join(dir, 'old', 'b.yaml'),
      snoSite({ name: 'edge-b', mac: 'aa:bb:cc:00:00:02' }),
    );
    writeFileSync(join(dir, 'new', 'a.yaml'), snoSite({ name: 'edge-a' }));
    const { status, stdout } = siteforge(['diff', 'old', 'new'], dir);
    expect(status).toBe(3);
    expect(stdout).toContain('cluster edge-b (removed)');
    expect(stdout).toContain('danger CLUSTER_DELETED (cluster edge-b)');
  });

  it('compares two git revisions, reading each side at its revision', () => {
    const repo = mkdtempSync(join(tmpdir(), 'siteforge-git-'));
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd: repo,
        encoding: 'utf8',
      });
    git('init', '--quiet', '--initial-branch=main');
    mkdirSync(join(repo, 'sites'));
    writeFileSync(join(repo, 'sites', 'site.yaml'), snoSite());
    git('add', '.');
    git('commit', '--quiet', '-m', 'one');
    writeFileSync(
      join(repo, 'sites', 'site.yaml'),
      snoSite({ cluster: '      holdInstallation: true\n' }),
    );
    git('commit', '--quiet', '-am', 'two');
    const { status, stdout, stderr } = siteforge(['diff', 'HEAD~1', 'HEAD', 'sites'], repo);
    expect(stderr).toBe('');
    expect(stdout).toBe(
      'cluster sno1 (changed)\n  ~ AgentClusterInstall sno1/sno1: spec.holdInstallation\n1 cluster(s) changed, 0 dangerous change(s)\n',
    );
    expect(status).toBe(0);
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1); // temporary worktrees are gone
  });

  it('reports invalid input with the revision in the file name, and usage errors', () => {
    const dir = versions(snoSite(), snoSite().replace('10.0.0.0/24', 'not-a-cidr'));
    const invalid = siteforge(['diff', 'old', 'new'], dir);
    expect(invalid.status).toBe(1);
    expect(invalid.stderr).toMatch(/new\/site\.yaml:14:17: error CIDR_INVALID/);
    expect(siteforge(['diff', 'old'], dir).status).toBe(2);
    expect(siteforge(['diff', 'old', 'nope'], dir).stderr).toContain(
      'nope is neither an existing path nor a git revision',
    );
  });
});

describe('diffFleets', () => {
  it('flags a BareMetalHost that is not in a later wave than its InfraEnv', () => {
    const object = (kind: string, wave: string): Manifest => ({
      apiVersion: 'v1',
      kind,
      metadata: {
        name: 'x',
        namespace: 'c',
        annotations: { 'argocd.argoproj.io/sync-wave': wave },
      },
    });
    const cluster: CompiledCluster = {
      clusterName: 'c',
      manifests: [object('Namespace', '0'), object('InfraEnv', '1'), object('BareMetalHost', '1')],
    };
    expect(diffFleets([], [cluster]).dangers.map((d) => d.code)).toEqual(['BMH_WAVE_ORDER']);
  });
});

/** The clusters of one SiteConfig text, compiled. */
function compiled(text: string): CompiledCluster[] {
  const { sites, issues } = loadText(text);
  expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
  return sites.flatMap((s) => compileSiteConfig(s.siteConfig, s.resources));
}

describe('diffFleets impacts', () => {
  it('marks a discovery setting as taking effect only when the site is installed again', () => {
    const diff = diffFleets(
      compiled(snoSite()),
      compiled(snoSite({ cluster: '      additionalNTPSources:\n        - 10.0.0.5\n' })),
    );
    expect(diff.dangers).toEqual([]);
    expect(diff.installTimeOnly).toHaveLength(1);
    expect(diff.installTimeOnly[0]).toMatchObject({
      cluster: 'sno1',
      code: 'INSTALL_TIME_ONLY',
      impact: 'reinstall',
    });
    expect(diff.installTimeOnly[0]!.message).toContain(
      'InfraEnv sno1: spec.additionalNTPSources changed',
    );
    expect(worstImpact(diff.installTimeOnly)).toBe('reinstall');
  });

  it('rejects a new base domain, which hive never lets a ClusterDeployment change', () => {
    const diff = diffFleets(
      compiled(snoSite()),
      compiled(snoSite().replace('baseDomain: example.com', 'baseDomain: example.org')),
    );
    const cd = diff.dangers.find((d) => d.message.startsWith('ClusterDeployment'));
    expect(cd).toMatchObject({ code: 'IMMUTABLE_FIELD_CHANGED', impact: 'rejected' });
    expect(cd!.message).toContain('spec.baseDomain');
    expect(worstImpact(diff.dangers)).toBe('rejected');
  });

  it('leaves label changes and holdInstallation safe, and gives every danger its impact', () => {
    const safe = diffFleets(
      compiled(snoSite()),
      compiled(
        snoSite({
          cluster: '      holdInstallation: true\n      clusterLabels:\n        tier: gold\n',
        }),
      ),
    );
    expect([...safe.dangers, ...safe.installTimeOnly]).toEqual([]);
    expect(worstImpact([])).toBe('safe');
    const renamed = diffFleets(
      compiled(snoSite({ name: 'edge-a' })),
      compiled(snoSite({ name: 'edge-b' })),
    );
    expect(renamed.dangers).toEqual([
      expect.objectContaining({
        code: 'CLUSTER_RENAMED',
        impact: 'dangerous',
        renamedTo: 'edge-b',
      }),
    ]);
  });

  it('prints install-time-only changes as notes, without failing the diff', () => {
    const dir = versions(
      snoSite(),
      snoSite({ cluster: '      additionalNTPSources:\n        - 10.0.0.5\n' }),
    );
    const { status, stdout } = siteforge(['diff', 'old', 'new'], dir);
    expect(status).toBe(0);
    expect(stdout).toContain(
      'note INSTALL_TIME_ONLY (cluster sno1): InfraEnv sno1: spec.additionalNTPSources changed',
    );
    expect(stdout).toContain(
      '1 cluster(s) changed, 0 dangerous change(s), 1 install-time-only change(s)',
    );
  });
});
