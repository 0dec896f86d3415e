/**
 * Role assignment and bootstrap selection, as assisted-service does them (AS
 * `internal/host/host.go` selectRole, `internal/host/monitor.go` SortHosts,
 * `internal/bminventory/inventory.go` setBootstrapHost): hosts on `auto-assign` are suggested
 * `master` while the control plane lacks masters and the host has the hardware for it, `arbiter`
 * for a two-node arbiter cluster, else `worker`. Lighter hosts are considered first (so the
 * heavier ones stay workers), hosts with GPUs last. The bootstrap is the last known master.
 */
import type { ClusterRecord, HostRecord, HostRole, WireInventory } from '../model.js';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/** Hardware a role needs (assisted.md §5.1): cores and RAM in MiB. */
const REQUIREMENTS = {
  master: { cores: 4, ramMib: 16384 },
  arbiter: { cores: 2, ramMib: 8192 },
  sno: { cores: 8, ramMib: 16384 },
} as const;
/** RAM tolerance of the hardware validator. */
const RAM_TOLERANCE_MIB = 100;

/** The role a host counts as: its own, or its suggestion while on auto-assign. */
export function effectiveRole(host: HostRecord): HostRole {
  const role = host.role === 'auto-assign' ? host.suggestedRole : host.role;
  return role === 'bootstrap' ? 'master' : role;
}

function eligibleDiskGib(inventory: WireInventory): number {
  return (inventory.disks ?? [])
    .filter((d) => d.installation_eligibility?.eligible === true)
    .reduce((sum, d) => sum + Math.floor((d.size_bytes ?? 0) / GIB), 0);
}

/** Upstream's weight: (cores − 4) + 0.1 × (RAM GiB − 16) + 0.004 × (disk GiB − 100). */
export function hostWeight(inventory: WireInventory): number {
  const cores = inventory.cpu?.count ?? 0;
  const ramGib = Math.floor((inventory.memory?.usable_bytes ?? 0) / GIB);
  return cores - 4 + 0.1 * (ramGib - 16) + 0.004 * (eligibleDiskGib(inventory) - 100);
}

function meets(inventory: WireInventory, need: { cores: number; ramMib: number }): boolean {
  const cores = inventory.cpu?.count ?? 0;
  const ramMib = (inventory.memory?.physical_bytes ?? inventory.memory?.usable_bytes ?? 0) / MIB;
  return cores >= need.cores && ramMib + RAM_TOLERANCE_MIB >= need.ramMib;
}

function isSingleNode(cluster: ClusterRecord): boolean {
  return cluster.highAvailabilityMode === 'None';
}

/**
 * The role each `auto-assign` host with an inventory should get, given the hosts' other roles.
 * Hosts already suggested `master` keep it while there is room, so a new host does not take a
 * master's place; hosts without an inventory stay `auto-assign`.
 */
export function suggestRoles(
  cluster: ClusterRecord,
  hosts: readonly HostRecord[],
): Map<string, HostRole> {
  const suggestions = new Map<string, HostRole>();
  const counts = { master: 0, arbiter: 0 };
  for (const host of hosts) {
    if (host.role === 'auto-assign') continue;
    const role = effectiveRole(host);
    if (role === 'master' || role === 'arbiter') counts[role]++;
  }
  const candidates = hosts
    .filter((h) => h.role === 'auto-assign')
    .filter((h) => {
      if (h.inventory === undefined) suggestions.set(h.id, 'auto-assign');
      return h.inventory !== undefined;
    });
  const order = (h: HostRecord): [number, number, number, string] => [
    h.suggestedRole === 'master' ? 0 : 1,
    (h.inventory?.gpus?.length ?? 0) > 0 ? 1 : 0,
    hostWeight(h.inventory!),
    h.id,
  ];
  candidates.sort((a, b) => {
    const [a0, a1, a2, a3] = order(a);
    const [b0, b1, b2, b3] = order(b);
    return a0 - b0 || a1 - b1 || a2 - b2 || a3.localeCompare(b3);
  });
  const masterNeed = isSingleNode(cluster) ? REQUIREMENTS.sno : REQUIREMENTS.master;
  for (const host of candidates) {
    const inventory = host.inventory!;
    let role: HostRole = 'worker';
    if (counts.master < cluster.controlPlaneAgents && meets(inventory, masterNeed)) role = 'master';
    else if (
      cluster.controlPlaneAgents === 2 &&
      counts.arbiter === 0 &&
      meets(inventory, REQUIREMENTS.arbiter)
    )
      role = 'arbiter';
    if (role === 'master' || role === 'arbiter') counts[role]++;
    suggestions.set(host.id, role);
  }
  return suggestions;
}

/** Hosts by the role they count as (for RequirementsMet and the install trigger). */
export function countByRole(hosts: readonly HostRecord[]): {
  masters: number;
  arbiters: number;
  workers: number;
} {
  const counts = { masters: 0, arbiters: 0, workers: 0 };
  for (const host of hosts) {
    const role = effectiveRole(host);
    if (role === 'master') counts.masters++;
    else if (role === 'arbiter') counts.arbiters++;
    else if (role === 'worker') counts.workers++;
  }
  return counts;
}

/**
 * The host to make the bootstrap: none when one already is; else the last master (in
 * registration order) that is known or preparing, as upstream's setBootstrapHost.
 */
export function chooseBootstrap(hosts: readonly HostRecord[]): HostRecord | undefined {
  if (hosts.some((h) => h.bootstrap)) return undefined;
  const masters = [...hosts]
    .filter(
      (h) =>
        effectiveRole(h) === 'master' &&
        (h.status === 'known' || h.status === 'preparing-for-installation'),
    )
    .sort((a, b) => a.registeredAt.localeCompare(b.registeredAt) || a.id.localeCompare(b.id));
  return masters.at(-1);
}
