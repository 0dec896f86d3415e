import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseYamlFile } from '../../src/shared/source-yaml.js';
import { emitYaml } from '../../src/shared/yaml-emit.js';
import {
  buildExtraManifests,
  CONFIGMAP_DATA_LIMIT,
  configMapEntryBytes,
  parseGoTemplate,
  readsMatch,
  splitConfigMapData,
  TemplateError,
} from '../../src/siteconfig/extra-manifests/index.js';
import type { ExtraManifestResult } from '../../src/siteconfig/extra-manifests/index.js';
import { templateData } from '../../src/siteconfig/extra-manifests/template-data.js';
import { filesFromMap } from '../../src/siteconfig/site-files.js';
import type { SiteFiles } from '../../src/siteconfig/site-files.js';
import type {
  ExtraManifests,
  SiteConfig,
  SiteConfigCluster,
  SiteConfigNode,
} from '../../src/siteconfig/types.js';
import { loadText, repoRoot, snoSite } from '../support/sites.js';

// ---------------------------------------------------------------------------------------------
// Fixtures

/** Every file below `dir`, keyed `<prefix>/<relative path>`. */
function folderFiles(dir: string, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) Object.assign(out, folderFiles(path, `${prefix}/${name}`));
    else out[`${prefix}/${name}`] = readFileSync(path, 'utf8');
  }
  return out;
}

/** The shipped default sets, as the edges hand them over. */
const DEFAULTS = {
  files: filesFromMap(folderFiles(join(repoRoot, 'extra-manifests'), 'extra-manifests')),
  dir: 'extra-manifests',
};

const BASE: SiteConfig = (() => {
  const { sites, issues } = loadText(snoSite());
  expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
  return sites[0]!.siteConfig;
})();
const SNO_NODE: SiteConfigNode = BASE.spec.clusters[0]!.nodes[0]!;

/** The base single-node site with cluster fields replaced. */
function site(cluster: Partial<SiteConfigCluster> = {}): SiteConfig {
  return {
    ...BASE,
    spec: { ...BASE.spec, clusters: [{ ...BASE.spec.clusters[0]!, ...cluster }] },
  };
}

/** Nodes with the given roles. */
function hosts(...roles: ('master' | 'worker')[]): SiteConfigNode[] {
  return roles.map((role, i) => ({
    ...SNO_NODE,
    hostName: `${role}-${String(i)}`,
    role,
    bootMACAddress: `aa:bb:cc:00:00:0${String(i)}`,
  }));
}

const PARTITION_DISK = '/dev/disk/by-path/pci-0000:01:00.0-scsi-0:2:1:0';
const PARTITIONED = {
  device: PARTITION_DISK,
  partitions: [{ mount_point: '/var/imageregistry', size: 102500, start: 344844 }],
};

function build(
  siteConfig: SiteConfig,
  user: Readonly<Record<string, string>> | SiteFiles = {},
  defaults: { files: SiteFiles; dir: string } = DEFAULTS,
): ExtraManifestResult {
  const files = 'readText' in user ? (user as SiteFiles) : filesFromMap(user);
  return buildExtraManifests({
    site: siteConfig,
    clusterIndex: 0,
    siteFile: 'sites/site.yaml',
    files,
    defaults,
  });
}

function codes(result: ExtraManifestResult): string[] {
  return result.problems.map((p) => `${p.severity} ${p.code}`);
}

function only(result: ExtraManifestResult, code: string) {
  const found = result.problems.filter((p) => p.code === code);
  expect(found, codes(result).join(', ')).toHaveLength(1);
  return found[0]!;
}

function clean(result: ExtraManifestResult): Readonly<Record<string, string>> {
  expect(result.problems).toEqual([]);
  return result.data;
}

function pick(data: Readonly<Record<string, string>>, pattern: RegExp): Record<string, string> {
  return Object.fromEntries(Object.entries(data).filter(([key]) => pattern.test(key)));
}

/** Compares with test/golden/extra-manifests/<name>.yaml (npm run golden:update rewrites them). */
function golden(name: string, data: Readonly<Record<string, string>>): void {
  const path = join(repoRoot, 'test', 'golden', 'extra-manifests', `${name}.yaml`);
  const text = emitYaml(data);
  if (process.env['SITEFORGE_GOLDEN_UPDATE'] === '1') {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return;
  }
  expect(text).toBe(readFileSync(path, 'utf8'));
}

const MC = (
  name: string,
  role: string,
  body = '',
): string => `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: ${name}
  labels:
    machineconfiguration.openshift.io/role: ${role}
spec:
  config:
    ignition:
      version: 3.2.0
${body}`;

const DEFAULT_KEYS = [
  '01-container-mount-ns-and-kubelet-conf-master.yaml',
  '01-container-mount-ns-and-kubelet-conf-worker.yaml',
  '01-disk-encryption-pcr-rebind-master.yaml',
  '01-disk-encryption-pcr-rebind-worker.yaml',
  '03-sctp-machine-config-master.yaml',
  '03-sctp-machine-config-worker.yaml',
  '06-kdump-master.yaml',
  '06-kdump-worker.yaml',
  '07-sriov-related-kernel-args-master.yaml',
  '07-sriov-related-kernel-args-worker.yaml',
  '08-set-rcu-normal-master.yaml',
  '08-set-rcu-normal-worker.yaml',
  '09-openshift-marketplace-ns.yaml',
  '99-crio-disable-wipe-master.yaml',
  '99-crio-disable-wipe-worker.yaml',
  '99-sync-time-once-master.yaml',
  '99-sync-time-once-worker.yaml',
];

// ---------------------------------------------------------------------------------------------
// Go templates

function render(text: string, data: unknown = {}): string {
  return parseGoTemplate('t.tmpl', text).execute(data);
}

function templateFailure(text: string, data: unknown = {}): TemplateError {
  try {
    render(text, data);
  } catch (err) {
    if (err instanceof TemplateError) return err;
    throw err;
  }
  throw new Error('the template did not fail');
}

