/**
 * A world for the host side's tests: a FakeCluster with an InfraEnv, a HostService over it with
 * small stand-ins for the state machine, validations and cluster side (just the rows these
 * tests walk through), the Agent controller, the monitor and a manual clock.
 */
import { Gvk } from '../../../src/bmac/api.js';
import type { Request } from '../../../src/bmac/runtime/contract.js';
import { requestKey } from '../../../src/bmac/runtime/contract.js';
import type { RuntimeClock } from '../../../src/bmac/runtime/runtime-clock.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { createLogger } from '../../../src/shared/logger.js';
import type { InfraEnvRef } from '../../../src/assisted/agent-api/backend.js';
import { agentController } from '../../../src/assisted/hosts/agent-controller.js';
import { HostMonitor } from '../../../src/assisted/hosts/host-monitor.js';
import { bareInstruction, HostService } from '../../../src/assisted/hosts/host-service.js';
import type {
  ClusterDirectory,
  HostEvent,
  HostEventOutcome,
  HostMachine,
  HostMachineContext,
  HostValidator,
  InstructionBuilder,
  StepPlan,
} from '../../../src/assisted/hosts/ports.js';
import { HostStage, HostStatus, StepType } from '../../../src/assisted/model.js';
import type {
  ClusterRecord,
  HostRecord,
  ValidationsInfo,
  WireInventory,
} from '../../../src/assisted/model.js';
import { FakeCluster, reconcileUntilStable } from '../../fakes/fake-cluster.js';

export const NS = 'site-1';
export const INFRA_ENV = 'sno-1';
export const INFRA_ENV_UID = 'ie-uid-1';
export const HOST_ID = '6f3c0f4e-0c1a-4e8e-9d6e-1a2b3c4d5e6f';
export const MAC = '52:54:00:aa:bb:01';
export const T0 = Date.parse('2026-11-25T12:00:00Z');

const S = HostStatus;

/** A manual clock: time moves only when a test says so. */
export class ManualClock implements RuntimeClock {
  private timers: { at: number; callback: () => void }[] = [];
  constructor(public time = T0) {}
  now = (): number => this.time;
  sleep = (): Promise<void> => Promise.resolve();
  setTimer(ms: number, callback: () => void): () => void {
    const timer = { at: this.time + ms, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }
  advance(ms: number): void {
    this.time += ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= this.time);
      if (due.length === 0) return;
      this.timers = this.timers.filter((t) => t.at > this.time);
      for (const t of due) t.callback();
    }
  }
}

export const STAGES_SNO: readonly HostStage[] = [
  HostStage.StartingInstallation,
  HostStage.Installing,
  HostStage.WaitingForBootkube,
  HostStage.WritingImageToDisk,
  HostStage.CopyingRegistryData,
  HostStage.Rebooting,
  HostStage.Joined,
  HostStage.Done,
];

const PRE_INSTALL = new Set<HostStatus>([
  S.Discovering,
  S.Known,
  S.Insufficient,
  S.PendingForInput,
  S.Disconnected,
]);

function failing(validations: ValidationsInfo): boolean {
  return Object.values(validations).some((rs) => rs.some((r) => r.status === 'failure'));
}

function set(host: HostRecord, status: HostStatus, statusInfo: string, now: Date): HostRecord {
  if (host.status === status && host.statusInfo === statusInfo) return host;
  return { ...host, status, statusInfo, statusUpdatedAt: now.toISOString() };
}

