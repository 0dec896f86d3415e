/**
 * The cluster side wired to the real host side, as the composition root wires them: one
 * single-node host registers through the HostService, reports its inventory and step results,
 * is approved, and the cluster installs it to completion on the state tables, the real
 * validations and the simulated installer backend.
 */
import { describe, expect, it } from 'vitest';
import {
  assistedClusterValidator,
  clusterDirectoryOf,
  hostServiceDirectory,
  stateTableClusterMachine,
} from '../../../src/assisted/clusters/adapters.js';
import { ClusterInstallations } from '../../../src/assisted/clusters/cluster-installations.js';
import { createClusterDeploymentsController } from '../../../src/assisted/clusters/cluster-deployments-controller.js';
import { agentController } from '../../../src/assisted/hosts/agent-controller.js';
import {
  CoreHostValidator,
  CoreInstructionBuilder,
  StateMachineHostMachine,
} from '../../../src/assisted/hosts/core-adapters.js';
import { HostMonitor } from '../../../src/assisted/hosts/host-monitor.js';
import { HostService } from '../../../src/assisted/hosts/host-service.js';
import { SimulatedInstallerBackend } from '../../../src/assisted/installer/simulated-backend.js';
import { StepType } from '../../../src/assisted/model.js';
import type { HostStage } from '../../../src/assisted/model.js';
import { requestKey } from '../../../src/bmac/runtime/contract.js';
import { createLogger } from '../../../src/shared/logger.js';
import { FakeCluster, reconcileUntilStable } from '../../fakes/fake-cluster.js';
import {
  HOST_ID,
  INFRA_ENV_UID,
  ManualClock,
  NS,
  infraEnvObject,
  inventory,
} from '../hosts/fixtures.js';

const CD = {
  apiVersion: 'hive.openshift.io/v1',
  kind: 'ClusterDeployment',
  namespace: NS,
  name: 'sno-1',
};
const ACI = {
  apiVersion: 'extensions.hive.openshift.io/v1beta1',
  kind: 'AgentClusterInstall',
  namespace: NS,
  name: 'sno-1',
};

