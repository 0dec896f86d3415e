/**
 * An in-memory AgentApiBackend for the agent API's tests: hosts registered per InfraEnv, the
 * inventory step until an inventory arrives, replies and progress recorded, and refusals a test
 * can ask for. Not the assisted core: only what the API's contract needs.
 */
import type {
  AgentApiBackend,
  InfraEnvRef,
  Outcome,
  StepReply,
  Steps,
} from '../../../src/assisted/agent-api/backend.js';
import type { AgentHostView, LogsState } from '../../../src/assisted/agent-api/backend.js';
import { buildInstruction, parseStepReply } from '../../../src/assisted/agent-api/steps.js';
import type { ClusterRecord, HostProgress, HostRecord } from '../../../src/assisted/model.js';
import { HostRole, HostStage, HostStatus } from '../../../src/assisted/model.js';

/** A host record with the defaults of a freshly registered host. */
export function hostRecord(
  overrides: Partial<HostRecord> & Pick<HostRecord, 'id' | 'infraEnvId'>,
): HostRecord {
  const at = '2026-11-25T10:00:00.000Z';
  return {
    namespace: 'site-1',
    infraEnvName: 'site-1',
    status: HostStatus.Discovering,
    statusInfo: 'Waiting for host to send hardware details',
    statusUpdatedAt: at,
    role: 'auto-assign',
    suggestedRole: 'auto-assign',
    bootstrap: false,
    approved: false,
    registeredAt: at,
    checkedInAt: at,
    validationsInfo: {},
    progress: {},
    stepResults: {},
    ...overrides,
  };
}

/** A single-node cluster record (ready, user-managed networking) to build steps against. */
export function clusterRecord(overrides: Partial<ClusterRecord> = {}): ClusterRecord {
  return {
    id: 'bd9d3b83-80a3-4b94-8b61-c12b2f1a2373',
    namespace: 'site-1',
    clusterDeploymentName: 'sno1',
    agentClusterInstallName: 'sno1',
    name: 'sno1',
    baseDnsDomain: 'example.com',
    openshiftVersion: '4.16.3',
    status: 'ready',
    statusInfo: 'Cluster ready to be installed',
    statusUpdatedAt: '2026-11-25T10:00:00.000Z',
    highAvailabilityMode: 'None',
    controlPlaneAgents: 1,
    workerAgents: 0,
    arbiterAgents: 0,
    userManagedNetworking: true,
    platformType: 'None',
    networkType: 'OVNKubernetes',
    clusterNetworks: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
    serviceNetworks: ['172.30.0.0/16'],
    machineNetworks: ['192.168.0.0/16'],
    apiVips: [],
    ingressVips: [],
    pullSecretSet: true,
    ignoredHostValidations: [],
    ignoredClusterValidations: [],
    validationsInfo: {},
    holdInstallation: false,
    lastPreparation: { status: 'never' },
    ...overrides,
  };
}

/** What the fake was asked, for assertions. */
export interface FakeCalls {
  readonly registered: { hostId: string; version: string | undefined }[];
  readonly replies: { hostId: string; reply: StepReply }[];
  readonly progress: { hostId: string; stage?: string; info?: string }[];
  readonly logsStates: { hostId: string; state: LogsState }[];
  readonly logsUploaded: string[];
  readonly checkIns: { hostId: string; discoveryAgentVersion?: string; hostTimestamp?: number }[];
}

export class FakeAgentApiBackend implements AgentApiBackend {
  readonly infraEnvs = new Map<string, InfraEnvRef>();
  readonly hosts = new Map<string, HostRecord>();
  readonly calls: FakeCalls = {
    registered: [],
    replies: [],
    progress: [],
    logsStates: [],
    logsUploaded: [],
    checkIns: [],
  };
  /** Registration refused with 409 (the cluster does not accept hosts). */
  refuseRegistration = false;
  /** Registration answered 503 (the InfraEnv's cluster is not known yet). */
  clusterPending = false;
  agentImage = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';

  addInfraEnv(id: string, name = `infraenv-${id.slice(0, 4)}`): InfraEnvRef {
    const ref = { id, namespace: 'site-1', name };
    this.infraEnvs.set(id, ref);
    return ref;
  }

  infraEnv(id: string): InfraEnvRef | undefined {
    return this.infraEnvs.get(id);
  }

  private key(infraEnv: InfraEnvRef, hostId: string): string {
    return `${infraEnv.id}/${hostId}`;
  }

  registerHost(
    infraEnv: InfraEnvRef,
    hostId: string,
    version: string | undefined,
    now: Date,
  ): Promise<Outcome<HostRecord>> {
    this.calls.registered.push({ hostId, version });
    const key = this.key(infraEnv, hostId);
    if (this.clusterPending)
      return Promise.resolve({
        ok: false,
        httpStatus: 503,
        reason: 'cluster sno-1 is not ready yet',
      });
    if (this.refuseRegistration && !this.hosts.has(key)) {
      return Promise.resolve({
        ok: false,
        httpStatus: 409,
        reason:
          'Host can register only in one of the following states: [insufficient ready pending-for-input adding-hosts]',
      });
    }
    const at = now.toISOString();
    const host = hostRecord({
      id: hostId,
      infraEnvId: infraEnv.id,
      infraEnvName: infraEnv.name,
      registeredAt: at,
      checkedInAt: at,
      statusUpdatedAt: at,
      ...(version !== undefined ? { discoveryAgentVersion: version } : {}),
    });
    this.hosts.set(key, host);
    return Promise.resolve({ ok: true, value: host });
  }

