import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { EventType } from '../../src/bmac/runtime/contract.js';
import type { Controller } from '../../src/bmac/runtime/contract.js';
import { Manager } from '../../src/bmac/runtime/manager.js';
import { RuntimeMetrics } from '../../src/bmac/runtime/metrics.js';
import { ProbeServer } from '../../src/bmac/runtime/probe-server.js';
import { ClientNodeRuntimeKubeClient } from '../../src/kube/index.js';
import type { KubeObject } from '../../src/kube/index.js';
import { createLogger } from '../../src/shared/logger.js';
import { hubClient, hubKubeconfig, useNamespace, waitUntil } from '../support/hub.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const STAMP = 'siteforge.test/stamp';
const run = promisify(execFile);

describe('Manager on the hub', () => {
  const ns = useNamespace('runtime-manager');
  const configMap = (name: string, data: Record<string, string>): KubeObject => ({
    ...CM,
    metadata: { name, namespace: ns.name },
    data,
  });
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('stamps ConfigMaps through conflicts, records Events kubectl describe shows, and answers probes', async () => {
    const direct = hubClient();
    await direct.apply(configMap('plain', { a: '1' }), { fieldManager: 'siteforge-test' });
    await direct.apply(configMap('contended', { a: '1' }), { fieldManager: 'siteforge-test' });

    const metrics = new RuntimeMetrics();
    const client = ClientNodeRuntimeKubeClient.fromKubeconfig(hubKubeconfig(), {
      onRequest: (verb, status) => {
        metrics.apiRequest(verb, status);
      },
    });
    let interfered = false;
    const stamper: Controller = {
      name: 'stamper',
      for: CM,
      async reconcile(request, { reader, writer, events }) {
        const current = reader.get({ ...CM, ...request });
        if (!current) return {};
        const stamp = Object.keys((current['data'] as Record<string, string> | undefined) ?? {})
          .sort()
          .join(',');
        if (current.metadata.annotations?.[STAMP] === stamp) return {};
        if (request.name === 'contended' && !interfered) {
          // Someone else changes the object between our read and our write.
          interfered = true;
          await direct.apply(configMap('contended', { a: '1', b: '2' }), {
            fieldManager: 'siteforge-test',
          });
        }
        await writer.update({
          ...current,
          metadata: {
            ...current.metadata,
            annotations: { ...current.metadata.annotations, [STAMP]: stamp },
          },
        });
        events.event(current, EventType.Normal, 'Stamped', `stamped with keys ${stamp}`);
        return {};
      },
    };
    const manager = new Manager({
      client,
      log: createLogger({ level: 'silent' }),
      metrics,
      namespaces: [ns.name],
      backoff: { baseMs: 50, maxMs: 1_000 },
    }).add(stamper);
    const probes = new ProbeServer({ readiness: () => manager.readiness(), metrics });
    const url = await probes.listen();
    cleanups.push(
      () => probes.close(),
      () => manager.stop(),
    );

    manager.start();
    await manager.waitForSync(30_000);
    const ready = await fetch(`${url}/readyz`);
    expect([ready.status, await ready.text()]).toEqual([200, 'ok: leader\n']);

    const stampOf = async (name: string): Promise<string | undefined> =>
      (await direct.get({ ...CM, namespace: ns.name, name }))?.metadata.annotations?.[STAMP];
    await waitUntil('plain stamped', async () => (await stampOf('plain')) === 'a', 30_000);
    await waitUntil(
      'contended stamped',
      async () => (await stampOf('contended')) === 'a,b',
      30_000,
    );

    // The cache holds no managedFields; the PUT without them kept the stored ones.
    expect(
      manager.cache.get({ ...CM, namespace: ns.name, name: 'plain' })?.metadata['managedFields'],
    ).toBeUndefined();
    const stored = await direct.get({ ...CM, namespace: ns.name, name: 'plain' });
    expect(
      (stored?.metadata['managedFields'] as { manager: string }[]).map((f) => f.manager),
    ).toContain('siteforge-test');

    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toMatch(/siteforge_api_requests_total\{verb="update",code="409"\} [1-9]/);
    expect(text).toMatch(
      /siteforge_reconcile_total\{controller="stamper",result="conflict"\} [1-9]/,
    );
    expect(text).not.toContain('siteforge_reconcile_errors_total{controller="stamper"}');
    expect(text).toContain('siteforge_api_requests_total{verb="list",code="200"} 1');

    // A new object is picked up from the watch.
    await direct.apply(configMap('later', { z: '9' }), { fieldManager: 'siteforge-test' });
    await waitUntil('later stamped', async () => (await stampOf('later')) === 'z', 30_000);

    let described = '';
    await waitUntil(
      'the Stamped event in kubectl describe',
      async () => {
        const { stdout } = await run('kubectl', [
          '--kubeconfig',
          hubKubeconfig(),
          'describe',
          'configmap',
          'contended',
          '-n',
          ns.name,
        ]);
        described = stdout;
        return /Normal\s+Stamped\s+.*stamper\s+stamped with keys a,b/.test(stdout);
      },
      30_000,
    );
    expect(described).toContain('Events:');

    await manager.stop();
    const stopped = await fetch(`${url}/readyz`);
    expect(stopped.status).toBe(503);
  }, 120_000);
});
