/**
 * Checks of the cluster fields that only extra manifests consume: `nodes[].cpuset`,
 * `nodes[].diskPartition` and `diskEncryption`. siteconfig-generator checked a few of these
 * while reading YAML (partition start and size) and silently ignored the rest (Tang without
 * servers); here every one is reported at its field. cpuset on a multi-node cluster is ignored
 * as upstream ignores it (validation warns about it).
 */
import { quote } from '../../shared/errors.js';
import { cleanMountPoint, partitionLabel } from './template-data.js';
import type { SiteConfigCluster } from '../types.js';
import {
  CPUSET_INVALID,
  DISK_ENCRYPTION_FIELD_IGNORED,
  DISK_ENCRYPTION_INVALID,
  DISK_PARTITION_CONFLICT,
  DISK_PARTITION_INVALID,
  SNO_ONLY_DISK_PARTITION,
} from '../rules/disks.js';
import type { Rule } from '../rules/rule.js';

/** A problem at a path relative to the cluster object. */
export interface FieldProblem {
  readonly path: readonly (string | number)[];
  readonly severity: 'error' | 'warning';
  readonly code: string;
  readonly message: string;
  readonly hint: string;
}

/** Partitions before this offset would overlap the RHCOS root filesystem. */
export const MIN_PARTITION_START_MIB = 25000;
const FILESYSTEMS = new Set(['xfs', 'ext4', 'vfat']);
const CPUSET_RE = /^[0-9]+([-,][0-9]+)*$/;
const MOUNT_POINT_RE = /^\/[A-Za-z0-9._/-]*$/;
const THUMBPRINT_RE = /^[A-Za-z0-9_-]+$/;
const PCR_LIST_RE = /^[0-9]+(,[0-9]+)*$/;

/** Number of control-plane nodes (role master or unset). */
export function masterCount(cluster: SiteConfigCluster): number {
  return cluster.nodes.filter((node) => (node.role ?? 'master') === 'master').length;
}

