/**
 * ClusterInstance input: the schema, the SiteConfig rules on the same fields, and the rules of
 * the ClusterInstance API. Every problem is pinned to file:line:column.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain JS script without type declarations
import { generate } from '../../scripts/generate-schema-validator.js';
import type { InputIssue, Severity } from '../../src/shared/errors.js';
import { clusterInstanceSchema, loadSiteConfigs } from '../../src/siteconfig/index.js';
import type { LoadedClusterInstance, SourceFile } from '../../src/siteconfig/index.js';
import {
  clusterInstanceExampleFiles,
  clusterInstanceNode,
  snoClusterInstance,
} from '../support/cluster-instances.js';
import { repoRoot, snoSite } from '../support/sites.js';

const FILE = 'sites/ci-1.yaml';

interface Found {
  severity: Severity;
  code: string;
  line: number;
  column: number;
}

function found(issues: readonly InputIssue[]): Found[] {
  return issues.map(({ severity, code, line, column }) => ({ severity, code, line, column }));
}

/** The errors and warnings of a ClusterInstance file (after `before`), in file order. */
function check(text: string, before: readonly SourceFile[] = []): Found[] {
  return found(loadSiteConfigs([...before, { path: FILE, text }]).issues)
    .filter((issue) => issue.severity !== 'note')
    .sort((a, b) => a.line - b.line || a.column - b.column);
}

/** Where a message must point: the only line containing `line`, at the first `value` in it. */
function at(text: string, line: string, value: string = line): { line: number; column: number } {
  const rows = text.split('\n');
  const hits = rows.flatMap((row, i) => (row.includes(line) ? [i] : []));
  if (hits.length !== 1)
    throw new Error(`expected one line with ${JSON.stringify(line)}, found ${String(hits.length)}`);
  const column = rows[hits[0]!]!.indexOf(value);
  if (column < 0) throw new Error(`${value} is not on the line with ${line}`);
  return { line: hits[0]! + 1, column: column + 1 };
}

const error = (code: string, pos: { line: number; column: number }): Found => ({
  severity: 'error',
  code,
  ...pos,
});
const warning = (code: string, pos: { line: number; column: number }): Found => ({
  severity: 'warning',
  code,
  ...pos,
});

/** Replaces the only occurrence of `from`. */
function swap(text: string, from: string, to: string): string {
  if (text.split(from).length !== 2) throw new Error(`expected one ${JSON.stringify(from)}`);
  return text.replace(from, () => to);
}

const base = snoClusterInstance();

/** A compact cluster: three control-plane nodes and VIPs. */
const compact = swap(
  snoClusterInstance({
    cluster: '  apiVIPs:\n    - 10.16.0.5\n  ingressVIPs:\n    - 10.16.0.6\n',
  }),
  'clusterType: SNO',
  'clusterType: HighlyAvailable',
).concat(clusterInstanceNode(1, 'master'), clusterInstanceNode(2, 'master'));

describe('valid ClusterInstances', () => {
  it('loads the example and the single-node, compact and arbiter clusters these tests start from', () => {
    for (const file of clusterInstanceExampleFiles()) {
      const result = loadSiteConfigs([file]);
      expect(found(result.issues), file.path).toEqual([]);
      expect(result.clusterInstances, file.path).toHaveLength(1);
      expect(result.sites).toEqual([]);
    }
    expect(check(base)).toEqual([]);
    expect(check(compact)).toEqual([]);
    const arbiter = swap(
      swap(compact, 'clusterType: HighlyAvailable', 'clusterType: HighlyAvailableArbiter'),
      'role: master\n      bmcAddress: redfish-virtualmedia+https://10.16.1.22',
      'role: arbiter\n      bmcAddress: redfish-virtualmedia+https://10.16.1.22',
    );
    expect(check(arbiter)).toEqual([]);
  });

  it('hands each valid ClusterInstance to onClusterInstance, with label values as strings', () => {
    const seen: LoadedClusterInstance[] = [];
    const text = snoClusterInstance({
      cluster: '  extraLabels:\n    ManagedCluster:\n      common: true\n      du-profile: 4.18\n',
    });
    const result = loadSiteConfigs([{ path: FILE, text }], {
      onClusterInstance: (ci) => seen.push(ci),
    });
    expect(result.clusterInstances).toEqual([]);
    expect(seen.map((s) => [s.file, s.documentIndex])).toEqual([[FILE, 0]]);
    expect(seen[0]!.clusterInstance.spec.extraLabels).toEqual({
      ManagedCluster: { common: 'true', 'du-profile': '4.18' },
    });
  });

  it('reads ClusterInstances next to SiteConfigs and still skips other kinds with a note', () => {
    const result = loadSiteConfigs([
      { path: 'site.yaml', text: snoSite({ name: 'sno9', mac: 'aa:bb:cc:00:00:09' }) },
      { path: FILE, text: `${base}---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n` },
    ]);
    expect(result.sites).toHaveLength(1);
    expect(result.clusterInstances).toHaveLength(1);
    expect(result.issues.map((i) => i.code)).toEqual(['SKIPPED_DOCUMENT']);
  });
});

