/**
 * The controller under the chart's ClusterRole (src/bmac/permissions.ts): every read and write
 * of an installation is granted, and a read that is not (the manifests ConfigMaps) is said in
 * SpecSynced instead of failing the pass.
 */
import { describe, expect, it } from 'vitest';
import { createClusterDeploymentsController } from '../../../src/assisted/clusters/cluster-deployments-controller.js';
import { Permissions, clusterRoleRules } from '../../../src/bmac/permissions.js';
import { FakeCluster, reconcileUntilStable } from '../../fakes/fake-cluster.js';
import { ManualClock } from '../../fakes/manual-clock.js';
import { FakeHostDirectory, FakeValidator, SimpleClusterMachine, host } from './fakes.js';
import { ACI_REF, CLUSTER_ID, FakeInstaller, NS, objects } from './world.js';
import type { WorldOptions } from './world.js';

function setup(options: WorldOptions = {}, withoutConfigMaps = false) {
  const rules = clusterRoleRules(Permissions).filter(
    (r) => !withoutConfigMaps || !r.resources.includes('configmaps'),
  );
  const hub = new FakeCluster(new ManualClock(), { rules });
  hub.asOtherActor((h) => h.seed(...objects(options)));
  const hosts = new FakeHostDirectory();
  for (let i = 1; i <= 5; i++)
    hosts.add(
      host(`host-${String(i)}`, CLUSTER_ID, {
        ip: `10.0.0.${String(10 + i)}`,
        ...(i > 3 && { cores: 2, ramGib: 8 }),
      }),
    );
  const controller = createClusterDeploymentsController({
    hosts,
    machine: new SimpleClusterMachine(),
    validator: new FakeValidator(),
    installer: new FakeInstaller(),
    serviceBaseUrl: 'https://assisted.example:8090',
  });
  const reconcile = () =>
    reconcileUntilStable(controller, { namespace: NS, name: 'site' }, hub, 20);
  const aci = () =>
    hub.peek(ACI_REF) as {
      status?: { debugInfo?: { state?: string }; conditions?: { type: string; message: string }[] };
    };
  return { hub, hosts, reconcile, aci };
}

describe('the ClusterDeployments controller under the chart’s ClusterRole', () => {
  it('installs a cluster to completion with no request refused', async () => {
    const s = setup();
    await s.reconcile();
    s.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    await s.reconcile();
    s.hosts.moveAll(CLUSTER_ID, 'installing', 'installed', 'Done');
    await s.reconcile();
    expect(s.aci().status?.debugInfo?.state).toBe('installed');
  });

  it('says in SpecSynced when a manifests ConfigMap may not be read, and holds the installation', async () => {
    const s = setup({ aciSpec: { manifestsConfigMapRef: { name: 'extra' } } }, true);
    await s.reconcile();
    const synced = s.aci().status?.conditions?.find((c) => c.type === 'SpecSynced');
    expect(synced?.message).toMatch(
      /^The Spec could not be synced due to backend error: configmaps is forbidden/,
    );
    expect(s.aci().status?.debugInfo?.state).toBe('ready');
  });
});
