import { afterEach, describe, expect, it } from 'vitest';
import {
  bootFromIso,
  BootStep,
  RedfishError,
  UndiciRedfishClient,
} from '../../../src/bmac/redfish/index.js';
import type {
  BootProgress,
  RedfishClient,
  UndiciRedfishClientOptions,
} from '../../../src/bmac/redfish/index.js';
import { PERSONALITIES, startSimulatedBmc } from '../../../src/bmac/redfish/sim/index.js';
import type { SimulatedBmc } from '../../../src/bmac/redfish/sim/index.js';

const ISO = 'http://10.0.0.1/images/6c1f.iso';
const OLD_ISO = 'http://10.0.0.1/images/old.iso';
const FAST: Partial<UndiciRedfishClientOptions> = {
  powerPollMs: 5,
  mediaPollMs: 5,
  minTaskPollMs: 5,
  insertRetryDelayMs: 5,
  retry: { attempts: 4, baseDelayMs: 5, maxDelayMs: 20 },
};

class Crash extends Error {}

/** The client, crashing (throwing) right after the n-th side effect has reached the BMC. */
function crashingAfter(client: RedfishClient, n: number): RedfishClient {
  let effects = 0;
  const effect =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const result = await fn(...args);
      if (++effects === n) throw new Crash(`crash after side effect ${String(n)}`);
      return result;
    };
  return {
    discover: () => client.discover(),
    getSystem: () => client.getSystem(),
    getMediaSlots: () => client.getMediaSlots(),
    setPower: effect((action, options) => client.setPower(action, options)),
    ejectMedia: effect(() => client.ejectMedia()),
    insertMedia: effect((url) => client.insertMedia(url)),
    setBootMode: effect((mode) => client.setBootMode(mode)),
    setBootOverride: effect((request) => client.setBootOverride(request)),
    close: () => client.close(),
  };
}

