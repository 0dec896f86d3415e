/**
 * The Agent controller (assisted-service's ctl/agent_controller.go): keeps each Agent and its
 * host record in step. A pass rebuilds the record from the Agent when the process has none
 * (restart), applies the Agent spec to it (SpecSynced), and writes the Agent's projection back —
 * metadata (finalizer, labels, annotations, owner, auto-approval) with one update and status
 * (conditions of assisted.md §3.2, inventory, progress, validations) with one status update,
 * each only when it differs from what the cache holds. Every change of a record the agent API
 * makes arrives here as this Agent's key, so bursts of agent calls collapse into one write.
 */
import { Gvk, Label } from '../../bmac/api.js';
import type {
  Controller,
  ObjectReader,
  ReconcileContext,
  ReconcileResult,
  Request,
} from '../../bmac/runtime/contract.js';
import type { KubeObject } from '../../kube/index.js';
import type { SpecSyncError } from './agent-conditions.js';
import { projectMetadata, projectStatus } from './agent-projection.js';
import { AGENT_FINALIZER } from './agent-names.js';
import { syncAgentSpec } from './agent-spec-sync.js';
import { jsonEqual } from './deep-equal.js';
import type { HostService } from './host-service.js';

/** The controller's name, as upstream's. */
export const AGENT_CONTROLLER_NAME = 'agent-controller';

/** Wait before looking again after a backend error (upstream's defaultRequeueAfterOnError). */
const REQUEUE_ON_ERROR_MS = 10_000;
/** Wait for the cache to show an Agent that the API server already has. */
const CACHE_LAG_REQUEUE_MS = 1_000;

type Json = Record<string, unknown>;

/** Options of the Agent controller. */
export interface AgentControllerOptions {
  readonly hosts: HostService;
  /**
   * Events URL of a bound host (`debugInfo.eventsURL`).
   * @default made from the InfraEnv's `status.debugInfo.eventsURL` (same base and token)
   */
  readonly eventsURL?: (hostId: string, infraEnvId: string) => string | undefined;
  /** Signed logs URL of a host whose logs were uploaded (`debugInfo.logsURL`). */
  readonly logsURL?: (hostId: string, clusterId: string) => string | undefined;
}

function agentsOfInfraEnv(object: KubeObject, reader: ObjectReader): readonly Request[] {
  return reader
    .list(Gvk.Agent, {
      ...(object.metadata.namespace !== undefined && { namespace: object.metadata.namespace }),
      labels: { [Label.InfraEnv]: object.metadata.name },
    })
    .map((a) => ({ namespace: a.metadata.namespace ?? '', name: a.metadata.name }));
}

/**
 * The Agents naming a ClusterDeployment, among those of its namespace (ZTP puts a cluster's
 * InfraEnv and Agents there); an Agent elsewhere still binds on its own next pass.
 */
function agentsOfDeployment(object: KubeObject, reader: ObjectReader): readonly Request[] {
  const namespace = object.metadata.namespace ?? '';
  return reader
    .list(Gvk.Agent, { namespace })
    .filter((a) => {
      const ref = ((a['spec'] ?? {}) as Json)['clusterDeploymentName'] as Json | undefined;
      return (
        ref?.['name'] === object.metadata.name && (ref['namespace'] ?? namespace) === namespace
      );
    })
    .map((a) => ({ namespace, name: a.metadata.name }));
}

/**
 * A bound host's events URL (upstream's `…/v2/events?host_id=<id>&api_key=<InfraEnv token>`),
 * made from the InfraEnv's own events URL, which carries the same base and token.
 */
export function hostEventsUrl(
  infraEnv: KubeObject | undefined,
  hostId: string,
): string | undefined {
  const status = (infraEnv?.['status'] ?? {}) as Json;
  const url = ((status['debugInfo'] ?? {}) as Json)['eventsURL'];
  if (typeof url !== 'string' || !/[?&]infra_env_id=[^&]*/.test(url)) return undefined;
  return url.replace(/([?&])infra_env_id=[^&]*/, `$1host_id=${encodeURIComponent(hostId)}`);
}

function finalizersOf(object: KubeObject): readonly string[] {
  return (object.metadata['finalizers'] ?? []) as string[];
}

function same(a: unknown, b: unknown): boolean {
  return jsonEqual(a, b);
}

/** The Agent controller. */
export function agentController(options: AgentControllerOptions): Controller {
  return {
    name: AGENT_CONTROLLER_NAME,
    for: Gvk.Agent,
    watches: [
      { gvk: Gvk.InfraEnv, map: agentsOfInfraEnv },
      { gvk: Gvk.ClusterDeployment, map: agentsOfDeployment },
    ],
    reconcile: (request, ctx) => reconcileAgent(options, request, ctx),
  };
}

