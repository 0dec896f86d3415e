/**
 * Cluster-wide network facts the validations read, computed from every host's inventory and
 * step results as assisted-service's cluster monitor does (AS `internal/network/*.go`,
 * `internal/cluster/cluster.go`): connectivity majority groups, L3-connected addresses, IP
 * collisions, the machine network a VIP implies, and VIP verification.
 */
import type { HostRecord, WireInventory } from '../model.js';
import {
  cidrContains,
  familyBits,
  formatCidrNetwork,
  formatIp,
  parseCidr,
  parseIp,
  type Cidr,
  type IpFamily,
} from '../../shared/ip.js';
import {
  parseConnectivityReport,
  parseFreeNetworksAddresses,
  parseVerifyVipsResponse,
  type ConnectivityReport,
} from './step-results.js';

/** `connectivity_majority_groups`: L2 groups per network CIDR and L3 groups per `IPv4`/`IPv6`. */
export interface Connectivity {
  readonly majorityGroups: Readonly<Record<string, readonly string[]>>;
  /** Host id → addresses every other host reached over L3. */
  readonly l3ConnectedAddresses: Readonly<Record<string, readonly string[]>>;
}

/** A host's connectivity report, or undefined when absent or malformed. */
export function connectivityReportOf(host: HostRecord): ConnectivityReport | undefined {
  const raw = host.stepResults.connectivity;
  if (raw === undefined || raw === null || raw === '') return undefined;
  const parsed = parseConnectivityReport(raw);
  return parsed.ok ? parsed.value : undefined;
}

/** `address/prefix` of an interface as Go's `net.ParseCIDR` network: `10.0.0.0/24`. */
export function networkOfAddress(address: string): string | undefined {
  const cidr = parseCidr(address);
  return cidr ? formatCidrNetwork(cidr) : undefined;
}

/** The network CIDRs of every host's interfaces (`GetInventoryNetworks`), sorted. */
export function inventoryNetworks(hosts: readonly HostRecord[]): string[] {
  const networks = new Set<string>();
  for (const host of hosts) {
    for (const iface of host.inventory?.interfaces ?? []) {
      for (const address of [...(iface.ipv4_addresses ?? []), ...(iface.ipv6_addresses ?? [])]) {
        const network = networkOfAddress(address);
        if (network) networks.add(network);
      }
    }
  }
  return [...networks].sort();
}

const bit = (i: number): bigint => 1n << BigInt(i);

function members(set: bigint): number[] {
  const out: number[] = [];
  for (let i = 0; set >> BigInt(i) !== 0n; i++) if ((set >> BigInt(i)) & 1n) out.push(i);
  return out;
}

const sizeOf = (set: bigint): number => members(set).length;

/** `groupId.isLess`: bigger groups first, then by member indices. */
function idLess(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return a.length > b.length;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i < a.length && a[i]! < b[i]!;
}

interface Group {
  set: bigint;
  participatingHosts: bigint;
  participatingPrimaryGroups?: bigint;
}

function mergeParticipants(into: Group, other: Group): void {
  into.participatingHosts = into.set & (into.participatingHosts | other.participatingHosts);
  if (
    into.participatingPrimaryGroups !== undefined &&
    other.participatingPrimaryGroups !== undefined
  ) {
    into.participatingPrimaryGroups |= other.participatingPrimaryGroups;
  }
}

class GroupList {
  readonly bySize = new Map<number, Group[]>();

  addOrMerge(group: Group): void {
    const size = sizeOf(group.set);
    const list = this.bySize.get(size);
    const found = list?.find((g) => g.set === group.set);
    if (found) mergeParticipants(found, group);
    else if (list) list.push(group);
    else this.bySize.set(size, [group]);
  }

  biggestSize(): number {
    return Math.max(0, ...this.bySize.keys());
  }

  largest(minSize: number): Group | undefined {
    const size = this.biggestSize();
    if (size < minSize) return undefined;
    let best: Group | undefined;
    for (const g of this.bySize.get(size) ?? []) {
      const gp = sizeOf(g.participatingHosts);
      const bp = best ? sizeOf(best.participatingHosts) : -1;
      if (!best || bp < gp || (bp === gp && idLess(members(g.set), members(best.set)))) best = g;
    }
    return best;
  }
}

