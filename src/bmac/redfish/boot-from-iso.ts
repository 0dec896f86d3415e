/**
 * Boot a host from an ISO through virtual media: power off, eject, boot mode, insert, one-time
 * boot from CD, power on. Ironic's `prepare_ramdisk` sets the boot mode after the insert; here it
 * comes before, because on Dell a boot-mode change is a BIOS job that takes a power-on, and a
 * host powered on with the ISO inserted boots it wherever the firmware lists virtual media
 * first: a whole ISO boot (POST, download, a discovery agent starting) only to be cut off and
 * booted again once the one-time CD boot is set. With no media in, that restart boots the disk.
 * The workflow writes a
 * checkpoint *before* each side effect, so a controller that crashed anywhere can call it again
 * with the last checkpoint and it neither inserts twice nor power-cycles the host needlessly.
 */
import type { BootMode, RedfishClient } from './redfish-client.js';

/** The steps, in order. */
export const BootStep = {
  PowerOff: 'PowerOff',
  Eject: 'Eject',
  BootMode: 'BootMode',
  Insert: 'Insert',
  BootOverride: 'BootOverride',
  PowerOn: 'PowerOn',
  Done: 'Done',
} as const;
export type BootStep = (typeof BootStep)[keyof typeof BootStep];

const ORDER: readonly BootStep[] = Object.values(BootStep);

/**
 * Where a workflow got to: the step that was *started* last, for which image. Persist it (a
 * BareMetalHost annotation or status field) and pass it back on the next call.
 */
export interface BootProgress {
  readonly imageUrl: string;
  readonly step: BootStep;
}

/** Options of {@link bootFromIso}. */
export interface BootFromIsoOptions {
  /** @default 'UEFI' (BareMetalHost spec.bootMode default) */
  readonly bootMode?: BootMode;
  /** The last checkpoint of an earlier call. @default - none: start from the beginning */
  readonly progress?: BootProgress;
  /**
   * Persists a checkpoint; awaited before the step's side effect. If it throws, the workflow
   * stops there (nothing is done that the caller could not record).
   * @default - checkpoints are not kept
   */
  readonly checkpoint?: (progress: BootProgress) => Promise<void> | void;
}

/** What {@link bootFromIso} did. */
export interface BootFromIsoResult {
  /** The steps that made a change, in order. */
  readonly performed: readonly BootStep[];
  readonly progress: BootProgress;
}

/**
 * Makes the host boot `imageUrl` once, from its virtual CD. Idempotent and resumable:
 * - steps before the checkpoint are not redone (they were complete when it was written);
 * - the checkpoint's own step is redone only if the BMC shows it undone: an interrupted
 *   insert whose image shows inserted is not sent again, an interrupted power-on of a host
 *   that is on is not sent again;
 * - a checkpoint for another image starts over.
 * Before the checkpointed insert, a slot that shows the image is ejected anyway: Dell reports
 * `Inserted` for a while after an eject (ironic `fix-redfish-vmedia-stale-insert-skip`).
 */
export async function bootFromIso(
  client: RedfishClient,
  imageUrl: string,
  options: BootFromIsoOptions = {},
): Promise<BootFromIsoResult> {
  const resumeAt =
    options.progress?.imageUrl === imageUrl ? ORDER.indexOf(options.progress.step) : 0;
  const performed: BootStep[] = [];
  let progress: BootProgress | undefined = options.progress;
  const begin = async (step: BootStep): Promise<boolean> => {
    if (ORDER.indexOf(step) < resumeAt) return false;
    if (progress?.imageUrl !== imageUrl || progress.step !== step) {
      progress = { imageUrl, step };
      await options.checkpoint?.(progress);
    }
    return true;
  };
  const resuming = (step: BootStep): boolean =>
    options.progress?.imageUrl === imageUrl && options.progress.step === step;

  if (progress !== undefined && resumeAt === ORDER.indexOf(BootStep.Done))
    return { performed, progress };
  await client.discover();

  if (await begin(BootStep.PowerOff)) {
    const system = await client.getSystem();
    if (system.powerState !== 'Off') {
      await client.setPower('ForceOff');
      performed.push(BootStep.PowerOff);
    }
  } else if (ORDER.indexOf(BootStep.PowerOn) > resumeAt) {
    // Resumed after the power-off: the host must still be off before the media changes.
    const system = await client.getSystem();
    if (system.powerState !== 'Off') {
      await client.setPower('ForceOff');
      performed.push(BootStep.PowerOff);
    }
  }

  if (await begin(BootStep.Eject)) {
    const slots = await client.getMediaSlots();
    if (slots.some((s) => s.inserted)) {
      await client.ejectMedia();
      performed.push(BootStep.Eject);
    }
  }

  if (await begin(BootStep.BootMode)) {
    // Reads back when in force; a Dell BIOS job restarts the host for it and powers it off.
    if (await client.setBootMode(options.bootMode ?? 'UEFI')) performed.push(BootStep.BootMode);
  }

  if (await begin(BootStep.Insert)) {
    const slots = await client.getMediaSlots();
    const done = resuming(BootStep.Insert) && slots.some((s) => s.inserted && s.image === imageUrl);
    if (!done && slots.some((s) => s.inserted)) {
      // Someone put media back since the eject; the insert would be refused.
      await client.ejectMedia();
      performed.push(BootStep.Eject);
    }
    if (!done) {
      await client.insertMedia(imageUrl);
      performed.push(BootStep.Insert);
    }
  }

  if (await begin(BootStep.BootOverride)) {
    await client.setBootOverride({
      target: 'Cd',
      enabled: 'Once',
      mode: options.bootMode ?? 'UEFI',
    });
    performed.push(BootStep.BootOverride);
  }

  if (await begin(BootStep.PowerOn)) {
    const system = await client.getSystem();
    const on = system.powerState === 'On' || system.powerState === 'PoweringOn';
    if (!(resuming(BootStep.PowerOn) && on)) {
      await client.setPower('On');
      performed.push(BootStep.PowerOn);
    }
  }

  const done = { imageUrl, step: BootStep.Done };
  await options.checkpoint?.(done);
  return { performed, progress: done };
}