describe('the ClusterInstance schema', () => {
  it('is precompiled from src/siteconfig/cluster-instance/schema.ts (npm run schema:generate)', () => {
    const source = 'src/siteconfig/cluster-instance/schema.ts';
    const committed = readFileSync(
      join(repoRoot, 'src', 'siteconfig', 'cluster-instance', 'schema-validator.generated.ts'),
      'utf8',
    );
    expect(committed).toBe(
      (generate as (schema: object, source: string) => string)(clusterInstanceSchema, source),
    );
  });

  it('reports missing, unknown and mistyped fields where they are', () => {
    const text = swap(
      swap(
        swap(base, '  sshPublicKey: ssh-ed25519 AAAA\n', '  apiVIP: 10.16.0.5\n'),
        '      role: master',
        '      role: boss',
      ),
      '  baseDomain: edge.example.com\n',
      '',
    );
    expect(check(text)).toEqual([
      error('MISSING_FIELD', at(text, 'clusterName: ci-1', 'clusterName')),
      warning('UNKNOWN_FIELD', at(text, 'apiVIP:')),
      error('INVALID_VALUE', at(text, 'role: boss', 'boss')),
    ]);
  });

  it('requires templateRefs on every node, as the admission webhook does', () => {
    const text = base.replace(
      '      templateRefs:\n        - name: ai-node-templates-v1\n          namespace: open-cluster-management\n',
      '',
    );
    expect(check(text)).toEqual([
      error('MISSING_FIELD', at(text, '- hostName: ci-1-m0', 'hostName')),
    ]);
  });

  it('still claims the cluster name of a structurally broken ClusterInstance', () => {
    const broken = swap(base, 'role: master', 'role: 7');
    const text = snoClusterInstance({ mac: '0C:42:A1:00:09:10' });
    const result = loadSiteConfigs([
      { path: 'broken.yaml', text: broken },
      { path: FILE, text },
    ]);
    expect(found(result.issues.filter((i) => i.file === FILE))).toEqual([
      error('CLUSTER_NAME_DUPLICATE', at(text, 'clusterName: ci-1', 'ci-1')),
    ]);
  });
});

