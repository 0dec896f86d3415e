import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSushy } from '../../scripts/hub/sushy.mjs';
import type { RunningSushy } from '../../scripts/hub/sushy.mjs';
import { bootFromIso, UndiciRedfishClient } from '../../src/bmac/redfish/index.js';
import { runCli } from '../../src/plugins/cli/main.js';

// BMCs serve Redfish over HTTPS, most with a certificate from their own CA. sushy-tools with
// TLS is the real peer here: the client verifies by default, trusts a CA it is given, and skips
// verification only when the BareMetalHost says disableCertificateVerification.
describe('Redfish over HTTPS against sushy-tools', () => {
  const credentials = { username: 'admin', password: 'sushy-Tls-Secret-31' };
  const iso = Buffer.alloc(128 * 1024, 0x41);
  let bmc: RunningSushy;
  let images: Server;
  let imageUrl: string;
  let dir: string;

  beforeAll(async () => {
    images = createServer((req, res) => {
      const found = req.url === '/images/discovery.iso';
      res.writeHead(found ? 200 : 404, { 'content-length': found ? iso.length : 0 });
      res.end(found && req.method !== 'HEAD' ? iso : undefined);
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imageUrl = `http://127.0.0.1:${String((images.address() as AddressInfo).port)}/images/discovery.iso`;
    bmc = await startSushy({ auth: credentials, tls: true });
    dir = mkdtempSync(join(tmpdir(), 'siteforge-sushy-tls-'));
    writeFileSync(join(dir, 'username'), `${credentials.username}\n`);
    writeFileSync(join(dir, 'password'), `${credentials.password}\n`);
  }, 180_000);
  afterAll(async () => {
    await bmc.stop();
    images.closeAllConnections();
    images.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = async (args: string[]) => {
    let stdout = '';
    let stderr = '';
    const status = await runCli(
      [
        'bmc',
        ...args,
        ...['--address', `redfish-virtualmedia+${bmc.url}`],
        ...['--username-file', 'username', '--password-file', 'password'],
      ],
      { cwd: dir, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
    );
    return { status, stdout, stderr };
  };

  it('serves HTTPS only', () => {
    expect(bmc.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(bmc.ca).toBeDefined();
  });

  it('refuses a certificate it cannot verify, and says how to trust it', async () => {
    const { status, stdout, stderr } = await cli(['info']);
    expect(status).toBe(3);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/certificate/i);
    expect(stderr).toMatch(/--ca FILE/);
    expect(stderr).toMatch(/disableCertificateVerification/);
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(stderr).not.toContain(credentials.password);
  });

  it('trusts the BMC’s CA when given one', async () => {
    const { status, stdout } = await cli(['info', '--ca', bmc.ca!]);
    expect(status).toBe(0);
    const info = JSON.parse(stdout) as { system: { path: string } };
    expect(info.system.path).toMatch(/^\/redfish\/v1\/Systems\//);
  });

  it('skips verification with --disable-certificate-verification', async () => {
    const { status } = await cli(['power', 'status', '--disable-certificate-verification']);
    expect(status).toBe(0);
  });

  it('boots the host from an ISO over a verified connection', async () => {
    const client = new UndiciRedfishClient({
      address: `redfish-virtualmedia+${bmc.url}`,
      credentials,
      ca: readFileSync(bmc.ca!),
      // The fake driver applies power changes after a random 1–11 s.
      powerPollMs: 250,
      powerTimeoutMs: 30_000,
      mediaPollMs: 100,
    });
    try {
      const result = await bootFromIso(client, imageUrl, { bootMode: 'UEFI' });
      expect(result.progress.step).toBe('Done');
      const slots = await client.getMediaSlots();
      expect(slots.find((s) => s.inserted)?.image).toBe(imageUrl);
      expect((await client.getSystem()).powerState).toBe('On');
    } finally {
      await client.close();
    }
  }, 90_000);
});
