import { afterEach, describe, expect, it } from 'vitest';
import { Finalizer, Gvk } from '../../../../src/bmac/api.js';
import { bootFromIso, UndiciRedfishClient } from '../../../../src/bmac/redfish/index.js';
import type { BootProgress, RedfishClient } from '../../../../src/bmac/redfish/index.js';
import {
  BOOT_PROGRESS_ANNOTATION,
  imageKey,
  writeStep,
} from '../../../../src/bmac/reconcilers/redfish-host/boot-checkpoint.js';
import type { ObjectReader } from '../../../../src/bmac/runtime/contract.js';
import type { KubeObject } from '../../../../src/kube/index.js';
import { FAST, Harness, LONG_URL, NS, hostEvents } from './harness.js';

class Crash extends Error {}

/** The client of a process that dies right after its n-th side effect reached the BMC. */
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

/** The status a controller writes before it touches the BMC to provision. */
function intentStatus(state: string) {
  return {
    operationalStatus: 'OK',
    errorMessage: '',
    errorCount: 0,
    poweredOn: true,
    provisioningFailCount: 0,
    lastUpdated: '2026-11-25T09:59:00Z',
    lastAttemptedImage: { url: LONG_URL, format: 'live-iso' },
    provisioning: {
      state,
      ID: '',
      bootMode: 'UEFI',
      ...(state === 'deprovisioning' ? { image: { url: LONG_URL, format: 'live-iso' } } : {}),
    },
    operationHistory: {
      register: { start: '2026-11-25T09:58:00Z', end: '2026-11-25T09:58:30Z' },
      provision: { start: '2026-11-25T09:59:00Z', end: null },
      ...(state === 'deprovisioning'
        ? { deprovision: { start: '2026-11-25T09:59:30Z', end: null } }
        : {}),
    },
  };
}

/** Puts the recorded intent on host-0 as the crashed process left it. */
function recordIntent(h: Harness, state: string, deleting = false): void {
  const bmh = h.bmh('host-0')!;
  h.cluster.objects.set(`metal3.io/v1alpha1/BareMetalHost/${NS}/host-0`, {
    ...bmh,
    metadata: {
      ...bmh.metadata,
      finalizers: [Finalizer.RedfishHost],
      ...(deleting ? { deletionTimestamp: '2026-11-25T09:59:40Z' } : {}),
    },
    status: intentStatus(state),
  });
}

const bmhRef = { ...Gvk.BareMetalHost, namespace: NS, name: 'host-0' };

const STEPS = ['nothing', 'power off', 'eject', 'boot mode', 'insert', 'boot override', 'power on'];

