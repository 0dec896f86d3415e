import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot, snoSite } from '../support/sites.js';

/** Runs the real `siteforge` binary, as a user would. */
function siteforge(
  args: string[],
  cwd = repoRoot,
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(repoRoot, 'bin', 'siteforge.js'), ...args], {
    cwd,
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'siteforge-cli-'));
}

describe('siteforge generate', () => {
  it('prints one YAML stream of hub objects for a directory of sites', () => {
    const { status, stdout, stderr } = siteforge(['generate', 'examples/sites']);
    expect(status).toBe(0);
    expect(stderr).toBe('');
    const docs = parseAllDocuments(stdout).map((d) => d.toJS() as { kind: string });
    expect(docs.length).toBe(58);
    expect(new Set(docs.map((d) => d.kind))).toEqual(
      new Set([
        'Namespace',
        'AgentClusterInstall',
        'ClusterDeployment',
        'ConfigMap',
        'InfraEnv',
        'NMStateConfig',
        'ManagedCluster',
        'KlusterletAddonConfig',
        'BareMetalHost',
      ]),
    );
  });

  it('writes one file per object under DIR/<cluster>/ with -o', () => {
    const out = join(tempDir(), 'out');
    const { status } = siteforge(['generate', 'examples/sites/compact-3node.yaml', '-o', out]);
    expect(status).toBe(0);
    expect(readdirSync(join(out, 'compact-1')).sort()).toEqual([
      'agentclusterinstall_compact-1.yaml',
      'baremetalhost_compact-1-m0.edge.example.com.yaml',
      'baremetalhost_compact-1-m1.edge.example.com.yaml',
      'baremetalhost_compact-1-m2.edge.example.com.yaml',
      'clusterdeployment_compact-1.yaml',
      'configmap_compact-1.yaml',
      'infraenv_compact-1.yaml',
      'klusterletaddonconfig_compact-1.yaml',
      'managedcluster_compact-1.yaml',
      'namespace_compact-1.yaml',
    ]);
    // A second run replaces the previous output, leaving no stale files behind.
    expect(siteforge(['generate', 'examples/sites/sno-du-ipv4.yaml', '-o', out]).status).toBe(0);
    expect(existsSync(join(out, 'compact-1'))).toBe(false);
    expect(existsSync(join(out, 'du-sno-1', 'namespace_du-sno-1.yaml'))).toBe(true);
  });

  it('refuses to replace a directory it did not write', () => {
    const out = tempDir();
    writeFileSync(join(out, 'precious.txt'), 'keep me');
    const { status, stderr } = siteforge(['generate', 'examples/sites', '-o', out]);
    expect(status).toBe(2);
    expect(stderr).toContain('was not written by siteforge');
    expect(readFileSync(join(out, 'precious.txt'), 'utf8')).toBe('keep me');
  });

  it('skips other kinds with a note on stderr', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'site.yaml'),
      `${snoSite()}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n`,
    );
    const { status, stdout, stderr } = siteforge(['generate', dir]);
    expect(status).toBe(0);
    expect(stderr).toMatch(
      /site\.yaml:\d+:1: note SKIPPED_DOCUMENT: skipping a document of kind ConfigMap/,
    );
    expect(stdout).toContain('kind: BareMetalHost');
  });
});

