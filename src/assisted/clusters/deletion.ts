/**
 * The finalizers of install orchestration (assisted.md §8):
 * - `agentclusterinstall.agent-install.openshift.io/ai-deprovision` on the AgentClusterInstall:
 *   on deletion an installation in progress is cancelled, the cluster's Agents are let go —
 *   deleted when their InfraEnv belongs to this cluster (or is a late-binding pool and the
 *   ClusterDeployment preserves on delete), else unbound — and the cluster is forgotten;
 * - `clusterdeployments.agent-install.openshift.io/ai-deprovision` on the ClusterDeployment:
 *   on deletion its AgentClusterInstall is deleted, and the ClusterDeployment waits (10 s
 *   requeues) until it is gone.
 */
import type { ReconcileContext, ReconcileResult } from '../../bmac/runtime/contract.js';
import { KubeApiError } from '../../kube/index.js';
import type { ClusterStatus } from '../model.js';
import { ClusterEventText } from './cluster-events.js';
import type { ClusterEventLog } from './cluster-events.js';
import type { ClusterInstallations } from './cluster-installations.js';
import type { ClusterInstallation } from './cluster-record.js';
import { ClusterFinalizer, ClusterGvk, asKube, draft, view } from './kinds.js';
import type { Agent, AgentClusterInstall, ClusterDeployment, InfraEnv } from './kinds.js';
import type { ClusterMachine, HostDirectory } from './ports.js';

/** How long a deleting ClusterDeployment waits before looking for its ACI again. */
export const ACI_DELETION_POLL_MS = 10_000;

/** Statuses in which deleting the ACI cancels the installation first. */
const CANCEL_STATUSES: readonly ClusterStatus[] = [
  'installing',
  'preparing-for-installation',
  'installing-pending-user-action',
  'finalizing',
  'error',
];

/** What the finalizers need besides the reconcile context. */
export interface DeletionDeps {
  readonly hosts: HostDirectory;
  readonly machine: ClusterMachine;
  readonly installations: ClusterInstallations;
  readonly events: ClusterEventLog;
}

function without(list: readonly string[] | undefined, item: string): string[] {
  return (list ?? []).filter((f) => f !== item);
}

/** Whether unbinding this Agent should delete it (upstream shouldDeleteAgentOnUnbind). */
function shouldDeleteAgent(ctx: ReconcileContext, agent: Agent, cd: ClusterDeployment): boolean {
  const infraEnvName = agent.metadata.labels?.['infraenvs.agent-install.openshift.io'];
  if (infraEnvName === undefined) return false;
  const object = ctx.reader.get({
    ...ClusterGvk.InfraEnv,
    name: infraEnvName,
    namespace: agent.metadata.namespace ?? '',
  });
  if (object === undefined) return false;
  const ref = view<InfraEnv>(object).spec?.clusterRef;
  if (ref === undefined || ref === null) return cd.spec?.preserveOnDelete === true;
  return ref.name === cd.metadata.name && ref.namespace === cd.metadata.namespace;
}

async function unbindAgents(ctx: ReconcileContext, cd: ClusterDeployment): Promise<void> {
  for (const object of ctx.reader.list(ClusterGvk.Agent)) {
    const agent = draft<Agent>(object);
    const ref = agent.spec?.clusterDeploymentName;
    if (ref?.name !== cd.metadata.name || ref.namespace !== cd.metadata.namespace) continue;
    if (shouldDeleteAgent(ctx, agent, cd)) {
      ctx.log.info({ agent: agent.metadata.name }, 'deleting the agent of a deleted cluster');
      await ctx.writer.delete({
        ...ClusterGvk.Agent,
        name: agent.metadata.name,
        namespace: agent.metadata.namespace ?? '',
      });
    } else {
      ctx.log.info({ agent: agent.metadata.name }, 'unbinding the agent of a deleted cluster');
      agent.spec = { ...agent.spec, clusterDeploymentName: null };
      await ctx.writer.update(asKube(agent));
    }
  }
}

/**
 * The ACI finalizer: added to a live ACI (the pass ends: the write wakes the next one), run on a
 * deleting one. Undefined means carry on with the pass.
 * @param installation the cluster as this process knows it, or as the ACI persisted it
 */
export async function handleAciFinalizer(
  deps: DeletionDeps,
  ctx: ReconcileContext,
  aci: AgentClusterInstall,
  cd: ClusterDeployment,
  installation: ClusterInstallation | undefined,
): Promise<ReconcileResult | undefined> {
  const finalizers = aci.metadata.finalizers ?? [];
  if (aci.metadata.deletionTimestamp === undefined) {
    if (finalizers.includes(ClusterFinalizer.AgentClusterInstall)) return undefined;
    aci.metadata.finalizers = [...finalizers, ClusterFinalizer.AgentClusterInstall];
    await ctx.writer.update(asKube(aci));
    return {};
  }
  if (!finalizers.includes(ClusterFinalizer.AgentClusterInstall)) return {};
  const clusterId = cd.metadata.uid ?? '';
  const now = new Date(ctx.clock.now());
  if (installation !== undefined && CANCEL_STATUSES.includes(installation.record.status)) {
    ctx.log.info(
      { clusterId },
      'the AgentClusterInstall is being deleted: cancelling the installation',
    );
    const hosts = deps.hosts.hostsOf(clusterId);
    deps.machine.apply(
      installation.record,
      { type: 'CancelInstallation' },
      {
        hosts,
        validationsInfo: installation.record.validationsInfo,
        now,
        installerOutputReady: false,
      },
    );
    for (const host of hosts) await deps.hosts.apply(host.id, { type: 'CancelInstallation' }, now);
    deps.events.record(clusterId, ClusterEventText.installCancelled(), now);
  }
  await unbindAgents(ctx, cd);
  deps.installations.delete(clusterId);
  deps.events.record(clusterId, ClusterEventText.deregistered(), now);
  aci.metadata.finalizers = without(finalizers, ClusterFinalizer.AgentClusterInstall);
  try {
    await ctx.writer.update(asKube(aci));
  } catch (err) {
    if (!(err instanceof KubeApiError && err.status === 404)) throw err;
  }
  return {};
}

/**
 * The ClusterDeployment finalizer, with the same contract as {@link handleAciFinalizer}.
 * @param aci the ACI if it still exists
 */
export async function handleCdFinalizer(
  ctx: ReconcileContext,
  cd: ClusterDeployment,
  aci: AgentClusterInstall | undefined,
): Promise<ReconcileResult | undefined> {
  const finalizers = cd.metadata.finalizers ?? [];
  if (cd.metadata.deletionTimestamp === undefined) {
    if (finalizers.includes(ClusterFinalizer.ClusterDeployment)) return undefined;
    cd.metadata.finalizers = [...finalizers, ClusterFinalizer.ClusterDeployment];
    await ctx.writer.update(asKube(cd));
    return {};
  }
  if (!finalizers.includes(ClusterFinalizer.ClusterDeployment)) return {};
  if (aci !== undefined) {
    if (aci.metadata.deletionTimestamp === undefined)
      await ctx.writer.delete({
        ...ClusterGvk.AgentClusterInstall,
        name: aci.metadata.name,
        namespace: aci.metadata.namespace ?? '',
      });
    ctx.log.info(
      { aci: aci.metadata.name },
      'the ClusterDeployment waits for its AgentClusterInstall to be deleted',
    );
    return { requeueAfterMs: ACI_DELETION_POLL_MS };
  }
  cd.metadata.finalizers = without(finalizers, ClusterFinalizer.ClusterDeployment);
  await ctx.writer.update(asKube(cd));
  return {};
}
