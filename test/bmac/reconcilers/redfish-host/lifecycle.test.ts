import { afterEach, describe, expect, it } from 'vitest';
import { Gvk } from '../../../../src/bmac/api.js';
import { requestKey } from '../../../../src/bmac/runtime/contract.js';
import type { KubeObject } from '../../../../src/kube/index.js';
import { Harness, LONG_URL, NS, hasFinalizer, hostEvents, macOf } from './harness.js';

const bmhRef = { ...Gvk.BareMetalHost, namespace: NS, name: 'host-0' };

/** A provisioned host, and the BMC's record of it from then on. */
async function provisioned(h: Harness) {
  const bmc = await h.addHost('host-0');
  await h.settle(['host-0']);
  expect(h.status('host-0').provisioning.state).toBe('provisioned');
  const since = bmc.events.length;
  return { bmc, after: () => hostEvents(bmc).slice(since) };
}

/** Sets (or, with `undefined`, removes) one annotation of a host. */
const annotate = (h: Harness, name: string, key: string, value: string | undefined) =>
  h.edit(name, (bmh) => {
    const kept = Object.entries(bmh.metadata.annotations ?? {}).filter(([k]) => k !== key);
    const annotations = Object.fromEntries(value === undefined ? kept : [...kept, [key, value]]);
    return { ...bmh, metadata: { ...bmh.metadata, annotations } };
  });

function agent(name: string, stage: string, link: 'label' | 'mac'): KubeObject {
  return {
    ...Gvk.Agent,
    metadata: {
      name,
      namespace: NS,
      ...(link === 'label' ? { labels: { 'agent-install.openshift.io/bmh': 'host-0' } } : {}),
    },
    spec: { approved: true },
    status: {
      inventory: { interfaces: [{ macAddress: macOf('host-0').toUpperCase(), name: 'eno1' }] },
      progress: { currentStage: stage },
    },
  };
}

describe('a provisioned host handed over', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('with the detached annotation: the media is ejected once and power is no longer managed', async () => {
    h = new Harness();
    const { bmc, after } = await provisioned(h);
    await h.edit('host-0', (bmh) => ({
      ...bmh,
      metadata: {
        ...bmh.metadata,
        annotations: {
          ...bmh.metadata.annotations,
          'baremetalhost.metal3.io/detached': 'assisted-service-controller',
        },
      },
    }));
    await h.settle(['host-0']);
    expect(after()).toEqual(['eject CD1']);
    expect(bmc.state().slots.every((s) => !s.inserted)).toBe(true);
    expect(h.status('host-0')).toMatchObject({
      operationalStatus: 'detached',
      provisioning: { state: 'provisioned' },
      errorCount: 0,
    });
    expect(h.cluster.events.at(-1)).toMatchObject({ reason: 'Detached' });

    // Powering off is no longer ours to do.
    await h.edit('host-0', (bmh) => ({
      ...bmh,
      spec: { ...(bmh['spec'] as object), online: false },
    }));
    await h.settle(['host-0']);
    expect(after()).toEqual(['eject CD1']);
    expect(bmc.state().power).toBe('On');
  });

  for (const link of ['label', 'mac'] as const) {
    it(`when its Agent (paired by ${link}) reports it rebooted into the installed system`, async () => {
      h = new Harness();
      const { bmc, after } = await provisioned(h);
      h.cluster.seed(agent('agent-1', 'Writing image to disk', link));
      await h.settle(['host-0']);
      expect(after()).toEqual([]);
      expect(h.status('host-0').operationalStatus).toBe('OK');

      const mapped = h.controller.watches?.[0]?.map(agent('agent-1', 'Rebooting', link), h.cluster);
      expect(mapped).toEqual([{ namespace: NS, name: 'host-0' }]);
      h.cluster.objects.set(`agent-install.openshift.io/v1beta1/Agent/${NS}/agent-1`, {
        ...agent('agent-1', 'Rebooting', link),
        metadata: { ...agent('agent-1', 'Rebooting', link).metadata, resourceVersion: '900' },
      });
      await h.settle(['host-0']);
      expect(after()).toEqual(['eject CD1']);
      expect(bmc.state().power).toBe('On');
      expect(h.status('host-0').operationalStatus).toBe('detached');

      // Deleting a host running its installed system leaves its power alone.
      await h.cluster.asOtherActor((c) => c.delete(bmhRef));
      await h.settle(['host-0']);
      expect(h.bmh('host-0')).toBeUndefined();
      expect(after()).toEqual(['eject CD1']);
    });
  }
});

