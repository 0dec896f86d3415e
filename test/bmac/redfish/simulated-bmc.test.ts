import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bootFromIso, BootStep, UndiciRedfishClient } from '../../../src/bmac/redfish/index.js';
import type { UndiciRedfishClientOptions } from '../../../src/bmac/redfish/index.js';
import {
  ASROCKRACK,
  ASYNC_TASKS,
  errorBody,
  GENERIC,
  IDRAC10,
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
import { loopbackCert } from '../../support/loopback-cert.js';
import { skippingClock } from '../../support/skipping-clock.js';

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
      'On', // the host starts so the BIOS job applies the UEFI boot mode,
      'Off', // and goes back off;
      'Off', // LC068: ForceRestart, off at once,
      'On', // then on, applying the pending configuration
      'Off', // off again before the boot override is in place
      'On', // the workflow's power-on
    ]);
    expect(bmc.state().bootedImage).toBe(ISO);
  });

  it('ends sessions after their TTL; the client logs in again transparently', async () => {
    // The BMC's time moves only when the test says so, however slow the machine is.
    let now = 0;
    const bmc = await start({ personality: GENERIC, sessionTtlMs: 400, clock: { now: () => now } });
    const client = clientFor(bmc);
    await client.getSystem();
    now += 401;
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
    const { cert, key } = loopbackCert(dir);
    const bmc = await start({
      personality: GENERIC,
      tls: { key, cert },
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

describe('iDRAC10, Tacklebox settings, Dell’s boot-mode BIOS job and AMI full boot requests', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });
  /** A simulated BMC and a client on one fake clock. */
  async function host(
    personality: Personality,
    power: 'On' | 'Off' = 'Off',
    extra: Partial<UndiciRedfishClientOptions> = {},
  ) {
    const clock = skippingClock();
    const bmc = await startSimulatedBmc({ personality, power, clock });
    const client = new UndiciRedfishClient({
      address: bmc.address,
      credentials: bmc.credentials,
      ...FAST,
      clock,
      ...extra,
    });
    cleanup.push(
      () => bmc.stop(),
      () => client.close(),
    );
    return { bmc, client, clock };
  }
  const powerEvents = (bmc: SimulatedBmc) =>
    bmc.events.filter((e) => e.kind === 'power').map((e) => e.detail);
  const patchBoot = (bmc: SimulatedBmc, boot: Record<string, string>) =>
    fetch(`${bmc.origin}/redfish/v1/Systems/${bmc.personality.systemId}`, {
      method: 'PATCH',
      headers: {
        authorization: `Basic ${Buffer.from('admin:password').toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ Boot: boot }),
    });

  it('inserts into iDRAC10 slot 1 only, though the BMC lists slot 2 first', async () => {
    const { bmc, client } = await host(IDRAC10);
    expect((await client.discover()).quirks).toEqual(['dell', 'dell-idrac10']);
    await bootFromIso(client, ISO);
    expect(bmc.counts['POST InsertMedia']).toBe(1);
    expect(bmc.state().slots).toEqual([
      { id: '2', image: undefined, inserted: false },
      { id: '1', image: ISO, inserted: true },
    ]);
    expect(bmc.state().bootedImage).toBe(ISO);
    // Boot settings went to the SettingsObject, never to the System.
    expect(bmc.counts['PATCH /Systems/System.Embedded.1/Settings']).toBe(2);
    expect(bmc.counts['PATCH /Systems/{id}']).toBeUndefined();
  });

  it('without the iDRAC10 rule the image lands in slot 2 and the host boots from disk', async () => {
    // The same BMC with a 16G Manager: the client sees an iDRAC9 and takes the first slot.
    const { bmc, client } = await host({ ...IDRAC10, managerModel: '16G Monolithic' });
    await bootFromIso(client, ISO);
    expect(bmc.state().slots.find((s) => s.inserted)?.id).toBe('2');
    expect(bmc.state().bootedImage).toBeUndefined();
  });

  it('waits out iDRAC10’s 409 to "On" right after a power-off, 10 s at a time', async () => {
    const { bmc, client, clock } = await host(
      { ...IDRAC10, powerOnConflictMs: 15_000, powerDelayMs: 0 },
      'On',
    );
    await bootFromIso(client, ISO);
    // Twice: the start for the BIOS job, and the workflow's power-on, each right after an Off.
    expect(clock.sleeps.filter((ms) => ms === 10_000)).toHaveLength(4);
    expect(bmc.counts['POST Reset']).toBe(8); // off, 2 × (on refused twice, on), off
    expect(bmc.state().bootedImage).toBe(ISO);
  });

  it.each(['Settings', 'SD'] as const)(
    'sends the boot PATCH to {System}/%s when the System refuses it (Tacklebox)',
    async (where) => {
      const { bmc, client } = await host({
        ...GENERIC,
        name: `boot-in-${where}`,
        hiddenBootSettings: where,
      });
      await bootFromIso(client, ISO);
      // Refused once; after that the client goes straight to the resource that took it.
      expect(bmc.counts['PATCH /Systems/{id}']).toBe(1);
      expect(bmc.counts[`PATCH /Systems/1/${where}`]).toBe(2); // mode, then target
      expect(bmc.state().boot).toMatchObject({ mode: 'UEFI' });
      expect(bmc.state().bootedImage).toBe(ISO);
    },
  );

  it('reports the System’s own error when neither /Settings nor /SD takes the boot', async () => {
    const { bmc, client } = await host(GENERIC);
    bmc.script({
      method: 'PATCH',
      path: /\/Systems\/1$/,
      times: 1,
      action: {
        status: 400,
        body: errorBody('Base.1.8.PropertyValueNotInList', 'BootSourceOverrideTarget Cd'),
      },
    });
    await expect(client.setBootOverride({ target: 'Cd' })).rejects.toMatchObject({
      status: 400,
      method: 'PATCH',
      path: '/redfish/v1/Systems/1',
      messageId: 'Base.1.8.PropertyValueNotInList',
    });
    expect(bmc.counts['GET /Systems/1/Settings']).toBe(1);
    expect(bmc.counts['GET /Systems/1/SD']).toBe(1);
  });

  it('never writes the boot elsewhere because the System was busy or in conflict', async () => {
    const { bmc, client } = await host({ ...GENERIC, hiddenBootSettings: 'Settings' });
    bmc.script({
      method: 'PATCH',
      path: /\/Systems\/1$/,
      times: 1,
      action: { status: 409, body: errorBody('Base.1.8.ResourceInUse', 'Boot') },
    });
    await expect(client.setBootOverride({ target: 'Cd' })).rejects.toMatchObject({
      status: 409,
      path: '/redfish/v1/Systems/1',
    });
    // The Settings resource would have taken it, and would have hidden the System's answer.
    expect(bmc.counts['GET /Systems/1/Settings'] ?? 0).toBe(0);
    expect(bmc.counts['PATCH /Systems/1/Settings'] ?? 0).toBe(0);
  });

  it('resumes a Dell boot-mode BIOS job already pending without a second mode PATCH', async () => {
    const { bmc, client } = await host({ ...IDRAC10, bootModeJobMs: 40_000, powerDelayMs: 0 });
    const settings = `/redfish/v1/Systems/${IDRAC10.systemId}/Settings`;
    // The crashed run got as far as the mode PATCH; its checkpoint says BootOverride.
    await client.insertMedia(ISO);
    const patched = await fetch(`${bmc.origin}${settings}`, {
      method: 'PATCH',
      headers: {
        authorization: `Basic ${Buffer.from('admin:password').toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ Boot: { BootSourceOverrideMode: 'UEFI' } }),
    });
    expect(patched.ok).toBe(true);
    await bootFromIso(client, ISO, { progress: { imageUrl: ISO, step: BootStep.BootOverride } });
    const modeEvents = bmc.events.filter((e) => e.kind === 'boot-mode').map((e) => e.detail);
    expect(modeEvents).toEqual(['UEFI pending a BIOS job', 'UEFI']);
    expect(bmc.counts[`PATCH /Systems/${IDRAC10.systemId}/Settings`]).toBe(2); // ours, the target
    expect(bmc.state().bootedImage).toBe(ISO);
  });

  it('restarts a Dell host for the boot-mode BIOS job, reads it every 15 s, then powers off', async () => {
    const { bmc, client, clock } = await host({
      ...IDRAC9,
      bootModeJobMs: 40_000,
      powerDelayMs: 0,
    });
    await bootFromIso(client, ISO);
    // Read at once, then at 15, 30 and 45 s: the job ends at 40 s.
    expect(clock.sleeps.filter((ms) => ms === 15_000)).toHaveLength(3);
    expect(powerEvents(bmc)).toEqual(['On', 'Off', 'On']);
    expect(
      bmc.events.filter((e) => e.kind === 'boot-mode' || e.kind === 'boot').map((e) => e.detail),
    ).toEqual(['UEFI pending a BIOS job', 'disk', 'UEFI', ISO]);
    expect(bmc.state().bootedImage).toBe(ISO);
  });

  it('keeps a running Dell host running after the boot-mode restart', async () => {
    const { bmc, client } = await host({ ...IDRAC9, powerDelayMs: 0 }, 'On');
    await client.setBootOverride({ mode: 'UEFI' });
    expect(powerEvents(bmc)).toEqual(['Off', 'On']);
    expect(bmc.state()).toMatchObject({ power: 'On', boot: { mode: 'UEFI' } });
  });

  it('gives up on a Dell boot mode that never reads back, naming the System', async () => {
    const { bmc, client, clock } = await host(
      { ...IDRAC9, bootModeJobMs: 3_600_000, powerDelayMs: 0 },
      'Off',
      { bootModePollMs: 20_000, bootModeTimeoutMs: 120_000 },
    );
    await expect(client.setBootOverride({ mode: 'UEFI' })).rejects.toMatchObject({
      code: 'REDFISH_TIMEOUT',
      path: '/redfish/v1/Systems/System.Embedded.1',
      message: expect.stringContaining('BootSourceOverrideMode UEFI') as unknown,
    });
    expect(clock.sleeps.filter((ms) => ms === 20_000)).toHaveLength(6);
    expect(bmc.state().power).toBe('Off'); // as it was
  });

  it('gives up after 900 s by default', async () => {
    const { client, clock } = await host({
      ...IDRAC9,
      bootModeJobMs: 3_600_000,
      powerDelayMs: 0,
    });
    await expect(client.setBootOverride({ mode: 'UEFI' })).rejects.toMatchObject({
      code: 'REDFISH_TIMEOUT',
    });
    expect(clock.sleeps.filter((ms) => ms === 15_000)).toHaveLength(60);
  });

  it('sends ASRockRack (AMI) Target, Enabled and Mode in one PATCH; it refuses less', async () => {
    const { bmc, client } = await host(ASROCKRACK);
    const refused = await patchBoot(bmc, { BootSourceOverrideTarget: 'Cd' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: {
        '@Message.ExtendedInfo': [
          {
            MessageId: 'Base.1.12.PropertyMissing',
            RelatedProperties: ['#/Boot/BootSourceOverrideEnabled'],
          },
        ],
      },
    });
    expect(bmc.state().boot.target).toBe('None');

    await bootFromIso(client, ISO);
    expect(bmc.counts['PATCH /Systems/Self']).toBe(2); // the refused one, and the client's
    expect(bmc.state().bootedImage).toBe(ISO);
  });

  it('a client that does not know the board is AMI fails against it', async () => {
    const { client } = await host({ ...ASROCKRACK, manufacturer: 'Contoso' });
    await expect(bootFromIso(client, ISO)).rejects.toMatchObject({
      status: 400,
      messageId: 'Base.1.12.PropertyMissing',
    });
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
