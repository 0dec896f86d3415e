/**
 * Hardware requirements and disk eligibility (AS `data/default_hw_requirements.json`,
 * `internal/hardware/validator.go`, `internal/host/hostutil`; assisted.md §5.1).
 */
import type { ClusterRecord, HostRecord, HostRole, WireDisk, WireInventory } from '../model.js';
import { BYTES_PER_GB, preciseHumanizeBytes } from './format.js';
import { parseIp, parseCidr, cidrContains } from '../../shared/ip.js';

/** One role's requirements (`cluster-host-requirements-details`). */
export interface RoleRequirements {
  readonly cpuCores: number;
  readonly ramMib: number;
  readonly diskSizeGb: number;
  readonly installationDiskSpeedThresholdMs: number;
  /** Absent: no latency requirement (single-node, edge workers). */
  readonly networkLatencyThresholdMs?: number;
  /** Absent: no packet-loss requirement. */
  readonly packetLossPercentage?: number;
}

/** Requirements of every role for one OpenShift version. */
export interface HwRequirements {
  readonly master: RoleRequirements;
  readonly arbiter: RoleRequirements;
  readonly worker: RoleRequirements;
  /** The control-plane node of a single-node cluster. */
  readonly sno: RoleRequirements;
  /** aarch64 workers whose product name is an edge-worker product ("BlueField SoC"). */
  readonly edgeWorker: RoleRequirements;
}

/** A versioned entry of the requirements table (`HW_VALIDATOR_REQUIREMENTS`). */
export interface VersionedHwRequirements {
  /** `default`, or an OpenShift version. */
  readonly version: string;
  /** `min_version`: applies to this version and later. Otherwise an exact version. */
  readonly matchType?: 'exact' | 'min_version';
  readonly master?: Partial<RoleRequirements>;
  readonly arbiter?: Partial<RoleRequirements>;
  readonly worker?: Partial<RoleRequirements>;
  readonly sno?: Partial<RoleRequirements>;
  readonly edgeWorker?: Partial<RoleRequirements>;
}

/** assisted-service's default table: table 5.1, with single-node needing 4 cores from 4.22. */
export const DEFAULT_HW_REQUIREMENTS: readonly VersionedHwRequirements[] = [
  {
    version: 'default',
    master: {
      cpuCores: 4,
      ramMib: 16384,
      diskSizeGb: 100,
      installationDiskSpeedThresholdMs: 10,
      networkLatencyThresholdMs: 100,
      packetLossPercentage: 0,
    },
    arbiter: {
      cpuCores: 2,
      ramMib: 8192,
      diskSizeGb: 50,
      installationDiskSpeedThresholdMs: 10,
      networkLatencyThresholdMs: 1000,
      packetLossPercentage: 0,
    },
    worker: {
      cpuCores: 2,
      ramMib: 8192,
      diskSizeGb: 100,
      installationDiskSpeedThresholdMs: 10,
      networkLatencyThresholdMs: 1000,
      packetLossPercentage: 10,
    },
    sno: { cpuCores: 8, ramMib: 16384, diskSizeGb: 100, installationDiskSpeedThresholdMs: 10 },
    edgeWorker: { cpuCores: 2, ramMib: 8192, diskSizeGb: 15, installationDiskSpeedThresholdMs: 10 },
  },
  { version: '4.22', matchType: 'min_version', sno: { cpuCores: 4 } },
];

/** Tolerance below the official RAM minimum (VMs often report a little less). */
export const MEMORY_TOLERANCE_MIB = 100;

/** Product names (lower case, no spaces) of aarch64 edge workers (`EDGE_WORKERS_PRODUCT_NAMES`). */
export const EDGE_WORKER_PRODUCTS: readonly string[] = ['bluefieldsoc'];

/** Numeric `major.minor.patch` of a version, pre-release suffix dropped (`BaseVersion…`). */
function versionNumbers(version: string): number[] | undefined {
  const base = version.split('-')[0] ?? '';
  if (!/^\d+(\.\d+)*$/.test(base)) return undefined;
  return base.split('.').map(Number);
}

