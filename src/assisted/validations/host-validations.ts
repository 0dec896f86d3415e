/**
 * The host validations of assisted-service (AS `internal/host/validator.go`, run in the order
 * of `refresh_status_preprocessor.go`; assisted.md §5.2) for a day-1 kube-api cluster on
 * platform baremetal or none. Pure: every fact comes from the records and the context.
 */
import type {
  ClusterRecord,
  HostRecord,
  HostStage,
  HostStatus,
  ValidationResult,
  ValidationStatus,
  ValidationsInfo,
  WireInventory,
} from '../model.js';
import {
  cidrContains,
  cidrsOverlap,
  formatCidrNetwork,
  parseCidr,
  parseIp,
  type IpAddress,
  type IpFamily,
} from '../../shared/ip.js';
import { BYTES_PER_MIB, bytesToString, goFixed, goUtcTimeString } from './format.js';
import {
  deviceFullName,
  effectiveRole,
  hwRequirementsFor,
  inventoryInCidr,
  isDefaultRoute,
  isSingleNode,
  listEligibleDisks,
  MEMORY_TOLERANCE_MIB,
  minimumRequirements,
  roleRequirements,
  selectInstallationDisk,
  withDiskEligibility,
  type HwRequirements,
  type InventoryDisk,
  type RoleRequirements,
} from './hardware.js';
import { hostValidationCategory, HostValidationId, OPERATORS } from './ids.js';
import {
  connectivityMajorityGroups,
  ipCollisions,
  networkOfAddress,
  type Connectivity,
} from './network.js';
import {
  parseConnectivityReport,
  parseContainerImageAvailabilityResponse,
  parseDiskSpeedCheckResponse,
  parseDomainResolutionResponse,
  parseNtpSynchronizationResponse,
  type ConnectivityReport,
  type DomainResolutionResponse,
} from './step-results.js';

/**
 * A host as validations read it: its record, plus two facts the agent API learns that
 * `HostRecord` does not (yet) carry.
 */
export type ValidatedHost = HostRecord & {
  /** The agent's clock (Unix seconds), the `timestamp` of its last `GET …/instructions`. */
  readonly agentTimestamp?: number;
  /** `disconnected` once a step reply came back with the media-disconnected exit code. */
  readonly mediaStatus?: 'connected' | 'disconnected';
};

/** What host validations need beyond the host. */
export interface HostValidationContext {
  /** The cluster the host is bound to (absent: unbound, late binding). */
  readonly cluster?: ClusterRecord;
  /** Every host of the cluster (the host itself included or not: it is replaced by `host`). */
  readonly clusterHosts: readonly ValidatedHost[];
  readonly now: Date;
  /** Whether the agent checked in recently enough (see {@link isHostConnected}). */
  readonly connected: boolean;
  /** Requirements of the cluster's version. @default hwRequirementsFor(cluster.openshiftVersion) */
  readonly hw?: HwRequirements;
  /**
   * The agent image the service expects; a host whose `discoveryAgentVersion` differs fails
   * compatible-agent. @default undefined (checking disabled)
   */
  readonly agentImage?: string;
  /**
   * The cluster's majority groups, when the caller computed them once for all its hosts.
   * @default connectivityMajorityGroups(clusterHosts)
   */
  readonly connectivity?: Connectivity;
}

type Outcome = readonly [ValidationStatus, string];

const LATE_BINDING = 'Host is not bound to a cluster';
const MANUAL_REBOOT_STAGES: readonly HostStage[] = [
  'Rebooting',
  'Waiting for ignition',
  'Configuring',
  'Joined',
  'Done',
];
const UNBOUND_STATUSES: readonly HostStatus[] = [
  'insufficient-unbound',
  'disconnected-unbound',
  'discovering-unbound',
  'known-unbound',
];
const MEDIA_DISCONNECTED =
  'Unable to read from the discovery media. It was either disconnected or poor network conditions prevented it from being read. Try using the minimal ISO option and be sure to keep the media connected until the installation is completed';
/** The pattern a host name must match (upstream hostutil.ValidateHostname). */
export const HOSTNAME_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}(?:[.][a-z0-9-]{1,63})*$';
const HOSTNAME_RE = new RegExp(HOSTNAME_PATTERN);
/** The longest host name upstream accepts. */
export const MAX_HOSTNAME_LENGTH = 63;
/** Host names upstream refuses (hostutil.ValidateHostname). */
export const FORBIDDEN_HOSTNAMES: readonly string[] = [
  'localhost',
  'localhost.localdomain',
  'localhost4',
  'localhost4.localdomain4',
  'localhost6',
  'localhost6.localdomain6',
];
const MAX_SERVICE_AHEAD_MS = 20 * 60_000;
const MAX_HOST_AHEAD_MS = 60 * 60_000;
const IMAGE_DOWNLOAD_RATE_THRESHOLD = 0.001;

/** A host's hostname as the cluster will know it: the requested one, else the inventory's. */
export function hostnameOf(host: Pick<HostRecord, 'requestedHostname' | 'inventory'>): string {
  if (host.requestedHostname) return host.requestedHostname;
  return host.inventory?.hostname ?? '';
}

/**
 * Upstream's connection rule (`isConnected`): before the `Rebooting` stage the agent must have
 * checked in within `maxDisconnectionMs` (bootstrap: 2 minutes more); after it, always true.
 */
export function isHostConnected(
  host: Pick<HostRecord, 'bootstrap' | 'checkedInAt' | 'progress'>,
  now: Date,
  maxDisconnectionMs = 3 * 60_000,
): boolean {
  const stages: readonly (HostStage | undefined)[] = [
    'Starting installation',
    'Installing',
    'Writing image to disk',
    'Copying registry data to disk',
    'Waiting for control plane',
    'Waiting for bootkube',
    'Waiting for controller',
  ];
  const stage = host.progress.currentStage;
  const preReboot = stage === undefined || stages.includes(stage);
  if (!preReboot || host.checkedInAt === '') return true;
  const limit = maxDisconnectionMs + (host.bootstrap ? 2 * 60_000 : 0);
  return now.getTime() - Date.parse(host.checkedInAt) <= limit;
}

interface Context {
  readonly host: ValidatedHost;
  readonly cluster: ClusterRecord | undefined;
  readonly hosts: readonly ValidatedHost[];
  readonly now: Date;
  readonly connected: boolean;
  readonly inventory: WireInventory | undefined;
  readonly disks: readonly InventoryDisk[];
  readonly requirements: RoleRequirements;
  readonly minimum: { readonly cpuCores: number; readonly ramMib: number };
  readonly agentImage: string | undefined;
  readonly connectivity: () => Connectivity;
}

