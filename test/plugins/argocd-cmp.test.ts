/**
 * Conformance of the Argo CD plugin: every request goes through plugin.yaml and a stand-in for
 * argocd-cmp-server (test/support/cmp-harness.ts), so what is tested is the file users install.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canRunAsSidecarUser,
  CmpSidecar,
  loadPluginConfig,
  pluginAddress,
} from '../support/cmp-harness.js';
import type { CmpRequest, GenerateResult } from '../support/cmp-harness.js';
import { repoRoot, snoSite } from '../support/sites.js';

const EXAMPLE_CLUSTERS = [
  'compact-1',
  'du-sno-1',
  'sno-v6-1',
  'standard-1',
  'west-sno-a',
  'west-sno-b',
];
const APP = 'clusters/prod';

let sidecar: CmpSidecar;
let repo: string;

/** A git repository shaped like a ZTP one: sites in clusters/prod, other things around them. */
function makeRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-repo-'));
  mkdirSync(join(dir, '.git'));
  writeFileSync(join(dir, '.git', 'config'), '[core]\n');
  writeFileSync(join(dir, 'README.md'), '# sites\n');
  cpSync(join(repoRoot, 'examples', 'sites'), join(dir, APP), { recursive: true });
  mkdirSync(join(dir, 'policies'));
  writeFileSync(
    join(dir, 'policies', 'policy.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-a-site\n',
  );
  return dir;
}

/** Writes the benchmark's synthetic fleet of SNO sites (bench/synthetic-fleet.js). */
function writeFleet(dir: string, count: number): void {
  const script = `import(${JSON.stringify(join(repoRoot, 'bench', 'synthetic-fleet.js'))}).then((m) => m.writeSyntheticFleet(${JSON.stringify(dir)}, ${String(count)}))`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script]);
  if (result.status !== 0) throw new Error(result.stderr.toString());
}

