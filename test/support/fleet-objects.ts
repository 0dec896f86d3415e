/**
 * Hub objects of a site as SiteForge's controllers write them, made with the controllers' own
 * code: Agent statuses by the agent controller's projection (conditions merged with their
 * transition times), AgentClusterInstall conditions by the cluster controller's functions,
 * BareMetalHost statuses by the redfish-host controller's status helpers. A SiteScript walks a
 * site through its life on a clock of its own, so every time is what the controllers would
 * have written at that moment.
 */
import type { KubeObject } from '../../src/kube/index.js';
import { projectMetadata, projectStatus } from '../../src/assisted/hosts/agent-projection.js';
import { HostKind } from '../../src/assisted/hosts/agent-names.js';
import {
  clusterConditions,
  setClusterCondition,
  specSynced,
} from '../../src/assisted/clusters/conditions.js';
import type { ClusterInstallCondition } from '../../src/assisted/clusters/kinds.js';
import { installationPercentage, stagesFor } from '../../src/assisted/state/host-stages.js';
import type {
  ClusterStatus,
  HostRecord,
  HostStage,
  HostStatus,
  ValidationsInfo,
} from '../../src/assisted/model.js';
import {
  readStatus,
  toStatusObject,
  withError,
  withoutError,
  withState,
} from '../../src/bmac/reconcilers/redfish-host/bmh-status.js';
import type {
  ErrorType,
  ProvisioningState,
} from '../../src/bmac/reconcilers/redfish-host/bmh-status.js';

type Json = Record<string, unknown>;

const PASSING_HOST: ValidationsInfo = {
  hardware: [
    { id: 'has-inventory', status: 'success', message: 'Valid inventory exists for the host' },
    { id: 'has-min-cpu-cores', status: 'success', message: 'Sufficient CPU cores' },
  ],
  network: [{ id: 'connected', status: 'success', message: 'Host is connected' }],
};

const PASSING_CLUSTER: ValidationsInfo = {
  network: [
    {
      id: 'machine-cidr-defined',
      status: 'success',
      message: 'The Machine Network CIDR is defined.',
    },
  ],
  'hosts-data': [
    {
      id: 'all-hosts-are-ready-to-install',
      status: 'success',
      message: 'All hosts in the cluster are ready to install.',
    },
  ],
};

/** A host's fields a script changes. */
interface HostScript {
  readonly bmh: string;
  readonly mac: string;
  readonly agentName: string;
  bmhObject: KubeObject;
  agentObject?: KubeObject;
  record?: HostRecord;
}

/** A single-node (or multi-node) site walked through its life. */
export class SiteScript {
  private ms: number;
  private cd: KubeObject;
  private aci: KubeObject;
  private infraEnv: KubeObject;
  private readonly hosts: HostScript[];
  private clusterStatus: ClusterStatus = 'insufficient';
  private clusterInfo = 'Cluster is not ready for install';
  private clusterValidations: ValidationsInfo = {};
  private percent: number | undefined;

  constructor(
    readonly name: string,
    options: { readonly hosts?: number; readonly start?: string } = {},
  ) {
    this.ms = Date.parse(options.start ?? '2026-05-01T10:00:00Z');
    const ns = name;
    const count = options.hosts ?? 1;
    this.cd = {
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterDeployment',
      metadata: { name, namespace: ns, creationTimestamp: this.now(), uid: `cd-${name}` },
      spec: {
        clusterName: name,
        baseDomain: 'example.com',
        clusterInstallRef: {
          group: 'extensions.hive.openshift.io',
          version: 'v1beta1',
          kind: 'AgentClusterInstall',
          name,
        },
      },
    };
    this.aci = {
      apiVersion: 'extensions.hive.openshift.io/v1beta1',
      kind: 'AgentClusterInstall',
      metadata: { name, namespace: ns, creationTimestamp: this.now() },
      spec: {
        clusterDeploymentRef: { name },
        provisionRequirements: {
          controlPlaneAgents: count === 1 ? 1 : 3,
          workerAgents: count > 3 ? count - 3 : 0,
        },
      },
      status: { conditions: [] },
    };
    this.infraEnv = {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'InfraEnv',
      metadata: { name, namespace: ns, creationTimestamp: this.now(), uid: `ie-${name}` },
      spec: { clusterRef: { name, namespace: ns } },
    };
    this.hosts = Array.from({ length: count }, (_, i) => {
      const bmh = `${name}-node${String(i)}`;
      const mac = `52:54:00:00:${String(i).padStart(2, '0')}:01`;
      return {
        bmh,
        mac,
        agentName: `${name}-agent-${String(i)}`,
        bmhObject: {
          apiVersion: 'metal3.io/v1alpha1',
          kind: 'BareMetalHost',
          metadata: {
            name: bmh,
            namespace: ns,
            creationTimestamp: this.now(),
            labels: { 'infraenvs.agent-install.openshift.io': name },
          },
          spec: { bootMACAddress: mac, online: true },
        },
      };
    });
    this.writeCluster();
  }

