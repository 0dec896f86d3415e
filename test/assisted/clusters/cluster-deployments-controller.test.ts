import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { SimulatedInstallerBackend } from '../../../src/assisted/installer/simulated-backend.js';
import { OpenshiftInstallBackend } from '../../../src/assisted/installer/openshift-install-backend.js';
import { ignitionForHost } from '../../../src/assisted/clusters/credentials.js';
import { asKube } from '../../../src/assisted/clusters/kinds.js';
import {
  MANIFESTS_RECHECK_MS,
  PULL_SECRET_RECHECK_MS,
} from '../../../src/assisted/clusters/cluster-deployments-controller.js';
import { createLogger } from '../../../src/shared/logger.js';
import { host } from './fakes.js';
import { ACI_REF, CD_REF, CLUSTER_ID, NS, world } from './world.js';

/** The parts of an install-config the tests read. */
interface InstallConfigShape {
  controlPlane: { replicas: number };
  compute: { replicas: number }[];
  networking: { networkType?: string };
  platform: { baremetal?: { apiVIPs: string[] }; none?: object };
  bootstrapInPlace?: { installationDisk: string };
}

const w0 = () => world();

function fiveHosts(w: ReturnType<typeof world>, options: { approved?: boolean[] } = {}): void {
  for (let i = 1; i <= 5; i++)
    w.hosts.add(
      host(`host-${String(i)}`, CLUSTER_ID, {
        ip: `10.0.0.${String(10 + i)}`,
        approved: options.approved?.[i - 1] ?? true,
        // Two hosts too small to be masters.
        ...(i > 3 && { cores: 2, ramGib: 8 }),
      }),
    );
}

