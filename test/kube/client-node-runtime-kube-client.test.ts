import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientNodeRuntimeKubeClient, KubeApiErrorCode } from '../../src/kube/index.js';
import type { WatchEvent } from '../../src/kube/index.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const DISCOVERY = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    { name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs: ['list', 'watch'] },
  ],
};

/** A loopback HTTP server playing the API server, answering each request with `answer`. */
async function fakeApiServer(
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; kubeconfig: string; urls: string[] }> {
  const urls: string[] = [];
  const server = createServer((req, res) => {
    urls.push(req.url ?? '');
    if (req.url === '/api/v1') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(DISCOVERY));
      return;
    }
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubeconfig = join(mkdtempSync(join(tmpdir(), 'runtime-client-')), 'kubeconfig');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster: { server: "http://127.0.0.1:${String(port)}", insecure-skip-tls-verify: true }
users:
- name: fake
  user: { token: not-a-secret }
contexts:
- name: fake
  context: { cluster: fake, user: fake }
current-context: fake
`,
  );
  return { server, kubeconfig, urls };
}

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

describe('ClientNodeRuntimeKubeClient', () => {
  it('pages a list and keeps the first page resourceVersion, filling in apiVersion and kind', async () => {
    const fake = await fakeApiServer((req, res) => {
      const url = new URL(req.url ?? '', 'http://x');
      const second = url.searchParams.get('continue') === 'page-2';
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          kind: 'ConfigMapList',
          apiVersion: 'v1',
          metadata: {
            resourceVersion: second ? '99' : '7',
            ...(!second && { continue: 'page-2' }),
          },
          items: [{ metadata: { name: second ? 'b' : 'a', namespace: 'ns' } }],
        }),
      );
    });
    servers.push(fake.server);
    const seen: string[] = [];
    const client = ClientNodeRuntimeKubeClient.fromKubeconfig(fake.kubeconfig, {
      pageSize: 1,
      onRequest: (verb, status) => seen.push(`${verb} ${String(status)}`),
    });
    const listed = await client.list(CM, { namespace: 'ns' });
    expect(listed.resourceVersion).toBe('7');
    expect(listed.items).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'ns' } },
    ]);
    expect(fake.urls.filter((u) => u.startsWith('/api/v1/namespaces/ns/configmaps'))).toEqual([
      '/api/v1/namespaces/ns/configmaps?limit=1',
      '/api/v1/namespaces/ns/configmaps?limit=1&continue=page-2',
    ]);
    expect(seen).toEqual(['discovery 200', 'list 200', 'list 200']);
  });

  it('passes watch events and bookmarks on, and ends with KUBE_GONE on an ERROR 410 event', async () => {
    const fake = await fakeApiServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.write(
        `${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', namespace: 'ns', resourceVersion: '8' } } })}\n`,
      );
      res.write(
        `${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'ConfigMap', metadata: { resourceVersion: '12' } } })}\n`,
      );
      res.end(
        `${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 7 (12)' } })}\n`,
      );
    });
    servers.push(fake.server);
    const client = ClientNodeRuntimeKubeClient.fromKubeconfig(fake.kubeconfig);
    const events: WatchEvent[] = [];
    const stream = client.watch(
      CM,
      { namespace: 'ns', resourceVersion: '7', timeoutSeconds: 300 },
      (e) => events.push(e),
    );
    await expect(stream.ended).rejects.toMatchObject({
      code: KubeApiErrorCode.Gone,
      message: 'too old resource version: 7 (12)',
    });
    expect(events).toEqual([
      {
        type: 'ADDED',
        object: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'a', namespace: 'ns', resourceVersion: '8' },
        },
      },
      { type: 'BOOKMARK', resourceVersion: '12' },
    ]);
    const watchUrl = new URL(fake.urls.find((u) => u.includes('watch=true')) ?? '', 'http://x');
    expect(Object.fromEntries(watchUrl.searchParams)).toEqual({
      watch: 'true',
      resourceVersion: '7',
      allowWatchBookmarks: 'true',
      timeoutSeconds: '300',
    });
  });

  it('ends a watch the server refuses with the status as KubeApiError', async () => {
    const fake = await fakeApiServer((_req, res) => {
      res.statusCode = 403;
      res.end('{"kind":"Status","code":403}');
    });
    servers.push(fake.server);
    const client = ClientNodeRuntimeKubeClient.fromKubeconfig(fake.kubeconfig);
    const stream = client.watch(CM, { resourceVersion: '1' }, () => undefined);
    await expect(stream.ended).rejects.toMatchObject({ code: KubeApiErrorCode.Forbidden });
  });

  it('cuts a watch that stays open past its time limit', async () => {
    const fake = await fakeApiServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.write('\n'); // and never ends
    });
    servers.push(fake.server);
    const client = ClientNodeRuntimeKubeClient.fromKubeconfig(fake.kubeconfig, {
      watchGraceMs: 50,
    });
    const stream = client.watch(CM, { resourceVersion: '1', timeoutSeconds: 0 }, () => undefined);
    await expect(stream.ended).rejects.toMatchObject({ code: 'KUBE_UNREACHABLE' });
    fake.server.closeAllConnections();
  });
});