/** The rows of assisted.md §4.2 these tests need, with upstream's status infos. */
export const testMachine: HostMachine = {
  apply(host: HostRecord, event: HostEvent, ctx: HostMachineContext): HostEventOutcome {
    const bound = host.clusterId !== undefined;
    switch (event.type) {
      case 'RegisterHost': {
        if (
          (host.status as string) === '' ||
          PRE_INSTALL.has(host.status) ||
          host.status.endsWith('-unbound')
        )
          return {
            ok: true,
            host: set(
              host,
              bound ? S.Discovering : S.DiscoveringUnbound,
              'Waiting for host to send hardware details',
              ctx.now,
            ),
          };
        if (host.status === S.Installing)
          return {
            ok: true,
            host: set(host, S.Error, 'Host rebooted during installation', ctx.now),
          };
        return { ok: true, host };
      }
      case 'Refresh': {
        if (!PRE_INSTALL.has(host.status) && !host.status.endsWith('-unbound'))
          return { ok: true, host };
        if (!ctx.connected)
          return {
            ok: true,
            host: set(
              host,
              bound ? S.Disconnected : S.DisconnectedUnbound,
              'Host has stopped communicating with the installation service',
              ctx.now,
            ),
          };
        if (host.inventory === undefined)
          return {
            ok: true,
            host: set(
              host,
              bound ? S.Discovering : S.DiscoveringUnbound,
              'Waiting for host to send hardware details',
              ctx.now,
            ),
          };
        if (failing(ctx.validations))
          return {
            ok: true,
            host: set(
              host,
              bound ? S.Insufficient : S.InsufficientUnbound,
              'Host cannot be installed due to following failing validation(s): not enough',
              ctx.now,
            ),
          };
        return bound
          ? { ok: true, host: set(host, S.Known, 'Host is ready to be installed', ctx.now) }
          : {
              ok: true,
              host: set(host, S.KnownUnbound, 'Host is ready to be bound to a cluster', ctx.now),
            };
      }
      case 'BindHost':
        return {
          ok: true,
          host: set(
            {
              ...host,
              clusterId: event.clusterId,
              clusterDeploymentName: event.clusterDeploymentName,
            },
            S.Binding,
            'Host is waiting to be bound to the cluster',
            ctx.now,
          ),
        };
      case 'UnbindHost': {
        const unbound: Record<string, unknown> = { ...host };
        delete unbound['clusterId'];
        delete unbound['clusterDeploymentName'];
        return {
          ok: true,
          host: set(
            unbound as unknown as HostRecord,
            S.Unbinding,
            'Host is waiting to be unbound from the cluster',
            ctx.now,
          ),
        };
      }
      case 'InstallHost':
        if (host.status !== S.Known)
          return { ok: false, httpStatus: 409, reason: `host is ${host.status}` };
        return {
          ok: true,
          host: set(
            { ...host, installStartedAt: ctx.now.toISOString() },
            S.Installing,
            'Installation is in progress',
            ctx.now,
          ),
        };
      case 'HostProgressChanged': {
        if (host.status !== S.Installing && host.status !== S.InstallingInProgress)
          return {
            ok: false,
            httpStatus: 409,
            reason: `Can't set progress <${event.currentStage}> to host in status <${host.status}>`,
          };
        const index = STAGES_SNO.indexOf(event.currentStage);
        const nowIso = ctx.now.toISOString();
        const progress = {
          currentStage: event.currentStage,
          ...(event.progressInfo !== undefined && { progressInfo: event.progressInfo }),
          stageStartedAt:
            host.progress.currentStage === event.currentStage
              ? (host.progress.stageStartedAt ?? nowIso)
              : nowIso,
          stageUpdatedAt: nowIso,
          installationPercentage: ((index + 1) / STAGES_SNO.length) * 100,
        };
        const done = event.currentStage === HostStage.Done;
        return {
          ok: true,
          host: set(
            { ...host, progress },
            done ? S.Installed : S.InstallingInProgress,
            done ? 'Done' : event.currentStage,
            ctx.now,
          ),
        };
      }
      case 'HostInstallationFailed':
        return { ok: true, host: set(host, S.Error, event.reason, ctx.now) };
      case 'CancelInstallation':
      case 'MediaDisconnect':
      case 'PrepareForInstallation':
      case 'ResetHost':
        return { ok: false, httpStatus: 409, reason: `${event.type} is not handled here` };
    }
  },
  nextSteps(host: HostRecord): StepPlan {
    if (host.status === S.Binding)
      return { stepTypes: [], nextInstructionSeconds: 60, postStepAction: 'exit' };
    if (host.status === S.Discovering || host.status === S.DiscoveringUnbound)
      return {
        stepTypes: [StepType.Inventory],
        nextInstructionSeconds: 60,
        postStepAction: 'continue',
      };
    if (host.status === S.Installing)
      return {
        stepTypes: [StepType.Install],
        nextInstructionSeconds: 60,
        postStepAction: 'continue',
      };
    return {
      stepTypes: [StepType.Inventory, StepType.NtpSynchronizer],
      nextInstructionSeconds: 60,
      postStepAction: 'continue',
    };
  },
  progressStages: () => STAGES_SNO,
};

/** Two validations: CPU cores (8 for a master of a single-node cluster, else 2) and eligible disks. */
export const testValidator: HostValidator = {
  validate(host: HostRecord): ValidationsInfo {
    if (host.inventory === undefined) return {};
    const cores = host.inventory.cpu?.count ?? 0;
    const need = host.role === 'master' ? 8 : 2;
    const disks = this.validDisks(host, undefined);
    return {
      hardware: [
        cores >= need
          ? {
              id: 'has-cpu-cores-for-role',
              status: 'success',
              message: 'Sufficient CPU cores for role',
            }
          : {
              id: 'has-cpu-cores-for-role',
              status: 'failure',
              message: `Require at least ${String(need)} CPU cores for ${host.role} role, found only ${String(cores)}`,
            },
        disks.length > 0
          ? { id: 'has-min-valid-disks', status: 'success', message: 'Sufficient disk capacity' }
          : {
              id: 'has-min-valid-disks',
              status: 'failure',
              message:
                'No eligible disks were found, please check specific disks to see why they are not eligible',
            },
      ],
    };
  },
  validDisks(host: HostRecord): readonly string[] {
    return (host.inventory?.disks ?? [])
      .filter((d) => d.installation_eligibility?.eligible === true)
      .map((d) => d.id ?? `/dev/${d.name ?? ''}`);
  },
};