/** True when `version`'s base is at least `minimum` (false when either is not a version). */
export function versionAtLeast(version: string, minimum: string): boolean {
  const a = versionNumbers(version);
  const b = versionNumbers(minimum);
  if (!a || !b) return false;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}

function merge(base: RoleRequirements, partial?: Partial<RoleRequirements>): RoleRequirements {
  return { ...base, ...partial };
}

function complete(entry: VersionedHwRequirements, base?: HwRequirements): HwRequirements {
  const role = (name: keyof HwRequirements, fallback?: RoleRequirements): RoleRequirements => {
    const own = entry[name];
    const inherited = base?.[name] ?? fallback;
    if (inherited) return merge(inherited, own);
    if (own?.cpuCores === undefined || own.ramMib === undefined || own.diskSizeGb === undefined) {
      throw new Error(
        `requirements for ${name} role must be provided for version ${entry.version}`,
      );
    }
    return { installationDiskSpeedThresholdMs: 0, ...own } as RoleRequirements;
  };
  const worker = role('worker');
  return {
    master: role('master'),
    worker,
    arbiter: role('arbiter', base ? undefined : worker),
    sno: role('sno'),
    edgeWorker: role('edgeWorker', base ? undefined : worker),
  };
}

/**
 * The requirements for an OpenShift version: an exact entry, else the highest `min_version`
 * entry the version reaches, else `default` (entries are merged over `default`).
 */
export function hwRequirementsFor(
  openshiftVersion: string,
  table: readonly VersionedHwRequirements[] = DEFAULT_HW_REQUIREMENTS,
): HwRequirements {
  const known = resolved.get(table) ?? new Map<string, HwRequirements>();
  resolved.set(table, known);
  let hw = known.get(openshiftVersion);
  if (!hw) {
    hw = resolve(openshiftVersion, table);
    known.set(openshiftVersion, hw);
  }
  return hw;
}

/** Resolved requirements per table and version (a fleet has few versions). */
const resolved = new WeakMap<readonly VersionedHwRequirements[], Map<string, HwRequirements>>();

function resolve(
  openshiftVersion: string,
  table: readonly VersionedHwRequirements[],
): HwRequirements {
  const defaultEntry = table.find((e) => e.version === 'default' && e.matchType !== 'min_version');
  const base = defaultEntry ? complete(defaultEntry) : undefined;
  const exact = table.find(
    (e) => e.version === openshiftVersion && e.matchType !== 'min_version' && e !== defaultEntry,
  );
  if (exact) return complete(exact, base);
  const minEntries = table
    .filter((e) => e.matchType === 'min_version' && versionAtLeast(openshiftVersion, e.version))
    .sort((a, b) => (versionAtLeast(a.version, b.version) ? -1 : 1));
  const best = minEntries[0];
  if (best) return complete(best, base);
  if (base) return base;
  throw new Error(`requirements for version ${openshiftVersion} not found`);
}

/** The role a host will install as: its suggested role while its role is auto-assign. */
export function effectiveRole(host: Pick<HostRecord, 'role' | 'suggestedRole'>): HostRole {
  return host.role === 'auto-assign' ? host.suggestedRole : host.role;
}

/** True for a single-node cluster (one control-plane node). */
export function isSingleNode(cluster: Pick<ClusterRecord, 'controlPlaneAgents'>): boolean {
  return cluster.controlPlaneAgents === 1;
}

function isEdgeWorker(inventory: WireInventory | undefined): boolean {
  if (inventory?.cpu?.architecture !== 'aarch64') return false;
  const product = (inventory.system_vendor?.product_name ?? '').replace(/ /g, '').toLowerCase();
  return EDGE_WORKER_PRODUCTS.includes(product);
}

/**
 * The requirements a host must meet: by its effective role in its cluster (master of a
 * single-node cluster → `sno`; auto-assign → `worker`), or, unbound, the role with the smallest
 * disk requirement (`GetInfraEnvHostRequirements`).
 */