/** The largest full-mesh group of hosts (indices) in a mutual-connectivity relation. */
function fullMeshGroup(
  connected: (a: number, b: number) => boolean,
  n: number,
  minSize: number,
): number[] {
  const list = new GroupList();
  for (let me = 0; me < n; me++) {
    let set = bit(me);
    for (let other = 0; other < n; other++) if (connected(me, other)) set |= bit(other);
    if (sizeOf(set) >= minSize) list.addOrMerge({ set, participatingHosts: bit(me) });
  }
  const primaries = [...list.bySize.keys()]
    .sort((a, b) => b - a)
    .flatMap((size) => list.bySize.get(size) ?? []);
  primaries.forEach((g, i) => (g.participatingPrimaryGroups = bit(i)));
  for (let candidate = list.largest(minSize); candidate; candidate = list.largest(minSize)) {
    if (sizeOf(candidate.set) === sizeOf(candidate.participatingHosts))
      return members(candidate.set);
    const currentSize = sizeOf(candidate.set);
    list.bySize.delete(currentSize);
    let biggest = list.biggestSize();
    primaries.forEach((primary, i) => {
      if (((candidate.participatingPrimaryGroups ?? 0n) & bit(i)) !== 0n) return;
      if (sizeOf(primary.set) < biggest) return;
      const intersected: Group = {
        set: candidate.set & primary.set,
        participatingHosts: candidate.participatingHosts,
        ...(candidate.participatingPrimaryGroups !== undefined && {
          participatingPrimaryGroups: candidate.participatingPrimaryGroups,
        }),
      };
      mergeParticipants(intersected, primary);
      const size = sizeOf(intersected.set);
      if (size >= minSize && size < currentSize) {
        list.addOrMerge(intersected);
        biggest = Math.max(size, biggest);
      }
    });
  }
  return [];
}

type Reached = (report: ConnectivityReport) => string[];

function majorityGroup(hosts: readonly HostRecord[], reached: Reached, minSize: number): string[] {
  const index = new Map(hosts.map((h, i) => [h.id, i]));
  const edges = new Set<string>();
  hosts.forEach((host, from) => {
    const report = connectivityReportOf(host);
    if (!report) return;
    for (const id of reached(report)) {
      const to = index.get(id);
      if (to !== undefined) edges.add(`${String(from)}>${String(to)}`);
    }
  });
  const connected = (a: number, b: number): boolean =>
    edges.has(`${String(a)}>${String(b)}`) && edges.has(`${String(b)}>${String(a)}`);
  return fullMeshGroup(connected, hosts.length, minSize).map((i) => hosts[i]!.id);
}

function inCidr(cidr: Cidr, address: string | undefined): boolean {
  const ip = parseIp(address ?? '');
  return ip !== undefined && cidrContains(cidr, ip);
}

/** Hosts each report reached over L2 in the network (IPv6 falls back to L3, as nmap's NDP can miss). */
function l2Reached(cidr: Cidr): Reached {
  return (report) =>
    (report.remote_hosts ?? [])
      .filter(
        (rh) =>
          (rh.l2_connectivity ?? []).some(
            (l2) => l2.successful && inCidr(cidr, l2.remote_ip_address),
          ) ||
          (cidr.family === 6 &&
            (rh.l3_connectivity ?? []).some(
              (l3) => l3.successful && inCidr(cidr, l3.remote_ip_address),
            )),
      )
      .map((rh) => rh.host_id ?? '');
}

function canonicalIp(text: string | undefined): string | undefined {
  const ip = parseIp(text ?? '');
  return ip ? formatIp(ip.family, ip.value) : undefined;
}

function familyAddresses(inventory: WireInventory | undefined, family: IpFamily): Set<string> {
  const out = new Set<string>();
  for (const iface of inventory?.interfaces ?? []) {
    for (const address of (family === 4 ? iface.ipv4_addresses : iface.ipv6_addresses) ?? []) {
      const ip = canonicalIp(address.split('/')[0]);
      if (ip) out.add(ip);
    }
  }
  return out;
}

/** Hosts each report reached at every address of the family they have. */
function l3Reached(hosts: readonly HostRecord[], family: IpFamily): Reached {
  const addresses = new Map(
    hosts.filter((h) => h.inventory).map((h) => [h.id, familyAddresses(h.inventory, family)]),
  );
  return (report) =>
    (report.remote_hosts ?? [])
      .filter((rh) => {
        const wanted = addresses.get(rh.host_id ?? '');
        if (!wanted) return false;
        const found = new Set(
          (rh.l3_connectivity ?? [])
            .filter((l3) => l3.successful)
            .map((l3) => canonicalIp(l3.remote_ip_address))
            .filter((ip): ip is string => ip !== undefined && wanted.has(ip)),
        );
        return found.size > 0 && found.size === wanted.size;
      })
      .map((rh) => rh.host_id ?? '');
}

