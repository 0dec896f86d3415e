/**
 * handlePauseAndDetachBMHAnnotations (assisted.md §1.6): once a host is installed the hub lets go
 * of it — `detached` tells the BMO to stop managing it (converged: when BMO has provisioned it;
 * otherwise: when the agent reached a stage after which it reboots into the installed system) —
 * and, once BMO reports it detached, `paused` plus a `status` annotation keep its status across a
 * move to another hub. A host whose status is gone (restored elsewhere) is un-paused so that BMO
 * rebuilds its status from the annotation.
 */
import {
  AGENT_BOUND_CONDITION,
  ASSISTED_OWNER_VALUE,
  BmhAnnotation,
  UNBINDING_PENDING_USER_ACTION,
} from '../../api.js';
import { annotationsOf, asKube, findCondition, hasAnnotation, removeAnnotation } from './model.js';
import type { Agent, BareMetalHost } from './model.js';
import { CONTINUE } from './pass.js';
import type { Pass, StepResult } from './pass.js';

/** Agent install stages after which a non-converged host is detached. */
export const NON_CONVERGED_DETACH_STAGES: readonly string[] = [
  'Failed',
  'Rebooting',
  'Joined',
  'Done',
];

/** Whether the Agent waits for the user to boot it back into discovery after an unbind. */
export function isUnbindingPendingUserAction(agent: Agent | undefined): boolean {
  return (
    findCondition(agent?.status?.conditions, AGENT_BOUND_CONDITION)?.reason ===
    UNBINDING_PENDING_USER_ACTION
  );
}

/**
 * The detached annotation's value: the owner's name, or, when the host's Agent and node go with
 * it in the converged flow, BMO's instruction to wait for the BMAC before deleting.
 */
export function detachedValue(bmh: BareMetalHost, converged: boolean): string {
  return converged && hasAnnotation(bmh.metadata, BmhAnnotation.RemoveAgentAndNodeOnDelete)
    ? JSON.stringify({ deleteAction: 'delay' })
    : ASSISTED_OWNER_VALUE;
}

function ensureDetached(pass: Pass): void {
  const { bmh, ctx } = pass;
  const value = detachedValue(bmh, pass.converged);
  const annotations = annotationsOf(bmh.metadata);
  if (annotations[BmhAnnotation.Detached] === value) return;
  annotations[BmhAnnotation.Detached] = value;
  ctx.log.info('detached the host');
  ctx.events.event(
    asKube(bmh),
    'Normal',
    'Detached',
    'The host is installed: detached from the Bare Metal Operator',
  );
}

function ensurePaused(pass: Pass): void {
  const { bmh, ctx } = pass;
  // Only once BMO says detached: that operational status is what the status annotation keeps.
  if (bmh.status?.operationalStatus !== 'detached') return;
  const annotations = annotationsOf(bmh.metadata);
  annotations[BmhAnnotation.Status] = JSON.stringify(bmh.status);
  if (annotations[BmhAnnotation.Paused] !== ASSISTED_OWNER_VALUE) {
    annotations[BmhAnnotation.Paused] = ASSISTED_OWNER_VALUE;
    ctx.log.info('paused the host');
  }
}

/** Adds or removes `detached` and `paused`. Never ends the pass, as upstream. */
export function handleDetachAndPause(pass: Pass): StepResult {
  const { bmh, agent, ctx, converged } = pass;
  if (hasAnnotation(bmh.metadata, BmhAnnotation.AllowProvisionedHostManagement)) {
    if (converged && !hasAnnotation(bmh.metadata, BmhAnnotation.RemoveAgentAndNodeOnDelete)) {
      removeAnnotation(bmh.metadata, BmhAnnotation.Detached);
      removeAnnotation(bmh.metadata, BmhAnnotation.Paused);
      return CONTINUE;
    }
    const message = `${BmhAnnotation.AllowProvisionedHostManagement} needs the converged flow and no ${BmhAnnotation.RemoveAgentAndNodeOnDelete} annotation: ignored`;
    ctx.log.error(message);
    ctx.events.event(asKube(bmh), 'Warning', 'HostManagementNotAllowed', message);
  }

  const state = bmh.status?.provisioning?.state ?? '';
  const detach = converged
    ? state === 'provisioned'
    : NON_CONVERGED_DETACH_STAGES.includes(agent?.status?.progress?.currentStage ?? '');
  // Ironic must be able to reboot a host whose Agent waits to be booted back into discovery:
  // neither detached nor (unlike upstream, which still pauses it) paused, or BMO, paused with a
  // stale `detached` operational status, would never act on it again.
  if (detach && !isUnbindingPendingUserAction(agent)) {
    ensureDetached(pass);
    if (pass.pauseProvisionedBmhs) ensurePaused(pass);
  }

  if (
    pass.pauseProvisionedBmhs &&
    state === '' &&
    hasAnnotation(bmh.metadata, BmhAnnotation.Paused) &&
    hasAnnotation(bmh.metadata, BmhAnnotation.Status)
  ) {
    removeAnnotation(bmh.metadata, BmhAnnotation.Paused);
    ctx.log.info('un-paused the host so that the BMO restores its status');
  }
  return CONTINUE;
}
