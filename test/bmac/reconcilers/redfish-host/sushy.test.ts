import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSushy } from '../../../../scripts/hub/sushy.mjs';
import type { RunningSushy } from '../../../../scripts/hub/sushy.mjs';
import { Gvk } from '../../../../src/bmac/api.js';
import { startImageServer } from '../../../../src/bmac/images/index.js';
import type { ImageServer } from '../../../../src/bmac/images/index.js';
import { UndiciRedfishClient } from '../../../../src/bmac/redfish/index.js';
import type { BootOverrideRequest } from '../../../../src/bmac/redfish/index.js';
import { imageUrlsOf } from '../../../../src/bmac/reconcilers/redfish-host/index.js';
import { Harness, NS } from './harness.js';

const SYSTEM = '/redfish/v1/Systems/27946b59-9e44-4fa7-8e91-f3527a1ef094';

// The controller against a Redfish service that is not ours: sushy-tools' emulator (fake
// driver), which downloads the image on insert, through the real image server.
describe('a BareMetalHost on sushy-tools', () => {
  const credentials = { username: 'admin', password: 'sushy-bmh-test-pw' };
  const iso = randomBytes(256 * 1024);
  let sushy: RunningSushy;
  let images: ImageServer;
  let cacheDir: string;
  const upstream = createServer((_req, res) => {
    res.writeHead(200, { 'content-length': iso.length });
    res.end(iso);
  });

  beforeAll(async () => {
    sushy = await startSushy({ auth: credentials });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    cacheDir = mkdtempSync(join(tmpdir(), 'siteforge-bmh-images-'));
    images = await startImageServer({ cacheDir, key: randomBytes(32) });
  }, 180_000);
  afterAll(async () => {
    await sushy.stop();
    await images.stop();
    upstream.closeAllConnections();
    upstream.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('boots: the emulator shows the short-URL ISO inserted, a one-time Cd override and power on', async () => {
    const port = (upstream.address() as AddressInfo).port;
    const source = `http://127.0.0.1:${String(port)}/byapikey/${'eyJhbGciOiJIUzI1NiJ9'.repeat(12)}/4.16/x86_64/minimal.iso?type=minimal-iso`;
    const overrides: BootOverrideRequest[] = [];
    const h = new Harness({
      images: imageUrlsOf(images),
      clients: (request) => {
        // The fake driver applies a power change after a random 1–11 s.
        const client = new UndiciRedfishClient({
          ...request,
          powerPollMs: 250,
          powerTimeoutMs: 30_000,
          mediaPollMs: 100,
        });
        return {
          discover: () => client.discover(),
          getSystem: () => client.getSystem(),
          getMediaSlots: () => client.getMediaSlots(),
          setPower: (action, options) => client.setPower(action, options),
          ejectMedia: () => client.ejectMedia(),
          insertMedia: (url) => client.insertMedia(url),
          setBootMode: (mode) => client.setBootMode(mode),
          setBootOverride: (override) => {
            overrides.push(override ?? {});
            return client.setBootOverride(override);
          },
          close: () => client.close(),
        };
      },
    });
    try {
      h.cluster.seed(
        {
          ...Gvk.Secret,
          metadata: { name: 'sushy-bmc', namespace: NS },
          data: {
            username: Buffer.from(credentials.username).toString('base64'),
            password: Buffer.from(credentials.password).toString('base64'),
          },
        },
        {
          ...Gvk.BareMetalHost,
          metadata: {
            name: 'host-0',
            namespace: NS,
            annotations: { 'inspect.metal3.io': 'disabled' },
          },
          spec: {
            online: true,
            bmc: {
              address: `redfish-virtualmedia+${sushy.url}${SYSTEM}`,
              credentialsName: 'sushy-bmc',
            },
            image: { url: source, format: 'live-iso' },
          },
        },
      );

      await h.settle(['host-0']);

      expect(h.status('host-0')).toMatchObject({
        operationalStatus: 'OK',
        poweredOn: true,
        provisioning: { state: 'provisioned', image: { url: source } },
      });
      const basic = Buffer.from(`${credentials.username}:${credentials.password}`).toString(
        'base64',
      );
      const get = async (path: string) =>
        (await (
          await fetch(`${sushy.url}${path}`, { headers: { authorization: `Basic ${basic}` } })
        ).json()) as Record<string, unknown>;
      const cd = await get(`${SYSTEM}/VirtualMedia/Cd`);
      expect(cd).toMatchObject({ Inserted: true });
      expect(cd['Image']).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/images\/[a-z2-7]{16}\.[\w.-]+\.iso$/,
      );
      expect(String(cd['Image']).length).toBeLessThan(100);
      const system = await get(SYSTEM);
      expect(system).toMatchObject({ PowerState: 'On', Boot: { BootSourceOverrideTarget: 'Cd' } });
      // sushy-tools reads Enabled back as Continuous whatever it is sent; what was sent is Once.
      expect(overrides).toEqual([{ target: 'Cd', enabled: 'Once', mode: 'UEFI' }]);
      expect(images.stats.upstreamDownloads).toBe(1);
    } finally {
      await h.close();
    }
  }, 120_000);
});