function hub(clock: ManualClock, lateBinding: boolean): FakeCluster {
  return new FakeCluster(clock).seed(
    infraEnvObject(lateBinding ? {} : { clusterRef: { name: 'sno-1', namespace: NS } }),
    {
      ...CD,
      metadata: { name: 'sno-1', namespace: NS, uid: 'cd-uid-1' },
      spec: {
        clusterName: 'sno-1',
        baseDomain: 'example.com',
        pullSecretRef: { name: 'pull-secret' },
        clusterInstallRef: {
          group: 'extensions.hive.openshift.io',
          kind: 'AgentClusterInstall',
          name: 'sno-1',
        },
      },
    },
    {
      ...ACI,
      metadata: { name: 'sno-1', namespace: NS },
      spec: {
        clusterDeploymentRef: { name: 'sno-1' },
        imageSetRef: { name: 'img4.16' },
        networking: {
          clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
          serviceNetwork: ['172.30.0.0/16'],
          machineNetwork: [{ cidr: '192.168.111.0/24' }],
        },
        provisionRequirements: { controlPlaneAgents: 1, workerAgents: 0 },
      },
    },
    {
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterImageSet',
      metadata: { name: 'img4.16' },
      spec: { releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64' },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'pull-secret', namespace: NS },
      data: { '.dockerconfigjson': Buffer.from('{"auths":{}}').toString('base64') },
    },
  );
}

describe('the cluster side with the real host side', () => {
  it.each([
    ['an InfraEnv bound to the cluster', false],
    ['an unbound InfraEnv, its Agent bound later (late binding)', true],
  ])('installs a single node that registers from %s, reports and is approved', async (_, late) => {
    const clock = new ManualClock();
    const cluster = hub(clock, late);
    const log = createLogger({ level: 'silent' });
    const queue = new Set<string>();
    const installations = new ClusterInstallations();
    const hosts = new HostService({
      reader: cluster,
      writer: cluster,
      enqueueAgent: (r) => queue.add(requestKey(r)),
      machine: new StateMachineHostMachine(),
      validator: new CoreHostValidator(),
      instructions: new CoreInstructionBuilder({
        images: {
          agent: 'quay.io/edge-infrastructure/assisted-installer-agent:latest',
          release: 'quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64',
          mco: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:mco',
        },
      }),
      clusters: clusterDirectoryOf(installations),
      log,
      clock,
    });
    const clusters = createClusterDeploymentsController({
      hosts: hostServiceDirectory(hosts),
      machine: stateTableClusterMachine,
      validator: assistedClusterValidator,
      installer: new SimulatedInstallerBackend({ clock }),
      serviceBaseUrl: 'https://assisted.example:8090',
      installations,
    });
    const agents = agentController({ hosts });
    const monitor = new HostMonitor({ hosts, clock, log });
    const now = () => new Date(clock.now());
    const flush = async () => {
      for (let round = 0; round < 5 && queue.size > 0; round++) {
        const keys = [...queue];
        queue.clear();
        for (const key of keys) {
          const [namespace, name] = key.split('/') as [string, string];
          await reconcileUntilStable(agents, { namespace, name }, cluster);
        }
      }
    };
    const reconcileCluster = () =>
      reconcileUntilStable(clusters, { namespace: NS, name: 'sno-1' }, cluster, 20);
    const state = () =>
      (cluster.peek(ACI)?.['status'] as { debugInfo?: { state?: string } } | undefined)?.debugInfo
        ?.state;

    await reconcileCluster();
    const ie = hosts.infraEnv(INFRA_ENV_UID)!;
    const registered = await hosts.registerHost(ie, HOST_ID, 'v1.0', now());
    expect(registered.ok).toBe(true);
    const reply = (stepType: StepType, output: unknown) =>
      hosts.postStepReply(
        ie,
        HOST_ID,
        {
          stepType,
          stepId: `${stepType}-1`,
          exitCode: 0,
          error: '',
          output: JSON.stringify(output),
        },
        now(),
      );
    const discover = async () => {
      await reply(StepType.Inventory, {
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
      await hosts.nextSteps(ie, HOST_ID, now(), now().getTime() / 1000);
      await reply(StepType.NtpSynchronizer, {
        ntp_sources: [{ source_name: 'clock.example.com', source_state: 'synced' }],
      });
      const resolved = (name: string) => ({
        domain_name: name,
        ipv4_addresses: ['192.168.111.20'],
      });
      await reply(StepType.DomainResolution, {
        resolutions: [
          resolved('api.sno-1.example.com'),
          resolved('api-int.sno-1.example.com'),
          resolved('console-openshift-console.apps.sno-1.example.com'),
          { domain_name: 'validateNoWildcardDNS.sno-1.example.com.' },
          { domain_name: 'validateNoWildcardDNS.sno-1.example.com' },
        ],
      });
      monitor.runOnce();
      await flush();
    };
    await discover();
    if (late) {
      expect(hosts.get(HOST_ID)?.status).toBe('known-unbound');
      const unbound = cluster.peek({
        apiVersion: 'agent-install.openshift.io/v1beta1',
        kind: 'Agent',
        namespace: NS,
        name: HOST_ID,
      })!;
      await cluster.update({
        ...unbound,
        spec: {
          ...(unbound['spec'] as object),
          clusterDeploymentName: { name: 'sno-1', namespace: NS },
        },
      });
      await reconcileUntilStable(agents, { namespace: NS, name: HOST_ID }, cluster);
      await flush();
      expect(hosts.get(HOST_ID)).toMatchObject({ status: 'binding', clusterId: 'cd-uid-1' });
      // Told to exit by the binding, the agent registers again and discovers again.
      expect((await hosts.registerHost(ie, HOST_ID, 'v1.0', now())).ok).toBe(true);
      await discover();
    }
    expect(hosts.get(HOST_ID)).toMatchObject({ status: 'known' });
    if (!late) expect(hosts.get(HOST_ID)).toMatchObject({ role: 'master', bootstrap: true });

    // Not approved yet: the cluster is ready but waits for the approval.
    await reconcileCluster();
    expect(state()).toBe('ready');
    const agent = cluster.peek({
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'Agent',
      namespace: NS,
      name: HOST_ID,
    })!;
    await cluster.update({ ...agent, spec: { ...(agent['spec'] as object), approved: true } });
    await flush();
    await reconcileUntilStable(agents, { namespace: NS, name: HOST_ID }, cluster);

    // Approved: the installation starts and the host prepares.
    await reconcileCluster();
    expect(state()).toBe('preparing-for-installation');
    expect(hosts.get(HOST_ID)?.status).toBe('preparing-for-installation');
    await reply(StepType.InstallationDiskSpeedCheck, {
      io_sync_duration: 2,
      path: '/dev/disk/by-id/wwn-0x5000c500a0b1c2d3',
    });
    await reply(StepType.ContainerImageAvailability, {
      images: [
        { name: 'quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64', result: 'success' },
      ],
    });
    monitor.runOnce();
    expect(hosts.get(HOST_ID)?.status).toBe('preparing-successful');

    await reconcileCluster();
    expect(state()).toBe('installing');
    expect(hosts.get(HOST_ID)?.status).toBe('installing');
    const stages: HostStage[] = [
      'Starting installation',
      'Installing',
      'Waiting for bootkube',
      'Writing image to disk',
      'Copying registry data to disk',
      'Rebooting',
      'Joined',
      'Done',
    ];
    for (const currentStage of stages) {
      clock.advance(60_000);
      expect(await hosts.updateProgress(ie, HOST_ID, { currentStage }, now())).toMatchObject({
        ok: true,
      });
    }
    await flush();
    expect(hosts.get(HOST_ID)?.status).toBe('installed');

    await reconcileCluster();
    await reconcileCluster();
    expect(state()).toBe('installed');
    expect((cluster.peek(CD)?.['spec'] as { installed?: boolean }).installed).toBe(true);
    expect(
      cluster.peek({
        apiVersion: 'v1',
        kind: 'Secret',
        namespace: NS,
        name: 'sno-1-admin-kubeconfig',
      }),
    ).toBeDefined();
    expect(clusters.events.list('cd-uid-1').map((e) => e.message)).toContain(
      'Successfully completed installing cluster',
    );
  });
});
