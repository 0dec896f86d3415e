/**
 * A discovery ISO as base ISO + overlay (assisted.md §6.2): the ignition payload over the
 * ignition embed area, the extra kernel arguments over each karg embed area, the rest of the
 * base untouched. Nothing of the base is copied; the overlay is named by its content hash, so
 * the same InfraEnv content always gives the same image.
 */
import { overlayOf } from '../../bmac/images/image-overlay.js';
import type { ImageOverlay, OverlayPart } from '../../bmac/images/image-overlay.js';
import { compressedCpio } from './cpio.js';
import type { CpioFile } from './cpio.js';
import { DiscoveryIgnitionError, ignitionPayload } from './ignition.js';
import type { EmbedAreas } from './iso9660.js';

/** What goes into a discovery ISO. */
export interface DiscoveryIsoContent {
  /** The discovery ignition (JSON text). */
  readonly ignition: string;
  /**
   * The minimal ISO's ramdisk files (static network): in the ramdisk area when the ISO has one,
   * else with config.ign in the ignition area.
   */
  readonly initrdFiles?: readonly CpioFile[];
  /** Kernel arguments appended to the ISO's defaults, in order. */
  readonly kernelArguments?: readonly string[];
}

/**
 * The overlay that turns a base ISO with `areas` into the discovery ISO of `content`.
 * @throws DiscoveryIgnitionError `content length (N) exceeds embed area size (M)` when the
 *   ignition or the kernel arguments do not fit
 */
export function discoveryOverlay(areas: EmbedAreas, content: DiscoveryIsoContent): ImageOverlay {
  const ramdiskFiles = content.initrdFiles ?? [];
  const inRamdisk = areas.ramdisk !== undefined && ramdiskFiles.length > 0;
  const payload = ignitionPayload(
    content.ignition,
    areas.ignition.length,
    inRamdisk ? [] : ramdiskFiles,
  );
  const parts: OverlayPart[] = [
    { offset: areas.ignition.offset, length: areas.ignition.length, bytes: payload },
  ];
  if (areas.ramdisk !== undefined && inRamdisk) {
    const ramdisk = compressedCpio(ramdiskFiles);
    if (ramdisk.length > areas.ramdisk.length)
      throw new DiscoveryIgnitionError(
        `content length (${String(ramdisk.length)}) exceeds embed area size (${String(areas.ramdisk.length)})`,
      );
    parts.push({ offset: areas.ramdisk.offset, length: areas.ramdisk.length, bytes: ramdisk });
  }
  const kargs = (content.kernelArguments ?? []).map((k) => k.trim()).filter((k) => k !== '');
  if (kargs.length > 0) {
    if (areas.kargs.length === 0)
      throw new DiscoveryIgnitionError('the base ISO has no kernel argument embed area');
    // From the newline ending the default arguments: " <args>\n", the area's '#'s after it.
    const bytes = Buffer.from(` ${kargs.join(' ')}\n`);
    for (const area of areas.kargs) {
      if (bytes.length > area.length)
        throw new DiscoveryIgnitionError(
          `content length (${String(bytes.length)}) exceeds embed area size (${String(area.length)})`,
        );
      parts.push({ offset: area.offset, length: bytes.length, bytes });
    }
  }
  return overlayOf(parts);
}

/** The kernel argument of the minimal ISO that points the live system at its rootfs. */
export function rootfsUrlKernelArgument(rootfsUrl: string): string {
  return `coreos.live.rootfs_url="${rootfsUrl}"`;
}
