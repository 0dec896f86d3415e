/**
 * A repository laid out as upstream's (test/fixtures/upstream-layout): kustomization.yaml at the
 * root, SiteConfigs in testSiteConfig/ that name `testSiteConfig/testHW.profile`, because
 * siteconfig-generator runs as a kustomize plugin in the kustomization root and resolves paths
 * from there. The same files must work with `siteforge generate` and the Argo CD plugin, and a
 * SiteConfig that names its files from its own folder must keep working beside it.
 * (The kustomize drop-in is tested with the real kustomize in argocd-install.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { CmpSidecar } from '../support/cmp-harness.js';
import { repoRoot, snoSite } from '../support/sites.js';

const FIXTURE = join(repoRoot, 'test', 'fixtures', 'upstream-layout');

type Obj = Record<string, unknown> & { kind: string; metadata: { name: string } };

/** Runs the real `siteforge` binary, as a user would. */
function siteforge(
  args: string[],
  cwd: string,
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(repoRoot, 'bin', 'siteforge.js'), ...args], {
    cwd,
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const temps: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-layout-'));
  temps.push(dir);
  return dir;
}

/** A copy of the fixture at `at` inside a new git repository; returns the repository. */
function repoWithFixture(at: string, edit: (root: string) => void = () => undefined): string {
  const repo = tempDir();
  mkdirSync(join(repo, '.git'));
  writeFileSync(join(repo, '.git', 'config'), '[core]\n');
  cpSync(FIXTURE, join(repo, at), { recursive: true });
  edit(join(repo, at));
  return repo;
}

function objects(stream: string): Obj[] {
  return parseAllDocuments(stream).map((d) => d.toJS() as Obj);
}

/** What the files of the fixture put into each cluster: BIOS settings, extra manifest, override. */
function filesUsed(manifests: readonly Obj[]): Record<string, unknown> {
  const of = (kind: string, name: string): Obj | undefined =>
    manifests.find((m) => m.kind === kind && m.metadata.name === name);
  return Object.fromEntries(
    ['upstream-sno', 'beside-sno'].map((cluster) => [
      cluster,
      {
        bios: (
          of('HostFirmwareSettings', `${cluster}-node`)?.['spec'] as
            { settings?: unknown } | undefined
        )?.settings,
        extraManifests: Object.keys(
          (of('ConfigMap', cluster)?.['data'] as Record<string, string> | undefined) ?? {},
        ).filter((key) => key.startsWith('user-')),
        klusterlet: (
          of('KlusterletAddonConfig', cluster)?.['spec'] as
            { applicationManager?: unknown } | undefined
        )?.applicationManager,
      },
    ]),
  );
}

/**
 * Both clusters get the BIOS settings and the extra manifest: upstream-sno names them from the
 * kustomization root (and overrides its KlusterletAddonConfig), beside-sno from its own folder.
 */
