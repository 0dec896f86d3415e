/**
 * The host side of the assisted core (assisted-service's host manager and the host half of its
 * inventory API), behind the agent API's backend port: registration (with the Agent it
 * creates), next steps (the agent's check-in), step replies, install progress and logs.
 *
 * Records live in memory keyed by host id; their persisted form is the Agent itself
 * (agent-projection.ts). The service never writes an Agent for a change of its record: it
 * enqueues the Agent's key, and the Agent controller writes the projection once, only where
 * it differs — so many agent calls per host per minute cost no API write unless something a
 * user can see changed, and a check-in alone never writes. Only registration writes directly,
 * as upstream does, because the Agent must exist before the agent is answered.
 */
import { randomBytes } from 'node:crypto';
import { Gvk, Label } from '../../bmac/api.js';
import type { ObjectReader, ObjectWriter, Request } from '../../bmac/runtime/contract.js';
import { KubeApiError, KubeApiErrorCode } from '../../kube/index.js';
import type { KubeObject } from '../../kube/index.js';
import type { Clock } from '../../shared/clock.js';
import { systemClock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type {
  AgentApiBackend,
  AgentApiBackendExtras,
  AgentHostView,
  InfraEnvRef,
  LogsState,
  Instruction,
  Outcome,
  StepReply,
  Steps,
} from '../agent-api/backend.js';
import { parseStepReply } from '../agent-api/steps.js';
import { HostRole, HostStage, HostStatus, StepType } from '../model.js';
import type {
  ClusterRecord,
  HostProgress,
  HostRecord,
  HostStepResults,
  ValidationsInfo,
  WireInventory,
} from '../model.js';
import { agentClockState } from '../validations/host-validations.js';
import type { StoredHost } from './agent-projection.js';
import { projectMetadata, restoreHost } from './agent-projection.js';
import { AGENT_FINALIZER, HostKind } from './agent-names.js';
import { INVENTORY_UPDATABLE } from './host-statuses.js';
import { jsonEqual } from './deep-equal.js';
import { diskIdentifier, findDisk, normalizeInventory } from './inventory.js';
import type {
  ClusterDirectory,
  HostEvent,
  HostEventOutcome,
  HostMachine,
  HostMachineContext,
  HostValidator,
  InstructionBuilder,
  RoleAssignment,
} from './ports.js';

/** `HOST_MAX_DISCONNECTION_TIME` (assisted.md §4.2). */
export const HOST_MAX_DISCONNECTION_MS = 3 * 60_000;
/** Extra time a bootstrap host may stay silent (it serves the control plane meanwhile). */
export const BOOTSTRAP_EXTRA_DISCONNECTION_MS = 2 * 60_000;
/** The step exit code meaning the discovery media could not be read. */
export const MEDIA_DISCONNECTED_EXIT_CODE = 256;
/** The exit code of an install step whose installer container already runs (not a failure). */
const CONTAINER_ALREADY_RUNNING_EXIT_CODE = 125;

/** The status a host has before its first registration (upstream's empty state). */
export const NEW_HOST_STATUS = '' as HostStatus;

/** Stages from which the agent is expected to be silent (the host reboots into the installed OS). */
const AFTER_REBOOT: ReadonlySet<HostStage> = new Set([
  HostStage.Rebooting,
  HostStage.WaitingForIgnition,
  HostStage.Configuring,
  HostStage.Joined,
  HostStage.Done,
]);

/** Statuses of a host waiting for its first inventory. */
const DISCOVERING: ReadonlySet<HostStatus> = new Set([
  HostStatus.Discovering,
  HostStatus.DiscoveringUnbound,
]);

/** Called after every change of a host record (not after a bare check-in). */
export type HostListener = (host: HostRecord, previous: HostRecord | undefined) => void;

/** Options of HostService. */
export interface HostServiceOptions {
  /** The informers' cache (Agents, InfraEnvs, ClusterDeployments). */
  readonly reader: ObjectReader;
  /** Used only to create (or re-own) an Agent at registration. */
  readonly writer: ObjectWriter;
  /** Asks the Agent controller to write an Agent's projection (the runtime's queue dedupes). */
  readonly enqueueAgent: (request: Request) => void;
  readonly machine: HostMachine;
  readonly validator: HostValidator;
  readonly instructions: InstructionBuilder;
  readonly clusters: ClusterDirectory;
  readonly log: Logger;
  /** @default the system clock */
  readonly clock?: Clock;
  /** @default HOST_MAX_DISCONNECTION_MS */
  readonly maxDisconnectionMs?: number;
}

function refusal(httpStatus: 400 | 404 | 409 | 503, reason: string): Outcome<never> {
  return { ok: false, httpStatus, reason };
}

function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

/** A host's last validation and what it was computed from. */
interface ValidationMemo {
  readonly host: HostRecord;
  readonly cluster: ClusterRecord | undefined;
  readonly clusterHosts: readonly HostRecord[];
  readonly connected: boolean;
  readonly mediaStatus: StoredHost['mediaStatus'];
  readonly clock: ReturnType<typeof agentClockState>;
  readonly result: ValidationsInfo;
}

/** Whether two records hold the very same values (by identity) but for the check-in time. */
function sameButCheckIn(a: HostRecord, b: HostRecord): boolean {
  if (a === b) return true;
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  return keys.every((key) => key === 'checkedInAt' || x[key] === y[key]);
}

/** Whether two records differ in anything but the check-in time (shallow, then by value). */
export function recordChanged(a: HostRecord | undefined, b: HostRecord): boolean {
  if (a === b) return false;
  if (a === undefined) return true;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    if (key === 'checkedInAt') continue;
    const va = (a as unknown as Record<string, unknown>)[key];
    const vb = (b as unknown as Record<string, unknown>)[key];
    if (va === vb) continue;
    if (typeof va !== 'object' || typeof vb !== 'object' || va === null || vb === null) return true;
    if (!jsonEqual(va, vb)) return true;
  }
  return false;
}

