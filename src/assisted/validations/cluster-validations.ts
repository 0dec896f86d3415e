/**
 * The cluster validations of assisted-service (AS `internal/cluster/validator.go`, run as in
 * `internal/cluster/refresh_status_preprocessor.go`; assisted.md §5.3) for a day-1 kube-api
 * cluster with a cluster-managed load balancer. Pure.
 */
import type {
  ClusterRecord,
  ClusterStatus,
  HostRecord,
  HostStatus,
  ValidationResult,
  ValidationStatus,
  ValidationsInfo,
} from '../model.js';
import { cidrsOverlap, formatCidrNetwork, parseCidr, type IpFamily } from '../../shared/ip.js';
import { BYTES_PER_MIB } from './format.js';
import {
  effectiveRole,
  hwRequirementsFor,
  isSingleNode,
  MEMORY_TOLERANCE_MIB,
  type HwRequirements,
} from './hardware.js';
import { byCategoryName, type ValidatedHost } from './host-validations.js';
import { ClusterValidationId, clusterValidationCategory, OPERATORS } from './ids.js';
import { isIgnored } from './ignored.js';
import {
  calculateMachineNetworkCidr,
  multiErrorText,
  verifyVip,
  vipVerification,
} from './network.js';

/** What cluster validations need beyond the cluster and its hosts. */
export interface ClusterValidationContext {
  readonly now: Date;
  /** Requirements of the cluster's version. @default hwRequirementsFor(cluster.openshiftVersion) */
  readonly hw?: HwRequirements;
  /**
   * Whether custom manifests were given (third-party network types need them).
   * @default false
   */
  readonly hasCustomManifests?: boolean;
}

type Outcome = readonly [ValidationStatus, string];

/** Cluster statuses in which validations are recomputed; elsewhere the last result stands. */
export const CLUSTER_VALIDATING_STATUSES: readonly ClusterStatus[] = [
  'insufficient',
  'ready',
  'pending-for-input',
  'preparing-for-installation',
];

const READY_HOST_STATUSES: readonly HostStatus[] = [
  'known',
  'preparing-for-installation',
  'preparing-successful',
];
const NTP_SKIPPED_STATUSES: readonly HostStatus[] = [
  'disconnected',
  'resetting-pending-user-action',
  'discovering',
];
/** `HW_VALIDATOR_MAX_TIME_DIFF_MINUTES`. */
const MAX_CLOCK_GAP_MINUTES = 4;
const DEFAULT_IPV4_HOST_PREFIX = 25;
const DEFAULT_IPV6_HOST_PREFIX = 64;
const MIN_MASK_DELTA = 7;
const VALID_NETWORK_TYPES = [
  'OVNKubernetes',
  'OpenShiftSDN',
  'Cilium',
  'Calico',
  'CiscoACI',
  'None',
];
const THIRD_PARTY_CNIS = ['Cilium', 'Calico', 'CiscoACI', 'None'];

interface Context {
  readonly cluster: ClusterRecord;
  readonly hosts: readonly ValidatedHost[];
  readonly hasHostsWithInventories: boolean;
  readonly hw: HwRequirements;
  readonly hasCustomManifests: boolean;
}

const umn = (c: ClusterRecord): boolean => c.userManagedNetworking;
const machineNetworkRequired = (c: ClusterRecord): boolean => !umn(c) || isSingleNode(c);
const passed = (o: Outcome): boolean => o[0] === 'success';

function machineCidrDefined(c: Context): Outcome {
  if (umn(c.cluster) && !isSingleNode(c.cluster)) {
    return ['success', 'No Machine Network CIDR needed: User Managed Networking'];
  }
  if (c.cluster.machineNetworks.length > 0)
    return ['success', 'The Machine Network CIDR is defined.'];
  if (!c.hasHostsWithInventories) return ['pending', 'Hosts have not been discovered yet'];
  if (isSingleNode(c.cluster)) {
    return [
      'failure',
      'The Machine Network CIDR is undefined; Setting Machine Network CIDR is required for single node cluster',
    ];
  }
  return [
    'failure',
    'The Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs.',
  ];
}

