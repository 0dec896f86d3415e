import { describe, expect, it, vi } from 'vitest';
import { KubeApiError } from '../../src/kube/errors.js';
import type { KubeObject } from '../../src/kube/kube-client.js';
import { applyInWaves, groupByWave, WaveTimeoutError } from '../../src/plugins/apply-waves.js';
import type { ApplyItem } from '../../src/plugins/apply-waves.js';
import { FakeKubeClient } from '../fakes/fake-kube-client.js';

const inWave = (
  wave: number,
  kind: string,
  name: string,
  namespace?: string,
): ApplyItem<string> => ({
  object: {
    apiVersion: kind === 'Namespace' ? 'v1' : 'example.com/v1',
    kind,
    metadata: {
      name,
      ...(namespace !== undefined && { namespace }),
      annotations: { 'argocd.argoproj.io/sync-wave': String(wave) },
    },
  },
  source: `${kind}/${name}`,
});

// A cluster as the compiler emits it: its namespace first, the rest in later waves.
const site = [
  inWave(3, 'BareMetalHost', 'node-1', 'sno1'),
  inWave(1, 'AgentClusterInstall', 'sno1', 'sno1'),
  inWave(0, 'Namespace', 'sno1'),
  inWave(2, 'ManagedCluster', 'sno1'),
];

const invalid = (object: KubeObject): KubeApiError | undefined =>
  object.kind === 'AgentClusterInstall'
    ? new KubeApiError(422, 'Invalid', 'spec.x: Invalid value', { causes: [{ field: 'spec.x' }] })
    : undefined;

describe('applyInWaves', () => {
  it('groups by sync wave, lowest first, keeping input order within a wave', () => {
    expect(groupByWave(site).map(([wave, items]) => [wave, items.map((i) => i.source)])).toEqual([
      [0, ['Namespace/sno1']],
      [1, ['AgentClusterInstall/sno1']],
      [2, ['ManagedCluster/sno1']],
      [3, ['BareMetalHost/node-1']],
    ]);
  });

  it('applies wave by wave and reports created, then unchanged, then configured', async () => {
    const client = new FakeKubeClient();
    const first = await applyInWaves(client, site);
    expect(client.applied).toEqual([
      'Namespace sno1',
      'AgentClusterInstall sno1/sno1',
      'ManagedCluster sno1',
      'BareMetalHost sno1/node-1',
    ]);
    expect(first.applied.map((a) => a.outcome)).toEqual([
      'created',
      'created',
      'created',
      'created',
    ]);

    expect((await applyInWaves(client, site)).applied.every((a) => a.outcome === 'unchanged')).toBe(
      true,
    );

    const changed = site.map((item) =>
      item.object.kind === 'BareMetalHost'
        ? { ...item, object: { ...item.object, spec: { online: false } } }
        : item,
    );
    const third = await applyInWaves(client, changed);
    expect(third.applied.map((a) => `${a.item.source} ${a.outcome}`)).toContain(
      'BareMetalHost/node-1 configured',
    );
  });

  it('without confirm, applies wave by wave reading nothing, and says applied', async () => {
    const client = new FakeKubeClient();
    const reads = vi.spyOn(client, 'get');
    const seen: number[] = [];
    const result = await applyInWaves(client, site, {
      confirm: false,
      onWave: (wave) => seen.push(wave),
    });
    expect(reads).not.toHaveBeenCalled();
    expect(client.applied).toEqual([
      'Namespace sno1',
      'AgentClusterInstall sno1/sno1',
      'ManagedCluster sno1',
      'BareMetalHost sno1/node-1',
    ]);
    expect(seen).toEqual([0, 1, 2, 3]);
    expect(result.applied.map((a) => a.outcome)).toEqual([
      'applied',
      'applied',
      'applied',
      'applied',
    ]);
  });

  it('stops after a wave with rejections, naming the waves it skipped', async () => {
    const client = new FakeKubeClient(invalid);
    const result = await applyInWaves(client, site);
    expect(result.rejected.map((r) => [r.wave, r.item.source, r.error.code])).toEqual([
      [1, 'AgentClusterInstall/sno1', 'KUBE_INVALID'],
    ]);
    expect(result.skippedWaves).toEqual([2, 3]);
    expect(client.applied).toEqual(['Namespace sno1', 'AgentClusterInstall sno1/sno1']);
  });

  it('goes through every wave when asked to, to report all problems at once', async () => {
    const result = await applyInWaves(new FakeKubeClient(invalid), site, {
      continueAfterRejection: true,
    });
    expect(result.skippedWaves).toEqual([]);
    expect(result.applied.map((a) => a.item.source)).toEqual([
      'Namespace/sno1',
      'ManagedCluster/sno1',
      'BareMetalHost/node-1',
    ]);
  });

  it('dry-runs objects in the stand-in namespace when their own is created by an earlier wave', async () => {
    const client = new FakeKubeClient();
    await client.apply(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } },
      { fieldManager: 'test' },
    );
    const result = await applyInWaves(client, site, { dryRun: true });
    expect(result.rejected).toEqual([]);
    expect(result.applied.map((a) => [a.item.source, a.standInNamespace])).toEqual([
      ['Namespace/sno1', undefined],
      ['AgentClusterInstall/sno1', 'default'],
      ['ManagedCluster/sno1', undefined],
      ['BareMetalHost/node-1', 'default'],
    ]);
    expect([...client.objects.keys()]).toEqual(['v1/Namespace//default']);
  });

  it('reports a namespace that neither exists nor is created as the rejection it is', async () => {
    const orphan = [inWave(1, 'AgentClusterInstall', 'lost', 'nowhere')];
    const result = await applyInWaves(new FakeKubeClient(), orphan, { dryRun: true });
    expect(result.rejected.map((r) => r.error.message)).toEqual(['namespaces "nowhere" not found']);
  });

  it('gives up waiting for a wave after the time limit', async () => {
    const client = new FakeKubeClient();
    // The object is accepted but never shows up, as if something deleted it at once.
    client.get = () => Promise.resolve(undefined);
    const sleeps: number[] = [];
    const result = applyInWaves(client, [inWave(0, 'Namespace', 'vanishing')], {
      waitTimeoutMs: 0,
      sleep: (ms) => Promise.resolve(sleeps.push(ms)),
    });
    await expect(result).rejects.toThrow(WaveTimeoutError);
    await expect(result).rejects.toThrow(
      /wave 0: 1 object\(s\) still missing after 0 s: Namespace vanishing/,
    );
  });
});