const present = (raw: unknown): boolean => raw !== undefined && raw !== null && raw !== '';

/** Upstream refuses an inventory without memory or CPU; here it counts as not received. */
function validInventory(inventory: WireInventory | undefined): WireInventory | undefined {
  return inventory?.memory && inventory.cpu ? inventory : undefined;
}

const umn = (c: ClusterRecord): boolean => c.userManagedNetworking;
const machineCidrAvailable = (c: ClusterRecord): boolean => c.machineNetworks.length > 0;
const platformOf = (c: ClusterRecord): string => c.platformType.toLowerCase();

// ---- One function per validation ----------------------------------------------------------------

function connected(c: Context): Outcome {
  return c.connected ? ['success', 'Host is connected'] : ['failure', 'Host is disconnected'];
}

function mediaConnected(c: Context): Outcome {
  return c.host.mediaStatus === 'disconnected'
    ? ['failure', MEDIA_DISCONNECTED]
    : ['success', 'Media device is connected'];
}

function hasInventory(c: Context): Outcome {
  return c.inventory
    ? ['success', 'Valid inventory exists for the host']
    : ['failure', 'Inventory has not been received for the host'];
}

interface Truncation {
  readonly type?: string;
  readonly reasons?: readonly string[];
}

function truncationOf(inventory: WireInventory): Truncation | undefined {
  return (inventory as WireInventory & { readonly truncation?: Truncation }).truncation;
}

function truncationReason(t: Truncation): string {
  const text = `Inventory is truncated (${t.type ?? ''})`;
  return t.reasons && t.reasons.length > 0 ? `${text}: ${t.reasons.join('; ')}` : text;
}

function inventoryNotPartiallyTruncated(c: Context): Outcome {
  if (!c.inventory) return ['pending', 'Missing inventory'];
  const t = truncationOf(c.inventory);
  if (!t) return ['success', 'Inventory is not truncated'];
  if (t.type === 'partial') return ['failure', truncationReason(t)];
  if (t.type === 'full') {
    return ['success', 'Inventory is not partially truncated (inventory fully truncated)'];
  }
  return ['error', 'Unexpected inventory truncation type'];
}

function inventoryNotFullyTruncated(c: Context): Outcome {
  if (!c.inventory) return ['pending', 'Missing inventory'];
  const t = truncationOf(c.inventory);
  if (!t) return ['success', 'Inventory is not truncated'];
  if (t.type === 'partial') return ['success', 'Inventory is partially truncated'];
  if (t.type === 'full') return ['failure', truncationReason(t)];
  return ['error', 'Unexpected inventory truncation type'];
}

function hasMinCpuCores(c: Context): Outcome {
  if (!c.inventory) return ['pending', 'Missing inventory'];
  const count = c.inventory.cpu?.count ?? 0;
  if (count >= c.minimum.cpuCores) return ['success', 'Sufficient CPU cores'];
  return [
    'failure',
    `The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is ${String(c.minimum.cpuCores)}, found only ${String(count)}`,
  ];
}

function hasMinMemory(c: Context): Outcome {
  if (!c.inventory) return ['pending', 'Missing inventory'];
  let tolerance = MEMORY_TOLERANCE_MIB;
  // Usable memory stands in for physical memory: allow 2% more that the firmware keeps.
  if (c.inventory.memory?.physical_bytes_method === 'meminfo') {
    tolerance += Math.trunc(c.minimum.ramMib / 50);
  }
  const physical = c.inventory.memory?.physical_bytes ?? 0;
  if (physical >= (c.minimum.ramMib - tolerance) * BYTES_PER_MIB) {
    return ['success', 'Sufficient minimum RAM'];
  }
  return [
    'failure',
    `The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is ${bytesToString(c.minimum.ramMib * BYTES_PER_MIB)}, found only ${bytesToString(physical)}`,
  ];
}

function hasMinValidDisks(c: Context): Outcome {
  if (!c.inventory) return ['pending', 'Missing inventory'];
  if (c.disks.length === 0) return ['error', 'Failed to detected disks'];
  if (listEligibleDisks(c.disks).length > 0) return ['success', 'Sufficient disk capacity'];
  return [
    'failure',
    'No eligible disks were found, please check specific disks to see why they are not eligible',
  ];
}

function machineCidrDefined(c: Context): Outcome {
  if (!c.cluster) return ['success-suppress-output', 'Unexpected status success-suppress-output'];
  if (umn(c.cluster)) return ['success', 'No Machine Network CIDR needed: User Managed Networking'];
  if (machineCidrAvailable(c.cluster)) return ['success', 'Machine Network CIDR is defined'];
  return [
    'failure',
    'Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs',
  ];
}

function hasCpuCoresForRole(c: Context): Outcome {
  if (!c.inventory) return ['pending', 'Missing inventory or role'];
  const role = effectiveRole(c.host);
  const count = c.inventory.cpu?.count ?? 0;
  if (count >= c.requirements.cpuCores) return ['success', `Sufficient CPU cores for role ${role}`];
  return [
    'failure',
    `Require at least ${String(c.requirements.cpuCores)} CPU cores for ${role} role, found only ${String(count)}`,
  ];
}

function hasMemoryForRole(c: Context): Outcome {
  if (!c.inventory) return ['pending', 'Missing inventory or role'];
  const role = effectiveRole(c.host);
  const required = c.requirements.ramMib * BYTES_PER_MIB;
  const physical = c.inventory.memory?.physical_bytes ?? 0;
  if (physical >= required - MEMORY_TOLERANCE_MIB * BYTES_PER_MIB) {
    return ['success', `Sufficient RAM for role ${role}`];
  }
  return [
    'failure',
    `Require at least ${bytesToString(required)} RAM for role ${role}, found only ${bytesToString(physical)}`,
  ];
}

function hostnameUnique(c: Context): Outcome {
  if (!c.cluster) return ['success-suppress-output', ''];
  if (!c.inventory) return ['pending', 'Missing inventory'];
  const name = hostnameOf(c.host);
  const clash = c.hosts.some((h) => h.id !== c.host.id && h.inventory && hostnameOf(h) === name);
  return clash
    ? ['failure', `Hostname ${name} is not unique in cluster`]
    : ['success', `Hostname ${name} is unique in cluster`];
}

