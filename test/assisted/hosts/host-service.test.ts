import { describe, expect, it } from 'vitest';
import { Gvk, Label } from '../../../src/bmac/api.js';
import {
  AGENT_FINALIZER,
  AgentAnnotation,
  AgentLabel,
} from '../../../src/assisted/hosts/agent-names.js';
import { HostStatus, StepType } from '../../../src/assisted/model.js';
import { verifyVip, vipVerification } from '../../../src/assisted/validations/network.js';
import {
  HOST_ID,
  INFRA_ENV,
  INFRA_ENV_UID,
  MAC,
  NS,
  World,
  clusterDeployment,
  testValidator,
  infraEnvObject,
  inventory,
  installingWorld,
  STAGES_SNO,
  snoCluster,
} from './fixtures.js';

describe('host registration', () => {
  it('creates the Agent named by the host id in the InfraEnv namespace, labelled, owned and not approved', async () => {
    const w = new World(infraEnvObject({ agentLabels: { site: 'edge-1' } }));
    const outcome = await w.service.registerHost(w.infraEnvRef(), HOST_ID, 'v1.0', w.now());
    expect(outcome.ok).toBe(true);
    const agent = w.agent();
    expect(agent?.metadata.labels).toMatchObject({ [Label.InfraEnv]: INFRA_ENV, site: 'edge-1' });
    expect(agent?.metadata['ownerReferences']).toEqual([
      {
        apiVersion: 'agent-install.openshift.io/v1beta1',
        kind: 'InfraEnv',
        name: INFRA_ENV,
        uid: INFRA_ENV_UID,
      },
    ]);
    expect(agent?.metadata['finalizers']).toEqual([AGENT_FINALIZER]);
    expect(agent?.['spec']).toEqual({ approved: false, role: '' });
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.DiscoveringUnbound);
  });

  it('binds the Agent to the InfraEnv cluster and makes a single-node host master and bootstrap', async () => {
    const w = new World(
      infraEnvObject({ clusterRef: { name: 'sno-1', namespace: NS } }),
      clusterDeployment(),
    );
    w.clusters.records.set('cd-uid-1', snoCluster());
    await w.registered();
    expect(w.agent()?.['spec']).toMatchObject({
      clusterDeploymentName: { name: 'sno-1', namespace: NS },
    });
    const host = w.service.get(HOST_ID);
    expect(host).toMatchObject({ status: HostStatus.Discovering, role: 'master', bootstrap: true });
    expect(w.status()['role']).toBe('master');
    expect(w.status()['bootstrap']).toBe(true);
  });

  it('approves the Agent at once when the InfraEnv auto-approves', async () => {
    const w = new World(infraEnvObject({ agentApproval: { autoApprove: true } }));
    await w.registered();
    expect(w.agent()?.['spec']).toMatchObject({ approved: true });
    expect(w.service.get(HOST_ID)?.approved).toBe(true);
  });

  it('refuses a disconnected-iso InfraEnv with 400 and writes nothing', async () => {
    const w = new World(infraEnvObject({ imageType: 'disconnected-iso' }));
    const outcome = await w.service.registerHost(w.infraEnvRef(), HOST_ID, undefined, w.now());
    expect(outcome).toEqual({
      ok: false,
      httpStatus: 400,
      reason: 'Cannot register a host to an InfraEnv with disconnected-iso type',
    });
    expect(w.cluster.writes).toEqual([]);
  });

  it('refuses with 503 and writes nothing while the clusterRef has no cluster yet, then registers it bound', async () => {
    const w = new World(
      infraEnvObject({ clusterRef: { name: 'sno-1', namespace: NS } }),
      clusterDeployment(),
    );
    const early = await w.service.registerHost(w.infraEnvRef(), HOST_ID, undefined, w.now());
    expect(early).toMatchObject({ ok: false, httpStatus: 503 });
    expect(w.agent()).toBeUndefined();
    expect(w.service.get(HOST_ID)).toBeUndefined();
    w.clusters.records.set('cd-uid-1', snoCluster());
    await w.registered();
    expect(w.agent()?.['spec']).toMatchObject({
      clusterDeploymentName: { name: 'sno-1', namespace: NS },
    });
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.Discovering);
  });

  it('refuses a new host with 409 when the cluster takes no more, but lets a known host re-register', async () => {
    const w = new World(
      infraEnvObject({ clusterRef: { name: 'sno-1', namespace: NS } }),
      clusterDeployment(),
    );
    w.clusters.records.set('cd-uid-1', snoCluster());
    await w.registered();
    w.clusters.refusal =
      'Cluster sno-1 is in installing state, host can register only in one of [insufficient ready pending-for-input adding-hosts]';
    const other = await w.service.registerHost(w.infraEnvRef(), 'other-host', undefined, w.now());
    expect(other).toMatchObject({ ok: false, httpStatus: 409 });
    expect(w.agent('other-host')).toBeUndefined();
    const again = await w.service.registerHost(w.infraEnvRef(), HOST_ID, undefined, w.now());
    expect(again.ok).toBe(true);
  });

  it('re-registration keeps the Agent as it is and restarts discovery', async () => {
    const w = new World(infraEnvObject());
    await w.registered(inventory());
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.KnownUnbound);
    const mark = w.cluster.writes.length;
    w.clock.advance(30_000);
    const outcome = await w.service.registerHost(w.infraEnvRef(), HOST_ID, 'v1.1', w.now());
    expect(outcome.ok && outcome.value.registeredAt).toBe('2026-11-25T12:00:30.000Z');
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.DiscoveringUnbound);
    await w.flush();
    expect(w.writesSince(mark).filter((x) => x.startsWith('create'))).toEqual([]);
    expect(w.agent()?.metadata.annotations?.[AgentAnnotation.State]).toBe('discovering-unbound');
  });

  it('a host registering from another InfraEnv takes over its Agent with a fresh spec', async () => {
    const w = new World(infraEnvObject(), infraEnvObject({}, 'other-env', 'ie-uid-2'));
    await w.registered();
    await w.editSpec({ hostname: 'named-by-user', approved: true });
    await w.reconcile();
    const other = w.service.infraEnv('ie-uid-2');
    expect(other).toBeDefined();
    if (other === undefined) return;
    const outcome = await w.service.registerHost(other, HOST_ID, undefined, w.now());
    expect(outcome.ok).toBe(true);
    await w.flush();
    const agent = w.agent();
    expect(agent?.metadata.labels?.[Label.InfraEnv]).toBe('other-env');
    expect(agent?.['spec']).toEqual({ approved: false, role: '' });
    expect((agent?.metadata['ownerReferences'] as { uid: string }[]).map((o) => o.uid)).toEqual([
      'ie-uid-2',
    ]);
    expect(w.service.get(HOST_ID)?.infraEnvId).toBe('ie-uid-2');
  });

  it('answers 404 for a host of another InfraEnv or an unknown host', async () => {
    const w = new World(infraEnvObject(), infraEnvObject({}, 'other-env', 'ie-uid-2'));
    await w.registered();
    const other = w.service.infraEnv('ie-uid-2');
    if (other === undefined) throw new Error('no InfraEnv');
    expect(await w.service.nextSteps(other, HOST_ID, w.now())).toMatchObject({
      ok: false,
      httpStatus: 404,
    });
    expect(await w.service.nextSteps(w.infraEnvRef(), 'nobody', w.now())).toMatchObject({
      ok: false,
      httpStatus: 404,
    });
    expect(w.service.infraEnv('no-such-uid')).toBeUndefined();
  });
});

