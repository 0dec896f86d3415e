import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatIssue } from '../../src/shared/errors.js';
import type { InputIssue, Severity } from '../../src/shared/errors.js';
import { loadSiteConfigs } from '../../src/siteconfig/index.js';
import type { LoadResult, SourceFile } from '../../src/siteconfig/index.js';
import { loadText, snoSite } from '../support/sites.js';

// ---------------------------------------------------------------------------------------------
// The one valid site every scenario starts from: a single-node cluster with a static IPv4
// address. Each test changes only the lines it is about, so the bad lines are in the test.

const base = `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: site-east
  namespace: site-east
spec:
  baseDomain: edge.example.com
  pullSecretRef:
    name: assisted-deployment-pull-secret
  clusterImageSetNameRef: openshift-4.18.12
  clusters:
    - clusterName: edge-1
      machineNetwork:
        - cidr: 10.16.0.0/24
      clusterNetwork:
        - cidr: 10.128.0.0/14
          hostPrefix: 23
      serviceNetwork:
        - 172.30.0.0/16
      nodes:
        - hostName: edge-1-m0
          role: master
          bmcAddress: redfish-virtualmedia+https://10.16.1.10/redfish/v1/Systems/1
          bmcCredentialsName:
            name: edge-1-m0-bmc
          bootMACAddress: "0C:42:A1:00:00:10"
          nodeNetwork:
            interfaces:
              - name: eno1
                macAddress: "0C:42:A1:00:00:10"
            config:
              interfaces:
                - name: eno1
                  type: ethernet
                  state: up
                  ipv4:
                    enabled: true
                    address:
                      - ip: 10.16.0.10
                        prefix-length: 24
              dns-resolver:
                config:
                  server:
                    - 10.16.0.1
              routes:
                config:
                  - destination: 0.0.0.0/0
                    next-hop-interface: eno1
                    next-hop-address: 10.16.0.1
`;

/**
 * Another node shaped like the one in `base`: master n is edge-1-m<n> at 10.16.0.1<n> with MAC
 * ...:1<n>; worker n is edge-1-w<n> at 10.16.0.2<n> with MAC ...:2<n>.
 */
function node(n: number, role: 'master' | 'worker' = 'master'): string {
  const host = `edge-1-${role === 'master' ? 'm' : 'w'}${String(n)}`;
  const suffix = `${role === 'master' ? '1' : '2'}${String(n)}`;
  const mac = `0C:42:A1:00:00:${suffix}`;
  return `        - hostName: ${host}
          role: ${role}
          bmcAddress: redfish-virtualmedia+https://10.16.1.${suffix}/redfish/v1/Systems/1
          bmcCredentialsName:
            name: ${host}-bmc
          bootMACAddress: "${mac}"
          nodeNetwork:
            interfaces:
              - name: eno1
                macAddress: "${mac}"
            config:
              interfaces:
                - name: eno1
                  type: ethernet
                  state: up
                  ipv4:
                    enabled: true
                    address:
                      - ip: 10.16.0.${suffix}
                        prefix-length: 24
`;
}

/** Appends nodes to the last cluster (its `nodes` list ends the file). */
function withNodes(text: string, ...nodes: string[]): string {
  return text + nodes.join('');
}

/** A compact cluster: the base node, two more control-plane nodes, and VIPs. */
const compact = addToCluster(
  withNodes(base, node(1), node(2)),
  'apiVIPs:',
  '  - 10.16.0.5',
  'ingressVIPs:',
  '  - 10.16.0.6',
);

/** A standard cluster: the compact one plus two workers. */
const standard = withNodes(compact, node(1, 'worker'), node(2, 'worker'));

/** The same cluster on dual-stack networks, IPv4 first; node addresses stay IPv4-only. */
function dualStack(text: string): string {
  let result = swap(
    text,
    '        - cidr: 10.16.0.0/24',
    '        - cidr: 10.16.0.0/24\n        - cidr: fd00:16::/64',
  );
  result = swap(
    result,
    '          hostPrefix: 23',
    '          hostPrefix: 23\n        - cidr: fd01::/48\n          hostPrefix: 64',
  );
  return swap(result, '        - 172.30.0.0/16', '        - 172.30.0.0/16\n        - fd02::/112');
}

/** The cluster of `base` again, named `name`, with its own MACs and addresses: a second cluster to append. */
function anotherCluster(name: string): string {
  return base
    .slice(base.indexOf('    - clusterName:'))
    .replaceAll('edge-1', name)
    .replaceAll('0C:42:A1:00:00:', '0C:42:A1:00:02:')
    .replaceAll('10.16.', '10.17.');
}

/**
 * Index of the one line containing `needle` (or of the `nth` such line, counting from 1);
 * anything else is a mistake in the test.
 */
function lineOf(rows: readonly string[], needle: string, nth?: number): number {
  const hits = rows.flatMap((row, i) => (row.includes(needle) ? [i] : []));
  const hit = nth === undefined ? (hits.length === 1 ? hits[0] : undefined) : hits[nth - 1];
  if (hit === undefined)
    throw new Error(
      `expected line ${String(nth ?? 'one')} with ${JSON.stringify(needle)}, found ${String(hits.length)}`,
    );
  return hit;
}

/** Replaces the only occurrence of `from`. */
function swap(text: string, from: string, to: string): string {
  const count = text.split(from).length - 1;
  if (count !== 1) throw new Error(`expected one ${JSON.stringify(from)}, found ${String(count)}`);
  return text.replace(from, () => to);
}

/**
 * Inserts lines after the line containing `anchor`: list items (`- ...`) as siblings of a list
 * item anchor, anything else indented like the anchor's key.
 */
function addAfter(text: string, anchor: string, ...lines: string[]): string {
  const rows = text.split('\n');
  const i = lineOf(rows, anchor);
  const [, spaces = '', dash = ''] = /^( *)(- )?/.exec(rows[i]!)!;
  const indent = spaces.length + (lines[0]?.startsWith('- ') ? 0 : dash.length);
  rows.splice(i + 1, 0, ...lines.map((line) => ' '.repeat(indent) + line));
  return rows.join('\n');
}

/** Removes the line containing `needle`. */
function removeLine(text: string, needle: string): string {
  const rows = text.split('\n');
  rows.splice(lineOf(rows, needle), 1);
  return rows.join('\n');
}

/** Adds fields to the cluster `edge-1`. */
function addToCluster(text: string, ...lines: string[]): string {
  return addAfter(text, 'clusterName: edge-1', ...lines);
}

/** Adds fields to the node `edge-1-m0`. */
function addToNode(text: string, ...lines: string[]): string {
  return addAfter(text, 'hostName: edge-1-m0', ...lines);
}

/**
 * Where a message must point: the line containing `line`, at the first `value` in it (by
 * default at the start of `line` itself).
 */
function at(
  text: string,
  line: string,
  value: string = line,
  nth?: number,
): { line: number; column: number } {
  const rows = text.split('\n');
  const i = lineOf(rows, line, nth);
  const column = rows[i]!.indexOf(value);
  if (column < 0)
    throw new Error(`${JSON.stringify(value)} is not on the line with ${JSON.stringify(line)}`);
  return { line: i + 1, column: column + 1 };
}

const FILE = 'sites/east.yaml';

function load(text: string): LoadResult {
  return loadSiteConfigs([{ path: FILE, text }]);
}

/** What a test pins down for every issue: how bad, which rule, where. */
interface Found {
  severity: Severity;
  code: string;
  line: number;
  column: number;
}

function found(issues: readonly InputIssue[]): Found[] {
  return issues.map(({ severity, code, line, column }) => ({ severity, code, line, column }));
}

