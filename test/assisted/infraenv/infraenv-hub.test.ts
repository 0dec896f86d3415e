import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gvk } from '../../../src/bmac/api.js';
import { startImageServer } from '../../../src/bmac/images/index.js';
import type { ImageServer } from '../../../src/bmac/images/index.js';
import { Manager } from '../../../src/bmac/runtime/manager.js';
import { RuntimeMetrics } from '../../../src/bmac/runtime/metrics.js';
import { ImageServerDiscoveryIsos } from '../../../src/assisted/discovery/index.js';
import {
  INFRAENV_FINALIZER,
  InfraEnvController,
  NMStateConfigGvk,
} from '../../../src/assisted/infraenv/index.js';
import { ClientNodeRuntimeKubeClient } from '../../../src/kube/index.js';
import { createLogger } from '../../../src/shared/logger.js';
import { buildTestIso, coreosInstaller } from '../../support/coreos-installer.js';
import { hubClient, hubKubeconfig, useNamespace, waitUntil } from '../../support/hub.js';

const FM = { fieldManager: 'siteforge-test' };

describe('InfraEnv controller on the hub', () => {
  const ns = useNamespace('infraenv');
  let dir: string;
  let origin: Server;
  let images: ImageServer;
  let manager: Manager;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sf-infraenv-hub-'));
    const iso = await buildTestIso(dir);
    const size = (await stat(iso)).size;
    origin = createServer((_req, res) => {
      res.writeHead(200, { 'content-length': size });
      createReadStream(iso).pipe(res);
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    const port = (origin.address() as AddressInfo).port;
    images = await startImageServer({ cacheDir: join(dir, 'cache'), key: randomBytes(32) });
    const isos = new ImageServerDiscoveryIsos(images);
    const baseUrl = `http://127.0.0.1:${String(port)}/live.iso`;
    // As at startup: else the first pass finds it downloading and looks again 20 s later.
    await isos.prefetch(baseUrl);
    manager = new Manager({
      client: ClientNodeRuntimeKubeClient.fromKubeconfig(hubKubeconfig()),
      log: createLogger({ level: 'silent' }),
      metrics: new RuntimeMetrics(),
      namespaces: [ns.name],
      backoff: { baseMs: 50, maxMs: 1_000 },
    }).add(
      new InfraEnvController({
        privateKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
        isos,
        osImages: [
          {
            openshiftVersion: '4.16',
            version: '416.94',
            url: baseUrl,
          },
        ],
        serviceBaseUrl: 'https://hub.example:8090',
      }),
    );
    manager.start();
    await manager.waitForSync(30_000);
  }, 120_000);

  afterAll(async () => {
    await manager.stop();
    await images.stop();
    await new Promise((resolve) => origin.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  const infraEnvRef = () => ({ ...Gvk.InfraEnv, namespace: ns.name, name: 'site' });
  const statusOf = async () =>
    ((await hubClient().get(infraEnvRef()))?.['status'] ?? {}) as Record<string, unknown>;
  const reason = async () =>
    ((await statusOf())['conditions'] as { reason: string }[] | undefined)?.[0]?.reason;

  it('serves a discovery ISO coreos-installer reads, regenerated when an NMStateConfig comes', async () => {
    const kube = hubClient();
    await kube.apply(
      {
        ...Gvk.Secret,
        metadata: { namespace: ns.name, name: 'pull-secret' },
        type: 'kubernetes.io/dockerconfigjson',
        data: {
          '.dockerconfigjson': Buffer.from('{"auths":{"q":{"auth":"eDp5"}}}').toString('base64'),
        },
      },
      FM,
    );
    await kube.apply(
      {
        ...Gvk.InfraEnv,
        metadata: { namespace: ns.name, name: 'site' },
        spec: {
          pullSecretRef: { name: 'pull-secret' },
          nmStateConfigLabelSelector: { matchLabels: { site: 'a' } },
        },
      },
      FM,
    );
    // The base downloads first: "Image has been created", then the URL.
    await waitUntil('the ISO URL', async () => (await reason()) === 'InfraEnvAvailable', 30_000);
    const first = await statusOf();
    const stored = (await kube.get(infraEnvRef()))!;
    expect(stored.metadata['finalizers']).toEqual([INFRAENV_FINALIZER]);
    const uid = String(stored.metadata['uid']);

    const body = Buffer.from(await (await fetch(String(first['isoDownloadURL']))).arrayBuffer());
    const file = join(dir, 'site.iso');
    await writeFile(file, body);
    const ignition = await coreosInstaller('iso', 'ignition', 'show', file);
    expect(ignition).toContain(`--infra-env-id ${uid} `);
    expect(ignition).not.toContain('/etc/assisted/network');

    await kube.apply(
      {
        ...NMStateConfigGvk,
        metadata: { namespace: ns.name, name: 'host-0', labels: { site: 'a' } },
        spec: {
          config: { interfaces: [{ name: 'eth0', type: 'ethernet', state: 'up' }] },
          interfaces: [{ name: 'eth0', macAddress: '52:54:00:00:00:01' }],
        },
      },
      FM,
    );
    await waitUntil(
      'a new ISO URL',
      async () => (await statusOf())['isoDownloadURL'] !== first['isoDownloadURL'],
      30_000,
    );
    const second = await statusOf();
    const again = Buffer.from(await (await fetch(String(second['isoDownloadURL']))).arrayBuffer());
    await writeFile(file, again);
    expect(await coreosInstaller('iso', 'ignition', 'show', file)).toContain(
      '/etc/assisted/network/host0/mac_interface.ini',
    );

    await kube.delete(infraEnvRef());
    await waitUntil('the InfraEnv gone', async () => (await kube.get(infraEnvRef())) === undefined);
  });
});
