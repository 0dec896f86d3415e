import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ObjectRef } from '../../src/kube/index.js';
import { hubClient, hubKubeconfig, siteforgeAsync, waitUntil } from '../support/hub.js';
import { snoSite } from '../support/sites.js';

const dir = mkdtempSync(join(tmpdir(), 'siteforge-check-'));

/** Writes a site file; returns its path and the line of `text` in it (1-based). */
function siteFile(name: string, text: string): { path: string; lineOf: (s: string) => number } {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, text);
  const lines = text.split('\n');
  return { path, lineOf: (s) => lines.findIndex((l) => l.includes(s)) + 1 };
}

const namespaceRef = (name: string): ObjectRef => ({ apiVersion: 'v1', kind: 'Namespace', name });

/** Deletes what a test applied, namespace first (it cascades), then the ManagedCluster. */
async function cleanUp(cluster: string): Promise<void> {
  const client = hubClient();
  await client.delete(namespaceRef(cluster));
  await client.delete({
    apiVersion: 'cluster.open-cluster-management.io/v1',
    kind: 'ManagedCluster',
    name: cluster,
  });
  await waitUntil(
    `namespace ${cluster} gone`,
    async () => !(await client.get(namespaceRef(cluster))),
    90_000,
  );
}

// Our validator checks the annotations a SiteConfig writes (crAnnotations), not the size of the
// ones SiteForge generates from other fields: an install-config override past 256 KiB becomes an
// AgentClusterInstall annotation the API server refuses.
const hugeOverride = `'{"additionalTrustBundle": "${'x'.repeat(270_000)}"}'`;
const rejected = siteFile(
  'rejected',
  snoSite({ name: 'rej-1', cluster: `      installConfigOverrides: ${hugeOverride}\n` }),
);

afterAll(() => Promise.all([cleanUp('rej-1'), cleanUp('conflict-1')]), 120_000);

describe('siteforge check', () => {
  it('reports a value the CRD schema rejects at the FILE:LINE of its cluster, and exits 1', async () => {
    const validated = await siteforgeAsync(['validate', rejected.path]);
    expect(validated.status, 'our own validation accepts it').toBe(0);

    const { status, stderr } = await siteforgeAsync([
      'check',
      rejected.path,
      '--kubeconfig',
      hubKubeconfig(),
    ]);
    expect(stderr).toBe(
      `${rejected.path}:${String(rejected.lineOf('- clusterName: rej-1'))}:7: error KUBE_INVALID: wave 1 AgentClusterInstall rej-1/rej-1 rejected by the hub (422 Invalid): metadata.annotations: Too long: may not be more than 262144 bytes\n` +
        "  hint: the hub's schema for this kind (crds/) rejects the generated value; change the SiteConfig entry that produces it\n" +
        'siteforge: the hub rejected 1 of 8 object(s)\n',
    );
    expect(status).toBe(1);
    expect(await hubClient().get(namespaceRef('rej-1')), 'check creates nothing').toBeUndefined();
  });

  it('exits 3 with one clear line when the hub does not answer', async () => {
    const port = await closedPort();
    const kubeconfig = join(dir, 'closed.kubeconfig');
    writeFileSync(
      kubeconfig,
      readFileSync(hubKubeconfig(), 'utf8').replace(
        /server: .*/,
        `server: https://127.0.0.1:${String(port)}`,
      ),
    );
    const { status, stderr } = await siteforgeAsync([
      'check',
      'examples/sites',
      '--kubeconfig',
      kubeconfig,
    ]);
    expect(stderr).toBe(
      `siteforge: cannot reach the API server at https://127.0.0.1:${String(port)}: ECONNREFUSED\n`,
    );
    expect(status).toBe(3);
  });

  it('exits 3 with one clear line when the hub refuses the credentials, in check and rollout alike', async () => {
    const kubeconfig = join(dir, 'refused.kubeconfig');
    writeFileSync(
      kubeconfig,
      readFileSync(hubKubeconfig(), 'utf8')
        .replace(/ {4}client-key-data: .*\n/, '')
        .replace(/client-certificate-data: .*/, 'token: not-a-token-this-hub-knows'),
    );
    for (const command of [
      ['check', 'examples/sites'],
      ['rollout', 'status', 'r1'],
    ]) {
      const { status, stderr } = await siteforgeAsync([...command, '--kubeconfig', kubeconfig]);
      expect([command.join(' '), status]).toEqual([command.join(' '), 3]);
      expect(stderr).toMatch(
        /^siteforge: the hub does not accept the kubeconfig's credentials: .+\n$/,
      );
      expect(stderr).not.toContain('not-a-token');
    }
  });

  it('exits 3 when the kubeconfig does not exist', async () => {
    const missing = join(dir, 'missing.kubeconfig');
    const { status, stderr } = await siteforgeAsync([
      'check',
      'examples/sites',
      '--kubeconfig',
      missing,
    ]);
    expect(stderr).toBe(`siteforge: cannot read ${missing}: no such file\n`);
    expect(status).toBe(3);
  });

  /** A single-node site whose BMC credentials come from an ExternalSecret. */
  const externalSecretSite = (name: string, extra = ''): ReturnType<typeof siteFile> =>
    siteFile(
      name,
      snoSite({
        name: 'ext-1',
        node: `          bmcCredentials:\n            externalSecret:\n              storeRef:\n                name: vault\n              key: edge/ext-1/bmc\n${extra}`,
      }).replace('          bmcCredentialsName:\n            name: ext-1-bmc\n', ''),
    );

  it('passes an ExternalSecret in external-secrets.io/v1, the default', async () => {
    const site = externalSecretSite('external-v1');
    const generated = await siteforgeAsync(['generate', site.path]);
    expect(generated.stdout).toContain(
      'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\n',
    );
    const { status, stderr } = await siteforgeAsync([
      'check',
      site.path,
      '--kubeconfig',
      hubKubeconfig(),
    ]);
    expect(stderr).toMatch(/^siteforge: the hub accepts all 9 object\(s\) of 1 cluster\(s\)/);
    expect(status).toBe(0);
  });

  it('reports a v1beta1 ExternalSecret, which current operators no longer serve, at its apiVersion line', async () => {
    // The hub's CRD lists v1beta1 as not served, as External Secrets 0.17.0 and later do.
    const site = externalSecretSite(
      'external-v1beta1',
      '              apiVersion: external-secrets.io/v1beta1\n',
    );
    const validated = await siteforgeAsync(['validate', site.path]);
    expect(validated.status, 'our own validation accepts it').toBe(0);
    const { status, stderr } = await siteforgeAsync([
      'check',
      site.path,
      '--kubeconfig',
      hubKubeconfig(),
    ]);
    expect(stderr).toBe(
      `${site.path}:${String(site.lineOf('apiVersion: external-secrets.io/v1beta1'))}:15: error KUBE_KIND_UNKNOWN: wave 1 ExternalSecret ext-1/ext-1-node-bmc-secret rejected by the hub (404 NotFound): the hub does not serve ExternalSecret in external-secrets.io/v1beta1\n` +
        '  hint: External Secrets Operator 0.17.0 and later serve only external-secrets.io/v1: drop externalSecret.apiVersion (v1 is the default), or keep v1beta1 only with an operator before 0.17\n' +
        'siteforge: the hub rejected 1 of 9 object(s)\n',
    );
    expect(status).toBe(1);
  });

  it('names the kind and apiVersion the hub does not serve, at the crTemplates entry that wrote it', async () => {
    // A KlusterletAddonConfig template written for an API no hub serves (no CRD provides v2).
    writeFileSync(
      join(dir, 'kac-v2.yaml'),
      [
        'apiVersion: agent.open-cluster-management.io/v2',
        'kind: KlusterletAddonConfig',
        'metadata:',
        '  name: tpl-1',
        '  namespace: tpl-1',
        '  annotations:',
        '    argocd.argoproj.io/sync-wave: "2"',
        'spec: {}',
        '',
      ].join('\n'),
    );
    const site = siteFile(
      'templated',
      snoSite({
        name: 'tpl-1',
        cluster: '      crTemplates:\n        KlusterletAddonConfig: kac-v2.yaml\n',
      }),
    );
    const { status, stderr } = await siteforgeAsync([
      'check',
      site.path,
      '--kubeconfig',
      hubKubeconfig(),
    ]);
    expect(stderr).toBe(
      `${site.path}:${String(site.lineOf('KlusterletAddonConfig: kac-v2.yaml'))}:32: error KUBE_KIND_UNKNOWN: wave 2 KlusterletAddonConfig tpl-1/tpl-1 rejected by the hub (404 NotFound): the hub does not serve KlusterletAddonConfig in agent.open-cluster-management.io/v2\n` +
        '  hint: install Red Hat Advanced Cluster Management on the hub, in a release that serves agent.open-cluster-management.io/v2\n' +
        'siteforge: the hub rejected 1 of 8 object(s)\n',
    );
    expect(status).toBe(1);
  });

  it('is always a dry run, so --dry-run is a usage error', async () => {
    const { status } = await siteforgeAsync(['check', 'examples/sites', '--dry-run=server']);
    expect(status).toBe(2);
  });
});