describe('a host installing its disk', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  const stages = [
    'Starting installation',
    'Installing',
    'Waiting for bootkube',
    'Writing image to disk',
    'Copying registry data',
    'Rebooting',
    'Joined',
    'Done',
  ];
  const installing = (stage: string, resourceVersion: string): KubeObject => {
    const base = agent('agent-1', stage, 'label');
    return {
      ...base,
      metadata: { ...base.metadata, resourceVersion },
      status: {
        ...(base['status'] as object),
        progress: { currentStage: stage, progressStages: stages },
      },
    };
  };
  const setAgent = (object: KubeObject) =>
    h.cluster.objects.set(`agent-install.openshift.io/v1beta1/Agent/${NS}/agent-1`, object);

  it('once the image is on the disk, the next boot is set to the disk: firmware listing the CD first still boots the disk with the media in', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0', { bootOrder: 'cd-first' });
    await h.settle(['host-0']);
    expect(h.status('host-0').provisioning.state).toBe('provisioned');
    const since = bmc.events.length;
    const after = () => hostEvents(bmc).slice(since);
    setAgent(installing('Writing image to disk', '900'));
    await h.settle(['host-0']);
    expect(after()).toEqual([]);

    setAgent(installing('Copying registry data', '901'));
    await h.settle(['host-0']);
    expect(after()).toEqual(['boot-override Hdd/Once']);
    expect(h.cluster.events.at(-1)).toMatchObject({ reason: 'DiskBootSet' });
    // Asked once per image: later passes leave the BMC alone.
    await h.pass('host-0');
    await h.settle(['host-0']);
    expect(after()).toEqual(['boot-override Hdd/Once']);

    // The installer reboots before the eject: the disk boots, and the override is used up.
    bmc.restartFromHost();
    expect(after().at(-1)).toBe('boot disk');
    expect(bmc.state().slots.some((s) => s.inserted)).toBe(true);
    bmc.restartFromHost();
    expect(after().at(-1)).toContain('boot http');
  });

  it('told by the assisted core that the image is written, sets the disk boot before the Agent says so', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0', { bootOrder: 'cd-first' });
    await h.settle(['host-0']);
    const since = bmc.events.length;
    const after = () => hostEvents(bmc).slice(since);
    // The Agent's status (as the cache has it) still says the image is being written.
    setAgent(installing('Writing image to disk', '900'));
    await h.settle(['host-0']);
    expect(after()).toEqual([]);
    expect(h.urgentWakes).toEqual([]);

    h.controller.imageWritten({ namespace: NS, name: 'agent-1' }, h.cluster);
    expect(h.urgentWakes).toEqual(['host-0']);
    await h.settle(['host-0']);
    expect(after()).toEqual(['boot-override Hdd/Once']);
    expect(h.cluster.events.at(-1)).toMatchObject({ reason: 'DiskBootSet' });
    // When the Agent's status catches up, the BMC is not asked again.
    setAgent(installing('Copying registry data', '901'));
    await h.settle(['host-0']);
    expect(after()).toEqual(['boot-override Hdd/Once']);
    bmc.restartFromHost();
    expect(after().at(-1)).toBe('boot disk');
  });

  it('a signal for an Agent the cache does not hold wakes nothing', async () => {
    h = new Harness();
    await h.addHost('host-0');
    await h.settle(['host-0']);
    h.controller.imageWritten({ namespace: NS, name: 'agent-unknown' }, h.cluster);
    expect(h.urgentWakes).toEqual([]);
  });

  /** The Agent of a host that booted its ISO again after the installer's reboot. */
  const pendingUserAction = (resourceVersion: string): KubeObject => {
    const base = installing('Rebooting', resourceVersion);
    const status = base['status'] as Record<string, unknown>;
    return {
      ...base,
      status: {
        ...status,
        debugInfo: {
          state: 'installing-pending-user-action',
          stateInfo:
            'Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk',
        },
      },
    };
  };

  it('that booted the ISO again after the reboot is rebooted from its disk, a few times at most, minutes apart', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0', { bootOrder: 'cd-first' });
    await h.settle(['host-0']);
    // The installer's reboot came before the one-time disk boot (the BMC was busy).
    bmc.restartFromHost();
    const since = bmc.events.length;
    const after = () => hostEvents(bmc).slice(since);
    expect(hostEvents(bmc).at(-1)).toContain('boot http');

    setAgent(pendingUserAction('910'));
    await h.settle(['host-0']);
    // The media is ejected (the host is handed over), then it is rebooted into its disk.
    const reboot = ['power Off', 'boot-override Hdd/Once', 'power On', 'boot disk'];
    expect(after()).toEqual(['eject CD1', ...reboot]);
    expect(h.cluster.events.at(-1)).toMatchObject({
      type: 'Warning',
      reason: 'DiskBootRetried',
      message: expect.stringContaining('attempt 1 of 3') as unknown,
    });
    // Given time to show: the Agent still says so a minute later, and the host is left alone.
    h.now += 60_000;
    await h.pass('host-0');
    await h.settle(['host-0']);
    expect(after()).toEqual(['eject CD1', ...reboot]);

    // Still pending five minutes on (the firmware ignored the override): tried again, up to 3.
    for (let i = 0; i < 4; i++) {
      h.now += 5 * 60_000;
      await h.pass('host-0');
      await h.settle(['host-0']);
    }
    expect(after()).toEqual(['eject CD1', ...reboot, ...reboot, ...reboot]);
    expect(h.cluster.events.filter((e) => e.reason === 'DiskBootRetried')).toHaveLength(3);
  });

  it('detached and paused by the BMAC for its install is still rebooted into its disk, its status left alone', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0', { bootOrder: 'cd-first' });
    await h.settle(['host-0']);
    setAgent(installing('Rebooting', '910'));
    await h.settle(['host-0']);
    expect(h.status('host-0').operationalStatus).toBe('detached');
    // What the BMAC does once the Agent reached Rebooting and BMO said detached.
    await annotate(h, 'host-0', 'baremetalhost.metal3.io/detached', 'assisted-service-controller');
    await annotate(h, 'host-0', 'baremetalhost.metal3.io/paused', 'assisted-service-controller');
    await h.settle(['host-0']);
    const statusBefore = JSON.stringify(h.bmh('host-0')?.['status']);
    bmc.restartFromHost();
    const since = bmc.events.length;

    setAgent(pendingUserAction('911'));
    await h.settle(['host-0']);
    expect(hostEvents(bmc).slice(since)).toEqual([
      'power Off',
      'boot-override Hdd/Once',
      'power On',
      'boot disk',
    ]);
    expect(h.cluster.events.at(-1)).toMatchObject({ reason: 'DiskBootRetried' });
    expect(JSON.stringify(h.bmh('host-0')?.['status'])).toBe(statusBefore);
  });

  it('detached by the user is not rebooted, even when its Agent waits for the disk boot', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0', { bootOrder: 'cd-first' });
    await h.settle(['host-0']);
    await annotate(h, 'host-0', 'baremetalhost.metal3.io/detached', 'me');
    await h.settle(['host-0']);
    const since = bmc.events.length;
    setAgent(pendingUserAction('910'));
    await h.settle(['host-0']);
    h.now += 10 * 60_000;
    await h.pass('host-0');
    await h.settle(['host-0']);
    expect(hostEvents(bmc).slice(since)).toEqual([]);
  });

  it('whose Agent goes on installing after its reboot is not rebooted', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0', { bootOrder: 'cd-first' });
    await h.settle(['host-0']);
    const since = bmc.events.length;
    setAgent(installing('Rebooting', '910'));
    await h.settle(['host-0']);
    setAgent(installing('Joined', '911'));
    await h.settle(['host-0']);
    expect(hostEvents(bmc).slice(since)).toEqual(['eject CD1']);
    expect(h.cluster.events.map((e) => e.reason)).not.toContain('DiskBootRetried');
  });

  it('without the one-time disk boot, the same firmware boots the ISO again', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0', { bootOrder: 'cd-first' });
    await h.settle(['host-0']);
    const since = bmc.events.length;
    bmc.restartFromHost();
    expect(hostEvents(bmc).slice(since).at(-1)).toContain('boot http');
  });
});

