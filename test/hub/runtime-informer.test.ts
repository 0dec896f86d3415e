import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ObjectCache } from '../../src/bmac/runtime/cache.js';
import { Informer } from '../../src/bmac/runtime/informer.js';
import { systemRuntimeClock } from '../../src/bmac/runtime/runtime-clock.js';
import { ClientNodeRuntimeKubeClient, KubeApiErrorCode } from '../../src/kube/index.js';
import type { KubeObject } from '../../src/kube/index.js';
import { createLogger } from '../../src/shared/logger.js';
import { hubClient, hubKubeconfig, useNamespace, waitUntil } from '../support/hub.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const manager = { fieldManager: 'siteforge-test' };

/** A kubeconfig like the hub's, with its server behind `proxy`. */
async function proxiedKubeconfig(): Promise<{ path: string; proxy: TcpProxy }> {
  const original = readFileSync(hubKubeconfig(), 'utf8');
  const server = /server: (https:\/\/127\.0\.0\.1:(\d+))/.exec(original);
  if (!server) throw new Error('no server in the hub kubeconfig');
  const proxy = new TcpProxy({ host: '127.0.0.1', port: Number(server[2]) });
  const port = await proxy.listen();
  const path = join(mkdtempSync(join(tmpdir(), 'runtime-informer-')), 'kubeconfig');
  writeFileSync(path, original.replace(server[1]!, `https://127.0.0.1:${String(port)}`), {
    mode: 0o600,
  });
  return { path, proxy };
}

describe('Informer on the hub', () => {
  const ns = useNamespace('runtime-informer');
  const proxies: TcpProxy[] = [];
  afterAll(async () => {
    for (const p of proxies) await p.close();
  });
  const configMap = (name: string, data: Record<string, string> = {}): KubeObject => ({
    ...CM,
    metadata: { name, namespace: ns.name },
    data,
  });

  it('survives its watch being cut, counts the restarts and catches up with the changes made meanwhile', async () => {
    const direct = hubClient();
    for (const name of ['gone', 'changed', 'kept']) await direct.apply(configMap(name), manager);

    const { path, proxy } = await proxiedKubeconfig();
    proxies.push(proxy);
    const requests: string[] = [];
    const client = ClientNodeRuntimeKubeClient.fromKubeconfig(path, {
      onRequest: (verb, status) => requests.push(`${verb} ${String(status)}`),
    });
    const cache = new ObjectCache();
    const restarts: string[] = [];
    const events: string[] = [];
    const informer = new Informer({
      client,
      gvk: CM,
      store: cache.storeFor(CM),
      namespaces: [ns.name],
      clock: systemRuntimeClock,
      log: createLogger({ level: 'silent' }),
      backoff: { baseMs: 100, maxMs: 400, jitter: 0.2 },
      onRestart: (reason) => restarts.push(reason),
    });
    informer.on((e) => events.push(`${e.type} ${e.object.metadata.name}`));
    informer.start();
    try {
      await waitUntil('informer synced', () => Promise.resolve(informer.hasSynced()), 30_000);
      expect(cache.list(CM).map((o) => o.metadata.name)).toEqual(
        expect.arrayContaining(['changed', 'gone', 'kept']),
      );

      // Watch events arrive while the connection is up.
      await direct.apply(configMap('live'), manager);
      await waitUntil('live seen', () => Promise.resolve(events.includes('add live')), 30_000);

      proxy.down = true;
      proxy.cut();
      await direct.delete({ ...CM, namespace: ns.name, name: 'gone' });
      await direct.apply(configMap('changed', { v: '2' }), manager);
      await direct.apply(configMap('new'), manager);
      await waitUntil('two failed restarts', () => Promise.resolve(restarts.length >= 2), 30_000);
      expect(events).not.toContain('delete gone');

      proxy.down = false;
      await waitUntil(
        'caught up',
        () => Promise.resolve(cache.get({ ...CM, namespace: ns.name, name: 'new' }) !== undefined),
        30_000,
      );
      expect(cache.get({ ...CM, namespace: ns.name, name: 'gone' })).toBeUndefined();
      expect(cache.get({ ...CM, namespace: ns.name, name: 'changed' })?.['data']).toEqual({
        v: '2',
      });
      expect(events).toEqual(expect.arrayContaining(['delete gone', 'update changed', 'add new']));
      expect(informer.restarts).toBe(restarts.length);
      expect(requests.filter((r) => r === 'list 200').length).toBeGreaterThanOrEqual(2);
      expect(requests).toContain('list unreachable');

      // And it keeps following after the gap.
      await direct.apply(configMap('after'), manager);
      await waitUntil('after seen', () => Promise.resolve(events.includes('add after')), 30_000);
    } finally {
      informer.stop();
    }
  }, 90_000);

  it('watches from the version of a list and stops cleanly', async () => {
    const client = ClientNodeRuntimeKubeClient.fromKubeconfig(hubKubeconfig());
    const { resourceVersion } = await client.list(CM, { namespace: ns.name });
    const seen: string[] = [];
    const live = client.watch(
      CM,
      { namespace: ns.name, resourceVersion, timeoutSeconds: 60 },
      (e) => {
        if (e.type !== 'BOOKMARK')
          seen.push(`${e.type} ${e.object.kind} ${e.object.metadata.name}`);
      },
    );
    try {
      await hubClient().apply(configMap('watched'), manager);
      await waitUntil('event seen', () => Promise.resolve(seen.length > 0), 30_000);
      expect(seen).toEqual(['ADDED ConfigMap watched']);
    } finally {
      live.stop();
    }
    await live.ended;
  });

  it('writes with resourceVersion: a stale update is KUBE_CONFLICT, status goes through /status', async () => {
    const client = ClientNodeRuntimeKubeClient.fromKubeconfig(hubKubeconfig());
    const created = await client.create(configMap('rv', { v: '1' }));
    const updated = await client.update({ ...created, data: { v: '2' } });
    expect(updated.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    await expect(client.update({ ...created, data: { v: '3' } })).rejects.toMatchObject({
      code: KubeApiErrorCode.Conflict,
      status: 409,
    });
    await expect(client.create(configMap('rv'))).rejects.toMatchObject({
      code: KubeApiErrorCode.Conflict,
    });
    const listed = await client.list(CM, { namespace: ns.name });
    expect(listed.resourceVersion).not.toBe('');
    expect(listed.items.find((o) => o.metadata.name === 'rv')).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      data: { v: '2' },
    });
    expect(await client.delete({ ...CM, namespace: ns.name, name: 'rv' })).toBe(true);
    expect(await client.delete({ ...CM, namespace: ns.name, name: 'rv' })).toBe(false);
    expect(await client.get({ ...CM, namespace: ns.name, name: 'rv' })).toBeUndefined();

    // Namespaces have a status subresource; a PUT to it changes status only.
    const namespace = (await client.get({ apiVersion: 'v1', kind: 'Namespace', name: ns.name }))!;
    const status = await client.updateStatus({
      ...namespace,
      status: {
        ...(namespace['status'] as object),
        conditions: [
          {
            type: 'SiteForgeTest',
            status: 'True',
            reason: 'Probed',
            message: 'status subresource written',
            lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          },
        ],
      },
    });
    expect((status['status'] as { conditions: { type: string }[] }).conditions[0]?.type).toBe(
      'SiteForgeTest',
    );
  });
});