/** The issues of one file, reduced to severity, code and position. */
function check(text: string): Found[] {
  return found(load(text).issues);
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
const note = (code: string, pos: { line: number; column: number }): Found => ({
  severity: 'note',
  code,
  ...pos,
});

// ---------------------------------------------------------------------------------------------

describe('valid sites', () => {
  it('loads every example site without an error or warning, alone and all together', () => {
    const dir = new URL('../../examples/sites/', import.meta.url);
    const files: SourceFile[] = readdirSync(dir)
      .filter((name) => name.endsWith('.yaml'))
      .sort()
      .map((name) => ({
        path: `examples/sites/${name}`,
        text: readFileSync(new URL(name, dir), 'utf8'),
      }));
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const file of files) {
      const result = loadSiteConfigs([file]);
      expect(found(result.issues), file.path).toEqual([]);
      expect(result.sites.length, file.path).toBeGreaterThan(0);
    }
    const fleet = loadSiteConfigs(files);
    expect(found(fleet.issues)).toEqual([]);
    expect(fleet.sites).toHaveLength(files.length);
  });

  it('accepts the single-node, compact and standard sites these tests start from', () => {
    expect(check(base)).toEqual([]);
    expect(check(compact)).toEqual([]);
    expect(check(standard)).toEqual([]);
    expect(load(standard).sites[0]!.siteConfig.spec.clusters[0]!.nodes).toHaveLength(5);
  });

  it('accepts a single-node cluster expanded with worker nodes', () => {
    const text = withNodes(base, node(1, 'worker'), node(2, 'worker'));
    expect(check(text)).toEqual([]);
    expect(load(text).sites).toHaveLength(1);
  });

  it('accepts a dual-stack single-node cluster with static addresses of both families', () => {
    let text = dualStack(base);
    text = addAfter(
      text,
      'state: up',
      'ipv6:',
      '  enabled: true',
      '  address:',
      '    - ip: fd00:16::10',
      '      prefix-length: 64',
    );
    text = swap(
      text,
      '                  - destination: 0.0.0.0/0',
      [
        '                  - destination: ::/0',
        '                    next-hop-interface: eno1',
        '                    next-hop-address: fd00:16::1',
        '                  - destination: 0.0.0.0/0',
      ].join('\n'),
    );
    expect(check(text)).toEqual([]);
  });

  it('accepts a dual-stack compact cluster with one VIP of each family, primary family first', () => {
    let text = dualStack(compact);
    text = addAfter(text, '- 10.16.0.5', '- fd00:16::5');
    text = addAfter(text, '- 10.16.0.6', '- fd00:16::6');
    expect(check(text)).toEqual([]);
  });

  it('treats MACs that differ only in case as the same MAC', () => {
    const text = swap(base, 'macAddress: "0C:42:A1:00:00:10"', 'macAddress: "0c:42:a1:00:00:10"');
    expect(check(text)).toEqual([]);
  });

  it('keeps the source text of label values and hex WWNs that YAML reads as numbers', () => {
    let text = addToCluster(
      base,
      'clusterLabels:',
      '  common: true',
      '  du-profile: 4.10',
      '  rack: 0x1F',
    );
    text = addToNode(
      text,
      'rootDeviceHints:',
      '  wwn: 0x5000c500a0b1c2d3',
      '  minSizeGigabytes: 100',
    );
    const result = load(text);
    expect(found(result.issues)).toEqual([]);
    const cluster = result.sites[0]!.siteConfig.spec.clusters[0]!;
    expect(cluster.clusterLabels).toEqual({ common: 'true', 'du-profile': '4.10', rack: '0x1F' });
    expect(cluster.nodes[0]!.rootDeviceHints?.wwn).toBe('0x5000c500a0b1c2d3');
    expect(cluster.nodes[0]!.rootDeviceHints?.minSizeGigabytes).toBe(100);
  });

  it('reads every SiteConfig of a file with several documents and skips the other kinds with a note', () => {
    const configMap =
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: site-data\ndata:\n  region: east\n';
    const second = base
      .replaceAll('edge-1', 'edge-2')
      .replaceAll('0C:42:A1:00:00:', '0C:42:A1:00:02:');
    const text = `---\n${base}---\n${configMap}---\n${second}`;
    const result = load(text);
    expect(found(result.issues)).toEqual([note('SKIPPED_DOCUMENT', at(text, 'apiVersion: v1'))]);
    expect(result.issues[0]!.message).toBe(
      'skipping a document of kind ConfigMap: not a SiteConfig',
    );
    expect(
      result.sites.map((site) => [
        site.file,
        site.documentIndex,
        site.siteConfig.spec.clusters[0]!.clusterName,
      ]),
    ).toEqual([
      [FILE, 0, 'edge-1'],
      [FILE, 2, 'edge-2'],
    ]);
  });

  it('ignores empty documents', () => {
    const result = load(`---\n---\n${base}---\n`);
    expect(found(result.issues)).toEqual([]);
    expect(result.sites).toHaveLength(1);
  });
});

describe('structure', () => {
  it('reports a missing required field at the map that lacks it', () => {
    const text = removeLine(
      removeLine(base, 'pullSecretRef:'),
      'name: assisted-deployment-pull-secret',
    );
    expect(check(text)).toEqual([error('MISSING_FIELD', at(text, 'baseDomain:'))]);
    expect(formatIssue(load(text).issues[0]!)).toBe(
      `${FILE}:7:3: error MISSING_FIELD: "spec" is missing the required field "pullSecretRef"\n  hint: add "pullSecretRef" here`,
    );
    expect(load(text).sites).toEqual([]);
  });

  it('reports a node without bootMACAddress at that node', () => {
    const text = removeLine(base, 'bootMACAddress:');
    expect(check(text)).toEqual([
      error('MISSING_FIELD', at(text, '- hostName: edge-1-m0', 'hostName')),
    ]);
    expect(load(text).issues[0]!.message).toBe(
      '"spec.clusters.0.nodes.0" is missing the required field "bootMACAddress"',
    );
  });

  it('warns about a misspelt field, suggests the right one, and still loads the site', () => {
    const text = addToCluster(base, 'holdInstalation: true');
    const result = load(text);
    expect(found(result.issues)).toEqual([warning('UNKNOWN_FIELD', at(text, 'holdInstalation'))]);
    expect(result.issues[0]!.message).toBe('unknown field "holdInstalation" is ignored');
    expect(result.issues[0]!.hint).toBe('did you mean "holdInstallation"?');
    expect(result.sites).toHaveLength(1);
  });

  it('lists the known fields when an unknown field resembles none of them', () => {
    const text = addAfter(
      base,
      'name: assisted-deployment-pull-secret',
      'namespace: openshift-config',
    );
    expect(check(text)).toEqual([
      warning('UNKNOWN_FIELD', at(text, 'namespace: openshift-config')),
    ]);
    expect(load(text).issues[0]!.hint).toBe('known fields here: name');
  });

  it('rejects an override for a kind SiteForge does not generate, suggesting the closest kind', () => {
    const text = addToCluster(base, 'crTemplates:', '  KlusterletAddonConfg: kac-override.yaml');
    expect(check(text)).toEqual([error('UNKNOWN_KIND', at(text, 'KlusterletAddonConfg'))]);
    expect(load(text).issues[0]!.hint).toMatch(
      /^did you mean "KlusterletAddonConfig"\? allowed: "AgentClusterInstall", /,
    );
  });

  it('rejects a cluster-level kind in the annotations of a node', () => {
    const text = addToNode(
      base,
      'crAnnotations:',
      '  add:',
      '    ManagedCluster:',
      '      example.com/rack: r12',
    );
    expect(check(text)).toEqual([error('UNKNOWN_KIND', at(text, 'ManagedCluster:'))]);
  });

  it('rejects a value outside an enumeration, suggesting the allowed spelling', () => {
    const text = swap(base, 'role: master', 'role: Master');
    expect(check(text)).toEqual([error('INVALID_VALUE', at(text, 'role: Master', 'Master'))]);
    expect(formatIssue(load(text).issues[0]!)).toBe(
      `${FILE}:22:17: error INVALID_VALUE: "Master" is not allowed for "spec.clusters.0.nodes.0.role"\n  hint: did you mean "master"? allowed: "master", "worker"`,
    );
  });

  it('rejects an apiVersion SiteForge does not read', () => {
    const text = swap(base, 'apiVersion: ran.openshift.io/v1', 'apiVersion: ran.openshift.io/v3');
    expect(check(text)).toEqual([error('INVALID_VALUE', at(text, 'ran.openshift.io/v3'))]);
  });

  it('rejects a misspelt kind of a SiteConfig document', () => {
    const text = swap(base, 'kind: SiteConfig', 'kind: Siteconfig');
    expect(check(text)).toEqual([error('INVALID_VALUE', at(text, 'Siteconfig'))]);
    expect(load(text).issues[0]!.hint).toBe('set it to "SiteConfig"');
  });

  it('rejects a cluster without nodes', () => {
    const text = base.slice(0, base.indexOf('      nodes:')) + '      nodes: []\n';
    expect(check(text)).toEqual([error('INVALID_VALUE', at(text, 'nodes: []', '[]'))]);
  });

  it('rejects a hostPrefix below the schema minimum', () => {
    const text = swap(base, 'hostPrefix: 23', 'hostPrefix: 0');
    expect(check(text)).toEqual([error('INVALID_VALUE', at(text, 'hostPrefix: 0', '0'))]);
  });

  it('rejects a value of the wrong type', () => {
    const text = addToCluster(base, 'holdInstallation: "yes"');
    expect(check(text)).toEqual([error('INVALID_TYPE', at(text, '"yes"'))]);
    expect(load(text).issues[0]!.message).toBe(
      '"spec.clusters.0.holdInstallation" must be a boolean, not string',
    );
  });

  it('rejects a single VIP written as a scalar instead of a list', () => {
    const text = swap(compact, 'apiVIPs:\n        - 10.16.0.5', 'apiVIPs: 10.16.0.5');
    expect(check(text)).toEqual([
      error('INVALID_TYPE', at(text, 'apiVIPs: 10.16.0.5', '10.16.0.5')),
    ]);
    expect(load(text).issues[0]!.hint).toBe('write "spec.clusters.0.apiVIPs" as a YAML list');
  });

  it('rejects a string field left null instead of reading it as the text "null"', () => {
    const text = swap(
      base,
      'clusterImageSetNameRef: openshift-4.18.12',
      'clusterImageSetNameRef: null',
    );
    expect(check(text)).toEqual([
      error('INVALID_TYPE', at(text, 'clusterImageSetNameRef: null', 'null')),
    ]);
  });

  it('reads a plain number where a string is expected as its source text', () => {
    const text = addToNode(base, 'rootDeviceHints:', '  serialNumber: 0012345');
    const result = load(text);
    expect(found(result.issues)).toEqual([]);
    expect(
      result.sites[0]!.siteConfig.spec.clusters[0]!.nodes[0]!.rootDeviceHints?.serialNumber,
    ).toBe('0012345');
  });
});