describe('annotations BMO honours', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('paused: the host is not touched until the annotation goes', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0');
    await annotate(h, 'host-0', 'baremetalhost.metal3.io/paused', 'assisted-service-controller');
    await h.settle(['host-0']);
    expect(bmc.requestCount).toBe(0);
    expect(h.bmh('host-0')?.['status']).toBeUndefined();
    await annotate(h, 'host-0', 'baremetalhost.metal3.io/paused', undefined);
    await h.settle(['host-0']);
    expect(h.status('host-0').provisioning.state).toBe('provisioned');
  });

  it('detached before any boot: detached without a BMC request; removed: managed again', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0', {}, { image: undefined });
    await h.settle(['host-0']);
    expect(h.status('host-0').provisioning.state).toBe('available');
    const requests = bmc.requestCount;
    await annotate(h, 'host-0', 'baremetalhost.metal3.io/detached', 'assisted-service-controller');
    await h.settle(['host-0']);
    expect(h.status('host-0').operationalStatus).toBe('detached');
    expect(bmc.requestCount).toBe(requests);

    await annotate(h, 'host-0', 'baremetalhost.metal3.io/detached', undefined);
    await h.edit('host-0', (bmh) => ({
      ...bmh,
      spec: { ...(bmh['spec'] as object), image: { url: LONG_URL, format: 'live-iso' } },
    }));
    await h.settle(['host-0']);
    expect(h.status('host-0')).toMatchObject({
      operationalStatus: 'OK',
      provisioning: { state: 'provisioned' },
    });
  });

  it('detached with deleteAction delay: a deleted host is kept while it stays detached', async () => {
    h = new Harness();
    await provisioned(h);
    await annotate(h, 'host-0', 'baremetalhost.metal3.io/detached', '{"deleteAction":"delay"}');
    await h.settle(['host-0']);
    await h.cluster.asOtherActor((c) => c.delete(bmhRef));
    await h.settle(['host-0']);
    expect(hasFinalizer(h.bmh('host-0'))).toBe(true);
    await annotate(h, 'host-0', 'baremetalhost.metal3.io/detached', undefined);
    await h.settle(['host-0']);
    expect(h.bmh('host-0')).toBeUndefined();
  });
});