function belongsToMachineCidr(c: Context): Outcome {
  const cluster = c.cluster;
  if (!cluster) return ['success-suppress-output', ''];
  // Multi-node UMN: nothing to check (the bootstrap only when a machine network was given).
  if (
    umn(cluster) &&
    !isSingleNode(cluster) &&
    (!c.host.bootstrap || !machineCidrAvailable(cluster))
  ) {
    return ['success', 'No machine network CIDR validation needed: User Managed Networking'];
  }
  if (!c.inventory || !machineCidrAvailable(cluster)) {
    return ['pending', 'Missing inventory or machine network CIDR'];
  }
  const inventory = c.inventory;
  const all =
    cluster.machineNetworks.every((n) => parseCidr(n) !== undefined) &&
    cluster.machineNetworks.every((n) => inventoryInCidr(inventory, n));
  return all
    ? ['success', 'Host belongs to all machine network CIDRs']
    : [
        'failure',
        'Host does not belong to machine network CIDRs. Verify that the host belongs to every CIDR listed under machine networks',
      ];
}

function hostnameValid(c: Context): Outcome {
  if (!c.inventory) return ['failure', 'Missing inventory'];
  const name = hostnameOf(c.host);
  const valid =
    name.length <= MAX_HOSTNAME_LENGTH &&
    HOSTNAME_RE.test(name) &&
    !FORBIDDEN_HOSTNAMES.includes(name);
  if (valid) return ['success', `Hostname ${name} is allowed`];
  if (FORBIDDEN_HOSTNAMES.includes(name)) return ['failure', `The host name ${name} is forbidden`];
  return [
    'failure',
    `Hostname ${name} is forbidden, hostname should match pattern ${HOSTNAME_PATTERN}`,
  ];
}

function ignitionDownloadable(): Outcome {
  // Day-1 hosts download no ignition from an existing cluster.
  return ['success-suppress-output', ''];
}

function configuredFamilies(cluster: ClusterRecord): { ipv4: boolean; ipv6: boolean } | undefined {
  let ipv4 = false;
  let ipv6 = false;
  const all = [
    ...cluster.clusterNetworks.map((n) => n.cidr),
    ...cluster.serviceNetworks,
    ...cluster.machineNetworks,
  ];
  for (const text of all) {
    if (text === '') continue;
    const cidr = parseCidr(text);
    if (!cidr) return undefined;
    if (cidr.family === 4) ipv4 = true;
    else ipv6 = true;
  }
  return { ipv4, ipv6 };
}

function belongsToMajorityGroup(c: Context): Outcome {
  const cluster = c.cluster;
  if (!cluster) return ['success-suppress-output', ''];
  const ok = 'Host has connectivity to the majority of hosts in the cluster';
  if (isSingleNode(cluster)) return ['success', ok];
  const connectivity = c.connectivity();
  let status: ValidationStatus;
  if (umn(cluster)) {
    const families = configuredFamilies(cluster);
    if (!families) {
      status = 'error';
    } else {
      const addresses = connectivity.l3ConnectedAddresses[c.host.id];
      if (!(families.ipv4 || families.ipv6) || !addresses) {
        status = 'failure';
      } else {
        const v4 = addresses.some((a) => parseIp(a)?.family === 4);
        const v6 = addresses.some((a) => parseIp(a)?.family !== 4);
        status = (!families.ipv4 || v4) && (!families.ipv6 || v6) ? 'success' : 'failure';
      }
    }
  } else if (!machineCidrAvailable(cluster)) {
    status = 'pending';
  } else {
    status = 'success';
    for (const network of cluster.machineNetworks) {
      const cidr = parseCidr(network);
      if (!cidr) {
        status = 'error';
        break;
      }
      const key = formatCidrNetwork(cidr);
      const group = Object.entries(connectivity.majorityGroups).find(
        ([k]) => networkOfAddress(k) === key,
      )?.[1];
      if (!group?.includes(c.host.id)) {
        status = 'failure';
        break;
      }
    }
  }
  if (status === 'failure' && c.hosts.length < 3) {
    return ['pending', 'Not enough hosts in cluster to calculate connectivity groups'];
  }
  if (status === 'success') return [status, ok];
  if (status === 'failure')
    return [status, 'No connectivity to the majority of hosts in the cluster'];
  if (status === 'pending')
    return [status, 'Not enough information to calculate host majority groups'];
  return [status, `Unexpected status ${status}`];
}

function interfaceAddresses(
  inventory: WireInventory,
  nicName: string,
  family: IpFamily,
): readonly string[] {
  return (inventory.interfaces ?? [])
    .filter((i) => i.name === nicName)
    .flatMap((i) => (family === 4 ? i.ipv4_addresses : i.ipv6_addresses) ?? []);
}

function mtuValid(c: Context): Outcome {
  const cluster = c.cluster;
  if (!cluster) return ['success-suppress-output', LATE_BINDING];
  if (!c.inventory) return ['pending', 'Missing host inventory'];
  if (isSingleNode(cluster)) {
    return ['success-suppress-output', 'The validation is not applicable to SNO'];
  }
  const raw = c.host.stepResults.connectivity;
  if (!present(raw)) return ['pending', 'Missing MTU report information'];
  const parsed = parseConnectivityReport(raw);
  if (!parsed.ok) return ['error', 'Internal error - failed to parse host connectivity report'];
  const broken = (nic: string | undefined, ip: string | undefined): Outcome => [
    'failure',
    `MTU is broken. Interface: ${nic ?? ''}, remote IP address: ${ip ?? ''}`,
  ];
  const reports = (parsed.value.remote_hosts ?? []).flatMap((r) => r.mtu_report ?? []);
  if (umn(cluster)) {
    const bad = reports.find((m) => !m.mtu_successful);
    return bad ? broken(bad.outgoing_nic, bad.remote_ip_address) : ['success', 'MTU is ok'];
  }
  const networks = [];
  for (const text of cluster.machineNetworks) {
    const cidr = parseCidr(text);
    if (!cidr) {
      return [
        'failure',
        `internal error - failed to parse machine network CIDR: invalid CIDR address: ${text}`,
      ];
    }
    networks.push(cidr);
  }
  for (const report of reports) {
    const remote = parseIp(report.remote_ip_address ?? '');
    const family: IpFamily = remote?.family === 4 ? 4 : 6;
    let sourceInNetworks = false;
    for (const address of interfaceAddresses(c.inventory, report.outgoing_nic ?? '', family)) {
      const ip = parseCidr(address) ? parseIp(address.split('/')[0] ?? '') : undefined;
      if (!ip) {
        return [
          'error',
          `internal error - failed to parse outgoing nic address CIDR: invalid CIDR address: ${address}`,
        ];
      }
      if (networks.some((n) => cidrContains(n, ip))) {
        sourceInNetworks = true;
        break;
      }
    }
    if (!sourceInNetworks) continue;
    if (remote && networks.some((n) => cidrContains(n, remote)) && !report.mtu_successful) {
      return broken(report.outgoing_nic, report.remote_ip_address);
    }
  }
  return ['success', 'MTU is ok'];
}