describe('names and labels', () => {
  it('rejects a clusterName that cannot name a namespace', () => {
    const text = swap(base, 'clusterName: edge-1', 'clusterName: Edge_1');
    expect(check(text)).toEqual([error('CLUSTER_NAME_INVALID', at(text, 'Edge_1'))]);
  });

  it('rejects a clusterName longer than 63 characters', () => {
    const long = `edge-${'a'.repeat(60)}`;
    const text = swap(base, 'clusterName: edge-1', `clusterName: ${long}`);
    expect(check(text)).toEqual([error('CLUSTER_NAME_INVALID', at(text, long))]);
  });

  it('warns about a clusterName starting with "ztp", which ZTP uses for policy namespaces, and still loads it', () => {
    // siteconfig-generator takes the name and the hub accepts the namespace: a warning, not an error.
    const text = swap(base, 'clusterName: edge-1', 'clusterName: ztp-edge-1');
    expect(check(text)).toEqual([warning('CLUSTER_NAME_RESERVED', at(text, 'ztp-edge-1'))]);
    expect(load(text).sites).toHaveLength(1);
  });

  it('rejects two clusters with the same name in one site', () => {
    const text = base + anotherCluster('edge-1');
    expect(check(text)).toEqual([
      error('CLUSTER_NAME_DUPLICATE', at(text, 'clusterName: edge-1', 'edge-1', 2)),
    ]);
    expect(load(text).issues[0]!.message).toBe(
      `clusterName "edge-1" is already used at ${FILE}:12`,
    );
  });

  it('requires a ClusterImageSet from the cluster or the site', () => {
    const text = removeLine(base, 'clusterImageSetNameRef: openshift-4.18.12');
    expect(check(text)).toEqual([
      error('IMAGE_SET_MISSING', at(text, 'clusterName: edge-1', 'edge-1')),
    ]);
    expect(check(addToCluster(text, 'clusterImageSetNameRef: openshift-4.19.3'))).toEqual([]);
  });

  it('rejects a hostName that is not a DNS name', () => {
    const text = swap(base, 'hostName: edge-1-m0', 'hostName: edge-1_m0');
    expect(check(text)).toEqual([error('HOSTNAME_INVALID', at(text, 'edge-1_m0'))]);
  });

  it('rejects two nodes with the same hostName', () => {
    const text = swap(compact, 'hostName: edge-1-m1', 'hostName: edge-1-m0');
    expect(check(text)).toEqual([
      error('HOSTNAME_DUPLICATE', at(text, 'hostName: edge-1-m0', 'edge-1-m0', 2)),
    ]);
    expect(load(text).issues[0]!.message).toBe(
      'hostName "edge-1-m0" is already used by node 0 of this cluster',
    );
  });

  it('rejects a cluster label key Kubernetes would refuse, pointing at the key', () => {
    const text = addToCluster(base, 'clusterLabels:', '  example.com/rack name: r12');
    expect(check(text)).toEqual([error('LABEL_INVALID', at(text, 'example.com/rack name'))]);
  });

  it('rejects a cluster label value Kubernetes would refuse, pointing at the value', () => {
    const text = addToCluster(base, 'clusterLabels:', '  owner: "team east"');
    expect(check(text)).toEqual([error('LABEL_INVALID', at(text, '"team east"'))]);
    expect(load(text).issues[0]!.message).toBe(
      'label value "team east" of "owner" is invalid: it must be alphanumeric, "-", "_" or ".", starting and ending alphanumeric',
    );
  });

  it('rejects a node label key with an empty name part', () => {
    const text = addToNode(base, 'nodeLabels:', '  node-role.kubernetes.io/: ""');
    expect(check(text)).toEqual([error('LABEL_INVALID', at(text, 'node-role.kubernetes.io/'))]);
  });
});