describe('ClusterInstance rules', () => {
  it('requires metadata.namespace to be the clusterName', () => {
    const text = swap(base, '  namespace: ci-1\n', '  namespace: clusters\n');
    expect(check(text)).toEqual([
      error('NAMESPACE_MISMATCH', at(text, 'namespace: clusters', 'clusters')),
    ]);
  });

  it('rejects HostedControlPlane, which the assisted installer does not install', () => {
    const text = swap(base, 'clusterType: SNO', 'clusterType: HostedControlPlane');
    expect(check(text)).toEqual([
      error('CLUSTER_TYPE_UNSUPPORTED', at(text, 'clusterType:', 'HostedControlPlane')),
    ]);
  });

  it('checks clusterType against the node roles', () => {
    const snoOfThree = swap(compact, 'clusterType: HighlyAvailable', 'clusterType: SNO');
    expect(check(snoOfThree)).toEqual([
      error('CLUSTER_TYPE_MISMATCH', at(snoOfThree, 'clusterType:', 'SNO')),
    ]);
    const haOfOne = swap(base, 'clusterType: SNO', 'clusterType: HighlyAvailable');
    expect(check(haOfOne)).toEqual([
      error('CLUSTER_TYPE_MISMATCH', at(haOfOne, 'clusterType:', 'HighlyAvailable')),
    ]);
    const noArbiter = swap(
      compact,
      'clusterType: HighlyAvailable',
      'clusterType: HighlyAvailableArbiter',
    );
    expect(check(noArbiter)).toEqual([
      error('CLUSTER_TYPE_MISMATCH', at(noArbiter, 'clusterType:', 'HighlyAvailableArbiter')),
    ]);
    const strayArbiter = swap(
      compact,
      'role: master\n      bmcAddress: redfish-virtualmedia+https://10.16.1.22',
      'role: arbiter\n      bmcAddress: redfish-virtualmedia+https://10.16.1.22',
    );
    expect(check(strayArbiter)).toEqual([
      error('CLUSTER_TYPE_MISMATCH', at(strayArbiter, 'role: arbiter', 'arbiter')),
    ]);
  });

  it('checks the label keys and values of every kind, at cluster and node level', () => {
    const text = snoClusterInstance({
      cluster:
        '  extraLabels:\n    ManagedCluster:\n      "bad key!": x\n    InfraEnv:\n      ok: "not ok"\n',
      node: '      extraLabels:\n        BareMetalHost:\n          rack/: r1\n',
    });
    expect(check(text)).toEqual([
      error('LABEL_INVALID', at(text, '"bad key!"')),
      error('LABEL_INVALID', at(text, 'ok: "not ok"', '"not ok"')),
      error('LABEL_INVALID', at(text, 'rack/')),
    ]);
  });

  it('warns at every field whose meaning --format crs does not carry out', () => {
    const text = swap(
      snoClusterInstance({
        cluster:
          '  reinstall:\n    generation: "2"\n  diskEncryption:\n    type: tpm2\n  caBundleRef:\n    name: ca\n',
      }),
      'name: ai-node-templates-v1',
      'name: my-node-templates',
    );
    expect(check(text)).toEqual([
      warning('CLUSTERINSTANCE_FIELD_IGNORED', at(text, 'reinstall:')),
      warning('CLUSTERINSTANCE_FIELD_IGNORED', at(text, 'diskEncryption:')),
      warning('CLUSTERINSTANCE_FIELD_IGNORED', at(text, 'caBundleRef:')),
      warning('CLUSTERINSTANCE_FIELD_IGNORED', at(text, '      templateRefs:', 'templateRefs')),
    ]);
    const [reinstall] = loadSiteConfigs([{ path: FILE, text }]).issues;
    expect(reinstall?.message).toMatch(/spec.reinstall is ignored: SiteForge .* never reinstalls/);
    expect(reinstall?.hint).toMatch(/--format clusterinstance/);
  });

  it('warns at extraLabels and extraAnnotations for kinds that get no object at their level', () => {
    const text = snoClusterInstance({
      cluster:
        '  extraLabels:\n    ManagedClusters:\n      tier: edge\n    ManagedCluster:\n      site: a\n',
      node: '      extraAnnotations:\n        ManagedCluster:\n          owner: ops\n        BareMetalHost:\n          owner: ops\n',
    });
    expect(check(text)).toEqual([
      warning('CLUSTERINSTANCE_FIELD_IGNORED', at(text, 'ManagedClusters:')),
      warning(
        'CLUSTERINSTANCE_FIELD_IGNORED',
        at(text, '        ManagedCluster:', 'ManagedCluster'),
      ),
    ]);
  });

  it('warns at cluster-level templateRefs that name other templates than the defaults', () => {
    const text = swap(base, 'name: ai-cluster-templates-v1', 'name: my-cluster-templates');
    expect(check(text)).toEqual([
      // The key on the line above the first entry, two spaces in.
      warning('CLUSTERINSTANCE_FIELD_IGNORED', {
        line: at(text, 'name: my-cluster-templates').line - 1,
        column: 3,
      }),
    ]);
  });

  it('says nothing about them when the SiteConfig operator renders the ClusterInstance', () => {
    const text = swap(
      snoClusterInstance({ cluster: '  reinstall:\n    generation: "2"\n' }),
      'name: ai-cluster-templates-v1',
      'name: my-cluster-templates',
    );
    const { issues } = loadSiteConfigs([{ path: FILE, text }], {
      clusterInstanceRenderer: 'operator',
    });
    expect(issues).toEqual([]);
  });

  it('warns that two keys on two lines in sshPublicKey become one line on the hub', () => {
    const twoLines = swap(
      base,
      '  sshPublicKey: ssh-ed25519 AAAA\n',
      '  sshPublicKey: |\n    ssh-ed25519 AAAA a@x\n    ssh-rsa BBBB b@x\n',
    );
    expect(check(twoLines)).toEqual([
      warning('SSH_KEYS_JOINED', at(twoLines, 'sshPublicKey: |', '|')),
    ]);
    const apart = swap(
      base,
      '  sshPublicKey: ssh-ed25519 AAAA\n',
      '  sshPublicKey: |\n    ssh-ed25519 AAAA a@x\n\n    ssh-rsa BBBB b@x\n',
    );
    expect(check(apart)).toEqual([]);
  });
});