function validPlatformNetworkSettings(c: Context): Outcome {
  if (!c.inventory) return ['pending', 'Missing inventory'];
  const vendor = c.inventory.system_vendor;
  if (!vendor) return ['error', 'Validation error'];
  const product = vendor.product_name ?? '';
  if (product === 'OpenStack Compute') {
    if (!c.cluster) return ['success-suppress-output', ''];
    if (umn(c.cluster)) return ['success', `Platform ${product} is allowed`];
    return [
      'failure',
      `Platform ${product} is allowed only for Single Node OpenShift or user-managed networking`,
    ];
  }
  return ['success', `Platform ${product} is allowed`];
}

function ntpSynced(c: Context): Outcome {
  // Unbound hosts with no NTP sources configured have nothing to sync with yet.
  const missing: ValidationStatus = UNBOUND_STATUSES.includes(c.host.status)
    ? 'success-suppress-output'
    : 'failure';
  let status: ValidationStatus = missing;
  const raw = c.host.stepResults.ntp;
  if (present(raw)) {
    const parsed = parseNtpSynchronizationResponse(raw);
    if (!parsed.ok) status = 'error';
    else if ((parsed.value.ntp_sources ?? []).some((s) => s.source_state === 'synced')) {
      status = 'success';
    }
  }
  if (status === 'success') return [status, 'Host NTP is synced'];
  if (status === 'failure') return [status, "Host couldn't synchronize with any NTP server"];
  if (status === 'error') return [status, 'Parse error for NTP sources'];
  return [status, `Unexpected status ${status}`];
}

/**
 * How the agent's clock (`timestamp` of its last check-in, Unix seconds) stands against the
 * service's at `now`: unknown, within the limits, or too far behind or ahead.
 */
export function agentClockState(
  agentTimestamp: number | undefined,
  now: Date,
): 'unknown' | 'synced' | 'service-ahead' | 'host-ahead' {
  const timestamp = agentTimestamp ?? 0;
  if (timestamp === 0) return 'unknown';
  const diff = now.getTime() - timestamp * 1000;
  if (diff > MAX_SERVICE_AHEAD_MS) return 'service-ahead';
  if (diff < -MAX_HOST_AHEAD_MS) return 'host-ahead';
  return 'synced';
}

function timeSyncedBetweenHostAndService(c: Context): Outcome {
  const state = agentClockState(c.host.agentTimestamp, c.now);
  if (state === 'unknown') {
    return [
      'pending',
      "Missing host time, can't determine synchronization between host and service",
    ];
  }
  const serviceTime = goUtcTimeString(c.now);
  if (state === 'service-ahead') {
    return [
      'failure',
      `Host clock is not synchronized, service time is ahead of host's at least for ${goFixed(20, 1)} minutes, please configure an NTP server via DHCP. Service time: ${serviceTime}`,
    ];
  }
  if (state === 'host-ahead') {
    return [
      'failure',
      `Host clock is not synchronized, host time is ahead of service at least for ${goFixed(60, 1)} minutes, please configure an NTP server via DHCP. Service time: ${serviceTime}`,
    ];
  }
  return ['success', 'Host clock is synchronized with service'];
}

function containerImagesAvailable(c: Context): Outcome {
  const ok: Outcome = [
    'success',
    'All required container images were either pulled successfully or no attempt was made to pull them',
  ];
  const raw = c.host.stepResults.imageAvailability;
  if (!present(raw)) return ok;
  const parsed = parseContainerImageAvailabilityResponse(raw);
  if (!parsed.ok) return ['error', 'Validation error'];
  const failed = parsed.value.images.filter(
    (i) =>
      i.result === 'failure' ||
      ((i.size_bytes ?? 0) > 0 && (i.download_rate ?? 0) < IMAGE_DOWNLOAD_RATE_THRESHOLD),
  );
  if (failed.length === 0) return ok;
  return [
    'failure',
    `Failed to fetch container images needed for installation from ${failed.map((i) => i.name ?? '').join(',')}. This may be due to a network hiccup. Retry to install again. If this problem persists, check your network settings to make sure you’re not blocked.`,
  ];
}

function installationDisk(c: Context): InventoryDisk | undefined {
  return selectInstallationDisk(c.disks, c.host.installationDiskId);
}

function sufficientInstallationDiskSpeed(c: Context): Outcome {
  const disk = installationDisk(c);
  if (!disk) return ['error', 'Validation error'];
  const raw = c.host.stepResults.diskSpeed;
  if (!present(raw)) return ['success', 'Speed of installation disk has not yet been measured'];
  const parsed = parseDiskSpeedCheckResponse(raw);
  if (!parsed.ok) return ['error', 'Validation error'];
  const path = parsed.value.path;
  const measured =
    path !== undefined &&
    [disk.id, disk.by_path, disk.by_id, disk.path, deviceFullName(disk)].includes(path);
  if (!measured) return ['success', 'Speed of installation disk has not yet been measured'];
  if ((parsed.value.exit_code ?? 0) === 0) {
    return ['success', 'Speed of installation disk is sufficient'];
  }
  return [
    'failure',
    'While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient',
  ];
}

interface TimingMetric {
  readonly hostname: string;
  readonly value: number;
  readonly suffix: string;
}

function summarize(metrics: readonly TimingMetric[]): string {
  const out: string[] = [];
  for (const [i, m] of metrics.entries()) {
    const text = `${m.hostname} (${goFixed(m.value, 2)}${m.suffix})`;
    if (i > 4) {
      out.push(`${text} and others...`);
      break;
    }
    out.push(text);
  }
  return out.join(', ');
}

