/**
 * The Agent as the projection of its host record: the labels, annotations and status the agent
 * controller writes (assisted.md §3.2, §8), and the way back, a record rebuilt from an Agent
 * after a restart. SiteForge keeps in one annotation of its own what upstream keeps only in
 * its database (times, step results, ids), so the record survives a restart whole.
 */
import type { KubeObject } from '../../kube/index.js';
import { Label } from '../../bmac/api.js';
import { HostRole, HostStage, HostStatus } from '../model.js';
import type { HostProgress, HostRecord, ValidationsInfo, WireInventory } from '../model.js';
import {
  computeAgentConditions,
  mergeConditions,
  type AgentConditionEntry,
  type SpecSyncError,
} from './agent-conditions.js';
import { AGENT_FINALIZER, AgentAnnotation, HostKind, INVENTORY_VERSION } from './agent-names.js';
import { jsonEqual } from './deep-equal.js';
import { agentInventory, inventoryLabels } from './inventory.js';

type Json = Record<string, unknown>;

/** A host record with what the Agent shows beyond it. */
export interface StoredHost {
  readonly record: HostRecord;
  readonly kind: HostKind;
  /** `disconnected` once a step failed with the media-disconnected exit code. */
  readonly mediaStatus?: 'connected' | 'disconnected';
  /** The agent's clock (Unix seconds) at its last check-in; kept in memory only. */
  readonly agentTimestamp?: number;
  /** The agent's log collection (`logs_state`); kept in memory only. */
  readonly logsState?: 'requested' | 'collecting' | 'completed' | 'timeout' | '';
}

/** What the host-record annotation holds: the record minus what the Agent shows elsewhere. */
type PersistedHost = Omit<
  HostRecord,
  'id' | 'namespace' | 'infraEnvName' | 'inventory' | 'validationsInfo' | 'approved'
> & { readonly kind: HostKind; readonly mediaStatus?: 'connected' | 'disconnected' };

/** The annotation's JSON for a host; `checkedInAt` is as of this write (never a reason to write). */
export function persistHost(host: StoredHost): string {
  const record: Record<string, unknown> = {
    ...host.record,
    kind: host.kind,
    ...(host.mediaStatus !== undefined && { mediaStatus: host.mediaStatus }),
  };
  delete record['id'];
  delete record['namespace'];
  delete record['infraEnvName'];
  delete record['inventory'];
  delete record['validationsInfo'];
  // The Agent's spec.approved says it (and is always synced): approving costs no metadata write.
  delete record['approved'];
  const persisted = record as PersistedHost;
  return JSON.stringify(persisted);
}

/** Whether two host-record annotations differ in more than the check-in time. */
export function persistedDiffers(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return false;
  if (a === undefined || b === undefined) return true;
  try {
    const pa = JSON.parse(a) as Json;
    const pb = JSON.parse(b) as Json;
    delete pa['checkedInAt'];
    delete pb['checkedInAt'];
    return !jsonEqual(pa, pb);
  } catch {
    return true;
  }
}

