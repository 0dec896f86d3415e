import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bootFromIso, UndiciRedfishClient } from '../../../src/bmac/redfish/index.js';
import type { UndiciRedfishClientOptions } from '../../../src/bmac/redfish/index.js';
import {
  ASYNC_TASKS,
  errorBody,
  GENERIC,
  IDRAC9,
  ILO6,
  PERSONALITIES,
  startBmcFleet,
  startSimulatedBmc,
  SUPERMICRO,
} from '../../../src/bmac/redfish/sim/index.js';
import type {
  Personality,
  SimulatedBmc,
  SimulatedBmcOptions,
} from '../../../src/bmac/redfish/sim/index.js';

const ISO = 'http://10.0.0.1/images/ab12.iso';
const FAST: Partial<UndiciRedfishClientOptions> = {
  powerPollMs: 5,
  mediaPollMs: 5,
  minTaskPollMs: 5,
  insertRetryDelayMs: 5,
  retry: { attempts: 6, baseDelayMs: 5, maxDelayMs: 20 },
};

describe('the simulated BMC', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function start(options: SimulatedBmcOptions) {
    const bmc = await startSimulatedBmc(options);
    cleanup.push(() => bmc.stop());
    return bmc;
  }
  function clientFor(bmc: SimulatedBmc, extra: Partial<UndiciRedfishClientOptions> = {}) {
    const client = new UndiciRedfishClient({
      address: bmc.address,
      credentials: bmc.credentials,
      ...FAST,
      ...extra,
    });
    cleanup.push(() => client.close());
    return client;
  }
  const raw = (bmc: SimulatedBmc, path: string, init: RequestInit = {}) => {
    const basic = Buffer.from(`${bmc.credentials.username}:${bmc.credentials.password}`).toString(
      'base64',
    );
    return fetch(`${bmc.origin}${path}`, {
      ...init,
      headers: { authorization: `Basic ${basic}`, ...(init.headers as Record<string, string>) },
    });
  };

  it('boots the ISO only with media inserted, override on CD and power coming on', async () => {
    const bmc = await start({ personality: GENERIC, power: 'Off' });
    const client = clientFor(bmc);
    await client.setPower('On');
    expect(bmc.state().bootedImage).toBeUndefined(); // nothing inserted: disk

    await client.insertMedia(ISO);
    await client.setPower('ForceRestart');
    expect(bmc.state().bootedImage).toBeUndefined(); // no override: disk

    await client.setBootOverride({ mode: 'UEFI' });
    await client.setPower('ForceRestart');
    expect(bmc.state().bootedImage).toBe(ISO);

    // The one-time override is used up: the next boot is from disk.
    expect(bmc.state().boot).toMatchObject({ target: 'None', enabled: 'Disabled' });
    await client.setPower('ForceRestart');
    expect(bmc.state().bootedImage).toBeUndefined();
    expect(bmc.events.filter((e) => e.kind === 'boot').map((e) => e.detail)).toEqual([
      'disk',
      'disk',
      ISO,
      'disk',
    ]);
  });

  it('serves the service root to anyone and nothing else without credentials', async () => {
    const bmc = await start({ personality: GENERIC });
    expect((await fetch(`${bmc.origin}/redfish/v1/`)).status).toBe(200);
    const denied = await fetch(`${bmc.origin}/redfish/v1/Systems`);
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('reports power transitions as PoweringOn until they complete', async () => {
    const bmc = await start({ personality: { ...GENERIC, powerDelayMs: 1_000 }, power: 'Off' });
    const client = clientFor(bmc);
    expect(await client.setPower('On', { wait: false })).toBe('PoweringOn');
    expect(bmc.state().power).toBe('PoweringOn');
    await expect(client.setPower('On')).resolves.toBe('On');
  });

  it('serves weak ETags and accepts only their strong form back', async () => {
    const bmc = await start({ personality: ILO6 });
    const got = await raw(bmc, '/redfish/v1/Systems/1');
    const etag = got.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"\d+"$/);
    const patch = (ifMatch: string) =>
      raw(bmc, '/redfish/v1/Systems/1', {
        method: 'PATCH',
        headers: { 'if-match': ifMatch, 'content-type': 'application/json' },
        body: JSON.stringify({ Boot: { BootSourceOverrideTarget: 'Hdd' } }),
      });
    expect((await patch(etag)).status).toBe(412);
    expect((await patch(etag.slice(2))).status).toBe(204);
  });

  it('refuses a bodyless eject on iLO with 415, and the client always sends {}', async () => {
    const bmc = await start({ personality: ILO6, insertedImage: ISO });
    const eject = '/redfish/v1/Managers/1/VirtualMedia/2/Actions/VirtualMedia.EjectMedia';
    expect((await raw(bmc, eject, { method: 'POST' })).status).toBe(415);
    await clientFor(bmc).ejectMedia();
    expect(bmc.state().slots.find((s) => s.id === '2')?.inserted).toBe(false);
  });

  it('keeps reporting Inserted for a while after an eject, like iDRAC', async () => {
    const bmc = await start({
      personality: { ...IDRAC9, staleInsertedMs: 5_000 },
      insertedImage: ISO,
    });
    const slot = '/redfish/v1/Systems/System.Embedded.1/VirtualMedia/1';
    await raw(bmc, `${slot}/Actions/VirtualMedia.EjectMedia`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const body = (await (await raw(bmc, slot)).json()) as { Inserted: boolean; Image: string };
    expect(body).toMatchObject({ Inserted: true, Image: ISO });
    expect(bmc.state().slots[0]?.inserted).toBe(false);
  });

  it('ignores a Supermicro boot target sent without Enabled, and boots the CD only as UsbCd', async () => {
    const bmc = await start({ personality: SUPERMICRO });
    const patch = (boot: Record<string, string>) =>
      raw(bmc, '/redfish/v1/Systems/1', {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Boot: boot }),
      });
    expect((await patch({ BootSourceOverrideTarget: 'UsbCd' })).status).toBe(204);
    expect(bmc.state().boot.target).toBe('None');
    await patch({ BootSourceOverrideTarget: 'UsbCd', BootSourceOverrideEnabled: 'Once' });
    expect(bmc.state().boot).toMatchObject({ target: 'UsbCd', mode: 'Legacy' });

    // The client knows: UsbCd, Enabled always, and the mode re-sent after the target.
    const client = clientFor(bmc);
    await bootFromIso(client, ISO);
    expect(bmc.state().bootedImage).toBe(ISO);
    expect(bmc.counts['POST InsertMedia']).toBe(2); // the TransferProtocolType ladder
  });

  it('boots an idrac-virtualmedia host through Dell’s job, waiting out RAC0679', async () => {
    const bmc = await start({ personality: IDRAC9, power: 'Off' });
    bmc.script({
      method: 'POST',
      path: /ImportSystemConfiguration$/,
      times: 1,
      action: {
        status: 400,
        body: errorBody('IDRAC.2.8.RAC0679', 'A configuration job is already running'),
      },
    });
    // Fake time: the 15 s wait after RAC0679 passes at once.
    let now = Date.now();
    const sleeps: number[] = [];
    const clock = {
      now: () => now,
      sleep: (ms: number) => {
        sleeps.push(ms);
        now += ms;
        return new Promise<void>((resolve) => setTimeout(resolve, Math.min(ms, 5)));
      },
    };
    const client = clientFor(bmc, {
      clock,
      address: bmc.address.replace(/^redfish-virtualmedia/, 'idrac-virtualmedia'),
    });
    await bootFromIso(client, ISO);
    expect(bmc.counts['POST ImportSystemConfiguration']).toBe(2);
    expect(sleeps).toContain(15_000);
    expect(bmc.counts['PATCH /Systems/{id}']).toBe(1); // the boot mode only
    expect(bmc.events.map((e) => e.detail)).toContain('Cd/Once (OEM job)');
    expect(bmc.state().bootedImage).toBe(ISO);
  });

  it('reboots once on Dell LC068 (configuration pending), then boots the ISO', async () => {
    const bmc = await start({ personality: IDRAC9, power: 'Off' });
    bmc.script({
      method: 'POST',
      path: /ImportSystemConfiguration$/,
      times: 1,
      action: {
        status: 400,
        body: errorBody('IDRAC.2.8.LC068', 'Pending configuration values are already committed'),
      },
    });
    const client = clientFor(bmc, {
      address: bmc.address.replace(/^redfish-virtualmedia/, 'idrac-virtualmedia'),
    });
    await bootFromIso(client, ISO);
    expect(bmc.counts['POST ImportSystemConfiguration']).toBe(2);
    expect(bmc.events.filter((e) => e.kind === 'power').map((e) => e.detail)).toEqual([
      'Off', // ForceRestart: off at once,
      'On', // then on, applying the pending configuration
      'Off', // off again before the boot override is in place
      'On', // the workflow's power-on
    ]);
    expect(bmc.state().bootedImage).toBe(ISO);
  });

  it('ends sessions after their TTL; the client logs in again transparently', async () => {
    const bmc = await start({ personality: GENERIC, sessionTtlMs: 400 });
    const client = clientFor(bmc);
    await client.getSystem();
    await new Promise((r) => setTimeout(r, 500));
    await client.getSystem();
    bmc.expireSessions();
    await client.getSystem();
    expect(bmc.counts['POST Sessions']).toBe(3);
  });

  it('runs actions as tasks, and a stuck task ends in REDFISH_TIMEOUT', async () => {
    const bmc = await start({ personality: ASYNC_TASKS, power: 'Off' });
    const client = clientFor(bmc, { taskTimeoutMs: 200 });
    await client.setPower('On');
    expect(bmc.counts['GET TaskMonitor']).toBeGreaterThan(0);
    bmc.setFaults({ stuckTasks: true });
    await expect(client.setPower('ForceOff')).rejects.toMatchObject({
      code: 'REDFISH_TIMEOUT',
    });
  });

  it('answers scripted faults exactly: a 500 on a POST is not retried', async () => {
    const bmc = await start({ personality: GENERIC, power: 'Off' });
    bmc.script({ method: 'POST', path: /Reset$/, times: 1, action: { status: 500 } });
    await expect(clientFor(bmc).setPower('On')).rejects.toMatchObject({
      status: 500,
      method: 'POST',
      path: '/redfish/v1/Systems/1/Actions/ComputerSystem.Reset',
    });
    expect(bmc.counts['POST Reset']).toBe(1);
  });

  it('speaks TLS; the client verifies the certificate unless told not to', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'siteforge-bmc-tls-'));
    cleanup.push(() => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    });
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(join(dir, 'cert.pem'));
    const bmc = await start({
      personality: GENERIC,
      tls: { key: readFileSync(join(dir, 'key.pem')), cert },
    });
    expect(bmc.address).toMatch(/^redfish-virtualmedia\+https:/);
    await expect(clientFor(bmc).getSystem()).rejects.toMatchObject({ code: 'REDFISH_TRANSPORT' });
    await expect(
      clientFor(bmc, { disableCertificateVerification: true }).getSystem(),
    ).resolves.toMatchObject({ id: '1' });
    await expect(clientFor(bmc, { ca: cert }).getSystem()).resolves.toMatchObject({ id: '1' });
  });
});