function clusterCidrDefined(c: Context): Outcome {
  return c.cluster.clusterNetworks.length > 0
    ? ['success', 'The Cluster Network CIDR is defined.']
    : ['failure', 'The Cluster Network CIDR is undefined.'];
}

function serviceCidrDefined(c: Context): Outcome {
  return c.cluster.serviceNetworks.length > 0
    ? ['success', 'The Service Network CIDR is defined.']
    : ['failure', 'The Service Network CIDR is undefined.'];
}

/** Go's `net.ParseCIDR` network form, or the error it reports. */
function normalizeCidr(text: string): { readonly cidr: string } | { readonly error: string } {
  const cidr = parseCidr(text);
  return cidr ? { cidr: formatCidrNetwork(cidr) } : { error: `invalid CIDR address: ${text}` };
}

function machineCidrEqualsToCalculatedCidr(c: Context): Outcome {
  const cluster = c.cluster;
  if (umn(cluster))
    return ['success', 'The Cluster Machine CIDR is not required: User Managed Networking'];
  if (cluster.apiVips.length === 0 && cluster.ingressVips.length === 0) {
    return [
      'pending',
      'The Machine Network CIDR, API virtual IPs, or Ingress virtual IPs are undefined.',
    ];
  }
  if (!c.hasHostsWithInventories) return ['pending', 'Hosts have not been discovered yet'];
  const errors: string[] = [];
  cluster.apiVips.forEach((apiVip, i) => {
    const calculated = calculateMachineNetworkCidr(apiVip, cluster.ingressVips[i] ?? '', c.hosts);
    if ('error' in calculated) {
      errors.push(calculated.error);
      return;
    }
    if (cluster.machineNetworks.length === 0) return;
    const user = cluster.machineNetworks[i] ?? '';
    const normalized = normalizeCidr(user);
    if ('error' in normalized) {
      errors.push(`failed to normalize user machine CIDR ${user}: ${normalized.error}`);
      return;
    }
    if (calculated.cidr !== normalized.cidr) {
      errors.push(
        `The Cluster Machine CIDR ${user} is different than the calculated CIDR ${calculated.cidr}.`,
      );
    }
  });
  if (errors.length > 0) return ['failure', multiErrorText(errors)];
  return ['success', 'The Cluster Machine CIDR is equivalent to the calculated CIDR.'];
}

type VipKind = 'API' | 'Ingress';

function vipsOf(c: Context, kind: VipKind): readonly string[] {
  return kind === 'API' ? c.cluster.apiVips : c.cluster.ingressVips;
}

function vipsDefined(c: Context, kind: VipKind): Outcome {
  if (umn(c.cluster))
    return ['success', `${kind} virtual IPs are not required: User Managed Networking`];
  if (isSingleNode(c.cluster)) return ['success', `${kind} virtual IPs are not required: SNO`];
  if (vipsOf(c, kind).length > 0) return ['success', `${kind} virtual IPs are defined.`];
  return ['failure', `${kind} virtual IPs are undefined and must be provided.`];
}

function vipsValid(c: Context, kind: VipKind): Outcome {
  if (umn(c.cluster))
    return ['success', `${kind} virtual IPs are not required: User Managed Networking`];
  if (isSingleNode(c.cluster)) return ['success', `${kind} virtual IPs are not required: SNO`];
  const vips = vipsOf(c, kind);
  if (vips.length === 0) return ['pending', `${kind} virtual IPs are undefined.`];
  if (!c.hasHostsWithInventories || !passed(machineCidrDefined(c))) {
    return ['pending', 'Hosts have not been discovered yet'];
  }
  const name = `${kind.toLowerCase()} vips`;
  const type = kind === 'API' ? 'api' : 'ingress';
  const errors: string[] = [];
  let failed = false;
  for (const [i, vip] of vips.entries()) {
    const result = verifyVip(
      c.hosts,
      c.cluster.machineNetworks[i] ?? '',
      vip,
      name,
      vipVerification(c.hosts, vip, type),
    );
    if (result.verification !== 'succeeded') failed = true;
    if (result.error !== undefined) errors.push(result.error);
  }
  if (failed) return ['failure', errors.join(';')];
  return ['success', `${name} ${vips.join(', ')} belongs to the Machine CIDR and is not in use.`];
}

