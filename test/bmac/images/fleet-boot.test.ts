import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startImageServer } from '../../../src/bmac/images/index.js';
import { bootFromIso, UndiciRedfishClient } from '../../../src/bmac/redfish/index.js';
import { startBmcFleet } from '../../../src/bmac/redfish/sim/index.js';

// The whole story of issue 6 in one test: a fleet of BMCs that read the ISO when it is
// inserted (like real ones), a long source URL that BMCs would choke on, the short URL the
// image server hands out, and one upstream download for all of them.
describe('a fleet of BMCs booting one ISO through the image server', () => {
  it('boots every host from the short URL with a single upstream download', async () => {
    const iso = randomBytes(256 * 1024);
    let upstreamGets = 0;
    const upstream = createServer((req, res) => {
      upstreamGets++;
      res.writeHead(200, { 'content-length': iso.length });
      res.end(iso);
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const port = (upstream.address() as AddressInfo).port;
    const source = `http://127.0.0.1:${String(port)}/byapikey/${'eyJhbGciOiJIUzI1NiJ9'.repeat(14)}/4.14/x86_64/minimal.iso?type=minimal-iso`;
    const cacheDir = mkdtempSync(join(tmpdir(), 'siteforge-fleet-images-'));
    const images = await startImageServer({ cacheDir, key: randomBytes(32) });
    const fleet = await startBmcFleet({ count: 24, power: 'On', fetchImage: true });
    const clients = fleet.bmcs.map(
      (bmc) =>
        new UndiciRedfishClient({
          address: bmc.address,
          credentials: bmc.credentials,
          powerPollMs: 10,
          mediaPollMs: 10,
          minTaskPollMs: 5,
        }),
    );
    try {
      const url = await images.urlFor(source);
      expect(source.length).toBeGreaterThan(300);
      expect(url.length).toBeLessThan(100);
      await Promise.all(clients.map((client) => bootFromIso(client, url)));
      expect(fleet.bmcs.map((bmc) => bmc.state().bootedImage)).toEqual(fleet.bmcs.map(() => url));
      expect(upstreamGets).toBe(1);
      expect(images.stats.upstreamDownloads).toBe(1);

      // A URL that expired is refused by the image server, so the BMC refuses the insert.
      const expired = await images.urlFor(source, -1);
      const err = await bootFromIso(clients[0]!, expired).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 400, messageId: 'IDRAC.2.8.RAC0720' });
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await fleet.stop();
      await images.stop();
      upstream.closeAllConnections();
      upstream.close();
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
