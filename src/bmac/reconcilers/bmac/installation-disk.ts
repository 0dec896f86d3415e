/**
 * The installation disk from a BareMetalHost's rootDeviceHints (assisted.md §1.5): the disks
 * OpenShift's hints support, matched the way BMO hands them to Ironic (every given hint must
 * hold), among the disks the agent found eligible. A multipath device is preferred, since its
 * member paths match the same hints. Hints that match nothing give `/dev/not-found-by-hints`,
 * never "any disk": the install then stops with an error instead of wiping the wrong drive.
 */
import { DISK_NOT_FOUND_BY_HINTS } from '../../api.js';
import type { AgentDisk, RootDeviceHints } from './model.js';

const BYTES_PER_GB = 1_000_000_000;

function matches(disk: AgentDisk, hints: RootDeviceHints): boolean {
  const driveType = (disk.driveType ?? '').toUpperCase();
  if (hints.deviceName && hints.deviceName !== disk.path && hints.deviceName !== disk.byPath)
    return false;
  if (hints.hctl && hints.hctl !== disk.hctl) return false;
  if (hints.model && !(disk.model ?? '').includes(hints.model)) return false;
  if (hints.vendor && !(disk.vendor ?? '').includes(hints.vendor)) return false;
  if (hints.serialNumber && hints.serialNumber !== disk.serial) return false;
  if (hints.minSizeGigabytes) {
    const sizeGb = Math.floor((disk.sizeBytes ?? 0) / BYTES_PER_GB);
    if (sizeGb < hints.minSizeGigabytes) return false;
  }
  if (hints.wwn && hints.wwn !== disk.wwn) return false;
  // wwnWithExtension and wwnVendorExtension: the agent's inventory does not report them.
  if (hints.rotational !== undefined && hints.rotational !== (driveType === 'HDD')) return false;
  return true;
}

/**
 * The id of the disk `hints` choose among `disks`, `/dev/not-found-by-hints` when none, or
 * undefined when there are no hints.
 */
export function installationDiskId(
  disks: readonly AgentDisk[] | undefined,
  hints: RootDeviceHints | undefined,
): string | undefined {
  if (hints === undefined) return undefined;
  const acceptable = (disks ?? []).filter(
    (disk) => disk.installationEligibility?.eligible === true && matches(disk, hints),
  );
  const chosen =
    acceptable.find((disk) => (disk.driveType ?? '').toLowerCase() === 'multipath') ??
    acceptable[0];
  return chosen === undefined ? DISK_NOT_FOUND_BY_HINTS : (chosen.id ?? '');
}
