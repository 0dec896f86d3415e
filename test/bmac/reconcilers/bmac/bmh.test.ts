import { describe, expect, it } from 'vitest';
import { Finalizer, Label } from '../../../../src/bmac/api.js';
import { ISO_URL, NS, T0, agent, bmh, infraEnv, ppi, world } from './fixtures.js';

const labelled = { finalizers: [Finalizer.Bmac] };

describe('BMAC non-converged: the host boots the InfraEnv ISO', () => {
  it('disables inspection and cleaning, sets the ISO as a live-iso image and powers the host on', async () => {
    const w = world({}, bmh('host-0', labelled), infraEnv());
    expect(await w.stable()).toEqual({});
    const host = w.host();
    expect(host.metadata.annotations?.['inspect.metal3.io']).toBe('disabled');
    expect(host.spec['automatedCleaningMode']).toBe('disabled');
    expect(host.spec.image).toEqual({ url: ISO_URL, format: 'live-iso' });
    expect(host.spec['online']).toBe(true);
    expect(w.cluster.events).toContainEqual({
      object: `BareMetalHost ${NS}/host-0`,
      type: 'Normal',
      reason: 'ImageSet',
      message: 'Booting the discovery ISO of InfraEnv ie',
    });
  });

  it('keeps an inspect annotation the user set', async () => {
    const w = world(
      {},
      bmh('host-0', { ...labelled, annotations: { 'inspect.metal3.io': '' } }),
      infraEnv(),
    );
    await w.stable();
    expect(w.host().metadata.annotations?.['inspect.metal3.io']).toBe('');
  });

  it('waits without requeueing while the InfraEnv has no ISO URL', async () => {
    const w = world({}, bmh('host-0', labelled), infraEnv({ url: '' }));
    expect(await w.stable()).toEqual({});
    const host = w.host();
    expect(host.spec.image).toBeUndefined();
    expect(host.spec['online']).toBe(false);
    // Inspection and cleaning are disabled before the wait.
    expect(host.metadata.annotations?.['inspect.metal3.io']).toBe('disabled');
    expect(host.spec['automatedCleaningMode']).toBe('disabled');
  });

  it('waits out the 60 s cool-down of a fresh ISO, requeueing after exactly the time left', async () => {
    const created = new Date(T0 - 15_000).toISOString();
    const w = world({}, bmh('host-0', labelled), infraEnv({ createdTime: created }));
    expect(await w.stable()).toEqual({ requeueAfterMs: 45_000 });
    expect(w.host().spec.image).toBeUndefined();
    w.clock.advance(44_999);
    expect(await w.stable()).toEqual({ requeueAfterMs: 1 });
    w.clock.advance(1);
    expect(await w.stable()).toEqual({});
    expect(w.host().spec.image).toEqual({ url: ISO_URL, format: 'live-iso' });
  });

  it.each(['provisioned', 'inspecting', 'registering', ''])(
    'clears the image of a host in state %j so that Ironic fetches the new ISO',
    async (state) => {
      const old = { url: 'https://old.example.com/old.iso', format: 'live-iso' };
      const w = world(
        {},
        bmh('host-0', { ...labelled, spec: { image: old }, status: { provisioning: { state } } }),
        infraEnv(),
      );
      await w.stable();
      expect(w.host().spec.image).toBeUndefined();
      expect(w.host().spec['online']).toBe(false);
    },
  );

  it.each(['ready', 'available'])('sets the image in state %j', async (state) => {
    const w = world(
      {},
      bmh('host-0', { ...labelled, status: { provisioning: { state } } }),
      infraEnv(),
    );
    await w.stable();
    expect(w.host().spec.image).toEqual({ url: ISO_URL, format: 'live-iso' });
  });

  it('changes nothing on a host already booting the ISO', async () => {
    const w = world(
      {},
      bmh('host-0', {
        ...labelled,
        labels: { [Label.InfraEnv]: 'ie', [Label.Backup]: 'true' },
        annotations: { 'inspect.metal3.io': 'disabled' },
        spec: {
          image: { url: ISO_URL, format: 'live-iso' },
          online: true,
          automatedCleaningMode: 'disabled',
        },
      }),
      infraEnv(),
    );
    await w.once();
    expect(w.cluster.writes).toEqual([]);
  });

  it('stops when the InfraEnv the label names does not exist', async () => {
    const w = world({}, bmh('host-0', labelled));
    await w.stable();
    expect(w.host().spec.image).toBeUndefined();
    expect(w.host().metadata.labels?.[Label.Backup]).toBeUndefined();
  });
});

describe('BMAC converged: the BMO boots the PreprovisioningImage', () => {
  it('waits for the PreprovisioningImage to exist', async () => {
    const w = world({ converged: true }, bmh('host-0', labelled), infraEnv());
    await w.stable();
    expect(w.host().spec.customDeploy).toBeUndefined();
  });

  it.each([
    ['not Ready', 'False', 'WaitingForInfraEnvImageToCoolDown'],
    ['Ready for another reason', 'True', 'SomethingElse'],
  ])('waits while the PreprovisioningImage is %s', async (_, status, reason) => {
    const w = world(
      { converged: true },
      bmh('host-0', labelled),
      infraEnv(),
      ppi('host-0', status, reason),
    );
    await w.stable();
    expect(w.host().spec.customDeploy).toBeUndefined();
  });

  it('sets customDeploy start_assisted_install once the image is Ready with InfraEnvAvailable, and nothing else', async () => {
    const w = world({ converged: true }, bmh('host-0', labelled), infraEnv(), ppi());
    await w.stable();
    const host = w.host();
    expect(host.spec.customDeploy).toEqual({ method: 'start_assisted_install' });
    expect(host.spec.image).toBeUndefined();
    expect(host.spec['online']).toBe(false);
    expect(host.spec['automatedCleaningMode']).toBeUndefined();
    expect(host.metadata.annotations?.['inspect.metal3.io']).toBeUndefined();
  });

  it('approves the paired Agent after setting customDeploy', async () => {
    const w = world({ converged: true }, bmh('host-0', labelled), infraEnv(), ppi(), agent());
    await w.stable();
    expect(w.agentNamed()?.spec['approved']).toBe(true);
    // No hardware details in the converged flow: Ironic inspects.
    expect(w.host().metadata.annotations?.['inspect.metal3.io/hardwaredetails']).toBeUndefined();
  });
});
