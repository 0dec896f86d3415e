import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSushy } from '../../scripts/hub/sushy.mjs';
import type { RunningSushy } from '../../scripts/hub/sushy.mjs';

// The Redfish peer of later BMC tests: sushy-tools' emulator from the project virtualenv
// (installed from PyPI on first use), with HTTP Basic auth.
describe('the sushy-tools Redfish emulator', () => {
  const auth = { username: 'admin', password: 'redfish-test-password' };
  let bmc: RunningSushy;

  beforeAll(async () => {
    bmc = await startSushy({ auth });
  }, 180_000);
  afterAll(async () => {
    await bmc.stop();
  });

  it('serves the service root to anyone, as Redfish requires', async () => {
    const res = await fetch(`${bmc.url}/redfish/v1`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { RedfishVersion?: string }).RedfishVersion).toMatch(/^1\./);
  });

  it('refuses /redfish/v1/Systems without credentials and serves it with them', async () => {
    const url = `${bmc.url}/redfish/v1/Systems`;
    expect((await fetch(url)).status).toBe(401);

    const basic = Buffer.from(`${auth.username}:${auth.password}`).toString('base64');
    const res = await fetch(url, { headers: { authorization: `Basic ${basic}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { Members: { '@odata.id': string }[] };
    expect(body.Members.length).toBeGreaterThan(0);
    expect(body.Members[0]?.['@odata.id']).toMatch(/^\/redfish\/v1\/Systems\//);
  });
});