export function roleRequirements(
  host: Pick<HostRecord, 'role' | 'suggestedRole' | 'inventory'>,
  cluster: Pick<ClusterRecord, 'controlPlaneAgents'> | undefined,
  hw: HwRequirements,
): RoleRequirements {
  if (!cluster) {
    let pick = hw.worker;
    if (pick.diskSizeGb > hw.master.diskSizeGb) pick = hw.master;
    if (pick.diskSizeGb > hw.arbiter.diskSizeGb) pick = hw.arbiter;
    return pick;
  }
  const role = effectiveRole(host);
  if (role === 'master' || role === 'bootstrap') return isSingleNode(cluster) ? hw.sno : hw.master;
  if (role === 'arbiter') return hw.arbiter;
  if (isEdgeWorker(host.inventory)) return hw.edgeWorker;
  return hw.worker;
}

/** The "any role" minimum of has-min-cpu-cores / has-min-memory: min(master, worker). */
export function minimumRequirements(
  cluster: Pick<ClusterRecord, 'controlPlaneAgents'> | undefined,
  hw: HwRequirements,
): { readonly cpuCores: number; readonly ramMib: number } {
  const master = cluster && isSingleNode(cluster) ? hw.sno : hw.master;
  return {
    cpuCores: Math.min(master.cpuCores, hw.worker.cpuCores),
    ramMib: Math.min(master.ramMib, hw.worker.ramMib),
  };
}

// ---- Disks ------------------------------------------------------------------------------------

/** A disk as the agent sends it, with the fields validations read beyond `WireDisk`. */
export type InventoryDisk = WireDisk & {
  readonly iscsi?: { readonly host_ip_address?: string };
};

const TOO_SMALL = /^Disk is too small \(disk only has .*, but .* are required\)$/;
const SERVICE_REASONS: readonly RegExp[] = [
  TOO_SMALL,
  /^Drive type is .*, it must be one of .*\.$/,
  /^Multipath device has path of unsupported type\. It must be .*$/,
  /^Multipath device has paths of different types, but they must all be the same type$/,
  /^Disk is a member of multipath device .* and is not eligible for installation\. Use the multipath device instead\.$/,
  /^iSCSI host IP .* is the same as host IP, they must be different$/,
  /^Installation on multipath device is not possible due to errors on at least one iSCSI disk$/,
  /^Host IP address is not available$/,
  /^Cannot find the network interface behind the default route$/,
  /^Cannot parse iSCSI host IP .*: .*$/,
];

const ISCSI_MULTIPATH_ERRORS =
  'Installation on multipath device is not possible due to errors on at least one iSCSI disk';

/** Drive types a host may install on (`getValidDeviceStorageTypes`). */
export function validDriveTypes(architecture: string, openshiftVersion: string): string[] {
  const types = ['HDD', 'SSD', 'Multipath'];
  if (versionAtLeast(openshiftVersion, '4.14.0')) types.push('RAID');
  if (versionAtLeast(openshiftVersion, '4.15.0')) types.push('iSCSI');
  if (architecture === 's390x') types.push('FC', 'ECKD (ESE)', 'ECKD', 'FBA');
  if (architecture === 'x86_64') types.push('FC');
  return types;
}

function disksOfHolder(disks: readonly InventoryDisk[], holder: InventoryDisk): InventoryDisk[] {
  const name = holder.name ?? '';
  return disks.filter((d) => (d.holders ?? '').includes(name));
}

function defaultRouteInterface(inventory: WireInventory, ipv6: boolean): string | undefined {
  let best: { metric: number; iface?: string } | undefined;
  for (const route of inventory.routes ?? []) {
    if (route.family !== (ipv6 ? 10 : 2) || !isDefaultRoute(route)) continue;
    const metric = route.metric ?? 0;
    if (best && best.metric < metric) continue;
    best = { metric, ...(route.interface !== undefined && { iface: route.interface }) };
  }
  return best ? (best.iface ?? '') : undefined;
}

