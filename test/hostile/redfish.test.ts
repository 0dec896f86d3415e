import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bootFromIso, UndiciRedfishClient } from '../../src/bmac/redfish/index.js';
import {
  errorBody,
  GENERIC,
  LENOVO_XCC,
  PERSONALITIES,
  startSimulatedBmc,
} from '../../src/bmac/redfish/sim/index.js';
import type { SimulatedBmc, SimulatedBmcOptions } from '../../src/bmac/redfish/sim/index.js';
import { runCli } from '../../src/plugins/cli/main.js';
import { skippingClock } from '../support/skipping-clock.js';

// A BMC is not to be trusted to behave, nor to keep what it is told to itself: these are the
// ways a BMC (or our simulator of one) was caught misleading an operator or leaking a secret.

const USERNAME = 'operator';
const PASSWORD = 'Hostile-Bmc-Secret-41';
const OLD_ISO = 'http://10.0.0.1/images/old.iso';
const ISO = 'http://10.0.0.1/images/new.iso';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function start(options: Partial<SimulatedBmcOptions> = {}): Promise<SimulatedBmc> {
  const bmc = await startSimulatedBmc({
    personality: { ...GENERIC, powerDelayMs: 0 },
    power: 'Off',
    credentials: { username: USERNAME, password: PASSWORD },
    ...options,
  });
  cleanup.push(() => bmc.stop());
  return bmc;
}