describe('the ClusterDeployments controller', () => {
  it('takes the ACI and ClusterDeployment under its finalizers and shows a cluster that waits for hosts', async () => {
    const w = world();
    await w.reconcile();
    expect(w.aci().metadata.finalizers).toEqual([
      'agentclusterinstall.agent-install.openshift.io/ai-deprovision',
    ]);
    expect(w.cd().metadata.finalizers).toEqual([
      'clusterdeployments.agent-install.openshift.io/ai-deprovision',
    ]);
    expect(w.aci().metadata.ownerReferences).toMatchObject([
      { kind: 'ClusterDeployment', name: 'site', uid: CLUSTER_ID },
    ]);
    expect(w.condition('SpecSynced')).toMatchObject({
      status: 'True',
      reason: 'SyncOK',
      message: 'SyncOK',
    });
    // No hosts: ready by validations, but not the agents asked for.
    expect(w.aci().status.debugInfo).toMatchObject({
      state: 'ready',
      stateInfo: 'Cluster ready to be installed',
      eventsURL:
        'https://assisted.example:8090/api/assisted-install/v2/events?cluster_id=cluster-1',
    });
    expect(w.condition('RequirementsMet')).toMatchObject({
      status: 'False',
      reason: 'InsufficientAgents',
      message:
        'The cluster currently requires exactly 3 master agents, 0 arbiter agents and 2 worker agents, but currently registered 0 master agents, 0 arbiter agents and 0 worker agents',
    });
    expect(w.condition('Completed')).toMatchObject({
      status: 'False',
      reason: 'InstallationNotStarted',
      message: 'The installation has not yet started',
    });
    expect(w.condition('LastInstallationPreparationFailed')).toMatchObject({
      status: 'False',
      reason: 'Cluster preparation has never been performed for this cluster',
      message: '',
    });
    expect(w.aci().status).toMatchObject({
      apiVIPs: ['10.0.0.100'],
      ingressVIPs: ['10.0.0.101'],
      machineNetwork: [{ cidr: '10.0.0.0/24' }],
      platformType: 'BareMetal',
      userManagedNetworking: false,
      connectivityMajorityGroups:
        '{"majority_groups":{"IPv4":[],"IPv6":[]},"l3_connected_addresses":{}}',
    });
    expect(w.controller.events.list(CLUSTER_ID).map((e) => e.message)).toContain(
      'Successfully registered cluster',
    );
  });

  it('says the pull secret is missing as an input error, and the rest is not available', async () => {
    const w = world({ cdSpec: { pullSecretRef: undefined } });
    await w.reconcile();
    expect(w.condition('SpecSynced')).toMatchObject({
      status: 'False',
      reason: 'InputError',
      message:
        'The Spec could not be synced due to an input error: PullSecret is required for ClusterDeployment site/site',
    });
    for (const type of ['Validated', 'RequirementsMet', 'Completed', 'Failed', 'Stopped'])
      expect(w.condition(type)).toMatchObject({
        status: 'Unknown',
        reason: 'NotAvailable',
        message: 'Information not available',
      });
  });

  it('reads the pull secret again every 5 minutes, and always when it starts the installation', async () => {
    const w = world({ masters: 1, workers: 0 });
    const reads = vi.spyOn(w.hub, 'getLive');
    const pullSecretReads = () =>
      reads.mock.calls.filter(([ref]) => ref.kind === 'Secret' && ref.name === 'pull-secret')
        .length;
    const secret = { apiVersion: 'v1', kind: 'Secret', namespace: NS, name: 'pull-secret' };
    await w.reconcile();
    await w.reconcile();
    expect(pullSecretReads()).toBe(1);
    // Gone: seen once the last read is 5 minutes old.
    const stored = w.hub.peek(secret)!;
    await w.hub.asOtherActor((hub) => hub.delete(secret));
    await w.reconcile();
    expect(w.condition('SpecSynced')?.reason).toBe('SyncOK');
    await w.clock.advance(PULL_SECRET_RECHECK_MS);
    await w.reconcile();
    expect(w.condition('SpecSynced')).toMatchObject({
      reason: 'BackendError',
      message:
        'The Spec could not be synced due to backend error: failed to validate pull secret for ClusterDeployment site/site: failed to find secret pull-secret: secrets "pull-secret" not found',
    });
    // Back; then gone again just before the host is ready: the pass that would start the
    // installation reads it, and does not start.
    w.hub.seed(stored);
    await w.clock.advance(PULL_SECRET_RECHECK_MS);
    await w.reconcile();
    expect(w.condition('SpecSynced')?.reason).toBe('SyncOK');
    await w.hub.asOtherActor((hub) => hub.delete(secret));
    w.hosts.add(host('sno-1', CLUSTER_ID, { ip: '10.0.0.5', cores: 8, ramGib: 32 }));
    await w.reconcile();
    expect(w.installer.configs).toEqual([]);
    expect(w.condition('SpecSynced')?.reason).toBe('BackendError');
    // Back again: the installation starts with it.
    w.hub.seed(stored);
    await w.reconcile();
    expect(w.installer.configs).toHaveLength(1);
    expect(w.condition('SpecSynced')?.reason).toBe('SyncOK');
  });

  it('says a missing ClusterImageSet as a backend error and looks again', async () => {
    const w = world({ withImageSet: false });
    const result = await w.reconcile();
    expect(w.condition('SpecSynced')).toMatchObject({
      status: 'False',
      reason: 'BackendError',
      message:
        'The Spec could not be synced due to backend error: ClusterImageSet img4.16 not found. Please ensure the ClusterImageSet exists',
    });
    expect(result.requeueAfterMs).toBe(10_000);
  });

  it('refuses install-config overrides that are not JSON, with upstream’s words', async () => {
    const w = world({
      aciAnnotations: { 'agent-install.openshift.io/install-config-overrides': '{"fips": tru' },
    });
    await w.reconcile();
    const synced = w.condition('SpecSynced');
    expect(synced?.reason).toBe('InputError');
    expect(synced?.message).toMatch(
      /^The Spec could not be synced due to an input error: Failed to parse 'agent-install.openshift.io\/install-config-overrides' annotation: /,
    );
  });

  it('hands the manifests of the ACI’s ConfigMaps to the installer', async () => {
    const w = world({
      aciSpec: { manifestsConfigMapRefs: [{ name: 'extra-a' }, { name: 'extra-b' }] },
    });
    fiveHosts(w);
    await w.reconcile();
    expect(w.condition('SpecSynced')).toMatchObject({
      reason: 'BackendError',
      message: 'The Spec could not be synced due to backend error: configmaps "extra-a" not found',
    });
    expect(w.state()).toBe('ready');
    const configMap = (name: string, data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: NS },
      data,
    });
    w.hub.seed(
      configMap('extra-a', { '01-a.yaml': 'kind: A' }),
      configMap('extra-b', { '01-a.yaml': 'kind: B' }),
    );
    await w.reconcile();
    expect(w.condition('SpecSynced')?.message).toBe(
      "The Spec could not be synced due to backend error: Conflict in manifest names ('01-a.yaml' is not unique)",
    );
    expect(w.installer.configs).toEqual([]);
    const b = w.hub.peek({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'extra-b' })!;
    await w.hub.update({ ...b, data: { '02-b.yaml': 'kind: B' } });
    await w.reconcile();
    expect(w.condition('SpecSynced')?.reason).toBe('SyncOK');
    expect(w.installer.manifests).toEqual([['01-a.yaml', '02-b.yaml']]);
  });

  it('reads the manifests ConfigMaps again after a minute, and always when it starts the installation', async () => {
    const w = world({
      masters: 1,
      workers: 0,
      aciSpec: { manifestsConfigMapRef: { name: 'extra' } },
    });
    const reads = vi.spyOn(w.hub, 'getLive');
    const configMapReads = () =>
      reads.mock.calls.filter(([ref]) => ref.kind === 'ConfigMap' && ref.name === 'extra').length;
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'extra' };
    w.hub.seed({
      ...ref,
      metadata: { name: 'extra', namespace: NS },
      data: { 'a.yaml': 'kind: A' },
    });
    await w.reconcile();
    await w.reconcile();
    expect(configMapReads()).toBe(1);
    expect(w.condition('SpecSynced')?.reason).toBe('SyncOK');
    // Gone: seen once the last read is a minute old, and read on every pass while missing.
    const stored = w.hub.peek(ref)!;
    await w.hub.asOtherActor((hub) => hub.delete(ref));
    await w.reconcile();
    expect(w.condition('SpecSynced')?.reason).toBe('SyncOK');
    await w.clock.advance(MANIFESTS_RECHECK_MS);
    await w.reconcile();
    expect(w.condition('SpecSynced')).toMatchObject({
      reason: 'BackendError',
      message: 'The Spec could not be synced due to backend error: configmaps "extra" not found',
    });
    w.hub.seed(stored);
    await w.reconcile();
    expect(w.condition('SpecSynced')?.reason).toBe('SyncOK');
    // Changed just before the host is ready: the pass that starts the installation reads it.
    await w.hub.update({ ...w.hub.peek(ref)!, data: { 'b.yaml': 'kind: B' } });
    w.hosts.add(host('sno-1', CLUSTER_ID, { ip: '10.0.0.5', cores: 8, ramGib: 32 }));
    await w.reconcile();
    expect(w.installer.manifests).toEqual([['b.yaml']]);
    // Installing: the ConfigMaps no longer matter and are not read.
    const before = configMapReads();
    await w.clock.advance(MANIFESTS_RECHECK_MS);
    await w.reconcile();
    expect(configMapReads()).toBe(before);
  });

  it('is woken by what a user changes on an Agent, not by the Agent controller’s projections', () => {
    const agent = {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'Agent',
      metadata: { name: 'h1', namespace: NS, labels: { a: 'b' } },
      spec: { approved: false, clusterDeploymentName: { name: 'site', namespace: NS } },
      status: {
        conditions: [{ type: 'SpecSynced', status: 'True' }],
        validationsInfo: { hardware: [] },
      },
    };
    const watch = w0().controller.watches?.find((w) => w.gvk.kind === 'Agent');
    const changed = (change: Record<string, unknown>) =>
      watch?.onUpdate?.(asKube({ ...agent, ...change }), asKube(agent));
    expect(changed({ spec: { ...agent.spec, approved: true } })).toBe(true);
    expect(
      changed({
        status: { ...agent.status, conditions: [{ type: 'SpecSynced', status: 'False' }] },
      }),
    ).toBe(true);
    expect(changed({ status: { ...agent.status, validationsInfo: { network: [] } } })).toBe(false);
    expect(
      changed({
        metadata: {
          ...agent.metadata,
          annotations: { 'agent.agent-install.openshift.io/state': 'known' },
        },
      }),
    ).toBe(false);
  });

  it('waits for the agents asked for, then for their approval', async () => {
    const w = world();
    fiveHosts(w, { approved: [true, true, true, true, false] });
    w.hosts.hosts.delete('host-5');
    await w.reconcile();
    expect(w.condition('RequirementsMet')?.message).toBe(
      'The cluster currently requires exactly 3 master agents, 0 arbiter agents and 2 worker agents, but currently registered 3 master agents, 0 arbiter agents and 1 worker agents',
    );
    fiveHosts(w, { approved: [true, true, true, true, false] });
    await w.reconcile();
    expect(w.condition('RequirementsMet')).toMatchObject({
      status: 'False',
      reason: 'UnapprovedAgents',
      message: 'The installation is pending on the approval of 1 agents',
    });
    expect(w.state()).toBe('ready');
    expect(w.installer.configs).toEqual([]);
  });

  it('counts agents whose spec could not be synced', async () => {
    const w = world();
    fiveHosts(w);
    w.hub.seed({
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'Agent',
      metadata: {
        name: 'host-1',
        namespace: NS,
        labels: { 'agent-install.openshift.io/clusterdeployment-namespace': NS },
      },
      spec: { clusterDeploymentName: { name: 'site', namespace: NS } },
      status: { conditions: [{ type: 'SpecSynced', status: 'False' }] },
    });
    await w.reconcile();
    expect(w.condition('RequirementsMet')).toMatchObject({
      reason: 'UnsyncedAgents',
      message: 'The cluster currently has 1 agents with spec error',
    });
    expect(w.state()).toBe('ready');
  });

  it('installs 3+2: roles by hardware, the last master as bootstrap, preparation, then the hosts install', async () => {
    const w = world();
    fiveHosts(w);
    await w.reconcile();
    const roles = [...w.hosts.hosts.values()].map((h) => [h.id, h.role, h.bootstrap]);
    expect(roles).toEqual([
      ['host-1', 'master', false],
      ['host-2', 'master', false],
      ['host-3', 'master', true],
      ['host-4', 'worker', false],
      ['host-5', 'worker', false],
    ]);
    expect(w.state()).toBe('preparing-for-installation');
    expect(w.condition('RequirementsMet')).toMatchObject({
      status: 'True',
      reason: 'ClusterAlreadyInstalling',
      message: 'The cluster requirements are met',
    });
    expect(w.condition('Completed')).toMatchObject({
      reason: 'InstallationInProgress',
      message: 'The installation is in progress: Preparing cluster for installation',
    });
    expect(
      [...w.hosts.hosts.values()].every((h) => h.status === 'preparing-for-installation'),
    ).toBe(true);
    const config = parse(w.installer.configs[0]!) as InstallConfigShape;
    expect(config.controlPlane.replicas).toBe(3);
    expect(config.compute[0]?.replicas).toBe(2);
    expect(config.platform.baremetal?.apiVIPs).toEqual(['10.0.0.100']);
    // For the ClusterImageSet's release.
    expect(w.installer.releaseImages).toEqual([
      'quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64',
    ]);

    // The hosts finish their preparation: the cluster installs and tells them to.
    w.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    await w.reconcile();
    expect(w.state()).toBe('installing');
    expect([...w.hosts.hosts.values()].every((h) => h.status === 'installing')).toBe(true);
    expect(w.condition('LastInstallationPreparationFailed')?.reason).toBe(
      'There is no failing prior preparation attempt',
    );
    // During the installation the kubeconfig Secret exists and the ACI names it.
    expect(w.aci().spec.clusterMetadata).toEqual({
      clusterID: 'ocp-cluster-id',
      infraID: CLUSTER_ID,
      adminKubeconfigSecretRef: { name: 'site-admin-kubeconfig' },
    });
    expect(w.aci().status.progress?.totalPercentage).toBeGreaterThan(10);
    // The agent API serves each host the ignition of its role.
    const output = w.controller.installerOutput(CLUSTER_ID)!;
    const ignitionOf = (id: string) => ignitionForHost(output, w.hosts.hosts.get(id)!);
    expect(ignitionOf('host-3')?.['role']).toBe('bootstrap');
    expect(ignitionOf('host-1')?.['role']).toBe('master');
    expect(ignitionOf('host-5')?.['role']).toBe('worker');
  });

  it('holds the installation while holdInstallation is set, and installs once it is cleared', async () => {
    const w = world({ aciSpec: { holdInstallation: true } });
    fiveHosts(w);
    await w.reconcile();
    expect(w.condition('Completed')).toMatchObject({
      status: 'False',
      reason: 'InstallationOnHold',
      message: 'The installation is on hold. To unhold set holdInstallation to false',
    });
    expect(w.condition('RequirementsMet')?.reason).toBe('ClusterIsReady');
    expect(w.state()).toBe('ready');
    const aci = w.aci();
    await w.hub.update(asKube({ ...aci, spec: { ...aci.spec, holdInstallation: false } }));
    await w.reconcile();
    expect(w.state()).toBe('preparing-for-installation');
  });

  it('holds the installation while the ClusterDeployment is paused', async () => {
    const w = world({ cdAnnotations: { 'hive.openshift.io/reconcile-pause': 'true' } });
    fiveHosts(w);
    await w.reconcile();
    expect(w.condition('Completed')?.reason).toBe('InstallationOnHold');
    expect(w.installer.configs).toEqual([]);
  });

  it('installs a single node: master and bootstrap, bootstrap-in-place on its disk', async () => {
    const w = world({ masters: 1, workers: 0 });
    w.hosts.add(host('sno-1', CLUSTER_ID, { ip: '10.0.0.5', cores: 8, ramGib: 32 }));
    await w.reconcile();
    expect(w.hosts.hosts.get('sno-1')).toMatchObject({ role: 'master', bootstrap: true });
    const config = parse(w.installer.configs[0]!) as InstallConfigShape;
    expect(config.platform).toEqual({ none: {} });
    expect(config.bootstrapInPlace).toEqual({ installationDisk: '/dev/disk/by-id/wwn-0x1' });
    expect(config.networking.networkType).toBe('OVNKubernetes');
    expect(w.aci().status.userManagedNetworking).toBe(true);
    expect(w.aci().status.platformType).toBe('None');
    // Once it installs, the API and ingress answer on the node's own address.
    expect(w.aci().status.apiVIPs).toEqual([]);
    w.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    await w.reconcile();
    expect(w.aci().status).toMatchObject({
      apiVIP: '10.0.0.5',
      apiVIPs: ['10.0.0.5'],
      ingressVIP: '10.0.0.5',
      ingressVIPs: ['10.0.0.5'],
    });
  });

  it('looks again a second after a move, so finalizing ends without waiting for the installing backstop', async () => {
    const w = world();
    fiveHosts(w);
    await w.reconcile();
    w.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    await w.reconcile();
    w.hosts.moveAll(CLUSTER_ID, 'installing', 'installed', 'Done');
    const pass = () =>
      w.controller.reconcile(
        { namespace: NS, name: 'site' },
        {
          reader: w.hub,
          writer: w.hub,
          events: w.hub,
          clock: w.clock,
          log: createLogger({ level: 'silent' }),
          signal: new AbortController().signal,
        },
      );
    expect(await pass()).toEqual({ requeueAfterMs: 1_000 });
    expect(w.state()).toBe('finalizing');
    expect(await pass()).toEqual({});
    expect(w.state()).toBe('installed');
  });

  it('installs to completion: Secrets, clusterMetadata, ClusterDeployment installed, upstream events', async () => {
    const w = world();
    const reads = vi.spyOn(w.hub, 'getLive');
    fiveHosts(w);
    await w.reconcile();
    w.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    await w.reconcile();
    w.hosts.moveAll(CLUSTER_ID, 'installing', 'installed', 'Done');
    await w.reconcile();
    await w.reconcile();
    expect(w.aci().status.debugInfo).toMatchObject({
      state: 'installed',
      stateInfo: 'Cluster is installed',
    });
    expect(w.condition('Completed')).toMatchObject({
      status: 'True',
      reason: 'InstallationCompleted',
      message: 'The installation has completed: Cluster is installed',
    });
    expect(w.condition('Stopped')).toMatchObject({
      status: 'True',
      reason: 'InstallationCompleted',
      message: 'The installation has stopped because it completed successfully',
    });
    expect(w.condition('RequirementsMet')?.reason).toBe('ClusterInstallationStopped');
    expect(w.aci().status.progress?.totalPercentage).toBe(100);
    const kubeconfig = w.hub.peek({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: NS,
      name: 'site-admin-kubeconfig',
    })!;
    expect(kubeconfig.metadata.labels).toEqual({
      'hive.openshift.io/cluster-deployment-name': 'site',
      'hive.openshift.io/secret-type': 'kubeconfig',
    });
    expect(kubeconfig.metadata['ownerReferences']).toMatchObject([
      { kind: 'ClusterDeployment', uid: CLUSTER_ID },
    ]);
    expect(w.secret('site-admin-kubeconfig', 'kubeconfig')).toContain('kind: Config');
    const password = w.hub.peek({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: NS,
      name: 'site-admin-password',
    })!;
    expect(password.metadata.labels?.['hive.openshift.io/secret-type']).toBe('kubeadmincreds');
    expect(password['type']).toBe('Opaque');
    expect(w.secret('site-admin-password', 'username')).toBe('kubeadmin');
    expect(w.secret('site-admin-password', 'password')).toBe('abcde-fghij-klmno-pqrst');
    // New Secrets are created without a read first, and the kubeconfig this process wrote is
    // not read back.
    expect(
      reads.mock.calls
        .map(([ref]) => ref)
        .filter((ref) => ref.kind === 'Secret' && ref.name !== 'pull-secret')
        .map((ref) => ref.name),
    ).toEqual([]);
    const metadata = {
      clusterID: 'ocp-cluster-id',
      infraID: CLUSTER_ID,
      adminKubeconfigSecretRef: { name: 'site-admin-kubeconfig' },
      adminPasswordSecretRef: { name: 'site-admin-password' },
    };
    expect(w.aci().spec.clusterMetadata).toEqual(metadata);
    expect(w.cd().spec.installed).toBe(true);
    expect(w.cd().spec.clusterMetadata).toEqual(metadata);
    // Done: a later pass writes nothing and keeps no installer output in memory.
    const writes = w.hub.writes.length;
    await w.reconcile();
    expect(w.hub.writes.slice(writes)).toEqual([]);
    expect(w.controller.installerOutput(CLUSTER_ID)).toBeUndefined();
    expect(w.controller.events.list(CLUSTER_ID).map((e) => e.message)).toEqual(
      expect.arrayContaining([
        'Cluster starting to prepare for installation',
        'Updated status of the cluster to preparing-for-installation',
        'Updated status of the cluster to installing',
        'Updated status of the cluster to finalizing',
        'Updated status of the cluster to installed',
        'Successfully completed installing cluster',
      ]),
    );
  });

  it('with day2AfterInstall, turns into a day-2 cluster and installs a host added later', async () => {
    const w = world({}, { day2AfterInstall: true });
    fiveHosts(w);
    await w.reconcile();
    w.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    await w.reconcile();
    w.hosts.moveAll(CLUSTER_ID, 'installing', 'installed', 'Done');
    await w.reconcile();
    // Upstream TransformClusterToDay2: the status moves, the status info stays.
    expect(w.aci().status.debugInfo).toMatchObject({
      state: 'adding-hosts',
      stateInfo: 'Cluster is installed',
    });
    expect(w.condition('RequirementsMet')?.reason).toBe('ClusterAlreadyInstalling');
    expect(w.condition('Completed')?.message).toBe(
      'The installation has completed: Cluster is installed',
    );
    w.hosts.add(host('host-6', CLUSTER_ID, { ip: '10.0.0.16', role: 'worker', approved: false }));
    await w.reconcile();
    expect(w.hosts.hosts.get('host-6')?.status).toBe('known');
    w.hosts.set('host-6', { approved: true });
    await w.reconcile();
    expect(w.hosts.hosts.get('host-6')?.status).toBe('installing');
  });

  it('imports a ClusterDeployment installed by other means as a day-2 cluster', async () => {
    const w = world({
      withPullSecret: false,
      withImageSet: false,
      cdSpec: { installed: true, pullSecretRef: undefined },
      aciSpec: { imageSetRef: undefined },
    });
    await w.reconcile();
    expect(w.condition('SpecSynced')?.reason).toBe('SyncOK');
    expect(w.aci().status.debugInfo).toMatchObject({
      state: 'adding-hosts',
      stateInfo: 'cluster is adding hosts to existing OCP cluster',
    });
    expect(w.condition('Completed')?.message).toBe(
      'The installation has completed: cluster is adding hosts to existing OCP cluster',
    );
  });

  it('fails the hosts with the cluster and says so in Failed and Stopped', async () => {
    const w = world();
    fiveHosts(w);
    await w.reconcile();
    w.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    await w.reconcile();
    w.hosts.set('host-4', { status: 'error' });
    await w.reconcile();
    expect(w.condition('Failed')).toMatchObject({
      status: 'True',
      reason: 'InstallationFailed',
      message: 'The installation failed: cluster has hosts in error',
    });
    expect(w.condition('Stopped')?.message).toBe('The installation has stopped due to error');
    expect(w.condition('Completed')?.message).toBe(
      'The installation has failed: cluster has hosts in error',
    );
    expect(w.hosts.hosts.get('host-1')?.status).toBe('error');
  });

  it('waits, saying why, while openshift-install is missing', async () => {
    const w = world(
      {},
      {
        installer: new OpenshiftInstallBackend({
          path: '/nonexistent/openshift-install',
          howToConfigure: 'pass --openshift-install-path to the controller',
        }),
      },
    );
    fiveHosts(w);
    const result = await w.reconcile();
    expect(w.condition('InstallerBackend')).toMatchObject({
      status: 'False',
      reason: 'InstallerNotAvailable',
      message:
        "The installation waits for openshift-install: /nonexistent/openshift-install does not exist. Install the openshift-install binary of the cluster's release there, or pass --openshift-install-path to the controller",
    });
    expect(w.state()).toBe('ready');
    expect(result.requeueAfterMs).toBe(30_000);
  });

  it('says when the simulated installer backend is in use, and its kubeconfig ends up in the Secret', async () => {
    const workDir = join(await mkdtemp(join(tmpdir(), 'acluster-')), 'not', 'yet', 'there');
    const w = world(
      { masters: 1, workers: 0 },
      { installer: new SimulatedInstallerBackend(), workDir },
    );
    w.hosts.add(host('sno-1', CLUSTER_ID, { ip: '10.0.0.5' }));
    await w.reconcile();
    expect(w.condition('InstallerBackend')).toMatchObject({
      status: 'True',
      reason: 'SimulatedInstaller',
    });
    expect(w.condition('InstallerBackend')?.message).toContain(
      'simulated installer backend is in use',
    );
    w.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    await w.reconcile();
    expect(w.secret('site-admin-kubeconfig', 'kubeconfig')).toContain(
      'server: https://api.site.example.com:6443',
    );
    // The work directory was made, and the installation's own one removed afterwards.
    expect(await readdir(workDir)).toEqual([]);
  });

  it('goes back to ready and says why when the ignition cannot be generated', async () => {
    const w = world();
    w.installer.failWith = 'openshift-install create ignition-configs failed: exit status 1';
    fiveHosts(w);
    await w.reconcile();
    expect(w.condition('LastInstallationPreparationFailed')).toMatchObject({
      status: 'True',
      reason: 'The last installation preparation failed',
      message:
        'failed generating install config for cluster cluster-1: openshift-install create ignition-configs failed: exit status 1',
    });
    expect(w.state()).toBe('ready');
    expect([...w.hosts.hosts.values()].every((h) => h.status === 'known')).toBe(true);
  });

  it('writes nothing in a pass that changes nothing', async () => {
    const w = world();
    fiveHosts(w);
    await w.reconcile();
    w.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    await w.reconcile();
    const writes = w.hub.writes.length;
    await w.reconcile();
    await w.reconcile();
    expect(w.hub.writes.slice(writes)).toEqual([]);
  });

  it('writes nothing when the API server returns the status with its keys re-ordered', async () => {
    const w = world();
    fiveHosts(w);
    await w.reconcile();
    // As kube-apiserver re-encodes a custom resource: Go sorts map keys.
    const sorted = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(sorted)
        : value !== null && typeof value === 'object'
          ? Object.fromEntries(
              Object.entries(value)
                .sort(([a], [b]) => (a < b ? -1 : 1))
                .map(([k, v]) => [k, sorted(v)]),
            )
          : value;
    const stored = w.hub.peek(ACI_REF)!;
    await w.hub.asOtherActor((c) => c.updateStatus(sorted(stored) as typeof stored));
    const writes = w.hub.writes.length;
    await w.reconcile();
    expect(w.hub.writes.slice(writes)).toEqual([]);
  });

  it('carries on after a restart mid-installation from what the ACI and Secrets hold', async () => {
    const w = world();
    fiveHosts(w);
    await w.reconcile();
    w.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    await w.reconcile();
    const before = w.aci();
    w.restart();
    w.installer.failWith = 'must not generate again';
    w.hosts.moveAll(CLUSTER_ID, 'installing', 'installed', 'Done');
    await w.reconcile();
    await w.reconcile();
    expect(w.state()).toBe('installed');
    expect(w.installer.configs).toHaveLength(1);
    expect(w.cd().spec.installed).toBe(true);
    // The restarted controller kept the start time and the preparation outcome.
    const state = (a: typeof before) =>
      JSON.parse(a.metadata.annotations!['assisted.siteforge.io/cluster-state']!) as Record<
        string,
        unknown
      >;
    expect(state(w.aci())['installStartedAt']).toBe(state(before)['installStartedAt']);
    expect(state(w.aci())['lastPreparation']).toEqual({ status: 'success' });
  });
});

