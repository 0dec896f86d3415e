import { writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ClientNodeKubeClient,
  KubeApiError,
  KubeApiErrorCode,
  KubeUnreachableError,
} from '../../src/kube/index.js';
import type { KubeObject } from '../../src/kube/index.js';
import { hubClient, hubKubeconfig, useNamespace } from '../support/hub.js';

const manager = { fieldManager: 'siteforge-test' };

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (err: unknown) => err,
  );
}

describe('ClientNodeKubeClient on the hub', () => {
  const ns = useNamespace('kube-client');
  const configMap = (name: string, data: Record<string, string>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns.name },
    data,
  });

  it('creates an object with server-side apply, reads it back, and lists it', async () => {
    const client = hubClient();
    const applied = await client.apply(configMap('created', { a: '1' }), manager);
    expect(applied.metadata.resourceVersion).toBeDefined();

    const read = await client.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'created',
      namespace: ns.name,
    });
    expect(read?.['data']).toEqual({ a: '1' });
    const managers = (read?.metadata['managedFields'] as { manager: string }[]).map(
      (m) => m.manager,
    );
    expect(managers).toEqual(['siteforge-test']);

    const listed = await client.list(
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { namespace: ns.name },
    );
    expect(listed.map((o) => `${o.kind} ${o.metadata.name}`)).toContain('ConfigMap created');
  });

  it('changes nothing when the same object is applied again', async () => {
    const client = hubClient();
    const first = await client.apply(configMap('same', { a: '1' }), manager);
    const second = await client.apply(configMap('same', { a: '1' }), manager);
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
  });

  it('persists nothing in a dry run', async () => {
    const client = hubClient();
    const dry = await client.apply(configMap('dry', { a: '1' }), { ...manager, dryRun: true });
    expect(dry['data']).toEqual({ a: '1' });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'dry', namespace: ns.name };
    expect(await client.get(ref)).toBeUndefined();
  });

  it('reports a schema rejection as KubeApiError with the offending field', async () => {
    const err = await rejection(
      hubClient().apply(
        {
          apiVersion: 'agent-install.openshift.io/v1beta1',
          kind: 'NMStateConfig',
          metadata: { name: 'bad-mac', namespace: ns.name },
          spec: { interfaces: [{ name: 'eno1', macAddress: 'not-a-mac' }] },
        },
        manager,
      ),
    );
    expect(err).toBeInstanceOf(KubeApiError);
    const apiError = err as KubeApiError;
    expect(apiError.code).toBe(KubeApiErrorCode.Invalid);
    expect(apiError.status).toBe(422);
    expect(apiError.reason).toBe('Invalid');
    expect(apiError.details.causes.map((c) => c.field)).toContain('spec.interfaces[0].macAddress');
  });

  it('rejects a field the schema does not know instead of dropping it', async () => {
    const object = { ...configMap('unknown-field', { a: '1' }), extra: true };
    const err = await rejection(hubClient().apply(object, manager));
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).message).toMatch(/\.extra: field not declared in schema/);
  });

  it("reports another manager's fields as a conflict, and takes them over only when forced", async () => {
    const client = hubClient();
    await client.apply(configMap('owned', { a: 'theirs' }), { fieldManager: 'someone-else' });
    const err = await rejection(client.apply(configMap('owned', { a: 'ours' }), manager));
    expect(err).toBeInstanceOf(KubeApiError);
    const conflict = err as KubeApiError;
    expect(conflict.code).toBe(KubeApiErrorCode.Conflict);
    expect(conflict.details.causes).toHaveLength(1);
    expect(conflict.details.causes[0]?.field).toBe('.data.a');
    expect(conflict.details.causes[0]?.message).toContain('someone-else');

    const forced = await client.apply(configMap('owned', { a: 'ours' }), {
      ...manager,
      force: true,
    });
    expect(forced['data']).toEqual({ a: 'ours' });
  });

  it('tells a missing object from a kind the hub does not serve', async () => {
    const client = hubClient();
    const missing = { apiVersion: 'v1', kind: 'ConfigMap', name: 'nothing', namespace: ns.name };
    expect(await client.get(missing)).toBeUndefined();

    const err = await rejection(
      client.get({ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', namespace: ns.name }),
    );
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).code).toBe(KubeApiErrorCode.KindUnknown);
  });

  it('deletes an object, and answers false for one already gone', async () => {
    const client = hubClient();
    await client.apply(configMap('doomed', { a: '1' }), manager);
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'doomed', namespace: ns.name };
    expect(await client.delete(ref)).toBe(true);
    expect(await client.get(ref)).toBeUndefined();
    expect(await client.delete(ref)).toBe(false);
  });

  it('reports a server that does not answer as unreachable, without credentials', async () => {
    const port = await closedPort();
    const original = readFileSync(hubKubeconfig(), 'utf8');
    const kubeconfig = join(tmpdir(), `siteforge-closed-${String(port)}.kubeconfig`);
    writeFileSync(
      kubeconfig,
      original.replace(/server: .*/, `server: https://127.0.0.1:${String(port)}`),
    );
    const client = ClientNodeKubeClient.fromKubeconfig({ kubeconfig });

    const err = await rejection(
      client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'default' }),
    );
    expect(err).toBeInstanceOf(KubeUnreachableError);
    const message = (err as Error).message;
    expect(message).toBe(
      `cannot reach the API server at https://127.0.0.1:${String(port)}: ECONNREFUSED`,
    );
    const key = /client-key-data: (\S+)/.exec(original)?.[1] ?? 'no key found';
    expect(JSON.stringify(err)).not.toContain(key.slice(0, 40));
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