describe('networks', () => {
  it('rejects a machine network without a prefix length', () => {
    const text = swap(base, 'cidr: 10.16.0.0/24', 'cidr: 10.16.0.0');
    expect(check(text)).toEqual([error('CIDR_INVALID', at(text, 'cidr: 10.16.0.0', '10.16.0.0'))]);
  });

  it('rejects a service network with an impossible prefix length', () => {
    const text = swap(base, '- 172.30.0.0/16', '- 172.30.0.0/33');
    expect(check(text)).toEqual([error('CIDR_INVALID', at(text, '172.30.0.0/33'))]);
  });

  it('rejects a machine network written with a host address and names the network address', () => {
    const text = swap(base, 'cidr: 10.16.0.0/24', 'cidr: 10.16.0.1/24');
    expect(check(text)).toEqual([error('CIDR_HOST_BITS_SET', at(text, '10.16.0.1/24'))]);
    expect(formatIssue(load(text).issues[0]!)).toBe(
      `${FILE}:14:17: error CIDR_HOST_BITS_SET: machineNetwork "10.16.0.1/24" has host bits set\n  hint: the network address is 10.16.0.0/24`,
    );
  });

  it('rejects a hostPrefix shorter than the cluster network prefix', () => {
    const text = swap(base, 'hostPrefix: 23', 'hostPrefix: 12');
    expect(check(text)).toEqual([error('HOST_PREFIX_INVALID', at(text, 'hostPrefix: 12', '12'))]);
    expect(load(text).issues[0]!.hint).toBe(
      'use a value between 14 and 32 (commonly 23 for IPv4, 64 for IPv6)',
    );
  });

  it('rejects an IPv4 hostPrefix longer than 32 bits', () => {
    const text = swap(base, 'hostPrefix: 23', 'hostPrefix: 64');
    expect(check(text)).toEqual([error('HOST_PREFIX_INVALID', at(text, 'hostPrefix: 64', '64'))]);
  });

  it('rejects a service network inside the cluster network', () => {
    const text = swap(base, '- 172.30.0.0/16', '- 10.130.0.0/16');
    expect(check(text)).toEqual([error('NETWORK_OVERLAP', at(text, '10.130.0.0/16'))]);
    expect(load(text).issues[0]!.message).toBe(
      'serviceNetwork 10.130.0.0/16 overlaps clusterNetwork 10.128.0.0/14',
    );
  });

  it('rejects a dual-stack cluster network on a single-stack machine network', () => {
    const text = swap(
      base,
      '          hostPrefix: 23',
      '          hostPrefix: 23\n        - cidr: fd01::/48\n          hostPrefix: 64',
    );
    expect(check(text)).toEqual([error('STACK_MISMATCH', at(text, '- cidr: 10.128.0.0/14', '-'))]);
    expect(load(text).issues[0]!.message).toBe(
      'clusterNetwork is IPv4+IPv6 but machineNetwork is IPv4',
    );
  });

  it('rejects dual-stack networks that disagree on the primary family', () => {
    let text = dualStack(base);
    text = swap(
      text,
      '        - 172.30.0.0/16\n        - fd02::/112',
      '        - fd02::/112\n        - 172.30.0.0/16',
    );
    expect(check(text)).toEqual([error('STACK_MISMATCH', at(text, '- fd02::/112', '-'))]);
    expect(load(text).issues[0]!.message).toBe(
      'serviceNetwork is IPv6+IPv4 but machineNetwork is IPv4+IPv6',
    );
  });

  it('rejects a network list with more than one CIDR of a family in a dual stack', () => {
    const text = swap(
      dualStack(base),
      '        - cidr: fd00:16::/64',
      '        - cidr: fd00:16::/64\n        - cidr: 10.17.0.0/24',
    );
    expect(check(text)).toEqual([error('STACK_MISMATCH', at(text, '- cidr: 10.16.0.0/24', '-'))]);
    expect(load(text).issues[0]!.message).toBe(
      'machineNetwork mixes address families in 3 entries',
    );
  });

  it('rejects a proxy URL without a scheme', () => {
    const text = addToCluster(
      base,
      'proxy:',
      '  httpProxy: proxy.example.com:3128',
      '  httpsProxy: http://proxy.example.com:3128',
    );
    expect(check(text)).toEqual([
      error('PROXY_URL_INVALID', at(text, 'httpProxy:', 'proxy.example.com')),
    ]);
  });

  it('accepts https:// for httpsProxy but not for httpProxy', () => {
    const text = addToCluster(
      base,
      'proxy:',
      '  httpProxy: https://proxy.example.com:3129',
      '  httpsProxy: https://proxy.example.com:3129',
      '  noProxy: .cluster.local',
    );
    expect(check(text)).toEqual([error('PROXY_URL_INVALID', at(text, 'httpProxy:', 'https:'))]);
  });

  it('rejects an NTP source written with a port', () => {
    const text = addToCluster(
      base,
      'additionalNTPSources:',
      '  - ntp.edge.example.com',
      '  - 10.16.0.1',
      '  - "10.16.0.2:123"',
    );
    expect(check(text)).toEqual([error('NTP_SOURCE_INVALID', at(text, '"10.16.0.2:123"'))]);
  });
});

describe('VIPs and topology', () => {
  it('rejects VIPs on a single-node cluster', () => {
    const text = addToCluster(base, 'apiVIPs:', '  - 10.16.0.5');
    expect(check(text)).toEqual([error('SNO_WITH_VIPS', at(text, '- 10.16.0.5', '-'))]);
  });

  it('requires API and ingress VIPs on a compact cluster', () => {
    const text = withNodes(base, node(1), node(2));
    expect(check(text)).toEqual([
      error('VIPS_REQUIRED', at(text, 'clusterName: edge-1', 'edge-1')),
    ]);
    expect(load(text).issues[0]!.message).toBe(
      'a compact cluster (3 control-plane and 0 worker node(s)) needs apiVIPs and ingressVIPs',
    );
  });

  it('requires the ingress VIP too on a standard cluster', () => {
    const text = removeLine(removeLine(standard, 'ingressVIPs:'), '- 10.16.0.6');
    expect(check(text)).toEqual([
      error('VIPS_REQUIRED', at(text, 'clusterName: edge-1', 'edge-1')),
    ]);
  });

  it('rejects a cluster with two control-plane nodes', () => {
    const text = addToCluster(
      withNodes(base, node(1)),
      'apiVIPs:',
      '  - 10.16.0.5',
      'ingressVIPs:',
      '  - 10.16.0.6',
    );
    expect(check(text)).toEqual([
      error('TOPOLOGY_INVALID', at(text, '- hostName: edge-1-m0', '-')),
    ]);
    expect(load(text).issues[0]!.message).toBe(
      'cluster "edge-1" has 2 control-plane and 0 worker node(s)',
    );
  });

  it('rejects a standard cluster with a single worker', () => {
    const text = withNodes(compact, node(1, 'worker'));
    expect(check(text)).toEqual([
      error('TOPOLOGY_INVALID', at(text, '- hostName: edge-1-m0', '-')),
    ]);
    expect(load(text).issues[0]!.message).toBe(
      'cluster "edge-1" has 3 control-plane and 1 worker node(s)',
    );
  });

  it('rejects a cluster without a control-plane node', () => {
    const text = swap(base, 'role: master', 'role: worker');
    expect(check(text)).toEqual([
      error('TOPOLOGY_INVALID', at(text, '- hostName: edge-1-m0', '-')),
    ]);
  });

  it('rejects a VIP written with a prefix length', () => {
    const text = swap(compact, '- 10.16.0.5', '- 10.16.0.5/24');
    expect(check(text)).toEqual([error('VIP_INVALID', at(text, '10.16.0.5/24'))]);
  });

  it('rejects the same address as API and ingress VIP', () => {
    const text = swap(compact, '- 10.16.0.6', '- 10.16.0.5');
    expect(check(text)).toEqual([error('VIP_DUPLICATE', at(text, '- 10.16.0.5', '10.16.0.5', 2))]);
    expect(load(text).issues[0]!.message).toBe('VIP 10.16.0.5 is also used as apiVIPs');
  });

  it('rejects a VIP outside the machine network', () => {
    const text = swap(compact, '- 10.16.0.5', '- 10.99.0.5');
    expect(check(text)).toEqual([error('VIP_OUTSIDE_MACHINE_NETWORK', at(text, '10.99.0.5'))]);
    expect(formatIssue(load(text).issues[0]!)).toBe(
      `${FILE}:14:11: error VIP_OUTSIDE_MACHINE_NETWORK: VIP 10.99.0.5 is outside the machine network (10.16.0.0/24)\n` +
        '  hint: pick a free address inside machineNetwork, or fix machineNetwork',
    );
  });

  it('rejects a VIP that is the static address of a node', () => {
    const text = swap(compact, '- 10.16.0.6', '- 10.16.0.11');
    expect(check(text)).toEqual([error('VIP_IS_NODE_IP', at(text, '- 10.16.0.11', '10.16.0.11'))]);
    expect(load(text).issues[0]!.message).toBe('VIP 10.16.0.11 is the address of node edge-1-m1');
  });

  it('rejects two API VIPs of the same family', () => {
    const text = addAfter(compact, '- 10.16.0.5', '- 10.16.0.7');
    expect(check(text)).toEqual([error('STACK_MISMATCH', at(text, '10.16.0.7'))]);
  });

  it('rejects a single VIP per list on a dual-stack cluster', () => {
    const text = dualStack(compact);
    expect(check(text)).toEqual([
      error('STACK_MISMATCH', at(text, '10.16.0.5')),
      error('STACK_MISMATCH', at(text, '10.16.0.6')),
    ]);
    expect(load(text).issues[0]!.hint).toBe('add the IPv6 VIP as second entry');
  });

  it('rejects VIPs listed in the other family order than the networks', () => {
    let text = dualStack(compact);
    text = swap(text, '- 10.16.0.5', '- fd00:16::5\n        - 10.16.0.5');
    text = addAfter(text, '- 10.16.0.6', '- fd00:16::6');
    expect(check(text)).toEqual([error('STACK_MISMATCH', at(text, 'fd00:16::5'))]);
    expect(load(text).issues[0]!.message).toBe(
      'apiVIPs starts with an IPv6 address but the primary machine network is IPv4',
    );
  });
});