function allCidrs(cluster: ClusterRecord): string[] {
  return [
    ...cluster.clusterNetworks.map((n) => n.cidr),
    ...cluster.serviceNetworks,
    ...cluster.machineNetworks,
  ];
}

function networkTypeValid(c: Context): Outcome {
  const type = c.cluster.networkType;
  if (type !== '' && !VALID_NETWORK_TYPES.includes(type)) {
    return [
      'failure',
      'The network type is not valid; the valid network types are OpenShiftSDN, OVNKubernetes, Cilium, Calico, CiscoACI, or None',
    ];
  }
  if (type === 'OpenShiftSDN' && allCidrs(c.cluster).some((t) => parseCidr(t)?.family === 6)) {
    return [
      'failure',
      'The cluster is configured with IPv6 which is not supported by OpenShiftSDN; use OVNKubernetes instead',
    ];
  }
  if (type === 'OpenShiftSDN' && isSingleNode(c.cluster)) {
    return [
      'failure',
      "Control Plane Count '1' (SNO) is not supported by OpenShiftSDN; use another network type instead",
    ];
  }
  return ['success', 'The cluster has a valid network type'];
}

function customManifestsRequirementsSatisfied(c: Context): Outcome {
  const type = c.cluster.networkType;
  if (!THIRD_PARTY_CNIS.includes(type)) return ['success', 'No custom manifests are required'];
  if (c.hasCustomManifests) return ['success', 'Custom manifests are uploaded'];
  return [
    'failure',
    `Custom manifests are required for: ${type} network type. Please upload manifests via the custom manifests API.`,
  ];
}

function allHostsAreReadyToInstall(c: Context): Outcome {
  return c.hosts.every((h) => READY_HOST_STATUSES.includes(h.status))
    ? ['success', 'All hosts in the cluster are ready to install.']
    : ['failure', 'The cluster has hosts that are not ready to install.'];
}

/** `IsValidCandidate`: could this auto-assign host take the role (cores and RAM for it)? */
function validCandidate(c: Context, host: ValidatedHost, role: 'master' | 'arbiter'): boolean {
  if (
    host.role !== 'auto-assign' &&
    host.role !== role &&
    !(role === 'master' && host.role === 'bootstrap')
  ) {
    return false;
  }
  const inventory = host.inventory;
  if (!inventory?.cpu || !inventory.memory) return false;
  const req = role === 'arbiter' ? c.hw.arbiter : isSingleNode(c.cluster) ? c.hw.sno : c.hw.master;
  const ignored = c.cluster.ignoredHostValidations;
  const cpuOk =
    (inventory.cpu.count ?? 0) >= req.cpuCores ||
    isIgnored('has-cpu-cores-for-role', ignored, 'host');
  const ramOk =
    (inventory.memory.physical_bytes ?? 0) >= (req.ramMib - MEMORY_TOLERANCE_MIB) * BYTES_PER_MIB ||
    isIgnored('has-memory-for-role', ignored, 'host');
  return cpuOk && ramOk;
}

function sufficientMastersCount(c: Context): Outcome {
  const expected = c.cluster.controlPlaneAgents;
  let masters = 0;
  let arbiters = 0;
  let workers = 0;
  const autoAssign: ValidatedHost[] = [];
  for (const host of c.hosts) {
    const role = effectiveRole(host);
    if (role === 'master' || role === 'bootstrap') masters++;
    else if (role === 'arbiter') arbiters++;
    else if (role === 'worker') workers++;
    else autoAssign.push(host);
  }
  const arbiterMode = expected < 3 && expected >= 2;
  for (const host of autoAssign) {
    if (masters < expected && validCandidate(c, host, 'master')) {
      masters++;
      continue;
    }
    if (arbiterMode && arbiters === 0 && validCandidate(c, host, 'arbiter')) {
      arbiters++;
      continue;
    }
    workers++;
  }
  let ok = masters === expected;
  let suffix = '';
  if (arbiterMode && arbiters === 0) {
    ok = false;
    suffix =
      ' and at least 1 arbiter node or the control plane nodes must have fencing credentials';
  }
  if (expected === 1 && workers !== 0) ok = false;
  if (ok) return ['success', 'The cluster has the exact amount of dedicated control plane nodes.'];
  if (expected === 1) {
    return [
      'failure',
      'Single-node clusters must have a single control plane node and no workers.',
    ];
  }
  return [
    'failure',
    `The cluster must have exactly ${String(expected)} dedicated control plane nodes${suffix}. Add or remove hosts, or change their roles configurations to meet the requirement.`,
  ];
}

