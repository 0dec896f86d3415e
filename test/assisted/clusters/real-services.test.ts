import { describe, expect, it, vi } from 'vitest';
import {
  assistedClusterValidator,
  clusterDirectoryOf,
  stateTableClusterMachine,
} from '../../../src/assisted/clusters/adapters.js';
import { ClusterInstallations } from '../../../src/assisted/clusters/cluster-installations.js';
import { PULL_SECRET_RECHECK_MS } from '../../../src/assisted/clusters/cluster-deployments-controller.js';
import { host } from './fakes.js';
import { CLUSTER_ID, world } from './world.js';

describe('the controller on the state tables and the real cluster validations', () => {
  it('installs a single-node cluster to completion', async () => {
    const w = world(
      { masters: 1, workers: 0 },
      { machine: stateTableClusterMachine, validator: assistedClusterValidator },
    );
    w.hosts.add(
      host('sno-1', CLUSTER_ID, {
        ip: '10.0.0.5',
        cores: 16,
        ramGib: 64,
        role: 'master',
        bootstrap: true,
      }),
    );
    await w.reconcile();
    expect(w.aci().status.validationsInfo).toHaveProperty('network');
    const failing = Object.values(w.aci().status.validationsInfo ?? {})
      .flat()
      .filter((v) => v.status !== 'success');
    expect(failing).toEqual([]);
    expect(w.state()).toBe('preparing-for-installation');
    w.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    await w.reconcile();
    expect(w.state()).toBe('installing');
    expect(w.hosts.hosts.get('sno-1')?.status).toBe('installing');
    w.hosts.moveAll(CLUSTER_ID, 'installing', 'installed', 'Done');
    await w.reconcile();
    await w.reconcile();
    expect(w.state()).toBe('installed');
    expect(w.condition('Completed')?.message).toBe(
      'The installation has completed: Cluster is installed',
    );
    expect(w.cd().spec.installed).toBe(true);
  });

  /** A single-node cluster whose installation has started: preparing, its host preparing. */
  const preparingSno = async () => {
    const w = world(
      { masters: 1, workers: 0 },
      { machine: stateTableClusterMachine, validator: assistedClusterValidator },
    );
    w.hosts.add(
      host('sno-1', CLUSTER_ID, { ip: '10.0.0.5', cores: 16, ramGib: 64, role: 'master' }),
    );
    await w.reconcile();
    expect(w.state()).toBe('preparing-for-installation');
    return w;
  };

  it('installs a cluster whose preparation finished while its pass waited past the timeout', async () => {
    const w = await preparingSno();
    w.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    // The pass that would see it comes 25 minutes late (a saturated controller's queue).
    await w.clock.advance(25 * 60_000);
    await w.reconcile();
    expect(w.state()).toBe('installing');
    expect(w.hosts.hosts.get('sno-1')?.status).toBe('installing');
    expect(w.condition('LastInstallationPreparationFailed')).toMatchObject({
      status: 'False',
      reason: 'There is no failing prior preparation attempt',
    });
  });

  it("still fails a preparation that hangs past 10 minutes, with upstream's words", async () => {
    const w = await preparingSno();
    await w.clock.advance(11 * 60_000);
    await w.reconcile();
    expect(w.state()).toBe('ready');
    expect(w.condition('LastInstallationPreparationFailed')).toMatchObject({
      status: 'True',
      reason: 'The last installation preparation failed',
      message: 'Installation failed. Try again, and contact support if the issue persists.',
    });
  });

  it('looks at a preparing cluster again when its preparation would time out, not every few seconds', async () => {
    const w = await preparingSno();
    // Its host's changes wake it; else the next look is just past the 10 minutes.
    expect((await w.reconcile()).requeueAfterMs).toBe(10 * 60_000 + 1_000);
    await w.clock.advance(4 * 60_000);
    expect((await w.reconcile()).requeueAfterMs).toBe(6 * 60_000 + 1_000);
    await w.clock.advance(6 * 60_000 + 1_000);
    const result = await w.reconcile();
    expect(w.state()).toBe('ready');
    expect(result.requeueAfterMs).toBe(300_000);
  });

  it('does not read the pull secret again while the cluster installs', async () => {
    const w = await preparingSno();
    const reads = vi.spyOn(w.hub, 'getLive');
    w.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    await w.reconcile();
    expect(w.state()).toBe('installing');
    expect((await w.reconcile()).requeueAfterMs).toBe(300_000);
    for (let i = 0; i < 3; i++) {
      await w.clock.advance(PULL_SECRET_RECHECK_MS);
      await w.reconcile();
    }
    expect(reads.mock.calls.filter(([ref]) => ref.kind === 'Secret')).toEqual([]);
    expect(w.condition('SpecSynced')?.reason).toBe('SyncOK');
  });

  it('installs 3+2 to completion, the bootstrap among the masters', async () => {
    const w = world({}, { machine: stateTableClusterMachine, validator: assistedClusterValidator });
    for (let i = 1; i <= 5; i++)
      w.hosts.add(
        host(`host-${String(i)}`, CLUSTER_ID, {
          ip: `10.0.0.${String(10 + i)}`,
          ...(i > 3 && { cores: 4, ramGib: 8 }),
          // The hosts' verify-vips replies: both VIPs are free.
          stepResults: {
            verifyVips: JSON.stringify([
              { vip: '10.0.0.100', vip_type: 'api', verification: 'succeeded' },
              { vip: '10.0.0.101', vip_type: 'ingress', verification: 'succeeded' },
            ]),
          },
        }),
      );
    await w.reconcile();
    expect(w.state()).toBe('preparing-for-installation');
    expect([...w.hosts.hosts.values()].map((h) => h.role)).toEqual([
      'master',
      'master',
      'master',
      'worker',
      'worker',
    ]);
    w.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    await w.reconcile();
    expect(w.state()).toBe('installing');
    w.hosts.moveAll(CLUSTER_ID, 'installing', 'installed', 'Done');
    await w.reconcile();
    expect(w.state()).toBe('installed');
    expect(w.aci().status.progress?.totalPercentage).toBe(100);
  });

  it('tells the host service which clusters take new hosts', async () => {
    const w = world({ masters: 1, workers: 0 }, { machine: stateTableClusterMachine });
    await w.reconcile();
    const directory = clusterDirectoryOf(w.controller.installations);
    const cluster = directory.byDeployment('site', 'site');
    expect(cluster?.id).toBe(CLUSTER_ID);
    expect(directory.byId(CLUSTER_ID)?.highAvailabilityMode).toBe('None');
    expect(directory.registrationRefusal(cluster!)).toBeUndefined();
    expect(directory.registrationRefusal({ ...cluster!, status: 'installing' })).toBe(
      'Host can register only in one of the following states: [insufficient ready pending-for-input adding-hosts]',
    );
    expect(directory.registrationRefusal({ ...cluster!, status: 'installed' })).toBe(
      'Cannot add hosts to an existing cluster using the original Discovery ISO.',
    );
    expect(new ClusterInstallations().records()).toEqual([]);
  });
});