/** A cluster side holding ClusterRecords by id. */
export class TestClusters implements ClusterDirectory {
  readonly records = new Map<string, ClusterRecord>();
  refusal: string | undefined;
  byId(id: string): ClusterRecord | undefined {
    return this.records.get(id);
  }
  byDeployment(namespace: string, name: string): ClusterRecord | undefined {
    return [...this.records.values()].find(
      (c) => c.namespace === namespace && c.clusterDeploymentName === name,
    );
  }
  registrationRefusal(): string | undefined {
    return this.refusal;
  }
}

/** A single-node cluster record for the ClusterDeployment `name`. */
export function snoCluster(name = 'sno-1', id = 'cd-uid-1'): ClusterRecord {
  return {
    id,
    namespace: NS,
    clusterDeploymentName: name,
    agentClusterInstallName: name,
    name,
    baseDnsDomain: 'example.com',
    openshiftVersion: '4.16',
    status: 'insufficient',
    statusInfo: '',
    statusUpdatedAt: new Date(T0).toISOString(),
    highAvailabilityMode: 'None',
    controlPlaneAgents: 1,
    workerAgents: 0,
    arbiterAgents: 0,
    userManagedNetworking: true,
    platformType: 'None',
    networkType: 'OVNKubernetes',
    clusterNetworks: [],
    serviceNetworks: [],
    machineNetworks: [],
    apiVips: [],
    ingressVips: [],
    pullSecretSet: true,
    ignoredHostValidations: [],
    ignoredClusterValidations: [],
    validationsInfo: {},
    holdInstallation: false,
    lastPreparation: { status: 'never' },
  };
}

export function infraEnvObject(
  spec: Record<string, unknown> = {},
  name = INFRA_ENV,
  uid = INFRA_ENV_UID,
): KubeObject {
  return { ...Gvk.InfraEnv, metadata: { name, namespace: NS, uid }, spec };
}

export function clusterDeployment(name = 'sno-1', uid = 'cd-uid-1'): KubeObject {
  return { ...Gvk.ClusterDeployment, metadata: { name, namespace: NS, uid }, spec: {} };
}

/** An inventory of a host with `cores` cores, one NIC with MAC and two disks (one eligible). */
export function inventory(cores = 8): WireInventory {
  return {
    hostname: 'sno-node-1',
    bmc_address: '0.0.0.0',
    interfaces: [
      {
        name: 'eth0',
        mac_address: MAC,
        ipv4_addresses: ['192.168.111.20/24'],
        ipv6_addresses: [],
        has_carrier: true,
        mtu: 1500,
        speed_mbps: 10000,
        flags: ['up', 'broadcast'],
        type: 'physical',
        biosdevname: 'em1',
        client_id: '',
        vendor: '0x1af4',
        product: '0x0001',
      },
      { name: 'virbr0', mac_address: '52:54:00:ff:00:01', type: 'bridge' },
    ],
    disks: [
      {
        id: '/dev/disk/by-id/wwn-0x5000c500a0b1c2d3',
        name: 'sda',
        path: '/dev/sda',
        by_path: '/dev/disk/by-path/pci-0000:00:1f.2-ata-1',
        by_id: '/dev/disk/by-id/wwn-0x5000c500a0b1c2d3',
        drive_type: 'SSD',
        size_bytes: 240_000_000_000,
        bootable: true,
        installation_eligibility: { eligible: true, not_eligible_reasons: [] },
        io_perf: { sync_duration: 2 },
      },
      {
        id: '/dev/disk/by-id/usb-stick',
        name: 'sdb',
        path: '/dev/sdb',
        drive_type: 'HDD',
        size_bytes: 8_000_000_000,
        installation_eligibility: {
          eligible: false,
          not_eligible_reasons: [
            'Disk is too small (disk only has 8.0 GB, but 20 GB are required)',
          ],
        },
      },
    ],
    cpu: {
      count: cores,
      frequency: 2400.5,
      flags: ['vmx', 'sse4_2'],
      model_name: 'Xeon',
      architecture: 'x86_64',
    },
    memory: { physical_bytes: 34_359_738_368, usable_bytes: 33_000_000_000 },
    system_vendor: {
      manufacturer: 'Red Hat',
      product_name: 'KVM (RHEL 9)',
      virtual: true,
      serial_number: 'abc',
    },
    boot: { current_boot_mode: 'uefi', pxe_interface: '' },
  };
}