  /** Moves the script's clock on. */
  wait(seconds: number): this {
    this.ms += seconds * 1000;
    return this;
  }

  /** The time now, as the controllers write it. */
  now(): string {
    return new Date(Math.floor(this.ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  }

  /** Every object of the site as it is now. */
  objects(): KubeObject[] {
    return [
      this.cd,
      this.aci,
      this.infraEnv,
      ...this.hosts.map((h) => h.bmhObject),
      ...this.hosts.flatMap((h) => (h.agentObject === undefined ? [] : [h.agentObject])),
    ];
  }

  /** The objects as FleetModel takes them. */
  siteObjects(): {
    namespace: string;
    name: string;
    clusterDeployment: KubeObject;
    agentClusterInstall: KubeObject;
    infraEnvs: KubeObject[];
    agents: KubeObject[];
    bareMetalHosts: KubeObject[];
  } {
    return {
      namespace: this.name,
      name: this.name,
      clusterDeployment: this.cd,
      agentClusterInstall: this.aci,
      infraEnvs: [this.infraEnv],
      agents: this.hosts.flatMap((h) => (h.agentObject === undefined ? [] : [h.agentObject])),
      bareMetalHosts: this.hosts.map((h) => h.bmhObject),
    };
  }

  get clusterDeployment(): KubeObject {
    return this.cd;
  }
  get agentClusterInstall(): KubeObject {
    return this.aci;
  }
  get infraEnvObject(): KubeObject {
    return this.infraEnv;
  }
  bareMetalHost(i = 0): KubeObject {
    return this.hosts[i]!.bmhObject;
  }
  agent(i = 0): KubeObject | undefined {
    return this.hosts[i]!.agentObject;
  }

  // ---- InfraEnv -------------------------------------------------------------------------------

  imageCreated(): this {
    const t = this.now();
    this.infraEnv = {
      ...this.infraEnv,
      status: {
        isoDownloadURL: `https://hub.example.com/images/${this.name}.iso`,
        createdTime: t,
        conditions: [
          {
            type: 'ImageCreated',
            status: 'True',
            reason: 'InfraEnvAvailable',
            message: 'InfraEnv is available: Image has been created',
            lastTransitionTime: t,
          },
        ],
      },
    };
    return this;
  }

  imageFailed(message: string): this {
    const t = this.now();
    this.infraEnv = {
      ...this.infraEnv,
      status: {
        conditions: [
          {
            type: 'ImageCreated',
            status: 'False',
            reason: 'ImageCreationError',
            message: `Failed to create image: ${message}`,
            lastTransitionTime: t,
          },
        ],
      },
    };
    return this;
  }

  // ---- BareMetalHosts -------------------------------------------------------------------------

  bmhState(state: ProvisioningState, i = 0): this {
    const host = this.hosts[i]!;
    const status = withoutError(withState(readStatus(host.bmhObject), state, this.now()));
    host.bmhObject = {
      ...host.bmhObject,
      spec: {
        ...(host.bmhObject['spec'] as Json),
        ...(state === 'provisioning' || state === 'provisioned'
          ? {
              image: { url: `https://hub.example.com/images/${this.name}.iso`, format: 'live-iso' },
            }
          : {}),
      },
      status: {
        ...toStatusObject({ ...status, poweredOn: state === 'provisioned' }),
        lastUpdated: this.now(),
      },
    };
    return this;
  }

  bmhError(type: ErrorType, message: string, i = 0): this {
    const host = this.hosts[i]!;
    const status = withError(readStatus(host.bmhObject), type, message);
    host.bmhObject = {
      ...host.bmhObject,
      status: { ...toStatusObject(status), lastUpdated: this.now() },
    };
    return this;
  }

  // ---- Agents ---------------------------------------------------------------------------------

  /** The host's agent registers (status discovering, no inventory yet). */
  register(i = 0): this {
    const host = this.hosts[i]!;
    const t = this.now();
    host.agentObject = {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'Agent',
      metadata: {
        name: host.agentName,
        namespace: this.name,
        creationTimestamp: t,
        labels: { 'infraenvs.agent-install.openshift.io': this.name },
      },
      spec: { approved: false, clusterDeploymentName: { name: this.name, namespace: this.name } },
      status: {},
    };
    host.record = {
      id: host.agentName,
      namespace: this.name,
      infraEnvName: this.name,
      infraEnvId: `ie-${this.name}`,
      clusterDeploymentName: this.name,
      clusterId: `cd-${this.name}`,
      status: 'discovering',
      statusInfo: 'Waiting for host to send hardware details',
      statusUpdatedAt: t,
      role: this.hosts.length === 1 ? 'master' : 'auto-assign',
      suggestedRole: this.hosts.length === 1 ? 'master' : i < 3 ? 'master' : 'worker',
      bootstrap: this.hosts.length === 1 || i === 0,
      approved: false,
      registeredAt: t,
      checkedInAt: t,
      validationsInfo: {},
      progress: {},
      stepResults: {},
    };
    this.writeAgent(host);
    return this;
  }

  /** The inventory arrived and the validations pass (status known). */
  known(i = 0): this {
    const host = this.hosts[i]!;
    this.setHost(host, {
      status: 'known',
      statusInfo: 'Host is ready to be installed',
      validationsInfo: PASSING_HOST,
      inventory: {
        hostname: host.bmh,
        interfaces: [{ name: 'eno1', mac_address: host.mac, ipv4_addresses: ['10.0.0.10/24'] }],
      },
    });
    return this;
  }

  /** The host fails validations with these failures (status insufficient). */
  insufficient(failures: readonly { id: string; message: string }[], i = 0): this {
    const host = this.hosts[i]!;
    const hardware = [
      {
        id: 'has-inventory',
        status: 'success' as const,
        message: 'Valid inventory exists for the host',
      },
      ...failures.map((f) => ({ id: f.id, status: 'failure' as const, message: f.message })),
    ];
    this.setHost(host, {
      status: 'insufficient',
      statusInfo: `Host does not meet the minimum hardware requirements: ${failures.map((f) => f.message).join(' ; ')}`,
      validationsInfo: { hardware },
      inventory: {
        hostname: host.bmh,
        interfaces: [{ name: 'eno1', mac_address: host.mac }],
      },
    });
    return this;
  }

  /** The BMAC approves the Agent and labels it with its BareMetalHost. */
  approve(i = 0): this {
    const host = this.hosts[i]!;
    const agent = host.agentObject!;
    host.agentObject = {
      ...agent,
      metadata: {
        ...agent.metadata,
        labels: { ...agent.metadata.labels, 'agent-install.openshift.io/bmh': host.bmh },
      },
      spec: { ...(agent['spec'] as Json), approved: true },
    };
    this.setHost(host, { approved: true });
    return this;
  }

  /** The cluster's status moves (the cluster controller's conditions follow). */
  cluster(status: ClusterStatus, statusInfo: string, validationsInfo?: ValidationsInfo): this {
    this.clusterStatus = status;
    this.clusterInfo = statusInfo;
    if (validationsInfo !== undefined) this.clusterValidations = validationsInfo;
    else if (Object.keys(this.clusterValidations).length === 0 && status !== 'insufficient')
      this.clusterValidations = PASSING_CLUSTER;
    this.writeCluster();
    return this;
  }

  /** The host reports an install stage. */
  stage(stage: HostStage, i = 0): this {
    const host = this.hosts[i]!;
    const record = host.record!;
    const stages = this.stagesOf(record);
    const t = this.now();
    this.setHost(host, {
      status: stage === 'Done' ? 'installed' : 'installing-in-progress',
      statusInfo: stage === 'Done' ? 'Done' : stage,
      progress: {
        currentStage: stage,
        stageStartedAt: t,
        stageUpdatedAt: t,
        installationPercentage: installationPercentage(stage, stages),
      },
    });
    this.percent = installationPercentage(stage, stages);
    this.writeCluster();
    return this;
  }

  /** The host failed (a stage timeout, say). */
  hostError(statusInfo: string, i = 0): this {
    const host = this.hosts[i]!;
    this.setHost(host, { status: 'error', statusInfo });
    return this;
  }

  /** The host stopped checking in before its reboot. */
  disconnect(i = 0): this {
    const host = this.hosts[i]!;
    this.setHost(host, {
      status: 'disconnected',
      statusInfo: 'Host has stopped communicating with the installation service',
    });
    return this;
  }

  installed(): this {
    this.cluster('installed', 'Cluster is installed');
    this.cd = { ...this.cd, spec: { ...(this.cd['spec'] as Json), installed: true } };
    return this;
  }

  private stagesOf(record: HostRecord): readonly HostStage[] {
    const role = record.role === 'auto-assign' ? record.suggestedRole : record.role;
    return stagesFor(role, record.bootstrap, this.hosts.length === 1);
  }

  private setHost(host: HostScript, change: Partial<HostRecord>): void {
    const record = host.record!;
    host.record = {
      ...record,
      ...change,
      ...(change.status !== undefined &&
        change.status !== record.status && { statusUpdatedAt: this.now() }),
      checkedInAt: this.now(),
    };
    this.writeAgent(host);
  }

  private writeAgent(host: HostScript): void {
    const record = host.record!;
    const agent = host.agentObject!;
    const input = {
      agent,
      host: { record, kind: HostKind.Host },
      infraEnv: { name: this.name, uid: `ie-${this.name}` },
      progressStages: this.stagesOf(record),
      syncError: undefined,
      now: new Date(this.ms),
    };
    host.agentObject = {
      ...agent,
      metadata: projectMetadata(input),
      status: projectStatus(input),
    };
  }

  private writeCluster(): void {
    const approved = this.hosts.filter((h) => h.record?.approved === true).length;
    const values = [
      specSynced(undefined),
      ...clusterConditions({
        status: this.clusterStatus,
        statusInfo: this.clusterInfo,
        validationsInfo: this.clusterValidations,
        counts: {
          expected: {
            masters: this.hosts.length === 1 ? 1 : 3,
            arbiters: 0,
            workers: Math.max(0, this.hosts.length - 3),
          },
          registered: {
            masters: this.hosts.length === 1 ? 1 : 3,
            arbiters: 0,
            workers: Math.max(0, this.hosts.length - 3),
          },
          approved,
          unsynced: 0,
        },
        onHold: false,
        lastPreparation: { status: 'never' },
      }),
    ];
    let conditions = ((this.aci['status'] as Json)['conditions'] ??
      []) as ClusterInstallCondition[];
    for (const value of values) conditions = setClusterCondition(conditions, value, this.ms);
    this.aci = {
      ...this.aci,
      status: {
        conditions,
        debugInfo: { state: this.clusterStatus, stateInfo: this.clusterInfo },
        ...(this.percent !== undefined && { progress: { totalPercentage: this.percent } }),
        ...(Object.keys(this.clusterValidations).length > 0 && {
          validationsInfo: this.clusterValidations,
        }),
      },
    };
  }
}

/** A status for a host status, for tests that need one. */
export type { HostStatus };
