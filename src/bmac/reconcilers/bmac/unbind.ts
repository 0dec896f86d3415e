/**
 * reconcileUnboundAgent (assisted.md §1.7): an installed host removed from its cluster waits
 * (Agent Bound reason `UnbindingPendingUserAction`) to be booted back into discovery. The BMAC
 * gives the host back to the BMO: non-converged, by re-attaching it and clearing its image (the
 * next pass sets the ISO again); converged, by clearing customDeploy so BMO deprovisions it.
 */
import { BmhAnnotation } from '../../api.js';
import { asKube, hasAnnotation, removeAnnotation } from './model.js';
import { CONTINUE, STOP } from './pass.js';
import type { Pass, StepResult } from './pass.js';

/** Annotations that describe the host's life in the cluster it left. */
const CLUSTER_ANNOTATIONS = [
  BmhAnnotation.Detached,
  BmhAnnotation.Paused,
  BmhAnnotation.HardwareDetails,
  BmhAnnotation.SpokeBmhMachineCreated,
] as const;

/** Re-attaches an unbound host so that it boots discovery again. */
export function reconcileUnboundAgent(pass: Pass): StepResult {
  const { bmh, ctx } = pass;
  const spec = (bmh.spec ??= {});
  if (!pass.converged) {
    // Done already if not detached: this runs once per unbind.
    if (!hasAnnotation(bmh.metadata, BmhAnnotation.Detached)) return CONTINUE;
    for (const key of CLUSTER_ANNOTATIONS) removeAnnotation(bmh.metadata, key);
    delete spec.image;
    ctx.log.info('re-attached the unbound host and cleared its image');
    ctx.events.event(
      asKube(bmh),
      'Normal',
      'Unbound',
      'The Agent was unbound: booting discovery again',
    );
    return STOP;
  }

  const state = bmh.status?.provisioning?.state;
  // Deprovisioning (or about to be): this pass ends once the host is re-attached.
  const stop = state === 'provisioned' || state === 'deprovisioning';
  if (state === 'provisioned' && spec.customDeploy) {
    delete spec.customDeploy;
    ctx.log.info('deprovisioning the unbound host');
    ctx.events.event(
      asKube(bmh),
      'Normal',
      'Unbound',
      'The Agent was unbound: deprovisioning the host',
    );
  }
  if (hasAnnotation(bmh.metadata, BmhAnnotation.Detached)) {
    removeAnnotation(bmh.metadata, BmhAnnotation.Detached);
    removeAnnotation(bmh.metadata, BmhAnnotation.Paused);
  }
  removeAnnotation(bmh.metadata, BmhAnnotation.HardwareDetails);
  removeAnnotation(bmh.metadata, BmhAnnotation.SpokeBmhMachineCreated);
  return stop ? STOP : CONTINUE;
}
