import { describe, expect, it, vi } from 'vitest';
import { Gvk, Label } from '../../src/bmac/api.js';
import type { ObjectReader } from '../../src/bmac/runtime/contract.js';
import { readWatchedSecret, watchedSecrets } from '../../src/bmac/watched-secrets.js';
import type { KubeObject } from '../../src/kube/index.js';
import { FakeCluster } from '../fakes/fake-cluster.js';

const NS = 'site-1';
const ref = { ...Gvk.Secret, namespace: NS, name: 'host-0-bmc-secret' };
const secret = (password: string): KubeObject => ({
  ...Gvk.Secret,
  metadata: { name: ref.name, namespace: NS },
  data: { username: 'cm9vdA==', password: Buffer.from(password).toString('base64') },
});

/** The cache of the labelled Secrets, as the informer with the selector fills it. */
function labelledOnly(cluster: FakeCluster): ObjectReader {
  const labelled = (o: KubeObject | undefined) =>
    o?.metadata.labels?.[Label.Watch] === 'true' ? o : undefined;
  return {
    get: (r) => labelled(cluster.get(r)),
    list: (gvk, options) => cluster.list(gvk, options).filter((o) => labelled(o) !== undefined),
  };
}

describe('watched Secrets', () => {
  it('a Secret read the first time comes from the API server and is labelled, then from the cache', async () => {
    const cluster = new FakeCluster({ now: () => 0, sleep: () => Promise.resolve() });
    cluster.seed(secret('first'));
    const reader = labelledOnly(cluster);
    const live = vi.spyOn(cluster, 'getLive');
    const first = await readWatchedSecret(reader, cluster, { namespace: NS, name: ref.name });
    expect(first?.['data']).toEqual(secret('first')['data']);
    expect(cluster.peek(ref)?.metadata.labels).toMatchObject({ [Label.Watch]: 'true' });
    const again = await readWatchedSecret(reader, cluster, { namespace: NS, name: ref.name });
    expect(again?.['data']).toEqual(secret('first')['data']);
    expect(live).toHaveBeenCalledTimes(1);

    // Rotated by its owner: the cache (the watch) has the new password for the next use.
    const stored = cluster.peek(ref)!;
    await cluster.asOtherActor((c) => c.update({ ...stored, data: secret('second')['data'] }));
    const rotated = await readWatchedSecret(reader, cluster, { namespace: NS, name: ref.name });
    expect(rotated?.['data']).toEqual(secret('second')['data']);
    expect(live).toHaveBeenCalledTimes(1);
  });

  it('a missing Secret is undefined and nothing is written', async () => {
    const cluster = new FakeCluster({ now: () => 0, sleep: () => Promise.resolve() });
    const writes = cluster.writes.length;
    expect(
      await readWatchedSecret(labelledOnly(cluster), cluster, { namespace: NS, name: 'gone' }),
    ).toBeUndefined();
    expect(cluster.writes.length).toBe(writes);
  });

  it('only a change of the data wakes the objects that use the Secret', () => {
    const watch = watchedSecrets(() => [{ namespace: NS, name: 'x' }]);
    const before = secret('a');
    const relabelled = { ...before, metadata: { ...before.metadata, labels: { a: 'b' } } };
    expect(watch.labelSelector).toBe(`${Label.Watch}=true`);
    expect(watch.onUpdate?.(relabelled, before)).toBe(false);
    expect(watch.onUpdate?.(secret('b'), before)).toBe(true);
  });
});