/** `siteforge bmc <args>` against `bmc`, with credential files holding `password`. */
async function bmcCli(bmc: SimulatedBmc, args: string[], password = PASSWORD) {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-hostile-bmc-'));
  cleanup.push(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  writeFileSync(join(dir, 'username'), `${USERNAME}\n`);
  writeFileSync(join(dir, 'password'), `${password}\n`);
  let stdout = '';
  let stderr = '';
  const status = await runCli(
    [
      'bmc',
      ...args,
      ...['--address', bmc.address, '--username-file', 'username', '--password-file', 'password'],
    ],
    { cwd: dir, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
  );
  return { status, stdout, stderr };
}

describe('virtual media a BMC will not let go of', () => {
  it('siteforge bmc eject fails when a CD stays in a slot that offers no way to eject it', async () => {
    // Lenovo's Remote1 slot takes no image over Redfish, but holds what an operator mounted
    // from the console; it has no EjectMedia action and no PATCH.
    const bmc = await start({
      personality: { ...LENOVO_XCC, powerDelayMs: 0 },
      insertedImage: OLD_ISO,
      insertedSlot: 'Remote1',
    });
    const { status, stdout, stderr } = await bmcCli(bmc, ['eject']);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/slot Remote1 holds .*old\.iso but offers no way to eject it/);
    expect(bmc.state().slots.find((s) => s.id === 'Remote1')).toMatchObject({ inserted: true });
  });

  it('ejects a slot that shows Inserted while it is NotConnected (still mounting) before the insert', async () => {
    // iRMC mounts asynchronously: an image inserted a moment ago reads Inserted: true with
    // ConnectedVia: NotConnected. It is not empty, and the new insert is refused until it goes.
    const clock = skippingClock();
    const bmc = await start({
      personality: { ...GENERIC, powerDelayMs: 0, mountMs: 200 },
      insertedImage: OLD_ISO,
      clock,
    });
    const client = new UndiciRedfishClient({
      address: bmc.address,
      credentials: bmc.credentials,
      clock,
      mediaPollMs: 20,
      powerPollMs: 20,
    });
    cleanup.push(() => client.close());
    const [slot] = await client.getMediaSlots();
    expect(slot).toMatchObject({ inserted: true, connectedVia: 'NotConnected', image: OLD_ISO });

    await bootFromIso(client, ISO);
    expect(bmc.counts['POST EjectMedia']).toBe(1);
    // The client waited for the new image to mount before powering on, so the host booted it.
    expect(bmc.state().bootedImage).toBe(ISO);
  });
});

describe('credentials a BMC repeats in its errors', () => {
  it('are not printed when a refused login quotes the password back', async () => {
    const bmc = await start({ faults: { echoCredentials: true } });
    const wrong = 'Wrong-Secret-Quoted-Back-9';
    const { status, stderr } = await bmcCli(bmc, ['info'], wrong);
    expect(status).toBe(1);
    expect(stderr).toMatch(/401/);
    expect(stderr).toContain('<redacted>');
    expect(stderr).not.toContain(wrong);
    expect(stderr).not.toContain(Buffer.from(`${USERNAME}:${wrong}`).toString('base64'));
  });

  it('are not printed when a failed action quotes the session token back', async () => {
    const bmc = await start({ faults: { echoCredentials: true } });
    bmc.script({
      method: 'POST',
      path: /InsertMedia$/,
      times: 10,
      action: {
        status: 400,
        body: errorBody('Base.1.8.ActionParameterValueFormatError', 'The request was refused'),
      },
    });
    const { status, stderr } = await bmcCli(bmc, ['boot-iso', '--image', ISO]);
    expect(status).toBe(1);
    expect(stderr).toMatch(
      /InsertMedia: 400 .*The request was refused \(request: X-Auth-Token <redacted>\)/,
    );
    expect(stderr).not.toMatch(/[0-9a-f]{32}/);
    expect(stderr).not.toContain(PASSWORD);
  });
});

describe('the simulated BMC’s sessions', () => {
  async function login(bmc: SimulatedBmc) {
    const res = await fetch(`${bmc.origin}/redfish/v1/SessionService/Sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ UserName: USERNAME, Password: PASSWORD }),
    });
    expect(res.status).toBe(201);
    return { token: res.headers.get('x-auth-token')!, uri: res.headers.get('location')! };
  }
  const get = (bmc: SimulatedBmc, path: string, token: string) =>
    fetch(`${bmc.origin}${path}`, { headers: { 'x-auth-token': token } });

  it('lists and serves sessions without their tokens', async () => {
    const bmc = await start();
    const mine = await login(bmc);
    const other = await login(bmc);
    const list = await get(bmc, '/redfish/v1/SessionService/Sessions', mine.token);
    const text = await list.text();
    expect(JSON.parse(text)).toMatchObject({
      Members: [{ '@odata.id': mine.uri }, { '@odata.id': other.uri }],
    });
    const member = await get(bmc, other.uri, mine.token);
    expect(member.status).toBe(200);
    const body = await member.text();
    expect(JSON.parse(body)).toMatchObject({
      '@odata.type': '#Session.v1_7_0.Session',
      UserName: USERNAME,
    });
    for (const shown of [text, body, other.uri]) {
      expect(shown).not.toContain(mine.token);
      expect(shown).not.toContain(other.token);
    }
  });

  it('ends a session on DELETE: its token stops working at once', async () => {
    const bmc = await start();
    const { token, uri } = await login(bmc);
    expect((await get(bmc, '/redfish/v1/Systems', token)).status).toBe(200);
    const deleted = await fetch(`${bmc.origin}${uri}`, {
      method: 'DELETE',
      headers: { 'x-auth-token': token },
    });
    expect(deleted.status).toBe(204);
    expect((await get(bmc, '/redfish/v1/Systems', token)).status).toBe(401);
    const other = await login(bmc);
    expect((await get(bmc, uri, other.token)).status).toBe(404);
  });

  it.each(Object.keys(PERSONALITIES))(
    'types every resource that %s links (@odata.type)',
    async (name) => {
      const bmc = await start({ personality: PERSONALITIES[name]! });
      const { token } = await login(bmc);
      const untyped: string[] = [];
      const seen = new Set<string>();
      const queue = ['/redfish/v1/'];
      // Bounded: a simulated BMC serves a few dozen resources.
      while (queue.length > 0 && seen.size < 200) {
        const path = queue.shift()!;
        if (seen.has(path)) continue;
        seen.add(path);
        const res = await get(bmc, path, token);
        expect(res.status, path).toBe(200);
        const body = (await res.json()) as Record<string, unknown>;
        if (typeof body['@odata.type'] !== 'string') untyped.push(path);
        queue.push(...links(body).filter((l) => l.startsWith('/redfish/v1/')));
      }
      expect(seen.size).toBeGreaterThan(5);
      expect(untyped).toEqual([]);
    },
  );
});

/** Every `@odata.id` in a body, at any depth, except the body's own. */
function links(body: unknown, top = true): string[] {
  if (Array.isArray(body)) return body.flatMap((v) => links(v, false));
  if (typeof body !== 'object' || body === null) return [];
  return Object.entries(body).flatMap(([key, value]) =>
    key === '@odata.id' && typeof value === 'string' ? (top ? [] : [value]) : links(value, false),
  );
}
