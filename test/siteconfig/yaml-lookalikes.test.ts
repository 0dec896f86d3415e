/**
 * YAML 1.1 look-alikes: `env: yes` is the text "yes" to SiteForge (YAML 1.2) but the boolean true
 * to kubectl, Argo CD and the API server (YAML 1.1). In a ClusterInstance, which Kubernetes
 * reads itself, that is an error; in a SiteConfig, a warning. Each points at file:line:column.
 */
import { describe, expect, it } from 'vitest';
import type { InputIssue } from '../../src/shared/errors.js';
import { loadSiteConfigs } from '../../src/siteconfig/index.js';
import { clusterInstanceExampleFiles, snoClusterInstance } from '../support/cluster-instances.js';
import { exampleFiles, snoSite } from '../support/sites.js';

const FILE = 'sites/ci-1.yaml';

/** Where a message must point: the only line containing `line`, at the first `value` in it. */
function at(text: string, line: string, value: string): { line: number; column: number } {
  const rows = text.split('\n');
  const hits = rows.flatMap((row, i) => (row.includes(line) ? [i] : []));
  if (hits.length !== 1)
    throw new Error(`expected one line with ${JSON.stringify(line)}, found ${String(hits.length)}`);
  const column = rows[hits[0]!]!.indexOf(value);
  if (column < 0) throw new Error(`${value} is not on the line with ${line}`);
  return { line: hits[0]! + 1, column: column + 1 };
}

function lookalikes(issues: readonly InputIssue[]): InputIssue[] {
  return issues.filter((issue) => issue.code === 'YAML11_LOOKALIKE');
}

const ciLabels = snoClusterInstance({
  cluster: '  extraLabels:\n    ManagedCluster:\n      env: yes\n      on: edge\n',
  node: '      nodeLabels:\n        node-role.kubernetes.io/du: on\n',
});

describe('YAML 1.1 look-alikes in a ClusterInstance', () => {
  it('refuses extraLabels env: yes and nodeLabels on, at their line and column', () => {
    const result = loadSiteConfigs([{ path: FILE, text: ciLabels }]);
    const found = lookalikes(result.issues);
    expect(
      found.map(({ severity, line, column, path }) => ({ severity, line, column, path })),
    ).toEqual([
      {
        severity: 'error',
        ...at(ciLabels, 'env: yes', 'yes'),
        path: '/spec/extraLabels/ManagedCluster/env',
      },
      {
        severity: 'error',
        ...at(ciLabels, 'on: edge', 'on'),
        path: '/spec/extraLabels/ManagedCluster/on',
      },
      {
        severity: 'error',
        ...at(ciLabels, 'du: on', 'on'),
        path: '/spec/nodes/0/nodeLabels/node-role.kubernetes.io/du',
      },
    ]);
    expect(found[0]).toMatchObject({
      message:
        "value yes is a string here but Kubernetes' YAML readers (YAML 1.1) read it as a boolean true",
      hint: 'quote it: "yes"',
    });
    expect(found[1]!.message).toMatch(/^key on is a string here .* a boolean true$/);
    expect(result.clusterInstances).toEqual([]);
  });

  it('reports the same places when the file leaves the fast reader (flow maps)', () => {
    const flow = snoClusterInstance({
      cluster: '  extraLabels: {ManagedCluster: {env: yes}}\n',
      node: '      nodeLabels: {tier: Off}\n',
    });
    const found = lookalikes(loadSiteConfigs([{ path: FILE, text: flow }]).issues);
    expect(found.map(({ line, column, message }) => ({ line, column, message }))).toEqual([
      {
        ...at(flow, 'env: yes', 'yes'),
        message: expect.stringContaining('a boolean true') as unknown,
      },
      {
        ...at(flow, 'tier: Off', 'Off'),
        message: expect.stringContaining('a boolean false') as unknown,
      },
    ]);
  });

  it('names a number where Go reads one: 1_000 in an annotation', () => {
    const text = snoClusterInstance({
      cluster: '  extraAnnotations:\n    BareMetalHost:\n      example.com/rack: 1_000\n',
    });
    const found = lookalikes(loadSiteConfigs([{ path: FILE, text }]).issues);
    expect(
      found.map(({ line, column, message, hint }) => ({ line, column, message, hint })),
    ).toEqual([
      {
        ...at(text, 'rack: 1_000', '1_000'),
        message:
          "value 1_000 is a string here but Kubernetes' YAML readers (YAML 1.1) read it as an integer",
        hint: 'quote it: "1_000"',
      },
    ]);
  });

  it('is silent for quoted values and keys, and for numbers and booleans written as such', () => {
    const quoted = snoClusterInstance({
      cluster: `  holdInstallation: true\n  extraLabels:\n    ManagedCluster:\n      env: "yes"\n      'on': edge\n`,
      node: "      nodeLabels:\n        node-role.kubernetes.io/du: 'on'\n",
    });
    const result = loadSiteConfigs([{ path: FILE, text: quoted }]);
    expect(result.issues.filter((issue) => issue.severity !== 'note')).toEqual([]);
    expect(result.clusterInstances).toHaveLength(1);
  });
});

describe('YAML 1.1 look-alikes in a SiteConfig', () => {
  it('warns about clusterLabels env: yes at its line and column, and still loads the site', () => {
    const text = snoSite({ cluster: '      clusterLabels:\n        env: yes\n' });
    const result = loadSiteConfigs([{ path: 'site.yaml', text }]);
    expect(
      lookalikes(result.issues).map(({ severity, line, column }) => ({ severity, line, column })),
    ).toEqual([{ severity: 'warning', ...at(text, 'env: yes', 'yes') }]);
    expect(result.sites).toHaveLength(1);
  });

  it('is silent for a quoted value', () => {
    const text = snoSite({ cluster: '      clusterLabels:\n        env: "yes"\n' });
    expect(lookalikes(loadSiteConfigs([{ path: 'site.yaml', text }]).issues)).toEqual([]);
  });
});

describe('the examples', () => {
  it('have no YAML 1.1 look-alikes', () => {
    const files = [...exampleFiles(), ...clusterInstanceExampleFiles()];
    expect(lookalikes(loadSiteConfigs(files).issues)).toEqual([]);
  });
});