function iscsiNetworkingProblem(disk: InventoryDisk, inventory: WireInventory): string | undefined {
  const hostIp = disk.iscsi?.host_ip_address;
  if (!hostIp) return 'Host IP address is not available';
  const ip = parseIp(hostIp);
  if (!ip)
    return `Cannot parse iSCSI host IP ${hostIp}: ParseAddr("${hostIp}"): unable to parse IP`;
  const ifaceName = defaultRouteInterface(inventory, ip.family === 6);
  if (ifaceName === undefined) return undefined;
  const iface = (inventory.interfaces ?? []).find((i) => i.name === ifaceName);
  if (!iface) return 'Cannot find the network interface behind the default route';
  const addresses = ip.family === 6 ? iface.ipv6_addresses : iface.ipv4_addresses;
  const same = (addresses ?? []).some((a) => parseIp(a.split('/')[0] ?? '')?.value === ip.value);
  return same
    ? `iSCSI host IP ${hostIp} is the same as host IP, they must be different`
    : undefined;
}

/**
 * A disk's eligibility as assisted-service stores it: the agent's own reasons (service reasons
 * recomputed, never duplicated) plus size, drive type, multipath and iSCSI checks against the
 * host's role requirement. An agent that sent no eligibility at all counts as eligible.
 */
export function diskNotEligibleReasons(
  disk: InventoryDisk,
  inventory: WireInventory,
  diskSizeGb: number,
  openshiftVersion: string,
): string[] {
  const agent = disk.installation_eligibility;
  const initialized = agent?.eligible === true || (agent?.not_eligible_reasons ?? []).length > 0;
  const reasons = initialized
    ? (agent?.not_eligible_reasons ?? []).filter((r) => !SERVICE_REASONS.some((re) => re.test(r)))
    : [];
  const size = disk.size_bytes ?? 0;
  const minimum = diskSizeGb * BYTES_PER_GB;
  if (size < minimum) {
    let has = preciseHumanizeBytes(size);
    const required = preciseHumanizeBytes(minimum);
    if (has === required) has = `${has} (short by ${preciseHumanizeBytes(minimum - size)})`;
    reasons.push(`Disk is too small (disk only has ${has}, but ${required} are required)`);
  }
  const architecture = inventory.cpu?.architecture ?? '';
  const driveType = disk.drive_type ?? '';
  const types = validDriveTypes(architecture, openshiftVersion);
  if (!types.includes(driveType)) {
    reasons.push(`Drive type is ${driveType}, it must be one of ${types.join(', ')}.`);
  }
  const disks = (inventory.disks ?? []) as readonly InventoryDisk[];
  if ((driveType === 'FC' || driveType === 'iSCSI') && disk.holders) {
    const multipath = new Set(disks.filter((d) => d.drive_type === 'Multipath').map((d) => d.name));
    const holder = disk.holders.split(',').find((h) => multipath.has(h));
    if (holder !== undefined) {
      reasons.push(
        `Disk is a member of multipath device ${holder} and is not eligible for installation. Use the multipath device instead.`,
      );
    }
  }
  if (driveType === 'Multipath') {
    const members = disksOfHolder(disks, disk);
    const fc = members.filter((d) => d.drive_type === 'FC');
    const iscsi = members.filter((d) => d.drive_type === 'iSCSI');
    if (fc.length === 0 && iscsi.length === 0) {
      reasons.push('Multipath device has path of unsupported type. It must be FC, iSCSI');
      return reasons;
    }
    if (
      (fc.length > 0 && fc.length !== members.length) ||
      (iscsi.length > 0 && iscsi.length !== members.length)
    ) {
      reasons.push(
        'Multipath device has paths of different types, but they must all be the same type',
      );
    }
    for (const member of iscsi) {
      if (reasons.includes(ISCSI_MULTIPATH_ERRORS)) break;
      if (!types.includes('iSCSI') || iscsiNetworkingProblem(member, inventory) !== undefined) {
        reasons.push(ISCSI_MULTIPATH_ERRORS);
      }
    }
  }
  if (driveType === 'iSCSI') {
    const problem = iscsiNetworkingProblem(disk, inventory);
    if (problem) reasons.push(problem);
  }
  return reasons;
}