describe('nodes and MACs', () => {
  it('rejects a BMC address with an unknown scheme', () => {
    const text = swap(
      base,
      'redfish-virtualmedia+https://10.16.1.10',
      'redfish-virtualmedia+ftp://10.16.1.10',
    );
    expect(check(text)).toEqual([error('BMC_ADDRESS_INVALID', at(text, 'bmcAddress:', 'redfish'))]);
    expect(load(text).issues[0]!.message).toBe(
      'bmcAddress: unknown BMC scheme "redfish-virtualmedia+ftp"',
    );
  });

  it('rejects a BMC address without a host', () => {
    const text = swap(
      base,
      'redfish-virtualmedia+https://10.16.1.10/redfish/v1/Systems/1',
      'idrac-virtualmedia://',
    );
    expect(check(text)).toEqual([error('BMC_ADDRESS_INVALID', at(text, 'idrac-virtualmedia://'))]);
  });

  it('warns that an IPMI BMC needs a provisioning network, and still loads the site', () => {
    const text = swap(
      base,
      'redfish-virtualmedia+https://10.16.1.10/redfish/v1/Systems/1',
      'ipmi://10.16.1.10',
    );
    const result = load(text);
    expect(found(result.issues)).toEqual([
      warning('BMC_NEEDS_PROVISIONING_NETWORK', at(text, 'ipmi://10.16.1.10')),
    ]);
    expect(result.sites).toHaveLength(1);
  });

  it('reads a bare BMC address as IPMI', () => {
    const text = swap(
      base,
      'redfish-virtualmedia+https://10.16.1.10/redfish/v1/Systems/1',
      '10.16.1.10',
    );
    expect(check(text)).toEqual([
      warning('BMC_NEEDS_PROVISIONING_NETWORK', at(text, 'bmcAddress: 10.16.1.10', '10.16.1.10')),
    ]);
  });

  it('rejects a boot MAC with five octets', () => {
    const text = swap(
      base,
      'bootMACAddress: "0C:42:A1:00:00:10"',
      'bootMACAddress: "0C:42:A1:00:10"',
    );
    expect(check(text)).toEqual([error('MAC_INVALID', at(text, '"0C:42:A1:00:10"'))]);
  });

  it('rejects an interface MAC written with dashes', () => {
    const text = swap(base, 'macAddress: "0C:42:A1:00:00:10"', 'macAddress: "0C-42-A1-00-00-10"');
    expect(check(text)).toEqual([error('MAC_INVALID', at(text, '"0C-42-A1-00-00-10"'))]);
  });

  it('rejects a MAC listed twice among the interfaces of a node', () => {
    const text = swap(
      base,
      'macAddress: "0C:42:A1:00:00:10"\n',
      'macAddress: "0C:42:A1:00:00:10"\n              - name: eno2\n                macAddress: "0c:42:a1:00:00:10"\n',
    );
    expect(check(text)).toEqual([error('MAC_DUPLICATE', at(text, '"0c:42:a1:00:00:10"'))]);
    expect(load(text).issues[0]!.message).toBe(
      'MAC 0c:42:a1:00:00:10 is listed twice for node edge-1-m0',
    );
  });

  it('rejects two nodes of a cluster with the same MAC, whatever its case', () => {
    const text = compact.replaceAll('0C:42:A1:00:00:11', '0c:42:a1:00:00:10');
    expect(check(text)).toEqual([
      error('MAC_DUPLICATE', at(text, 'bootMACAddress: "0c:42:a1:00:00:10"', '"')),
    ]);
    const first = at(text, 'bootMACAddress: "0C:42:A1:00:00:10"').line;
    expect(load(text).issues[0]!.message).toBe(
      `MAC 0c:42:a1:00:00:10 is also used by edge-1/edge-1-m0 (${FILE}:${String(first)})`,
    );
  });

  it('warns about a boot MAC that none of the listed interfaces has, and still loads the site', () => {
    // The host boots from virtual media and is matched by any of its MACs: the install goes on.
    const text = swap(
      base,
      'bootMACAddress: "0C:42:A1:00:00:10"',
      'bootMACAddress: "0C:42:A1:00:00:1F"',
    );
    expect(check(text)).toEqual([
      warning('BOOT_MAC_NOT_IN_INTERFACES', at(text, '"0C:42:A1:00:00:1F"')),
    ]);
    expect(load(text).sites).toHaveLength(1);
  });
});

describe('nmstate', () => {
  const secondNic = [
    '                - name: eno2',
    '                  type: ethernet',
    '                  state: down',
    '              dns-resolver:',
  ].join('\n');

  it('warns about an ethernet interface whose MAC the discovery image cannot know', () => {
    const text = swap(base, '              dns-resolver:', secondNic);
    const result = load(text);
    expect(found(result.issues)).toEqual([
      warning('NMSTATE_INTERFACE_UNMAPPED', at(text, '- name: eno2', 'eno2')),
    ]);
    expect(result.sites).toHaveLength(1);
  });

  it('rejects an IPv4 address with an octet above 255', () => {
    const text = swap(base, 'ip: 10.16.0.10', 'ip: 10.16.0.300');
    expect(check(text)).toEqual([error('NMSTATE_ADDRESS_INVALID', at(text, '10.16.0.300'))]);
  });

  it('rejects an IPv6 address listed under ipv4', () => {
    const text = swap(base, 'ip: 10.16.0.10', 'ip: fd00:16::10');
    expect(check(text)).toEqual([error('NMSTATE_ADDRESS_INVALID', at(text, 'fd00:16::10'))]);
    expect(load(text).issues[0]!.message).toBe('fd00:16::10 is not an IPv4 address');
  });

  it('rejects an IPv4 prefix-length above 32', () => {
    const text = swap(base, 'prefix-length: 24', 'prefix-length: 33');
    expect(check(text)).toEqual([
      error('NMSTATE_ADDRESS_INVALID', at(text, 'prefix-length: 33', '33')),
    ]);
  });

  it('rejects two nodes configured with the same address', () => {
    const text = swap(compact, 'ip: 10.16.0.11', 'ip: 10.16.0.10');
    expect(check(text)).toEqual([
      error('NODE_IP_DUPLICATE', at(text, 'ip: 10.16.0.10', '10.16.0.10', 2)),
    ]);
    expect(load(text).issues[0]!.message).toBe(
      'address 10.16.0.10 is also configured on node edge-1-m0',
    );
  });

  it('rejects a route destination that is not a CIDR', () => {
    const text = swap(base, 'destination: 0.0.0.0/0', 'destination: default');
    expect(check(text)).toEqual([
      error('NMSTATE_ROUTE_INVALID', at(text, 'destination: default', 'default')),
    ]);
  });

  it('rejects a next hop that is not an address', () => {
    const text = swap(
      base,
      'next-hop-address: 10.16.0.1',
      'next-hop-address: gateway.edge.example.com',
    );
    expect(check(text)).toEqual([
      error('NMSTATE_ROUTE_INVALID', at(text, 'gateway.edge.example.com')),
    ]);
  });

  it('rejects a route through an interface the config does not define', () => {
    const text = swap(base, 'next-hop-interface: eno1', 'next-hop-interface: ens1f0');
    expect(check(text)).toEqual([error('NMSTATE_ROUTE_INTERFACE_UNKNOWN', at(text, 'ens1f0'))]);
    expect(load(text).issues[0]!.hint).toBe('use one of: eno1');
  });

  it('rejects a DNS server given by name', () => {
    const text = swap(
      base,
      '                    - 10.16.0.1',
      '                    - dns.edge.example.com',
    );
    expect(check(text)).toEqual([error('NMSTATE_DNS_INVALID', at(text, 'dns.edge.example.com'))]);
  });

  it('rejects a node whose static address lies outside the machine network', () => {
    const text = swap(base, 'ip: 10.16.0.10', 'ip: 10.17.0.10');
    expect(check(text)).toEqual([error('NODE_IP_OUTSIDE_MACHINE_NETWORK', at(text, '10.17.0.10'))]);
    expect(load(text).issues[0]!.message).toBe(
      'node edge-1-m0 has no IPv4 address inside machineNetwork 10.16.0.0/24',
    );
  });
});