function pingAdvisory(c: Context, inventory: WireInventory): string {
  const interfaces = inventory.interfaces ?? [];
  if (interfaces.length === 0) return '';
  let text = `2: Please try the following commands on the host ${hostnameOf(c.host)} to investigate the packet loss further\n\n`;
  for (const iface of interfaces) {
    for (const [i, address] of (iface.ipv4_addresses ?? []).entries()) {
      if (i > 4) {
        text += 'etc... \n';
        break;
      }
      text += `ping -c 10 -W 3 -q -I ${iface.name ?? ''} ${address}\n`;
    }
  }
  return text;
}

type ThresholdTest = 'latency' | 'packet-loss';

function thresholdExceeded(
  c: Context,
  report: ConnectivityReport,
  test: ThresholdTest,
  threshold: number,
): { readonly metrics: TimingMetric[] } | { readonly error: string } {
  const failedIps = new Set<string>();
  const metrics: TimingMetric[] = [];
  const role = effectiveRole(c.host);
  for (const remote of report.remote_hosts ?? []) {
    for (const l3 of remote.l3_connectivity ?? []) {
      const value =
        test === 'latency' ? (l3.average_rtt_ms ?? 0) : (l3.packet_loss_percentage ?? 0);
      const ip = l3.remote_ip_address ?? '';
      if (value <= threshold || failedIps.has(ip)) continue;
      const other = c.hosts.find((h) => h.id === remote.host_id);
      if (!other) return { error: `host with ID ${remote.host_id ?? ''} was not found` };
      if (!other.inventory) continue;
      if (effectiveRole(other) !== role) continue;
      failedIps.add(ip);
      metrics.push({
        hostname: hostnameOf(other),
        value,
        suffix: test === 'latency' ? ' ms' : '%',
      });
    }
  }
  return { metrics };
}

function sufficientNetworkLatency(c: Context): Outcome {
  const ok: Outcome = ['success', 'Network latency requirement has been satisfied.'];
  if (!c.inventory) return ['pending', 'The inventory is not available yet.'];
  if (!c.cluster) return ['success-suppress-output', ''];
  const threshold = c.requirements.networkLatencyThresholdMs;
  if (c.hosts.length === 1 || threshold === undefined || effectiveRole(c.host) === 'auto-assign') {
    return ok;
  }
  const raw = c.host.stepResults.connectivity;
  if (!present(raw)) return ['pending', 'Missing network latency information.'];
  const parsed = parseConnectivityReport(raw);
  if (!parsed.ok)
    return ['error', 'Parse error while attempting to process the connectivity report'];
  const result = thresholdExceeded(c, parsed.value, 'latency', threshold);
  if ('error' in result) {
    return ['failure', `Error while attempting to validate network latency: ${result.error}`];
  }
  if (result.metrics.length === 0) return ok;
  let message = `A total network latency above the tolerated threshold of ${goFixed(threshold, 2)} ms was encountered when performing network latency tests between host ${c.host.id} and ${summarize(result.metrics)}\\n`;
  if ((c.inventory.interfaces ?? []).length > 0) {
    message += `Actions:\n1: Please try the following commands on the host ${hostnameOf(c.host)} and examine averages to investigate the latency issue further\n\n`;
    message += pingAdvisory(c, c.inventory);
  }
  return ['failure', message];
}

function sufficientPacketLoss(c: Context): Outcome {
  const ok: Outcome = ['success', 'Packet loss requirement has been satisfied.'];
  if (!c.inventory) return ['pending', 'The inventory is not available yet.'];
  if (!c.cluster) return ['success-suppress-output', ''];
  const threshold = c.requirements.packetLossPercentage;
  if (c.hosts.length === 1 || threshold === undefined || effectiveRole(c.host) === 'auto-assign') {
    return ok;
  }
  const raw = c.host.stepResults.connectivity;
  if (!present(raw)) return ['pending', 'Missing packet loss information.'];
  const parsed = parseConnectivityReport(raw);
  if (!parsed.ok)
    return ['error', 'Parse error while attempting to process the connectivity report'];
  const result = thresholdExceeded(c, parsed.value, 'packet-loss', threshold);
  if ('error' in result) {
    return [
      'failure',
      `Error while attempting to validate packet loss validation: ${result.error}`,
    ];
  }
  if (result.metrics.length === 0) return ok;
  let message = `A total packet loss above the tolerated threshold of ${goFixed(threshold, 2)}% was encountered when performing connectivity validation between host ${c.host.id} and ${summarize(result.metrics)}\\n`;
  message +=
    'Actions:\n1: Check if there are multiple devices on the same L2 network, if so then use the built-in nmstate-based advanced networking configuration to create a bond or disable all but one of the interfaces.\n';
  message += pingAdvisory(c, c.inventory);
  return ['failure', message];
}

function hasDefaultRoute(c: Context): Outcome {
  if (!c.inventory) return ['pending', 'Missing default routing information.'];
  const routes = c.inventory.routes ?? [];
  const found = routes.some((r) => r.destination && r.gateway && isDefaultRoute(r));
  return found
    ? ['success', 'Host has been configured with at least one default route.']
    : ['failure', 'Host has not yet been configured with a default route.'];
}

function domainName(cluster: ClusterRecord, name: string): string {
  return `${name}.${cluster.name}.${cluster.baseDnsDomain}`;
}

function domainResolutions(c: Context): DomainResolutionResponse | undefined {
  const raw = c.host.stepResults.domainResolution;
  if (!present(raw)) return undefined;
  const parsed = parseDomainResolutionResponse(raw);
  return parsed.ok ? parsed.value : undefined;
}

function domainResolved(c: Context, subdomain: string, printable: string, target: string): Outcome {
  const cluster = c.cluster;
  if (!cluster) return ['success-suppress-output', ''];
  const shown = cluster.baseDnsDomain === '' ? target : printable;
  const notRequired = `Domain name resolution for the ${shown} domain was successful or not required`;
  // Managed networking answers these names itself; so does a single-node cluster's dnsmasq.
  if (!umn(cluster) || isSingleNode(cluster)) return ['success', notRequired];
  if (cluster.baseDnsDomain === '') {
    return [
      'error',
      `DNS validation for the ${target} domain cannot be completed because the cluster does not have base_dns_domain set. Please update the cluster with the correct base_dns_domain`,
    ];
  }
  const response = domainResolutions(c);
  if (!response) return ['error', 'Error while evaluating DNS resolution on this host'];
  const name = domainName(cluster, subdomain);
  const match = response.resolutions.find(
    (r) =>
      r.domain_name === name &&
      ((r.ipv4_addresses ?? []).length > 0 ||
        (r.ipv6_addresses ?? []).length > 0 ||
        (r.cnames ?? []).length > 0),
  );
  if (!match) {
    return [
      'failure',
      `Couldn't resolve domain name ${shown} on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's ${target} IP address`,
    ];
  }
  const own = (c.inventory?.interfaces ?? []).flatMap((i) => [
    ...(i.ipv4_addresses ?? []),
    ...(i.ipv6_addresses ?? []),
  ]);
  const hit = [...(match.ipv4_addresses ?? []), ...(match.ipv6_addresses ?? [])].find((a) =>
    own.includes(a),
  );
  if (hit !== undefined) {
    return [
      'failure',
      `Domain ${shown} must not point at ${hit} as it is the API address of this host. This domain must instead point at the IP address of a load balancer when using user managed networking in a multi control-plane node cluster`,
    ];
  }
  return ['success', notRequired];
}

