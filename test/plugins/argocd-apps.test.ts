import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  application,
  assignSites,
  checkApplications,
  readPreviousApplications,
} from '../../src/plugins/argocd/applications.js';
import type { AppAssignment, ApplicationsOptions } from '../../src/plugins/argocd/applications.js';
import { siteSelection } from '../../src/plugins/argocd/parameters.js';
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

const names = (from: number, to: number, prefix = 's'): string[] =>
  Array.from({ length: to - from }, (_, i) => `${prefix}${String(from + i).padStart(5, '0')}`);

/** Site → Application. */
function placement(apps: readonly AppAssignment[]): Map<string, string> {
  return new Map(apps.flatMap((a) => a.sites.map((s) => [s, a.name] as const)));
}

/** What the tests read of an Application. */
interface App {
  metadata: { name: string };
  spec: {
    source: {
      repoURL: string;
      targetRevision: string;
      path: string;
      plugin: { parameters: { array: string[] }[] };
    };
  };
}

/** The Applications of a YAML stream. */
function applications(yaml: string): App[] {
  return parseAllDocuments(yaml).map((d) => d.toJS() as App);
}

const OPTIONS: ApplicationsOptions = {
  prefix: 'sites',
  namespace: 'argocd',
  project: 'siteforge-sites',
  repoURL: 'https://git.example.com/edge/sites.git',
  targetRevision: 'main',
  path: 'clusters/prod',
  plugin: 'siteforge-v1',
  destinationServer: 'https://kubernetes.default.svc',
  maxSites: 1000,
  sync: 'automated',
};

