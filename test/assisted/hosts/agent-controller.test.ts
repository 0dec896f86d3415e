import { describe, expect, it } from 'vitest';
import { Gvk } from '../../../src/bmac/api.js';
import { AGENT_FINALIZER, AgentAnnotation } from '../../../src/assisted/hosts/agent-names.js';
import { HOST_MONITOR_SLICE, HostMonitor } from '../../../src/assisted/hosts/host-monitor.js';
import type { ObjectWriter } from '../../../src/bmac/runtime/contract.js';
import { agentController } from '../../../src/assisted/hosts/agent-controller.js';
import { HostService } from '../../../src/assisted/hosts/host-service.js';
import { HostStage, HostStatus, StepType } from '../../../src/assisted/model.js';
import {
  HOST_ID,
  NS,
  World,
  clusterDeployment,
  infraEnvObject,
  inventory,
  snoCluster,
} from './fixtures.js';

/** A single-node cluster's host, registered with an inventory and known. */
async function knownSnoHost(): Promise<World> {
  const w = new World(
    infraEnvObject({ clusterRef: { name: 'sno-1', namespace: NS } }),
    clusterDeployment(),
  );
  w.clusters.records.set('cd-uid-1', snoCluster());
  await w.registered(inventory());
  return w;
}

describe('Agent spec flowing into the host', () => {
  it('role, hostname, installation disk, node labels and approval reach the host record', async () => {
    const w = await knownSnoHost();
    await w.editSpec({
      role: 'worker',
      hostname: 'edge-node-7',
      installation_disk_path: '/dev/disk/by-path/pci-0000:00:1f.2-ata-1',
      nodeLabels: { 'node-role.kubernetes.io/edge': '' },
      approved: true,
      installerArgs: '["--append-karg","nosmt"]',
    });
    await w.reconcile();
    expect(w.service.get(HOST_ID)).toMatchObject({
      role: 'worker',
      suggestedRole: 'worker',
      requestedHostname: 'edge-node-7',
      installationDiskId: '/dev/disk/by-id/wwn-0x5000c500a0b1c2d3',
      nodeLabels: { 'node-role.kubernetes.io/edge': '' },
      approved: true,
      installerArgs: ['--append-karg', 'nosmt'],
    });
    expect(w.condition('SpecSynced')).toMatchObject({ status: 'True', reason: 'SyncOK' });
    expect(w.status()['role']).toBe('worker');
    expect(w.condition('RequirementsMet')).toMatchObject({
      status: 'True',
      reason: 'AgentIsReady',
      message: 'The agent is ready to begin the installation',
    });
  });

  it('a disk that is not a valid installation disk is an input error', async () => {
    const w = await knownSnoHost();
    await w.editSpec({ installation_disk_id: '/dev/disk/by-id/usb-stick' });
    await w.reconcile();
    expect(w.condition('SpecSynced')).toMatchObject({
      status: 'False',
      reason: 'InputError',
      message:
        "The Spec could not be synced due to an input error: Requested installation disk is not part of the host's valid disks",
    });
    expect(w.service.get(HOST_ID)?.installationDiskId).toBe(
      '/dev/disk/by-id/wwn-0x5000c500a0b1c2d3',
    );
  });

  it('an invalid hostname or installer flag is refused with upstream wording, and nothing applies', async () => {
    const w = await knownSnoHost();
    await w.editSpec({ hostname: 'Bad_Name', role: 'worker' });
    await w.reconcile();
    expect(w.condition('SpecSynced')?.['message']).toBe(
      'The Spec could not be synced due to an input error: Hostname does not pass required regex validation: ^[a-z0-9][a-z0-9-]{0,62}(?:[.][a-z0-9-]{1,63})*$. Hostname: Bad_Name',
    );
    expect(w.service.get(HOST_ID)?.role).toBe('master');
    await w.editSpec({ hostname: '', installerArgs: '["--karg-evil"]' });
    await w.reconcile();
    expect(w.condition('SpecSynced')?.['message']).toBe(
      'The Spec could not be synced due to an input error: found unexpected flag --karg-evil for installer - allowed flags are [--append-karg --delete-karg -n --copy-network --network-dir --save-partlabel --save-partindex --image-url --image-file]',
    );
  });

  it('once installation started, role and hostname changes are left unapplied (approval still flows)', async () => {
    const w = await knownSnoHost();
    await w.editSpec({ approved: true });
    await w.reconcile();
    expect(w.service.apply(HOST_ID, { type: 'InstallHost' }, w.now()).ok).toBe(true);
    await w.flush();
    await w.editSpec({ role: 'worker', hostname: 'late-name', approved: false });
    await w.reconcile();
    expect(w.service.get(HOST_ID)).toMatchObject({ role: 'master', approved: false });
    expect(w.service.get(HOST_ID)?.requestedHostname).toBeUndefined();
    expect(w.condition('SpecSynced')).toMatchObject({ status: 'True' });
    expect(w.condition('RequirementsMet')).toMatchObject({
      status: 'True',
      reason: 'AgentAlreadyInstalling',
    });
    expect(w.condition('Installed')).toMatchObject({
      status: 'False',
      reason: 'InstallationInProgress',
      message: 'The installation is in progress: Installation is in progress',
    });
  });

  it('removing the cluster reference mid-install is refused with upstream wording', async () => {
    const w = await knownSnoHost();
    w.service.apply(HOST_ID, { type: 'InstallHost' }, w.now());
    await w.flush();
    await w.editSpec({ clusterDeploymentName: null });
    await w.reconcile();
    expect(w.condition('SpecSynced')?.['message']).toBe(
      `The Spec could not be synced due to an input error: cancelling non-day-2 host [${HOST_ID}] in the middle of installation is not allowed`,
    );
    expect(w.service.get(HOST_ID)?.clusterId).toBe('cd-uid-1');
  });

  it('a bound host gets its events URL from the InfraEnv one (same base and token), an unbound one none', async () => {
    const w = new World(
      {
        ...infraEnvObject({ clusterRef: { name: 'sno-1', namespace: NS } }),
        status: {
          debugInfo: {
            eventsURL:
              'https://hub.example.com:8090/api/assisted-install/v2/events?infra_env_id=ie-uid-1&api_key=eyJ.tok.en',
          },
        },
      },
      clusterDeployment(),
    );
    w.clusters.records.set('cd-uid-1', snoCluster());
    await w.registered();
    expect(w.status()['debugInfo']).toMatchObject({
      eventsURL: `https://hub.example.com:8090/api/assisted-install/v2/events?host_id=${HOST_ID}&api_key=eyJ.tok.en`,
    });
    const unbound = new World(infraEnvObject());
    await unbound.registered();
    expect(unbound.status()['debugInfo']).toEqual({
      state: 'discovering-unbound',
      stateInfo: 'Waiting for host to send hardware details',
    });
  });

  it('setting a cluster reference binds an unbound host; the Bound condition follows', async () => {
    const w = new World(infraEnvObject(), clusterDeployment());
    await w.registered(inventory(4));
    expect(w.condition('Bound')).toMatchObject({ status: 'False', reason: 'Unbound' });
    await w.editSpec({ clusterDeploymentName: { name: 'sno-1', namespace: NS } });
    await w.reconcile();
    expect(w.condition('SpecSynced')).toMatchObject({
      status: 'False',
      reason: 'BackendError',
      message: 'The Spec could not be synced due to backend error: record not found',
    });
    w.clusters.records.set('cd-uid-1', snoCluster());
    await w.reconcile();
    expect(w.service.get(HOST_ID)).toMatchObject({
      status: HostStatus.Binding,
      clusterId: 'cd-uid-1',
    });
    expect(w.condition('Bound')).toMatchObject({
      status: 'False',
      reason: 'Binding',
      message: 'The agent is currently binding to a cluster deployment',
    });
    expect(
      w.agent()?.metadata.labels?.['agent-install.openshift.io/clusterdeployment-namespace'],
    ).toBe(NS);
  });

  it('a cluster reference to a missing ClusterDeployment is a backend error', async () => {
    const w = new World(infraEnvObject());
    await w.registered();
    await w.editSpec({ clusterDeploymentName: { name: 'ghost', namespace: NS } });
    const result = await w.controller.reconcile(
      { namespace: NS, name: HOST_ID },
      {
        reader: w.cluster,
        writer: w.cluster,
        events: w.cluster,
        clock: w.clock,
        log: w.log,
        signal: new AbortController().signal,
      },
    );
    expect(result.requeueAfterMs).toBe(10_000);
    expect(w.condition('SpecSynced')?.['message']).toBe(
      'The Spec could not be synced due to backend error: failed to get clusterDeployment with name ghost in namespace site-1: clusterdeployments.hive.openshift.io "ghost" not found',
    );
  });
});