/** The test world. */
export class World {
  readonly clock: ManualClock;
  readonly cluster: FakeCluster;
  readonly clusters = new TestClusters();
  readonly queue = new Set<string>();
  service!: HostService;
  readonly log = createLogger({ level: 'silent' });

  /** The ports the HostService runs on. @default the small stand-ins of this file */
  ports: {
    machine: HostMachine;
    validator: HostValidator;
    instructions: InstructionBuilder;
  } = {
    machine: testMachine,
    validator: testValidator,
    instructions: { build: (type) => bareInstruction(type) },
  };

  constructor(...objects: KubeObject[]) {
    this.clock = new ManualClock();
    this.cluster = new FakeCluster(this.clock);
    this.cluster.seed(...objects);
    this.service = this.newService();
  }

  /** A HostService over this cluster, as a restarted controller makes one. */
  newService(): HostService {
    return new HostService({
      reader: this.cluster,
      writer: this.cluster,
      enqueueAgent: (r: Request) => this.queue.add(requestKey(r)),
      ...this.ports,
      clusters: this.clusters,
      log: this.log,
      clock: this.clock,
    });
  }

  restart(): void {
    this.service = this.newService();
  }

  /** Runs on other ports from now on (a new HostService over the same cluster). */
  withPorts(ports: World['ports']): this {
    this.ports = ports;
    this.service = this.newService();
    return this;
  }

  get controller() {
    return agentController({ hosts: this.service });
  }

  monitor(): HostMonitor {
    return new HostMonitor({ hosts: this.service, clock: this.clock, log: this.log });
  }

  infraEnvRef(): InfraEnvRef {
    const ref = this.service.infraEnv(INFRA_ENV_UID);
    if (ref === undefined) throw new Error('no InfraEnv');
    return ref;
  }

  now(): Date {
    return new Date(this.clock.now());
  }

  /** Runs the Agent controller for every queued key until nothing changes. */
  async flush(): Promise<void> {
    for (let round = 0; round < 5 && this.queue.size > 0; round++) {
      const keys = [...this.queue];
      this.queue.clear();
      for (const key of keys) {
        const [namespace, name] = key.split('/') as [string, string];
        await reconcileUntilStable(this.controller, { namespace, name }, this.cluster);
      }
    }
  }

  /** Reconciles one Agent (as a watch event would). */
  async reconcile(name = HOST_ID): Promise<void> {
    await reconcileUntilStable(this.controller, { namespace: NS, name }, this.cluster);
  }

  agent(name = HOST_ID): KubeObject | undefined {
    return this.cluster.peek({ ...Gvk.Agent, namespace: NS, name });
  }

  status(name = HOST_ID): Record<string, unknown> {
    return (this.agent(name)?.['status'] ?? {}) as Record<string, unknown>;
  }

  condition(type: string, name = HOST_ID): Record<string, unknown> | undefined {
    const conditions = (this.status(name)['conditions'] ?? []) as Record<string, unknown>[];
    return conditions.find((c) => c['type'] === type);
  }

  /** Changes the Agent as a user would (spec), through the API. */
  async editSpec(change: Record<string, unknown>, name = HOST_ID): Promise<void> {
    const agent = this.agent(name);
    if (agent === undefined) throw new Error('no Agent');
    await this.cluster.update({
      ...agent,
      spec: { ...(agent['spec'] as Record<string, unknown>), ...change },
    });
  }

  writesSince(mark: number): string[] {
    return this.cluster.writes.slice(mark);
  }

  /** Registers the host, reconciles, and (optionally) sends an inventory. */
  async registered(withInventory?: WireInventory): Promise<void> {
    const ie = this.infraEnvRef();
    const outcome = await this.service.registerHost(ie, HOST_ID, 'v1.0', this.now());
    if (!outcome.ok) throw new Error(outcome.reason);
    await this.flush();
    if (withInventory !== undefined) {
      await this.service.postStepReply(
        ie,
        HOST_ID,
        {
          stepType: StepType.Inventory,
          stepId: 'inventory-00000001',
          exitCode: 0,
          output: JSON.stringify(withInventory),
          error: '',
        },
        this.now(),
      );
      await this.flush();
    }
  }
}

/** A World whose host registered in a bound single-node cluster and was told to install. */
export async function installingWorld(): Promise<World> {
  const w = new World(
    infraEnvObject({ clusterRef: { name: 'sno-1', namespace: NS } }),
    clusterDeployment(),
  );
  w.clusters.records.set('cd-uid-1', snoCluster());
  await w.registered(inventory());
  w.service.apply(HOST_ID, { type: 'InstallHost' }, w.now());
  return w;
}