/**
 * Whether `b` differs from `a` in something a user must see at once: anything but the check-in
 * time, the step results (seen only through the validations they change, which count) and the
 * installer's progress info within a stage (which it reports every few seconds).
 */
export function essentialChange(a: HostRecord | undefined, b: HostRecord): boolean {
  if (a === undefined) return true;
  const strip = (h: HostRecord): HostRecord => ({
    ...h,
    stepResults: {},
    progress: { ...h.progress, progressInfo: undefined, stageUpdatedAt: undefined },
  });
  return recordChanged(strip(a), strip(b));
}

/** Step results kept for validations, by step type. */
const STEP_RESULT_FIELD: Partial<Record<StepType, keyof HostStepResults>> = {
  [StepType.NtpSynchronizer]: 'ntp',
  [StepType.ConnectivityCheck]: 'connectivity',
  [StepType.DomainResolution]: 'domainResolution',
  [StepType.FreeNetworkAddresses]: 'freeAddresses',
  [StepType.InstallationDiskSpeedCheck]: 'diskSpeed',
  [StepType.ContainerImageAvailability]: 'imageAvailability',
  [StepType.ApiVipConnectivityCheck]: 'apiVipConnectivity',
  [StepType.TangConnectivityCheck]: 'tangConnectivity',
  [StepType.VerifyVips]: 'verifyVips',
};

const ARRAY_REPLIES: ReadonlySet<StepType> = new Set([
  StepType.VerifyVips,
  StepType.FreeNetworkAddresses,
]);

/** The JSON of a reply parseStepReply accepted (JSON null as the empty model), else undefined. */
function stepOutput(reply: StepReply): unknown {
  try {
    const value = JSON.parse(reply.output) as unknown;
    if (value !== null) return value;
    return ARRAY_REPLIES.has(reply.stepType) ? [] : {};
  } catch {
    return undefined;
  }
}

/** A fallback instruction when no builder knows the step: the step id, no arguments. */
export function bareInstruction(type: StepType): Instruction {
  return { stepType: type, stepId: `${type}-${randomBytes(4).toString('hex')}`, args: [] };
}

/** The host records and what the agent API asks of them. */
export class HostService implements AgentApiBackend, AgentApiBackendExtras {
  private readonly hosts = new Map<string, StoredHost>();
  private readonly byCluster = new Map<string, Set<string>>();
  /** `logs_started_at` per host id (memory only, as the log collection state). */
  private readonly logsStartedAt = new Map<string, string>();
  private readonly infraEnvIndex = new Map<string, { namespace: string; name: string }>();
  private readonly listeners: HostListener[] = [];
  /** Hosts changed only in minor ways since their Agent was last enqueued. */
  private readonly deferred = new Set<string>();
  /** Each host's last validation and its inputs (see {@link validate}). */
  private readonly validations = new Map<string, ValidationMemo>();
  /** Registrations whose Agent write is still in flight, per host id. */
  private readonly registrations = new Map<string, number>();
  /**
   * Hosts rebuilt from an Agent that shows no inventory while still discovering: the agent may
   * have sent it to the process before the restart, which took it but never wrote it to the
   * Agent, and the agent does not send an accepted output again (see {@link nextSteps}).
   */
  private readonly inventoryUnseen = new Set<string>();
  private readonly clock: Clock;
  private readonly maxDisconnectionMs: number;

  constructor(private readonly options: HostServiceOptions) {
    this.clock = options.clock ?? systemClock;
    this.maxDisconnectionMs = options.maxDisconnectionMs ?? HOST_MAX_DISCONNECTION_MS;
  }

  // ---- reading ------------------------------------------------------------------------------

  /** Every host record (the monitor's round). */
  all(): readonly HostRecord[] {
    return [...this.hosts.values()].map((h) => h.record);
  }

  /** The record of a host, whatever its InfraEnv. */
  get(hostId: string): HostRecord | undefined {
    return this.find(hostId)?.record;
  }

  /** `status.kind` of the host's Agent. */
  kind(hostId: string): HostKind | undefined {
    return this.hosts.get(hostId)?.kind;
  }

  /** The stored host (record and kind), for the Agent controller's projection. */
  stored(hostId: string): StoredHost | undefined {
    return this.hosts.get(hostId);
  }

  /** The hosts bound to the cluster whose ClusterDeployment uid is `clusterId`. */
  hostsOfCluster(clusterId: string): readonly HostRecord[] {
    const ids = this.byCluster.get(clusterId);
    if (ids === undefined) return [];
    const out: HostRecord[] = [];
    for (const id of ids) {
      const host = this.hosts.get(id);
      if (host !== undefined) out.push(host.record);
    }
    return out;
  }