describe('deleting a cluster', () => {
  it('deletes the ACI first, cancels the installation, lets the agents go, then lets both objects go', async () => {
    const w = world();
    fiveHosts(w);
    w.hub.seed(
      {
        apiVersion: 'agent-install.openshift.io/v1beta1',
        kind: 'InfraEnv',
        metadata: { name: 'bound-env', namespace: NS },
        spec: { clusterRef: { name: 'site', namespace: NS } },
      },
      {
        apiVersion: 'agent-install.openshift.io/v1beta1',
        kind: 'InfraEnv',
        metadata: { name: 'pool', namespace: NS },
        spec: {},
      },
      {
        apiVersion: 'agent-install.openshift.io/v1beta1',
        kind: 'Agent',
        metadata: {
          name: 'host-1',
          namespace: NS,
          labels: { 'infraenvs.agent-install.openshift.io': 'bound-env' },
        },
        spec: { clusterDeploymentName: { name: 'site', namespace: NS } },
      },
      {
        apiVersion: 'agent-install.openshift.io/v1beta1',
        kind: 'Agent',
        metadata: {
          name: 'host-2',
          namespace: NS,
          labels: { 'infraenvs.agent-install.openshift.io': 'pool' },
        },
        spec: { clusterDeploymentName: { name: 'site', namespace: NS } },
      },
    );
    await w.reconcile();
    w.hosts.moveAll(CLUSTER_ID, 'preparing-for-installation', 'preparing-successful');
    await w.reconcile();
    await w.hub.delete({
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterDeployment',
      namespace: NS,
      name: 'site',
    });
    await w.reconcile();
    expect(w.exists(ACI_REF)).toBe(false);
    expect(w.exists(CD_REF)).toBe(false);
    expect([...w.hosts.hosts.values()].map((h) => h.status)).toEqual(Array(5).fill('cancelled'));
    // The agent of the cluster's own InfraEnv is deleted; the pool's agent is unbound.
    expect(
      w.hub.peek({
        apiVersion: 'agent-install.openshift.io/v1beta1',
        kind: 'Agent',
        namespace: NS,
        name: 'host-1',
      }),
    ).toBeUndefined();
    expect(
      w.hub.peek({
        apiVersion: 'agent-install.openshift.io/v1beta1',
        kind: 'Agent',
        namespace: NS,
        name: 'host-2',
      })?.['spec'],
    ).toEqual({ clusterDeploymentName: null });
    expect(w.controller.installations.get(CLUSTER_ID)).toBeUndefined();
    expect(w.controller.events.list(CLUSTER_ID).map((e) => e.message)).toEqual(
      expect.arrayContaining(['Canceled cluster installation', 'Deregistered cluster']),
    );
  });

  it('lets an ACI go whose ClusterDeployment is already gone', async () => {
    const w = world();
    await w.reconcile();
    // The ClusterDeployment disappears without its finalizer running (forced by hand).
    const cd = w.cd();
    await w.hub.update(asKube({ ...cd, metadata: { ...cd.metadata, finalizers: [] } }));
    await w.hub.delete(CD_REF);
    await w.hub.delete(ACI_REF);
    expect(w.exists(ACI_REF)).toBe(true);
    await w.reconcile();
    expect(w.exists(ACI_REF)).toBe(false);
    expect(w.controller.installations.get(CLUSTER_ID)).toBeUndefined();
  });
});