describe('extra manifests from the reference set a team keeps in git', () => {
  // docs/compatibility.md ("Default extra manifests"): searchPaths replace SiteForge's default
  // set, as they replace siteconfig-generator's, so the ConfigMap holds exactly those files.
  it('fills the ConfigMap with the files of searchPaths only, later folders winning', () => {
    const example = 'examples/reference-extra-manifests';
    const { status, stdout } = siteforge(['generate', `${example}/site.yaml`]);
    expect(status).toBe(0);
    const configMap = parseAllDocuments(stdout)
      .map((d) => d.toJS() as { kind: string; data?: Record<string, string> })
      .find((o) => o.kind === 'ConfigMap');
    const data = configMap?.data ?? {};
    expect(Object.keys(data).sort()).toEqual([
      '06-kdump-master.yaml',
      '09-openshift-marketplace-ns.yaml',
    ]);
    // Each entry is the file's object with the ZTP annotation, as siteconfig-generator writes it.
    const fromFile = (path: string): unknown => {
      const manifest = parse(readFileSync(join(repoRoot, example, path), 'utf8')) as {
        metadata: { annotations?: Record<string, string> };
      };
      manifest.metadata.annotations = {
        ...manifest.metadata.annotations,
        'ran.openshift.io/ztp-gitops-generated': '{}',
      };
      return manifest;
    };
    expect(parse(data['06-kdump-master.yaml']!)).toEqual(
      fromFile('custom-manifest/06-kdump-master.yaml'),
    );
    expect(parse(data['09-openshift-marketplace-ns.yaml']!)).toEqual(
      fromFile('extra-manifest/09-openshift-marketplace-ns.yaml'),
    );
  });
});

describe('invalid input', () => {
  const broken = snoSite({
    cluster: '      apiVIPs:\n        - 10.9.9.9\n',
    node: '          bootMode: BIOS\n',
  });

  it('reports every error as file:line:column with a hint, prints nothing on stdout, exits 1', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.yaml'), broken);
    const { status, stdout, stderr } = siteforge(['generate', join(dir, 'bad.yaml')]);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      `${join(dir, 'bad.yaml')}:23:21: error INVALID_VALUE: "BIOS" is not allowed for "spec.clusters.0.nodes.0.bootMode"`,
    );
    expect(stderr).toContain('\n  hint: allowed: "UEFI", "UEFISecureBoot", "legacy"');
    expect(stderr).toMatch(/nothing was generated/);
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('leaves an existing output directory untouched when the input is invalid', () => {
    const out = join(tempDir(), 'out');
    expect(siteforge(['generate', 'examples/sites/compact-3node.yaml', '-o', out]).status).toBe(0);
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.yaml'), broken);
    expect(siteforge(['generate', dir, '-o', out]).status).toBe(1);
    expect(readdirSync(out)).toContain('compact-1');
  });

  it('reports YAML syntax errors with their position', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'syntax.yaml'),
      'apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nspec: [unclosed\n',
    );
    const { status, stdout, stderr } = siteforge(['validate', dir]);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/syntax\.yaml:\d+:\d+: error YAML_[A-Z_]+: /);
  });

  it('fails warnings too with --strict', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'warn.yaml'), snoSite({ node: '          cpuset: "0-1"\n' }));
    expect(siteforge(['validate', dir]).status).toBe(0);
    const strict = siteforge(['validate', '--strict', dir]);
    expect(strict.status).toBe(1);
    expect(strict.stderr).toContain('error DEPRECATED_FIELD');
  });
});