function apiDomainResolved(c: Context): Outcome {
  const printable = c.cluster ? domainName(c.cluster, 'api') : '';
  return domainResolved(c, 'api', printable, 'API load balancer');
}

function apiIntDomainResolved(c: Context): Outcome {
  const printable = c.cluster ? domainName(c.cluster, 'api-int') : '';
  return domainResolved(c, 'api-int', printable, 'internal API load balancer');
}

function appsDomainResolved(c: Context): Outcome {
  const printable = c.cluster ? domainName(c.cluster, '*.apps') : '';
  return domainResolved(c, 'console-openshift-console.apps', printable, 'application ingress');
}

function hostSupportedByPlatform(platform: string, inventory: WireInventory | undefined): boolean {
  const manufacturer = inventory?.system_vendor?.manufacturer;
  if (platform === 'vsphere') return manufacturer === 'VMware, Inc.';
  if (platform === 'nutanix') return manufacturer === 'Nutanix';
  return true;
}

function compatibleWithClusterPlatform(c: Context): Outcome {
  const cluster = c.cluster;
  if (!cluster) return ['success-suppress-output', ''];
  const platform = platformOf(cluster);
  if (!c.inventory || platform === '')
    return ['pending', "Missing inventory or platform isn't set"];
  if (hostSupportedByPlatform(platform, c.inventory)) {
    return ['success', `Host is compatible with cluster platform ${platform}`];
  }
  return [
    'failure',
    `Host is not compatible with cluster platform ${platform}; either disable this host or discover a new compatible host.`,
  ];
}

function dnsWildcardNotConfigured(c: Context): Outcome {
  const cluster = c.cluster;
  if (!cluster) return ['success-suppress-output', ''];
  const raw = c.host.stepResults.domainResolution;
  if (!present(raw)) {
    return [
      'pending',
      'DNS wildcard check cannot be performed yet because the host has not yet performed DNS resolution',
    ];
  }
  const parsed = parseDomainResolutionResponse(raw);
  if (!parsed.ok) return ['error', 'Error while parsing DNS resolution response'];
  const check = (name: string, format: (resolved: string) => string): Outcome => {
    const found = parsed.value.resolutions.find((r) => r.domain_name === name);
    if (!found) {
      return [
        'error',
        "Internal error - DNS wildcard check cannot be performed because the DNS validation result doesn't contain the wildcard domain",
      ];
    }
    const resolved = [
      ...(found.ipv4_addresses ?? []),
      ...(found.ipv6_addresses ?? []),
      ...(found.cnames ?? []),
    ];
    if (resolved.length === 0) return ['success', 'DNS wildcard check was successful'];
    return ['failure', format(resolved.join(', '))];
  };
  const wildcard = domainName(cluster, 'validateNoWildcardDNS');
  const sub = `${cluster.name}.${cluster.baseDnsDomain}`;
  const first = check(
    `${wildcard}.`,
    (r) =>
      `DNS wildcard configuration was detected for domain *.${sub} - the installation will not be able to complete while this record exists. Please remove it to proceed. The domain resolves to ${r}`,
  );
  if (first[0] !== 'success') return first;
  return check(
    wildcard,
    (r) =>
      `Unexpected domain name resolution was detected for the relative domain name with the sub-domain *.${sub} despite the fact that no resolution exists for a Fully Qualified Domain Name (FQDN) with same sub-domain. This is usually a sign of DHCP-provided domain-search configuration. The installation will not be able to complete with this configuration in place. Please remove it to proceed. The relative domain name resolves to ${r}`,
  );
}

function diskEncryptionRequirementsSatisfied(): Outcome {
  // Disk encryption is not configured by the clusters we install.
  return ['success-suppress-output', ''];
}

function clusterFamilies(cluster: ClusterRecord): IpFamily[] | { readonly error: string } {
  const families = new Set<IpFamily>();
  for (const text of [...cluster.serviceNetworks, ...cluster.clusterNetworks.map((n) => n.cidr)]) {
    const cidr = parseCidr(text);
    if (!cidr) return { error: `invalid CIDR address: ${text}` };
    families.add(cidr.family);
  }
  return [...families].sort();
}

function nonOverlappingSubnets(c: Context): Outcome {
  if (!c.inventory) return ['pending', 'Missing inventory'];
  const cluster = c.cluster;
  if (!cluster) return ['success-suppress-output', ''];
  const families = clusterFamilies(cluster);
  if ('error' in families) return ['error', `Unexpected error: ${families.error}`];
  for (const family of families) {
    const networks: { cidr: string; iface: string }[] = [];
    for (const iface of c.inventory.interfaces ?? []) {
      const own = new Set<string>();
      for (const address of (family === 4 ? iface.ipv4_addresses : iface.ipv6_addresses) ?? []) {
        const network = networkOfAddress(address);
        if (!network) return ['error', `Unexpected error: invalid CIDR address: ${address}`];
        own.add(network);
      }
      for (const cidr of [...own].sort()) networks.push({ cidr, iface: iface.name ?? '' });
    }
    for (let i = 0; i < networks.length; i++) {
      for (let j = i + 1; j < networks.length; j++) {
        const a = networks[i]!;
        const b = networks[j]!;
        if (a.cidr === b.cidr) {
          return [
            'failure',
            `Address networks are overlapping: Address network ${a.cidr} appears on multiple interfaces [${a.iface}, ${b.iface}]`,
          ];
        }
        if (cidrsOverlap(parseCidr(a.cidr)!, parseCidr(b.cidr)!)) {
          return [
            'failure',
            `Address networks are overlapping: Address networks ${a.cidr} in interface ${a.iface} and ${b.cidr} in interface ${b.iface} overlap`,
          ];
        }
      }
    }
  }
  return ['success', 'Host subnets are not overlapping'];
}