/** A copy of the fixture repository with extra files in the app directory. */
function repoWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-repo-'));
  cpSync(repo, dir, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function generate(request: Partial<CmpRequest> = {}): GenerateResult {
  return sidecar.generate({ repoDir: repo, appPath: APP, ...request });
}

function namespaces(result: GenerateResult): string[] {
  return (result.manifests ?? [])
    .filter((m) => m['kind'] === 'Namespace')
    .map((m) => (m['metadata'] as { name: string }).name)
    .sort();
}

/** A failed generation as the user sees it: non-zero exit and nothing to sync. */
function expectRefused(result: GenerateResult, exit: number): string {
  expect(result.matched).toBe(true);
  expect(result.generate?.status).toBe(exit);
  expect(result.generate?.stdout).toBe('');
  expect(result.manifests).toBeUndefined();
  return result.error ?? '';
}

beforeAll(() => {
  sidecar = new CmpSidecar();
  repo = makeRepo();
});

afterAll(() => {
  sidecar.close();
  rmSync(repo, { recursive: true, force: true });
});

describe('plugin.yaml', () => {
  it('is a valid ConfigManagementPlugin that Applications name siteforge-v1', () => {
    const config = loadPluginConfig();
    expect(config.apiVersion).toBe('argoproj.io/v1alpha1');
    expect(pluginAddress(config)).toEqual({
      name: 'siteforge-v1',
      socket: '/home/argocd/cmp-server/plugins/siteforge-v1.sock',
    });
    // No shell in between: argv goes straight to the binary, and the files need no exec bit.
    expect(config.spec.generate.command[0]).toBe('siteforge');
    expect(config.spec.preserveFileMode ?? false).toBe(false);
    expect(config.spec.provideGitCreds ?? false).toBe(false);
  });
});

describe('generate', () => {
  it('renders the whole fleet of the app directory, the same stream as `siteforge generate`', () => {
    const result = generate();
    expect(result.error).toBeUndefined();
    expect(result.generate?.status).toBe(0);
    expect(namespaces(result)).toEqual(EXAMPLE_CLUSTERS);
    const cli = spawnSync(
      process.execPath,
      [join(repoRoot, 'bin', 'siteforge.js'), 'generate', 'examples/sites'],
      { cwd: repoRoot, encoding: 'utf8' },
    );
    expect(result.generate?.stdout).toBe(cli.stdout);
    expect(result.manifests).toHaveLength(58);
    // stderr is logged by the sidecar on success: a one-line summary, nothing else.
    expect(result.generate?.stderr).toBe(
      `siteforge: 58 object(s) for 6 cluster(s) from 5 SiteConfig(s) in ${APP}\n`,
    );
  });

  it('accepts format=crs as the default it is', () => {
    const result = generate({ parameters: [{ name: 'format', string: 'crs' }] });
    expect(namespaces(result)).toEqual(EXAMPLE_CLUSTERS);
  });

  it('renders format=clusterinstance as `siteforge generate --format clusterinstance` does', () => {
    const result = generate({ parameters: [{ name: 'format', string: 'clusterinstance' }] });
    expect(result.generate?.status).toBe(0);
    expect(namespaces(result)).toEqual(EXAMPLE_CLUSTERS);
    const cli = spawnSync(
      process.execPath,
      [
        join(repoRoot, 'bin', 'siteforge.js'),
        'generate',
        '--format',
        'clusterinstance',
        'examples/sites',
      ],
      { cwd: repoRoot, encoding: 'utf8' },
    );
    expect(result.generate?.stdout).toBe(cli.stdout);
  });

  it('refuses an unknown format with the accepted ones', () => {
    const error = expectRefused(generate({ env: [{ name: 'FORMAT', value: 'helm' }] }), 2);
    expect(error).toContain('format "helm" is not one of crs, clusterinstance');
  });

  it('selects a rollout wave with sites globs, by cluster or SiteConfig name, with !exclusions', () => {
    const wave = generate({ parameters: [{ name: 'sites', array: ['west-*', 'site-du-*'] }] });
    expect(namespaces(wave)).toEqual(['du-sno-1', 'west-sno-a', 'west-sno-b']);
    const rest = generate({ env: [{ name: 'SITES', value: '*, !west-sno-{a,b}' }] });
    expect(namespaces(rest)).toEqual(['compact-1', 'du-sno-1', 'sno-v6-1', 'standard-1']);
  });

  it('never syncs an empty selection, which would let Argo CD prune every site', () => {
    const error = expectRefused(
      generate({ parameters: [{ name: 'sites', array: ['east-*'] }] }),
      1,
    );
    expect(error).toContain('sites pattern "east-*" matches no site');
    expect(error).toMatch(/selects none of the 5 site\(s\) in clusters\/prod; .*prune/);
  });

  it('warns about a sites pattern that matches nothing, and fails on it with strict=true', () => {
    const sites = { name: 'sites', array: ['west-*', 'wset-*'] } as const;
    const lenient = generate({ parameters: [sites] });
    expect(namespaces(lenient)).toEqual(['west-sno-a', 'west-sno-b']);
    expect(lenient.generate?.stderr).toContain('warning: sites pattern "wset-*" matches no site');
    const strict = generate({ parameters: [sites, { name: 'strict', string: 'true' }] });
    expect(expectRefused(strict, 1)).toContain('error: sites pattern "wset-*" matches no site');
  });

  it('lets warnings pass, and fails them with strict (as parameter or env)', () => {
    const warned = repoWith({
      [`${APP}/warn.yaml`]: snoSite({ node: '          cpuset: "0-1"\n' }),
    });
    try {
      const lenient = sidecar.generate({ repoDir: warned, appPath: APP });
      expect(lenient.generate?.status).toBe(0);
      expect(lenient.generate?.stderr).toMatch(
        /clusters\/prod\/warn\.yaml:\d+:\d+: warning DEPRECATED_FIELD/,
      );
      for (const request of [
        { parameters: [{ name: 'strict', string: 'true' }] },
        { env: [{ name: 'STRICT', value: 'true' }] },
      ]) {
        const error = expectRefused(
          sidecar.generate({ repoDir: warned, appPath: APP, ...request }),
          1,
        );
        expect(error).toMatch(/clusters\/prod\/warn\.yaml:\d+:\d+: error DEPRECATED_FIELD/);
      }
    } finally {
      rmSync(warned, { recursive: true, force: true });
    }
  });

  it('rejects unknown parameters and env entries without echoing their values', () => {
    const error = expectRefused(
      generate({
        parameters: [{ name: 'site', array: ['west-*'] }],
        env: [{ name: 'TOKEN', value: 's3cr3t-value' }],
      }),
      2,
    );
    expect(error).toContain('unknown parameter "site"; SiteForge knows format, sites, strict');
    expect(error).toContain('unknown env entry TOKEN');
    expect(error).not.toContain('s3cr3t-value');
  });

  it('rejects an option set both as parameter and as env entry', () => {
    const error = expectRefused(
      generate({
        parameters: [{ name: 'strict', string: 'true' }],
        env: [{ name: 'STRICT', value: 'false' }],
      }),
      2,
    );
    expect(error).toContain('"strict" is set twice');
  });

  it('fails the whole app for one broken site: exit 1, nothing on stdout, repo-relative positions', () => {
    const broken = repoWith({
      [`${APP}/bad.yaml`]: snoSite({ name: 'bad', node: '          bootMode: BIOS\n' }),
    });
    try {
      const error = expectRefused(sidecar.generate({ repoDir: broken, appPath: APP }), 1);
      expect(error).toMatch(/^failed exit status 1: /);
      expect(error).toContain(
        'clusters/prod/bad.yaml:21:21: error INVALID_VALUE: "BIOS" is not allowed for "spec.clusters.0.nodes.0.bootMode"',
      );
      expect(error).toContain('hint: allowed: "UEFI", "UEFISecureBoot", "legacy"');
      expect(error).toContain('nothing was generated');
      expect(error).not.toMatch(/\n\s+at /);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it('refuses an app directory without any SiteConfig instead of pruning everything', () => {
    const empty = repoWith({ 'policies/.siteforge': '' });
    try {
      const error = expectRefused(sidecar.generate({ repoDir: empty, appPath: 'policies' }), 1);
      expect(error).toContain('no SiteConfig found in policies');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('reads the files a SiteConfig refers to inside the repository copy, and only there', () => {
    const bios = (path: string): string =>
      snoSite({
        name: 'bios',
        mac: 'aa:bb:cc:00:00:77',
        node: `          biosConfigRef:\n            filePath: ${path}\n`,
      });
    const withBios = repoWith({
      [`${APP}/bios/du.yaml`]: 'ProcTurboMode: Disabled\n',
      [`${APP}/bios-site.yaml`]: bios('bios/du.yaml'),
    });
    const escaping = repoWith({
      [`${APP}/bios-site.yaml`]: bios('../../../../../../etc/hostname'),
    });
    try {
      const result = sidecar.generate({ repoDir: withBios, appPath: APP });
      expect(result.error).toBeUndefined();
      expect(result.manifests?.filter((m) => m['kind'] === 'HostFirmwareSettings')).toHaveLength(1);
      const error = expectRefused(sidecar.generate({ repoDir: escaping, appPath: APP }), 1);
      expect(error).toMatch(/clusters\/prod\/bios-site\.yaml:\d+:\d+: error BIOS_FILE_NOT_FOUND/);
    } finally {
      rmSync(withBios, { recursive: true, force: true });
      rmSync(escaping, { recursive: true, force: true });
    }
  });

  it('emits BMC Secrets from credentials mounted into the sidecar, never from the repository', () => {
    const secrets = mkdtempSync(join(tmpdir(), 'siteforge-secrets-'));
    chmodSync(secrets, 0o755); // the plugin runs as user 999, like a mounted Secret is readable by it
    // Mounted for the Application's project (the harness's ARGOCD_APP_PROJECT_NAME).
    const mount = join(secrets, 'siteforge-sites', 'cred-bmc');
    mkdirSync(mount, { recursive: true });
    chmodSync(join(secrets, 'siteforge-sites'), 0o755);
    writeFileSync(join(mount, 'username'), 'admin');
    writeFileSync(join(mount, 'password'), 'mounted-pw');
    const site = snoSite({
      name: 'cred',
      mac: 'aa:bb:cc:00:00:78',
      node: '          bmcCredentials:\n            fromDirectory: cred-bmc\n',
    }).replace('          bmcCredentialsName:\n            name: cred-bmc\n', '');
    const repo = repoWith({ [`${APP}/cred.yaml`]: site });
    const mounted = new CmpSidecar(undefined, { SITEFORGE_SECRETS_DIR: secrets });
    try {
      const result = mounted.generate({ repoDir: repo, appPath: APP });
      expect(result.error).toBeUndefined();
      const secret = result.manifests?.find((m) => m['kind'] === 'Secret');
      expect(secret?.['data']).toEqual({
        username: 'YWRtaW4=',
        password: Buffer.from('mounted-pw').toString('base64'),
      });
      // Without the mount, the same app fails loudly instead of syncing a host without credentials.
      expect(expectRefused(sidecar.generate({ repoDir: repo, appPath: APP }), 1)).toMatch(
        /error SECRET_DIRECTORY_NOT_FOUND/,
      );
    } finally {
      mounted.close();
      rmSync(repo, { recursive: true, force: true });
      rmSync(secrets, { recursive: true, force: true });
    }
  });

  it('keeps Secret values found in the app directory out of stdout and stderr', () => {
    const withSecret = repoWith({
      [`${APP}/bmc-secrets.yaml`]:
        'apiVersion: v1\nkind: Secret\nmetadata:\n  name: du-sno-1-bmc-secret\nstringData:\n  password: hunter2-bmc\n',
    });
    try {
      const result = sidecar.generate({ repoDir: withSecret, appPath: APP });
      expect(result.generate?.status).toBe(0);
      expect(result.generate?.stdout).not.toContain('hunter2-bmc');
      expect(result.generate?.stderr).not.toContain('hunter2-bmc');
    } finally {
      rmSync(withSecret, { recursive: true, force: true });
    }
  });

  it.runIf(canRunAsSidecarUser)(
    'runs as user 999 and writes nothing into its copy of the repository',
    () => {
      const result = generate();
      expect(result.generate?.status).toBe(0);
      expect(result.leftovers).toEqual([]);
    },
  );

  it('renders an app of 1,000 SNO sites well inside the 60 s request deadline', () => {
    const big = mkdtempSync(join(tmpdir(), 'siteforge-repo-'));
    try {
      writeFleet(join(big, 'sites'), 1000);
      const result = sidecar.generate({ repoDir: big, appPath: 'sites' });
      expect(result.error).toBeUndefined();
      expect(namespaces(result)).toHaveLength(1000);
      expect(result.durationMs).toBeLessThan(30_000);
    } finally {
      rmSync(big, { recursive: true, force: true });
    }
  });
});

describe('discover', () => {
  it('claims an app directory that holds SiteConfig files', () => {
    expect(sidecar.matchRepository({ repoDir: repo, appPath: APP })).toBe(true);
  });

  it('claims a directory with the .siteforge marker, even before it has sites', () => {
    const marked = repoWith({ 'new-region/.siteforge': '' });
    try {
      expect(sidecar.matchRepository({ repoDir: marked, appPath: 'new-region' })).toBe(true);
    } finally {
      rmSync(marked, { recursive: true, force: true });
    }
  });

  it('claims an app directory that holds only ClusterInstance files', () => {
    const instances = repoWith({
      'ci-sites/sno.yaml': readFileSync(
        join(repoRoot, 'examples', 'clusterinstance', 'clusterinstance-sno.yaml'),
        'utf8',
      ),
    });
    try {
      expect(sidecar.matchRepository({ repoDir: instances, appPath: 'ci-sites' })).toBe(true);
      const result = sidecar.generate({ repoDir: instances, appPath: 'ci-sites' });
      expect(result.error).toBeUndefined();
      expect(result.manifests?.some((m) => m['kind'] === 'AgentClusterInstall')).toBe(true);
    } finally {
      rmSync(instances, { recursive: true, force: true });
    }
  });

  it('leaves other directories to other plugins, and a named request then fails to find it', () => {
    expect(sidecar.matchRepository({ repoDir: repo, appPath: 'policies' })).toBe(false);
    const result = generate({ appPath: 'policies' });
    expect(result.matched).toBe(false);
    expect(result.error).toBe(
      'could not find cmp-server plugin with name "siteforge-v1" supporting the given repository',
    );
  });
});

describe('parameters announcement', () => {
  it('announces format, sites (listing the sites found) and strict in the shape Argo CD reads', () => {
    const { announcement } = sidecar.announceParameters({ repoDir: repo, appPath: APP });
    const allowed = new Set([
      'name',
      'title',
      'tooltip',
      'required',
      'itemType',
      'collectionType',
      'string',
      'array',
      'map',
    ]);
    for (const entry of announcement as Record<string, unknown>[]) {
      expect(Object.keys(entry).filter((k) => !allowed.has(k))).toEqual([]);
      expect(typeof entry['name']).toBe('string');
      expect(['string', 'array', 'map']).toContain(entry['collectionType']);
    }
    expect(announcement).toEqual([
      expect.objectContaining({ name: 'format', collectionType: 'string', string: 'crs' }),
      expect.objectContaining({
        name: 'sites',
        title: 'Sites (6 found)',
        collectionType: 'array',
        array: EXAMPLE_CLUSTERS,
      }),
      expect.objectContaining({ name: 'strict', collectionType: 'string', string: 'false' }),
    ]);
  });

  it('still opens when a site is broken, listing the valid ones', () => {
    const broken = repoWith({
      [`${APP}/bad.yaml`]: snoSite({ name: 'bad', node: '          bootMode: BIOS\n' }),
    });
    try {
      const { run, announcement } = sidecar.announceParameters({ repoDir: broken, appPath: APP });
      expect(run?.stderr).toContain('clusters/prod/bad.yaml:21:21: error INVALID_VALUE');
      const sites = (announcement as { name: string; array?: string[] }[]).find(
        (a) => a.name === 'sites',
      );
      expect(sites?.array).toEqual(EXAMPLE_CLUSTERS);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});

describe('siteforge argocd (command line)', () => {
  it('exits 2 with the usage for an unknown subcommand or extra arguments', () => {
    for (const args of [['argocd'], ['argocd', 'render'], ['argocd', 'generate', 'x']]) {
      const result = spawnSync(process.execPath, [join(repoRoot, 'bin', 'siteforge.js'), ...args], {
        cwd: repo,
        encoding: 'utf8',
      });
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('usage: siteforge argocd generate|discover|parameters');
    }
  });

  it('reads PARAM_* when run by hand without ARGOCD_APP_PARAMETERS', () => {
    const result = spawnSync(
      process.execPath,
      [join(repoRoot, 'bin', 'siteforge.js'), 'argocd', 'generate'],
      {
        cwd: join(repo, APP),
        encoding: 'utf8',
        env: { PATH: process.env['PATH'] ?? '', PARAM_SITES_0: 'compact-*' },
      },
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('name: compact-1');
    expect(result.stdout).not.toContain('name: du-sno-1');
  });

  it('lists the app directory recursively and skips dot-directories', () => {
    expect(readdirSync(join(repo, APP)).length).toBeGreaterThan(0);
    const nested = repoWith({
      [`${APP}/wave-2/late.yaml`]: snoSite({ name: 'late', mac: 'aa:bb:cc:00:00:99' }),
      [`${APP}/.github/ci.yaml`]: 'kind: SiteConfig\nbroken: [\n',
    });
    try {
      const result = sidecar.generate({ repoDir: nested, appPath: APP });
      expect(namespaces(result)).toContain('late');
    } finally {
      rmSync(nested, { recursive: true, force: true });
    }
  });
});