describe('JSON fields', () => {
  it('rejects installConfigOverrides that is not valid JSON', () => {
    const text = addToCluster(
      base,
      `installConfigOverrides: '{"capabilities":{"baselineCapabilitySet":"None"}'`,
    );
    expect(check(text)).toEqual([
      error('INSTALL_CONFIG_OVERRIDES_INVALID', at(text, 'installConfigOverrides:', "'")),
    ]);
    expect(load(text).issues[0]!.message).toMatch(/^installConfigOverrides is not a JSON object: /);
  });

  it('rejects installConfigOverrides that is JSON but not an object', () => {
    const text = addToCluster(base, `installConfigOverrides: '["capabilities"]'`);
    expect(check(text)).toEqual([
      error('INSTALL_CONFIG_OVERRIDES_INVALID', at(text, 'installConfigOverrides:', "'")),
    ]);
    expect(load(text).issues[0]!.message).toBe('installConfigOverrides is not a JSON object');
  });

  it('rejects a discovery ignition override without an Ignition version', () => {
    const text = addToCluster(base, `ignitionConfigOverride: '{"storage":{"files":[]}}'`);
    expect(check(text)).toEqual([
      error('IGNITION_OVERRIDE_INVALID', at(text, 'ignitionConfigOverride:', "'")),
    ]);
    expect(load(text).issues[0]!.message).toBe(
      'ignitionConfigOverride has no "ignition": {"version": "3.x.y"}',
    );
  });

  it('rejects a node ignition override written for Ignition spec 2', () => {
    const text = addToNode(base, `ignitionConfigOverride: '{"ignition":{"version":"2.2.0"}}'`);
    expect(check(text)).toEqual([
      error('IGNITION_OVERRIDE_INVALID', at(text, 'ignitionConfigOverride:', "'")),
    ]);
  });

  it('rejects a node ignition override written as YAML-ish text', () => {
    const text = addToNode(base, `ignitionConfigOverride: '{ignition: {version: 3.2.0}}'`);
    expect(check(text)).toEqual([
      error('IGNITION_OVERRIDE_INVALID', at(text, 'ignitionConfigOverride:', "'")),
    ]);
  });

  it('accepts Ignition spec 3 overrides on the cluster and on a node', () => {
    let text = addToCluster(base, `ignitionConfigOverride: '{"ignition":{"version":"3.2.0"}}'`);
    text = addToNode(
      text,
      `ignitionConfigOverride: '{"ignition":{"version":"3.1.0"},"storage":{"files":[]}}'`,
    );
    expect(check(text)).toEqual([]);
  });

  it('rejects installerArgs written as a command line instead of a JSON list', () => {
    const text = addToNode(base, 'installerArgs: --append-karg rd.neednet=1');
    expect(check(text)).toEqual([error('INSTALLER_ARGS_INVALID', at(text, '--append-karg'))]);
  });

  it('rejects installerArgs with a number in the list', () => {
    const text = addToNode(base, `installerArgs: '["--append-karg", 1]'`);
    expect(check(text)).toEqual([error('INSTALLER_ARGS_INVALID', at(text, 'installerArgs:', "'"))]);
    expect(load(text).issues[0]!.message).toBe('installerArgs is not a JSON array of strings');
  });
});

describe('deprecated and ignored fields', () => {
  const singularVips = swap(
    compact,
    'apiVIPs:\n        - 10.16.0.5\n      ingressVIPs:\n        - 10.16.0.6',
    'apiVIP: 10.16.0.5\n      ingressVIP: 10.16.0.6',
  );

  it('warns about the singular apiVIP and ingressVIP, and still loads the site', () => {
    const result = load(singularVips);
    expect(found(result.issues)).toEqual([
      warning('DEPRECATED_FIELD', at(singularVips, 'apiVIP:')),
      warning('DEPRECATED_FIELD', at(singularVips, 'ingressVIP:')),
    ]);
    expect(formatIssue(result.issues[0]!)).toBe(
      `${FILE}:13:7: warning DEPRECATED_FIELD: apiVIP is deprecated\n` +
        '  hint: write the plural form (apiVIPs / ingressVIPs) as a list; keep the singular form only for clusters already installed with it',
    );
    expect(result.sites).toHaveLength(1);
  });

  it('still checks a singular VIP against the machine network', () => {
    const text = swap(singularVips, 'apiVIP: 10.16.0.5', 'apiVIP: 10.99.0.5');
    expect(check(text)).toEqual([
      warning('DEPRECATED_FIELD', at(text, 'apiVIP:')),
      warning('DEPRECATED_FIELD', at(text, 'ingressVIP:')),
      error('VIP_OUTSIDE_MACHINE_NETWORK', at(text, '10.99.0.5')),
    ]);
  });

  it('accepts a singular VIP that repeats the first plural one, with a warning', () => {
    const text = addToCluster(compact, 'apiVIP: 10.16.0.5');
    expect(check(text)).toEqual([warning('DEPRECATED_FIELD', at(text, 'apiVIP:'))]);
  });

  it('rejects a singular VIP that contradicts the plural list', () => {
    const text = addToCluster(compact, 'apiVIP: 10.16.0.7');
    expect(check(text)).toEqual([
      warning('DEPRECATED_FIELD', at(text, 'apiVIP:')),
      error('VIP_CONFLICT', at(text, '10.16.0.7')),
    ]);
    expect(load(text).issues[1]!.message).toBe(
      'apiVIP "10.16.0.7" differs from the first of apiVIPs "10.16.0.5"',
    );
  });

  it('warns about cpuset on a single-node cluster, and still loads the site', () => {
    const text = addToNode(base, 'cpuset: 0-1,52-53');
    const result = load(text);
    expect(found(result.issues)).toEqual([warning('DEPRECATED_FIELD', at(text, 'cpuset:'))]);
    expect(result.issues[0]!.hint).toBe(
      'set cpuPartitioningMode: AllNodes on the cluster and a PerformanceProfile instead',
    );
    expect(result.sites).toHaveLength(1);
  });

  it('warns about extraManifestPath', () => {
    const text = addToCluster(base, 'extraManifestPath: sno-extra-manifest/');
    expect(check(text)).toEqual([warning('DEPRECATED_FIELD', at(text, 'extraManifestPath:'))]);
  });

  it('warns that extraManifestPath is ignored next to extraManifests.searchPaths', () => {
    const text = addToCluster(
      base,
      'extraManifestPath: sno-extra-manifest/',
      'extraManifests:',
      '  searchPaths:',
      '    - extra-manifests/',
    );
    expect(check(text)).toEqual([
      warning('DEPRECATED_FIELD', at(text, 'extraManifestPath:')),
      warning('IGNORED_FIELD', at(text, 'extraManifestPath:')),
    ]);
  });

  it('warns about the upstream fields no generator reads', () => {
    let text = addToCluster(
      base,
      'baseDomain: other.example.com',
      'manifestsConfig:',
      '  ntpServer: ntp.edge.example.com',
    );
    text = addToNode(text, 'hardwareProfile: dell');
    const result = load(text);
    expect(found(result.issues)).toEqual([
      warning('IGNORED_FIELD', at(text, 'baseDomain: other.example.com')),
      warning('IGNORED_FIELD', at(text, 'manifestsConfig:')),
      warning('IGNORED_FIELD', at(text, 'hardwareProfile:')),
    ]);
    expect(result.issues[0]!.hint).toBe('set baseDomain once in spec');
    expect(result.sites).toHaveLength(1);
  });
});