describe('what siteconfig-generator accepts is a warning, not an error', () => {
  /** Two more control-plane nodes and VIPs: the single-node site becomes a compact cluster. */
  const compactNodes = [2, 3]
    .map(
      (n) => `        - hostName: sno1-node${String(n)}
          bmcAddress: redfish-virtualmedia://10.0.1.${String(n)}/redfish/v1/Systems/1
          bmcCredentialsName:
            name: sno1-bmc${String(n)}
          bootMACAddress: "aa:bb:cc:00:00:0${String(n)}"
`,
    )
    .join('');
  const vips = '      apiVIPs:\n        - 10.0.0.5\n      ingressVIPs:\n        - 10.0.0.6\n';
  const cases = [
    {
      code: 'SNO_ONLY_FIELD',
      what: 'cpuset on a compact cluster (ignored)',
      text: snoSite({ cluster: vips, node: '          cpuset: "0-1"\n' + compactNodes }),
    },
    {
      code: 'CLUSTER_NAME_RESERVED',
      what: 'a cluster name starting with ztp',
      text: snoSite({ name: 'ztp-edge' }),
    },
    {
      code: 'FILTER_INVALID',
      what: 'an empty include list when extra manifests are included by default',
      text: snoSite({ cluster: '      extraManifests:\n        filter:\n          include: []\n' }),
    },
    {
      code: 'BOOT_MAC_NOT_IN_INTERFACES',
      what: 'a boot MAC that no listed interface has',
      text: snoSite({
        node: '          nodeNetwork:\n            interfaces:\n              - name: eno1\n                macAddress: "aa:bb:cc:00:00:99"\n',
      }),
    },
  ];

  it.each(cases)('validates $what with a warning, and fails it with --strict', ({ code, text }) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'site.yaml'), text);
    const plain = siteforge(['validate', dir]);
    expect(plain.stderr).toContain(`warning ${code}`);
    expect(plain.stderr).not.toContain('error ');
    expect(plain.status).toBe(0);
    const strict = siteforge(['validate', '--strict', dir]);
    expect(strict.stderr).toContain(`error ${code}`);
    expect(strict.status).toBe(1);
  });
});

describe('usage', () => {
  it('prints help and the version', () => {
    expect(siteforge(['--help']).stdout).toContain('Usage: siteforge <command>');
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(siteforge(['--version']).stdout.trim()).toBe(pkg.version);
  });

  it('exits 2 on an unknown command, an unknown option or a missing path', () => {
    for (const args of [
      ['frobnicate'],
      ['generate', '--bogus', 'x'],
      ['generate'],
      ['generate', 'no/such/dir'],
    ]) {
      const { status, stdout, stderr } = siteforge(args);
      expect(status, args.join(' ')).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^siteforge: /);
    }
  });

  it('validate reports a summary and generates nothing', () => {
    const { status, stdout, stderr } = siteforge(['validate', 'examples/sites']);
    expect(status).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toContain('5 SiteConfig(s), 6 cluster(s): valid');
  });

  it('prints a JSON Schema that editors and ajv can use, and that accepts the examples', () => {
    const { status, stdout } = siteforge(['schema']);
    expect(status).toBe(0);
    const schema = JSON.parse(stdout) as object;
    const validate = new Ajv({ strict: false }).compile(schema);
    const dir = join(repoRoot, 'examples', 'sites');
    for (const file of readdirSync(dir)) {
      for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
        expect(validate(doc.toJS()), file).toBe(true);
      }
    }
  });
});

describe('cdk8s synth', () => {
  it('compiles examples/sites into dist/ offline, with the same objects as generate', () => {
    const work = tempDir();
    mkdirSync(join(work, 'dist'));
    const result = spawnSync(
      process.execPath,
      [
        join(repoRoot, 'node_modules', 'cdk8s-cli', 'bin', 'cdk8s'),
        'synth',
        '--no-check-upgrade',
        '--output',
        join(work, 'dist'),
      ],
      {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, CDK8S_CHECK_UPGRADE: 'false' },
      },
    );
    expect(result.status, result.stderr).toBe(0);
    const synthesized = parseAllDocuments(
      readFileSync(join(work, 'dist', 'sites.k8s.yaml'), 'utf8'),
    ).map((d) => d.toJS() as unknown);
    const generated = parseAllDocuments(siteforge(['generate', 'examples/sites']).stdout).map(
      (d) => d.toJS() as unknown,
    );
    const canonical = (o: unknown): unknown =>
      Array.isArray(o)
        ? o.map(canonical)
        : o !== null && typeof o === 'object'
          ? Object.fromEntries(
              Object.keys(o)
                .sort()
                .map((k) => [k, canonical((o as Record<string, unknown>)[k])]),
            )
          : o;
    const key = (o: unknown): string => JSON.stringify(canonical(o));
    expect(synthesized.map(key).sort()).toEqual(generated.map(key).sort());
  });
});