describe('bootFromIso, resumed after a crash at any point', () => {
  const open: { bmc: SimulatedBmc; clients: UndiciRedfishClient[] }[] = [];
  afterEach(async () => {
    for (const { bmc, clients } of open.splice(0)) {
      await Promise.all(clients.map((c) => c.close()));
      await bmc.stop();
    }
  });

  async function host(personality = 'generic') {
    const bmc = await startSimulatedBmc({
      personality: PERSONALITIES[personality]!,
      power: 'On',
      insertedImage: OLD_ISO,
    });
    const entry = { bmc, clients: [] as UndiciRedfishClient[] };
    open.push(entry);
    const client = () => {
      const c = new UndiciRedfishClient({
        address: bmc.address,
        credentials: bmc.credentials,
        ...FAST,
      });
      entry.clients.push(c);
      return c;
    };
    return { bmc, client };
  }

  const powerEvents = (bmc: SimulatedBmc) =>
    bmc.events.filter((e) => e.kind === 'power').map((e) => e.detail);

  it('runs the whole sequence on a host that is on with another ISO inserted', async () => {
    const { bmc, client } = await host();
    const result = await bootFromIso(client(), ISO);
    expect(result.performed).toEqual([
      'PowerOff',
      'Eject',
      'BootMode',
      'Insert',
      'BootOverride',
      'PowerOn',
    ]);
    expect(bmc.events.map((e) => `${e.kind} ${e.detail}`)).toEqual([
      'power Off',
      'eject CD1',
      'boot-mode UEFI',
      `insert CD1 ${ISO}`,
      'boot-override Cd/Once',
      'power On',
      `boot ${ISO}`,
    ]);
  });

  // Six side effects (power off, eject, boot mode, insert, boot override, power on); a crash
  // may come after any of them, or between a checkpoint and its side effect (it throws).
  it.each([1, 2, 3, 4, 5, 6])(
    'crash right after side effect %i: one insert, one power cycle, the ISO boots',
    async (n) => {
      const { bmc, client } = await host();
      let saved: BootProgress | undefined;
      const save = (p: BootProgress) => {
        saved = p;
      };
      await expect(
        bootFromIso(crashingAfter(client(), n), ISO, { checkpoint: save }),
      ).rejects.toThrow(Crash);
      const resumed = await bootFromIso(client(), ISO, {
        checkpoint: save,
        ...(saved ? { progress: saved } : {}),
      });
      expect(resumed.progress.step).toBe('Done');
      expect(bmc.counts['POST InsertMedia']).toBe(1);
      expect(powerEvents(bmc)).toEqual(['Off', 'On']);
      expect(bmc.state().bootedImage).toBe(ISO);
    },
  );

  it.each(Object.values(BootStep).filter((s) => s !== 'Done'))(
    'crash after writing the %s checkpoint, before acting on it',
    async (step) => {
      const { bmc, client } = await host();
      let saved: BootProgress | undefined;
      await expect(
        bootFromIso(client(), ISO, {
          checkpoint: (p) => {
            saved = p;
            if (p.step === step) throw new Crash(step);
          },
        }),
      ).rejects.toThrow(Crash);
      expect(saved?.step).toBe(step);
      await bootFromIso(client(), ISO, { ...(saved ? { progress: saved } : {}) });
      expect(bmc.counts['POST InsertMedia']).toBe(1);
      expect(powerEvents(bmc)).toEqual(['Off', 'On']);
      expect(bmc.state().bootedImage).toBe(ISO);
    },
  );

  it('does nothing when the checkpoint says Done for the same image', async () => {
    const { bmc, client } = await host();
    const before = bmc.requestCount;
    const result = await bootFromIso(client(), ISO, { progress: { imageUrl: ISO, step: 'Done' } });
    expect(result.performed).toEqual([]);
    expect(bmc.requestCount).toBe(before);
  });

  it('starts over when the checkpoint is for another image', async () => {
    const { bmc, client } = await host();
    const result = await bootFromIso(client(), ISO, {
      progress: { imageUrl: OLD_ISO, step: 'Done' },
    });
    expect(result.performed[0]).toBe('PowerOff');
    expect(bmc.state().bootedImage).toBe(ISO);
  });

  it('powers off and ejects again when someone changed the host after the checkpoint', async () => {
    const { bmc, client } = await host();
    const result = await bootFromIso(client(), ISO, {
      progress: { imageUrl: ISO, step: 'Insert' },
    });
    expect(result.performed).toEqual(['PowerOff', 'Eject', 'Insert', 'BootOverride', 'PowerOn']);
    expect(bmc.state().bootedImage).toBe(ISO);
  });

  it('ejects even a slot that already shows the same image (Dell stale Inserted)', async () => {
    const { bmc, client } = await host('idrac9');
    const c = client();
    await bootFromIso(c, ISO);
    await c.setPower('ForceOff');
    await bootFromIso(c, ISO);
    expect(bmc.counts['POST EjectMedia']).toBe(2);
    expect(bmc.counts['POST InsertMedia']).toBe(2);
    expect(bmc.state().bootedImage).toBe(ISO);
  });

  // A Dell host in Legacy mode, off, whose firmware boots inserted virtual media first: the
  // BIOS job of the boot-mode change takes a power-on, which must not boot the ISO as well.
  it.each(['redfish-virtualmedia', 'idrac-virtualmedia'])(
    'boots the ISO once when a Dell BIOS job changes the boot mode first (%s)',
    async (scheme) => {
      const bmc = await startSimulatedBmc({
        personality: PERSONALITIES['idrac9']!,
        power: 'Off',
        bootOrder: 'cd-first',
      });
      const c = new UndiciRedfishClient({
        address: bmc.address.replace(/^[^+]+/, scheme),
        credentials: bmc.credentials,
        ...FAST,
        bootModePollMs: 5,
      });
      open.push({ bmc, clients: [c] });
      const result = await bootFromIso(c, ISO);
      expect(result.performed).toContain('BootMode');
      const boots = bmc.events.filter((e) => e.kind === 'boot').map((e) => e.detail);
      // The BIOS job's restart finds no media and boots the disk; then the ISO, once.
      expect(boots).toEqual(['disk', ISO]);
      expect(bmc.state().bootedImage).toBe(ISO);
      expect(bmc.state().boot).toMatchObject({ mode: 'UEFI' });
    },
  );

  it('surfaces a dropped insert as REDFISH_TRANSPORT, and the resume inserts once', async () => {
    const { bmc, client } = await host();
    bmc.script({ method: 'POST', path: /InsertMedia$/, times: 1, action: 'drop' });
    let saved: BootProgress | undefined;
    const err = await bootFromIso(client(), ISO, {
      checkpoint: (p) => {
        saved = p;
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedfishError);
    expect(err).toMatchObject({ code: 'REDFISH_TRANSPORT', method: 'POST' });
    expect(saved?.step).toBe('Insert');
    await bootFromIso(client(), ISO, { ...(saved ? { progress: saved } : {}) });
    expect(bmc.events.filter((e) => e.kind === 'insert')).toHaveLength(1);
    expect(bmc.state().bootedImage).toBe(ISO);
  });
});