describe('single-node and version-specific fields', () => {
  const diskPartition = [
    'diskPartition:',
    '  - device: /dev/disk/by-path/pci-0000:01:00.0-scsi-0:2:0:0',
    '    partitions:',
    '      - mount_point: /var/imageregistry',
    '        size: 102500',
    '        start: 344844',
  ];

  it('accepts a disk partition for the image registry on a single-node cluster', () => {
    expect(check(addToNode(base, ...diskPartition))).toEqual([]);
  });

  it('warns that cpuset on a multi-node cluster is ignored, as siteconfig-generator ignores it', () => {
    const text = addToNode(compact, 'cpuset: 0-1');
    expect(check(text)).toEqual([
      warning('DEPRECATED_FIELD', at(text, 'cpuset:')),
      warning('SNO_ONLY_FIELD', at(text, 'cpuset:')),
    ]);
    expect(load(text).sites).toHaveLength(1);
  });

  it('rejects diskPartition on a multi-node cluster once, however many disks it lists', () => {
    const text = addToNode(
      compact,
      ...diskPartition,
      '  - device: /dev/sdb',
      '    partitions:',
      '      - mount_point: /var/lib/containers',
      '        size: 200000',
      '        start: 25000',
    );
    expect(check(text)).toEqual([error('SNO_ONLY_FIELD', at(text, 'diskPartition:'))]);
    expect(load(text).issues[0]!.message).toBe(
      'diskPartition is only supported on single-node clusters',
    );
  });

  it('rejects a partition that starts inside the OS, is empty, or has a relative mount point', () => {
    let text = addToNode(base, ...diskPartition);
    text = swap(text, 'start: 344844', 'start: 1000');
    text = swap(text, 'size: 102500', 'size: 0');
    text = swap(text, 'mount_point: /var/imageregistry', 'mount_point: var/imageregistry');
    expect(check(text)).toEqual([
      error('DISK_PARTITION_INVALID', at(text, 'start: 1000', '1000')),
      error('DISK_PARTITION_INVALID', at(text, 'size: 0', '0')),
      error('DISK_PARTITION_INVALID', at(text, 'var/imageregistry')),
    ]);
  });

  it('rejects an include list when extra manifests are included by default', () => {
    const text = addToCluster(
      base,
      'extraManifests:',
      '  filter:',
      '    include:',
      '      - 03-sctp-machine-config-worker.yaml',
    );
    expect(check(text)).toEqual([error('FILTER_INVALID', at(text, 'include:'))]);
    expect(load(text).issues[0]!.hint).toBe(
      'list files to drop under exclude, or set inclusionDefault: exclude',
    );
  });

  it('rejects an exclude list when extra manifests are excluded by default', () => {
    const text = addToCluster(
      base,
      'extraManifests:',
      '  filter:',
      '    inclusionDefault: exclude',
      '    exclude:',
      '      - 03-sctp-machine-config-worker.yaml',
    );
    expect(check(text)).toEqual([error('FILTER_INVALID', at(text, 'exclude:'))]);
  });

  it('warns about an empty list of the unused mode, which siteconfig-generator takes, and still loads the site', () => {
    const text = addToCluster(
      base,
      'extraManifests:',
      '  filter:',
      '    include: []',
      '    exclude:',
      '      - 03-sctp-machine-config-worker.yaml',
    );
    expect(check(text)).toEqual([warning('FILTER_INVALID', at(text, 'include:'))]);
    expect(load(text).sites).toHaveLength(1);
  });

  it('accepts a filter that lists the files to drop', () => {
    const text = addToCluster(
      base,
      'extraManifests:',
      '  filter:',
      '    exclude:',
      '      - 03-sctp-machine-config-worker.yaml',
    );
    expect(check(text)).toEqual([]);
  });

  it('warns that siteConfigMap is only generated for v2', () => {
    const text = addToCluster(
      base,
      'siteConfigMap:',
      '  name: site-data',
      '  data:',
      '    region: east',
    );
    const result = load(text);
    expect(found(result.issues)).toEqual([warning('V2_ONLY_FIELD', at(text, 'siteConfigMap:'))]);
    expect(result.sites).toHaveLength(1);
    expect(check(swap(text, 'ran.openshift.io/v1', 'ran.openshift.io/v2'))).toEqual([]);
  });
});

describe('YAML syntax', () => {
  it('reports an unclosed quote with a YAML error code and a hint, and loads nothing', () => {
    const text = swap(
      base,
      'bootMACAddress: "0C:42:A1:00:00:10"',
      'bootMACAddress: "0C:42:A1:00:00:10',
    );
    const result = load(text);
    expect(
      result.issues.map((issue) => [issue.severity, issue.code, issue.message, issue.hint]),
    ).toEqual([
      [
        'error',
        'YAML_MISSING_CHAR',
        'Missing closing "quote',
        'fix the YAML syntax at this position',
      ],
    ]);
    expect(result.sites).toEqual([]);
  });

  it('reports a tab used as indentation on its line', () => {
    const text = swap(base, '          role: master', '\trole: master');
    const issues = check(text);
    expect(issues[0]).toEqual(error('YAML_TAB_AS_INDENT', at(text, '\trole: master')));
    expect(
      issues.every((issue) => issue.severity === 'error' && issue.code.startsWith('YAML_')),
    ).toBe(true);
  });

  it('reports a key given twice at the second one', () => {
    const text = addAfter(base, 'role: master', 'role: worker');
    expect(check(text)).toEqual([error('YAML_DUPLICATE_KEY', at(text, 'role: worker'))]);
    expect(formatIssue(load(text).issues[0]!)).toBe(
      `${FILE}:23:11: error YAML_DUPLICATE_KEY: Map keys must be unique\n  hint: fix the YAML syntax at this position`,
    );
  });

  it('reports a key indented deeper than its siblings at the value it would continue', () => {
    const text = swap(base, '          bmcAddress:', '           bmcAddress:');
    expect(check(text)).toEqual([
      error('YAML_BLOCK_AS_IMPLICIT_KEY', at(text, 'role: master', 'master')),
      error('YAML_MULTILINE_IMPLICIT_KEY', at(text, 'role: master', 'master')),
    ]);
  });

  it('reports every syntax error of a file at once', () => {
    let text = addAfter(base, 'role: master', 'role: worker');
    text = addAfter(text, 'baseDomain: edge.example.com', 'baseDomain: edge.example.org');
    expect(check(text)).toEqual([
      error('YAML_DUPLICATE_KEY', at(text, 'baseDomain: edge.example.org')),
      error('YAML_DUPLICATE_KEY', at(text, 'role: worker')),
    ]);
  });

  it('still validates the other documents of a file with a syntax error', () => {
    const broken = addAfter(base, 'role: master', 'role: worker');
    const second = base
      .replaceAll('edge-1', 'edge-2')
      .replaceAll('0C:42:A1:00:00:', '0C:42:A1:00:02:')
      .replace('hostPrefix: 23', 'hostPrefix: 12');
    const text = `${broken}---\n${second}`;
    expect(check(text)).toEqual([
      error('YAML_DUPLICATE_KEY', at(text, 'role: worker')),
      error('HOST_PREFIX_INVALID', at(text, 'hostPrefix: 12', '12')),
    ]);
  });
});