async function reconcileAgent(
  options: AgentControllerOptions,
  request: Request,
  ctx: ReconcileContext,
): Promise<ReconcileResult> {
  const { hosts } = options;
  const ref = { ...Gvk.Agent, ...request, namespace: request.namespace ?? '' };
  const agent = ctx.reader.get(ref);
  const now = new Date(ctx.clock.now());
  if (agent === undefined) {
    const known = hosts.stored(request.name);
    if (known === undefined) return {};
    // A registration still writing the Agent (its create may wait long for the write budget):
    // the Agent is about to exist, and the record is all the host has until it does.
    if (hosts.registering(request.name)) return { requeueAfterMs: CACHE_LAG_REQUEUE_MS };
    // Just created by a registration, or deleted: only the API server can tell.
    if ((await ctx.writer.getLive(ref)) !== undefined)
      return { requeueAfterMs: CACHE_LAG_REQUEUE_MS };
    // The answer may predate a registration or an agent call served while it came (a step
    // reply the agent will not send again): a record changed meanwhile is kept and looked at
    // again, never replaced later by what the Agent held before.
    if (hosts.registering(request.name) || !hosts.deregister(request.name, known))
      return { requeueAfterMs: CACHE_LAG_REQUEUE_MS };
    return {};
  }

  if (agent.metadata['deletionTimestamp'] !== undefined) {
    if (!finalizersOf(agent).includes(AGENT_FINALIZER)) return {};
    // Upstream also cleans up the spoke Node/Machine of a bound, installed host here.
    hosts.deregister(request.name);
    await ctx.writer.update({
      ...agent,
      metadata: {
        ...agent.metadata,
        finalizers: finalizersOf(agent).filter((f) => f !== AGENT_FINALIZER),
      },
    });
    ctx.log.info({ host: request.name }, 'host deregistered, Agent finalizer removed');
    return {};
  }

  const infraEnvName = agent.metadata.labels?.[Label.InfraEnv];
  const infraEnvObject =
    infraEnvName === undefined
      ? undefined
      : ctx.reader.get({ ...Gvk.InfraEnv, namespace: ref.namespace, name: infraEnvName });
  const infraEnv =
    infraEnvObject === undefined
      ? undefined
      : { name: infraEnvObject.metadata.name, uid: String(infraEnvObject.metadata['uid']) };

  let syncError: SpecSyncError | undefined;
  const stored = hosts.stored(request.name) ?? hosts.restore(agent, now);
  let spec = (agent['spec'] ?? {}) as Json;
  if (stored === undefined) {
    syncError = {
      internal: true,
      message:
        infraEnvName === undefined
          ? 'Missing InfraEnv name label'
          : `InfraEnv with name '${infraEnvName}' is missing`,
    };
  } else {
    const infraEnvSpec = (infraEnvObject?.['spec'] ?? {}) as Json;
    const autoApprove = (infraEnvSpec['agentApproval'] as Json | undefined)?.['autoApprove'];
    if (spec['approved'] !== true && autoApprove === true) spec = { ...spec, approved: true };
    const result = syncAgentSpec({ ...agent, spec }, hosts, ctx.reader, now);
    syncError = result.error;
  }

  const host = hosts.stored(request.name);
  const record = host?.record;
  const projection = {
    agent: { ...agent, spec },
    host,
    ...(infraEnv !== undefined && { infraEnv }),
    progressStages: record === undefined ? [] : hosts.progressStagesOf(record),
    syncError,
    now,
    ...(record !== undefined && {
      eventsURL:
        record.clusterId === undefined
          ? undefined
          : (options.eventsURL?.(record.id, record.infraEnvId) ??
            hostEventsUrl(infraEnvObject, record.id)),
      logsURL:
        record.clusterId !== undefined && record.logsCollectedAt !== undefined
          ? options.logsURL?.(record.id, record.clusterId)
          : undefined,
    }),
  };
  const metadata = projectMetadata(projection);
  // Shutting down or no longer the leader: another replica writes from here on.
  if (ctx.signal.aborted) return {};
  let latest = agent;
  if (!same(metadata, agent.metadata) || !same(spec, agent['spec'])) {
    latest = await ctx.writer.update({ ...agent, metadata, spec });
  }
  const status = projectStatus({ ...projection, agent: { ...latest, spec } });
  if (!same(status, agent['status'] ?? {})) await ctx.writer.updateStatus({ ...latest, status });

  if (syncError?.internal === true) return { requeueAfterMs: REQUEUE_ON_ERROR_MS };
  return {};
}