/** RFC 3339 to the second, as a metav1.Time is written. */
export function kubeTime(iso: string | undefined): string | undefined {
  if (iso === undefined || iso === '') return undefined;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return undefined;
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** What the Agent's status and metadata are made from, besides the host. */
export interface ProjectionInput {
  readonly agent: KubeObject;
  readonly host: StoredHost | undefined;
  /** The InfraEnv that owns the Agent, when it exists. */
  readonly infraEnv?: { readonly name: string; readonly uid: string };
  /** The stages of the host's role (`status.progress.progressStages`). */
  readonly progressStages: readonly HostStage[];
  readonly syncError: SpecSyncError | undefined;
  readonly now: Date;
  /** Events and logs URLs, when the agent API can sign them. */
  readonly eventsURL?: string;
  readonly logsURL?: string;
}

function spec(agent: KubeObject): Json {
  return (agent['spec'] ?? {}) as Json;
}

function statusOf(agent: KubeObject): Json {
  return (agent['status'] ?? {}) as Json;
}

/** `spec.clusterDeploymentName` of an Agent, when set. */
export function clusterReference(
  agent: KubeObject,
): { readonly namespace: string; readonly name: string } | undefined {
  const ref = spec(agent)['clusterDeploymentName'] as Json | undefined | null;
  const name = ref?.['name'];
  if (typeof name !== 'string' || name === '') return undefined;
  const namespace = ref?.['namespace'];
  return {
    name,
    namespace:
      typeof namespace === 'string' && namespace !== ''
        ? namespace
        : (agent.metadata.namespace ?? ''),
  };
}

function ntpSources(host: HostRecord): Json[] | undefined {
  const ntp = host.stepResults.ntp as Json | undefined;
  const sources = ntp?.['ntp_sources'];
  if (!Array.isArray(sources)) return undefined;
  return (sources as Json[]).map((s) => {
    const out: Json = {};
    if (typeof s['source_name'] === 'string') out['sourceName'] = s['source_name'];
    if (typeof s['source_state'] === 'string') out['sourceState'] = s['source_state'];
    return out;
  });
}

function progressStatus(progress: HostProgress, stages: readonly HostStage[]): Json {
  if (progress.currentStage === undefined) return {};
  const out: Json = { currentStage: progress.currentStage };
  if (progress.progressInfo !== undefined && progress.progressInfo !== '')
    out['progressInfo'] = progress.progressInfo;
  if (progress.installationPercentage !== undefined)
    out['installationPercentage'] = Math.trunc(progress.installationPercentage);
  const started = kubeTime(progress.stageStartedAt);
  if (started !== undefined) out['stageStartTime'] = started;
  const updated = kubeTime(progress.stageUpdatedAt);
  if (updated !== undefined) out['stageUpdateTime'] = updated;
  if (stages.length > 0) out['progressStages'] = [...stages];
  return out;
}

/** The Agent's `status` for `input` (fields SiteForge does not own are kept). */
export function projectStatus(input: ProjectionInput): Json {
  const before = statusOf(input.agent);
  const approved = spec(input.agent)['approved'] === true;
  const conditions = mergeConditions(
    (before['conditions'] ?? []) as AgentConditionEntry[],
    computeAgentConditions(input.host?.record, approved, input.syncError),
    kubeTime(input.now.toISOString()) ?? input.now.toISOString(),
  );
  const host = input.host?.record;
  if (host === undefined) {
    const debugInfo = { ...((before['debugInfo'] ?? {}) as Json), state: '', stateInfo: '' };
    return { ...before, debugInfo, conditions };
  }
  const status: Json = {};
  for (const key of ['csrStatus', 'deprovision_info'])
    if (before[key] !== undefined) status[key] = before[key];
  status['bootstrap'] = host.bootstrap;
  status['role'] =
    host.role === HostRole.AutoAssign && host.suggestedRole !== HostRole.AutoAssign
      ? host.suggestedRole
      : host.role;
  const beforeDebug = (before['debugInfo'] ?? {}) as Json;
  const debugInfo: Json = { state: host.status, stateInfo: host.statusInfo };
  const eventsURL = input.eventsURL ?? beforeDebug['eventsURL'];
  const logsURL = input.logsURL ?? beforeDebug['logsURL'];
  if (typeof eventsURL === 'string' && eventsURL !== '') debugInfo['eventsURL'] = eventsURL;
  if (typeof logsURL === 'string' && logsURL !== '') debugInfo['logsURL'] = logsURL;
  status['debugInfo'] = debugInfo;
  if (host.installationDiskId !== undefined && host.installationDiskId !== '')
    status['installation_disk_id'] = host.installationDiskId;
  status['kind'] = input.host?.kind ?? HostKind.Host;
  if (Object.keys(host.validationsInfo).length > 0)
    status['validationsInfo'] = host.validationsInfo;
  else if (before['validationsInfo'] !== undefined)
    status['validationsInfo'] = before['validationsInfo'];
  status['progress'] = progressStatus(host.progress, input.progressStages);
  if (host.inventory !== undefined) status['inventory'] = agentInventory(host.inventory);
  const ntp = ntpSources(host);
  if (ntp !== undefined) status['ntpSources'] = ntp;
  status['conditions'] = conditions;
  return status;
}

/** The Agent's metadata for `input`: finalizer, owner, labels and annotations. */
export function projectMetadata(input: ProjectionInput): KubeObject['metadata'] {
  const { agent } = input;
  const metadata = agent.metadata;
  const deleting = metadata['deletionTimestamp'] !== undefined;
  const finalizers = [...((metadata['finalizers'] ?? []) as string[])];
  if (!deleting && !finalizers.includes(AGENT_FINALIZER)) finalizers.push(AGENT_FINALIZER);
  const labels: Record<string, string> = { ...(metadata.labels ?? {}) };
  const annotations: Record<string, string> = { ...(metadata.annotations ?? {}) };
  let ownerReferences = (metadata['ownerReferences'] ?? []) as Json[];
  const host = input.host?.record;
  if (input.infraEnv !== undefined) {
    labels[Label.InfraEnv] = input.infraEnv.name;
    const uid = input.infraEnv.uid;
    if (!ownerReferences.some((o) => o['kind'] === 'InfraEnv' && o['uid'] === uid))
      ownerReferences = [
        ...ownerReferences,
        {
          apiVersion: 'agent-install.openshift.io/v1beta1',
          kind: 'InfraEnv',
          name: input.infraEnv.name,
          uid,
        },
      ];
  }
  if (host !== undefined && input.host !== undefined) {
    annotations[AgentAnnotation.State] = host.status;
    annotations[AgentAnnotation.Role] = host.role;
    annotations[AgentAnnotation.Inventory] =
      host.inventory === undefined ? '' : JSON.stringify(host.inventory);
    annotations[AgentAnnotation.ValidationsInfo] =
      Object.keys(host.validationsInfo).length === 0 ? '' : JSON.stringify(host.validationsInfo);
    annotations[AgentAnnotation.CurrentStage] = host.progress.currentStage ?? '';
    const persisted = persistHost(input.host);
    if (persistedDiffers(annotations[AgentAnnotation.HostRecord], persisted))
      annotations[AgentAnnotation.HostRecord] = persisted;
    if (host.inventory !== undefined) {
      annotations[AgentAnnotation.InventoryVersion] = INVENTORY_VERSION;
      Object.assign(
        labels,
        inventoryLabels(host.inventory, clusterReference(agent)?.namespace ?? ''),
      );
    }
  }
  return {
    ...metadata,
    labels,
    annotations,
    finalizers,
    ...(ownerReferences.length > 0 && { ownerReferences }),
  };
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const STATUSES = new Set<string>(Object.values(HostStatus));
const STAGES = new Set<string>(Object.values(HostStage));

/**
 * The host record of an Agent, rebuilt after a restart (upstream's restoreHostByAgent, plus
 * SiteForge's host-record annotation when present). `checkedInAt` is `now`: the agent's last
 * check-in before the restart is not known to be recent, but counting from the restart gives
 * every agent the full disconnection timeout to check in again instead of marking the whole
 * fleet disconnected at once.
 */
export function restoreHost(
  agent: KubeObject,
  infraEnvId: string,
  clusterId: string | undefined,
  now: Date,
): StoredHost | undefined {
  const annotations = agent.metadata.annotations ?? {};
  const infraEnvName = agent.metadata.labels?.[Label.InfraEnv];
  if (infraEnvName === undefined) return undefined;
  const status = statusOf(agent);
  const inventory = parseJson(annotations[AgentAnnotation.Inventory]) as WireInventory | undefined;
  // The annotation first: it keeps the key order it was written with (the status comes back
  // re-encoded), so the restored record projects to the very same annotation.
  const validationsInfo =
    (parseJson(annotations[AgentAnnotation.ValidationsInfo]) as ValidationsInfo | undefined) ??
    (status['validationsInfo'] as ValidationsInfo | undefined) ??
    {};
  const persisted = parseJson(annotations[AgentAnnotation.HostRecord]) as
    Partial<PersistedHost> | undefined;
  const nowIso = now.toISOString();
  const base = {
    id: agent.metadata.name,
    namespace: agent.metadata.namespace ?? '',
    infraEnvName,
    ...(inventory !== undefined && { inventory }),
    validationsInfo,
    checkedInAt: nowIso,
  };
  // The agent's clock is not known either: as for checkedInAt, the restart time stands in.
  const agentTimestamp = Math.floor(now.getTime() / 1000);
  // A usable host-record annotation (one a person or an older release wrote may lack fields).
  const persistedStatus = persisted?.status;
  if (persisted !== undefined && persistedStatus !== undefined && STATUSES.has(persistedStatus)) {
    const { kind, mediaStatus, ...rest } = persisted;
    const nowIso = now.toISOString();
    return {
      record: {
        statusInfo: '',
        statusUpdatedAt: nowIso,
        role: HostRole.AutoAssign,
        suggestedRole: HostRole.AutoAssign,
        bootstrap: false,
        registeredAt: nowIso,
        progress: {},
        stepResults: {},
        ...rest,
        approved: spec(agent)['approved'] === true,
        status: persistedStatus,
        ...base,
        infraEnvId,
      },
      kind: kind === HostKind.AddToExistingClusterHost ? kind : HostKind.Host,
      agentTimestamp,
      ...(mediaStatus !== undefined && { mediaStatus }),
    };
  }
  const stateAnnotation = annotations[AgentAnnotation.State];
  const state: HostStatus =
    stateAnnotation !== undefined && STATUSES.has(stateAnnotation)
      ? (stateAnnotation as HostStatus)
      : clusterId !== undefined
        ? HostStatus.Known
        : HostStatus.KnownUnbound;
  const roleAnnotation = annotations[AgentAnnotation.Role] ?? '';
  const role = (Object.values(HostRole) as string[]).includes(roleAnnotation)
    ? (roleAnnotation as HostRole)
    : HostRole.AutoAssign;
  const stage = annotations[AgentAnnotation.CurrentStage];
  const creation = agent.metadata['creationTimestamp'];
  const created = typeof creation === 'string' ? creation : nowIso;
  const record: HostRecord = {
    ...base,
    infraEnvId,
    ...(clusterId !== undefined && { clusterId }),
    ...(clusterReference(agent) !== undefined && {
      clusterDeploymentName: clusterReference(agent)?.name,
    }),
    status: state,
    statusInfo: '',
    statusUpdatedAt: created,
    role,
    suggestedRole: role,
    bootstrap: status['bootstrap'] === true,
    approved: spec(agent)['approved'] === true,
    registeredAt: created,
    progress: stage !== undefined && STAGES.has(stage) ? { currentStage: stage as HostStage } : {},
    stepResults: {},
  };
  const kind =
    status['kind'] === HostKind.AddToExistingClusterHost
      ? HostKind.AddToExistingClusterHost
      : HostKind.Host;
  return { record, kind, agentTimestamp };
}