describe('more of the Agent spec', () => {
  it('removing the cluster reference of a host not installing unbinds it', async () => {
    const w = await knownSnoHost();
    await w.editSpec({ clusterDeploymentName: null });
    await w.reconcile();
    expect(w.service.get(HOST_ID)?.clusterId).toBeUndefined();
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.Unbinding);
    expect(w.condition('Bound')).toMatchObject({
      status: 'False',
      reason: 'Unbinding',
      message: 'The agent is currently unbinding from a cluster deployment',
    });
  });

  it('an InfraEnv that starts auto-approving approves its waiting Agents', async () => {
    const w = new World(infraEnvObject());
    await w.registered(inventory());
    expect(w.agent()?.['spec']).toMatchObject({ approved: false });
    const infraEnv = w.cluster.peek({ ...Gvk.InfraEnv, namespace: NS, name: 'sno-1' });
    if (infraEnv === undefined) throw new Error('no InfraEnv');
    await w.cluster.update({ ...infraEnv, spec: { agentApproval: { autoApprove: true } } });
    const requests = w.controller.watches?.[0]?.map(infraEnv, w.cluster) ?? [];
    expect(requests).toEqual([{ namespace: NS, name: HOST_ID }]);
    await w.reconcile();
    expect(w.agent()?.['spec']).toMatchObject({ approved: true });
    expect(w.service.get(HOST_ID)?.approved).toBe(true);
    expect(w.condition('RequirementsMet')).toMatchObject({ reason: 'AgentIsReady' });
  });

  it('ignition overrides that are not Ignition are an input error', async () => {
    const w = await knownSnoHost();
    await w.editSpec({ ignitionConfigOverrides: '{"storage": {}}' });
    await w.reconcile();
    expect(w.condition('SpecSynced')).toMatchObject({
      reason: 'InputError',
      message:
        'The Spec could not be synced due to an input error: config is not valid: ignition.version is missing',
    });
    await w.editSpec({ ignitionConfigOverrides: '{"ignition": {"version": "3.2.0"}}' });
    await w.reconcile();
    expect(w.condition('SpecSynced')).toMatchObject({ reason: 'SyncOK' });
    expect(w.service.get(HOST_ID)?.ignitionConfigOverrides).toBe(
      '{"ignition": {"version": "3.2.0"}}',
    );
  });

  it('an Agent without the InfraEnv label has no host: NotAvailable conditions and a backend error', async () => {
    const w = new World(infraEnvObject(), {
      ...Gvk.Agent,
      metadata: { name: 'orphan', namespace: NS },
      spec: { approved: false, role: '' },
    });
    await w.reconcile('orphan');
    expect(w.condition('SpecSynced', 'orphan')).toMatchObject({
      status: 'False',
      reason: 'BackendError',
      message: 'The Spec could not be synced due to backend error: Missing InfraEnv name label',
    });
    expect(w.condition('Connected', 'orphan')).toMatchObject({
      status: 'Unknown',
      reason: 'NotAvailable',
      message: 'Information not available',
    });
    expect(w.agent('orphan')?.metadata['finalizers']).toEqual([AGENT_FINALIZER]);
  });
});