/** Addresses of each host that every other host of the cluster reached over L3. */
export function l3ConnectedAddresses(hosts: readonly HostRecord[]): Record<string, string[]> {
  const counts = new Map<string, Map<string, number>>();
  for (const host of hosts) {
    const report = connectivityReportOf(host);
    for (const rh of report?.remote_hosts ?? []) {
      if (rh.host_id === undefined || rh.host_id === host.id) continue;
      const reached = new Set(
        (rh.l3_connectivity ?? [])
          .filter((l3) => l3.successful)
          .map((l3) => l3.remote_ip_address ?? ''),
      );
      if (reached.size === 0) continue;
      const perHost = counts.get(rh.host_id) ?? new Map<string, number>();
      counts.set(rh.host_id, perHost);
      for (const ip of reached) perHost.set(ip, (perHost.get(ip) ?? 0) + 1);
    }
  }
  const out: Record<string, string[]> = {};
  for (const [id, perHost] of counts) {
    const full = [...perHost].filter(([, n]) => n === hosts.length - 1).map(([ip]) => ip);
    if (full.length > 0) out[id] = full.sort();
  }
  return out;
}

/**
 * The cluster's connectivity majority groups: for each inventory network, the largest set of
 * hosts with full-mesh L2 connectivity in it (at least `minGroupSize`, 3 by default), and the
 * same over L3 per address family (`IPv4`, `IPv6`). Hosts are taken in id order.
 */
export function connectivityMajorityGroups(
  hosts: readonly HostRecord[],
  minGroupSize = 3,
): Connectivity {
  const sorted = [...hosts].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const majorityGroups: Record<string, string[]> = {};
  for (const network of inventoryNetworks(sorted)) {
    const cidr = parseCidr(network);
    if (cidr) majorityGroups[network] = majorityGroup(sorted, l2Reached(cidr), minGroupSize);
  }
  majorityGroups['IPv4'] = majorityGroup(sorted, l3Reached(sorted, 4), minGroupSize);
  majorityGroups['IPv6'] = majorityGroup(sorted, l3Reached(sorted, 6), minGroupSize);
  return { majorityGroups, l3ConnectedAddresses: l3ConnectedAddresses(sorted) };
}

/**
 * IPs answered by two MAC addresses on the same outgoing NIC in any host's L2 report
 * (`getCollidingIPs`): IP → the two MACs, sorted.
 */
export function ipCollisions(hosts: readonly HostRecord[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const host of hosts) {
    const report = connectivityReportOf(host);
    if (report) Object.assign(out, reportCollisions(report));
  }
  return out;
}

const collisionsByReport = new WeakMap<ConnectivityReport, Record<string, string[]>>();

function reportCollisions(report: ConnectivityReport): Record<string, string[]> {
  const cached = collisionsByReport.get(report);
  if (cached) return cached;
  const out: Record<string, string[]> = {};
  const seen = new Map<string, Map<string, string>>();
  for (const rh of report.remote_hosts ?? []) {
    for (const l2 of rh.l2_connectivity ?? []) {
      const nic = l2.outgoing_nic ?? '';
      const ip = l2.remote_ip_address ?? '';
      const mac = l2.remote_mac ?? '';
      const byIp = seen.get(nic) ?? new Map<string, string>();
      seen.set(nic, byIp);
      const previous = byIp.get(ip);
      if (previous !== undefined && previous !== '' && previous !== mac) {
        out[ip] = [previous, mac].sort();
      }
      byIp.set(ip, mac);
    }
  }
  collisionsByReport.set(report, out);
  return out;
}

/**
 * The machine network a VIP implies (`CalculateMachineNetworkCIDR`): the network of the first
 * host interface address, in host order, whose network contains the VIP.
 */
export function calculateMachineNetworkCidr(
  apiVip: string,
  ingressVip: string,
  hosts: readonly HostRecord[],
): { readonly cidr: string } | { readonly error: string } {
  const vipText = apiVip !== '' ? apiVip : ingressVip;
  if (vipText === '') return { cidr: '' };
  const vip = parseIp(vipText);
  if (!vip) return { error: `Could not parse VIP ip ${vipText}` };
  for (const host of hosts) {
    for (const iface of host.inventory?.interfaces ?? []) {
      for (const address of (vip.family === 4 ? iface.ipv4_addresses : iface.ipv6_addresses) ??
        []) {
        const cidr = parseCidr(address);
        if (cidr && cidrContains(cidr, vip)) return { cidr: formatCidrNetwork(cidr) };
      }
    }
  }
  return { error: `No suitable matching CIDR found for VIP ${vipText}` };
}