function dnsDomainDefined(c: Context): Outcome {
  return c.cluster.baseDnsDomain !== ''
    ? ['success', 'The base domain is defined.']
    : ['failure', 'The base domain is undefined and must be provided.'];
}

function pullSecretSet(c: Context): Outcome {
  return c.cluster.pullSecretSet
    ? ['success', 'The pull secret is set.']
    : ['failure', 'The pull secret is not set.'];
}

function overlapError(a: string, b: string): string | undefined {
  if (a === '' || b === '') return undefined;
  const ca = parseCidr(a);
  if (!ca) return `Failed to parse CIDR '${a}': invalid CIDR address: ${a}`;
  const cb = parseCidr(b);
  if (!cb) return `Failed to parse CIDR '${b}': invalid CIDR address: ${b}`;
  return cidrsOverlap(ca, cb) ? `CIDRS ${a} and ${b} overlap` : undefined;
}

function noCidrsOverlapping(c: Context): Outcome {
  const cluster = c.cluster;
  if (
    !passed(clusterCidrDefined(c)) ||
    !passed(serviceCidrDefined(c)) ||
    (machineNetworkRequired(cluster) && !passed(machineCidrDefined(c)))
  ) {
    if (umn(cluster)) {
      return [
        'pending',
        'At least one of the CIDRs (Cluster Network, Service Network) is undefined.',
      ];
    }
    return [
      'pending',
      'At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.',
    ];
  }
  if (cluster.clusterNetworks.length !== cluster.serviceNetworks.length) {
    return ['error', 'A mismatch between the number of Cluster and Service networks'];
  }
  let machine = '';
  for (const [i, clusterNetwork] of cluster.clusterNetworks.entries()) {
    if (i < cluster.machineNetworks.length) machine = cluster.machineNetworks[i]!;
    const service = cluster.serviceNetworks[i]!;
    const pairs: [string, string, string][] = [];
    if (machineNetworkRequired(cluster)) {
      pairs.push(['MachineNetworkCIDR and ServiceNetworkCIDR', machine, service]);
      pairs.push(['MachineNetworkCIDR and ClusterNetworkCidr', machine, clusterNetwork.cidr]);
    }
    pairs.push(['ServiceNetworkCidr and ClusterNetworkCidr', service, clusterNetwork.cidr]);
    for (const [what, a, b] of pairs) {
      const error = overlapError(a, b);
      if (error !== undefined) return ['failure', `CIDRS Overlapping: ${what}: ${error}.`];
    }
  }
  return ['success', 'No CIDRS are overlapping.'];
}

/** Families of CIDRs, sorted (IPv4 first); undefined when one does not parse. */
function families(cidrs: readonly string[]): IpFamily[] | undefined {
  const out: IpFamily[] = [];
  for (const text of cidrs) {
    const cidr = parseCidr(text);
    if (!cidr) return undefined;
    out.push(cidr.family);
  }
  return out.sort();
}

const canonize = (list: readonly IpFamily[]): IpFamily[] =>
  list.filter((f, i) => i === 0 || list[i - 1] !== f);
const sameList = (a: readonly IpFamily[], b: readonly IpFamily[]): boolean =>
  a.length === b.length && a.every((f, i) => f === b[i]);

