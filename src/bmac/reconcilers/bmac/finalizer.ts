/**
 * The BareMetalHost finalizer `bmac.agent-install.openshift.io/deprovision` (assisted.md §8):
 * on every host that names an InfraEnv, so that deleting the host gives the BMAC a last word.
 * Usually that is only to let go (remove detached/paused). In the converged flow, with
 * `remove-agent-and-node-on-delete`, the host leaves its cluster cleanly first: its node is
 * drained on the spoke (bounded by the user's drain-timeout), BMO deprovisions and cleans it,
 * and its Agent is deleted.
 */
import { BmacAnnotation, BmhAnnotation, DrainStatus, Finalizer, Gvk, Label } from '../../api.js';
import { objectName } from '../../../kube/index.js';
import { annotationsOf, asKube, hasAnnotation, removeAnnotation, view } from './model.js';
import type { Agent, BareMetalHost, ClusterDeployment } from './model.js';
import { spokeClientFor } from './day2.js';
import { parseGoDuration } from './go-duration.js';
import { CONTINUE, STOP, requeueAfter } from './pass.js';
import type { Pass, StepResult } from './pass.js';

/** How long one drain attempt may take, and how long to wait before the next. */
export const DRAIN_ATTEMPT_MS = 20_000;
/** How often to look whether the BMO has started deleting (deprovisioning) the host. */
export const DEPROVISION_POLL_MS = 10_000;

/** Adds the backup label to a host that names an existing InfraEnv. */
export function ensureBackupLabel(bmh: BareMetalHost): void {
  const labels = (bmh.metadata.labels ??= {});
  labels[Label.Backup] ??= 'true';
}

function removeFinalizer(bmh: BareMetalHost): void {
  bmh.metadata.finalizers = (bmh.metadata.finalizers ?? []).filter((f) => f !== Finalizer.Bmac);
}

/** Whether the drain has run past the user's drain-timeout. @throws on a malformed annotation */
function drainTimedOut(bmh: BareMetalHost, now: number): boolean {
  const timeout = bmh.metadata.annotations?.[BmacAnnotation.DrainTimeout];
  const started = bmh.metadata.annotations?.[BmacAnnotation.DrainStartedAt];
  if (timeout === undefined || started === undefined) return false;
  const timeoutMs = parseGoDuration(timeout);
  const startedMs = Date.parse(started);
  if (Number.isNaN(startedMs))
    throw new Error(`parsing time ${JSON.stringify(started)} as RFC 3339: cannot parse`);
  return now - startedMs >= timeoutMs;
}

/** The node name of an Agent: the hostname it was given, else the one it reported. */
function nodeName(agent: Agent): string {
  const given = agent.spec?.hostname;
  return given !== undefined && given !== '' ? given : (agent.status?.inventory?.hostname ?? '');
}

/** handleDrain: drains the Agent's node on the spoke, keeping count in the drain annotations. */
async function handleDrain(pass: Pass, agent: Agent): Promise<StepResult> {
  const { bmh, ctx } = pass;
  const annotations = annotationsOf(bmh.metadata);
  const now = ctx.clock.now();
  let timedOut: boolean;
  try {
    timedOut = drainTimedOut(bmh, now);
  } catch (err) {
    const message = `failed to check node drain timeout: ${(err as Error).message}`;
    ctx.log.error(message);
    annotations[BmacAnnotation.DrainStatus] = message;
    ctx.events.event(asKube(bmh), 'Warning', 'DrainTimeoutInvalid', message);
    return STOP;
  }
  const status = annotations[BmacAnnotation.DrainStatus];
  if (status === DrainStatus.Succeeded || status === DrainStatus.TimedOut) return CONTINUE;
  if (timedOut) {
    ctx.log.warn('timed out draining the node, deprovisioning all the same');
    annotations[BmacAnnotation.DrainStatus] = DrainStatus.TimedOut;
    return CONTINUE;
  }
  annotations[BmacAnnotation.DrainStartedAt] ??= new Date(Math.floor(now / 1000) * 1000)
    .toISOString()
    .replace('.000Z', 'Z');

  const ref = agent.spec?.clusterDeploymentName;
  if (!ref) return CONTINUE;
  const node = nodeName(agent);
  let result: 'drained' | 'pending';
  try {
    const cdObject = ctx.reader.get({ ...Gvk.ClusterDeployment, ...ref });
    const cd = cdObject && view<ClusterDeployment>(cdObject);
    const spoke = await spokeClientFor(pass, ref, cd);
    ctx.log.info({ node }, 'draining the node');
    result = await spoke.drainNode(node, { timeoutMs: DRAIN_ATTEMPT_MS });
  } catch (err) {
    annotations[BmacAnnotation.DrainStatus] = `failed to drain node: ${(err as Error).message}`;
    throw err;
  }
  if (result === 'pending') {
    annotations[BmacAnnotation.DrainStatus] = DrainStatus.InProgress;
    return requeueAfter(DRAIN_ATTEMPT_MS);
  }
  annotations[BmacAnnotation.DrainStatus] = DrainStatus.Succeeded;
  ctx.events.event(asKube(bmh), 'Normal', 'NodeDrained', `Drained node ${node}`);
  return CONTINUE;
}

