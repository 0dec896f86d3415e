import { describe, expect, it } from 'vitest';
import {
  CoreHostValidator,
  CoreInstructionBuilder,
  StateMachineHostMachine,
} from '../../../src/assisted/hosts/core-adapters.js';
import { failingValidationMessages } from '../../../src/assisted/hosts/agent-conditions.js';
import { HostStatus, StepType } from '../../../src/assisted/model.js';
import {
  HOST_ID,
  NS,
  World,
  clusterDeployment,
  infraEnvObject,
  inventory,
  snoCluster,
} from './fixtures.js';

const AGENT_IMAGE = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';

function coreWorld(): World {
  const w = new World(
    infraEnvObject({ clusterRef: { name: 'sno-1', namespace: NS } }),
    clusterDeployment(),
  );
  w.clusters.records.set('cd-uid-1', snoCluster());
  return w.withPorts({
    machine: new StateMachineHostMachine(),
    validator: new CoreHostValidator(),
    instructions: new CoreInstructionBuilder({
      images: {
        agent: AGENT_IMAGE,
        release: 'quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64',
        mco: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:mco',
      },
    }),
  });
}

/** A single-node host, known and approved, on the core (NTP, DNS and routes all fine). */
async function knownCoreHost() {
  const w = coreWorld();
  const sno = { ...snoCluster(), machineNetworks: ['192.168.111.0/24'] };
  w.clusters.records.set('cd-uid-1', sno);
  await w.registered({
    ...inventory(8),
    routes: [
      {
        interface: 'eth0',
        gateway: '192.168.111.1',
        destination: '0.0.0.0',
        family: 2,
        metric: 100,
      },
    ],
  });
  const ie = w.infraEnvRef();
  const reply = (stepType: StepType, output: unknown) =>
    w.service.postStepReply(
      ie,
      HOST_ID,
      {
        stepType,
        stepId: `${stepType}-1`,
        exitCode: 0,
        error: '',
        output: JSON.stringify(output),
      },
      w.now(),
    );
  await w.service.nextSteps(ie, HOST_ID, w.now(), w.now().getTime() / 1000);
  await reply(StepType.NtpSynchronizer, {
    ntp_sources: [{ source_name: 'clock.example.com', source_state: 'synced' }],
  });
  const resolved = (name: string) => ({ domain_name: name, ipv4_addresses: ['192.168.111.20'] });
  await reply(StepType.DomainResolution, {
    resolutions: [
      resolved('api.sno-1.example.com'),
      resolved('api-int.sno-1.example.com'),
      resolved('console-openshift-console.apps.sno-1.example.com'),
      { domain_name: 'validateNoWildcardDNS.sno-1.example.com.' },
      { domain_name: 'validateNoWildcardDNS.sno-1.example.com' },
    ],
  });
  w.monitor().runOnce();
  await w.editSpec({ approved: true });
  await w.flush();
  await w.reconcile();
  return { w, ie, reply, sno };
}

