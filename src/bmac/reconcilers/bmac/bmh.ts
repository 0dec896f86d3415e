/**
 * reconcileBMH (assisted.md §1.4): point the host at the discovery image. In the converged flow
 * the Bare Metal Operator boots the PreprovisioningImage, so the BMAC only sets the custom deploy
 * method once that image carries the InfraEnv's ISO; otherwise the BMAC disables inspection and
 * cleaning and sets the InfraEnv's ISO as a live-iso image on the host, itself.
 */
import {
  ASSISTED_DEPLOY_METHOD,
  BmhAnnotation,
  Gvk,
  INFRAENV_AVAILABLE_REASON,
  INFRAENV_IMAGE_COOLDOWN_MS,
} from '../../api.js';
import { annotationsOf, asKube, findCondition, hasAnnotation, view } from './model.js';
import type { BareMetalHost, InfraEnv, PreprovisioningImage } from './model.js';
import { CONTINUE, STOP, requeueAfter } from './pass.js';
import type { Pass, StepResult } from './pass.js';

/** The provisioning states in which the BMO takes a new image without deprovisioning first. */
const IMAGE_READY_STATES: readonly string[] = ['ready', 'available'];

/** What the InfraEnv's image means for this host now. */
export type ImageVerdict =
  /** The InfraEnv has no ISO yet: the pass ends; the InfraEnv watch wakes the host later. */
  | { readonly kind: 'no-image' }
  /** The host already boots the InfraEnv's ISO. */
  | { readonly kind: 'in-sync' }
  /** The ISO is younger than the cool-down: look again after `remainingMs`. */
  | { readonly kind: 'cooling-down'; readonly remainingMs: number }
  | { readonly kind: 'update' };

/** shouldReconcileBMH: whether the host's image should follow the InfraEnv's ISO now. */
export function imageVerdict(bmh: BareMetalHost, infraEnv: InfraEnv, now: number): ImageVerdict {
  const url = infraEnv.status?.isoDownloadURL ?? '';
  if (url === '') return { kind: 'no-image' };
  if (bmh.spec?.image?.url === url) return { kind: 'in-sync' };
  const created = Date.parse(infraEnv.status?.createdTime ?? '');
  const ready = (Number.isNaN(created) ? 0 : created) + INFRAENV_IMAGE_COOLDOWN_MS;
  if (ready > now) return { kind: 'cooling-down', remainingMs: ready - now };
  return { kind: 'update' };
}

function ppiReady(pass: Pass): boolean {
  const { bmh, ctx } = pass;
  const object = ctx.reader.get({
    ...Gvk.PreprovisioningImage,
    name: bmh.metadata.name,
    ...(bmh.metadata.namespace !== undefined && { namespace: bmh.metadata.namespace }),
  });
  if (object === undefined) {
    ctx.log.debug('PreprovisioningImage not found, waiting for it to be created');
    return false;
  }
  const ready = findCondition(view<PreprovisioningImage>(object).status?.conditions, 'Ready');
  if (ready?.status !== 'True' || ready.reason !== INFRAENV_AVAILABLE_REASON) {
    ctx.log.info(
      { reason: ready?.reason, status: ready?.status },
      'PreprovisioningImage is not ready with the InfraEnv image, waiting',
    );
    return false;
  }
  return true;
}

/** Sets the host's boot media from its InfraEnv. */
export function reconcileBmh(pass: Pass): StepResult {
  const { bmh, infraEnv, ctx } = pass;
  if (infraEnv === undefined) return STOP;
  // A detached host is the user's to manage until they remove the annotation.
  if (hasAnnotation(bmh.metadata, BmhAnnotation.Detached)) return CONTINUE;
  const spec = (bmh.spec ??= {});

  if (pass.converged) {
    if (spec.customDeploy?.method !== ASSISTED_DEPLOY_METHOD) {
      if (!ppiReady(pass)) return STOP;
      spec.customDeploy = { method: ASSISTED_DEPLOY_METHOD };
      ctx.log.info(`set customDeploy method ${ASSISTED_DEPLOY_METHOD}`);
    }
    return CONTINUE;
  }

  const annotations = annotationsOf(bmh.metadata);
  annotations[BmhAnnotation.Inspect] ??= 'disabled';
  // Automated cleaning needs the ironic agent, which only the converged flow boots.
  if (spec.automatedCleaningMode !== 'disabled') spec.automatedCleaningMode = 'disabled';

  const verdict = imageVerdict(bmh, infraEnv, ctx.clock.now());
  switch (verdict.kind) {
    case 'no-image':
      ctx.log.debug('InfraEnv has no image URL yet');
      return STOP;
    case 'in-sync':
      return CONTINUE;
    case 'cooling-down':
      ctx.log.debug({ remainingMs: verdict.remainingMs }, 'InfraEnv image is too recent');
      return requeueAfter(verdict.remainingMs);
    case 'update':
      break;
  }

  // Out of ready/available, clearing the image makes the BMO deprovision first, so that Ironic
  // fetches the new ISO instead of booting the one it cached.
  if (!IMAGE_READY_STATES.includes(bmh.status?.provisioning?.state ?? '')) {
    if (spec.image) ctx.log.info('clearing the image so that Ironic fetches it again');
    delete spec.image;
    return STOP;
  }
  spec.image = { url: infraEnv.status?.isoDownloadURL ?? '', format: 'live-iso' };
  spec.online = true;
  ctx.events.event(
    asKube(bmh),
    'Normal',
    'ImageSet',
    `Booting the discovery ISO of InfraEnv ${infraEnv.metadata.name}`,
  );
  return STOP;
}