describe('Agent status through a host lifetime', () => {
  it('discovering, insufficient with failing validations, then installed with progress', async () => {
    const w = new World(
      infraEnvObject({ clusterRef: { name: 'sno-1', namespace: NS } }),
      clusterDeployment(),
    );
    w.clusters.records.set('cd-uid-1', snoCluster());
    await w.registered();
    expect(w.condition('Validated')).toMatchObject({
      status: 'Unknown',
      reason: 'ValidationsUnknown',
    });
    expect(w.condition('Installed')).toMatchObject({ reason: 'InstallationNotStarted' });

    await w.service.postStepReply(
      w.infraEnvRef(),
      HOST_ID,
      {
        stepType: 'inventory',
        stepId: 'inventory-1',
        exitCode: 0,
        output: JSON.stringify(inventory(4)),
        error: '',
      },
      w.now(),
    );
    await w.flush();
    expect(w.status()['debugInfo']).toMatchObject({ state: 'insufficient' });
    expect(w.condition('Validated')).toMatchObject({
      status: 'False',
      reason: 'ValidationsFailing',
      message:
        "The agent's validations are failing: Require at least 8 CPU cores for master role, found only 4",
    });

    // The user picks a bigger machine: a fresh inventory with 8 cores.
    await w.service.postStepReply(
      w.infraEnvRef(),
      HOST_ID,
      {
        stepType: 'inventory',
        stepId: 'inventory-2',
        exitCode: 0,
        output: JSON.stringify(inventory(8)),
        error: '',
      },
      w.now(),
    );
    await w.editSpec({ approved: true });
    await w.reconcile();
    expect(w.condition('Validated')).toMatchObject({
      status: 'True',
      reason: 'ValidationsPassing',
    });
    w.service.apply(HOST_ID, { type: 'InstallHost' }, w.now());
    const ie = w.infraEnvRef();
    w.clock.advance(5_000);
    expect(
      await w.service.updateProgress(
        ie,
        HOST_ID,
        { currentStage: HostStage.StartingInstallation },
        w.now(),
      ),
    ).toMatchObject({ ok: true });
    w.clock.advance(65_000);
    await w.service.updateProgress(
      ie,
      HOST_ID,
      { currentStage: HostStage.WritingImageToDisk, progressInfo: '45%' },
      w.now(),
    );
    await w.flush();
    expect(w.status()['progress']).toEqual({
      currentStage: 'Writing image to disk',
      progressInfo: '45%',
      installationPercentage: 50,
      stageStartTime: '2026-11-25T12:01:10Z',
      stageUpdateTime: '2026-11-25T12:01:10Z',
      progressStages: [
        'Starting installation',
        'Installing',
        'Waiting for bootkube',
        'Writing image to disk',
        'Copying registry data to disk',
        'Rebooting',
        'Joined',
        'Done',
      ],
    });
    expect(w.agent()?.metadata.annotations?.[AgentAnnotation.CurrentStage]).toBe(
      'Writing image to disk',
    );
    await w.service.updateProgress(ie, HOST_ID, { currentStage: HostStage.Done }, w.now());
    await w.flush();
    expect(w.condition('Installed')).toMatchObject({
      status: 'True',
      reason: 'InstallationCompleted',
      message: 'The installation has completed: Done',
    });
    expect(w.condition('RequirementsMet')).toMatchObject({ reason: 'AgentInstallationStopped' });
  });

  it('a progress report for a host not installing is a 409 with upstream wording', async () => {
    const w = await knownSnoHost();
    const outcome = await w.service.updateProgress(
      w.infraEnvRef(),
      HOST_ID,
      { currentStage: HostStage.Installing },
      w.now(),
    );
    expect(outcome).toEqual({
      ok: false,
      httpStatus: 409,
      reason: "Can't set progress <Installing> to host in status <known>",
    });
  });

  it('an unbound host may not report progress (400)', async () => {
    const w = new World(infraEnvObject());
    await w.registered();
    expect(
      await w.service.updateProgress(
        w.infraEnvRef(),
        HOST_ID,
        { currentStage: HostStage.Installing },
        w.now(),
      ),
    ).toEqual({
      ok: false,
      httpStatus: 400,
      reason: `host ${HOST_ID} is not bound to any cluster, cannot update progress`,
    });
  });
});