function networksSameAddressFamilies(c: Context): Outcome {
  const cluster = c.cluster;
  const required = machineNetworkRequired(cluster);
  const clusterDefined = passed(clusterCidrDefined(c));
  const serviceDefined = passed(serviceCidrDefined(c));
  if (!required && (!clusterDefined || !serviceDefined)) {
    return [
      'pending',
      'At least one of the CIDRs (Cluster Network, Service Network) is undefined.',
    ];
  }
  if (required && (!passed(machineCidrDefined(c)) || !clusterDefined || !serviceDefined)) {
    return [
      'pending',
      'At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.',
    ];
  }
  const service = families(cluster.serviceNetworks);
  const clusterFamilies = families(cluster.clusterNetworks.map((n) => n.cidr));
  if (!service || !clusterFamilies) return ['error', 'Bad CIDR(s) appears in one of the networks'];
  if (!sameList(service, canonize(clusterFamilies))) {
    return [
      'failure',
      'Address families of networks (ServiceNetworks, ClusterNetworks) are not the same.',
    ];
  }
  if (required) {
    const machine = families(cluster.machineNetworks);
    if (!machine)
      return ['error', `Error getting machine address families for cluster ${cluster.id}`];
    if (!sameList(service, canonize(machine))) {
      return [
        'failure',
        'Address families of networks (MachineNetworks, ServiceNetworks, ClusterNetworks) are not the same.',
      ];
    }
  }
  return ['success', 'Same address families for all networks.'];
}

/** `VerifyClusterCidrSize`: the error, or undefined when the network fits the hosts. */
function clusterCidrSizeError(
  hostPrefix: number,
  cidrText: string,
  hostCount: number,
): string | undefined {
  const cidr = parseCidr(cidrText);
  if (!cidr) return `Failed to parse CIDR '${cidrText}': invalid CIDR address: ${cidrText}`;
  const bits = cidr.family === 4 ? 32 : 128;
  if (hostPrefix > bits - MIN_MASK_DELTA) {
    return `Host prefix, now ${String(hostPrefix)}, must be less than or equal to ${String(bits - MIN_MASK_DELTA)} to allow at least 128 addresses`;
  }
  const requested = hostCount === 1 ? 1 : Math.max(4, hostCount);
  const possible = 1n << BigInt(Math.min(63, Math.max(hostPrefix - cidr.prefix, 0)));
  if (BigInt(requested) > possible) {
    const addresses = 1n << BigInt(Math.min(63, bits - hostPrefix));
    return `Cluster network CIDR prefix ${String(cidr.prefix)} does not contain enough addresses for ${String(hostCount)} hosts each one with ${String(hostPrefix)} prefix (${addresses.toString()} addresses)`;
  }
  return undefined;
}

function networkPrefixValid(c: Context): Outcome {
  if (!passed(clusterCidrDefined(c))) return ['pending', 'The Cluster Network CIDR is undefined.'];
  const type = c.cluster.networkType === '' ? 'OVNKubernetes' : c.cluster.networkType;
  // Only OVN-Kubernetes and OpenShift SDN use hostPrefix; others are checked with defaults.
  const skipHostPrefix = !['OVNKubernetes', 'OpenShiftSDN'].includes(type);
  for (const network of c.cluster.clusterNetworks) {
    if (!skipHostPrefix && network.hostPrefix < 1) {
      return [
        'failure',
        `Invalid Cluster Network prefix: Host prefix, now ${String(network.hostPrefix)}, must be a positive integer.`,
      ];
    }
    const prefix = skipHostPrefix
      ? parseCidr(network.cidr)?.family === 6
        ? DEFAULT_IPV6_HOST_PREFIX
        : DEFAULT_IPV4_HOST_PREFIX
      : network.hostPrefix;
    const error = clusterCidrSizeError(prefix, network.cidr, c.hosts.length);
    if (error !== undefined) return ['failure', error];
  }
  return ['success', 'The Cluster Network prefix is valid.'];
}