describe('siteforge apply', () => {
  it('stops before the waves after a rejected one and names them', async () => {
    const { status, stderr } = await siteforgeAsync([
      'apply',
      rejected.path,
      '--kubeconfig',
      hubKubeconfig(),
    ]);
    expect(status).toBe(1);
    expect(stderr).toMatch(/^wave 0 created Namespace rej-1\n/);
    expect(stderr).toMatch(/error KUBE_INVALID: wave 1 AgentClusterInstall rej-1\/rej-1 rejected/);
    expect(stderr).toMatch(
      /siteforge: the hub rejected 1 of 8 object\(s\); wave\(s\) 2, 3 not applied\n$/,
    );
    const managedCluster = await hubClient().get({
      apiVersion: 'cluster.open-cluster-management.io/v1',
      kind: 'ManagedCluster',
      name: 'rej-1',
    });
    expect(managedCluster, 'wave 2 was not applied').toBeUndefined();
  });

  it("reports fields another manager took over as a conflict at the node's FILE:LINE", async () => {
    const site = siteFile('conflict', snoSite({ name: 'conflict-1' }));
    const args = ['apply', site.path, '--kubeconfig', hubKubeconfig()];
    expect((await siteforgeAsync(args)).status).toBe(0);

    // Someone powers the host off by hand, taking ownership of spec.online.
    await hubClient().apply(
      {
        apiVersion: 'metal3.io/v1alpha1',
        kind: 'BareMetalHost',
        metadata: { name: 'conflict-1-node', namespace: 'conflict-1' },
        spec: { online: false },
      },
      { fieldManager: 'someone-else', force: true },
    );

    const { status, stderr } = await siteforgeAsync(args);
    expect(stderr).toContain(
      `${site.path}:${String(site.lineOf('- hostName: conflict-1-node'))}:11: error KUBE_CONFLICT: wave 3 BareMetalHost conflict-1/conflict-1-node rejected by the hub (409 Conflict): .spec.online: conflict with "someone-else"`,
    );
    expect(stderr).toContain('siteforge never forces');
    expect(status).toBe(1);
  });
});

/** A loopback port with nothing listening (just released by the kernel). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
