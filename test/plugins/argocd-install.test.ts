/**
 * The installation of the Argo CD plugin: the Helm chart (AppProject, Applications), the sidecar
 * for the upstream argo-cd chart, plain Argo CD and OpenShift GitOps, the kustomize exec-plugin
 * drop-in, and the Containerfile, rendered with the real helm and kustomize. Those are built from
 * the Go module proxy by scripts/tools/ensure-tools.mjs (cached under ~/.cache/siteforge).
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { CmpSidecar, pluginAddress } from '../support/cmp-harness.js';
import type { AppParameter } from '../support/cmp-harness.js';
import { repoRoot, snoSite } from '../support/sites.js';

const chart = join(repoRoot, 'charts', 'siteforge-argocd');
const ALL_CLUSTERS = [
  'compact-1',
  'du-sno-1',
  'sno-v6-1',
  'standard-1',
  'west-sno-a',
  'west-sno-b',
];

type Obj = Record<string, unknown> & {
  kind: string;
  metadata: { name: string; namespace?: string };
};

let tools: { helm: string; kustomize: string };
let sidecar: CmpSidecar;
const cleanup: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-install-'));
  cleanup.push(dir);
  return dir;
}

function run(bin: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const result = spawnSync(bin, args, {
    cwd: options.cwd ?? repoRoot,
    encoding: 'utf8',
    env: options.env ?? process.env,
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function render(bin: string, args: string[]): Obj[] {
  const result = run(bin, args);
  expect(result.status, result.stderr).toBe(0);
  return parseAllDocuments(result.stdout)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

function helmTemplate(...extra: string[]): Obj[] {
  return render(tools.helm, ['template', 'sites', chart, ...extra]);
}

function kustomizeBuild(dir: string): Obj[] {
  return render(tools.kustomize, ['build', join(chart, dir)]);
}

function readYaml(path: string): Record<string, unknown> {
  return parse(readFileSync(join(chart, path), 'utf8')) as Record<string, unknown>;
}

interface Container {
  name: string;
  image: string;
  command: string[];
  securityContext: Record<string, unknown>;
  resources: unknown;
  volumeMounts: { name: string; mountPath: string }[];
}

/** The sidecar as each installation method declares it. */
function sidecars(): Record<string, Container> {
  const values = readYaml('argo-cd-values.yaml') as {
    repoServer: { extraContainers: Container[] };
  };
  const patch = readYaml('kustomize/repo-server-patch.yaml') as {
    spec: { template: { spec: { containers: Container[] } } };
  };
  const openshift = readYaml('openshift-gitops/argocd-sidecar-patch.yaml') as {
    spec: { repo: { sidecarContainers: Container[] } };
  };
  return {
    'argo-cd chart values': values.repoServer.extraContainers[0]!,
    'plain Argo CD patch': patch.spec.template.spec.containers[0]!,
    'OpenShift GitOps patch': openshift.spec.repo.sidecarContainers[0]!,
  };
}

/** A repository with the example sites at clusters/prod. */
function exampleRepo(): string {
  const dir = tempDir();
  cpSync(join(repoRoot, 'examples', 'sites'), join(dir, 'clusters', 'prod'), { recursive: true });
  return dir;
}