const EVERY_FILE = {
  'upstream-sno': {
    bios: { ProcTurboMode: 'Disabled', WorkloadProfile: 'TelcoOptimizedProfile' },
    extraManifests: ['user-chrony.yaml'],
    klusterlet: { enabled: true },
  },
  'beside-sno': {
    bios: { ProcTurboMode: 'Disabled', WorkloadProfile: 'TelcoOptimizedProfile' },
    extraManifests: ['user-chrony.yaml'],
    klusterlet: { enabled: false },
  },
};

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("siteforge generate on upstream's layout", () => {
  it('reads testSiteConfig/testHW.profile from the kustomization root, as siteconfig-generator does', () => {
    const { status, stdout, stderr } = siteforge(['generate', '.'], FIXTURE);
    expect(stderr).not.toContain('error');
    expect(status).toBe(0);
    expect(filesUsed(objects(stdout))).toEqual(EVERY_FILE);
  });

  it('finds the kustomization root above the folder it runs in', () => {
    const { status, stdout, stderr } = siteforge(
      ['generate', '.'],
      join(FIXTURE, 'testSiteConfig'),
    );
    expect(stderr).not.toContain('error');
    // Found as ../testSiteConfig/klusterlet-override.yaml, read as klusterlet-override.yaml: one file.
    expect(stderr).not.toContain('SKIPPED_DOCUMENT');
    expect(status).toBe(0);
    expect(filesUsed(objects(stdout))).toEqual(EVERY_FILE);
  });

  it('falls back to the working directory when no folder holds a kustomization', () => {
    const repo = repoWithFixture('sites', (root) => {
      rmSync(join(root, 'kustomization.yaml'));
    });
    // siteconfig-generator run by hand resolves from its working directory too.
    const { status, stdout, stderr } = siteforge(['generate', '.'], join(repo, 'sites'));
    expect(stderr).not.toContain('error');
    expect(status).toBe(0);
    expect(filesUsed(objects(stdout))).toEqual(EVERY_FILE);
  });

  it('names every folder it looked in when a file is in none of them', () => {
    const repo = repoWithFixture('sites', (root) => {
      rmSync(join(root, 'testSiteConfig', 'testHW.profile'));
    });
    const { status, stdout, stderr } = siteforge(['validate', 'sites'], repo);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      "sites/testSiteConfig/site-upstream.yaml:27:23: error BIOS_FILE_NOT_FOUND: BIOS settings file testSiteConfig/testHW.profile not found: tried sites/testSiteConfig/testHW.profile (the kustomization root, as siteconfig-generator resolves it) and sites/testSiteConfig/testSiteConfig/testHW.profile (the SiteConfig's folder)",
    );
    expect(stderr).toContain(
      "sites/testSiteConfig/site-beside.yaml:27:23: error BIOS_FILE_NOT_FOUND: BIOS settings file testHW.profile not found: tried sites/testHW.profile (the kustomization root, as siteconfig-generator resolves it) and sites/testSiteConfig/testHW.profile (the SiteConfig's folder)",
    );
    expect(stderr).toContain(
      "hint: relative paths resolve against the kustomization root (the folder of kustomization.yaml; in Argo CD, the Application's path)",
    );
  });
});

describe("the Argo CD plugin on upstream's layout", () => {
  let sidecar: CmpSidecar;
  beforeAll(() => {
    sidecar = new CmpSidecar();
  });
  afterAll(() => {
    sidecar.close();
  });

  it("resolves from the Application's path, where kustomize would run siteconfig-generator", () => {
    const repo = repoWithFixture('site-configs');
    const result = sidecar.generate({ repoDir: repo, appPath: 'site-configs' });
    expect(result.error).toBeUndefined();
    expect(filesUsed((result.manifests ?? []) as Obj[])).toEqual(EVERY_FILE);
  });

  it('names the bases in repository terms when a file is missing', () => {
    const repo = repoWithFixture('site-configs', (root) => {
      rmSync(join(root, 'testSiteConfig', 'testUserExtraManifest'), { recursive: true });
    });
    const result = sidecar.generate({ repoDir: repo, appPath: 'site-configs' });
    expect(result.generate?.status).toBe(1);
    expect(result.error).toContain(
      "site-configs/testSiteConfig/site-upstream.yaml:17:26: error EXTRA_MANIFEST_NOT_FOUND: extraManifestPath testSiteConfig/testUserExtraManifest does not exist: tried site-configs/testSiteConfig/testUserExtraManifest (the kustomization root, as siteconfig-generator resolves it) and site-configs/testSiteConfig/testSiteConfig/testUserExtraManifest (the SiteConfig's folder)",
    );
  });
});

describe('notes about documents that are not SiteConfigs', () => {
  it('stays quiet about the files SiteConfigs read and the kustomization, on every run', () => {
    const { stderr } = siteforge(['validate', '.'], FIXTURE);
    expect(stderr).not.toContain('SKIPPED_DOCUMENT');
  });

  it('still notes a document that no SiteConfig reads', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'bios'));
    writeFileSync(join(dir, 'bios', 'du.yaml'), 'ProcTurboMode: Disabled\n');
    writeFileSync(
      join(dir, 'site.yaml'),
      snoSite({ node: '          biosConfigRef:\n            filePath: bios/du.yaml\n' }),
    );
    writeFileSync(
      join(dir, 'stray.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-a-site\n',
    );
    const { status, stderr } = siteforge(['generate', '.'], dir);
    expect(status).toBe(0);
    expect(stderr.split('\n').filter((line) => line.includes('SKIPPED_DOCUMENT'))).toEqual([
      'stray.yaml:1:1: note SKIPPED_DOCUMENT: skipping a document of kind ConfigMap: not a SiteConfig',
    ]);
  });
});