describe('deleting a host', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('powers it off, ejects the media, then releases the finalizer', async () => {
    h = new Harness();
    const { after } = await provisioned(h);
    let atRelease: string[] | undefined;
    const update = h.cluster.update.bind(h.cluster);
    h.cluster.update = async (object: KubeObject) => {
      if (!hasFinalizer(object) && hasFinalizer(h.bmh(object.metadata.name))) atRelease = after();
      return update(object);
    };

    await h.cluster.asOtherActor((c) => c.delete(bmhRef));
    await h.settle(['host-0']);

    expect(h.bmh('host-0')).toBeUndefined();
    expect(atRelease).toEqual(['power Off', 'eject CD1']);
    expect(h.states.get('host-0')?.slice(-3)).toEqual([
      'deprovisioning',
      'powering off before delete',
      'deleting',
    ]);
    expect(h.cluster.events.map((e) => e.reason).slice(-2)).toEqual([
      'DeprovisioningStarted',
      'DeprovisioningComplete',
    ]);
  });

  it('while it boots cuts the boot short, then powers it off and ejects', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0', { faults: { latencyMs: 15 } });
    await h.settle(['host-0'], () => h.status('host-0').provisioning.state === 'provisioning');
    expect(h.controller.operations.pending(requestKey({ namespace: NS, name: 'host-0' }))).toBe(
      'provision',
    );
    await h.cluster.asOtherActor((c) => c.delete(bmhRef));
    await h.settle(['host-0']);

    expect(h.bmh('host-0')).toBeUndefined();
    expect(bmc.state().power).toBe('Off');
    expect(bmc.state().slots.every((s) => !s.inserted)).toBe(true);
    expect(h.states.get('host-0')?.slice(-4)).toEqual([
      'provisioning',
      'deprovisioning',
      'powering off before delete',
      'deleting',
    ]);
  });

  it('that never reached its BMC releases it at once', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0');
    await bmc.stop();
    await h.settle(['host-0']);
    expect(h.status('host-0').provisioning.state).toBe('registering');
    await h.cluster.asOtherActor((c) => c.delete(bmhRef));
    await h.settle(['host-0']);
    expect(h.bmh('host-0')).toBeUndefined();
  });

  it('whose BMC keeps failing gives up after BMO’s three tries and releases it', async () => {
    h = new Harness();
    const { bmc } = await provisioned(h);
    bmc.script({ method: 'POST', path: /Reset/, times: 1_000, action: { status: 500 } });
    await h.cluster.asOtherActor((c) => c.delete(bmhRef));
    for (let i = 0; i < 6 && h.bmh('host-0'); i++) {
      await h.settle(['host-0']);
      h.now += 900_000;
    }
    expect(h.bmh('host-0')).toBeUndefined();
    expect(h.cluster.events.map((e) => e.reason)).toContain('DeletingWithoutBMC');
  });
});

