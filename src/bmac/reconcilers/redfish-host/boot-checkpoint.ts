/**
 * Where a boot got to, kept on the BareMetalHost between bootFromIso's steps. The BMC shows most
 * of it (our image inserted, the power state), but not all: Dell applies a boot mode in a BIOS
 * job that powers the host on from its disk *before* the one-time CD boot is set, so "our image
 * inserted and the host on" alone could be taken for a finished boot. The step started last
 * tells the two apart.
 */
import { createHash } from 'node:crypto';
import type { KubeObject, ObjectRef } from '../../../kube/index.js';
import { BootStep } from '../../redfish/index.js';
import type { ObjectWriter } from '../../runtime/contract.js';

/**
 * Annotation on the BMH: `{"image":"<16 hex of the source URL's SHA-256>","step":"<BootStep>"}`.
 * An annotation, not status: the CRD's status schema has no room for it, and it is written
 * off the reconcile pass, between BMC requests.
 */
export const BOOT_PROGRESS_ANNOTATION = 'redfish.siteforge.io/boot-progress';

const ORDER: readonly BootStep[] = Object.values(BootStep);
const WRITE_ATTEMPTS = 5;

/** A short, stable name of an image source that tells nothing of its tokens. */
export function imageKey(sourceUrl: string): string {
  return createHash('sha256').update(sourceUrl).digest('hex').slice(0, 16);
}

/** The step recorded on `bmh` for `sourceUrl`, if any. */
export function recordedStep(bmh: KubeObject, sourceUrl: string): BootStep | undefined {
  const raw = bmh.metadata.annotations?.[BOOT_PROGRESS_ANNOTATION];
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as { image?: unknown; step?: unknown };
    if (value.image !== imageKey(sourceUrl)) return undefined;
    return ORDER.find((step) => step === value.step);
  } catch {
    return undefined;
  }
}

/**
 * What to do with a host whose slot holds our image, given the step recorded last and whether
 * the host is on: `done` (it booted; nothing is sent), or the step to resume bootFromIso at.
 * - Done: booted, whatever the power is now.
 * - PowerOn, or nothing recorded: on means booted; off resumes at the power-on.
 * - an earlier step: the host is not booted from the image yet, even if it is on (a BIOS job);
 *   resume at the boot override, which powers it off first.
 */
export function resumeAt(recorded: BootStep | undefined, on: boolean): 'done' | BootStep {
  if (recorded === BootStep.Done) return 'done';
  if (recorded === undefined || recorded === BootStep.PowerOn)
    return on ? 'done' : recorded === undefined ? BootStep.BootOverride : BootStep.PowerOn;
  return BootStep.BootOverride;
}

/**
 * Whether recording `next` over `recorded` could change what {@link resumeAt} decides: it tells
 * apart only nothing, the steps before the power-on, the power-on and done. A boot thus needs
 * three writes (its first step, PowerOn, Done), not one per step.
 */
export function changesResume(recorded: BootStep | undefined, next: BootStep): boolean {
  return recorded === undefined || resumeClass(recorded) !== resumeClass(next);
}

function resumeClass(step: BootStep): string {
  return step === BootStep.Done || step === BootStep.PowerOn ? step : 'before-power-on';
}

/**
 * Records `step` for `sourceUrl` on the BMH, retrying on conflicts. It starts from `known`, the
 * BMH as this process last wrote it, when given (a conflict then costs one read), else reads it.
 * @returns the BMH as written (the next step's `known`)
 * @throws when it cannot be written: the step's side effect must then not happen
 */
export async function writeStep(
  writer: ObjectWriter,
  ref: ObjectRef,
  sourceUrl: string,
  step: BootStep,
  known?: KubeObject,
): Promise<KubeObject> {
  const value = JSON.stringify({ image: imageKey(sourceUrl), step });
  let current = known;
  for (let attempt = 1; ; attempt++) {
    const bmh = current ?? (await writer.getLive(ref));
    current = undefined;
    if (!bmh) throw new Error(`${ref.name} is gone`);
    if (bmh.metadata.annotations?.[BOOT_PROGRESS_ANNOTATION] === value) return bmh;
    try {
      return await writer.update({
        ...bmh,
        metadata: {
          ...bmh.metadata,
          annotations: { ...bmh.metadata.annotations, [BOOT_PROGRESS_ANNOTATION]: value },
        },
      });
    } catch (error) {
      const conflict = (error as { status?: unknown }).status === 409;
      if (!conflict || attempt >= WRITE_ATTEMPTS) throw error;
    }
  }
}
