import { describe, expect, it } from 'vitest';
import { ASSISTED_OWNER_VALUE, Finalizer } from '../../../../src/bmac/api.js';
import { ISO_URL, NS, agent, bmh, infraEnv, ppi, world } from './fixtures.js';

const DETACHED = 'baremetalhost.metal3.io/detached';
const PAUSED = 'baremetalhost.metal3.io/paused';
const STATUS = 'baremetalhost.metal3.io/status';
const HW = 'inspect.metal3.io/hardwaredetails';
const SPOKE_CREATED = 'bmac.agent-install.openshift.io/spoke-bmh-machine-created';
const REMOVE = 'bmac.agent-install.openshift.io/remove-agent-and-node-on-delete';
const MANAGE = 'bmac.agent-install.openshift.io/allow-provisioned-host-management';
const booting = { image: { url: ISO_URL, format: 'live-iso' }, online: true };
const unbinding = {
  conditions: [
    { type: 'Bound', status: 'False', reason: 'UnbindingPendingUserAction', message: '' },
  ],
};

function host(
  annotations: Record<string, string> = {},
  status: Record<string, unknown> = {},
  spec: Record<string, unknown> = booting,
) {
  return bmh('host-0', { finalizers: [Finalizer.Bmac], annotations, spec, status });
}