describe('Go template subset', () => {
  it('prints fields, dot, $ and literals the way Go prints them', () => {
    const data = { A: { B: 'x' }, N: 3, F: 1.5, T: true, L: ['a', 'b'], M: { k: 1, a: 2 } };
    expect(render('{{ .A.B }}|{{ .N }}|{{ .F }}|{{ .T }}|{{ .L }}|{{ .M }}', data)).toBe(
      'x|3|1.5|true|[a b]|map[a:2 k:1]',
    );
    expect(render('{{ .Missing }}|{{ $.A.B }}|{{ with .A }}{{ . }}{{ end }}', data)).toBe(
      '<no value>|x|map[B:x]',
    );
    expect(
      render('{{ "a\\tb\\u00e9" }}|{{ `raw\\n` }}|{{ 0x1F }}|{{ \'a\' }}|{{ -2 }}|{{ print nil }}'),
    ).toBe('a\tb\u00e9|raw\\n|31|97|-2|<nil>');
  });

  it('trims whitespace around {{- and -}} and drops comments', () => {
    expect(render('a  \n {{- "b" -}} \n  c')).toBe('abc');
    expect(render('a {{/* note */}} b {{- /* trimmed */ -}} c')).toBe('a  bc');
    expect(render('{{-3}}')).toBe('-3');
  });

  it('branches with if / else if / else and with / else with', () => {
    const t = '{{ if eq .X 1 }}one{{ else if eq .X 2 }}two{{ else }}many{{ end }}';
    expect([1, 2, 3].map((X) => render(t, { X }))).toEqual(['one', 'two', 'many']);
    const w = '{{ with .A }}a={{ . }}{{ else with .B }}b={{ . }}{{ else }}none{{ end }}';
    expect(render(w, { A: 'x' })).toBe('a=x');
    expect(render(w, { B: 'y' })).toBe('b=y');
    expect(render(w, { A: '', B: [] })).toBe('none');
  });

  it('ranges over lists, maps in key order and integers, with else, break and continue', () => {
    expect(render('{{ range $i, $v := .L }}{{ $i }}={{ $v }};{{ end }}', { L: ['a', 'b'] })).toBe(
      '0=a;1=b;',
    );
    expect(render('{{ range $k, $v := . }}{{ $k }}{{ $v }}{{ end }}', { b: 2, a: 1 })).toBe('a1b2');
    expect(
      render('{{ range $v := .L }}{{ $v }}{{ end }}|{{ range 3 }}{{ . }}{{ end }}', { L: [7] }),
    ).toBe('7|012');
    expect(render('{{ range .L }}x{{ else }}empty{{ end }}', { L: [] })).toBe('empty');
    expect(
      render(
        '{{ range . }}{{ if eq . 2 }}{{ continue }}{{ end }}{{ if eq . 4 }}{{ break }}{{ end }}{{ . }}{{ end }}',
        [1, 2, 3, 4, 5],
      ),
    ).toBe('13');
  });

  it('declares and assigns variables with Go scoping', () => {
    expect(render('{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ $y := 3 }}{{ end }}{{ $x }}')).toBe(
      '2',
    );
    const error = (() => {
      try {
        parseGoTemplate('t', '{{ if true }}{{ $y := 3 }}{{ end }}{{ $y }}');
      } catch (err) {
        return err as TemplateError;
      }
      return undefined;
    })();
    expect(error?.detail).toBe('undefined variable "$y"');
  });

  it('implements the comparison, logic and collection functions', () => {
    const data = { S: 'b', N: 2, L: ['x', 'y'], M: { k: { deep: 'v' } }, E: '' };
    expect(
      render(
        '{{ eq .S "a" "b" }} {{ ne .N 2 }} {{ lt 1 2 }} {{ le 2 2 }} {{ gt "b" "a" }} {{ ge 1 2 }}',
        data,
      ),
    ).toBe('true false true true true false');
    expect(render('{{ and 1 .E "never" }}|{{ or .E 0 "z" }}|{{ not .E }}', data)).toBe('|z|true');
    expect(render('{{ len .L }} {{ len .S }} {{ len .M }} {{ len "é" }}', data)).toBe('2 1 1 2');
    expect(
      render('{{ index .L 1 }} {{ index .M "k" "deep" }} {{ (index .M "k").deep }}', data),
    ).toBe('y v v');
    // and/or stop at the first decisive operand, like Go 1.18+.
    expect(render('{{ or .S (index .L 9) }}', data)).toBe('b');
  });

  it('formats with print, println and printf', () => {
    expect(render('{{ print "a" 1 2 "b" }}|{{ println 1 "x" }}')).toBe('a1 2b|1 x\n');
    expect(
      render(
        '{{ printf "%s-%d-%q-%v-%t-%x-%5.1f-%-4s|-%03d" "s" 7 "q\\"" .L true 255 3.14159 "ab" 7 }}',
        { L: [1] },
      ),
    ).toBe('s-7-"q\\""-[1]-true-ff-  3.1-ab  |-007');
    expect(render('{{ printf "%d %s" "x" }}')).toBe('%!d(string=x) %!s(MISSING)');
    expect(render('{{ .U | printf "%q" }}', { U: 'http://t:1' })).toBe('"http://t:1"');
    expect(render('{{ printf "%d" 1 2 }}')).toBe('1%!(EXTRA int=2)');
  });

  it('reports parse errors with their line, as Go does', () => {
    const cases: [string, number, string][] = [
      ['a\n{{ toYaml . }}', 2, 'function "toYaml" not defined'],
      ['{{ $nope }}', 1, 'undefined variable "$nope"'],
      ['a\n\n{{ .A ', 3, 'unclosed action'],
      ['{{ end }}', 1, 'unexpected {{end}}'],
      ['{{ if .A }}\nx', 1, 'unexpected EOF in {{if}}'],
      [
        '{{ define "x" }}{{ end }}',
        1,
        '{{define}} is not supported in extra-manifest templates (no define, template or block)',
      ],
      ['{{ "abc }}', 1, 'unterminated quoted string'],
      ['{{ 12ab }}', 1, 'bad number syntax: "12a"'],
      ['{{ break }}', 1, '{{break}} outside {{range}}'],
      ['{{ nil }}', 1, 'nil is not a command'],
      ['{{ if }}{{ end }}', 1, 'missing value for if'],
      ['{{ /* x */ }}', 1, "unrecognized character in action: U+002F '/'"],
      ['{{ .A | }}', 1, 'missing command after "|"'],
    ];
    for (const [text, line, detail] of cases) {
      let error: unknown;
      try {
        parseGoTemplate('t', text);
      } catch (err) {
        error = err;
      }
      expect(error, text).toBeInstanceOf(TemplateError);
      expect(
        { line: (error as TemplateError).line, detail: (error as TemplateError).detail },
        text,
      ).toEqual({ line, detail });
      expect((error as TemplateError).phase).toBe('parse');
    }
  });

  it('reports execution errors with their line and never throws anything else', () => {
    const data = { L: [1], S: 'x', N: null };
    expect(templateFailure('a\n{{ .N.Field }}', data)).toMatchObject({
      phase: 'execute',
      line: 2,
      detail: 'executing <.N.Field>: nil pointer evaluating interface {}.Field',
    });
    expect(templateFailure('{{ .S.Len }}', data).detail).toBe(
      "executing <.S.Len>: can't evaluate field Len in type string",
    );
    expect(templateFailure('{{ .S 1 }}', data).detail).toBe(
      "executing <.S 1>: can't give argument to non-function .S",
    );
    expect(templateFailure('{{ eq .S 1 }}', data).detail).toBe(
      'executing <eq .S 1>: error calling eq: incompatible types for comparison',
    );
    expect(templateFailure('{{ index .L 3 }}', data).detail).toBe(
      'executing <index .L 3>: error calling index: index out of range: 3',
    );
    expect(templateFailure('{{ len 3 }}', data).detail).toBe(
      'executing <len 3>: error calling len: len of type int',
    );
    expect(templateFailure('{{ range 100000000 }}{{ end }}').detail).toMatch(
      /^the templates of this run took more than 10000000 steps/,
    );
    expect(templateFailure('{{ range .S }}{{ end }}', data).detail).toBe(
      "range can't iterate over x",
    );
  });
});