function vsphereDiskUuidEnabled(c: Context): Outcome {
  if (!c.cluster) return ['success-suppress-output', 'no cluster'];
  if (!c.inventory || !hostSupportedByPlatform('vsphere', c.inventory)) {
    return ['success-suppress-output', ''];
  }
  const architecture = c.inventory.cpu?.architecture ?? '';
  const types = ['HDD', 'SSD', 'Multipath', ...(architecture === 'x86_64' ? ['FC'] : [])];
  const missing = c.disks.some(
    (d) =>
      d.installation_eligibility?.eligible === true &&
      types.includes(d.drive_type ?? '') &&
      d.has_uuid !== true,
  );
  return missing
    ? [
        'failure',
        "VSphere disk.EnableUUID isn't enabled for this virtual machine, it's necessary for disks to be mounted properly",
      ]
    : ['success', 'VSphere disk.EnableUUID is enabled for this virtual machine'];
}

function compatibleAgent(c: Context): Outcome {
  if (c.agentImage === undefined)
    return ['success', 'Host agent compatibility checking is disabled'];
  if (c.host.discoveryAgentVersion === c.agentImage) {
    return ['success', 'Host agent is compatible with the service'];
  }
  return [
    'failure',
    "This host's agent is in the process of being upgraded to a compatible version. This might take a few minutes",
  ];
}

function noSkipInstallationDisk(): Outcome {
  // No disk is ever marked to skip formatting here.
  return ['success', 'No request to skip formatting of the installation disk'];
}

function noSkipMissingDisk(c: Context): Outcome {
  if (!c.host.inventory) return ['pending', 'Host inventory not available yet'];
  return ['success', 'All disks that have skipped formatting are present in the host inventory'];
}

/** Addresses (`address/prefix`) of an interface, IPv4 then IPv6. */
function addressesOf(iface: {
  ipv4_addresses?: readonly string[];
  ipv6_addresses?: readonly string[];
}): string[] {
  return [...(iface.ipv4_addresses ?? []), ...(iface.ipv6_addresses ?? [])];
}

/** True when the address (`address/prefix`) is the IP. */
function isAddressOf(address: string, ip: IpAddress): boolean {
  const own = parseIp(address.split('/')[0] ?? '');
  return own?.family === ip.family && own.value === ip.value;
}

function noIpCollisionsInNetwork(c: Context): Outcome {
  if (!c.cluster) return ['success', 'Cluster has not yet been defined, skipping validation.'];
  if (!c.inventory) {
    return ['success', 'Host inventory has not yet been defined, skipping validation.'];
  }
  const addresses = (c.inventory.interfaces ?? []).flatMap(addressesOf);
  const collisions = ipCollisions(c.hosts);
  let text = '';
  for (const ip of Object.keys(collisions).sort()) {
    const target = parseIp(ip);
    if (!target) continue;
    const bad = addresses.find((a) => !parseCidr(a));
    if (bad !== undefined) {
      return [
        'error',
        `inventory of host ${c.host.id} contains bad CIDR: invalid CIDR address: ${bad}`,
      ];
    }
    if (addresses.some((a) => isAddressOf(a, target))) {
      text += `Collisions detected for host ID ${c.host.id}, IP address: ${ip} Mac addresses: ${collisions[ip]!.join(',')}\n`;
    }
  }
  if (text !== '') return ['failure', text];
  return ['success', `No IP collisions were detected by host ${c.host.id}`];
}

function iscsiNicCheck(c: Context, disk: InventoryDisk): Outcome {
  const hostIp = disk.iscsi?.host_ip_address;
  if (hostIp === undefined) return ['error', 'iSCSI disk is missing host IP address'];
  const ip = parseIp(hostIp);
  const nic = ip
    ? (c.inventory?.interfaces ?? []).find((i) => addressesOf(i).some((a) => isAddressOf(a, ip)))
    : undefined;
  if (!nic) return ['error', 'Cannot find network interface associated to iSCSI host IP address'];
  const inMachineNetwork = (c.cluster?.machineNetworks ?? []).some((network) => {
    const cidr = parseCidr(network);
    if (!cidr) return false;
    return ((cidr.family === 4 ? nic.ipv4_addresses : nic.ipv6_addresses) ?? []).some((a) => {
      const own = parseIp(a.split('/')[0] ?? '');
      return own !== undefined && cidrContains(cidr, own);
    });
  });
  return inMachineNetwork
    ? [
        'failure',
        'Network interface connected to iSCSI disk cannot belong to machine network CIDRs',
      ]
    : [
        'success',
        'Network interface connected to iSCSI disk does not belong to machine network CIDRs',
      ];
}

function noIscsiNicBelongsToMachineCidr(c: Context): Outcome {
  const cluster = c.cluster;
  if (!cluster) return ['success-suppress-output', ''];
  if (umn(cluster) && !isSingleNode(cluster)) return ['success-suppress-output', ''];
  const disk = installationDisk(c);
  if (!disk) return ['success-suppress-output', ''];
  if (!c.inventory || !machineCidrAvailable(cluster)) {
    return ['pending', 'Missing inventory or machine network CIDR'];
  }
  if (disk.drive_type === 'iSCSI') return iscsiNicCheck(c, disk);
  if (disk.drive_type !== 'Multipath') return ['success-suppress-output', ''];
  const failing: string[] = [];
  let last: Outcome = ['success', ''];
  for (const member of c.disks.filter(
    (d) => d.drive_type === 'iSCSI' && (d.holders ?? '').includes(disk.name ?? ''),
  )) {
    last = iscsiNicCheck(c, member);
    if (last[0] === 'error') return last;
    if (last[0] === 'failure') failing.push(member.name ?? '');
  }
  if (failing.length > 0) {
    return [
      'failure',
      `Installation on multipath device is not possible due to errors on at least one iSCSI disk: Network interface connected to iSCSI disk (${failing.join(', ')}) cannot belong to machine network CIDRs`,
    ];
  }
  return ['success', last[1]];
}

