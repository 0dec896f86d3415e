import { describe, expect, it } from 'vitest';
import { ObjectCache, KindNotCachedError } from '../../../src/bmac/runtime/cache.js';
import { Informer } from '../../../src/bmac/runtime/informer.js';
import type { InformerEvent, InformerOptions } from '../../../src/bmac/runtime/informer.js';
import { KubeApiError } from '../../../src/kube/index.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { createLogger } from '../../../src/shared/logger.js';
import { FakeApiServer } from '../../fakes/fake-api-server.js';
import { ManualClock, settle } from '../../fakes/manual-clock.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const configMap = (
  namespace: string,
  name: string,
  data: Record<string, string> = {},
): KubeObject => ({
  ...CM,
  metadata: { namespace, name, labels: { app: name.startsWith('web') ? 'web' : 'db' } },
  data,
});

function setup(options: Partial<InformerOptions> = {}) {
  const server = new FakeApiServer();
  const clock = new ManualClock();
  const cache = new ObjectCache();
  const events: string[] = [];
  const restarts: string[] = [];
  const informer = new Informer({
    client: server,
    gvk: CM,
    store: cache.storeFor(CM),
    clock,
    log: createLogger({ level: 'silent' }),
    random: () => 0,
    watchTimeoutSeconds: [300, 300],
    onRestart: (reason) => restarts.push(reason),
    ...options,
  });
  informer.on((e: InformerEvent) => {
    events.push(`${e.type} ${e.object.metadata.namespace ?? ''}/${e.object.metadata.name}`);
  });
  return { server, clock, cache, events, restarts, informer };
}