describe('BMAC detaches installed hosts', () => {
  it.each(['Failed', 'Rebooting', 'Joined', 'Done'])(
    'detaches a non-converged host at agent stage %s',
    async (stage) => {
      const w = world(
        {},
        host(),
        infraEnv(),
        agent('agent-0', { status: { progress: { currentStage: stage } } }),
      );
      await w.stable();
      expect(w.host().metadata.annotations?.[DETACHED]).toBe(ASSISTED_OWNER_VALUE);
      expect(w.cluster.events).toContainEqual({
        object: `BareMetalHost ${NS}/host-0`,
        type: 'Normal',
        reason: 'Detached',
        message: 'The host is installed: detached from the Bare Metal Operator',
      });
    },
  );

  it.each(['Starting installation', 'Installing', 'Writing image to disk', 'Configuring'])(
    'keeps a non-converged host attached at agent stage %s',
    async (stage) => {
      const w = world(
        {},
        host(),
        infraEnv(),
        agent('agent-0', { status: { progress: { currentStage: stage } } }),
      );
      await w.stable();
      expect(w.host().metadata.annotations?.[DETACHED]).toBeUndefined();
    },
  );

  it('detaches a converged host once BMO has provisioned it, whatever the agent stage', async () => {
    const w = world(
      { converged: true },
      host(
        {},
        { provisioning: { state: 'provisioned' } },
        { customDeploy: { method: 'start_assisted_install' } },
      ),
      infraEnv(),
      ppi(),
      agent(),
    );
    await w.stable();
    expect(w.host().metadata.annotations?.[DETACHED]).toBe(ASSISTED_OWNER_VALUE);
  });

  it('keeps a converged host attached while it provisions, even at agent stage Done', async () => {
    const w = world(
      { converged: true },
      host({}, { provisioning: { state: 'provisioning' } }),
      infraEnv(),
      ppi(),
      agent('agent-0', { status: { progress: { currentStage: 'Done' } } }),
    );
    await w.stable();
    expect(w.host().metadata.annotations?.[DETACHED]).toBeUndefined();
  });

  it('detaches with deleteAction delay when the converged host goes with its Agent and node', async () => {
    const w = world(
      { converged: true },
      host({ [REMOVE]: '' }, { provisioning: { state: 'provisioned' } }),
      infraEnv(),
      ppi(),
      agent(),
    );
    await w.stable();
    expect(w.host().metadata.annotations?.[DETACHED]).toBe('{"deleteAction":"delay"}');
  });

  it('pauses a detached host once BMO reports it detached, keeping its status in an annotation', async () => {
    const status = {
      provisioning: { state: 'provisioned' },
      operationalStatus: 'detached',
      hardware: { hostname: 'worker-0' },
    };
    const w = world({ converged: true }, host({}, status), infraEnv(), ppi(), agent());
    await w.stable();
    const annotations = w.host().metadata.annotations;
    expect(annotations?.[PAUSED]).toBe(ASSISTED_OWNER_VALUE);
    expect(JSON.parse(annotations?.[STATUS] ?? '')).toEqual(status);
  });

  it('does not pause before BMO reports the host detached', async () => {
    const w = world(
      { converged: true },
      host({}, { provisioning: { state: 'provisioned' }, operationalStatus: 'OK' }),
      infraEnv(),
      ppi(),
      agent(),
    );
    await w.stable();
    expect(w.host().metadata.annotations?.[DETACHED]).toBe(ASSISTED_OWNER_VALUE);
    expect(w.host().metadata.annotations?.[PAUSED]).toBeUndefined();
    expect(w.host().metadata.annotations?.[STATUS]).toBeUndefined();
  });

  it('never pauses with pauseProvisionedBmhs false', async () => {
    const w = world(
      { converged: true, pauseProvisionedBmhs: false },
      host({}, { provisioning: { state: 'provisioned' }, operationalStatus: 'detached' }),
      infraEnv(),
      ppi(),
      agent(),
    );
    await w.stable();
    expect(w.host().metadata.annotations?.[DETACHED]).toBe(ASSISTED_OWNER_VALUE);
    expect(w.host().metadata.annotations?.[PAUSED]).toBeUndefined();
  });

  it('un-pauses a host whose status is gone (restored on another hub), so that BMO rebuilds it', async () => {
    const w = world(
      {},
      host(
        { [PAUSED]: ASSISTED_OWNER_VALUE, [STATUS]: '{"operationalStatus":"detached"}' },
        { provisioning: {}, operationalStatus: '' },
      ),
      infraEnv(),
    );
    await w.stable();
    expect(w.host().metadata.annotations?.[PAUSED]).toBeUndefined();
    expect(w.host().metadata.annotations?.[STATUS]).toBe('{"operationalStatus":"detached"}');
  });

  it('keeps a paused host without a status annotation paused', async () => {
    const w = world(
      {},
      host({ [PAUSED]: 'user' }, { provisioning: {}, operationalStatus: '' }),
      infraEnv(),
    );
    await w.stable();
    expect(w.host().metadata.annotations?.[PAUSED]).toBe('user');
  });

  it('gives a converged host back to BMO with allow-provisioned-host-management', async () => {
    const w = world(
      { converged: true },
      host(
        { [MANAGE]: '', [DETACHED]: ASSISTED_OWNER_VALUE, [PAUSED]: ASSISTED_OWNER_VALUE },
        { provisioning: { state: 'provisioned' }, operationalStatus: 'detached' },
      ),
      infraEnv(),
      ppi(),
      agent(),
    );
    await w.stable();
    expect(w.host().metadata.annotations?.[DETACHED]).toBeUndefined();
    expect(w.host().metadata.annotations?.[PAUSED]).toBeUndefined();
  });

  it('refuses allow-provisioned-host-management outside the converged flow, in an Event', async () => {
    const w = world(
      {},
      host({ [MANAGE]: '', [DETACHED]: ASSISTED_OWNER_VALUE }),
      infraEnv(),
      agent('agent-0', { status: { progress: { currentStage: 'Done' } } }),
    );
    await w.stable();
    expect(w.host().metadata.annotations?.[DETACHED]).toBe(ASSISTED_OWNER_VALUE);
    expect(w.cluster.events).toContainEqual(
      expect.objectContaining({
        type: 'Warning',
        reason: 'HostManagementNotAllowed',
        message:
          'bmac.agent-install.openshift.io/allow-provisioned-host-management needs the converged flow and no bmac.agent-install.openshift.io/remove-agent-and-node-on-delete annotation: ignored',
      }),
    );
  });

  it('leaves the boot media of a detached host alone', async () => {
    const w = world(
      {},
      host(
        { [DETACHED]: 'user' },
        { provisioning: { state: 'provisioned' } },
        { image: { url: 'https://old/x.iso', format: 'live-iso' } },
      ),
      infraEnv(),
      agent(),
    );
    await w.stable();
    expect(w.host().spec.image).toEqual({ url: 'https://old/x.iso', format: 'live-iso' });
    // The Agent is still approved: only the host's boot media are the user's.
    expect(w.agentNamed()?.spec['approved']).toBe(true);
  });
});

