/**
 * Where `siteforge apply` and `check` report a problem the hub finds with an object: the entry
 * of the SiteConfig that chose what the hub objects to.
 */
import { describe, expect, it } from 'vitest';
import { renderFleet, SourceLocator } from '../../src/plugins/render-fleet.js';
import { filesFromMap } from '../../src/siteconfig/index.js';
import { snoSite } from '../support/sites.js';

const FILE = 'sites/sno1.yaml';

/** The 1-based line and column each object of `text` is reported at, by kind and name. */
function sourcesOf(text: string, files: Record<string, string> = {}): Map<string, string> {
  const { clusters, issues } = renderFleet([{ path: FILE, text }], {
    withObjects: true,
    files: filesFromMap(files),
  });
  expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
  const locator = new SourceLocator([{ path: FILE, text }]);
  return new Map(
    (clusters[0]?.objects ?? []).map(({ manifest, source }) => {
      const { line, column } = locator.locate(source);
      return [`${manifest.kind} ${manifest.metadata.name}`, `${String(line)}:${String(column)}`];
    }),
  );
}

/** `line:column` of `value` on the only line of `text` that contains `line`. */
function at(text: string, line: string, value: string = line): string {
  const rows = text.split('\n');
  const index = rows.findIndex((row) => row.includes(line));
  expect(rows.filter((row) => row.includes(line))).toHaveLength(1);
  return `${String(index + 1)}:${String(rows[index]!.indexOf(value) + 1)}`;
}

describe('the source of each object, for problems the hub finds', () => {
  it('puts an ExternalSecret at its apiVersion line, or at its externalSecret key', () => {
    const text = snoSite({
      node: [
        '          bmcCredentials:',
        '            externalSecret:',
        '              storeRef:',
        '                name: vault',
        '              key: edge/sno1/bmc',
        '              apiVersion: external-secrets.io/v1beta1',
        '',
      ].join('\n'),
    })
      .replace('          bmcCredentialsName:\n            name: sno1-bmc\n', '')
      .replace(
        '  sshPublicKey:',
        '  pullSecret:\n    externalSecret:\n      storeRef:\n        name: vault\n      key: edge/pull\n  sshPublicKey:',
      );
    const sources = sourcesOf(text);
    expect(sources.get('ExternalSecret sno1-node-bmc-secret')).toBe(
      at(text, 'apiVersion: external-secrets.io/v1beta1', 'apiVersion'),
    );
    // The key on the line below pullSecret, four spaces in.
    const pullSecretLine = Number(at(text, '  pullSecret:').split(':')[0]);
    expect(sources.get('ExternalSecret pull-secret')).toBe(`${String(pullSecretLine + 1)}:5`);
  });

  it('puts an object a crTemplate wrote at that crTemplates entry', () => {
    const template = [
      'apiVersion: agent.open-cluster-management.io/v2',
      'kind: KlusterletAddonConfig',
      'metadata:',
      '  name: sno1',
      '  namespace: sno1',
      '  annotations:',
      '    argocd.argoproj.io/sync-wave: "2"',
      'spec: {}',
      '',
    ].join('\n');
    const text = snoSite({
      cluster: '      crTemplates:\n        KlusterletAddonConfig: kac.yaml\n',
    });
    const sources = sourcesOf(text, { 'sites/kac.yaml': template });
    expect(sources.get('KlusterletAddonConfig sno1')).toBe(
      at(text, 'KlusterletAddonConfig: kac.yaml', 'kac.yaml'),
    );
    expect(sources.get('ManagedCluster sno1')).toBe(at(text, '- clusterName: sno1', 'clusterName'));
  });
});