const ok = { ok: true, value: undefined };

describe('step replies', () => {
  it('an inventory fills status.inventory in the CRD form, the inventory labels and annotations', async () => {
    const w = new World(infraEnvObject());
    await w.registered(inventory());
    const status = w.status();
    const inv = status['inventory'] as Record<string, unknown>;
    expect(inv['hostname']).toBe('sno-node-1');
    expect(inv['bmcAddress']).toBe('0.0.0.0');
    expect(inv['cpu']).toEqual({
      count: 8,
      clockMegahertz: 2400,
      flags: ['vmx', 'sse4_2'],
      modelName: 'Xeon',
      architecture: 'x86_64',
    });
    // Only physical (and vlan, bond) interfaces are kept, as upstream.
    expect(inv['interfaces']).toEqual([
      {
        ipV6Addresses: [],
        ipV4Addresses: ['192.168.111.20/24'],
        flags: ['up', 'broadcast'],
        vendor: '0x1af4',
        name: 'eth0',
        hasCarrier: true,
        product: '0x0001',
        mtu: 1500,
        biosDevName: 'em1',
        clientID: '',
        macAddress: MAC,
        speedMbps: 10000,
      },
    ]);
    const disks = inv['disks'] as Record<string, unknown>[];
    expect(disks[0]).toMatchObject({
      id: '/dev/disk/by-id/wwn-0x5000c500a0b1c2d3',
      byPath: '/dev/disk/by-path/pci-0000:00:1f.2-ata-1',
      driveType: 'SSD',
      sizeBytes: 240_000_000_000,
      installationEligibility: { eligible: true, notEligibleReasons: [] },
      ioPerf: { syncDurationMilliseconds: 2 },
    });
    expect(inv['memory']).toEqual({ physicalBytes: 34_359_738_368, usableBytes: 33_000_000_000 });
    expect(inv['systemVendor']).toEqual({
      serialNumber: 'abc',
      productName: 'KVM (RHEL 9)',
      manufacturer: 'Red Hat',
      virtual: true,
    });
    expect(status['installation_disk_id']).toBe('/dev/disk/by-id/wwn-0x5000c500a0b1c2d3');

    const agent = w.agent();
    expect(agent?.metadata.labels).toMatchObject({
      [AgentLabel.HasNonrotationalDisk]: 'true',
      [AgentLabel.CpuArchitecture]: 'x86_64',
      [AgentLabel.CpuVirtEnabled]: 'true',
      [AgentLabel.HostManufacturer]: 'RedHat',
      [AgentLabel.HostProductName]: 'KVMRHEL9',
      [AgentLabel.HostIsVirtual]: 'true',
      [AgentLabel.ClusterDeploymentNamespace]: '',
    });
    const annotations = agent?.metadata.annotations ?? {};
    expect(annotations[AgentAnnotation.InventoryVersion]).toBe('0.1');
    expect(annotations[AgentAnnotation.State]).toBe('known-unbound');
    expect(JSON.parse(annotations[AgentAnnotation.Inventory] ?? '{}')).toMatchObject({
      hostname: 'sno-node-1',
    });
    expect(status['debugInfo']).toEqual({
      state: 'known-unbound',
      stateInfo: 'Host is ready to be bound to a cluster',
    });
    expect(status['validationsInfo']).toMatchObject({
      hardware: [
        { id: 'has-cpu-cores-for-role', status: 'success' },
        { id: 'has-min-valid-disks' },
      ],
    });
  });

  it('refuses an inventory that is not JSON with 400', async () => {
    const w = new World(infraEnvObject());
    await w.registered();
    const outcome = await w.service.postStepReply(
      w.infraEnvRef(),
      HOST_ID,
      {
        stepType: StepType.Inventory,
        stepId: 'inventory-1',
        exitCode: 0,
        output: '{oops',
        error: '',
      },
      w.now(),
    );
    expect(outcome).toMatchObject({ ok: false, httpStatus: 400 });
  });

  it('takes the replies upstream takes: arrays, an empty output of a running check, null', async () => {
    const w = new World(infraEnvObject());
    await w.registered(inventory());
    const reply = (stepType: StepType, output: string) =>
      w.service.postStepReply(
        w.infraEnvRef(),
        HOST_ID,
        { stepType, stepId: `${stepType}-1`, exitCode: 0, output, error: '' },
        w.now(),
      );
    const vips = [{ vip: '192.168.111.5', vip_type: 'api', verification: 'succeeded' }];
    const free = [{ network: '192.168.111.0/24', free_addresses: ['192.168.111.9'] }];
    expect(await reply(StepType.VerifyVips, JSON.stringify(vips))).toEqual(ok);
    expect(await reply(StepType.FreeNetworkAddresses, JSON.stringify(free))).toEqual(ok);
    expect(await reply(StepType.InstallationDiskSpeedCheck, '')).toEqual(ok);
    expect(await reply(StepType.ContainerImageAvailability, '')).toEqual(ok);
    expect(await reply(StepType.DomainResolution, 'null')).toEqual(ok);
    const results = w.service.get(HOST_ID)?.stepResults;
    expect(results?.verifyVips).toEqual(vips);
    expect(results?.freeAddresses).toEqual(free);
    expect(results?.diskSpeed).toBeUndefined();
    expect(results?.domainResolution).toEqual({});
    // What the cluster's VIP validations read from the hosts.
    const host = w.service.get(HOST_ID);
    expect(host && vipVerification([host], '192.168.111.5', 'api')).toBe('succeeded');
    const hosts = host ? [host] : [];
    const net = '192.168.111.0/24';
    expect(verifyVip(hosts, net, '192.168.111.9', 'api-vip', undefined).verification).toBe(
      'succeeded',
    );
    expect(verifyVip(hosts, net, '192.168.111.7', 'api-vip', undefined).verification).toBe(
      'failed',
    );
    // The wrong kind is still refused, with Go's decoder message.
    expect(await reply(StepType.VerifyVips, '{}')).toEqual({
      ok: false,
      httpStatus: 400,
      reason: 'json: cannot unmarshal object into Go value of type models.VerifyVipsResponse',
    });
  });

  it('ntp results become status.ntpSources', async () => {
    const w = new World(infraEnvObject());
    await w.registered(inventory());
    await w.service.postStepReply(
      w.infraEnvRef(),
      HOST_ID,
      {
        stepType: StepType.NtpSynchronizer,
        stepId: 'ntp-synchronizer-1',
        exitCode: 0,
        output: JSON.stringify({
          ntp_sources: [{ source_name: 'clock.example.com', source_state: 'synced' }],
        }),
        error: '',
      },
      w.now(),
    );
    // A step result alone is a minor change: it reaches the Agent with the next monitor round.
    await w.flush();
    expect(w.status()['ntpSources']).toBeUndefined();
    w.monitor().runOnce();
    await w.flush();
    expect(w.status()['ntpSources']).toEqual([
      { sourceName: 'clock.example.com', sourceState: 'synced' },
    ]);
  });

  it('logs progress is kept for GET host (logs_started_at on requested) and refused with 404 for another', async () => {
    const w = new World(infraEnvObject());
    await w.registered();
    expect(w.service.hostView(w.infraEnvRef(), HOST_ID)).not.toHaveProperty('logsInfo');
    const requestedAt = w.now();
    expect(
      await w.service.updateLogsProgress(w.infraEnvRef(), HOST_ID, 'requested', requestedAt),
    ).toEqual(ok);
    expect(
      await w.service.updateLogsProgress(
        w.infraEnvRef(),
        HOST_ID,
        'completed',
        new Date(requestedAt.getTime() + 60_000),
      ),
    ).toEqual(ok);
    expect(w.service.hostView(w.infraEnvRef(), HOST_ID)).toMatchObject({
      logsInfo: 'completed',
      logsStartedAt: requestedAt.toISOString(),
    });
    expect(
      await w.service.updateLogsProgress(w.infraEnvRef(), 'nobody', 'completed'),
    ).toMatchObject({ ok: false, httpStatus: 404 });
  });

  it('shows the stages of the host role beside the record', async () => {
    const w = new World(infraEnvObject());
    await w.registered();
    expect(w.service.hostView(w.infraEnvRef(), HOST_ID)?.progressStages).toEqual(STAGES_SNO);
  });

  it('a failed install step puts the host in error', async () => {
    const w = new World(
      infraEnvObject({ clusterRef: { name: 'sno-1', namespace: NS } }),
      clusterDeployment(),
    );
    w.clusters.records.set('cd-uid-1', snoCluster());
    await w.registered(inventory());
    expect(w.service.apply(HOST_ID, { type: 'InstallHost' }, w.now()).ok).toBe(true);
    await w.service.postStepReply(
      w.infraEnvRef(),
      HOST_ID,
      { stepType: StepType.Install, stepId: 'install-1', exitCode: 1, output: '', error: 'boom' },
      w.now(),
    );
    expect(w.service.get(HOST_ID)?.status).toBe(HostStatus.Error);
  });
});