/** `vip_verification`. */
export type VipVerification = 'unverified' | 'failed' | 'succeeded';

/**
 * A VIP's verification from the hosts' `verify-vips` replies: failed when any host found it in
 * use, succeeded when some host verified it, else undefined (then the free-address lists decide).
 */
export function vipVerification(
  hosts: readonly HostRecord[],
  vip: string,
  type: 'api' | 'ingress',
): VipVerification | undefined {
  let result: VipVerification | undefined;
  for (const host of hosts) {
    const raw = host.stepResults.verifyVips;
    if (raw === undefined || raw === null || raw === '') continue;
    const parsed = parseVerifyVipsResponse(raw);
    if (!parsed.ok) continue;
    for (const entry of parsed.value) {
      if (entry.vip !== vip || entry.vip_type !== type) continue;
      if (entry.verification === 'failed') return 'failed';
      if (entry.verification === 'succeeded') result = 'succeeded';
    }
  }
  return result;
}

/** Intersection of the hosts' free addresses in the network (`MakeFreeAddressesSet`). */
function freeAddressSet(hosts: readonly HostRecord[], network: string): Set<string> {
  let result: Set<string> | undefined;
  for (const host of hosts) {
    const raw = host.stepResults.freeAddresses;
    if (raw === undefined || raw === null || raw === '') continue;
    const parsed = parseFreeNetworksAddresses(raw);
    if (!parsed.ok) continue;
    const entry = parsed.value.find((f) => f.network === network);
    if (!entry) continue;
    const set = new Set(entry.free_addresses ?? []);
    result = result ? new Set([...result].filter((a) => set.has(a))) : set;
  }
  return result ?? new Set();
}

/** Go's `uint64(1) << shift` converted to int64 (shifts past 63 give 0, 63 wraps negative). */
function goShiftAsInt64(shift: number): bigint {
  if (shift >= 64) return 0n;
  return BigInt.asIntN(64, 1n << BigInt(shift));
}

function machineNetworkBigEnough(hostCount: number, cidr: Cidr): boolean {
  const bits = familyBits(cidr.family);
  if (hostCount === 1) return cidr.prefix <= bits - 1;
  return goShiftAsInt64(bits - cidr.prefix) - BigInt(hostCount) - 4n >= 0n;
}

/**
 * Verifies a VIP against one machine network (`VerifyVipWithSingleMachineNetwork` with the
 * free-address check): the verification and, unless it succeeded, the reason.
 */
export function verifyVip(
  hosts: readonly HostRecord[],
  machineNetwork: string,
  vip: string,
  vipName: string,
  verification: VipVerification | undefined,
): { readonly verification: VipVerification; readonly error?: string } {
  if (machineNetwork === '') {
    return {
      verification: 'unverified',
      error: `${vipName} <${vip}> cannot be set if Machine Network CIDR is empty`,
    };
  }
  const cidr = parseCidr(machineNetwork);
  const ip = parseIp(vip);
  if (!cidr || !ip || !cidrContains(cidr, ip)) {
    return {
      verification: 'failed',
      error: `${vipName} <${vip}> does not belong to machine-network-cidr <${machineNetwork}>`,
    };
  }
  if (ip.family === 4 && ip.value === (cidr.network | ((1n << BigInt(32 - cidr.prefix)) - 1n))) {
    return {
      verification: 'failed',
      error: `${vipName} <${vip}> is the broadcast address of machine-network-cidr <${machineNetwork}>`,
    };
  }
  let result: VipVerification | undefined =
    verification === 'succeeded' || verification === 'failed' ? verification : undefined;
  if (!result) {
    const free = freeAddressSet(hosts, machineNetwork);
    result = free.size === 0 ? 'unverified' : free.has(vip) ? 'succeeded' : 'failed';
  }
  if (result === 'succeeded') return { verification: result };
  if (result === 'failed') {
    let error = `${vipName} <${vip}> is already in use in cidr ${machineNetwork}`;
    if (!machineNetworkBigEnough(hosts.length, cidr)) {
      error = `${error}. The machine network range is too small for the cluster. Please redefine the network.`;
    }
    return { verification: result, error };
  }
  return { verification: result, error: `${vipName} <${vip}> are not verified yet.` };
}

/** hashicorp/go-multierror's message for a list of errors. */
export function multiErrorText(errors: readonly string[]): string {
  if (errors.length === 1) return `1 error occurred:\n\t* ${errors[0]!}\n\n`;
  return `${String(errors.length)} errors occurred:\n\t${errors.map((e) => `* ${e}`).join('\n\t')}\n\n`;
}
