/**
 * The Bare Metal Agent Controller (assisted-service's BMAC, assisted.md §1): keeps each
 * BareMetalHost that names an InfraEnv and the Agent that boots on it in step. One pass runs the
 * steps in upstream's order (§1.3) on copies of the host and its Agent, and writes each back once
 * at the end with its resourceVersion — even when a step failed, as upstream's deferred patch —
 * so a concurrent change (409) makes the whole pass run again on fresh objects.
 */
import { Gvk, Label } from '../../api.js';
import { KubeApiError, KubeApiErrorCode } from '../../../kube/index.js';
import type { KubeObject } from '../../../kube/index.js';
import type {
  Controller,
  ReconcileContext,
  ReconcileResult,
  Request,
} from '../../runtime/contract.js';
import { reconcileAgentSpec } from './agent-spec.js';
import { reconcileBmh } from './bmh.js';
import { ensureMcsCert, reconcileDay2SpokeBmh } from './day2.js';
import { handleDetachAndPause, isUnbindingPendingUserAction } from './detach-pause.js';
import { ensureBackupLabel, handleFinalizer } from './finalizer.js';
import { reconcileHardwareDetails } from './hardware-details.js';
import { asKube, draft, view } from './model.js';
import type { Agent, BareMetalHost, InfraEnv } from './model.js';
import { findAgent } from './pairing.js';
import { CONTINUE, STOP } from './pass.js';
import type { BmacOptions, Pass, StepResult } from './pass.js';
import { reconcileUnboundAgent } from './unbind.js';
import { bmacWatches } from './watches.js';

/** The controller's name, as upstream's. */
export const BMAC_NAME = 'baremetal-agent-controller';

type Step = (pass: Pass) => StepResult | Promise<StepResult>;

/** The steps after the finalizer, in upstream's order (assisted.md §1.3 items 4–11). */
function steps(converged: boolean): readonly Step[] {
  return [
    (pass) => (isUnbindingPendingUserAction(pass.agent) ? reconcileUnboundAgent(pass) : CONTINUE),
    handleDetachAndPause,
    reconcileBmh,
    reconcileAgentSpec,
    // In the converged flow Ironic inspects the host and fills its hardware details.
    ...(converged ? [] : [reconcileHardwareDetails]),
    ensureMcsCert,
    reconcileDay2SpokeBmh,
  ];
}

function findInfraEnv(ctx: ReconcileContext, bmh: BareMetalHost): InfraEnv | undefined {
  const name = bmh.metadata.labels?.[Label.InfraEnv];
  if (name === undefined) return undefined;
  const object = ctx.reader.get({ ...Gvk.InfraEnv, name, namespace: bmh.metadata.namespace ?? '' });
  return object && view<InfraEnv>(object);
}

async function runPass(pass: Pass, converged: boolean): Promise<StepResult> {
  if (pass.infraEnv !== undefined) ensureBackupLabel(pass.bmh);
  const finalizer = await handleFinalizer(pass);
  if (finalizer.stop) return finalizer;
  for (const step of steps(converged)) {
    // Shutting down or no longer the leader: no further step starts.
    if (pass.ctx.signal.aborted) return STOP;
    const result = await step(pass);
    if (result.stop) return result;
  }
  return CONTINUE;
}

/** Writes `edited` when it differs from `original`; an object deleted meanwhile is skipped. */
async function writeBack(
  ctx: ReconcileContext,
  original: KubeObject,
  edited: KubeObject,
): Promise<void> {
  if (JSON.stringify(original) === JSON.stringify(edited)) return;
  try {
    await ctx.writer.update(edited);
  } catch (err) {
    if (err instanceof KubeApiError && err.code === KubeApiErrorCode.NotFound) return;
    throw err;
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function isConflict(err: unknown): boolean {
  return err instanceof KubeApiError && err.code === KubeApiErrorCode.Conflict;
}

async function reconcileHost(
  options: BmacOptions,
  request: Request,
  ctx: ReconcileContext,
): Promise<ReconcileResult> {
  const original = ctx.reader.get({ ...Gvk.BareMetalHost, ...request });
  if (original === undefined) return {};
  const bmh = draft<BareMetalHost>(original);
  const agentOriginal = findAgent(ctx.reader, bmh);
  const agent = agentOriginal && draft<Agent>(asKube(agentOriginal));
  const pass: Pass = {
    bmh,
    agent,
    infraEnv: findInfraEnv(ctx, bmh),
    ctx,
    converged: options.converged,
    pauseProvisionedBmhs: options.pauseProvisionedBmhs ?? true,
    spokeClients: options.spokeClients,
    agentDeleted: false,
  };

  let result: StepResult = CONTINUE;
  let failure: Error | undefined;
  try {
    result = await runPass(pass, options.converged);
  } catch (err) {
    failure = asError(err);
  }
  // Another leader may be writing already: leave the objects to it.
  if (ctx.signal.aborted) {
    if (failure !== undefined) throw failure;
    return {};
  }
  // Agent first, then the host, as upstream's deferred patches run.
  const writes: [KubeObject, KubeObject][] = [];
  if (agentOriginal && agent && !pass.agentDeleted)
    writes.push([asKube(agentOriginal), asKube(agent)]);
  writes.push([original, asKube(bmh)]);
  for (const [before, after] of writes) {
    try {
      await writeBack(ctx, before, after);
    } catch (err) {
      // A conflict outranks a step's failure: the runtime retries a conflict at once.
      if (failure === undefined || isConflict(err)) failure = asError(err);
      else ctx.log.error({ err }, 'failed to write back after a failed step');
    }
  }
  if (failure !== undefined) throw failure;
  return result.requeueAfterMs === undefined ? {} : { requeueAfterMs: result.requeueAfterMs };
}

/** The BMAC as a Controller of BareMetalHosts. */
export function createBmacController(options: BmacOptions): Controller {
  return {
    name: BMAC_NAME,
    for: Gvk.BareMetalHost,
    watches: bmacWatches,
    reconcile: (request, ctx) => reconcileHost(options, request, ctx),
  };
}