describe('vendor quirks, end to end against their personalities', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });
  async function boot(
    personality: Personality,
    extra: Partial<UndiciRedfishClientOptions> = {},
    power: 'On' | 'Off' = 'Off',
  ) {
    const bmc = await startSimulatedBmc({ personality, power });
    const client = new UndiciRedfishClient({
      address: bmc.address,
      credentials: bmc.credentials,
      ...FAST,
      ...extra,
    });
    cleanup.push(
      () => bmc.stop(),
      () => client.close(),
    );
    const result = await bootFromIso(client, ISO);
    return { bmc, client, result };
  }

  it('boots through a SettingsObject when the System refuses Boot (Nokia, iDRAC10)', async () => {
    const { bmc } = await boot({
      ...GENERIC,
      name: 'nokia',
      manufacturer: 'Nokia',
      settingsObject: true,
      requireTransferProtocol: 'parameter-missing',
    });
    expect(bmc.counts['PATCH /Systems/{id}']).toBeUndefined();
    expect(bmc.counts['PATCH /Systems/1/Settings']).toBe(2); // mode, then target
    expect(bmc.state().bootedImage).toBe(ISO);
  });

  it('skips the boot mode where the System has none (HPE Gen9)', async () => {
    const { bmc } = await boot({ ...ILO6, bootModeField: false });
    expect(bmc.events.filter((e) => e.kind === 'boot-mode')).toEqual([]);
    expect(bmc.state().bootedImage).toBe(ISO);
  });

  it('finds Managers through Links.Managers when ManagedBy is missing (Huawei)', async () => {
    const { bmc } = await boot({ ...ILO6, linksManagers: true });
    expect(bmc.state().bootedImage).toBe(ISO);
  });

  it('skips a vKVM-only slot that refuses inserts and uses a DVD-only one (Cisco)', async () => {
    const { bmc } = await boot({
      ...GENERIC,
      slots: [
        { id: 'vKVM', mediaTypes: ['CD'], insertBy: 'action', rejectInsert: true },
        { id: 'DVD1', mediaTypes: ['DVD'], insertBy: 'action' },
      ],
      cdTargets: ['Cd'],
    });
    expect(bmc.state().slots).toEqual([
      { id: 'vKVM', image: undefined, inserted: false },
      { id: 'DVD1', image: ISO, inserted: true },
    ]);
    expect(bmc.state().bootedImage).toBe(ISO);
  });

  it('retries a boot PATCH refused during POST (iLO UnableToModifyDuringSystemPOST)', async () => {
    const bmc = await startSimulatedBmc({
      personality: { ...ILO6, postWindowMs: 1_000 },
      power: 'Off',
    });
    const sleeps: number[] = [];
    const client = new UndiciRedfishClient({
      address: bmc.address,
      credentials: bmc.credentials,
      ...FAST,
      // Fake time for the 5 s backoff, while the simulated POST window passes for real.
      clock: {
        now: Date.now,
        sleep: (ms) => {
          sleeps.push(ms);
          return new Promise((resolve) => setTimeout(resolve, Math.min(ms, 400)));
        },
      },
    });
    cleanup.push(
      () => bmc.stop(),
      () => client.close(),
    );
    await client.setPower('On');
    await client.setBootOverride({ mode: 'UEFI' });
    expect(sleeps.some((ms) => ms >= 2_500)).toBe(true);
    expect(bmc.state().boot).toMatchObject({ target: 'Cd', enabled: 'Once', mode: 'UEFI' });
  });
});

describe('a fleet of simulated BMCs with injected faults', () => {
  it('boots every host through latency, 503s and dropped connections on reads', async () => {
    const fleet = await startBmcFleet({
      count: 18,
      power: 'On',
      seed: 42,
      faults: { latencyMs: 1, jitterMs: 3, errorRate: 0.1, dropRate: 0.05, methods: ['GET'] },
    });
    const clients = fleet.bmcs.map(
      (bmc) =>
        new UndiciRedfishClient({ address: bmc.address, credentials: bmc.credentials, ...FAST }),
    );
    try {
      await Promise.all(
        fleet.bmcs.map((bmc, i) => bootFromIso(clients[i]!, `${ISO}?host=${String(i)}`)),
      );
      expect(fleet.boots.filter((b) => b.imageUrl !== undefined)).toHaveLength(18);
      for (const [i, bmc] of fleet.bmcs.entries())
        expect(bmc.state().bootedImage).toBe(`${ISO}?host=${String(i)}`);
      expect(new Set(fleet.bmcs.map((b) => b.personality.name))).toEqual(
        new Set(Object.keys(PERSONALITIES)),
      );
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await fleet.stop();
    }
  });
});