  /** Calls `listener` after every change of a record. @returns unsubscribe */
  subscribe(listener: HostListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i !== -1) this.listeners.splice(i, 1);
    };
  }

  // ---- AgentApiBackend ----------------------------------------------------------------------

  infraEnv(id: string): InfraEnvRef | undefined {
    const cached = this.infraEnvIndex.get(id);
    if (cached !== undefined) {
      const object = this.options.reader.get({ ...Gvk.InfraEnv, ...cached });
      if (object?.metadata['uid'] === id) return this.infraEnvRefOf(object);
    }
    // A miss rebuilds the whole index in one scan, so a fleet of InfraEnvs costs one list.
    let found: InfraEnvRef | undefined;
    for (const object of this.options.reader.list(Gvk.InfraEnv)) {
      const uid = object.metadata['uid'];
      if (typeof uid !== 'string') continue;
      this.infraEnvIndex.set(uid, {
        namespace: object.metadata.namespace ?? '',
        name: object.metadata.name,
      });
      if (uid === id) found = this.infraEnvRefOf(object);
    }
    return found;
  }

  host(infraEnv: InfraEnvRef, hostId: string): HostRecord | undefined {
    const host = this.find(hostId, infraEnv.namespace);
    return host?.record.infraEnvId === infraEnv.id ? host.record : undefined;
  }

  async registerHost(
    infraEnv: InfraEnvRef,
    hostId: string,
    discoveryAgentVersion: string | undefined,
    now: Date,
  ): Promise<Outcome<HostRecord>> {
    const infraEnvObject = this.options.reader.get({
      ...Gvk.InfraEnv,
      namespace: infraEnv.namespace,
      name: infraEnv.name,
    });
    if (infraEnvObject === undefined) return refusal(404, `infra env ${infraEnv.id} not found`);
    const infraEnvSpec = (infraEnvObject['spec'] ?? {}) as Record<string, unknown>;
    if (infraEnvSpec['imageType'] === 'disconnected-iso')
      return refusal(400, 'Cannot register a host to an InfraEnv with disconnected-iso type');

    const existing = this.find(hostId, infraEnv.namespace);
    const previous = existing?.record.infraEnvId === infraEnv.id ? existing : undefined;
    const clusterRef = infraEnvSpec['clusterRef'] as
      { readonly name?: string; readonly namespace?: string } | undefined;
    const cluster =
      clusterRef?.name !== undefined
        ? this.options.clusters.byDeployment(
            clusterRef.namespace ?? infraEnv.namespace,
            clusterRef.name,
          )
        : previous?.record.clusterId !== undefined
          ? this.options.clusters.byId(previous.record.clusterId)
          : undefined;
    // The InfraEnv names a cluster the cluster side has no record of yet: registering the host
    // unbound would make the Agent controller bind it later (agent exits, re-registers). Upstream
    // never has this window, so ask the agent to retry (it retries 503 on register).
    if (clusterRef?.name !== undefined && cluster === undefined)
      return refusal(
        503,
        `cluster ${clusterRef.name} of infra env ${infraEnv.id} is not ready yet`,
      );
    if (previous === undefined && cluster !== undefined) {
      const refused = this.options.clusters.registrationRefusal(cluster);
      if (refused !== undefined) return refusal(409, refused);
    }

    const nowIso = now.toISOString();
    const kind =
      previous?.kind ??
      (cluster?.status === 'adding-hosts' ? HostKind.AddToExistingClusterHost : HostKind.Host);
    const day2 = kind === HostKind.AddToExistingClusterHost;
    let role: HostRole = HostRole.AutoAssign;
    let bootstrap = false;
    if (day2) role = HostRole.Worker;
    else if (cluster?.highAvailabilityMode === 'None') {
      role = HostRole.Master;
      bootstrap = true;
    }
    const base: HostRecord =
      previous !== undefined
        ? { ...previous.record, registeredAt: nowIso }
        : {
            id: hostId,
            namespace: infraEnv.namespace,
            infraEnvName: infraEnv.name,
            infraEnvId: infraEnv.id,
            ...(cluster !== undefined && {
              clusterId: cluster.id,
              clusterDeploymentName: cluster.clusterDeploymentName,
            }),
            status: NEW_HOST_STATUS,
            statusInfo: '',
            statusUpdatedAt: nowIso,
            role,
            suggestedRole: role,
            bootstrap,
            approved: false,
            ...(day2 && { machineConfigPool: 'worker' }),
            registeredAt: nowIso,
            checkedInAt: nowIso,
            validationsInfo: {},
            progress: {},
            stepResults: {},
          };
    const registering: HostRecord = {
      ...base,
      checkedInAt: nowIso,
      ...(discoveryAgentVersion !== undefined && { discoveryAgentVersion }),
    };
    const outcome = this.options.machine.apply(
      registering,
      {
        type: 'RegisterHost',
        ...(discoveryAgentVersion !== undefined && { discoveryAgentVersion }),
      },
      { ...this.machineContext(registering, now), day2 },
    );
    if (!outcome.ok) return refusal(outcome.httpStatus === 409 ? 409 : 400, outcome.reason);

    const stored: StoredHost = { ...previous, record: outcome.host, kind };
    if (existing !== undefined && previous === undefined) this.forget(existing.record.id);
    this.commit(stored, previous?.record);
    this.registrations.set(hostId, (this.registrations.get(hostId) ?? 0) + 1);
    try {
      await this.ensureAgent(infraEnvObject, stored, cluster);
    } catch (err) {
      // As upstream: a host whose Agent could not be written is not registered; but a record
      // another registration or the agent's calls changed meanwhile is theirs, not ours to drop.
      if (this.hosts.get(hostId)?.record === stored.record) this.forget(hostId);
      throw err;
    } finally {
      const left = (this.registrations.get(hostId) ?? 1) - 1;
      if (left > 0) this.registrations.set(hostId, left);
      else this.registrations.delete(hostId);
    }
    return ok(stored.record);
  }

  /**
   * Whether a registration of the host is still writing its Agent: until it returns, an Agent
   * missing from the cache and from the API server is one about to be created, not one deleted.
   */
  registering(hostId: string): boolean {
    return this.registrations.has(hostId);
  }

  /**
   * @param agentTimestamp the agent's clock (`timestamp` query, Unix seconds), when the caller
   *   has not passed it through {@link agentCheckIn} already
   */
  nextSteps(
    infraEnv: InfraEnvRef,
    hostId: string,
    now: Date,
    agentTimestamp?: number,
  ): Promise<Outcome<Steps>> {
    const stored = this.findIn(infraEnv, hostId);
    if (stored === undefined) return Promise.resolve(refusal(404, `host ${hostId} not found`));
    // The check-in: kept in memory only, never a reason to write the Agent.
    const record: HostRecord = { ...stored.record, checkedInAt: now.toISOString() };
    this.hosts.set(hostId, {
      ...stored,
      record,
      ...(agentTimestamp !== undefined && { agentTimestamp }),
    });
    // A restored host that may have lost its inventory: its agent's first poll fails once. The
    // agent forgets the replies it sent whenever a poll fails (upstream's step processor
    // invalidates its reply cache), so it sends the inventory again on the next one, seconds
    // later; asking costs one poll, a lost inventory would leave the host discovering for good.
    if (this.inventoryUnseen.delete(hostId) && record.inventory === undefined)
      return Promise.resolve(
        refusal(
          503,
          `host ${hostId} was restored after a service restart without its hardware inventory; the agent is asked to send it again`,
        ),
      );
    const context = this.machineContext(record, now);
    const plan = this.options.machine.nextSteps(record, context);
    const { cluster, clusterHosts } = context;
    // One context for every step of the poll: the builder reads its settings once per context.
    const stepContext = { host: record, ...(cluster !== undefined && { cluster }), clusterHosts };
    const instructions: Instruction[] = [];
    for (const type of plan.stepTypes) {
      const instruction = this.options.instructions.build(type, stepContext);
      if (instruction !== undefined) instructions.push(instruction);
    }
    return Promise.resolve(
      ok({
        nextInstructionSeconds: plan.nextInstructionSeconds,
        postStepAction: plan.postStepAction,
        instructions,
      }),
    );
  }

  postStepReply(
    infraEnv: InfraEnvRef,
    hostId: string,
    reply: StepReply,
    now: Date,
  ): Promise<Outcome<undefined>> {
    const stored = this.findIn(infraEnv, hostId);
    if (stored === undefined) return Promise.resolve(refusal(404, `host ${hostId} not found`));
    const host = stored.record;
    if (reply.exitCode !== 0) {
      this.handleReplyError(stored, reply, now);
      return Promise.resolve(ok(undefined));
    }
    if (stored.mediaStatus === 'disconnected') this.setMediaStatus(hostId, 'connected');
    // As upstream: the output must decode as the step's model (an array for verify-vips and
    // free-network-addresses, JSON null as an empty one); an empty output of the checks that
    // are still running elsewhere is ignored.
    const parsed = parseStepReply(reply);
    if (!parsed.ok) return Promise.resolve(refusal(400, parsed.reason));
    if (parsed.value.stepType === 'other' && parsed.value.output === undefined)
      return Promise.resolve(ok(undefined));
    let output: unknown;
    if (reply.stepType === StepType.Inventory || STEP_RESULT_FIELD[reply.stepType] !== undefined) {
      output = stepOutput(reply);
      if (output === undefined) return Promise.resolve(ok(undefined));
    }
    if (reply.stepType === StepType.Inventory) {
      if (!INVENTORY_UPDATABLE.has(host.status)) {
        this.options.log.debug(
          { host: hostId, status: host.status },
          'inventory ignored: the host can no longer be updated',
        );
        return Promise.resolve(ok(undefined));
      }
      this.replace(stored, this.withInventory(host, output as WireInventory), now, true);
      return Promise.resolve(ok(undefined));
    }
    const field = STEP_RESULT_FIELD[reply.stepType];
    if (field !== undefined) {
      const previous = host.stepResults[field];
      if (!jsonEqual(previous, output))
        this.replace(
          stored,
          { ...host, stepResults: { ...host.stepResults, [field]: output } },
          now,
          true,
        );
    }
    return Promise.resolve(ok(undefined));
  }

  updateProgress(
    infraEnv: InfraEnvRef,
    hostId: string,
    progress: Pick<HostProgress, 'currentStage' | 'progressInfo'>,
    now: Date,
  ): Promise<Outcome<HostRecord>> {
    const stored = this.findIn(infraEnv, hostId);
    if (stored === undefined) return Promise.resolve(refusal(404, `host ${hostId} not found`));
    const host = stored.record;
    if (host.clusterId === undefined)
      return Promise.resolve(
        refusal(400, `host ${hostId} is not bound to any cluster, cannot update progress`),
      );
    if (progress.currentStage === undefined)
      return Promise.resolve(refusal(400, 'current_stage is required'));
    if (
      progress.currentStage === host.progress.currentStage &&
      (progress.progressInfo ?? '') === (host.progress.progressInfo ?? '')
    )
      return Promise.resolve(ok(host));
    const outcome = this.apply(
      hostId,
      {
        type: 'HostProgressChanged',
        currentStage: progress.currentStage,
        ...(progress.progressInfo !== undefined && { progressInfo: progress.progressInfo }),
      },
      now,
    );
    return Promise.resolve(
      outcome.ok ? ok(outcome.host) : refusal(outcome.httpStatus, outcome.reason),
    );
  }

  /**
   * What a `GET …/instructions` carries besides the call (AgentApiBackendExtras): the agent's
   * clock (for time-synced) and version. Kept in memory; a new agent version is a change.
   */
  agentCheckIn(
    infraEnv: InfraEnvRef,
    hostId: string,
    checkIn: { readonly discoveryAgentVersion?: string; readonly hostTimestamp?: number },
  ): void {
    const stored = this.findIn(infraEnv, hostId);
    if (stored === undefined) return;
    const version = checkIn.discoveryAgentVersion;
    const record: HostRecord =
      version !== undefined && version !== stored.record.discoveryAgentVersion
        ? { ...stored.record, discoveryAgentVersion: version }
        : stored.record;
    const next: StoredHost = {
      ...stored,
      record,
      ...(checkIn.hostTimestamp !== undefined && { agentTimestamp: checkIn.hostTimestamp }),
    };
    if (record === stored.record) this.hosts.set(hostId, next);
    else this.commit(next, stored.record);
  }

  /**
   * `PUT …/logs-progress` (AgentApiBackendExtras): the host's log collection (`logs_info`, and
   * `logs_started_at` when the agent reports `requested`, as upstream), kept in memory.
   */
  updateLogsProgress(
    infraEnv: InfraEnvRef,
    hostId: string,
    logsState: LogsState,
    now: Date = this.now(),
  ): Promise<Outcome<undefined>> {
    const stored = this.findIn(infraEnv, hostId);
    if (stored === undefined) return Promise.resolve(refusal(404, `host ${hostId} not found`));
    this.hosts.set(hostId, { ...stored, logsState });
    if (logsState === 'requested') this.logsStartedAt.set(hostId, now.toISOString());
    return Promise.resolve(ok(undefined));
  }

  /** What the agent API shows beside the record (AgentApiBackendExtras). */
  hostView(infraEnv: InfraEnvRef, hostId: string): AgentHostView | undefined {
    const stored = this.findIn(infraEnv, hostId);
    if (stored === undefined) return undefined;
    const startedAt = this.logsStartedAt.get(hostId);
    return {
      ...(stored.logsState !== undefined && { logsInfo: stored.logsState }),
      ...(startedAt !== undefined && { logsStartedAt: startedAt }),
      progressStages: this.progressStagesOf(stored.record),
    };
  }

  logsUploaded(infraEnv: InfraEnvRef, hostId: string, now: Date): Promise<Outcome<undefined>> {
    const stored = this.findIn(infraEnv, hostId);
    if (stored === undefined) return Promise.resolve(refusal(404, `host ${hostId} not found`));
    this.replace(stored, { ...stored.record, logsCollectedAt: now.toISOString() }, now, false);
    // As upstream, an upload leaves the log collection `collecting` until the agent says more.
    const current = this.hosts.get(hostId);
    if (current !== undefined) this.hosts.set(hostId, { ...current, logsState: 'collecting' });
    return Promise.resolve(ok(undefined));
  }

  // ---- for the cluster side and the Agent controller ----------------------------------------

  /** Applies a state-machine event to a host (InstallHost, CancelInstallation, …). */
  apply(hostId: string, event: HostEvent, now: Date = this.now()): HostEventOutcome {
    const stored = this.find(hostId);
    if (stored === undefined)
      return { ok: false, httpStatus: 404, reason: `host ${hostId} not found` };
    const outcome = this.options.machine.apply(
      stored.record,
      event,
      this.machineContext(stored.record, now),
    );
    if (outcome.ok) this.commit({ ...stored, record: outcome.host }, stored.record);
    return outcome;
  }

  /** Sets the role, suggested role or bootstrap flag the cluster side chose. */
  assignRole(hostId: string, assignment: RoleAssignment): HostRecord | undefined {
    const stored = this.find(hostId);
    if (stored === undefined) return undefined;
    const record: HostRecord = {
      ...stored.record,
      ...(assignment.role !== undefined && { role: assignment.role }),
      ...(assignment.suggestedRole !== undefined && { suggestedRole: assignment.suggestedRole }),
      ...(assignment.bootstrap !== undefined && { bootstrap: assignment.bootstrap }),
    };
    this.commit({ ...stored, record }, stored.record);
    return record;
  }

  /**
   * Re-evaluates a host as the monitor does: connection, validations, then the Refresh event.
   * @returns whether the record changed
   */
  refresh(hostId: string, now: Date = this.now()): boolean {
    const stored = this.hosts.get(hostId);
    if (stored === undefined) return false;
    const next = this.refreshed(stored.record, now);
    if (!recordChanged(stored.record, next)) return false;
    this.commit({ ...stored, record: next }, stored.record);
    return true;
  }

  /** Replaces a record with a changed one (the Agent controller's spec sync). */
  update(hostId: string, change: (host: HostRecord) => HostRecord): HostRecord | undefined {
    const stored = this.find(hostId);
    if (stored === undefined) return undefined;
    const record = change(stored.record);
    if (record !== stored.record) this.commit({ ...stored, record }, stored.record);
    return record;
  }

  /** Rebuilds a host from its Agent after a restart (nothing is written). */
  restore(agent: KubeObject, now: Date = this.now()): StoredHost | undefined {
    const existing = this.hosts.get(agent.metadata.name);
    if (existing !== undefined) return existing;
    const infraEnvId = this.infraEnvIdOf(agent);
    if (infraEnvId === undefined) return undefined;
    const ref = (agent['spec'] as Record<string, unknown> | undefined)?.[
      'clusterDeploymentName'
    ] as { name?: string; namespace?: string } | undefined;
    const cluster =
      ref?.name !== undefined
        ? this.options.clusters.byDeployment(
            ref.namespace ?? agent.metadata.namespace ?? '',
            ref.name,
          )
        : undefined;
    // The cluster id is its ClusterDeployment's uid: read from the cache when the cluster side
    // has not restored its record yet, so a host restored first stays bound (never re-bound).
    const clusterId =
      cluster?.id ??
      (ref?.name !== undefined
        ? this.options.reader.get({
            ...Gvk.ClusterDeployment,
            namespace: ref.namespace ?? agent.metadata.namespace ?? '',
            name: ref.name,
          })?.metadata['uid']
        : undefined);
    const stored = restoreHost(
      agent,
      infraEnvId,
      typeof clusterId === 'string' ? clusterId : undefined,
      now,
    );
    if (stored === undefined) return undefined;
    this.hosts.set(stored.record.id, stored);
    this.index(stored.record, undefined);
    if (stored.record.inventory === undefined && DISCOVERING.has(stored.record.status))
      this.inventoryUnseen.add(stored.record.id);
    return stored;
  }

  /**
   * Rebuilds every host whose Agent the cache holds and memory does not (after a restart):
   * call it once the caches have synced, before anything reads hosts by cluster; the monitor
   * also calls it each round. Nothing is written. @returns how many were restored
   */
  restoreAll(now: Date = this.now()): number {
    let count = 0;
    for (const agent of this.options.reader.list(Gvk.Agent)) {
      if (this.hosts.has(agent.metadata.name)) continue;
      if (agent.metadata['deletionTimestamp'] !== undefined) continue;
      if (this.restore(agent, now) !== undefined) count++;
    }
    return count;
  }

  /**
   * Forgets a host (its Agent is being deleted: upstream's deregister).
   * @param expected forget only if the host is still this one (what the caller decided on): a
   *   registration or an agent call answered meanwhile made a newer one, which stays
   * @returns whether the host was forgotten
   */
  deregister(hostId: string, expected?: StoredHost): boolean {
    if (expected !== undefined && this.hosts.get(hostId) !== expected) return false;
    this.forget(hostId);
    return true;
  }

  /** Whether the agent of `host` has checked in recently enough (assisted.md §4.2). */
  isConnected(host: HostRecord, now: Date): boolean {
    if (host.progress.currentStage !== undefined && AFTER_REBOOT.has(host.progress.currentStage))
      return true;
    const limit = this.maxDisconnectionMs + (host.bootstrap ? BOOTSTRAP_EXTRA_DISCONNECTION_MS : 0);
    return now.getTime() - Date.parse(host.checkedInAt) <= limit;
  }

  /** The installation disks the host may use (HostValidator's). */
  validDisks(host: HostRecord): readonly string[] {
    return this.options.validator.validDisks(host, this.clusterOf(host));
  }

  /** The machine context of a host now. */
  machineContext(host: HostRecord, now: Date): HostMachineContext {
    const cluster = this.clusterOf(host);
    return {
      now,
      ...(cluster !== undefined && { cluster }),
      validations: host.validationsInfo,
      connected: this.isConnected(host, now),
      day2: this.hosts.get(host.id)?.kind === HostKind.AddToExistingClusterHost,
      clusterHosts: host.clusterId === undefined ? [] : this.hostsOfCluster(host.clusterId),
    };
  }

  /** The cluster of a ClusterDeployment, as the cluster side knows it. */
  clusterByDeployment(namespace: string, name: string): ClusterRecord | undefined {
    return this.options.clusters.byDeployment(namespace, name);
  }

  /** The cluster a host is bound to, as the cluster side knows it. */
  clusterOf(host: HostRecord): ClusterRecord | undefined {
    return host.clusterId === undefined ? undefined : this.options.clusters.byId(host.clusterId);
  }

  /** The stages of a host's role (`progressStages`). */
  progressStagesOf(host: HostRecord): readonly HostStage[] {
    return this.options.machine.progressStages?.(host, this.clusterOf(host)) ?? [];
  }

  // ---- internals ----------------------------------------------------------------------------

  private now(): Date {
    return new Date(this.clock.now());
  }

  private refreshed(host: HostRecord, now: Date): HostRecord {
    const context = this.machineContext(host, now);
    const fresh = this.validate(host, this.hosts.get(host.id), context);
    const validationsInfo = jsonEqual(fresh, host.validationsInfo) ? host.validationsInfo : fresh;
    const validated: HostRecord =
      validationsInfo === host.validationsInfo ? host : { ...host, validationsInfo };
    const outcome = this.options.machine.apply(
      validated,
      { type: 'Refresh' },
      { ...context, validations: validationsInfo },
    );
    return outcome.ok ? outcome.host : validated;
  }

  /**
   * The host's validations. They depend on the record (not on its check-in time), its cluster's
   * record and hosts, the connection, the media and the agent's clock standing; the monitor
   * re-evaluates every host every few seconds, mostly with none of these changed, so the last
   * result is reused while they are the same objects (records are replaced, never edited). A
   * clock out of sync is always evaluated again (its message carries the service's time).
   */
  private validate(
    host: HostRecord,
    stored: StoredHost | undefined,
    context: HostMachineContext,
  ): ValidationsInfo {
    const { cluster, clusterHosts, connected, now } = context;
    const clock = agentClockState(stored?.agentTimestamp, now);
    const last = this.validations.get(host.id);
    if (
      last !== undefined &&
      clock !== 'service-ahead' &&
      clock !== 'host-ahead' &&
      last.clock === clock &&
      last.connected === connected &&
      last.mediaStatus === stored?.mediaStatus &&
      last.cluster === cluster &&
      sameButCheckIn(last.host, host) &&
      last.clusterHosts.length === clusterHosts.length &&
      last.clusterHosts.every((h, i) => sameButCheckIn(h, clusterHosts[i]!))
    )
      return last.result;
    const result = this.options.validator.validate(host, {
      now,
      ...(cluster !== undefined && { cluster }),
      clusterHosts,
      connected,
      ...(stored?.agentTimestamp !== undefined && { agentTimestamp: stored.agentTimestamp }),
      ...(stored?.mediaStatus !== undefined && { mediaStatus: stored.mediaStatus }),
    });
    this.validations.set(host.id, {
      host,
      cluster,
      clusterHosts,
      connected,
      mediaStatus: stored?.mediaStatus,
      clock,
      result,
    });
    return result;
  }

  private withInventory(host: HostRecord, raw: WireInventory): HostRecord {
    const inventory = normalizeInventory(raw);
    const withInventory: HostRecord = { ...host, inventory };
    const valid = this.options.validator.validDisks(withInventory, this.clusterOf(host));
    const chosen =
      host.installationDiskId !== undefined &&
      valid.some((id) => {
        const disk = findDisk(inventory, id);
        return disk !== undefined && diskIdentifier(disk) === host.installationDiskId;
      })
        ? host.installationDiskId
        : valid[0];
    if (chosen !== undefined) return { ...withInventory, installationDiskId: chosen };
    const rest: Record<string, unknown> = { ...withInventory };
    delete rest['installationDiskId'];
    return rest as unknown as HostRecord;
  }

  private handleReplyError(stored: StoredHost, reply: StepReply, now: Date): void {
    const hostId = stored.record.id;
    if (reply.exitCode === MEDIA_DISCONNECTED_EXIT_CODE) {
      this.setMediaStatus(hostId, 'disconnected');
      this.apply(hostId, { type: 'MediaDisconnect' }, now);
    }
    if (reply.stepType === StepType.Install) {
      if (
        reply.exitCode === CONTAINER_ALREADY_RUNNING_EXIT_CODE &&
        reply.error.includes('the container name "assisted-installer" is already in use')
      )
        return;
      this.apply(
        hostId,
        { type: 'HostInstallationFailed', reason: 'installation command failed' },
        now,
      );
      return;
    }
    const field = STEP_RESULT_FIELD[reply.stepType];
    if (field === 'diskSpeed' || field === 'imageAvailability' || field === 'tangConnectivity') {
      const current = this.hosts.get(hostId) ?? stored;
      const failed = { exit_code: reply.exitCode, error: reply.error };
      this.replace(
        current,
        { ...current.record, stepResults: { ...current.record.stepResults, [field]: failed } },
        now,
        true,
      );
    }
  }

  private setMediaStatus(hostId: string, mediaStatus: 'connected' | 'disconnected'): void {
    const stored = this.hosts.get(hostId);
    if (stored === undefined || stored.mediaStatus === mediaStatus) return;
    this.hosts.set(hostId, { ...stored, mediaStatus });
    this.options.enqueueAgent({ namespace: stored.record.namespace, name: hostId });
  }

  /** Stores a changed record; `refresh` re-evaluates it at once (new inputs for validations). */
  private replace(stored: StoredHost, record: HostRecord, now: Date, refresh: boolean): void {
    const next = refresh ? this.refreshed(record, now) : record;
    this.commit({ ...stored, record: next }, stored.record);
  }

  /**
   * Stores a host. A change a user must see enqueues its Agent now; a minor one (progress info,
   * step results) waits for {@link flushDeferred}, so a burst of them costs one write.
   */
  private commit(stored: StoredHost, previous: HostRecord | undefined): void {
    const { record } = stored;
    this.hosts.set(record.id, stored);
    this.index(record, previous);
    if (!recordChanged(previous, record)) return;
    if (essentialChange(previous, record)) {
      this.deferred.delete(record.id);
      this.options.enqueueAgent({ namespace: record.namespace, name: record.id });
    } else this.deferred.add(record.id);
    for (const listener of this.listeners) listener(record, previous);
  }

  /**
   * Enqueues the Agents of hosts whose last changes were minor (the monitor calls it every
   * round, so they reach the Agent within one monitor interval).
   * @returns how many were enqueued
   */
  flushDeferred(): number {
    let count = 0;
    for (const id of this.deferred) {
      const stored = this.hosts.get(id);
      if (stored === undefined) continue;
      this.options.enqueueAgent({ namespace: stored.record.namespace, name: id });
      count++;
    }
    this.deferred.clear();
    return count;
  }

  private index(record: HostRecord, previous: HostRecord | undefined): void {
    if (previous?.clusterId === record.clusterId && previous !== undefined) return;
    if (previous?.clusterId !== undefined)
      this.byCluster.get(previous.clusterId)?.delete(record.id);
    if (record.clusterId !== undefined) {
      let ids = this.byCluster.get(record.clusterId);
      if (ids === undefined) this.byCluster.set(record.clusterId, (ids = new Set()));
      ids.add(record.id);
    }
  }

  private forget(hostId: string): void {
    const stored = this.hosts.get(hostId);
    if (stored === undefined) return;
    this.hosts.delete(hostId);
    this.inventoryUnseen.delete(hostId);
    this.logsStartedAt.delete(hostId);
    this.validations.delete(hostId);
    if (stored.record.clusterId !== undefined)
      this.byCluster.get(stored.record.clusterId)?.delete(hostId);
  }

  /**
   * The host, from memory or, given its namespace, rebuilt from its Agent in the cache. Without
   * a namespace nothing is searched: after a restart the Agent controller restores every host
   * as the cache syncs, and scanning every Agent per call would cost O(hosts) each.
   */
  private find(hostId: string, namespace?: string): StoredHost | undefined {
    const stored = this.hosts.get(hostId);
    if (stored !== undefined || namespace === undefined) return stored;
    const agent = this.options.reader.get({ ...Gvk.Agent, namespace, name: hostId });
    return agent === undefined ? undefined : this.restore(agent);
  }

  private findIn(infraEnv: InfraEnvRef, hostId: string): StoredHost | undefined {
    const stored = this.find(hostId, infraEnv.namespace);
    return stored?.record.infraEnvId === infraEnv.id ? stored : undefined;
  }

  private infraEnvIdOf(agent: KubeObject): string | undefined {
    const name = agent.metadata.labels?.[Label.InfraEnv];
    if (name === undefined) return undefined;
    const infraEnv = this.options.reader.get({
      ...Gvk.InfraEnv,
      namespace: agent.metadata.namespace ?? '',
      name,
    });
    const uid = infraEnv?.metadata['uid'];
    return typeof uid === 'string' ? uid : undefined;
  }

  private infraEnvRefOf(object: KubeObject): InfraEnvRef | undefined {
    if (object.metadata['deletionTimestamp'] !== undefined) return undefined;
    return {
      id: String(object.metadata['uid']),
      namespace: object.metadata.namespace ?? '',
      name: object.metadata.name,
    };
  }

  /**
   * Creates the host's Agent, or takes over one left by another InfraEnv (upstream's
   * CreateAgentCR): name = host id, the InfraEnv's namespace, labels and owner, not approved
   * unless the InfraEnv auto-approves, bound when the InfraEnv names a cluster. The finalizer and
   * annotations go in the same write, so a new host costs one create and one status write.
   */
  private async ensureAgent(
    infraEnv: KubeObject,
    stored: StoredHost,
    cluster: ClusterRecord | undefined,
  ): Promise<void> {
    const record = stored.record;
    const ref = { ...Gvk.Agent, namespace: record.namespace, name: record.id };
    const spec = (infraEnv['spec'] ?? {}) as Record<string, unknown>;
    const agentLabels = (spec['agentLabels'] ?? {}) as Record<string, string>;
    const autoApprove =
      (spec['agentApproval'] as Record<string, unknown> | undefined)?.['autoApprove'] === true;
    const clusterRef = spec['clusterRef'] as { name?: string; namespace?: string } | undefined;
    const clusterDeployment =
      cluster !== undefined
        ? { name: cluster.clusterDeploymentName, namespace: cluster.namespace }
        : clusterRef?.name !== undefined
          ? { name: clusterRef.name, namespace: clusterRef.namespace ?? record.namespace }
          : undefined;
    let existing = this.options.reader.get(ref);
    const labels = { [Label.InfraEnv]: infraEnv.metadata.name, ...agentLabels };
    const infraEnvUid = String(infraEnv.metadata['uid']);
    const ownerReferences = [
      {
        apiVersion: infraEnv.apiVersion,
        kind: infraEnv.kind,
        name: infraEnv.metadata.name,
        uid: infraEnvUid,
      },
    ];
    const freshSpec = {
      approved: autoApprove,
      role: '',
      ...(clusterDeployment !== undefined && { clusterDeploymentName: clusterDeployment }),
    };
    if (existing === undefined) {
      const draft: KubeObject = {
        ...Gvk.Agent,
        metadata: { name: record.id, namespace: record.namespace, labels, ownerReferences },
        spec: freshSpec,
      };
      const metadata = projectMetadata({
        agent: draft,
        host: { ...stored, record: { ...record, approved: autoApprove } },
        infraEnv: { name: infraEnv.metadata.name, uid: infraEnvUid },
        progressStages: [],
        syncError: undefined,
        now: this.now(),
      });
      try {
        // Created without a read first: a new host is the common case, and the cache that
        // says "absent" may only lag (then the API server's 409 says so).
        await this.options.writer.create({ ...draft, metadata });
        if (autoApprove) this.update(record.id, (h) => ({ ...h, approved: true }));
        this.options.enqueueAgent({ namespace: record.namespace, name: record.id });
        return;
      } catch (err) {
        if (!(err instanceof KubeApiError && err.status === 409)) throw err;
      }
      existing = await this.options.writer.getLive(ref);
      if (existing === undefined) {
        this.options.enqueueAgent({ namespace: record.namespace, name: record.id });
        return;
      }
    }
    const owned = ((existing.metadata['ownerReferences'] ?? []) as { uid?: string }[]).some(
      (o) => o.uid === infraEnvUid,
    );
    if (owned && existing.metadata.labels?.[Label.InfraEnv] === infraEnv.metadata.name) return;
    // Registered from another InfraEnv: the Agent's spec starts afresh (upstream resets it).
    try {
      await this.options.writer.update({
        ...existing,
        metadata: {
          ...existing.metadata,
          labels,
          ownerReferences,
          finalizers: [
            ...new Set([...((existing.metadata['finalizers'] ?? []) as string[]), AGENT_FINALIZER]),
          ],
        },
        spec: freshSpec,
      });
    } catch (err) {
      if (err instanceof KubeApiError && err.code === KubeApiErrorCode.Conflict) {
        this.options.enqueueAgent({ namespace: record.namespace, name: record.id });
        return;
      }
      throw err;
    }
    this.options.enqueueAgent({ namespace: record.namespace, name: record.id });
  }
}