describe('write coalescing', () => {
  it('check-ins alone never write the Agent', async () => {
    const w = new World(infraEnvObject());
    await w.registered(inventory());
    const mark = w.cluster.writes.length;
    for (let i = 0; i < 20; i++) {
      w.clock.advance(60_000);
      const steps = await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now());
      expect(steps.ok).toBe(true);
      await w.flush();
      w.monitor().runOnce();
      await w.flush();
    }
    expect(w.writesSince(mark)).toEqual([]);
  });

  it('validates again only when what validations read changed, not for a check-in or a monitor round', async () => {
    const w = new World(infraEnvObject());
    const validated: string[] = [];
    w.withPorts({
      ...w.ports,
      validator: {
        validate: (host, context) => {
          validated.push(`${host.status} connected=${String(context.connected)}`);
          return testValidator.validate(host, context);
        },
        validDisks: (host, cluster) => testValidator.validDisks(host, cluster),
      },
    });
    await w.registered(inventory());
    const monitor = w.monitor();
    // The agent's clock, once known, is an input.
    await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now(), w.now().getTime() / 1000);
    monitor.runOnce();
    expect(validated.at(-1)).toBe('known-unbound connected=true');
    validated.length = 0;
    for (let i = 0; i < 5; i++) {
      w.clock.advance(10_000);
      await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now(), w.now().getTime() / 1000);
      monitor.runOnce();
    }
    expect(validated).toEqual([]);
    // A new step result is a new input.
    await w.service.postStepReply(
      w.infraEnvRef(),
      HOST_ID,
      {
        stepType: StepType.NtpSynchronizer,
        stepId: 'ntp-synchronizer-1',
        exitCode: 0,
        output: JSON.stringify({ ntp_sources: [{ source_name: 'a', source_state: 'synced' }] }),
        error: '',
      },
      w.now(),
    );
    expect(validated).toHaveLength(1);
    // Silent past the disconnection time: validated again, disconnected.
    validated.length = 0;
    w.clock.advance(4 * 60_000);
    monitor.runOnce();
    expect(validated).toEqual([expect.stringMatching(/connected=false$/)]);
    // Its new status is an input once more; then nothing changes.
    monitor.runOnce();
    validated.length = 0;
    monitor.runOnce();
    monitor.runOnce();
    expect(validated).toEqual([]);
  });

  it('the same step results again write nothing; one inventory costs one metadata and one status write', async () => {
    const w = new World(infraEnvObject());
    await w.registered();
    const mark = w.cluster.writes.length;
    const reply = {
      stepType: StepType.Inventory,
      stepId: 'inventory-1',
      exitCode: 0,
      output: JSON.stringify(inventory()),
      error: '',
    };
    for (let i = 0; i < 5; i++) {
      await w.service.postStepReply(w.infraEnvRef(), HOST_ID, reply, w.now());
      await w.service.nextSteps(w.infraEnvRef(), HOST_ID, w.now());
    }
    await w.flush();
    expect(w.writesSince(mark)).toEqual([
      `update Agent ${NS}/${HOST_ID}`,
      `updateStatus Agent ${NS}/${HOST_ID}`,
    ]);
    const again = w.cluster.writes.length;
    await w.service.postStepReply(w.infraEnvRef(), HOST_ID, reply, w.now());
    await w.flush();
    expect(w.writesSince(again)).toEqual([]);
  });

  it('progress info within a stage is written once per monitor round, a new stage at once', async () => {
    const w = await installingWorld();
    const ie = w.infraEnvRef();
    await w.service.updateProgress(ie, HOST_ID, { currentStage: 'Writing image to disk' }, w.now());
    await w.flush();
    const mark = w.cluster.writes.length;
    for (let percent = 5; percent <= 50; percent += 5) {
      w.clock.advance(1_000);
      const outcome = await w.service.updateProgress(
        ie,
        HOST_ID,
        { currentStage: 'Writing image to disk', progressInfo: `${String(percent)}%` },
        w.now(),
      );
      expect(outcome.ok).toBe(true);
      await w.flush();
    }
    expect(w.writesSince(mark)).toEqual([]);
    expect(w.monitor().runOnce().deferred).toBe(1);
    await w.flush();
    expect(w.writesSince(mark)).toEqual([
      `update Agent ${NS}/${HOST_ID}`,
      `updateStatus Agent ${NS}/${HOST_ID}`,
    ]);
    expect(w.status()['progress']).toMatchObject({ progressInfo: '50%' });
    const stage = w.cluster.writes.length;
    await w.service.updateProgress(ie, HOST_ID, { currentStage: 'Rebooting' }, w.now());
    await w.flush();
    expect(w.writesSince(stage).length).toBe(2);
  });

  it('approving an Agent costs the controller one status write', async () => {
    const w = new World(infraEnvObject());
    await w.registered(inventory());
    await w.editSpec({ approved: true });
    const mark = w.cluster.writes.length;
    await w.reconcile();
    expect(w.writesSince(mark)).toEqual([`updateStatus Agent ${NS}/${HOST_ID}`]);
    expect(w.service.get(HOST_ID)?.approved).toBe(true);
  });

  it('a new host costs one create and one status write', async () => {
    const w = new World(infraEnvObject());
    await w.registered();
    expect(w.cluster.writes).toEqual([
      `create Agent ${NS}/${HOST_ID}`,
      `updateStatus Agent ${NS}/${HOST_ID}`,
    ]);
    expect(w.cluster.objects.size).toBe(2);
    expect(w.cluster.peek({ ...Gvk.Agent, namespace: NS, name: HOST_ID })).toBeDefined();
  });
});