beforeAll(() => {
  const ensured = spawnSync(
    process.execPath,
    [join(repoRoot, 'scripts', 'tools', 'ensure-tools.mjs'), 'helm', 'kustomize'],
    { encoding: 'utf8', timeout: 20 * 60_000, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (ensured.status !== 0)
    throw new Error('helm and kustomize could not be installed: see ensure-tools on stderr');
  tools = JSON.parse(ensured.stdout) as { helm: string; kustomize: string };
  sidecar = new CmpSidecar();
}, 20 * 60_000);

afterAll(() => {
  sidecar.close();
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

describe('Helm chart siteforge-argocd', () => {
  it('passes helm lint', () => {
    const result = run(tools.helm, ['lint', chart, '--strict']);
    expect(result.status, result.stdout + result.stderr).toBe(0);
  });

  it('whitelists every kind SiteForge generates in the AppProject, in the right scope', () => {
    const project = helmTemplate().find((o) => o.kind === 'AppProject')!;
    const spec = project['spec'] as Record<string, { group: string; kind: string }[]>;
    const allowed = (scope: string, group: string, kind: string): boolean =>
      (spec[scope] ?? []).some((r) => r.group === group && r.kind === kind);
    const repo = exampleRepo();
    writeFileSync(
      join(repo, 'clusters', 'prod', 'bios.yaml'),
      snoSite({
        name: 'bios',
        mac: 'aa:bb:cc:00:00:77',
        node: '          biosConfigRef:\n            filePath: bios/du.yaml\n',
      }),
    );
    mkdirSync(join(repo, 'clusters', 'prod', 'bios'));
    writeFileSync(join(repo, 'clusters', 'prod', 'bios', 'du.yaml'), 'ProcTurboMode: Disabled\n');
    const { manifests, error } = sidecar.generate({ repoDir: repo, appPath: 'clusters/prod' });
    expect(error).toBeUndefined();
    const kinds = new Set<string>();
    for (const m of manifests as Obj[]) {
      const group = String(m['apiVersion']).includes('/')
        ? String(m['apiVersion']).split('/')[0]!
        : '';
      const scope = m.metadata.namespace
        ? 'namespaceResourceWhitelist'
        : 'clusterResourceWhitelist';
      expect(allowed(scope, group, m.kind), `${group}/${m.kind} in ${scope}`).toBe(true);
      kinds.add(m.kind);
    }
    expect(kinds).toContain('HostFirmwareSettings');
    // ZTP's ztp-app-project list (reference/siteconfig.md §1.3) stays allowed.
    for (const [group, kind] of [
      ['hive.openshift.io', 'ClusterImageSet'],
      ['ran.openshift.io', 'SiteConfig'],
      ['siteconfig.open-cluster-management.io', 'ClusterInstance'],
      ['', 'Secret'],
    ] as const)
      expect(
        allowed('clusterResourceWhitelist', group, kind) ||
          allowed('namespaceResourceWhitelist', group, kind),
      ).toBe(true);
  });

  it('renders Applications that name the plugin of plugin.yaml and whose waves split the fleet', () => {
    const apps = helmTemplate().filter((o) => o.kind === 'Application');
    expect(apps.map((a) => a.metadata.name)).toEqual(['sites-prod-wave-1', 'sites-prod-wave-2']);
    const repo = exampleRepo();
    const selected: string[][] = [];
    for (const app of apps) {
      const source = (
        app['spec'] as {
          source: { path: string; plugin: { name: string; parameters: AppParameter[] } };
        }
      ).source;
      expect(source.plugin.name).toBe(pluginAddress(sidecar.config).name);
      const result = sidecar.generate({
        repoDir: repo,
        appPath: source.path,
        pluginName: source.plugin.name,
        parameters: source.plugin.parameters,
      });
      expect(result.error).toBeUndefined();
      selected.push(
        (result.manifests as Obj[])
          .filter((m) => m.kind === 'Namespace')
          .map((m) => m.metadata.name),
      );
    }
    expect(selected[0]).toEqual(['compact-1', 'du-sno-1']);
    expect([...selected[0]!, ...selected[1]!].sort()).toEqual(ALL_CLUSTERS);
  });

  it('omits the parameters of an Application that sets none', () => {
    const apps = helmTemplate('--set-json', 'applications=[{"name":"all","path":"clusters/prod"}]');
    const plugin = (
      apps.find((o) => o.kind === 'Application')!['spec'] as {
        source: { plugin: Record<string, unknown> };
      }
    ).source.plugin;
    expect(plugin).toEqual({ name: 'siteforge-v1' });
  });
});

describe('the plugin sidecar', () => {
  it('is the same container for the argo-cd chart, plain Argo CD and OpenShift GitOps', () => {
    const all = Object.entries(sidecars());
    const [, reference] = all[0]!;
    // OpenShift assigns the UID itself (restricted SCC); everything else is identical.
    const withoutUid = (c: Container): Container => ({
      ...c,
      securityContext: Object.fromEntries(
        Object.entries(c.securityContext).filter(([k]) => k !== 'runAsUser'),
      ),
    });
    for (const [where, container] of all)
      expect(withoutUid(container), where).toEqual(withoutUid(reference));
  });

  it('follows the CMP sidecar contract: argocd-cmp-server, non-root, shared sockets, own /tmp', () => {
    for (const [where, container] of Object.entries(sidecars())) {
      expect(container.command, where).toEqual(['/var/run/argocd/argocd-cmp-server']);
      expect(container.securityContext, where).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
      expect(container.volumeMounts, where).toEqual([
        { name: 'var-files', mountPath: '/var/run/argocd' },
        { name: 'plugins', mountPath: '/home/argocd/cmp-server/plugins' },
        { name: 'cmp-tmp', mountPath: '/tmp' },
      ]);
    }
    expect(sidecars()['argo-cd chart values']!.securityContext['runAsUser']).toBe(999);
  });

  it('joins the stock repo-server pod with kustomize, keeping its containers and volumes', () => {
    const objects = kustomizeBuild('examples/plain-argocd');
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    const pod = (
      deployment['spec'] as {
        template: { spec: { containers: Container[]; volumes: { name: string }[] } };
      }
    ).template.spec;
    expect(pod.containers.map((c) => c.name).sort()).toEqual(['argocd-repo-server', 'siteforge']);
    expect(pod.volumes.map((v) => v.name).sort()).toEqual([
      'cmp-tmp',
      'plugins',
      'tmp',
      'var-files',
    ]);
    const params = objects.find((o) => o.kind === 'ConfigMap')!['data'] as Record<string, string>;
    expect(params['reposerver.plugin.tar.exclusions']).toBe('.git/*');
    expect(params['server.repo.server.timeout.seconds']).toBe('60');
  });

  it('patches the OpenShift GitOps ArgoCD CR without touching the rest of it', () => {
    const [argocd] = kustomizeBuild('examples/openshift-gitops');
    const spec = argocd!['spec'] as {
      server: unknown;
      repo: { sidecarContainers: Container[]; volumes: { name: string }[]; resources: unknown };
    };
    expect(spec.server).toEqual({ route: { enabled: true } });
    expect(spec.repo.resources).toBeDefined();
    expect(spec.repo.sidecarContainers.map((c) => c.name)).toEqual(['siteforge']);
    expect(spec.repo.volumes.map((v) => v.name)).toEqual(['cmp-tmp']);
  });

  it('adds the kustomize exec plugin beside the sidecar for repositories that migrate', () => {
    const [argocd] = kustomizeBuild('examples/openshift-gitops-migration');
    const spec = argocd!['spec'] as {
      kustomizeBuildOptions: string;
      repo: {
        sidecarContainers: Container[];
        initContainers: Container[];
        env: { name: string; value: string }[];
        volumes: { name: string }[];
      };
    };
    expect(spec.kustomizeBuildOptions).toBe('--enable-alpha-plugins');
    expect(spec.repo.sidecarContainers.map((c) => c.name)).toEqual(['siteforge']);
    expect(spec.repo.volumes.map((v) => v.name)).toEqual(['cmp-tmp', 'kustomize']);
    expect(spec.repo.initContainers[0]!.command).toEqual([
      '/opt/siteforge/bin/export-kustomize-plugin',
      '/.config',
    ]);
    expect(spec.repo.env).toContainEqual({
      name: 'KUSTOMIZE_PLUGIN_HOME',
      value: '/.config/siteforge/kustomize/plugin',
    });
  });
});

describe('Containerfile', () => {
  const containerfile = readFileSync(join(repoRoot, 'Containerfile'), 'utf8');

  it('bakes in plugin.yaml where argocd-cmp-server reads it and starts argocd-cmp-server', () => {
    expect(containerfile).toMatch(/^ARG NODE_IMAGE=docker\.io\/library\/node:22-/m);
    expect(containerfile).toContain(
      'src/plugins/argocd/plugin.yaml /home/argocd/cmp-server/config/plugin.yaml',
    );
    expect(containerfile).toMatch(/^USER 999$/m);
    expect(containerfile).toMatch(/^ENTRYPOINT \["\/var\/run\/argocd\/argocd-cmp-server"\]$/m);
    // plugin.yaml calls `siteforge` by name: the image must put it on PATH.
    expect(containerfile).toContain(
      'ln -s /opt/siteforge/bin/siteforge.js /usr/local/bin/siteforge',
    );
  });

  it('copies only files that exist, to the plugin layout the drop-in patch expects', () => {
    for (const [, source] of containerfile.matchAll(/^COPY (?:--chmod=\d+ )?(?!--from)(\S+) /gm))
      expect(existsSync(join(repoRoot, source!)), source).toBe(true);
    for (const v of ['v1', 'v2'])
      expect(containerfile).toContain(
        `/opt/siteforge/kustomize/plugin/ran.openshift.io/${v}/siteconfig/SiteConfig`,
      );
  });
});

describe('kustomize exec plugin (ZTP drop-in)', () => {
  /** The image's /opt/siteforge, exported the way the repo-server init container does it. */
  function exportedPlugin(): string {
    const image = join(tempDir(), 'opt', 'siteforge');
    mkdirSync(join(image, 'bin'), { recursive: true });
    symlinkSync(join(repoRoot, 'bin', 'siteforge.js'), join(image, 'bin', 'siteforge.js'));
    copyFileSync(
      join(repoRoot, 'src', 'plugins', 'argocd', 'kustomize', 'export-kustomize-plugin'),
      join(image, 'bin', 'export-kustomize-plugin'),
    );
    for (const v of ['v1', 'v2']) {
      const dir = join(image, 'kustomize', 'plugin', 'ran.openshift.io', v, 'siteconfig');
      mkdirSync(dir, { recursive: true });
      copyFileSync(
        join(repoRoot, 'src', 'plugins', 'argocd', 'kustomize', 'SiteConfig'),
        join(dir, 'SiteConfig'),
      );
    }
    const config = tempDir();
    const exported = run('/bin/sh', [join(image, 'bin', 'export-kustomize-plugin'), config]);
    expect(exported.status, exported.stderr).toBe(0);
    return join(config, 'siteforge', 'kustomize', 'plugin');
  }

  function ztpRepo(sites: Record<string, string>): string {
    const repo = tempDir();
    const app = join(repo, 'siteconfig');
    mkdirSync(app);
    for (const [file, text] of Object.entries(sites)) writeFileSync(join(app, file), text);
    writeFileSync(
      join(app, 'kustomization.yaml'),
      `generators:\n${Object.keys(sites)
        .map((f) => `  - ${f}\n`)
        .join('')}resources:\n  - ns.yaml\n`,
    );
    writeFileSync(
      join(app, 'ns.yaml'),
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ztp-common\n',
    );
    return app;
  }

  let pluginHome: string;
  beforeAll(() => {
    pluginHome = exportedPlugin();
  });

  function build(app: string) {
    return run(tools.kustomize, ['build', '--enable-alpha-plugins', '.'], {
      cwd: app,
      env: {
        PATH: '/usr/bin:/bin', // no node on PATH: the exported runtime must be used
        KUSTOMIZE_PLUGIN_HOME: pluginHome,
        ARGOCD_APP_SOURCE_PATH: 'siteconfig',
      },
    });
  }

  it('generates the objects of every v1 and v2 SiteConfig the kustomization lists', () => {
    const app = ztpRepo({
      'site-a.yaml': snoSite({ name: 'a', mac: 'aa:bb:cc:00:00:0a' }),
      'site-b.yaml': snoSite({
        name: 'b',
        mac: 'aa:bb:cc:00:00:0b',
        apiVersion: 'ran.openshift.io/v2',
      }),
    });
    const result = build(app);
    expect(result.status, result.stderr).toBe(0);
    const objects = parseAllDocuments(result.stdout).map((d) => d.toJS() as Obj);
    const names = objects
      .filter((o) => o.kind === 'Namespace')
      .map((o) => o.metadata.name)
      .sort();
    expect(names).toEqual(['a', 'b', 'ztp-common']);
    expect(objects.filter((o) => o.kind === 'BareMetalHost')).toHaveLength(2);
  });

  it("builds upstream's layout, whose SiteConfigs name files from the kustomization root", () => {
    // kustomization.yaml at the root; testSiteConfig/site-upstream.yaml names
    // testSiteConfig/testHW.profile, site-beside.yaml names testHW.profile from its own folder.
    const app = join(tempDir(), 'siteconfig');
    cpSync(join(repoRoot, 'test', 'fixtures', 'upstream-layout'), app, { recursive: true });
    const result = build(app);
    expect(result.status, result.stderr).toBe(0);
    const objects = parseAllDocuments(result.stdout).map((d) => d.toJS() as Obj);
    const spec = (kind: string, name: string) =>
      objects.find((o) => o.kind === kind && o.metadata.name === name)?.['spec'];
    const data = (name: string) =>
      objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name)?.['data'];
    for (const cluster of ['upstream-sno', 'beside-sno']) {
      expect(spec('HostFirmwareSettings', `${cluster}-node`)).toMatchObject({
        settings: { ProcTurboMode: 'Disabled' },
      });
      expect(data(cluster)).toHaveProperty(['user-chrony.yaml']);
    }
    expect(spec('KlusterletAddonConfig', 'upstream-sno')).toMatchObject({
      applicationManager: { enabled: true },
    });
  });

  it("builds a layout that the Application's kustomization includes from a sub-folder", () => {
    // kustomize runs the plugin in siteconfig/4.18/, the folder of the kustomization that lists
    // the generators, one below the Application's path.
    const app = join(tempDir(), 'siteconfig');
    cpSync(join(repoRoot, 'test', 'fixtures', 'upstream-layout'), join(app, '4.18'), {
      recursive: true,
    });
    writeFileSync(join(app, 'kustomization.yaml'), 'resources:\n  - "4.18"\n');
    const result = build(app);
    expect(result.status, result.stderr).toBe(0);
    const objects = parseAllDocuments(result.stdout).map((d) => d.toJS() as Obj);
    expect(
      objects.filter((o) => o.kind === 'HostFirmwareSettings').map((o) => o.metadata.name),
    ).toEqual(['beside-sno-node', 'upstream-sno-node']);
    // Problems point at the file in the repository, below the sub-folder.
    rmSync(join(app, '4.18', 'testSiteConfig', 'testHW.profile'));
    const failed = build(app);
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toContain(
      'siteconfig/4.18/testSiteConfig/site-upstream.yaml:27:23: error BIOS_FILE_NOT_FOUND: BIOS settings file testSiteConfig/testHW.profile not found: tried siteconfig/4.18/testSiteConfig/testHW.profile (the kustomization root, as siteconfig-generator resolves it)',
    );
  });

  it("fails kustomize build at the user's file and line, not at kustomize's temp copy", () => {
    const app = ztpRepo({
      'site-a.yaml': snoSite({ name: 'a', mac: 'aa:bb:cc:00:00:0a' }),
      'site-bad.yaml': `# a comment kustomize drops\n${snoSite({ name: 'bad', mac: 'aa:bb:cc:00:00:0c', node: '          bootMode: BIOS\n' })}`,
    });
    const result = build(app);
    expect(result.status).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'siteconfig/site-bad.yaml:22:21: error INVALID_VALUE: "BIOS" is not allowed',
    );
  });
});