describe('tracked rendering', () => {
  it('records the struct fields a rendering reads, and matches them against other data', () => {
    const template = parseGoTemplate(
      't',
      '{{ with .Data.DiskEncryption }}{{ if eq .Type "nbde" }}{{ range .Tang }}{{ .URL }}{{ end }}{{ end }}{{ end }}',
    );
    const cluster = (type: 'none' | 'nbde', url = 'http://a'): SiteConfigCluster => ({
      ...BASE.spec.clusters[0]!,
      diskEncryption: { type, tang: [{ url, thumbprint: 'x' }] },
    });
    const tracked = template.executeTracked(templateData(cluster('nbde'))('master'));
    expect(tracked.output).toBe('http://a');
    expect(tracked.reads?.map((r) => r.name)).toEqual([
      'Data',
      'DiskEncryption',
      'Type',
      'Tang',
      'URL',
    ]);
    expect(readsMatch(templateData(cluster('nbde'))('worker'), tracked.reads!)).toBe(true);
    expect(readsMatch(templateData(cluster('nbde', 'http://b'))('master'), tracked.reads!)).toBe(
      false,
    );
    expect(readsMatch(templateData(cluster('none'))('master'), tracked.reads!)).toBe(false);
  });
});

describe('template data (.Role and .Data)', () => {
  const cluster: SiteConfigCluster = {
    ...BASE.spec.clusters[0]!,
    diskEncryption: { type: 'nbde', tang: [{ url: 'http://t:7500', thumbprint: 'abc' }] },
    nodes: [
      {
        ...SNO_NODE,
        diskPartition: [
          {
            device: '/dev/sdb',
            partitions: [{ mount_point: '/var/lib/image-registry/', size: 10, start: 25000 }],
          },
        ],
      },
    ],
  };
  const data = templateData(cluster)('master');

  it('answers to the Go field names of siteconfig-generator and to the YAML names', () => {
    const t =
      '{{ .Role }} {{ .Data.ClusterName }} {{ .Data.clusterName }} {{ .Data.DiskEncryption.Type }} {{ range .Data.DiskEncryption.Tang }}{{ .URL }} {{ .Thumbprint }}{{ end }}';
    expect(render(t, data)).toBe('master sno1 sno1 nbde http://t:7500 abc');
  });

  it('exposes the computed fields and the Go defaults', () => {
    const t =
      '{{ .Data.NumMasters }} {{ .Data.NumWorkers }} {{ .Data.ClusterType }} {{ .Data.NetworkType }} {{ range .Data.Nodes }}{{ .Role }} {{ .BootMode }}{{ range .DiskPartition }}{{ range .Partitions }} {{ .MountPoint }} {{ .Label }} {{ .MountFileName }} {{ .FileSystemFormat }} {{ .mount_point }}{{ end }}{{ end }}{{ end }}';
    expect(render(t, data)).toBe(
      '1 0 sno OVNKubernetes master UEFI /var/lib/image-registry var-lib-image-registry var-lib-image\\x2dregistry.mount xfs /var/lib/image-registry',
    );
  });

  it('gives zero values for fields the SiteConfig leaves out, and an error for names that are no field', () => {
    const plain = templateData(BASE.spec.clusters[0]!)('worker');
    expect(
      render(
        '[{{ .Data.DiskEncryption.Type }}][{{ .Data.ApiVIP }}][{{ len .Data.ApiVIPs }}][{{ .Data.HoldInstallation }}][{{ if .Data.DiskEncryption }}struct{{ end }}]',
        plain,
      ),
    ).toBe('[none][][0][false][struct]');
    expect(templateFailure('{{ .Data.Bogus }}', plain).detail).toBe(
      "executing <.Data.Bogus>: can't evaluate field Bogus in type siteConfig.Clusters",
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Building the ConfigMap data

describe('the default set', () => {
  it('gives a single-node cluster the reviewed default manifests', () => {
    const data = clean(build(site()));
    expect(Object.keys(data)).toEqual(DEFAULT_KEYS);
    golden('sno-defaults', data);
  });

  it('annotates every manifest as generated and keeps it a valid Kubernetes object', () => {
    const data = clean(build(site()));
    for (const [key, text] of Object.entries(data)) {
      const parsed = parseYamlFile(key, text);
      expect(parsed.errors).toEqual([]);
      const doc = parsed.documents[0]!.value as {
        metadata: { annotations: Record<string, string> };
        spec?: { config?: { ignition?: { version?: string } } };
        kind: string;
      };
      expect(doc.metadata.annotations['ran.openshift.io/ztp-gitops-generated']).toBe('{}');
      if (doc.kind === 'MachineConfig') expect(doc.spec?.config?.ignition?.version).toBe('3.2.0');
    }
  });

  it('writes node files whose data URLs decode to the text shown in the comment above them', () => {
    const files = folderFiles(join(repoRoot, 'extra-manifests'), 'extra-manifests');
    let checked = 0;
    for (const [path, text] of Object.entries(files)) {
      const lines = text.split('\n');
      lines.forEach((line, i) => {
        const match = /^(\s*)source: data:text\/plain;charset=utf-8;base64,(\S+)$/.exec(line);
        if (!match || match[2]!.startsWith('$')) return;
        const block: string[] = [];
        for (let j = i - 1; j >= 0 && lines[j]!.startsWith(`${match[1]!}# |`); j--)
          block.unshift(lines[j]!.slice(match[1]!.length + 4));
        expect(Buffer.from(match[2]!, 'base64').toString('utf8'), `${path}:${String(i + 1)}`).toBe(
          `${block.join('\n')}\n`,
        );
        checked++;
      });
    }
    expect(checked).toBeGreaterThanOrEqual(10);
  });

  it('selects no defaults with defaultSet none, and rejects an unknown set by listing the sets', () => {
    const none: ExtraManifests & { defaultSet: string } = { defaultSet: 'none' };
    expect(clean(build(site({ extraManifests: none })))).toEqual({});
    const bogus: ExtraManifests & { defaultSet: string } = { defaultSet: 'du-profile' };
    const problem = only(build(site({ extraManifests: bogus })), 'EXTRA_MANIFEST_SET_UNKNOWN');
    expect(problem).toMatchObject({ severity: 'error', path: ['extraManifests', 'defaultSet'] });
    expect(problem.message).toBe(
      'there is no default extra-manifest set "du-profile"; the sets are default, none',
    );
  });

  it('uses no default set with searchPaths, even an empty list, and says a defaultSet is then ignored', () => {
    const ignored: ExtraManifests & { defaultSet: string } = {
      defaultSet: 'default',
      searchPaths: [],
    };
    const result = build(site({ extraManifests: ignored }));
    expect(result.data).toEqual({});
    expect(only(result, 'EXTRA_MANIFEST_SET_IGNORED')).toMatchObject({
      severity: 'warning',
      path: ['extraManifests', 'defaultSet'],
    });
  });

  it('reports a missing default folder (a broken installation) instead of building nothing', () => {
    const result = build(
      site(),
      {},
      { files: filesFromMap({}), dir: '/opt/siteforge/extra-manifests' },
    );
    expect(only(result, 'EXTRA_MANIFEST_NOT_FOUND').message).toBe(
      'the default extra manifests folder /opt/siteforge/extra-manifests is missing',
    );
  });
});

describe('templates per role', () => {
  const standard = site({
    apiVIPs: ['10.0.0.2'],
    ingressVIPs: ['10.0.0.3'],
    nodes: hosts('master', 'master', 'master', 'worker', 'worker'),
  });

  it('renders once per role present, as <role>-<name>, and drops blank output', () => {
    const tpm2 = clean(
      build(site({ ...standard.spec.clusters[0]!, diskEncryption: { type: 'tpm2' } })),
    );
    expect(Object.keys(pick(tpm2, /disk-encryption\.yaml$/))).toEqual([
      'master-disk-encryption.yaml',
      'worker-disk-encryption.yaml',
    ]);
    // Without diskEncryption or diskPartition the templates render blanks: no keys at all.
    expect(Object.keys(clean(build(standard)))).toEqual(DEFAULT_KEYS);
    golden('tpm2-standard', pick(tpm2, /disk-encryption\.yaml$/));
  });

  it('encrypts the root disk with TPM 2.0 bound to a PCR list', () => {
    const data = clean(build(site({ diskEncryption: { type: 'tpm2', tpm2: { pcrList: '1,7' } } })));
    expect(data['master-disk-encryption.yaml']).toContain(
      `config: '{"pcr_bank":"sha256","pcr_ids":"1,7"}'`,
    );
    golden('tpm2-pcr-list', pick(data, /disk-encryption\.yaml$/));
  });

  it('encrypts the root disk with Tang servers and rd.neednet=1', () => {
    const data = clean(
      build(
        site({
          diskEncryption: {
            type: 'nbde',
            tang: [
              { url: 'http://10.0.0.5:7500', thumbprint: '1c3wJKh6TQKTghTjWgS4MlIXtGk' },
              { url: 'https://tang.example.com', thumbprint: 'PLjNyRdGw03zlRoGjQYMahSZGu9' },
            ],
          },
        }),
      ),
    );
    expect(data['master-disk-encryption.yaml']).toContain('- rd.neednet=1');
    golden('nbde', pick(data, /disk-encryption\.yaml$/));
  });

  it('renders nothing for diskEncryption type none', () => {
    expect(Object.keys(clean(build(site({ diskEncryption: { type: 'none' } }))))).toEqual(
      DEFAULT_KEYS,
    );
  });

  it('partitions the disk of a single-node cluster with an xfs or ext4 mount unit', () => {
    const data = clean(
      build(
        site({
          nodes: [
            {
              ...SNO_NODE,
              diskPartition: [
                {
                  device: PARTITION_DISK,
                  partitions: [
                    { mount_point: '/var/imageregistry', size: 102500, start: 344844 },
                    {
                      mount_point: '/var/lib/data-store',
                      size: 20000,
                      start: 447344,
                      file_system_format: 'ext4',
                    },
                  ],
                },
              ],
            },
          ],
        }),
      ),
    );
    expect(data['master-image-registry-partition-mc.yaml']).toContain(
      'name: var-lib-data\\x2dstore.mount',
    );
    golden('disk-partition', pick(data, /partition-mc/));
  });

  it('renders user templates from extraManifestPath with the Go field names', () => {
    const data = clean(
      build(site({ extraManifestPath: 'mine' }), {
        'sites/mine/hello.yaml.tmpl': `{{ if eq .Data.NumMasters 1 }}apiVersion: v1
kind: ConfigMap
metadata:
  name: hello-{{ .Role }}
  namespace: default
data:
  cluster: {{ .Data.ClusterName }}
  nodes: "{{ len .Data.Nodes }}"
{{ end }}`,
      }),
    );
    golden('user-template', pick(data, /hello/));
  });
});

describe('workload partitioning (cpuset)', () => {
  it('adds 03-<role>-workload-partitioning.yaml with the cpuset in crio.conf and kubelet.conf', () => {
    const data = clean(build(site({ nodes: [{ ...SNO_NODE, cpuset: '0-1,52-53' }] })));
    const text = data['03-master-workload-partitioning.yaml']!;
    expect(text).toContain('name: 02-master-workload-partitioning');
    const sources = [...text.matchAll(/base64,(\S+)/g)].map((m) =>
      Buffer.from(m[1]!, 'base64').toString('utf8'),
    );
    expect(sources[0]).toContain('resources = { "cpushares" = 0, "cpuset" = "0-1,52-53" }');
    expect(JSON.parse(sources[1]!)).toEqual({ management: { cpuset: '0-1,52-53' } });
    golden('cpuset', pick(data, /workload/));
  });

  it('warns when no source has a workload/ folder instead of silently doing nothing', () => {
    const result = build(
      site({ extraManifests: { searchPaths: ['mine'] }, nodes: [{ ...SNO_NODE, cpuset: '0-1' }] }),
      { 'sites/mine/a.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n' },
    );
    expect(only(result, 'WORKLOAD_PARTITIONING_UNAVAILABLE')).toMatchObject({
      severity: 'warning',
      path: ['nodes', 0, 'cpuset'],
    });
  });

  it('uses the workload/ folder of a search path and reports an incomplete one', () => {
    const workload = folderFiles(
      join(repoRoot, 'extra-manifests', 'default', 'workload'),
      'sites/mine/workload',
    );
    const siteConfig = site({
      extraManifests: { searchPaths: ['mine'] },
      nodes: [{ ...SNO_NODE, cpuset: '2-3' }],
    });
    expect(Object.keys(clean(build(siteConfig, workload)))).toEqual([
      '03-master-workload-partitioning.yaml',
    ]);
    const partial = { ...workload };
    delete partial['sites/mine/workload/kubelet.conf'];
    const problem = only(build(siteConfig, partial), 'WORKLOAD_PARTITIONING_INVALID');
    expect(problem).toMatchObject({
      severity: 'error',
      path: ['extraManifests', 'searchPaths', 0],
      message: 'the workload folder sites/mine/workload lacks kubelet.conf',
    });
  });

  it('ignores cpuset on a multi-node cluster, and rejects a cpuset that is no CPU list', () => {
    const standard = build(
      site({
        nodes: [
          { ...hosts('master')[0]!, cpuset: '0-1' },
          ...hosts('master', 'master').map((n, i) => ({ ...n, hostName: `m${String(i)}` })),
        ],
      }),
    );
    // Ignored as siteconfig-generator ignores it; validation warns once (SNO_ONLY_FIELD).
    expect(standard.problems).toEqual([]);
    expect(standard.data['03-master-workload-partitioning.yaml']).toBeUndefined();
    expect(
      only(build(site({ nodes: [{ ...SNO_NODE, cpuset: '0-1"' }] })), 'CPUSET_INVALID').path,
    ).toEqual(['nodes', 0, 'cpuset']);
  });
});

describe('sources: searchPaths and extraManifestPath', () => {
  const ns = (name: string): string =>
    `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`;

  it('uses only the search paths, a later path winning for a file of the same name', () => {
    const data = clean(
      build(site({ extraManifests: { searchPaths: ['base', 'overlay/'] } }), {
        'sites/base/a.yaml': ns('from-base'),
        'sites/base/b.yaml': ns('b'),
        'sites/base/.hidden.yaml': 'not: [valid',
        'sites/base/sub/ignored.yaml': ns('ignored'),
        'sites/overlay/a.yaml': `# a comment that is dropped\n${ns('from-overlay')}`,
      }),
    );
    expect(Object.keys(data)).toEqual(['a.yaml', 'b.yaml']);
    expect(data['a.yaml']).toContain('name: from-overlay');
    golden('search-paths', data);
  });

  it('adds extraManifestPath files after the defaults, multi-document files included', () => {
    const data = clean(
      build(site({ extraManifestPath: 'mine' }), {
        'sites/mine/10-user.yaml': `---\n${ns('one')}---\n${ns('two')}---\n`,
      }),
    );
    expect(Object.keys(data)).toEqual([...DEFAULT_KEYS, '10-user.yaml'].sort());
    golden('user-multi-document', pick(data, /10-user/));
  });

  it('refuses a user file named like a predefined one (upstream: Pre-defined extra-manifest cannot be over written)', () => {
    const result = build(site({ extraManifestPath: 'mine' }), {
      'sites/mine/06-kdump-master.yaml': ns('mine'),
    });
    const problem = only(result, 'EXTRA_MANIFEST_CLASH');
    expect(problem).toMatchObject({ severity: 'error', path: ['extraManifestPath'] });
    expect(problem.message).toBe(
      'sites/mine/06-kdump-master.yaml has the name of the predefined extra manifest extra-manifests/default/06-kdump-master.yaml; predefined extra manifests cannot be overwritten',
    );
    expect(result.data['06-kdump-master.yaml']).toContain('06-kdump-enable-master');
  });

  it('refuses a user file named like the output of a predefined template or of the workload folder', () => {
    const result = build(site({ extraManifestPath: 'mine' }), {
      'sites/mine/master-disk-encryption.yaml': ns('a'),
      'sites/mine/03-worker-workload-partitioning.yaml': ns('b'),
    });
    expect(codes(result)).toEqual(['error EXTRA_MANIFEST_CLASH', 'error EXTRA_MANIFEST_CLASH']);
    expect(result.problems[1]!.message).toBe(
      'sites/mine/master-disk-encryption.yaml produces the ConfigMap key master-disk-encryption.yaml, like the predefined extra-manifests/default/disk-encryption.yaml.tmpl; predefined extra manifests cannot be overwritten',
    );
  });

  it('refuses two files of one search path that produce the same key', () => {
    const result = build(site({ extraManifests: { searchPaths: ['mine'] } }), {
      'sites/mine/x.yaml.tmpl': ns('{{ .Role }}'),
      'sites/mine/master-x.yaml': ns('static'),
    });
    expect(only(result, 'EXTRA_MANIFEST_CLASH').message).toBe(
      'sites/mine/x.yaml.tmpl and sites/mine/master-x.yaml both produce the ConfigMap key master-x.yaml',
    );
  });

  it('reports missing folders and a folder that is a file', () => {
    const result = build(site({ extraManifests: { searchPaths: ['nope', 'file.yaml'] } }), {
      'sites/file.yaml': ns('x'),
    });
    expect(result.problems.map((p) => [p.path, p.message])).toEqual([
      [
        ['extraManifests', 'searchPaths', 0],
        "extraManifests.searchPaths[0] nope does not exist: tried sites/nope (the SiteConfig's folder)",
      ],
      [
        ['extraManifests', 'searchPaths', 1],
        'extraManifests.searchPaths[1] sites/file.yaml is a file, not a folder',
      ],
    ]);
    expect(
      only(build(site({ extraManifestPath: '../elsewhere' })), 'EXTRA_MANIFEST_NOT_FOUND').message,
    ).toBe(
      "extraManifestPath ../elsewhere does not exist: tried elsewhere (the SiteConfig's folder)",
    );
  });

  it('reports a listed file that cannot be read, and a folder without manifests', () => {
    const files: SiteFiles = {
      readText: () => undefined,
      listDir: (path) =>
        path === 'sites/broken'
          ? [{ name: 'a.yaml', isDirectory: false }]
          : path === 'sites/empty'
            ? []
            : undefined,
    };
    const result = build(site({ extraManifests: { searchPaths: ['broken', 'empty'] } }), files);
    expect(codes(result)).toEqual([
      'warning EXTRA_MANIFEST_DIR_EMPTY',
      'error EXTRA_MANIFEST_UNREADABLE',
    ]);
    expect(result.problems[1]!.message).toBe(
      'sites/broken/a.yaml is listed in sites/broken but cannot be read',
    );
  });

  it('skips empty files with a warning, and says when one hides an earlier file', () => {
    const result = build(site({ extraManifests: { searchPaths: ['base', 'overlay'] } }), {
      'sites/base/a.yaml': ns('a'),
      'sites/base/b.yaml': '\n# nothing yet\n',
      'sites/overlay/a.yaml': '',
    });
    expect(result.data).toEqual({});
    expect(result.problems.map((p) => `${p.severity} ${p.code}: ${p.message}`)).toEqual([
      'warning EXTRA_MANIFEST_EMPTY: sites/overlay/a.yaml is empty: it removes sites/base/a.yaml and adds nothing',
      'warning EXTRA_MANIFEST_EMPTY: sites/base/b.yaml is empty and is skipped',
    ]);
  });

  it('rejects files that are not YAML or not Kubernetes objects, naming the file and line', () => {
    const messages = (text: string): string =>
      only(
        build(site({ extraManifests: { searchPaths: ['m'] } }), { 'sites/m/x.yaml': text }),
        'EXTRA_MANIFEST_INVALID',
      ).message;
    expect(messages('apiVersion: v1\nkind: [Namespace\n')).toMatch(
      /^sites\/m\/x\.yaml:\d+:\d+: not valid YAML: Flow sequence/,
    );
    expect(messages('#!/bin/bash\necho hello\n')).toBe(
      'sites/m/x.yaml:2:1: not a Kubernetes object: it is a string, not a map',
    );
    expect(messages(`${ns('ok')}---\napiVersion: v1\nmetadata:\n  name: x\n`)).toBe(
      'sites/m/x.yaml:6:1: not a Kubernetes object: it has no kind',
    );
    expect(messages('- a\n- b\n')).toBe(
      'sites/m/x.yaml:1:1: not a Kubernetes object: it is a list, not a map',
    );
  });
});

describe('template failures', () => {
  const withTemplate = (text: string): ExtraManifestResult =>
    build(site({ extraManifests: { searchPaths: ['m'] } }), { 'sites/m/t.yaml.tmpl': text });

  it('reports a template that does not parse, at its file and line', () => {
    const problem = only(
      withTemplate('apiVersion: v1\n{{ if .Data.ClusterName }}\nkind: x\n'),
      'TEMPLATE_INVALID',
    );
    expect(problem).toMatchObject({
      severity: 'error',
      path: ['extraManifests', 'searchPaths', 0],
      message: 'sites/m/t.yaml.tmpl:2: unexpected EOF in {{if}}',
    });
  });

  it('reports a template that fails to execute, with the role', () => {
    const problem = only(
      withTemplate('x\n\n{{ .Data.DiskEncryption.Tang.URL }}'),
      'TEMPLATE_EXECUTION_FAILED',
    );
    expect(problem.message).toBe(
      "sites/m/t.yaml.tmpl:3: rendering for role master: executing <.Data.DiskEncryption.Tang.URL>: can't evaluate field URL in type []interface {}",
    );
  });

  it('reports rendered output that is not a manifest', () => {
    const problem = only(
      withTemplate('apiVersion: v1\nkind: {{ .Role }}\nmetadata: [\n'),
      'TEMPLATE_OUTPUT_INVALID',
    );
    expect(problem.message).toMatch(
      /^sites\/m\/t\.yaml\.tmpl \(rendered for role master\):\d+:\d+: not valid YAML: /,
    );
  });
});

describe('field checks', () => {
  const partition = (patch: Record<string, unknown>): SiteConfig =>
    site({
      nodes: [
        {
          ...SNO_NODE,
          diskPartition: [
            {
              device: PARTITION_DISK,
              partitions: [
                { mount_point: '/var/imageregistry', size: 100, start: 25000, ...patch },
              ],
            },
          ],
        },
      ],
    });
  const at = (result: ExtraManifestResult, code: string): unknown[] =>
    result.problems.filter((p) => p.code === code).map((p) => p.path.slice(6).join('.'));

  it('checks diskPartition as siteconfig-generator did, and more', () => {
    expect(at(build(partition({ start: 24999, size: 0 })), 'DISK_PARTITION_INVALID')).toEqual([
      'start',
      'size',
    ]);
    expect(at(build(partition({ mount_point: 'var/x' })), 'DISK_PARTITION_INVALID')).toEqual([
      'mount_point',
    ]);
    expect(at(build(partition({ mount_point: '/var/my data' })), 'DISK_PARTITION_INVALID')).toEqual(
      ['mount_point'],
    );
    expect(at(build(partition({ file_system_format: 'btrfs' })), 'DISK_PARTITION_INVALID')).toEqual(
      ['file_system_format'],
    );
    const overlapping = site({
      nodes: [
        {
          ...SNO_NODE,
          diskPartition: [
            {
              device: 'sdb',
              partitions: [
                { mount_point: '/var/a-b', size: 100, start: 25000 },
                { mount_point: '/var/a/b', size: 100, start: 25050 },
              ],
            },
          ],
        },
      ],
    });
    expect(
      build(overlapping).problems.map((p) => `${p.path.slice(3).join('.')}: ${p.message}`),
    ).toEqual([
      '0.device: device "sdb" is not a device path',
      '0.partitions.1.mount_point: mount_point "/var/a/b" gives the partition label "var-a-b", like "/var/a-b"',
      '0.partitions.1.start: partition 1 starts at 25050 MiB, inside partition 0 (25000–25100 MiB)',
    ]);
  });

  it('allows diskPartition on single-node clusters only', () => {
    const result = build(
      site({
        nodes: hosts('master', 'master', 'master').map((n) => ({
          ...n,
          diskPartition: [PARTITIONED],
        })),
      }),
    );
    expect(result.problems.map((p) => `${p.code} ${p.path.join('.')}`)).toEqual([
      'SNO_ONLY_FIELD nodes.0.diskPartition',
      'SNO_ONLY_FIELD nodes.1.diskPartition',
      'SNO_ONLY_FIELD nodes.2.diskPartition',
    ]);
  });

  it('requires the nodes of one role to agree on the disk layout', () => {
    const [master, w1, w2] = hosts('master', 'worker', 'worker');
    const result = build(
      site({
        nodes: [
          master!,
          { ...w1!, diskPartition: [PARTITIONED] },
          { ...w2!, diskPartition: [{ ...PARTITIONED, device: '/dev/sdc' }] },
        ],
      }),
    );
    expect(only(result, 'DISK_PARTITION_CONFLICT').path).toEqual(['nodes', 2, 'diskPartition']);
  });

  it('checks diskEncryption settings', () => {
    const problems = (diskEncryption: SiteConfigCluster['diskEncryption']): string[] =>
      build(site({ diskEncryption })).problems.map(
        (p) => `${p.severity} ${p.code} ${p.path.join('.')}`,
      );
    expect(problems({ type: 'nbde' })).toEqual([
      'error DISK_ENCRYPTION_INVALID diskEncryption.tang',
    ]);
    expect(problems({ type: 'nbde', tang: [{ url: 'tang:7500', thumbprint: 'a b' }] })).toEqual([
      'error DISK_ENCRYPTION_INVALID diskEncryption.tang.0.url',
      'error DISK_ENCRYPTION_INVALID diskEncryption.tang.0.thumbprint',
    ]);
    expect(problems({ type: 'tpm2', tpm2: { pcrList: '1,24' } })).toEqual([
      'error DISK_ENCRYPTION_INVALID diskEncryption.tpm2.pcrList',
    ]);
    expect(problems({ type: 'tpm2', tang: [{ url: 'http://t', thumbprint: 'x' }] })).toEqual([
      'warning DISK_ENCRYPTION_FIELD_IGNORED diskEncryption.tang',
    ]);
    expect(problems({ type: 'none', tpm2: { pcrList: '7' } })).toEqual([
      'warning DISK_ENCRYPTION_FIELD_IGNORED diskEncryption.tpm2',
    ]);
  });

  it('warns when diskEncryption or diskPartition would have no effect', () => {
    const noTemplates = build(
      site({
        diskEncryption: { type: 'tpm2' },
        nodes: [{ ...SNO_NODE, diskPartition: [PARTITIONED] }],
        extraManifests: { searchPaths: ['m'] },
      }),
      { 'sites/m/a.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n' },
    );
    expect(noTemplates.problems.map((p) => `${p.severity} ${p.code} ${p.path.join('.')}`)).toEqual([
      'warning EXTRA_MANIFEST_FIELD_UNUSED diskEncryption.type',
      'warning EXTRA_MANIFEST_FIELD_UNUSED nodes.0.diskPartition',
    ]);
    const filtered = build(
      site({
        diskEncryption: { type: 'tpm2' },
        extraManifests: { filter: { exclude: ['disk-encryption.yaml.tmpl'] } },
      }),
    );
    expect(codes(filtered)).toEqual(['warning EXTRA_MANIFEST_FIELD_UNUSED']);
  });
});

describe('filter', () => {
  const standard = { nodes: hosts('master', 'master', 'master', 'worker') };

  it('removes the exclude names when inclusionDefault is include', () => {
    const data = clean(
      build(
        site({
          extraManifests: {
            filter: {
              exclude: [
                '06-kdump-master.yaml',
                'master-disk-encryption.yaml',
                'image-registry-partition-mc.yaml.tmpl',
              ],
            },
          },
        }),
      ),
    );
    expect(Object.keys(data)).toEqual(DEFAULT_KEYS.filter((k) => k !== '06-kdump-master.yaml'));
  });

  it('keeps only the include names when inclusionDefault is exclude, a .tmpl name standing for its outputs', () => {
    const data = clean(
      build(
        site({
          ...standard,
          diskEncryption: { type: 'tpm2' },
          extraManifests: {
            filter: {
              inclusionDefault: 'exclude',
              include: ['09-openshift-marketplace-ns.yaml', 'disk-encryption.yaml.tmpl'],
            },
          },
        }),
      ),
    );
    expect(Object.keys(data)).toEqual([
      '09-openshift-marketplace-ns.yaml',
      'master-disk-encryption.yaml',
      'worker-disk-encryption.yaml',
    ]);
  });

  it('accepts the output name of a template that rendered nothing (upstream called it unknown)', () => {
    expect(
      Object.keys(
        clean(
          build(site({ extraManifests: { filter: { exclude: ['master-disk-encryption.yaml'] } } })),
        ),
      ),
    ).toEqual(DEFAULT_KEYS);
  });

  it('filters the workload manifest too, since it runs after workload partitioning', () => {
    const data = clean(
      build(
        site({
          nodes: [{ ...SNO_NODE, cpuset: '0-1' }],
          extraManifests: { filter: { exclude: ['03-master-workload-partitioning.yaml'] } },
        }),
      ),
    );
    expect(data['03-master-workload-partitioning.yaml']).toBeUndefined();
  });

  it('rejects an unknown name and lists the valid ones', () => {
    const problem = only(
      build(site({ extraManifests: { filter: { exclude: ['06-kdump.yaml'] } } })),
      'FILTER_UNKNOWN_FILE',
    );
    expect(problem.path).toEqual(['extraManifests', 'filter', 'exclude', 0]);
    expect(problem.message).toBe(
      `filter.exclude names "06-kdump.yaml", which is no extra manifest of this cluster; valid names are: ${[...DEFAULT_KEYS, 'disk-encryption.yaml.tmpl', 'image-registry-partition-mc.yaml.tmpl', 'master-disk-encryption.yaml', 'master-image-registry-partition-mc.yaml'].sort().join(', ')}`,
    );
  });

  it('rejects the list that inclusionDefault makes meaningless', () => {
    expect(
      only(
        build(site({ extraManifests: { filter: { include: ['06-kdump-master.yaml'] } } })),
        'FILTER_INVALID',
      ).path,
    ).toEqual(['extraManifests', 'filter', 'include']);
    expect(
      only(
        build(
          site({
            extraManifests: {
              filter: { inclusionDefault: 'exclude', exclude: ['06-kdump-master.yaml'] },
            },
          }),
        ),
        'FILTER_INVALID',
      ).path,
    ).toEqual(['extraManifests', 'filter', 'exclude']);
  });
});

describe('mergeDefaultMachineConfigs', () => {
  it('merges the predefined MachineConfigs per role and leaves the rest alone', () => {
    const data = clean(
      build(
        site({
          mergeDefaultMachineConfigs: true,
          diskEncryption: { type: 'tpm2' },
          extraManifestPath: 'mine',
          nodes: [{ ...SNO_NODE, cpuset: '0-3' }],
        }),
        {
          'sites/mine/50-user-mc.yaml': MC('50-user', 'master'),
        },
      ),
    );
    expect(Object.keys(data)).toEqual([
      '03-master-workload-partitioning.yaml',
      '09-openshift-marketplace-ns.yaml',
      '50-user-mc.yaml',
      'master-disk-encryption.yaml',
      'predefined-extra-manifests-master.yaml',
      'predefined-extra-manifests-worker.yaml',
    ]);
    golden('merged', pick(data, /^predefined/));
  });

  it('merges only what the filter kept', () => {
    const data = clean(
      build(
        site({
          mergeDefaultMachineConfigs: true,
          extraManifests: {
            filter: {
              inclusionDefault: 'exclude',
              include: ['06-kdump-master.yaml', '07-sriov-related-kernel-args-master.yaml'],
            },
          },
        }),
      ),
    );
    expect(Object.keys(data)).toEqual(['predefined-extra-manifests-master.yaml']);
    const merged = parseYamlFile('m', data['predefined-extra-manifests-master.yaml']!, {
      locations: false,
    }).documents[0]!.value as { spec: unknown };
    expect(JSON.parse(JSON.stringify(merged.spec))).toEqual({
      config: {
        ignition: { version: '3.2.0' },
        systemd: { units: [{ name: 'kdump.service', enabled: true }] },
      },
      kernelArguments: ['crashkernel=512M', 'intel_iommu=on', 'iommu=pt'],
    });
  });

  it('merges units and drop-ins by name and reports conflicting files', () => {
    const unit = (body: string): string => `    systemd:\n      units:\n${body}`;
    const result = build(
      site({ mergeDefaultMachineConfigs: true, extraManifests: { searchPaths: ['m'] } }),
      {
        'sites/m/a.yaml': MC(
          'a',
          'master',
          `    storage:\n      files:\n        - path: /etc/x\n          contents:\n            source: data:,one\n${unit('        - name: u.service\n          dropins:\n            - name: 10-a.conf\n              contents: a\n')}`,
        ),
        'sites/m/b.yaml': MC(
          'b',
          'master',
          `    storage:\n      files:\n        - path: /etc/x\n          contents:\n            source: data:,two\n${unit('        - name: u.service\n          enabled: true\n          dropins:\n            - name: 20-b.conf\n              contents: b\n')}`,
        ),
        'sites/m/c.yaml': `${MC('c', 'master')}  osImageURL: quay.io/x\n`,
        'sites/m/d.yaml': MC('d', 'master').replace('3.2.0', '3.4.0'),
        'sites/m/e.yaml': MC('e', 'master').replace(
          '    machineconfiguration.openshift.io/role: master\n',
          '    other: label\n',
        ),
      },
    );
    expect(result.problems.map((p) => `${p.code}: ${p.message}`)).toEqual([
      'MACHINE_CONFIG_NOT_MERGED: MachineConfig c.yaml is kept as it is: its spec sets osImageURL, which the merge does not carry',
      'MACHINE_CONFIG_NOT_MERGED: MachineConfig d.yaml is kept as it is: it uses Ignition "3.4.0"; only 3.0.0–3.2.0 are merged',
      'MACHINE_CONFIG_NOT_MERGED: MachineConfig e.yaml is kept as it is: it has no machineconfiguration.openshift.io/role label',
      'MACHINE_CONFIG_MERGE_CONFLICT: merging the predefined MachineConfigs: storage.files "/etc/x" sets contents differently in a.yaml and b.yaml; b.yaml wins',
    ]);
    expect(Object.keys(result.data)).toEqual([
      'c.yaml',
      'd.yaml',
      'e.yaml',
      'predefined-extra-manifests-master.yaml',
    ]);
    golden('merge-conflict', pick(result.data, /^predefined/));
  });

  it('refuses to overwrite an extra manifest named like the merged one', () => {
    const result = build(site({ mergeDefaultMachineConfigs: true, extraManifestPath: 'mine' }), {
      'sites/mine/predefined-extra-manifests-master.yaml': MC('x', 'master'),
    });
    expect(only(result, 'EXTRA_MANIFEST_CLASH').path).toEqual(['mergeDefaultMachineConfigs']);
  });
});

describe('determinism and reuse', () => {
  it('gives the same bytes for the same cluster, whatever was built before', () => {
    const files = filesFromMap({
      'sites/mine/x.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n',
    });
    const a = site({ extraManifestPath: 'mine', diskEncryption: { type: 'tpm2' } });
    const first = build(a, files);
    build(
      site({ extraManifestPath: 'mine', nodes: hosts('master', 'master', 'master', 'worker') }),
      files,
    );
    expect(build(a, files)).toEqual(first);
    expect(Object.keys(first.data)).toEqual([...Object.keys(first.data)].sort());
  });

  it('reuses a template rendering only for clusters that read the same values', () => {
    const files = filesFromMap({});
    const tang = (url: string): string | undefined =>
      build(site({ diskEncryption: { type: 'nbde', tang: [{ url, thumbprint: 'abc' }] } }), files)
        .data['master-disk-encryption.yaml'];
    expect(tang('http://a:1')).toContain('url: http://a:1');
    expect(tang('http://b:2')).toContain('url: http://b:2');
    expect(tang('http://a:1')).toContain('url: http://a:1');
    const partitioned = (start: number): string | undefined =>
      build(
        site({
          nodes: [
            {
              ...SNO_NODE,
              diskPartition: [
                { ...PARTITIONED, partitions: [{ ...PARTITIONED.partitions[0]!, start }] },
              ],
            },
          ],
        }),
        files,
      ).data['master-image-registry-partition-mc.yaml'];
    expect(partitioned(30000)).toContain('startMiB: 30000');
    expect(partitioned(40000)).toContain('startMiB: 40000');
  });

  it('hands clusters that add nothing of their own one shared, frozen data object', () => {
    const files = filesFromMap({});
    const first = build(site(), files).data;
    expect(build(site({ clusterName: 'other' }), files).data).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('builds the second cluster of a SiteConfig', () => {
    const two: SiteConfig = {
      ...BASE,
      spec: {
        ...BASE.spec,
        clusters: [
          BASE.spec.clusters[0]!,
          { ...BASE.spec.clusters[0]!, clusterName: 'two', diskEncryption: { type: 'tpm2' } },
        ],
      },
    };
    const result = buildExtraManifests({
      site: two,
      clusterIndex: 1,
      siteFile: 'sites/site.yaml',
      files: filesFromMap({}),
      defaults: DEFAULTS,
    });
    expect(result.data['master-disk-encryption.yaml']).toBeDefined();
  });
});

describe('splitConfigMapData', () => {
  const entry = (n: number): string => 'x'.repeat(n);

  it('keeps data that fits in one chunk, and gives one empty chunk for no data', () => {
    const data = { b: entry(10), a: entry(10) };
    expect(splitConfigMapData(data)).toEqual([{ a: entry(10), b: entry(10) }]);
    expect(splitConfigMapData({})).toEqual([{}]);
    expect(CONFIGMAP_DATA_LIMIT).toBe(900_000);
  });

  it('splits in key order without exceeding the limit', () => {
    const data = { a: entry(40), b: entry(40), c: entry(40), d: entry(10) };
    const chunks = splitConfigMapData(data, 100);
    expect(chunks.map((c) => Object.keys(c))).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    for (const chunk of chunks)
      expect(
        Object.entries(chunk).reduce((n, [k, v]) => n + configMapEntryBytes(k, v), 0),
      ).toBeLessThanOrEqual(100);
  });

  it('puts an entry larger than the limit alone in its chunk', () => {
    const chunks = splitConfigMapData({ a: entry(10), big: entry(500), c: entry(10) }, 100);
    expect(chunks.map((c) => Object.keys(c))).toEqual([['a'], ['big'], ['c']]);
  });

  it('counts UTF-8 bytes, as the API server does', () => {
    expect(configMapEntryBytes('k', 'é')).toBe(3);
    expect(splitConfigMapData({ a: 'é'.repeat(30), b: 'é'.repeat(30) }, 100).length).toBe(2);
  });

  it('splits the default set of a real cluster into chunks that each fit', () => {
    const data = clean(build(site()));
    const chunks = splitConfigMapData(data, 20_000);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Object.assign({}, ...chunks)).toEqual(data);
  });
});
