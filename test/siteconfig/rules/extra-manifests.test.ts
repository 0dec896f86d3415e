import { describe, it } from 'vitest';
import type { SiteFiles } from '../../../src/siteconfig/index.js';
import { DEPRECATED_FIELD, IGNORED_FIELD } from '../../../src/siteconfig/rules/cluster.js';
import {
  EXTRA_MANIFEST_CLASH,
  EXTRA_MANIFEST_DIR_EMPTY,
  EXTRA_MANIFEST_EMPTY,
  EXTRA_MANIFEST_FIELD_UNUSED,
  EXTRA_MANIFEST_INVALID,
  EXTRA_MANIFEST_NOT_FOUND,
  EXTRA_MANIFEST_SET_IGNORED,
  EXTRA_MANIFEST_SET_UNKNOWN,
  EXTRA_MANIFEST_TOO_LARGE,
  EXTRA_MANIFEST_UNREADABLE,
  FILTER_EMPTY_LIST_UNUSED,
  FILTER_INVALID,
  FILTER_UNKNOWN_FILE,
  MACHINE_CONFIG_MERGE_CONFLICT,
  MACHINE_CONFIG_NOT_MERGED,
  TEMPLATE_EXECUTION_FAILED,
  TEMPLATE_INVALID,
  TEMPLATE_OUTPUT_INVALID,
  WORKLOAD_PARTITIONING_INVALID,
  WORKLOAD_PARTITIONING_UNAVAILABLE,
} from '../../../src/siteconfig/rules/extra-manifests.js';
import { expectRule, folderFiles, withExtraManifests } from '../../support/rule-cases.js';
import { repoRoot, snoSite } from '../../support/sites.js';

const filter = (lines: string): string => `      extraManifests:\n        filter:\n${lines}`;
/** The site with extraManifests.searchPaths and `extra` cluster lines. */
const searching = (paths: string[], extra = ''): string =>
  snoSite({
    cluster: `      extraManifests:\n        searchPaths: [${paths.join(', ')}]\n${extra}`,
  });
const ns = (name: string): string =>
  `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`;
const MC = (name: string, file: string, source: string): string =>
  `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: ${name}
  labels:
    machineconfiguration.openshift.io/role: master
spec:
  config:
    ignition:
      version: 3.2.0
    storage:
      files:
        - path: ${file}
          contents:
            source: ${source}
`;

describe('extra-manifest rules checked with the SiteConfig', () => {
  it('refuses entries in the include list of the include mode', () => {
    expectRule(
      FILTER_INVALID,
      snoSite({ cluster: filter('          include:\n            - a.yaml\n') }),
      snoSite({ cluster: filter('          exclude:\n            - a.yaml\n') }),
    );
  });

  it('warns about an empty list of the mode not used', () => {
    expectRule(
      FILTER_EMPTY_LIST_UNUSED,
      snoSite({ cluster: filter('          include: []\n') }),
      snoSite({ cluster: filter('          exclude: []\n') }),
    );
  });

  it('warns that extraManifestPath is deprecated, and ignored beside searchPaths', () => {
    const path = '      extraManifestPath: sno-extra\n';
    const searchPaths = '      extraManifests:\n        searchPaths:\n          - sno-extra/\n';
    expectRule(
      DEPRECATED_FIELD,
      snoSite({ cluster: path }),
      snoSite(),
      '/spec/clusters/0/extraManifestPath',
    );
    expectRule(
      IGNORED_FIELD,
      snoSite({ cluster: path + searchPaths }),
      snoSite({ cluster: path }),
      '/spec/clusters/0/extraManifestPath',
    );
  });
});