describe('assigning sites to Applications', () => {
  it('fills Applications of at most 1,000 in name order, the last one partly', () => {
    const a = assignSites(names(0, 2500).reverse(), [], 'sites', 1000);
    expect(a.apps.map((x) => [x.name, x.sites.length, x.sites[0]])).toEqual([
      ['sites-001', 1000, 's00000'],
      ['sites-002', 1000, 's01000'],
      ['sites-003', 500, 's02000'],
    ]);
    expect(a).toMatchObject({ added: 2500, removed: 0, emptied: [] });
  });

  it('never moves a site: new ones, wherever they sort, fill free places, then new Applications', () => {
    const first = assignSites(names(100, 2600), [], 'sites', 1000);
    // 700 new sites sorting before every existing one, 50 among them, 10 removed from sites-001.
    const removed = first.apps[0]!.sites.slice(0, 10);
    const fleet = [
      ...names(0, 100),
      ...names(100, 2600).filter((n) => !removed.includes(n)),
      ...names(0, 600, 'a'),
      ...names(0, 50, 'm'),
    ];
    const second = assignSites(fleet, first.apps, 'sites', 1000);
    const before = placement(first.apps);
    const after = placement(second.apps);
    for (const [site, app] of before)
      if (!removed.includes(site)) expect(after.get(site)).toBe(app);
    expect(second.apps.map((x) => [x.name, x.sites.length])).toEqual([
      ['sites-001', 1000],
      ['sites-002', 1000],
      ['sites-003', 1000],
      ['sites-004', 240],
    ]);
    expect(second).toMatchObject({ added: 750, removed: 10 });
    // The ten free places of sites-001 went to the first new sites by name.
    expect(names(0, 10, 'a').every((n) => after.get(n) === 'sites-001')).toBe(true);
    expect(after.size).toBe(fleet.length);
  });

  it('reports an Application whose sites are all gone, and keeps a site listed twice where it was first', () => {
    const a = assignSites(
      ['x', 'y'],
      [
        { name: 'sites-001', sites: ['gone-1', 'gone-2'] },
        { name: 'sites-002', sites: ['x', 'y'] },
        { name: 'sites-003', sites: ['y'] },
      ],
      'sites',
      1000,
    );
    expect(a.apps).toEqual([{ name: 'sites-002', sites: ['x', 'y'] }]);
    expect(a.emptied).toEqual([
      { name: 'sites-001', removed: 2 },
      { name: 'sites-003', removed: 1 },
    ]);
  });

  it('writes Applications that fit the Application CRD, with ZTP sync settings, and refuses one that does not', () => {
    const app = application({ name: 'sites-001', sites: ['a', 'b'] }, OPTIONS);
    expect(() => {
      checkApplications([app]);
    }).not.toThrow();
    expect(app['spec']).toMatchObject({
      syncPolicy: {
        automated: { prune: true, selfHeal: true },
        syncOptions: ['PrunePropagationPolicy=background', 'RespectIgnoreDifferences=true'],
      },
      ignoreDifferences: [
        {
          group: 'cluster.open-cluster-management.io',
          kind: 'ManagedCluster',
          managedFieldsManagers: ['controller'],
        },
      ],
      source: {
        plugin: { name: 'siteforge-v1', parameters: [{ name: 'sites', array: ['a', 'b'] }] },
      },
    });
    const manual = application({ name: 'sites-001', sites: ['a'] }, { ...OPTIONS, sync: 'manual' });
    expect((manual['spec'] as { syncPolicy: object }).syncPolicy).not.toHaveProperty('automated');
    const spec = app['spec'] as Record<string, unknown>;
    const noProject = Object.fromEntries(Object.entries(spec).filter(([k]) => k !== 'project'));
    expect(() => {
      checkApplications([{ ...app, spec: noProject }]);
    }).toThrow(/must have required property 'project'/);
    expect(() => {
      checkApplications([{ ...app, spec: { ...spec, sourc: {} } }]);
    }).toThrow(/sourc/);
  });

  it('selects by exact names as fast as a lookup, and as the globs did', () => {
    const listed = names(0, 1000);
    const selection = siteSelection([...listed, 'lab-*', '!s00003']);
    expect(selection.select('s00002', 'site-x')).toBe(true);
    expect(selection.select('s00003', 'site-x')).toBe(false);
    expect(selection.select('x', 's00004')).toBe(true); // the SiteConfig's name counts too
    expect(selection.select('lab-1', 'site-lab')).toBe(true);
    expect(selection.select('s01000', 'site-y')).toBe(false);
    // Used means matched, as before: s00003 matched (and was excluded).
    expect(selection.unmatched()).toEqual(
      listed.filter((n) => !['s00002', 's00003', 's00004'].includes(n)),
    );
  });

  it('reads back only the Applications it writes, and refuses patterns it cannot place', () => {
    const yaml = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: sites-001}
spec: {source: {plugin: {name: siteforge-v1, parameters: [{name: sites, array: [a, b]}]}}}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: other-001}
spec: {source: {plugin: {name: siteforge-v1, parameters: [{name: sites, array: [c]}]}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: sites-x}
`;
    expect(readPreviousApplications('apps.yaml', yaml, 'sites', 'siteforge-v1')).toEqual([
      { name: 'sites-001', sites: ['a', 'b'] },
    ]);
    // The exclusions rollout run adds to hold sites back place nothing.
    expect(
      readPreviousApplications(
        'apps.yaml',
        yaml.replace('[a, b]', "[a, b, '!b']"),
        'sites',
        'siteforge-v1',
      ),
    ).toEqual([{ name: 'sites-001', sites: ['a', 'b'] }]);
    expect(() =>
      readPreviousApplications(
        'apps.yaml',
        yaml.replace('[a, b]', "['a-*']"),
        'sites',
        'siteforge-v1',
      ),
    ).toThrow(
      /^apps\.yaml:4:80: error PREVIOUS_APPLICATIONS_INVALID: Application "sites-001" selects sites by the pattern "a-\*", not by name\n {2}hint: /,
    );
    // The one-string form the plugin also reads (commas or spaces) places its names.
    expect(
      readPreviousApplications(
        'apps.yaml',
        yaml.replace('array: [a, b]', "string: 'a, b c'"),
        'sites',
        'siteforge-v1',
      ),
    ).toEqual([{ name: 'sites-001', sites: ['a', 'b', 'c'] }]);
    // Without a sites parameter, an Application renders every site: its sites cannot be known.
    expect(() =>
      readPreviousApplications(
        'apps.yaml',
        yaml.replace('{name: sites, array: [a, b]}', '{name: strict, string: "true"}'),
        'sites',
        'siteforge-v1',
      ),
    ).toThrow(
      /^apps\.yaml:4:58: error PREVIOUS_APPLICATIONS_INVALID: Application "sites-001" has no sites parameter/,
    );
    expect(() =>
      readPreviousApplications(
        'apps.yaml',
        yaml.replace('[a, b]}', '[a, b'),
        'sites',
        'siteforge-v1',
      ),
    ).toThrow(/^apps\.yaml:\d+:\d+: error PREVIOUS_APPLICATIONS_INVALID: not YAML: /);
  });
});

describe('siteforge argocd apps', () => {
  it('writes the Applications of a repository, then keeps every site in its Application as the fleet grows', () => {
    const repo = new ScriptedRepo();
    for (let i = 10; i < 35; i++) repo.write(`clusters/prod/s${String(i)}.yaml`, fleetSite(i));
    repo.commit('25 sites');
    const noRemote = siteforge(['argocd', 'apps', 'clusters/prod'], repo.dir);
    expect(noRemote.status).toBe(2);
    expect(noRemote.stderr).toContain('has no remote named origin');
    repo.git('remote', 'add', 'origin', 'https://git.example.com/edge/sites.git');
    // -o makes the folder it writes in.
    const out = join(repo.dir, 'argocd', 'apps.yaml');
    const first = siteforge(
      [
        'argocd',
        'apps',
        'clusters/prod',
        '--max-sites',
        '10',
        '-o',
        'argocd/apps.yaml',
        '--revision',
        'main',
      ],
      repo.dir,
    );
    expect(first.stderr).toContain(
      '25 site(s) in 3 Application(s) of at most 10; 25 site(s) placed, 0 removed, none moved',
    );
    expect(first.status).toBe(0);
    const apps = applications(readFileSync(out, 'utf8'));
    expect(
      apps.map((a) => [a.metadata.name, a.spec.source.plugin.parameters[0]!.array.length]),
    ).toEqual([
      ['sites-001', 10],
      ['sites-002', 10],
      ['sites-003', 5],
    ]);
    expect(apps[0]!.spec.source).toMatchObject({
      repoURL: 'https://git.example.com/edge/sites.git',
      targetRevision: 'main',
      path: 'clusters/prod',
    });
    // Seven more, sorting first; one removed.
    for (let i = 0; i < 7; i++) repo.write(`clusters/prod/a${String(i)}.yaml`, fleetSite(i));
    repo.remove('clusters/prod/s12.yaml');
    const second = siteforge(
      [
        'argocd',
        'apps',
        'clusters/prod',
        '--max-sites',
        '10',
        '-o',
        'argocd/apps.yaml',
        '--revision',
        'main',
      ],
      repo.dir,
    );
    expect(second.status).toBe(0);
    expect(second.stderr).toContain(
      '31 site(s) in 4 Application(s) of at most 10; 7 site(s) placed, 1 removed, none moved',
    );
    const again = applications(readFileSync(out, 'utf8'));
    const where = (list: App[]): Map<string, string> =>
      new Map(
        list.flatMap((a) =>
          a.spec.source.plugin.parameters[0]!.array.map((s) => [s, a.metadata.name] as const),
        ),
      );
    const before = where(apps);
    const after = where(again);
    for (const [site, app] of before) if (site !== 'sno-0012') expect(after.get(site)).toBe(app);
    expect(after.get('sno-0000')).toBe('sites-001'); // the place sno-0012 left
    expect(after.size).toBe(31);
    // The same again: nothing changes.
    const third = siteforge(
      [
        'argocd',
        'apps',
        'clusters/prod',
        '--max-sites',
        '10',
        '--previous',
        'argocd/apps.yaml',
        '--revision',
        'main',
      ],
      repo.dir,
    );
    expect(third.stdout).toBe(readFileSync(out, 'utf8'));
    // A previous file that is not what it wrote: its line and column, and nothing written.
    const written = readFileSync(out, 'utf8');
    writeFileSync(join(repo.dir, 'bad.yaml'), written.replace('- sno-0000\n', "- 'sno-*'\n"));
    const bad = siteforge(
      ['argocd', 'apps', 'clusters/prod', '--previous', 'bad.yaml', '-o', 'argocd/apps.yaml'],
      repo.dir,
    );
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(
      /^bad\.yaml:\d+:\d+: error PREVIOUS_APPLICATIONS_INVALID: Application "sites-001" selects sites by the pattern "sno-\*"/,
    );
    expect(readFileSync(out, 'utf8')).toBe(written);
    repo.dispose();
  });

  it('refuses an invalid fleet, a folder outside git without --repo-url, and bad options', () => {
    const dir = mkdtempSync(join(tmpdir(), 'siteforge-apps-'));
    writeFileSync(join(dir, 'a.yaml'), fleetSite(1));
    const noGit = siteforge(['argocd', 'apps', '.'], dir);
    expect(noGit.status).toBe(2);
    expect(noGit.stderr).toContain('give --repo-url URL');
    const given = siteforge(
      ['argocd', 'apps', '.', '--repo-url', 'https://x/y.git', '--path', 'edge'],
      dir,
    );
    expect(given.status).toBe(0);
    expect(applications(given.stdout)[0]!.spec.source.path).toBe('edge');
    writeFileSync(join(dir, 'b.yaml'), fleetSite(2).replace('10.0.2.0/24', 'nope'));
    const invalid = siteforge(
      ['argocd', 'apps', '.', '--repo-url', 'https://x/y.git', '--path', 'edge'],
      dir,
    );
    expect(invalid.status).toBe(1);
    expect(invalid.stdout).toBe('');
    expect(invalid.stderr).toMatch(/b\.yaml:\d+:\d+: error CIDR_INVALID/);
    expect(siteforge(['argocd', 'apps', '--max-sites', '0'], dir).status).toBe(2);
    expect(siteforge(['argocd', 'apps', '--name-prefix', 'Sites'], dir).status).toBe(2);
    expect(siteforge(['argocd', 'apps', '--sync', 'sometimes'], dir).status).toBe(2);
  });
});