const VALIDATIONS: readonly (readonly [HostValidationId, (c: Context) => Outcome])[] = [
  [HostValidationId.Connected, connected],
  [HostValidationId.MediaConnected, mediaConnected],
  [HostValidationId.HasInventory, hasInventory],
  [HostValidationId.InventoryNotPartiallyTruncated, inventoryNotPartiallyTruncated],
  [HostValidationId.InventoryNotFullyTruncated, inventoryNotFullyTruncated],
  [HostValidationId.HasMinCpuCores, hasMinCpuCores],
  [HostValidationId.HasMinMemory, hasMinMemory],
  [HostValidationId.HasMinValidDisks, hasMinValidDisks],
  [HostValidationId.MachineCidrDefined, machineCidrDefined],
  [HostValidationId.HasCpuCoresForRole, hasCpuCoresForRole],
  [HostValidationId.HasMemoryForRole, hasMemoryForRole],
  [HostValidationId.HostnameUnique, hostnameUnique],
  [HostValidationId.BelongsToMachineCidr, belongsToMachineCidr],
  [HostValidationId.HostnameValid, hostnameValid],
  [HostValidationId.IgnitionDownloadable, ignitionDownloadable],
  [HostValidationId.BelongsToMajorityGroup, belongsToMajorityGroup],
  [HostValidationId.MtuValid, mtuValid],
  [HostValidationId.ValidPlatformNetworkSettings, validPlatformNetworkSettings],
  [HostValidationId.NtpSynced, ntpSynced],
  [HostValidationId.TimeSyncedBetweenHostAndService, timeSyncedBetweenHostAndService],
  [HostValidationId.ContainerImagesAvailable, containerImagesAvailable],
  [HostValidationId.SufficientInstallationDiskSpeed, sufficientInstallationDiskSpeed],
  [HostValidationId.SufficientNetworkLatencyRequirementForRole, sufficientNetworkLatency],
  [HostValidationId.SufficientPacketLossRequirementForRole, sufficientPacketLoss],
  [HostValidationId.HasDefaultRoute, hasDefaultRoute],
  [HostValidationId.ApiDomainNameResolvedCorrectly, apiDomainResolved],
  [HostValidationId.ApiIntDomainNameResolvedCorrectly, apiIntDomainResolved],
  [HostValidationId.AppsDomainNameResolvedCorrectly, appsDomainResolved],
  [HostValidationId.CompatibleWithClusterPlatform, compatibleWithClusterPlatform],
  [HostValidationId.DnsWildcardNotConfigured, dnsWildcardNotConfigured],
  [HostValidationId.DiskEncryptionRequirementsSatisfied, diskEncryptionRequirementsSatisfied],
  [HostValidationId.NonOverlappingSubnets, nonOverlappingSubnets],
  [HostValidationId.VsphereDiskUuidEnabled, vsphereDiskUuidEnabled],
  [HostValidationId.CompatibleAgent, compatibleAgent],
  [HostValidationId.NoSkipInstallationDisk, noSkipInstallationDisk],
  [HostValidationId.NoSkipMissingDisk, noSkipMissingDisk],
  [HostValidationId.NoIpCollisionsInNetwork, noIpCollisionsInNetwork],
  [HostValidationId.NoIscsiNicBelongsToMachineCidr, noIscsiNicBelongsToMachineCidr],
];

/**
 * Runs every host validation. The result holds every validation, `success-suppress-output`
 * ones included, so a reader can tell "passed" from "not run"; {@link publishedValidations}
 * gives what assisted-service shows in `validationsInfo`. Operators we do not install report
 * success `<operator> is disabled`, as upstream does for operators a cluster does not enable.
 */
export function validateHost(host: ValidatedHost, ctx: HostValidationContext): ValidationsInfo {
  const cluster = ctx.cluster;
  const hw = ctx.hw ?? hwRequirementsFor(cluster?.openshiftVersion ?? '');
  const hosts = cluster ? [...ctx.clusterHosts.filter((h) => h.id !== host.id), host] : [host];
  const inventory = validInventory(host.inventory);
  const requirements = roleRequirements(host, cluster, hw);
  const validated = cluster ? sortLike(ctx.clusterHosts, hosts) : hosts;
  let groups: Connectivity | undefined;
  const context: Context = {
    host,
    cluster,
    hosts: validated,
    now: ctx.now,
    connected: ctx.connected,
    inventory,
    disks: inventory
      ? withDiskEligibility(inventory, requirements.diskSizeGb, cluster?.openshiftVersion ?? '')
      : [],
    requirements,
    minimum: minimumRequirements(cluster, hw),
    agentImage: ctx.agentImage,
    connectivity: () => (groups ??= ctx.connectivity ?? connectivityMajorityGroups(validated)),
  };
  const info: Record<string, ValidationResult[]> = {};
  for (const [id, run] of VALIDATIONS) {
    const [status, message] = run(context);
    (info[hostValidationCategory(id)] ??= []).push({ id, status, message });
  }
  if (cluster) {
    const operators = OPERATORS.map((o): ValidationResult => ({
      id: o.validationId,
      status: 'success',
      message: `${o.name} is disabled`,
    })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    info['operators'] = operators;
  }
  return byCategoryName(info);
}

/** Categories in name order, as Go marshals the map (`hardware`, `network`, `operators`). */
export function byCategoryName(
  info: Readonly<Record<string, readonly ValidationResult[]>>,
): ValidationsInfo {
  return Object.fromEntries(Object.entries(info).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The cluster's hosts in their given order, with the validated host's record in its place. */
function sortLike(
  given: readonly ValidatedHost[],
  hosts: readonly ValidatedHost[],
): ValidatedHost[] {
  const byId = new Map(hosts.map((h) => [h.id, h]));
  const ordered = given
    .map((h) => byId.get(h.id))
    .filter((h): h is ValidatedHost => h !== undefined);
  const seen = new Set(ordered.map((h) => h.id));
  return [...ordered, ...hosts.filter((h) => !seen.has(h.id))];
}

/**
 * What assisted-service stores and shows: without `success-suppress-output` results, without
 * connected/media-connected/ntp-synced/time-synced once the host is past its reboot, and without
 * compatible-agent while it installs.
 */
export function publishedValidations(
  info: ValidationsInfo,
  currentStage?: HostStage,
): ValidationsInfo {
  const out: Record<string, ValidationResult[]> = {};
  for (const [category, results] of Object.entries(info)) {
    const kept = results.filter((r) => {
      if (r.status === 'success-suppress-output') return false;
      if (currentStage === undefined) return true;
      if (r.id === 'compatible-agent') return false;
      const rebootSkipped = [
        'connected',
        'media-connected',
        'ntp-synced',
        'time-synced-between-host-and-service',
      ];
      return !(MANUAL_REBOOT_STAGES.includes(currentStage) && rebootSkipped.includes(r.id));
    });
    if (kept.length > 0) out[category] = kept;
  }
  return out;
}