/** The inventory's disks with their eligibility evaluated for the requirement. */
export function withDiskEligibility(
  inventory: WireInventory,
  diskSizeGb: number,
  openshiftVersion: string,
): InventoryDisk[] {
  return (inventory.disks ?? []).map((disk) => {
    const reasons = diskNotEligibleReasons(disk, inventory, diskSizeGb, openshiftVersion);
    return {
      ...disk,
      installation_eligibility: { eligible: reasons.length === 0, not_eligible_reasons: reasons },
    };
  });
}

const isNvme = (disk: InventoryDisk): boolean => (disk.name ?? '').startsWith('nvme');

/**
 * Eligible disks in installation preference order (`ListEligibleDisks`): bootable first,
 * non-NVMe before NVMe, drive type by name (HDD before SSD), smaller first, then by HCTL.
 */
export function listEligibleDisks(disks: readonly InventoryDisk[]): InventoryDisk[] {
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return disks
    .filter((d) => d.installation_eligibility?.eligible === true)
    .sort((a, b) => {
      if ((a.bootable ?? false) !== (b.bootable ?? false)) return a.bootable ? -1 : 1;
      if (isNvme(a) !== isNvme(b)) return isNvme(a) ? 1 : -1;
      const type = cmp(a.drive_type ?? '', b.drive_type ?? '');
      if (type !== 0) return type;
      if ((a.size_bytes ?? 0) !== (b.size_bytes ?? 0))
        return (a.size_bytes ?? 0) - (b.size_bytes ?? 0);
      return cmp(a.hctl ?? '', b.hctl ?? '');
    });
}

/** `/dev/<name>`: the device's full name, the id of disks the agent sent without one. */
export function deviceFullName(disk: InventoryDisk): string {
  return `/dev/${disk.name ?? ''}`;
}

/** The disk's identifier (`GetDeviceIdentifier`): its id, else `/dev/<name>`. */
export function deviceIdentifier(disk: InventoryDisk): string {
  if (disk.id) return disk.id;
  return deviceFullName(disk);
}

/** The disk a path or id names: by id, by-path, or `/dev/<name>`. */
export function diskByInstallationPath(
  disks: readonly InventoryDisk[],
  path: string | undefined,
): InventoryDisk | undefined {
  if (!path) return undefined;
  return disks.find((d) => d.id === path || d.by_path === path || deviceFullName(d) === path);
}

/**
 * The installation disk (`DetermineInstallationDisk`): the requested one while it is still
 * eligible, else the most preferred eligible disk; undefined when none is eligible.
 */
export function selectInstallationDisk(
  disks: readonly InventoryDisk[],
  requested: string | undefined,
): InventoryDisk | undefined {
  const eligible = listEligibleDisks(disks);
  return diskByInstallationPath(eligible, requested) ?? eligible[0];
}

// ---- Routes -------------------------------------------------------------------------------------

/** A route to 0.0.0.0/:: through a real gateway (`network.IsDefaultRoute`). */
export function isDefaultRoute(route: {
  readonly gateway?: string;
  readonly destination?: string;
}): boolean {
  const gateway = parseIp(route.gateway ?? '');
  if (!gateway || gateway.value === 0n) return false;
  const destination = parseIp(route.destination ?? '');
  return destination?.value === 0n;
}

/** True when some interface address of the inventory lies in the CIDR. */
export function inventoryInCidr(inventory: WireInventory, cidrText: string): boolean {
  const cidr = parseCidr(cidrText);
  if (!cidr) return false;
  for (const iface of inventory.interfaces ?? []) {
    const addresses = cidr.family === 4 ? iface.ipv4_addresses : iface.ipv6_addresses;
    for (const address of addresses ?? []) {
      const ip = parseIp(address.split('/')[0] ?? '');
      if (ip && parseCidr(address) && cidrContains(cidr, ip)) return true;
    }
  }
  return false;
}