describe('disconnection', () => {
  it('an agent silent for more than 3 minutes is disconnected; checking in again reconnects it', async () => {
    const w = await knownSnoHost();
    // A single-node host is the bootstrap: 3 minutes + 2.
    const monitor = w.monitor();
    w.clock.advance(4 * 60_000);
    monitor.runOnce();
    await w.flush();
    expect(w.condition('Connected')).toMatchObject({ status: 'True' });
    w.clock.advance(60_000 + 1);
    monitor.runOnce();
    await w.flush();
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.Disconnected);
    expect(w.condition('Connected')).toMatchObject({
      status: 'False',
      reason: 'AgentIsDisconnected',
      message:
        'The agent has not contacted the installation service in some time, user action should be taken',
      lastTransitionTime: '2026-11-25T12:05:00Z',
    });
    await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now());
    monitor.runOnce();
    await w.flush();
    expect(w.condition('Connected')).toMatchObject({ status: 'True', reason: 'AgentIsConnected' });
  });

  it('a standby does not monitor: hosts keep their status until it leads', async () => {
    const w = new World(infraEnvObject());
    await w.registered(inventory());
    let leading = false;
    const monitor = new HostMonitor({
      hosts: w.service,
      clock: w.clock,
      log: w.log,
      isLeader: () => leading,
    });
    monitor.start();
    w.clock.advance(4 * 60_000);
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.KnownUnbound);
    leading = true;
    w.clock.advance(10_000);
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.DisconnectedUnbound);
    monitor.stop();
  });

  it('a scheduled round over many hosts refreshes them a slice at a time, letting other work in between', async () => {
    const w = new World(infraEnvObject());
    const ids = Array.from(
      { length: HOST_MONITOR_SLICE * 2 + 50 },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    for (const id of ids) await w.service.registerHost(w.infraEnvRef(), id, 'v1', w.now());
    const disconnected = () =>
      ids.filter((id) => w.service.get(id)?.status === HostStatus.DisconnectedUnbound).length;
    const monitor = w.monitor();
    monitor.start();
    w.clock.advance(4 * 60_000);
    // The first slice ran with the timer; the others wait for their turns.
    expect(disconnected()).toBe(HOST_MONITOR_SLICE);
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(disconnected()).toBe(ids.length);
    monitor.stop();
  });

  it('the monitor started with start() runs on the clock and stops with stop()', async () => {
    const w = new World(infraEnvObject());
    await w.registered(inventory());
    const monitor = w.monitor();
    monitor.start();
    w.clock.advance(3 * 60_000 + 10_000);
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.DisconnectedUnbound);
    monitor.stop();
    await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now());
    w.clock.advance(60_000);
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.DisconnectedUnbound);
  });
});