describe('a controller restarted with a recorded intent', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  for (let n = 0; n < STEPS.length; n++) {
    it(`after the crashed one did ${STEPS.slice(1, n + 1).join(', ') || 'nothing'}: finishes without booting twice`, async () => {
      h = new Harness();
      const bmc = await h.addHost('host-0', {
        power: 'On',
        insertedImage: 'http://10.0.0.1/old.iso',
      });
      recordIntent(h, 'provisioning');
      const shortUrl = await h.images.shortUrlFor(LONG_URL);
      if (n > 0) {
        const client = new UndiciRedfishClient({
          address: bmc.address,
          credentials: bmc.credentials,
          ...FAST,
        });
        // The crashed controller recorded each step on the BMH before taking it.
        const checkpoint = async (progress: BootProgress): Promise<void> => {
          await writeStep(h.cluster, bmhRef, LONG_URL, progress.step);
        };
        await expect(
          bootFromIso(crashingAfter(client, n), shortUrl, { checkpoint }),
        ).rejects.toThrow(Crash);
        await client.close();
      }
      const before = bmc.events.length;

      await h.settle(['host-0']);

      expect(h.status('host-0')).toMatchObject({
        operationalStatus: 'OK',
        errorCount: 0,
        provisioning: { state: 'provisioned', image: { url: LONG_URL } },
      });
      const boots = bmc.events.filter((e) => e.kind === 'boot' && e.detail.includes('/images/'));
      expect(boots).toHaveLength(1);
      const events = hostEvents(bmc);
      const poweredOn = events.indexOf('power On');
      expect(events.slice(poweredOn + 1).filter((e) => e.startsWith('power'))).toEqual([]);
      if (n === STEPS.length - 1) expect(hostEvents(bmc).slice(before)).toEqual([]);
      if (n >= STEPS.indexOf('insert')) expect(h.images.issued).toHaveLength(1);
    });
  }

  it('whose cache lags behind its own boot (a busy watch): does not power-cycle the booted host', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0', { power: 'Off' });
    // What a lagging cache would still show: the BMH as of the boot's first checkpoint.
    let stale: KubeObject | undefined;
    const update = h.cluster.update.bind(h.cluster);
    h.cluster.update = async (object: KubeObject) => {
      const written = await update(object);
      if (stale === undefined && written.metadata.annotations?.[BOOT_PROGRESS_ANNOTATION])
        stale = structuredClone(written);
      return written;
    };
    await h.settle(['host-0']);
    expect(h.status('host-0').provisioning.state).toBe('provisioned');
    const booted = hostEvents(bmc).length;

    const lagging: ObjectReader = {
      get: (ref) => (ref.kind === 'BareMetalHost' ? stale : h.cluster.get(ref)),
      list: (gvk, options) => h.cluster.list(gvk, options),
    };
    await h.pass('host-0', lagging);
    await h.controller.operations.idle();
    await h.settle(['host-0']);

    expect(hostEvents(bmc).slice(booted)).toEqual([]);
    expect(h.status('host-0').provisioning.state).toBe('provisioned');
  });

  it('while a Dell BIOS job had the host on from its disk: still boots the image once', async () => {
    h = new Harness();
    const shortUrl = await h.images.shortUrlFor(LONG_URL);
    // Inserted, then the boot mode's BIOS job powered the host on before the CD override.
    const bmc = await h.addHost('host-0', { power: 'On', insertedImage: shortUrl });
    recordIntent(h, 'provisioning');
    await writeStep(h.cluster, bmhRef, LONG_URL, 'BootOverride');

    await h.settle(['host-0']);

    expect(h.status('host-0').provisioning.state).toBe('provisioned');
    expect(hostEvents(bmc)).toEqual([
      'power Off',
      'boot-mode UEFI',
      'boot-override Cd/Once',
      'power On',
      `boot ${shortUrl}`,
    ]);
    expect(JSON.parse(h.bmh('host-0')!.metadata.annotations![BOOT_PROGRESS_ANNOTATION]!)).toEqual({
      image: imageKey(LONG_URL),
      step: 'Done',
    });
  });

  it('in deprovisioning on deletion: finishes the eject and releases the finalizer', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0', {
      power: 'Off',
      insertedImage: 'http://127.0.0.1:9/images/x.iso',
    });
    recordIntent(h, 'deprovisioning', true);
    await h.settle(['host-0']);
    expect(h.cluster.peek({ ...Gvk.BareMetalHost, namespace: NS, name: 'host-0' })).toBeUndefined();
    expect(hostEvents(bmc)).toEqual(['eject CD1']);
  });
});

describe('BMC credentials', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('never reach status, events or logs, even when the BMC quotes them back in errors', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0', {
      faults: {
        echoCredentials: true,
        errorRate: 1,
        errorStatus: 500,
        paths: /InsertMedia|SessionService\/Sessions/,
      },
    });
    await h.settle(['host-0']);
    expect(h.status('host-0')).toMatchObject({ errorType: 'provisioning error', errorCount: 1 });
    expect(h.logLines.length).toBeGreaterThan(3);
    const visible = h.visibleText();
    // The BMC did quote them: the session login failed and Basic requests carry both.
    expect(h.status('host-0').errorMessage).toContain('user <redacted>, password <redacted>');
    expect(visible).toContain('InsertMedia');
    expect(visible).not.toContain(bmc.credentials.password);
    expect(visible).not.toContain(bmc.credentials.username);
  });
});