describe('extra-manifest rules checked with the manifest files', () => {
  it('refuses a filter entry that names no extra manifest', () => {
    const exclude = (name: string): string =>
      snoSite({ cluster: filter(`          exclude:\n            - ${name}\n`) });
    expectRule(
      FILTER_UNKNOWN_FILE,
      withExtraManifests(exclude('nosuch.yaml')),
      withExtraManifests(exclude('06-kdump-master.yaml')),
    );
  });

  it('refuses a search path that is not there', () => {
    expectRule(
      EXTRA_MANIFEST_NOT_FOUND,
      withExtraManifests(searching(['m'])),
      withExtraManifests(searching(['m']), { 'm/a.yaml': ns('a') }),
    );
  });

  it('refuses a listed file that cannot be read', () => {
    const listed = (readable: boolean): SiteFiles => ({
      readText: (path) => (readable && path === 'sites/m/a.yaml' ? ns('a') : undefined),
      listDir: (path) =>
        path === 'sites/m' ? [{ name: 'a.yaml', isDirectory: false }] : undefined,
    });
    expectRule(
      EXTRA_MANIFEST_UNREADABLE,
      withExtraManifests(searching(['m']), listed(false)),
      withExtraManifests(searching(['m']), listed(true)),
    );
  });

  it('refuses a manifest that is no Kubernetes object', () => {
    expectRule(
      EXTRA_MANIFEST_INVALID,
      withExtraManifests(searching(['m']), { 'm/a.yaml': '- a\n' }),
      withExtraManifests(searching(['m']), { 'm/a.yaml': ns('a') }),
    );
  });

  it('refuses a template that does not parse', () => {
    expectRule(
      TEMPLATE_INVALID,
      withExtraManifests(searching(['m']), { 'm/t.yaml.tmpl': '{{ if .Role }}\n' }),
      withExtraManifests(searching(['m']), { 'm/t.yaml.tmpl': ns('{{ .Role }}-t') }),
    );
  });

  it('refuses a template that fails while it runs', () => {
    expectRule(
      TEMPLATE_EXECUTION_FAILED,
      withExtraManifests(searching(['m']), { 'm/t.yaml.tmpl': '{{ .Data.ClusterName.Field }}\n' }),
      withExtraManifests(searching(['m']), { 'm/t.yaml.tmpl': ns('{{ .Role }}-t') }),
    );
  });

  it('refuses a template whose output is no YAML', () => {
    expectRule(
      TEMPLATE_OUTPUT_INVALID,
      withExtraManifests(searching(['m']), { 'm/t.yaml.tmpl': 'a: [{{ .Role }}\n' }),
      withExtraManifests(searching(['m']), { 'm/t.yaml.tmpl': ns('{{ .Role }}-t') }),
    );
  });

  it('refuses a user file named like a predefined one', () => {
    const path = snoSite({ cluster: '      extraManifestPath: m\n' });
    expectRule(
      EXTRA_MANIFEST_CLASH,
      withExtraManifests(path, { 'm/06-kdump-master.yaml': ns('mine') }),
      withExtraManifests(path, { 'm/10-mine.yaml': ns('mine') }),
    );
  });

  it('refuses an unknown default set', () => {
    const set = (name: string): string =>
      snoSite({ cluster: `      extraManifests:\n        defaultSet: ${name}\n` });
    expectRule(
      EXTRA_MANIFEST_SET_UNKNOWN,
      withExtraManifests(set('du-profile')),
      withExtraManifests(set('none')),
    );
  });

  it('warns that a default set is ignored beside search paths', () => {
    expectRule(
      EXTRA_MANIFEST_SET_IGNORED,
      withExtraManifests(searching(['m'], '        defaultSet: none\n'), { 'm/a.yaml': ns('a') }),
      withExtraManifests(searching(['m']), { 'm/a.yaml': ns('a') }),
    );
  });

  it('warns about a search path without manifests', () => {
    const folders = (paths: string[]): SiteFiles => ({
      readText: (path) => (path === 'sites/m/a.yaml' ? ns('a') : undefined),
      listDir: (path) =>
        path === 'sites/m'
          ? [{ name: 'a.yaml', isDirectory: false }]
          : paths.includes(path)
            ? []
            : undefined,
    });
    expectRule(
      EXTRA_MANIFEST_DIR_EMPTY,
      withExtraManifests(searching(['m', 'e']), folders(['sites/e'])),
      withExtraManifests(searching(['m']), folders([])),
    );
  });

  it('warns about an empty manifest', () => {
    expectRule(
      EXTRA_MANIFEST_EMPTY,
      withExtraManifests(searching(['m']), { 'm/a.yaml': ns('a'), 'm/b.yaml': '' }),
      withExtraManifests(searching(['m']), { 'm/a.yaml': ns('a') }),
    );
  });

  it('warns about diskEncryption when no extra manifest is rendered from it', () => {
    const encrypted = (paths: string[]): string =>
      snoSite({
        cluster: `      diskEncryption:\n        type: tpm2\n      extraManifests:\n        searchPaths: [${paths.join(', ')}]\n`,
      });
    const template = folderFiles(`${repoRoot}/extra-manifests/default`, 'd');
    expectRule(
      EXTRA_MANIFEST_FIELD_UNUSED,
      withExtraManifests(encrypted(['m']), { 'm/a.yaml': ns('a') }),
      withExtraManifests(encrypted(['d']), template),
    );
  });

  it('warns that cpuset has no effect without a workload folder, and refuses an incomplete one', () => {
    const cpuset = (paths: string[]): string =>
      snoSite({
        cluster: `      extraManifests:\n        searchPaths: [${paths.join(', ')}]\n`,
        node: '          cpuset: "2-3"\n',
      });
    const workload = folderFiles(`${repoRoot}/extra-manifests/default/workload`, 'w/workload');
    const partial = { ...workload };
    delete partial['w/workload/kubelet.conf'];
    expectRule(
      WORKLOAD_PARTITIONING_UNAVAILABLE,
      withExtraManifests(cpuset(['m']), { 'm/a.yaml': ns('a') }),
      withExtraManifests(cpuset(['w']), workload),
    );
    expectRule(
      WORKLOAD_PARTITIONING_INVALID,
      withExtraManifests(cpuset(['w']), partial),
      withExtraManifests(cpuset(['w']), workload),
    );
  });

  it('warns about merged MachineConfigs that set one file differently, or cannot be merged', () => {
    const merged = searching(['m'], '').replace(
      '      extraManifests:',
      '      mergeDefaultMachineConfigs: true\n      extraManifests:',
    );
    const same = {
      'm/a.yaml': MC('a', '/etc/a', 'data:,a'),
      'm/b.yaml': MC('b', '/etc/b', 'data:,b'),
    };
    expectRule(
      MACHINE_CONFIG_MERGE_CONFLICT,
      withExtraManifests(merged, { ...same, 'm/b.yaml': MC('b', '/etc/a', 'data:,b') }),
      withExtraManifests(merged, same),
    );
    expectRule(
      MACHINE_CONFIG_NOT_MERGED,
      withExtraManifests(merged, {
        ...same,
        'm/b.yaml': MC('b', '/etc/b', 'data:,b').replace('3.2.0', '3.4.0'),
      }),
      withExtraManifests(merged, same),
    );
  });

  it('refuses a manifest no ConfigMap can hold', () => {
    const big = `${ns('big')}  annotations:\n    a: ${'x'.repeat(1024 * 1024)}\n`;
    expectRule(
      EXTRA_MANIFEST_TOO_LARGE,
      withExtraManifests(searching(['m']), { 'm/a.yaml': big }),
      withExtraManifests(searching(['m']), { 'm/a.yaml': ns('a') }),
    );
  });
});