describe('Informer', () => {
  it('lists, syncs, then follows adds, updates and deletes into the cache', async () => {
    const { server, cache, events, informer } = setup();
    server.seed(configMap('a', 'web-1'), configMap('a', 'db-1'));
    expect(informer.hasSynced()).toBe(false);
    informer.start();
    await settle();
    expect(informer.hasSynced()).toBe(true);
    expect(events).toEqual(['add a/web-1', 'add a/db-1']);

    server.seed(configMap('b', 'web-2'));
    server.modify({ ...CM, namespace: 'a', name: 'web-1' }, (o) => ({ ...o, data: { x: '1' } }));
    server.remove(configMap('a', 'db-1'));
    await settle();
    expect(events.slice(2)).toEqual(['add b/web-2', 'update a/web-1', 'delete a/db-1']);
    expect(cache.get({ ...CM, namespace: 'a', name: 'web-1' })?.['data']).toEqual({ x: '1' });
    expect(
      cache
        .list(CM, { labels: { app: 'web' } })
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['web-1', 'web-2']);
    expect(cache.list(CM, { namespace: 'b' }).map((o) => o.metadata.name)).toEqual(['web-2']);
    informer.stop();
  });

  it('hands out frozen objects without managedFields, and refuses to read a kind nobody declared', async () => {
    const { server, cache, informer } = setup();
    const withFields = configMap('a', 'web-1');
    server.seed({
      ...withFields,
      metadata: { ...withFields.metadata, managedFields: [{ manager: 'kubectl', fieldsV1: {} }] },
    });
    informer.start();
    await settle();
    const read = cache.get({ ...CM, namespace: 'a', name: 'web-1' })!;
    expect(read.metadata['managedFields']).toBeUndefined();
    expect(read.metadata.labels).toEqual({ app: 'web' });
    expect(() => {
      (read.metadata.labels as Record<string, string>)['app'] = 'x';
    }).toThrow(TypeError);
    expect(() => cache.list({ apiVersion: 'v1', kind: 'Secret' })).toThrow(KindNotCachedError);
    expect(() => cache.get({ apiVersion: 'v1', kind: 'Secret', name: 'x' })).toThrow(
      /no informer caches Secret/,
    );
    informer.stop();
  });

  it('keeps objects without their managedFields, which no reconciler reads', async () => {
    const { server, cache, informer } = setup();
    const managed = configMap('a', 'web-1', { x: '1' });
    server.seed({
      ...managed,
      metadata: {
        ...managed.metadata,
        managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': {} } }],
      },
    });
    informer.start();
    await settle();
    const read = cache.get({ ...CM, namespace: 'a', name: 'web-1' })!;
    expect(read.metadata).not.toHaveProperty('managedFields');
    expect(read.metadata.labels).toEqual({ app: 'web' });
    expect(read['data']).toEqual({ x: '1' });
    informer.stop();
  });

  it('survives a cut connection: restarts with backoff, lists again and tells what changed in the gap', async () => {
    const { server, clock, cache, events, restarts, informer } = setup({
      backoff: { baseMs: 1_000, maxMs: 8_000, jitter: 0.2 },
    });
    server.seed(configMap('a', 'web-1'), configMap('a', 'db-1'), configMap('a', 'db-2'));
    informer.start();
    await settle();
    events.length = 0;

    server.unreachable = true;
    server.cutWatches();
    await settle();
    // Changes nobody hears of while the watch is down.
    server.remove(configMap('a', 'db-1'));
    server.modify({ ...CM, namespace: 'a', name: 'web-1' }, (o) => ({ ...o, data: { v: '2' } }));
    server.seed(configMap('a', 'web-3'));
    expect(events).toEqual([]);
    expect(restarts).toEqual(['closed']);

    // Each failed attempt waits twice as long: 1 s, 2 s, 4 s.
    await clock.advance(1_000);
    expect(restarts).toEqual(['closed', 'error']);
    expect(clock.pending()).toEqual([2_000]);
    await clock.advance(2_000);
    expect(clock.pending()).toEqual([4_000]);

    server.unreachable = false;
    await clock.advance(4_000);
    expect(events.sort()).toEqual(['add a/web-3', 'delete a/db-1', 'update a/web-1']);
    expect(
      cache
        .list(CM)
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['db-2', 'web-1', 'web-3']);
    expect(informer.restarts).toBe(3);
    expect(server.openWatches).toBe(1);

    server.seed(configMap('a', 'web-4'));
    await settle();
    expect(events).toContain('add a/web-4');
    informer.stop();
  });

  it('resumes a watch that ended early from the last version it saw, without listing again', async () => {
    const { server, clock, events, restarts, informer } = setup({
      backoff: { baseMs: 1_000, maxMs: 8_000, jitter: 0.2 },
    });
    server.seed(configMap('a', 'web-1'), configMap('a', 'db-1'));
    informer.start();
    await settle();
    events.length = 0;
    // The server drops the watcher (too slow a reader, a proxy's idle cut): changes go on.
    server.cutWatches();
    await settle();
    server.remove(configMap('a', 'db-1'));
    server.seed(configMap('a', 'web-2'));
    expect(restarts).toEqual(['closed']);
    expect(clock.pending()).toEqual([1_000]);
    await clock.advance(1_000);
    expect(events).toEqual(['delete a/db-1', 'add a/web-2']);
    expect(server.requests).toEqual(['list ConfigMap', 'watch ConfigMap', 'watch ConfigMap']);
    // Cut again: the resumed watch brought changes, so the backoff starts over (not 2 s).
    server.cutWatches();
    await settle();
    expect(clock.pending()).toEqual([1_000]);
    // Resumed from a version the server no longer has: listed again at once.
    server.seed(configMap('a', 'web-3'));
    server.compact();
    await clock.advance(2_000);
    expect(restarts).toEqual(['closed', 'closed', 'gone']);
    expect(events).toContain('add a/web-3');
    expect(server.requests.filter((r) => r.startsWith('list'))).toHaveLength(2);
    expect(server.openWatches).toBe(1);
    informer.stop();
  });

  it('takes what this process wrote before its watch event comes, and tells it once', async () => {
    const { server, clock, cache, events, informer } = setup({
      backoff: { baseMs: 1_000, maxMs: 8_000, jitter: 0.2 },
    });
    server.seed(configMap('a', 'web-1'));
    informer.start();
    await settle();
    const ref = { ...CM, namespace: 'a', name: 'web-1' };
    // The watch lags (here: it is down and will resume): the write's answer is read at once.
    server.cutWatches();
    await settle();
    const written = await server.update({ ...server.peek(ref)!, data: { v: '2' } });
    informer.offer(written);
    expect(cache.get(ref)?.['data']).toEqual({ v: '2' });
    expect(events).toEqual(['add a/web-1', 'update a/web-1']);
    // An answer older than what is stored (a write that lost a race) changes nothing.
    informer.offer({
      ...written,
      data: { v: 'old' },
      metadata: { ...written.metadata, resourceVersion: '1' },
    });
    expect(cache.get(ref)?.['data']).toEqual({ v: '2' });
    // The watch resumes and replays the write's own event: nothing more is told.
    await clock.advance(1_000);
    expect(events).toEqual(['add a/web-1', 'update a/web-1']);
    // Another client's later change is told as usual; an answer the watch has passed is not taken.
    server.modify(ref, (o) => ({ ...o, data: { v: '3' } }));
    await settle();
    informer.offer(written);
    expect(cache.get(ref)?.['data']).toEqual({ v: '3' });
    expect(events).toEqual(['add a/web-1', 'update a/web-1', 'update a/web-1']);
    informer.stop();
  });

  it('lists again at once after 410 Gone, without waiting', async () => {
    const { server, events, restarts, informer } = setup();
    server.seed(configMap('a', 'web-1'));
    informer.start();
    await settle();
    server.compact();
    server.breakWatches(new KubeApiError(410, 'Expired', 'too old resource version'));
    server.remove(configMap('a', 'web-1'));
    await settle();
    expect(restarts).toEqual(['gone']);
    expect(events).toEqual(['add a/web-1', 'delete a/web-1']);
    expect(server.requests.filter((r) => r.startsWith('list'))).toHaveLength(2);
    informer.stop();
  });

  it('resumes a watch the server ended on its time limit without listing again', async () => {
    const { server, clock, restarts, informer } = setup();
    informer.start();
    await settle();
    await clock.advance(300_000);
    server.cutWatches();
    await settle();
    expect(restarts).toEqual([]);
    expect(server.requests).toEqual(['list ConfigMap', 'watch ConfigMap', 'watch ConfigMap']);
    informer.stop();
  });

  it('tells every object again each resync period', async () => {
    const { server, clock, events, informer } = setup({ resyncMs: 60_000 });
    server.seed(configMap('a', 'web-1'), configMap('a', 'db-1'));
    informer.start();
    await settle();
    await clock.advance(60_000);
    expect(events).toEqual(['add a/web-1', 'add a/db-1', 'resync a/web-1', 'resync a/db-1']);
    informer.stop();
  });

  it('watches only the namespaces it was given, and syncs once all are listed', async () => {
    const { server, cache, informer } = setup({ namespaces: ['a', 'c'] });
    server.seed(configMap('a', 'web-1'), configMap('b', 'web-2'), configMap('c', 'web-3'));
    informer.start();
    await settle();
    expect(informer.hasSynced()).toBe(true);
    server.seed(configMap('b', 'web-4'), configMap('c', 'web-5'));
    await settle();
    expect(
      cache
        .list(CM)
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['web-1', 'web-3', 'web-5']);
    informer.stop();
  });

  it('watches a cluster-scoped kind once, whatever namespaces it was given, and notices deletions', async () => {
    const NS = { apiVersion: 'v1', kind: 'Namespace' };
    const server = new FakeApiServer();
    const cache = new ObjectCache();
    const informer = new Informer({
      client: server,
      gvk: NS,
      store: cache.storeFor(NS),
      namespaces: ['a', 'b'],
      clock: new ManualClock(),
      log: createLogger({ level: 'silent' }),
    });
    server.seed({ ...NS, metadata: { name: 'a' } }, { ...NS, metadata: { name: 'b' } });
    informer.start();
    await settle();
    expect(informer.hasSynced()).toBe(true);
    expect(server.requests).toEqual(['discovery Namespace', 'list Namespace', 'watch Namespace']);
    server.compact();
    server.remove({ ...NS, metadata: { name: 'a' } });
    server.breakWatches(new KubeApiError(410, 'Expired', 'too old resource version'));
    await settle();
    expect(cache.list(NS).map((o) => o.metadata.name)).toEqual(['b']);
    informer.stop();
  });

  it('tells nothing and leaves no timer after stop', async () => {
    const { server, clock, events, informer } = setup({ resyncMs: 1_000 });
    informer.start();
    await settle();
    informer.stop();
    server.seed(configMap('a', 'web-1'));
    await settle();
    expect(events).toEqual([]);
    expect(clock.pending()).toEqual([]);
    expect(server.openWatches).toBe(0);
  });
});