describe('cross-file rules', () => {
  const west = base
    .replaceAll('site-east', 'site-west')
    .replaceAll('0C:42:A1:00:00:', '0C:42:A1:00:02:');

  it('rejects a clusterName used in another file, pointing back at the first use', () => {
    const result = loadSiteConfigs([
      { path: 'sites/east.yaml', text: base },
      { path: 'sites/west.yaml', text: west },
    ]);
    expect(result.issues.map(formatIssue)).toEqual([
      'sites/west.yaml:12:20: error CLUSTER_NAME_DUPLICATE: clusterName "edge-1" is already used at sites/east.yaml:12\n' +
        '  hint: every cluster needs its own name: it names the namespace and the hub objects',
    ]);
    expect(result.sites.map((site) => site.file)).toEqual(['sites/east.yaml']);
  });

  it('rejects a MAC already used by a host in another file, whatever its case', () => {
    const other = west
      .replaceAll('edge-1', 'edge-2')
      .replace('bootMACAddress: "0C:42:A1:00:02:10"', 'bootMACAddress: "0c:42:a1:00:00:10"')
      .replace('macAddress: "0C:42:A1:00:02:10"', 'macAddress: "0c:42:a1:00:00:10"');
    const result = loadSiteConfigs([
      { path: 'sites/east.yaml', text: base },
      { path: 'sites/west.yaml', text: other },
    ]);
    expect(found(result.issues)).toEqual([
      error('MAC_DUPLICATE', at(other, 'bootMACAddress:', '"')),
    ]);
    expect(result.issues[0]!.file).toBe('sites/west.yaml');
    expect(result.issues[0]!.message).toBe(
      'MAC 0c:42:a1:00:00:10 is also used by edge-1/edge-1-m0 (sites/east.yaml:26)',
    );
  });

  it('loads distinct sites from several files together', () => {
    const result = loadSiteConfigs([
      { path: 'sites/east.yaml', text: base },
      { path: 'sites/west.yaml', text: west.replaceAll('edge-1', 'edge-2') },
    ]);
    expect(found(result.issues)).toEqual([]);
    expect(result.sites.map((site) => site.siteConfig.metadata.name)).toEqual([
      'site-east',
      'site-west',
    ]);
  });
});

describe('reporting', () => {
  it('reports several different problems of one file at once, each with a hint', () => {
    let text = swap(compact, 'clusterName: edge-1', 'clusterName: ztp-edge-1');
    text = swap(text, '- 10.16.0.5', '- 10.99.0.5');
    text = swap(text, 'hostPrefix: 23', 'hostPrefix: 12');
    text = swap(text, 'bootMACAddress: "0C:42:A1:00:00:11"', 'bootMACAddress: "0C:42:A1:00:00:1"');
    text = swap(text, 'next-hop-interface: eno1', 'next-hop-interface: eno9');
    text = addAfter(text, 'clusterName: ztp-edge-1', 'holdInstalation: true');
    const issues = load(text).issues;
    expect(found(issues)).toEqual([
      warning('UNKNOWN_FIELD', at(text, 'holdInstalation')),
      warning('CLUSTER_NAME_RESERVED', at(text, 'ztp-edge-1')),
      error('NMSTATE_ROUTE_INTERFACE_UNKNOWN', at(text, 'eno9')),
      error('MAC_INVALID', at(text, '"0C:42:A1:00:00:1"')),
      error('HOST_PREFIX_INVALID', at(text, 'hostPrefix: 12', '12')),
      error('VIP_OUTSIDE_MACHINE_NETWORK', at(text, '10.99.0.5')),
    ]);
    expect(issues.every((issue) => issue.file === FILE && issue.hint !== undefined)).toBe(true);
    expect(load(text).sites).toEqual([]);
  });

  it('keeps checking the other clusters when one is structurally broken', () => {
    // holdInstallation is broken; the VIP rules do not read it, so they still run on cluster 0.
    let text = swap(compact, '- 10.16.0.5', '- 10.99.0.5');
    text = addToCluster(text, 'holdInstallation: "yes"');
    text += anotherCluster('edge-2').replace('hostPrefix: 23', 'hostPrefix: 12');
    expect(check(text)).toEqual([
      error('INVALID_TYPE', at(text, '"yes"')),
      error('VIP_OUTSIDE_MACHINE_NETWORK', at(text, '10.99.0.5')),
      error('HOST_PREFIX_INVALID', at(text, 'hostPrefix: 12', '12')),
    ]);
  });

  it('still checks the name of a structurally broken cluster for uniqueness', () => {
    const text = addToCluster(base, 'holdInstallation: "yes"') + anotherCluster('edge-1');
    expect(check(text)).toEqual([
      error('INVALID_TYPE', at(text, '"yes"')),
      error('CLUSTER_NAME_DUPLICATE', at(text, 'clusterName: edge-1', 'edge-1', 2)),
    ]);
  });

  it('reports an empty cluster entry and checks the clusters after it', () => {
    const text =
      swap(base, '  clusters:\n', '  clusters:\n    - # to do\n') +
      anotherCluster('edge-2').replace('hostPrefix: 23', 'hostPrefix: 12');
    expect(check(text)).toEqual([
      error('INVALID_TYPE', at(text, '- # to do', '-')),
      error('HOST_PREFIX_INVALID', at(text, 'hostPrefix: 12', '12')),
    ]);
    expect(load(text).issues[0]!.message).toBe('"spec.clusters.0" must be a map, not null');
  });
});

describe('missing fields do not hide other problems', () => {
  it('still checks the clusters of a SiteConfig without metadata', () => {
    const text = snoSite({
      cluster: '      clusterNetwork:\n        - cidr: 10.128.0.0/33\n',
    }).replace(/metadata:\n {2}name: site-sno1\n/, '');
    const codes = loadText(text)
      .issues.map((i) => i.code)
      .sort();
    expect(codes).toEqual(['CIDR_INVALID', 'MISSING_FIELD']);
  });

  it('reports a cluster without nodes and still checks its sibling cluster', () => {
    const base = snoSite({ cluster: '      clusterNetwork:\n        - cidr: 10.128.0.0/33\n' });
    const text = base.replace('  clusters:\n', '  clusters:\n    - clusterName: empty-one\n');
    const codes = loadText(text)
      .issues.map((i) => i.code)
      .sort();
    expect(codes).toEqual(['CIDR_INVALID', 'MISSING_FIELD']);
  });
});

describe('a structural error skips only the checks that read it', () => {
  // A newcomer's compact cluster with six mistakes: one the schema finds (a misspelt boot mode)
  // and five that only the cluster rules find. All six arrive in one run.
  let text = swap(compact, 'hostName: edge-1-m0', 'hostName: Edge_1-m0');
  text = addAfter(text, 'hostName: Edge_1-m0', 'bootMode: UEFISecure');
  text = swap(text, '  - 10.16.0.5', '  - 10.16.0.11');
  text = swap(text, '  - 10.16.0.6', '  - 10.99.0.6');
  text = swap(text, '        - 172.30.0.0/16', '        - 10.16.0.0/16');
  text = swap(text, 'macAddress: "0C:42:A1:00:00:12"', 'macAddress: "0C:42:A1:00:00:1Z"');

  it('reports the enum error and every network, VIP, MAC and host-name error of the cluster at once', () => {
    expect(check(text)).toEqual([
      error('INVALID_VALUE', at(text, 'bootMode: UEFISecure', 'UEFISecure')),
      error('HOSTNAME_INVALID', at(text, 'hostName: Edge_1-m0', 'Edge_1-m0')),
      error('MAC_INVALID', at(text, '0C:42:A1:00:00:1Z', '"0C:42')),
      error('NETWORK_OVERLAP', at(text, '- 10.16.0.0/16', '10.16.0.0/16')),
      error('VIP_IS_NODE_IP', at(text, '- 10.16.0.11', '10.16.0.11')),
      error('VIP_OUTSIDE_MACHINE_NETWORK', at(text, '- 10.99.0.6', '10.99.0.6')),
    ]);
  });

  it('still refuses to compile a site with only the structural error', () => {
    const only = addAfter(compact, 'hostName: edge-1-m0', 'bootMode: UEFISecure');
    const result = load(only);
    expect(found(result.issues).map((i) => i.code)).toEqual(['INVALID_VALUE']);
    expect(result.sites).toEqual([]);
  });

  it('skips the topology rules when a node role is broken, and still checks the VIPs', () => {
    const broken = swap(
      swap(
        compact,
        'role: master\n          bmcAddress: redfish-virtualmedia+https://10.16.1.11/',
        'role: Master\n          bmcAddress: redfish-virtualmedia+https://10.16.1.11/',
      ),
      '  - 10.16.0.6',
      '  - 10.99.0.6',
    );
    // With the role misspelt the cluster would count 2 control-plane nodes: no TOPOLOGY_INVALID.
    expect(check(broken).map((i) => i.code)).toEqual([
      'INVALID_VALUE',
      'VIP_OUTSIDE_MACHINE_NETWORK',
    ]);
  });
});