describe('the host side on the core state machine, validations and step builder', () => {
  it('a single-node host registers as master and bootstrap, discovering, and is asked for its inventory', async () => {
    const w = coreWorld();
    await w.registered();
    expect(w.service.get(HOST_ID)).toMatchObject({
      status: HostStatus.Discovering,
      statusInfo: 'Waiting for host to send hardware details',
      role: 'master',
      bootstrap: true,
    });
    const steps = await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now(), 1_764_072_000);
    expect(steps.ok).toBe(true);
    if (!steps.ok) return;
    expect(steps.value.postStepAction).toBe('continue');
    expect(steps.value.instructions.map((i) => i.stepType)).toEqual([StepType.Inventory]);
    expect(steps.value.instructions[0]).toMatchObject({
      stepId: expect.stringMatching(/^inventory-[0-9a-f]{8}$/) as unknown,
      args: [HOST_ID],
    });
  });

  it("the agent's clock at check-in decides time-synced", async () => {
    const w = coreWorld();
    await w.registered(inventory(8));
    const validation = () =>
      w.service
        .get(HOST_ID)
        ?.validationsInfo['network']?.find((v) => v.id === 'time-synced-between-host-and-service');
    expect(validation()?.status).toBe('pending');
    // The agent's clock is 2 hours behind the service's (the agent API's check-in passes it).
    w.service.agentCheckIn(w.infraEnvRef(), HOST_ID, {
      hostTimestamp: w.now().getTime() / 1000 - 7200,
      discoveryAgentVersion: 'v1.1',
    });
    await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now());
    expect(w.service.get(HOST_ID)?.discoveryAgentVersion).toBe('v1.1');
    w.monitor().runOnce();
    expect(validation()?.status).toBe('failure');
    await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now(), w.now().getTime() / 1000);
    w.monitor().runOnce();
    expect(validation()).toMatchObject({
      status: 'success',
      message: 'Host clock is synchronized with service',
    });
  });

  it('a host registering to an installed cluster adding hosts is a day-2 worker', async () => {
    const w = coreWorld();
    w.clusters.records.set('cd-uid-1', {
      ...snoCluster(),
      highAvailabilityMode: 'Full',
      controlPlaneAgents: 3,
      status: 'adding-hosts',
    });
    await w.registered();
    expect(w.service.get(HOST_ID)).toMatchObject({
      status: HostStatus.Discovering,
      role: 'worker',
      suggestedRole: 'worker',
      bootstrap: false,
      machineConfigPool: 'worker',
    });
    expect(w.status()).toMatchObject({ kind: 'AddToExistingClusterHost', role: 'worker' });
  });

  it('after the inventory the Agent shows the real validations, and its conditions quote them', async () => {
    const w = coreWorld();
    await w.registered(inventory(8));
    const host = w.service.get(HOST_ID);
    expect(host?.inventory).toBeDefined();
    expect(Object.keys(host?.validationsInfo ?? {})).toEqual(
      expect.arrayContaining(['hardware', 'network']),
    );
    expect(w.status()['validationsInfo']).toEqual(host?.validationsInfo);
    // No NTP, routes or DNS results yet: upstream's texts, and the condition quotes them all.
    expect(host).toMatchObject({
      status: HostStatus.Insufficient,
      statusInfo:
        "Host cannot be installed due to following failing validation(s): Host couldn't synchronize with any NTP server ; Host has not yet been configured with a default route.",
    });
    expect(w.condition('Validated')).toMatchObject({
      status: 'False',
      reason: 'ValidationsFailing',
      message: `The agent's validations are failing: ${failingValidationMessages(host!)}`,
    });
    expect(w.condition('Validated')?.['message']).toContain(
      "Missing host time, can't determine synchronization between host and service",
    );
    const status = host?.status;
    expect(w.status()['debugInfo']).toMatchObject({ state: status, stateInfo: host?.statusInfo });
    expect(w.status()['installation_disk_id']).toBe('/dev/disk/by-id/wwn-0x5000c500a0b1c2d3');
    expect(w.status()['progress']).toEqual({});
  });

  it('a single-node host goes from known through preparation and installation to installed', async () => {
    const { w, ie, reply, sno } = await knownCoreHost();
    expect(w.service.get(HOST_ID)).toMatchObject({
      status: HostStatus.Known,
      statusInfo: 'Host is ready to be installed',
    });
    expect(w.condition('RequirementsMet')).toMatchObject({
      status: 'True',
      reason: 'AgentIsReady',
    });

    // The cluster prepares: the host checks its disk and pulls the images.
    w.clusters.records.set('cd-uid-1', { ...sno, status: 'preparing-for-installation' });
    w.service.apply(HOST_ID, { type: 'PrepareForInstallation' }, w.now());
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.PreparingForInstallation);
    const preparing = await w.service.nextSteps(ie, HOST_ID, w.now(), w.now().getTime() / 1000);
    expect(preparing.ok && preparing.value.instructions.map((i) => i.stepType)).toEqual(
      expect.arrayContaining([StepType.InstallationDiskSpeedCheck]),
    );
    await reply(StepType.InstallationDiskSpeedCheck, {
      io_sync_duration: 2,
      path: '/dev/disk/by-id/wwn-0x5000c500a0b1c2d3',
    });
    await reply(StepType.ContainerImageAvailability, {
      images: [{ name: 'quay.io/openshift-release-dev/ocp-release:4.16', result: 'success' }],
    });
    w.monitor().runOnce();
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.PreparingSuccessful);

    // The cluster installs: the host is told to install and reports its stages.
    w.clusters.records.set('cd-uid-1', { ...sno, status: 'installing' });
    w.service.apply(HOST_ID, { type: 'InstallHost' }, w.now());
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.Installing);
    const installing = await w.service.nextSteps(ie, HOST_ID, w.now(), w.now().getTime() / 1000);
    expect(installing.ok && installing.value.instructions.map((i) => i.stepType)).toContain(
      StepType.Install,
    );
    for (const stage of [
      'Starting installation',
      'Installing',
      'Waiting for bootkube',
      'Writing image to disk',
      'Copying registry data to disk',
      'Rebooting',
      'Joined',
    ] as const) {
      w.clock.advance(60_000);
      expect(
        await w.service.updateProgress(ie, HOST_ID, { currentStage: stage }, w.now()),
      ).toMatchObject({ ok: true });
    }
    await w.flush();
    expect(w.status()['progress']).toMatchObject({
      currentStage: 'Joined',
      installationPercentage: 87,
    });
    expect(w.condition('Installed')).toMatchObject({
      status: 'False',
      reason: 'InstallationInProgress',
      message: 'The installation is in progress: Joined',
    });
    // Silent after the reboot, as a host booting its installed OS is: still connected.
    w.clock.advance(30 * 60_000);
    w.monitor().runOnce();
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.InstallingInProgress);
    await w.service.updateProgress(ie, HOST_ID, { currentStage: 'Done' }, w.now());
    await w.flush();
    expect(w.service.get(HOST_ID)).toMatchObject({
      status: HostStatus.Installed,
      statusInfo: 'Done',
    });
    expect(w.condition('Installed')).toMatchObject({
      status: 'True',
      message: 'The installation has completed: Done',
    });
  });

  it('the monitor fails a host whose stage lasts longer than its timeout, with upstream text', async () => {
    const { w, ie, reply, sno } = await knownCoreHost();
    w.clusters.records.set('cd-uid-1', { ...sno, status: 'preparing-for-installation' });
    w.service.apply(HOST_ID, { type: 'PrepareForInstallation' }, w.now());
    await reply(StepType.InstallationDiskSpeedCheck, {
      io_sync_duration: 2,
      path: '/dev/disk/by-id/wwn-0x5000c500a0b1c2d3',
    });
    await reply(StepType.ContainerImageAvailability, {
      images: [{ name: 'quay.io/openshift-release-dev/ocp-release:4.16', result: 'success' }],
    });
    w.monitor().runOnce();
    w.clusters.records.set('cd-uid-1', { ...sno, status: 'installing' });
    w.service.apply(HOST_ID, { type: 'InstallHost' }, w.now());
    await w.service.updateProgress(ie, HOST_ID, { currentStage: 'Installing' }, w.now());
    const monitor = w.monitor();
    // The agent keeps checking in; the installer never reports the next stage.
    for (let minute = 0; minute < 61; minute++) {
      w.clock.advance(60_000);
      await w.service.nextSteps(ie, HOST_ID, w.now(), w.now().getTime() / 1000);
      monitor.runOnce();
    }
    await w.flush();
    expect(w.service.get(HOST_ID)).toMatchObject({
      status: HostStatus.Error,
      statusInfo:
        'Host failed to install because its installation stage Installing took longer than expected 1h0m0s',
    });
    expect(w.condition('Installed')).toMatchObject({
      status: 'False',
      reason: 'InstallationFailed',
      message:
        'The installation has failed: Host failed to install because its installation stage Installing took longer than expected 1h0m0s',
    });
  });
});