describe('changing the image', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('deprovisions the host (power off, eject) and boots the new image once', async () => {
    h = new Harness();
    const { bmc, after } = await provisioned(h);
    // What the BMAC does when the InfraEnv ISO changes: image removed, then the new one set.
    await h.edit('host-0', (bmh) => {
      const spec = { ...(bmh['spec'] as Record<string, unknown>) };
      delete spec['image'];
      return { ...bmh, spec };
    });
    await h.settle(['host-0']);
    expect(h.status('host-0')).toMatchObject({
      provisioning: { state: 'available' },
      poweredOn: false,
    });
    expect(h.status('host-0').provisioning.image).toBeUndefined();
    expect(after()).toEqual(['power Off', 'eject CD1']);

    const newUrl = `${LONG_URL}&version=2`;
    await h.edit('host-0', (bmh) => ({
      ...bmh,
      spec: { ...(bmh['spec'] as object), image: { url: newUrl, format: 'live-iso' } },
    }));
    await h.settle(['host-0']);
    expect(h.status('host-0').provisioning).toMatchObject({
      state: 'provisioned',
      image: { url: newUrl },
    });
    expect(h.images.issued).toHaveLength(2);
    expect(bmc.state().bootedImage).toBe(h.images.issued[1]);
    expect(bmc.events.filter((e) => e.kind === 'boot')).toHaveLength(2);
    const history = h.status('host-0').operationHistory;
    expect(history.deprovision?.start).toBeTruthy();
    expect(history.deprovision?.end).toBeTruthy();
  });
});
