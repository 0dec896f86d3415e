/**
 * The command line for ClusterInstances: `siteforge convert` and `siteforge generate --format`,
 * run as the real binary.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { snoClusterInstance } from '../support/cluster-instances.js';
import { repoRoot, snoSite } from '../support/sites.js';

function siteforge(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(repoRoot, 'bin', 'siteforge.js'), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'siteforge-convert-'));
}

const kinds = (stream: string): string[] =>
  parseAllDocuments(stream).map((d) => (d.toJS() as { kind: string }).kind);

describe('siteforge convert', () => {
  it('prints the ClusterInstances on stdout and every field not carried over on stderr, exit 0', () => {
    const { status, stdout, stderr } = siteforge([
      'convert',
      'examples/sites/multi-cluster-v2.yaml',
    ]);
    expect(status).toBe(0);
    expect(kinds(stdout)).toEqual(['ClusterInstance', 'ClusterInstance']);
    expect(stdout).toMatch(/^---\n# ClusterInstance west-sno-a, converted by siteforge convert/);
    expect(stderr).toContain(
      'examples/sites/multi-cluster-v2.yaml:45:11: warning CONVERT_USER_DATA: userData cannot be carried over: ClusterInstance has no BareMetalHost userData\n' +
        '  hint: add userData with a custom BareMetalHost node template\n',
    );
    expect(stderr).toMatch(
      /multi-cluster-v2\.yaml:19:7: warning CONVERT_EXTRA_MANIFESTS_CONFIGMAP: the extra-manifests ConfigMap west-sno-a cannot be carried over: /,
    );
    expect(stderr).toMatch(
      /siteforge: 2 ClusterInstance\(s\) from 1 SiteConfig\(s\); 3 field\(s\) not carried over\n$/,
    );
  });

  it('writes DIR/<cluster>.yaml with -o, replacing only a directory siteforge wrote', () => {
    const out = join(tempDir(), 'out');
    expect(siteforge(['convert', 'examples/sites', '-o', out]).status).toBe(0);
    expect(readdirSync(out).sort()).toEqual([
      '.siteforge-output',
      'compact-1.yaml',
      'du-sno-1.yaml',
      'sno-v6-1.yaml',
      'standard-1.yaml',
      'west-sno-a.yaml',
      'west-sno-b.yaml',
    ]);
    const ci = parse(readFileSync(join(out, 'standard-1.yaml'), 'utf8')) as {
      spec: { suppressedManifests: string[] };
    };
    expect(ci.spec.suppressedManifests).toEqual(['KlusterletAddonConfig']);
    expect(siteforge(['convert', 'examples/sites/compact-3node.yaml', '-o', out]).status).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['.siteforge-output', 'compact-1.yaml']);

    const precious = tempDir();
    writeFileSync(join(precious, 'keep.txt'), 'mine');
    const refused = siteforge(['convert', 'examples/sites', '-o', precious]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('was not written by siteforge');
    expect(readdirSync(precious)).toEqual(['keep.txt']);
  });

  it('names the template namespace given with --template-namespace', () => {
    const { stdout } = siteforge([
      'convert',
      'examples/sites/compact-3node.yaml',
      '--template-namespace',
      'rhacm',
    ]);
    const ci = parse(stdout.replace(/^---\n/, '')) as { spec: { templateRefs: unknown } };
    expect(ci.spec.templateRefs).toEqual([{ name: 'ai-cluster-templates-v1', namespace: 'rhacm' }]);
  });

  it('converts nothing from invalid input: errors on stderr, exit 1', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.yaml'), snoSite({ node: '          bootMode: BIOS\n' }));
    const out = join(dir, 'out');
    const { status, stdout, stderr } = siteforge(['convert', join(dir, 'bad.yaml'), '-o', out]);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/bad\.yaml:\d+:\d+: error INVALID_VALUE: /);
    expect(stderr).toContain('nothing was converted');
    expect(existsSync(out)).toBe(false);
  });

  it('fails on warnings with --strict, and on input without a SiteConfig', () => {
    const strict = siteforge(['convert', '--strict', 'examples/sites/multi-cluster-v2.yaml']);
    expect(strict.status).toBe(1);
    expect(strict.stderr).toContain('error CONVERT_USER_DATA');
    const none = siteforge(['convert', 'examples/clusterinstance']);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('no SiteConfig found');
  });

  it('takes no --format and needs a path', () => {
    expect(siteforge(['convert', '--format', 'crs', 'examples/sites']).status).toBe(2);
    expect(siteforge(['convert']).status).toBe(2);
  });
});

describe('siteforge generate --format', () => {
  it('renders ClusterInstance input as the default templates would (crs, the default)', () => {
    const { status, stdout, stderr } = siteforge(['generate', 'examples/clusterinstance']);
    expect(status, stderr).toBe(0);
    expect(kinds(stdout)).toEqual([
      'Namespace',
      'AgentClusterInstall',
      'ClusterDeployment',
      'InfraEnv',
      'NMStateConfig',
      'KlusterletAddonConfig',
      'ManagedCluster',
      'BareMetalHost',
    ]);
    expect(siteforge(['generate', '--format', 'crs', 'examples/clusterinstance']).stdout).toBe(
      stdout,
    );
  });

  it('renders SiteConfigs and ClusterInstances as ClusterInstances with --format clusterinstance', () => {
    const { status, stdout, stderr } = siteforge([
      'generate',
      '--format=clusterinstance',
      'examples/sites/compact-3node.yaml',
      'examples/clusterinstance',
    ]);
    expect(status, stderr).toBe(0);
    expect(kinds(stdout)).toEqual([
      'Namespace',
      'ClusterInstance',
      'Namespace',
      'ConfigMap',
      'ClusterInstance',
    ]);
  });

  it('writes the ClusterInstance format into DIR/<cluster>/ with -o', () => {
    const out = join(tempDir(), 'out');
    const args = ['generate', '--format', 'clusterinstance', 'examples/sites/sno-du-ipv4.yaml'];
    expect(siteforge([...args, '-o', out]).status).toBe(0);
    expect(readdirSync(join(out, 'du-sno-1')).sort()).toEqual([
      'clusterinstance_du-sno-1.yaml',
      'configmap_du-sno-1.yaml',
      'namespace_du-sno-1.yaml',
    ]);
  });

  it('validates ClusterInstances with SiteConfigs and counts both', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'ci.yaml'), snoClusterInstance());
    writeFileSync(join(dir, 'site.yaml'), snoSite());
    const { status, stderr } = siteforge(['validate', dir]);
    expect(status).toBe(0);
    expect(stderr).toContain('1 SiteConfig(s), 1 ClusterInstance(s), 2 cluster(s): valid');
  });

  it('reports an invalid ClusterInstance at file:line:column and generates nothing', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'ci.yaml'),
      snoClusterInstance().replace('clusterType: SNO', 'clusterType: HostedControlPlane'),
    );
    const { status, stdout, stderr } = siteforge(['generate', dir]);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      `${join(dir, 'ci.yaml')}:8:16: error CLUSTER_TYPE_UNSUPPORTED: HostedControlPlane clusters are not installed with the assisted installer`,
    );
  });

  it('refuses an unknown format, and the format options outside generate', () => {
    for (const args of [
      ['generate', '--format', 'helm', 'examples/sites'],
      ['validate', '--format', 'crs', 'examples/sites'],
      ['validate', '--template-namespace', 'x', 'examples/sites'],
    ]) {
      const { status, stderr } = siteforge(args);
      expect(status, args.join(' ')).toBe(2);
      expect(stderr).toMatch(/^siteforge: /);
    }
  });
});
