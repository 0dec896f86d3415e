import { describe, expect, it } from 'vitest';
import { ASSISTED_OWNER_VALUE, Finalizer, Gvk, Label } from '../../../../src/bmac/api.js';
import type { KubeObject } from '../../../../src/kube/index.js';
import { ISO_URL, NS, T0, agent, bmh, infraEnv, ppi, world } from './fixtures.js';

type World = ReturnType<typeof world>;

/** What the BMO (or the agent controller) would write: a status change on a stored object. */
async function setStatus(
  w: World,
  object: KubeObject | undefined,
  status: Record<string, unknown>,
) {
  if (object === undefined) throw new Error('object is gone');
  await w.cluster.asOtherActor((c) =>
    c.updateStatus({ ...object, status: { ...(object['status'] as object), ...status } }),
  );
}

// These tests also play BMO and the agent controller, whose writes the chart's rules (which the
// BMAC runs with) do not limit.
describe('BMAC over a host’s life', () => {
  it('non-converged: registers, boots discovery, installs, detaches, pauses, unbinds and goes', async () => {
    const w = world({}, bmh(), infraEnv({ url: '', createdTime: new Date(T0).toISOString() }));

    // A new host: finalizer and nothing else until the InfraEnv has an ISO.
    await w.stable();
    expect(w.host().metadata.finalizers).toEqual([Finalizer.Bmac]);
    expect(w.host().spec.image).toBeUndefined();

    // The ISO appears; it is too fresh for 60 s.
    const ie = w.cluster.peek({ ...Gvk.InfraEnv, namespace: NS, name: 'ie' });
    await setStatus(w, ie, { isoDownloadURL: ISO_URL });
    expect(await w.stable()).toEqual({ requeueAfterMs: 60_000 });
    w.clock.advance(60_000);
    await w.stable();
    expect(w.host().spec.image).toEqual({ url: ISO_URL, format: 'live-iso' });
    expect(w.host().spec['online']).toBe(true);

    // The agent boots and registers: approved, hardware details handed to BMO.
    w.cluster.seed(agent());
    await w.stable();
    expect(w.agentNamed()?.spec['approved']).toBe(true);
    expect(w.host().metadata.annotations?.['inspect.metal3.io/hardwaredetails']).toContain(
      '"hostname"',
    );

    // The install reaches Rebooting: detached; BMO reports detached: paused.
    await setStatus(w, w.agentNamed(), { progress: { currentStage: 'Rebooting' } });
    await w.stable();
    expect(w.host().metadata.annotations?.['baremetalhost.metal3.io/detached']).toBe(
      ASSISTED_OWNER_VALUE,
    );
    expect(w.host().metadata.annotations?.['baremetalhost.metal3.io/paused']).toBeUndefined();
    await setStatus(w, w.host(), {
      operationalStatus: 'detached',
      provisioning: { state: 'provisioned' },
    });
    await w.stable();
    expect(w.host().metadata.annotations?.['baremetalhost.metal3.io/paused']).toBe(
      ASSISTED_OWNER_VALUE,
    );

    // Removed from its cluster: back to discovery.
    await setStatus(w, w.agentNamed(), {
      conditions: [{ type: 'Bound', status: 'False', reason: 'UnbindingPendingUserAction' }],
    });
    await w.stable();
    expect(w.host().metadata.annotations?.['baremetalhost.metal3.io/detached']).toBeUndefined();
    expect(w.host().metadata.annotations?.['baremetalhost.metal3.io/paused']).toBeUndefined();
    expect(w.host().spec.image).toBeUndefined();

    // Deleted: the BMAC lets go, the Agent stays (the agent controller deals with it).
    await w.cluster.asOtherActor((c) =>
      c.delete({ ...Gvk.BareMetalHost, namespace: NS, name: 'host-0' }),
    );
    await w.stable();
    expect(w.host()).toBeUndefined();
    expect(w.agentNamed()).toBeDefined();
  });

  it('converged: waits for the PreprovisioningImage, sets customDeploy, detaches when provisioned', async () => {
    const w = world(
      { converged: true },
      bmh('host-0', { labels: { [Label.InfraEnv]: 'ie' } }),
      infraEnv(),
      agent(),
    );
    await w.stable();
    expect(w.host().spec.customDeploy).toBeUndefined();
    expect(w.agentNamed()?.spec['approved']).toBe(false);

    w.cluster.seed(ppi());
    await w.stable();
    expect(w.host().spec.customDeploy).toEqual({ method: 'start_assisted_install' });
    expect(w.agentNamed()?.spec['approved']).toBe(true);

    await setStatus(w, w.host(), { provisioning: { state: 'provisioned' } });
    await w.stable();
    expect(w.host().metadata.annotations?.['baremetalhost.metal3.io/detached']).toBe(
      ASSISTED_OWNER_VALUE,
    );
  });
});