describe('the SiteConfig rules, at ClusterInstance positions', () => {
  it('checks networks, including serviceNetwork entries that are objects here', () => {
    const text = swap(
      swap(base, '- cidr: 172.30.0.0/16', '- cidr: 172.30.0.1/16'),
      '- cidr: 10.128.0.0/14',
      '- cidr: 10.16.0.0/14',
    );
    expect(check(text)).toEqual([
      error('NETWORK_OVERLAP', at(text, '10.16.0.0/14')),
      error('CIDR_HOST_BITS_SET', at(text, '172.30.0.1/16')),
    ]);
  });

  it('checks VIPs against the topology and the machine network', () => {
    const sno = snoClusterInstance({ cluster: '  apiVIPs:\n    - 10.16.0.5\n' });
    expect(check(sno)).toEqual([error('SNO_WITH_VIPS', at(sno, '- 10.16.0.5'))]);
    const outside = swap(compact, '- 10.16.0.6', '- 10.99.0.6');
    expect(check(outside)).toEqual([
      error('VIP_OUTSIDE_MACHINE_NETWORK', at(outside, '- 10.99.0.6', '10.99.0.6')),
    ]);
    const noVips = compact.replace('  ingressVIPs:\n    - 10.16.0.6\n', '');
    expect(check(noVips)).toEqual([
      error('VIPS_REQUIRED', at(noVips, 'clusterName: ci-1', 'ci-1')),
    ]);
  });

  it('rejects node counts no topology has', () => {
    const text = swap(
      compact,
      'clusterType: HighlyAvailable',
      'clusterType: HighlyAvailable',
    ).concat(clusterInstanceNode(3, 'worker'));
    expect(check(text)).toEqual([error('TOPOLOGY_INVALID', at(text, '- hostName: ci-1-m0', '-'))]);
  });

  it('checks MACs, BMC addresses, host names and JSON fields of nodes', () => {
    const text = snoClusterInstance({
      node: '      installerArgs: "--append-karg"\n      ignitionConfigOverride: "{}"\n',
    })
      .replace('bootMACAddress: "0C:42:A1:00:00:10"', 'bootMACAddress: "0C:42:A1:00:00:99"')
      .replace('redfish-virtualmedia+https://10.16.1.10', 'floppy://10.16.1.10')
      .replace('hostName: ci-1-m0', 'hostName: CI_1');
    expect(check(text)).toEqual([
      error('HOSTNAME_INVALID', at(text, 'hostName: CI_1', 'CI_1')),
      error('BMC_ADDRESS_INVALID', at(text, 'floppy://')),
      warning('BOOT_MAC_NOT_IN_INTERFACES', at(text, '"0C:42:A1:00:00:99"', '"')),
      error('INSTALLER_ARGS_INVALID', at(text, '"--append-karg"')),
      error('IGNITION_OVERRIDE_INVALID', at(text, 'ignitionConfigOverride:', '"{}"')),
    ]);
  });

  it('checks nmstate addresses against the machine network', () => {
    const text = swap(base, '- ip: 10.16.0.10', '- ip: 10.99.0.10');
    expect(check(text)).toEqual([error('NODE_IP_OUTSIDE_MACHINE_NETWORK', at(text, '10.99.0.10'))]);
  });

  it('keeps cluster names and MACs unique across SiteConfigs and ClusterInstances', () => {
    const site = { path: 'site.yaml', text: snoSite({ name: 'ci-1', mac: '0c:42:a1:00:00:10' }) };
    const result = loadSiteConfigs([site, { path: FILE, text: base }]);
    const issues = result.issues.filter((i) => i.file === FILE);
    expect(found(issues)).toEqual([
      error('CLUSTER_NAME_DUPLICATE', at(base, 'clusterName: ci-1', 'ci-1')),
      error('MAC_DUPLICATE', at(base, 'bootMACAddress:', '"0C:42')),
    ]);
    expect(issues[0]!.message).toMatch(/already used at site\.yaml:\d+/);
    expect(issues[1]!.message).toContain('ci-1/ci-1-node (site.yaml:');
  });
});