/**
 * handleBMHFinalizer. A host without the InfraEnv label is not the BMAC's: its finalizer goes and
 * the pass ends. A live host gets the finalizer. A deleting host is let go, after the converged
 * clean-up its annotation asks for.
 */
export async function handleFinalizer(pass: Pass): Promise<StepResult> {
  const { bmh, agent, ctx } = pass;
  if (bmh.metadata.labels?.[Label.InfraEnv] === undefined) {
    if (bmh.metadata.finalizers?.includes(Finalizer.Bmac)) removeFinalizer(bmh);
    return STOP;
  }
  if (bmh.metadata.deletionTimestamp === undefined) {
    if (bmh.metadata.finalizers?.includes(Finalizer.Bmac)) return CONTINUE;
    (bmh.metadata.finalizers ??= []).push(Finalizer.Bmac);
    // The finalizer is stored before anything else happens (the update wakes the next pass).
    return STOP;
  }

  const removeAgent =
    pass.converged && hasAnnotation(bmh.metadata, BmhAnnotation.RemoveAgentAndNodeOnDelete);
  const letGo = (): void => {
    if (removeAgent) removeAnnotation(bmh.metadata, BmhAnnotation.Detached);
    removeAnnotation(bmh.metadata, BmhAnnotation.Paused);
  };
  if (!bmh.metadata.finalizers?.includes(Finalizer.Bmac)) {
    letGo();
    return STOP;
  }
  ctx.log.info('handling BareMetalHost deletion');
  if (agent === undefined) {
    letGo();
    removeFinalizer(bmh);
    return STOP;
  }

  if (removeAgent) {
    if (agent.spec?.clusterDeploymentName) {
      const drained = await handleDrain(pass, agent);
      if (drained.stop) return drained;
      // configureBMHForCleaning: BMO may act on the host again, and cleans its disks.
      removeAnnotation(bmh.metadata, BmhAnnotation.Detached);
      removeAnnotation(bmh.metadata, BmhAnnotation.Paused);
      const spec = (bmh.spec ??= {});
      if (spec.automatedCleaningMode !== 'metadata') spec.automatedCleaningMode = 'metadata';
      if (bmh.status?.provisioning?.state !== 'deleting') {
        ctx.log.info('waiting for the BareMetalHost to deprovision');
        return requeueAfter(DEPROVISION_POLL_MS);
      }
    }
    await ctx.writer.delete({
      ...Gvk.Agent,
      name: agent.metadata.name,
      namespace: agent.metadata.namespace ?? '',
    });
    pass.agentDeleted = true;
    ctx.events.event(
      asKube(bmh),
      'Normal',
      'AgentDeleted',
      `Deleted Agent ${objectName(asKube(agent))}`,
    );
  }
  ctx.log.info(`removing finalizer ${Finalizer.Bmac}`);
  removeFinalizer(bmh);
  return STOP;
}