describe('ObjectCache lists by label', () => {
  const labelled = (namespace: string, name: string, labels: Record<string, string>) => ({
    ...CM,
    metadata: { namespace, name, labels },
  });
  const names = (objects: readonly KubeObject[]) =>
    objects.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort();

  it('finds objects across namespaces by label as they are added, relabelled and deleted', () => {
    const cache = new ObjectCache();
    const store = cache.storeFor(CM);
    store.set(labelled('a', 'one', { team: 'red' }));
    store.set(labelled('b', 'two', { team: 'red', tier: 'db' }));
    store.set(labelled('b', 'three', { team: 'blue' }));
    // The first list across namespaces builds the index of `team`; later changes keep it true.
    expect(names(cache.list(CM, { labels: { team: 'red' } }))).toEqual(['a/one', 'b/two']);
    store.set(labelled('c', 'four', { team: 'red' }));
    store.set(labelled('a', 'one', { team: 'blue' }));
    store.set(labelled('b', 'two', { team: 'red', tier: 'web' }));
    expect(names(cache.list(CM, { labels: { team: 'red' } }))).toEqual(['b/two', 'c/four']);
    expect(names(cache.list(CM, { labels: { team: 'blue' } }))).toEqual(['a/one', 'b/three']);
    expect(names(cache.list(CM, { labels: { team: 'red', tier: 'web' } }))).toEqual(['b/two']);
    expect(names(cache.list(CM, { labels: { team: 'red', tier: 'db' } }))).toEqual([]);
    store.delete('c', 'four');
    store.set(labelled('b', 'three', {}));
    expect(names(cache.list(CM, { labels: { team: 'red' } }))).toEqual(['b/two']);
    expect(names(cache.list(CM, { labels: { team: 'blue' } }))).toEqual(['a/one']);
    expect(names(cache.list(CM, { labels: { team: 'green' } }))).toEqual([]);
    // Within a namespace the answer is the same.
    expect(names(cache.list(CM, { namespace: 'b', labels: { team: 'red' } }))).toEqual(['b/two']);
    expect(names(cache.list(CM, { namespace: 'a', labels: { team: 'red' } }))).toEqual([]);
  });
});