function ntpServerConfigured(c: Context): Outcome {
  let min = 0;
  let max = 0;
  for (const host of c.hosts) {
    const ts = host.agentTimestamp ?? 0;
    if (NTP_SKIPPED_STATUSES.includes(host.status) || ts === 0) continue;
    if (ts < min || min === 0) min = ts;
    if (ts > max) max = ts;
  }
  if (Math.trunc((max - min) / 60) <= MAX_CLOCK_GAP_MINUTES)
    return ['success', 'No ntp problems found'];
  return [
    'failure',
    `Hosts' clocks are not synchronized (there's more than a ${String(MAX_CLOCK_GAP_MINUTES)} minutes gap between clocks), please configure an NTP server via DHCP or set clocks manually.`,
  ];
}

function platformRequirementsSatisfied(): Outcome {
  // Only Oracle Cloud (external platform) has requirements; we install baremetal and none.
  return ['success', 'Platform requirements satisfied'];
}

const VALIDATIONS: readonly (readonly [ClusterValidationId, (c: Context) => Outcome])[] = [
  [ClusterValidationId.MachineCidrDefined, machineCidrDefined],
  [ClusterValidationId.MachineCidrEqualsToCalculatedCidr, machineCidrEqualsToCalculatedCidr],
  [ClusterValidationId.ApiVipsDefined, (c) => vipsDefined(c, 'API')],
  [ClusterValidationId.ApiVipsValid, (c) => vipsValid(c, 'API')],
  [ClusterValidationId.NetworkTypeValid, networkTypeValid],
  [ClusterValidationId.CustomManifestsRequirementsSatisfied, customManifestsRequirementsSatisfied],
  [ClusterValidationId.IngressVipsDefined, (c) => vipsDefined(c, 'Ingress')],
  [ClusterValidationId.IngressVipsValid, (c) => vipsValid(c, 'Ingress')],
  [ClusterValidationId.AllHostsAreReadyToInstall, allHostsAreReadyToInstall],
  [ClusterValidationId.SufficientMastersCount, sufficientMastersCount],
  [ClusterValidationId.DnsDomainDefined, dnsDomainDefined],
  [ClusterValidationId.PullSecretSet, pullSecretSet],
  [ClusterValidationId.ClusterCidrDefined, clusterCidrDefined],
  [ClusterValidationId.ServiceCidrDefined, serviceCidrDefined],
  [ClusterValidationId.NoCidrsOverlapping, noCidrsOverlapping],
  [ClusterValidationId.NetworkPrefixValid, networkPrefixValid],
  [ClusterValidationId.NtpServerConfigured, ntpServerConfigured],
  [ClusterValidationId.NetworksSameAddressFamilies, networksSameAddressFamilies],
  [ClusterValidationId.PlatformRequirementsSatisfied, platformRequirementsSatisfied],
];

/**
 * Runs every cluster validation over the cluster and its hosts (its bound hosts, in any
 * order). Outside the validating statuses ({@link CLUSTER_VALIDATING_STATUSES}) upstream keeps
 * the last results, and so does this: it returns `cluster.validationsInfo`. Results are sorted
 * by id within each category; operators we do not install report `<operator> is disabled`.
 */
export function validateCluster(
  cluster: ClusterRecord,
  hosts: readonly (HostRecord | ValidatedHost)[],
  ctx: ClusterValidationContext,
): ValidationsInfo {
  if (!CLUSTER_VALIDATING_STATUSES.includes(cluster.status)) return cluster.validationsInfo;
  const context: Context = {
    cluster,
    hosts,
    hasHostsWithInventories: hosts.some((h) => h.inventory !== undefined),
    hw: ctx.hw ?? hwRequirementsFor(cluster.openshiftVersion),
    hasCustomManifests: ctx.hasCustomManifests ?? false,
  };
  const info: Record<string, ValidationResult[]> = {};
  for (const [id, run] of VALIDATIONS) {
    const [status, message] = run(context);
    (info[clusterValidationCategory(id)] ??= []).push({ id, status, message });
  }
  for (const operator of OPERATORS) {
    (info['operators'] ??= []).push({
      id: operator.validationId,
      status: 'success',
      message: `${operator.name} is disabled`,
    });
  }
  for (const results of Object.values(info)) {
    results.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
  return byCategoryName(info);
}
