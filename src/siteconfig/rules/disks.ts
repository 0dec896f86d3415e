/**
 * Disks: root device hints and the data partitions of a single-node cluster. The checks that
 * need the rendered MachineConfigs (partition layouts per role, disk encryption) run when the
 * site is compiled (extra-manifests/cluster-checks.ts) and are listed here with their notes.
 */
import { quote } from '../../shared/errors.js';
import { defineRule } from './rule.js';
import type { NodeCheck, Rule } from './rule.js';
import { checkInteger, NUMBER_NOT_INTEGER } from './structure.js';

export const SNO_ONLY_DISK_PARTITION = defineRule({
  code: 'SNO_ONLY_FIELD',
  on: '`diskPartition`',
  severity: 'error',
  upstream: 'refuses',
  why: 'the partitions go into the MachineConfig of the single node; multi-node clusters use `ignitionConfigOverride`',
});

export const DISK_PARTITION_INVALID = defineRule({
  code: 'DISK_PARTITION_INVALID',
  severity: 'error',
  upstream: 'refuses start, size and mount point; takes the rest',
  why: 'a device that is no path, overlapping partitions, an unknown file system or a mount point that makes no systemd unit name fail Ignition on first boot',
});

export const DISK_PARTITION_CONFLICT = defineRule({
  code: 'DISK_PARTITION_CONFLICT',
  severity: 'error',
  upstream: 'takes it',
  why: 'one MachineConfig per role carries the layout (kept; see the note below)',
  reportedBy: 'extra-manifests/cluster-checks.ts',
});

export const DISK_ENCRYPTION_INVALID = defineRule({
  code: 'DISK_ENCRYPTION_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'the rendered MachineConfig breaks the root disk: the node does not come up',
  reportedBy: 'extra-manifests/cluster-checks.ts',
});

export const CPUSET_INVALID = defineRule({
  code: 'CPUSET_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'the rendered MachineConfig breaks CRI-O: the node does not come up',
  reportedBy: 'extra-manifests/cluster-checks.ts',
});

export const DISK_ENCRYPTION_FIELD_IGNORED = defineRule({
  code: 'DISK_ENCRYPTION_FIELD_IGNORED',
  severity: 'warning',
  upstream: 'takes it',
  why: 'the field does not apply to the encryption type chosen (Tang servers with type tpm2): it has no effect',
  reportedBy: 'extra-manifests/cluster-checks.ts',
});

/** The rules of this topic, for the registry. */
export const diskRules: readonly Rule[] = [
  SNO_ONLY_DISK_PARTITION,
  DISK_PARTITION_INVALID,
  DISK_PARTITION_CONFLICT,
  DISK_ENCRYPTION_INVALID,
  DISK_ENCRYPTION_FIELD_IGNORED,
  CPUSET_INVALID,
];

/** rootDeviceHints.minSizeGigabytes: a whole number. */
export const rootDeviceHintsCheck: NodeCheck = {
  scope: 'node',
  name: 'root device hints',
  rules: [NUMBER_NOT_INTEGER],
  check(c, { node, at, sound }) {
    const minSize = node.rootDeviceHints?.minSizeGigabytes;
    if (minSize !== undefined && sound('rootDeviceHints', 'minSizeGigabytes'))
      checkInteger(c, [...at, 'rootDeviceHints', 'minSizeGigabytes'], minSize);
  },
};

/** diskPartition: single-node clusters only; partitions after the OS, sized, mounted by path. */
export const diskPartitionCheck: NodeCheck = {
  scope: 'node',
  name: 'disk partitions',
  rules: [SNO_ONLY_DISK_PARTITION, DISK_PARTITION_INVALID, NUMBER_NOT_INTEGER],
  check(c, { node, at, sound }) {
    if (!sound('diskPartition')) return;
    if ((node.diskPartition ?? []).length > 0 && !c.isSno && c.topologySound) {
      c.report(
        SNO_ONLY_DISK_PARTITION,
        [...at, 'diskPartition'],
        'diskPartition is only supported on single-node clusters',
        'remove diskPartition, or use ignitionConfigOverride on multi-node clusters',
        'key',
      );
    }
    (node.diskPartition ?? []).forEach((disk, d) => {
      disk.partitions.forEach((part, p) => {
        const path = [...at, 'diskPartition', d, 'partitions', p];
        checkInteger(c, [...path, 'start'], part.start);
        checkInteger(c, [...path, 'size'], part.size);
        if (part.start < 25000)
          c.report(
            DISK_PARTITION_INVALID,
            [...path, 'start'],
            `partition start ${String(part.start)} MiB overlaps the OS`,
            'start data partitions at 25000 MiB or later',
          );
        if (part.size <= 0)
          c.report(
            DISK_PARTITION_INVALID,
            [...path, 'size'],
            `partition size ${String(part.size)} must be positive`,
            'give the size in MiB',
          );
        if (!part.mount_point.startsWith('/'))
          c.report(
            DISK_PARTITION_INVALID,
            [...path, 'mount_point'],
            `mount_point ${quote(part.mount_point)} is not an absolute path`,
            'write it as /var/imageregistry',
          );
      });
    });
  },
};