describe('restart', () => {
  it('a new HostService continues from the Agents: status, progress, stage times, step results', async () => {
    const w = await knownSnoHost();
    await w.editSpec({ approved: true, hostname: 'edge-node-7' });
    await w.reconcile();
    w.service.apply(HOST_ID, { type: 'InstallHost' }, w.now());
    w.clock.advance(90_500);
    await w.service.updateProgress(
      w.infraEnvRef(),
      HOST_ID,
      { currentStage: HostStage.Installing, progressInfo: 'pulling' },
      w.now(),
    );
    await w.flush();
    const before = w.service.get(HOST_ID);

    w.restart();
    w.clock.advance(10_000);
    const mark = w.cluster.writes.length;
    await w.reconcile();
    // Restoring writes nothing: the Agent already shows what the record holds.
    expect(w.writesSince(mark)).toEqual([]);
    const after = w.service.get(HOST_ID);
    expect(after).toEqual({ ...before, checkedInAt: '2026-11-25T12:01:40.500Z' });
    expect(after?.progress.stageStartedAt).toBe('2026-11-25T12:01:30.500Z');

    // The installation goes on where it was.
    w.clock.advance(10_000);
    const next = await w.service.updateProgress(
      w.infraEnvRef(),
      HOST_ID,
      { currentStage: HostStage.Done },
      w.now(),
    );
    expect(next.ok).toBe(true);
    await w.flush();
    expect(w.condition('Installed')).toMatchObject({ status: 'True' });
  });

  it('an inventory taken but not yet on the Agent when the process restarted is asked for again: the host leaves discovering', async () => {
    const w = new World(
      infraEnvObject({ clusterRef: { name: 'sno-1', namespace: NS } }),
      clusterDeployment(),
    );
    w.clusters.records.set('cd-uid-1', snoCluster());
    await w.registered();
    const ie = w.infraEnvRef();
    // Taken (the agent caches the reply and will not send it again), the Agent not written yet.
    expect((await sendInventory(w)).ok).toBe(true);
    expect(w.service.get(HOST_ID)?.inventory).toBeDefined();
    w.queue.clear();
    w.restart();
    w.service.restoreAll();
    expect(w.service.get(HOST_ID)).toMatchObject({ status: HostStatus.Discovering });
    expect(w.service.get(HOST_ID)?.inventory).toBeUndefined();

    // The agent's next poll fails once (so it forgets what it sent), the one after asks again.
    const first = await w.service.nextSteps(ie, HOST_ID, w.now());
    expect(first).toMatchObject({ ok: false, httpStatus: 503 });
    expect(first.ok ? '' : first.reason).toContain('without its hardware inventory');
    const second = await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now());
    expect(second.ok && second.value.instructions.map((i) => i.stepType)).toEqual([
      StepType.Inventory,
    ]);
    expect((await sendInventory(w)).ok).toBe(true);
    await w.flush();
    expect(w.service.get(HOST_ID)?.status).not.toBe(HostStatus.Discovering);
    expect(w.agent()?.metadata.annotations?.[AgentAnnotation.Inventory]).toBeDefined();
  });

  it('a restored host that has its inventory, or is past discovery, is answered at once', async () => {
    const w = await knownSnoHost();
    w.restart();
    w.service.restoreAll();
    const steps = await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now());
    expect(steps.ok).toBe(true);
  });

  it('restoreAll rebuilds every host from the cache at once, so its cluster sees it before any Agent pass', async () => {
    const w = await knownSnoHost();
    w.restart();
    expect(w.service.hostsOfCluster('cd-uid-1')).toEqual([]);
    const mark = w.cluster.writes.length;
    expect(w.service.restoreAll()).toBe(1);
    expect(w.service.hostsOfCluster('cd-uid-1').map((h) => h.id)).toEqual([HOST_ID]);
    expect(w.service.restoreAll()).toBe(0);
    expect(w.writesSince(mark)).toEqual([]);
  });

  it('after a restart every agent gets the full timeout to check in again', async () => {
    const w = await knownSnoHost();
    w.clock.advance(4 * 60_000);
    w.restart();
    const monitor = w.monitor();
    await w.reconcile();
    monitor.runOnce();
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.Known);
    w.clock.advance(5 * 60_000 + 1);
    monitor.runOnce();
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.Disconnected);
  });

  it('a host-record annotation missing fields (edited by hand) still restores a whole host', async () => {
    const w = new World(infraEnvObject(), {
      ...Gvk.Agent,
      metadata: {
        name: HOST_ID,
        namespace: NS,
        labels: { 'infraenvs.agent-install.openshift.io': 'sno-1' },
        annotations: { [AgentAnnotation.HostRecord]: '{"status":"known-unbound"}' },
        finalizers: [AGENT_FINALIZER],
      },
      spec: { approved: true, role: '' },
    });
    await w.reconcile();
    expect(w.service.get(HOST_ID)).toMatchObject({
      status: HostStatus.KnownUnbound,
      approved: true,
      progress: {},
      stepResults: {},
    });
    expect(() => w.monitor().runOnce()).not.toThrow();
    expect(w.condition('Connected')).toMatchObject({ status: 'True' });
  });

  it('an Agent written by upstream (annotations only) is restored from them', async () => {
    const w = new World(infraEnvObject(), {
      ...Gvk.Agent,
      metadata: {
        name: HOST_ID,
        namespace: NS,
        labels: { 'infraenvs.agent-install.openshift.io': 'sno-1' },
        annotations: {
          [AgentAnnotation.State]: 'known-unbound',
          [AgentAnnotation.Role]: 'worker',
          [AgentAnnotation.Inventory]: JSON.stringify(inventory()),
        },
        finalizers: [AGENT_FINALIZER],
      },
      spec: { approved: true, role: '' },
    });
    await w.reconcile();
    expect(w.service.get(HOST_ID)).toMatchObject({
      status: HostStatus.KnownUnbound,
      role: 'worker',
      approved: true,
      infraEnvId: 'ie-uid-1',
    });
    expect(w.condition('RequirementsMet')).toMatchObject({ reason: 'AgentIsReady' });
    expect(w.agent()?.metadata.annotations?.[AgentAnnotation.HostRecord]).toBeDefined();
  });
});