describe('a structural error in a ClusterInstance skips only the checks that read it', () => {
  // A compact ClusterInstance with six mistakes: one the schema finds (a misspelt boot mode) and
  // five that only the rules find. All six arrive in one run.
  let text = swap(
    compact,
    '- hostName: ci-1-m1',
    '- hostName: ci-1-m1\n      bootMode: UEFISecure',
  );
  text = swap(text, 'hostName: ci-1-m0', 'hostName: CI_1-m0');
  text = swap(text, 'bootMACAddress: "0C:42:A1:00:02:10"', 'bootMACAddress: "0C:42:A1:00:02:1Z"');
  text = swap(text, '- 10.16.0.6', '- 10.99.0.6');
  text = swap(text, '- cidr: 172.30.0.0/16', '- cidr: 10.16.0.0/16');
  text = swap(text, 'clusterType: HighlyAvailable', 'clusterType: SNO');

  it('reports the enum error and every network, VIP, MAC, host-name and clusterType error at once', () => {
    expect(check(text)).toEqual([
      error('CLUSTER_TYPE_MISMATCH', at(text, 'clusterType: SNO', 'SNO')),
      error('NETWORK_OVERLAP', at(text, '10.16.0.0/16')),
      error('VIP_OUTSIDE_MACHINE_NETWORK', at(text, '- 10.99.0.6', '10.99.0.6')),
      error('HOSTNAME_INVALID', at(text, 'hostName: CI_1-m0', 'CI_1-m0')),
      error('INVALID_VALUE', at(text, 'bootMode: UEFISecure', 'UEFISecure')),
      error('MAC_INVALID', at(text, '0C:42:A1:00:02:1Z', '"0C:42')),
    ]);
  });

  it('still loads nothing from a ClusterInstance with only the structural error', () => {
    const only = swap(
      compact,
      '- hostName: ci-1-m1',
      '- hostName: ci-1-m1\n      bootMode: UEFISecure',
    );
    const result = loadSiteConfigs([{ path: FILE, text: only }]);
    expect(found(result.issues).map((i) => i.code)).toEqual(['INVALID_VALUE']);
    expect(result.clusterInstances).toEqual([]);
  });

  it('skips the clusterType rules when a node role is broken, and still checks the VIPs', () => {
    const broken = swap(
      swap(
        compact,
        'role: master\n      bmcAddress: redfish-virtualmedia+https://10.16.1.21',
        'role: Master\n      bmcAddress: redfish-virtualmedia+https://10.16.1.21',
      ),
      '- 10.16.0.6',
      '- 10.99.0.6',
    );
    // Counting the misspelt role as a worker would make 2 control-plane nodes: a mismatch.
    expect(check(broken).map((i) => i.code)).toEqual([
      'VIP_OUTSIDE_MACHINE_NETWORK',
      'INVALID_VALUE',
    ]);
  });
});