/** Checks cpuset, diskPartition and diskEncryption; returns the problems found. */
export function checkExtraManifestFields(cluster: SiteConfigCluster): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (
    cluster.diskEncryption === undefined &&
    cluster.nodes.every((node) => node.cpuset === undefined && node.diskPartition === undefined)
  )
    return problems;
  const report = (path: (string | number)[], rule: Rule, message: string, hint: string): void => {
    problems.push({ path, severity: rule.severity, code: rule.code, message, hint });
  };
  const sno = masterCount(cluster) === 1;
  const partitionsByRole = new Map<string, { node: number; json: string }>();

  cluster.nodes.forEach((node, n) => {
    const at = ['nodes', n];
    if (node.cpuset !== undefined) {
      if (!CPUSET_RE.test(node.cpuset))
        report(
          [...at, 'cpuset'],
          CPUSET_INVALID,
          `cpuset ${quote(node.cpuset)} is not a CPU list`,
          'write CPU ids and ranges, e.g. 0-1,52-53',
        );
      // On a multi-node cluster cpuset is ignored, as upstream ignores it; validation warns.
    }
    const disks = node.diskPartition ?? [];
    if (disks.length === 0) return;
    if (!sno) {
      report(
        [...at, 'diskPartition'],
        SNO_ONLY_DISK_PARTITION,
        'diskPartition is only supported on single-node clusters',
        'remove diskPartition, or partition through ignitionConfigOverride on multi-node clusters',
      );
      return;
    }
    const labels = new Map<string, string>();
    disks.forEach((disk, d) => {
      const diskAt = [...at, 'diskPartition', d];
      if (!disk.device.startsWith('/'))
        report(
          [...diskAt, 'device'],
          DISK_PARTITION_INVALID,
          `device ${quote(disk.device)} is not a device path`,
          'name the disk by a stable path, e.g. /dev/disk/by-path/pci-0000:00:17.0-ata-1',
        );
      if (disk.partitions.length === 0)
        report(
          [...diskAt, 'partitions'],
          DISK_PARTITION_INVALID,
          `disk ${disk.device} has no partitions`,
          'list at least one partition, or remove the disk',
        );
      const ranges: { start: number; end: number; p: number }[] = [];
      disk.partitions.forEach((part, p) => {
        const partAt = [...diskAt, 'partitions', p];
        if (!Number.isInteger(part.start) || part.start < MIN_PARTITION_START_MIB)
          report(
            [...partAt, 'start'],
            DISK_PARTITION_INVALID,
            `partition start ${String(part.start)} MiB is below ${String(MIN_PARTITION_START_MIB)} MiB, inside the space the root filesystem needs`,
            `start data partitions at ${String(MIN_PARTITION_START_MIB)} MiB or later`,
          );
        if (!Number.isInteger(part.size) || part.size <= 0)
          report(
            [...partAt, 'size'],
            DISK_PARTITION_INVALID,
            `partition size ${String(part.size)} MiB must be a positive whole number`,
            'give the size in MiB, e.g. 100000',
          );
        const mount = part.mount_point;
        const clean = cleanMountPoint(mount);
        if (mount === '' || !clean.startsWith('/') || clean === '/')
          report(
            [...partAt, 'mount_point'],
            DISK_PARTITION_INVALID,
            `mount_point ${quote(mount)} is not an absolute path below /`,
            'write it as /var/imageregistry',
          );
        else if (!MOUNT_POINT_RE.test(clean))
          report(
            [...partAt, 'mount_point'],
            DISK_PARTITION_INVALID,
            `mount_point ${quote(mount)} has characters outside letters, digits, ".", "_", "-" and "/"`,
            'rename the mount point; it becomes a partition label and a systemd unit name',
          );
        else {
          const label = partitionLabel(mount);
          const other = labels.get(label);
          if (other !== undefined)
            report(
              [...partAt, 'mount_point'],
              DISK_PARTITION_INVALID,
              `mount_point ${quote(mount)} gives the partition label ${quote(label)}, like ${quote(other)}`,
              'use distinct mount points; "/" and "-" both become "-" in labels',
            );
          labels.set(label, mount);
        }
        const format = part.file_system_format ?? 'xfs';
        if (!FILESYSTEMS.has(format))
          report(
            [...partAt, 'file_system_format'],
            DISK_PARTITION_INVALID,
            `file_system_format ${quote(format)} is not supported`,
            `use one of ${[...FILESYSTEMS].join(', ')}`,
          );
        if (Number.isInteger(part.start) && Number.isInteger(part.size) && part.size > 0)
          ranges.push({ start: part.start, end: part.start + part.size, p });
      });
      ranges.sort((a, b) => a.start - b.start);
      for (let k = 1; k < ranges.length; k++) {
        const [before, after] = [ranges[k - 1]!, ranges[k]!];
        if (after.start < before.end)
          report(
            [...diskAt, 'partitions', after.p, 'start'],
            DISK_PARTITION_INVALID,
            `partition ${String(after.p)} starts at ${String(after.start)} MiB, inside partition ${String(before.p)} (${String(before.start)}–${String(before.end)} MiB)`,
            'make the partitions of a disk follow each other',
          );
      }
    });
    // One MachineConfig per role carries the layout: nodes of a role must agree on it.
    const role = node.role ?? 'master';
    const json = JSON.stringify(disks);
    const first = partitionsByRole.get(role);
    if (!first) partitionsByRole.set(role, { node: n, json });
    else if (first.json !== json)
      report(
        [...at, 'diskPartition'],
        DISK_PARTITION_CONFLICT,
        `nodes ${String(first.node)} and ${String(n)} (role ${role}) ask for different disk layouts, but one MachineConfig per role carries the layout`,
        'give every node of a role the same diskPartition',
      );
  });

  const encryption = cluster.diskEncryption;
  if (encryption) {
    const type = encryption.type ?? 'none';
    const at = ['diskEncryption'];
    if (type === 'nbde') {
      const tang = encryption.tang ?? [];
      if (tang.length === 0)
        report(
          [...at, 'tang'],
          DISK_ENCRYPTION_INVALID,
          'diskEncryption type nbde needs at least one Tang server',
          'list the servers under diskEncryption.tang with url and thumbprint',
        );
      tang.forEach((server, t) => {
        if (!isHttpUrl(server.url))
          report(
            [...at, 'tang', t, 'url'],
            DISK_ENCRYPTION_INVALID,
            `Tang url ${quote(server.url)} is not an http(s) URL`,
            'write it as http://tang.example.com:7500',
          );
        if (!THUMBPRINT_RE.test(server.thumbprint))
          report(
            [...at, 'tang', t, 'thumbprint'],
            DISK_ENCRYPTION_INVALID,
            `Tang thumbprint ${quote(server.thumbprint)} is not a key thumbprint`,
            'print it on the Tang server with `tang-show-keys`',
          );
      });
    } else if ((encryption.tang ?? []).length > 0) {
      report(
        [...at, 'tang'],
        DISK_ENCRYPTION_FIELD_IGNORED,
        `diskEncryption.tang is ignored: the type is ${type}`,
        'set type: nbde to bind the root disk to Tang, or remove the servers',
      );
    }
    const pcrList = encryption.tpm2?.pcrList;
    if (type === 'tpm2' && pcrList !== undefined) {
      const ids = PCR_LIST_RE.test(pcrList) ? pcrList.split(',').map(Number) : undefined;
      if (!ids || ids.some((id) => id > 23))
        report(
          [...at, 'tpm2', 'pcrList'],
          DISK_ENCRYPTION_INVALID,
          `pcrList ${quote(pcrList)} is not a list of PCR numbers 0–23`,
          'write it as 1,7',
        );
    } else if (type !== 'tpm2' && encryption.tpm2 !== undefined) {
      report(
        [...at, 'tpm2'],
        DISK_ENCRYPTION_FIELD_IGNORED,
        `diskEncryption.tpm2 is ignored: the type is ${type}`,
        'set type: tpm2, or remove the tpm2 settings',
      );
    }
  }
  return problems;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