/** A JSON value with every object's keys sorted, as Go re-encodes what the API server returns. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  );
}

describe('what the API server gives back', () => {
  it('an Agent returned with its keys re-ordered is not written again, before or after a restart', async () => {
    const w = await knownSnoHost();
    for (const [key, object] of w.cluster.objects)
      if (object.kind === 'Agent') w.cluster.objects.set(key, sortedKeys(object) as typeof object);
    const mark = w.cluster.writes.length;
    await w.reconcile();
    expect(w.writesSince(mark)).toEqual([]);
    w.restart();
    await w.reconcile();
    w.monitor().runOnce();
    await w.flush();
    expect(w.writesSince(mark)).toEqual([]);
  });
});

describe('deletion', () => {
  it('an Agent gone from the API server (finalizer removed by hand) forgets its host', async () => {
    const w = await knownSnoHost();
    w.cluster.objects.delete(`agent-install.openshift.io/v1beta1/Agent/${NS}/${HOST_ID}`);
    await w.reconcile();
    expect(w.service.get(HOST_ID)).toBeUndefined();
  });

  it('an Agent the cache does not show yet but the API server has is looked at again shortly', async () => {
    const w = new World(infraEnvObject());
    await w.registered();
    const agent = w.agent();
    if (agent === undefined) throw new Error('no Agent');
    // The cache lags: the reader says absent while a live read finds it.
    const reader = { get: () => undefined, list: () => [] };
    const result = await w.controller.reconcile(
      { namespace: NS, name: HOST_ID },
      {
        reader,
        writer: w.cluster,
        events: w.cluster,
        clock: w.clock,
        log: w.log,
        signal: new AbortController().signal,
      },
    );
    expect(result).toEqual({ requeueAfterMs: 1_000 });
    expect(w.service.get(HOST_ID)).toBeDefined();
  });

  it('deleting the Agent deregisters the host and releases the finalizer', async () => {
    const w = await knownSnoHost();
    await w.cluster.delete({ ...Gvk.Agent, namespace: NS, name: HOST_ID });
    expect(w.agent()?.metadata['deletionTimestamp']).toBeDefined();
    await w.reconcile();
    expect(w.agent()).toBeUndefined();
    expect(w.service.get(HOST_ID)).toBeUndefined();
    expect(await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now())).toMatchObject({
      ok: false,
      httpStatus: 404,
    });
  });
});

/** A promise and the function that settles it. */
function gate(): { readonly open: () => void; readonly opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** The cluster's writes, `create` and `getLive` changed by `change`. */
function writerOf(w: World, change: Partial<ObjectWriter>): ObjectWriter {
  return {
    create: (object) => w.cluster.create(object),
    update: (object) => w.cluster.update(object),
    updateStatus: (object) => w.cluster.updateStatus(object),
    delete: (ref) => w.cluster.delete(ref),
    getLive: (ref) => w.cluster.getLive(ref),
    ...change,
  };
}

/** A host service on the world's cluster, its writes changed by `change`. */
function serviceWriting(w: World, change: Partial<ObjectWriter>): HostService {
  return new HostService({
    reader: w.cluster,
    writer: writerOf(w, change),
    enqueueAgent: (r) => w.queue.add(`${r.namespace ?? ''}/${r.name}`),
    ...w.ports,
    clusters: w.clusters,
    log: w.log,
    clock: w.clock,
  });
}

/** The agent's reply to its inventory step: the inventory of a host fit for SNO. */
function sendInventory(w: World): ReturnType<HostService['postStepReply']> {
  return w.service.postStepReply(
    w.infraEnvRef(),
    HOST_ID,
    {
      stepType: StepType.Inventory,
      stepId: 'inventory-00000001',
      exitCode: 0,
      output: JSON.stringify(inventory()),
      error: '',
    },
    w.now(),
  );
}

describe('a registration racing the Agent controller', () => {
  it('an inventory the agent sent while a pass looked for the new Agent stays: the host leaves discovering', async () => {
    const w = new World(
      infraEnvObject({ clusterRef: { name: 'sno-1', namespace: NS } }),
      clusterDeployment(),
    );
    w.clusters.records.set('cd-uid-1', snoCluster());
    // The registration's create waits for the write budget (an apply storm takes it all).
    const budget = gate();
    w.service = serviceWriting(w, {
      create: async (object) => {
        await budget.opened;
        return w.cluster.create(object);
      },
    });
    const ie = w.infraEnvRef();
    const registration = w.service.registerHost(ie, HOST_ID, 'v1.0', w.now());
    expect(w.queue.has(`${NS}/${HOST_ID}`)).toBe(true);

    // The pass the registration woke finds no Agent in the cache and asks the API server, which
    // answers before the create is written; the answer is handled only after what follows.
    const answer = gate();
    const pass = agentController({ hosts: w.service }).reconcile(
      { namespace: NS, name: HOST_ID },
      {
        reader: w.cluster,
        writer: writerOf(w, {
          getLive: async (ref) => {
            const seen = await w.cluster.getLive(ref);
            await answer.opened;
            return seen;
          },
        }),
        events: w.cluster,
        clock: w.clock,
        log: w.log,
        signal: new AbortController().signal,
      },
    );
    await new Promise((resolve) => setImmediate(resolve));
    budget.open();
    expect((await registration).ok).toBe(true);

    // The agent's first poll gets the inventory step; its reply is taken (204), and the agent
    // never sends the same output again.
    const steps = await w.service.nextSteps(ie, HOST_ID, w.now());
    expect(steps.ok && steps.value.instructions.map((i) => i.stepType)).toEqual([
      StepType.Inventory,
    ]);
    expect((await sendInventory(w)).ok).toBe(true);

    answer.open();
    await pass;
    w.service.refresh(HOST_ID, w.now());
    await w.flush();
    expect(w.service.get(HOST_ID)?.inventory).toBeDefined();
    expect(w.service.get(HOST_ID)?.status).not.toBe(HostStatus.Discovering);
    expect(w.status()['inventory']).toBeDefined();
    expect(w.status()['debugInfo']).toMatchObject({ state: w.service.get(HOST_ID)?.status });
  });

  it('a registration whose Agent write failed late leaves alone the record a later registration made', async () => {
    const w = new World(
      infraEnvObject({ clusterRef: { name: 'sno-1', namespace: NS } }),
      clusterDeployment(),
    );
    w.clusters.records.set('cd-uid-1', snoCluster());
    // The first create is written by the API server, but its answer never comes (the client's
    // timeout ends it): the agent, restarted meanwhile, registers again and carries on.
    const timeout = gate();
    let creates = 0;
    w.service = serviceWriting(w, {
      create: async (object) => {
        const created = await w.cluster.create(object);
        if (++creates > 1) return created;
        await timeout.opened;
        throw new Error('the request timed out');
      },
    });
    const ie = w.infraEnvRef();
    const first = w.service.registerHost(ie, HOST_ID, 'v1.0', w.now());
    w.clock.advance(5_000);
    const second = await w.service.registerHost(ie, HOST_ID, 'v1.0', w.now());
    expect(second.ok).toBe(true);
    expect((await sendInventory(w)).ok).toBe(true);

    timeout.open();
    await expect(first).rejects.toThrow('the request timed out');
    await w.flush();
    expect(w.service.get(HOST_ID)?.inventory).toBeDefined();
    expect(w.status()['inventory']).toBeDefined();
  });
});
