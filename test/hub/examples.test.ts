import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/kube/index.js';
import { hubClient, hubKubeconfig, siteforgeAsync, waitUntil } from '../support/hub.js';

/**
 * Every output format of `siteforge generate`, as the extra arguments that select it. A new
 * format is one more line here; every example is then checked and applied in it too.
 */
const OUTPUT_FORMATS: readonly {
  readonly name: string;
  readonly args: readonly string[];
  /** Lines `siteforge apply` must print among others, in wave order. */
  readonly applied: readonly string[];
}[] = [
  {
    name: 'the CR set',
    args: [],
    applied: [
      'wave 0 created Namespace du-sno-1',
      'wave 1 created AgentClusterInstall du-sno-1/du-sno-1',
    ],
  },
  {
    name: 'ClusterInstances',
    args: ['--format', 'clusterinstance'],
    applied: [
      'wave 0 created Namespace du-sno-1',
      'wave 2 created ClusterInstance du-sno-1/du-sno-1',
    ],
  },
];

const EXAMPLES = readdirSync(join(import.meta.dirname, '..', '..', 'examples', 'sites'))
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => `examples/sites/${f}`);

const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
const wave = (o: KubeObject): number => Number(o.metadata.annotations?.[SYNC_WAVE] ?? 0);

describe.each(OUTPUT_FORMATS)('examples/sites as $name on a real hub', ({ args, applied }) => {
  const kubeconfig = (): string[] => ['--kubeconfig', hubKubeconfig(), ...args];

  it.each(EXAMPLES)('%s passes the server-side dry run', async (example) => {
    const { status, stderr } = await siteforgeAsync(['check', example, ...kubeconfig()]);
    // ClusterInstances warn about what they cannot carry over (e.g. userData); nothing else.
    expect(stderr).toMatch(/^siteforge: the hub accepts all \d+ object\(s\)[^\n]*\n$/m);
    expect(stderr.split('\n').filter((l) => l.includes(' error '))).toEqual([]);
    expect(status).toBe(0);
  });

  describe('applied for real, read back, deleted', () => {
    let sent: KubeObject[] = [];

    it('applies every example wave by wave with siteforge apply', async () => {
      const generated = await siteforgeAsync(['generate', 'examples/sites', ...args]);
      expect(generated.status).toBe(0);
      sent = parseAllDocuments(generated.stdout).map((d) => d.toJS() as KubeObject);

      const { status, stderr } = await siteforgeAsync(['apply', 'examples/sites', ...kubeconfig()]);
      expect(status, stderr).toBe(0);
      const all = stderr.trim().split('\n');
      const summary = all.pop();
      const lines = all.filter((line) => line.startsWith('wave '));
      const others = all.filter((line) => !line.startsWith('wave '));
      expect(others.every((l) => l.includes(' warning CONVERT_') || l.startsWith('  hint: '))).toBe(
        true,
      );
      expect(summary).toBe(
        `siteforge: applied ${String(sent.length)} object(s) of 6 cluster(s): ${String(sent.length)} created, 0 configured, 0 unchanged`,
      );
      expect(lines).toHaveLength(sent.length);
      const waves = lines.map((line) => Number(/^wave (\d+) created \S+ \S+$/.exec(line)?.[1]));
      expect(waves).toEqual([...waves].sort((a, b) => a - b));
      for (const line of applied) expect(lines).toContain(line);
      expect(new Set(sent.map((o) => o.kind)).size).toBeGreaterThan(1);
    }, 120_000);

    it('changes nothing when applied again', async () => {
      const { status, stderr } = await siteforgeAsync(['apply', 'examples/sites', ...kubeconfig()]);
      expect(status, stderr).toBe(0);
      expect(stderr).toMatch(/: 0 created, 0 configured, \d+ unchanged\n$/);
    }, 120_000);

    it('reads every object back unchanged apart from server defaults', async () => {
      expect(sent.length).toBeGreaterThan(0);
      const client = hubClient();
      for (const object of sent) {
        const stored = await client.get({
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: object.metadata.name,
          ...(object.metadata.namespace !== undefined && { namespace: object.metadata.namespace }),
        });
        expect(stored, `${object.kind} ${object.metadata.name}`).toBeDefined();
        // Server-side apply owns exactly the fields we sent; the server may only add to them.
        expect(differences(object, stored), `${object.kind} ${object.metadata.name}`).toEqual([]);
      }
    });

    it('deletes everything in reverse wave order and leaves nothing behind', async () => {
      expect(sent.length).toBeGreaterThan(0);
      const client = hubClient();
      const waves = [...new Set(sent.map(wave))].sort((a, b) => b - a);
      for (const w of waves) {
        const objects = sent.filter((o) => wave(o) === w);
        const refs = objects.map((o) => ({
          apiVersion: o.apiVersion,
          kind: o.kind,
          name: o.metadata.name,
          ...(o.metadata.namespace !== undefined && { namespace: o.metadata.namespace }),
        }));
        for (const ref of refs) expect(await client.delete(ref)).toBe(true);
        // Namespaces are finished by the controller-manager's namespace controller.
        await waitUntil(
          `wave ${String(w)} deleted`,
          async () => (await Promise.all(refs.map((r) => client.get(r)))).every((o) => !o),
          90_000,
        );
      }
      const namespaces = new Set(sent.flatMap((o) => o.metadata.namespace ?? []));
      const left = await client.list({ apiVersion: 'v1', kind: 'Namespace' });
      expect(left.filter((ns) => namespaces.has(ns.metadata.name))).toEqual([]);
      for (const kind of new Set(sent.map((o) => `${o.apiVersion} ${o.kind}`))) {
        const [apiVersion = '', k = ''] = kind.split(' ');
        const objects = await client.list({ apiVersion, kind: k });
        const ours = objects.filter(
          (o) => namespaces.has(o.metadata.namespace ?? '') || namespaces.has(o.metadata.name),
        );
        expect(ours, kind).toEqual([]);
      }
    }, 300_000);
  });
});

/**
 * Paths where `stored` does not hold what `sent` holds. Extra fields in `stored` are server
 * defaults and bookkeeping; an empty map or list we sent may be omitted by the server.
 */
function differences(sent: unknown, stored: unknown, path = ''): string[] {
  if (sent !== null && typeof sent === 'object') {
    const empty = Array.isArray(sent) ? sent.length === 0 : Object.keys(sent).length === 0;
    if (empty && stored === undefined) return [];
    if (
      stored === null ||
      typeof stored !== 'object' ||
      Array.isArray(sent) !== Array.isArray(stored)
    )
      return [`${path}: sent ${JSON.stringify(sent)}, stored ${JSON.stringify(stored)}`];
    if (Array.isArray(sent) && Array.isArray(stored) && sent.length !== stored.length)
      return [`${path}: sent ${String(sent.length)} items, stored ${String(stored.length)}`];
    return Object.entries(sent).flatMap(([key, value]) =>
      differences(value, (stored as Record<string, unknown>)[key], `${path}/${key}`),
    );
  }
  return sent === stored
    ? []
    : [`${path}: sent ${JSON.stringify(sent)}, stored ${JSON.stringify(stored)}`];
}