describe('BMAC boots an unbound host back into discovery (UnbindingPendingUserAction)', () => {
  const clusterAnnotations = {
    [DETACHED]: ASSISTED_OWNER_VALUE,
    [PAUSED]: ASSISTED_OWNER_VALUE,
    [HW]: '{}',
    [SPOKE_CREATED]: '2026-11-24T00:00:00Z',
    keep: 'me',
  };

  it('non-converged: re-attaches the host, clears its image and its cluster annotations, then sets the ISO again', async () => {
    const w = world(
      {},
      host(clusterAnnotations, { provisioning: { state: 'provisioned' } }),
      infraEnv(),
      agent('agent-0', { status: { ...unbinding, progress: { currentStage: 'Done' } } }),
    );
    await w.once();
    const h = w.host();
    expect(h.spec.image).toBeUndefined();
    expect(h.metadata.annotations).toEqual({ keep: 'me' });
    expect(w.cluster.events).toContainEqual(
      expect.objectContaining({
        reason: 'Unbound',
        message: 'The Agent was unbound: booting discovery again',
      }),
    );
    // Not detached again at stage Done while the unbind is pending; once BMO has the host
    // ready, the ISO is set again.
    await w.cluster.asOtherActor((c) =>
      c.updateStatus({ ...h, status: { provisioning: { state: 'ready' } } }),
    );
    await w.stable();
    expect(w.host().metadata.annotations?.[DETACHED]).toBeUndefined();
    expect(w.host().spec.image).toEqual({ url: ISO_URL, format: 'live-iso' });
  });

  it('non-converged: does nothing more once the host is attached', async () => {
    const w = world(
      {},
      host(
        { keep: 'me', 'inspect.metal3.io': 'disabled' },
        {},
        { ...booting, automatedCleaningMode: 'disabled' },
      ),
      infraEnv(),
      agent('agent-0', { status: unbinding }),
    );
    await w.stable();
    expect(w.host().spec.image).toEqual(booting.image);
  });

  it('converged: clears customDeploy of a provisioned host so that BMO deprovisions it', async () => {
    const w = world(
      { converged: true },
      host(
        clusterAnnotations,
        { provisioning: { state: 'provisioned' } },
        { customDeploy: { method: 'start_assisted_install' } },
      ),
      infraEnv(),
      ppi(),
      agent('agent-0', { status: unbinding }),
    );
    await w.stable();
    const h = w.host();
    expect(h.spec.customDeploy).toBeUndefined();
    expect(h.metadata.annotations).toEqual({ keep: 'me' });
  });

  it('non-converged: neither detaches nor pauses the host again while the unbind is pending', async () => {
    const w = world(
      {},
      host({}, { provisioning: { state: 'provisioned' }, operationalStatus: 'detached' }),
      infraEnv(),
      agent('agent-0', { status: { ...unbinding, progress: { currentStage: 'Done' } } }),
    );
    await w.stable();
    expect(w.host().metadata.annotations?.[DETACHED]).toBeUndefined();
    expect(w.host().metadata.annotations?.[PAUSED]).toBeUndefined();
  });

  it('converged: waits while the host deprovisions', async () => {
    const w = world(
      { converged: true },
      host({}, { provisioning: { state: 'deprovisioning' } }, {}),
      infraEnv(),
      ppi(),
      agent('agent-0', { status: unbinding }),
    );
    await w.stable();
    expect(w.host().spec.customDeploy).toBeUndefined();
  });

  it('converged: sets customDeploy again once the host is available', async () => {
    const w = world(
      { converged: true },
      host(clusterAnnotations, { provisioning: { state: 'available' } }, {}),
      infraEnv(),
      ppi(),
      agent('agent-0', { status: unbinding }),
    );
    await w.stable();
    expect(w.host().spec.customDeploy).toEqual({ method: 'start_assisted_install' });
    expect(w.host().metadata.annotations).toEqual({ keep: 'me' });
  });
});