  nextSteps(infraEnv: InfraEnvRef, hostId: string, now: Date): Promise<Outcome<Steps>> {
    const host = this.hosts.get(this.key(infraEnv, hostId));
    if (!host) return Promise.resolve({ ok: false, httpStatus: 404, reason: 'record not found' });
    this.hosts.set(this.key(infraEnv, hostId), { ...host, checkedInAt: now.toISOString() });
    const ctx = { host, images: { agent: this.agentImage }, ntpSources: 'clock.example.com' };
    const types = host.inventory
      ? (['inventory', 'ntp-synchronizer'] as const)
      : (['inventory'] as const);
    const instructions = types.flatMap((type) => {
      const instruction = buildInstruction(type, ctx);
      return instruction ? [instruction] : [];
    });
    return Promise.resolve({
      ok: true,
      value: { nextInstructionSeconds: 60, postStepAction: 'continue', instructions },
    });
  }

  postStepReply(
    infraEnv: InfraEnvRef,
    hostId: string,
    reply: StepReply,
  ): Promise<Outcome<undefined>> {
    const key = this.key(infraEnv, hostId);
    const host = this.hosts.get(key);
    if (!host) return Promise.resolve({ ok: false, httpStatus: 404, reason: 'record not found' });
    this.calls.replies.push({ hostId, reply });
    const parsed = parseStepReply(reply);
    if (parsed.ok && parsed.value.stepType === 'inventory') {
      this.hosts.set(key, {
        ...host,
        inventory: parsed.value.inventory,
        status: HostStatus.Known,
        statusInfo: 'Host is ready to be installed',
        validationsInfo: {
          hardware: [
            { id: 'has-cpu-cores-for-role', status: 'success', message: 'Sufficient CPU cores' },
          ],
        },
      });
    }
    if (parsed.ok && parsed.value.stepType === 'ntp-synchronizer') {
      this.hosts.set(key, {
        ...host,
        stepResults: { ...host.stepResults, ntp: { ntp_sources: parsed.value.ntpSources } },
      });
    }
    return Promise.resolve({ ok: true, value: undefined });
  }

  updateProgress(
    infraEnv: InfraEnvRef,
    hostId: string,
    progress: Pick<HostProgress, 'currentStage' | 'progressInfo'>,
    now: Date,
  ): Promise<Outcome<HostRecord>> {
    const key = this.key(infraEnv, hostId);
    const host = this.hosts.get(key);
    if (!host) return Promise.resolve({ ok: false, httpStatus: 404, reason: 'record not found' });
    const installing: readonly string[] = [
      HostStatus.Installing,
      HostStatus.InstallingInProgress,
      HostStatus.InstallingPendingUserAction,
    ];
    if (!installing.includes(host.status)) {
      return Promise.resolve({
        ok: false,
        httpStatus: 409,
        reason: `Can't set progress <${progress.currentStage ?? ''}> to host in status <${host.status}>`,
      });
    }
    this.calls.progress.push({
      hostId,
      ...(progress.currentStage !== undefined ? { stage: progress.currentStage } : {}),
      ...(progress.progressInfo !== undefined ? { info: progress.progressInfo } : {}),
    });
    const at = now.toISOString();
    const updated: HostRecord = {
      ...host,
      status: HostStatus.InstallingInProgress,
      progress: { ...progress, stageStartedAt: at, stageUpdatedAt: at },
    };
    this.hosts.set(key, updated);
    return Promise.resolve({ ok: true, value: updated });
  }

  agentCheckIn(
    _infraEnv: InfraEnvRef,
    hostId: string,
    checkIn: { readonly discoveryAgentVersion?: string; readonly hostTimestamp?: number },
  ): void {
    this.calls.checkIns.push({ hostId, ...checkIn });
  }

  host(infraEnv: InfraEnvRef, hostId: string): HostRecord | undefined {
    return this.hosts.get(this.key(infraEnv, hostId));
  }

  /** The last logs state reported, and two stages for any host with a role. */
  hostView(infraEnv: InfraEnvRef, hostId: string): AgentHostView | undefined {
    const host = this.hosts.get(this.key(infraEnv, hostId));
    if (!host) return undefined;
    const logs = this.calls.logsStates.filter((call) => call.hostId === hostId).at(-1);
    return {
      ...(logs !== undefined && {
        logsInfo: logs.state,
        logsStartedAt: '2026-11-25T11:00:00.000Z',
      }),
      progressStages:
        host.role === HostRole.AutoAssign ? [] : [HostStage.StartingInstallation, HostStage.Done],
    };
  }

  updateLogsProgress(
    infraEnv: InfraEnvRef,
    hostId: string,
    state: LogsState,
  ): Promise<Outcome<undefined>> {
    if (!this.hosts.has(this.key(infraEnv, hostId))) {
      return Promise.resolve({ ok: false, httpStatus: 404, reason: 'record not found' });
    }
    this.calls.logsStates.push({ hostId, state });
    return Promise.resolve({ ok: true, value: undefined });
  }

  logsUploaded(infraEnv: InfraEnvRef, hostId: string, now: Date): Promise<Outcome<undefined>> {
    const key = this.key(infraEnv, hostId);
    const host = this.hosts.get(key);
    if (!host) return Promise.resolve({ ok: false, httpStatus: 404, reason: 'record not found' });
    this.calls.logsUploaded.push(hostId);
    this.hosts.set(key, { ...host, logsCollectedAt: now.toISOString() });
    return Promise.resolve({ ok: true, value: undefined });
  }

  /** Puts a host into a status (e.g. installing, for progress reports). */
  setHost(infraEnvId: string, hostId: string, change: Partial<HostRecord>): void {
    const key = `${infraEnvId}/${hostId}`;
    const host = this.hosts.get(key);
    if (!host) throw new Error(`no host ${key}`);
    this.hosts.set(key, { ...host, ...change });
  }
}
