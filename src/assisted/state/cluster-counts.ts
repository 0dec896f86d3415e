/**
 * Counting a cluster's hosts by role and status: "enough masters and workers" decides when an
 * installing cluster finalizes, when it has failed, and whether a host stuck waiting for a user
 * may be given up on. Upstream: `internal/common/common.go` (HasEnoughMastersAndWorkers,
 * HostsInStatus, GetHostsByEachRole, GetEffectiveRole, NumberOfWorkers).
 */
import { HostRole } from '../model.js';
import type { HostRecord, HostStatus } from '../model.js';

/** The shape of the cluster the counts are judged against (from the AgentClusterInstall). */
export interface ClusterTopology {
  /** `controlPlaneAgents` (1 = single-node). */
  readonly controlPlaneAgents: number;
  readonly arbiterAgents: number;
}

/** The role the host will install as: its role, or its suggested role while `auto-assign`. */
export function effectiveRole(host: Pick<HostRecord, 'role' | 'suggestedRole'>): HostRole {
  return host.role === HostRole.AutoAssign ? host.suggestedRole : host.role;
}

interface RoleCounts {
  readonly masters: number;
  readonly arbiters: number;
  readonly workers: number;
}

/** Hosts in one of `statuses`, by effective role (bootstrap counts as master). */
export function hostsInStatus(
  hosts: readonly HostRecord[],
  statuses: readonly HostStatus[],
): RoleCounts {
  let masters = 0;
  let arbiters = 0;
  let workers = 0;
  for (const host of hosts) {
    if (!statuses.includes(host.status)) continue;
    const role = effectiveRole(host);
    if (role === HostRole.Master || role === HostRole.Bootstrap) masters++;
    else if (role === HostRole.Arbiter) arbiters++;
    else if (role === HostRole.Worker) workers++;
  }
  return { masters, arbiters, workers };
}

/** Hosts by their assigned role (not effective: an `auto-assign` host counts nowhere). */
function hostsByAssignedRole(hosts: readonly HostRecord[]): RoleCounts {
  let masters = 0;
  let arbiters = 0;
  let workers = 0;
  for (const host of hosts) {
    if (host.role === HostRole.Master || host.role === HostRole.Bootstrap) masters++;
    else if (host.role === HostRole.Arbiter) arbiters++;
    else if (host.role === HostRole.Worker) workers++;
  }
  return { masters, arbiters, workers };
}

/** Upstream constants of `internal/common/common.go`. */
const MIN_MASTERS_HA = 3;
const MIN_MASTERS_HA_ARBITER = 2;
const MIN_WORKERS_FOR_NON_SCHEDULABLE_MASTERS = 2;

/**
 * Whether enough hosts are in `statuses`: single-node, exactly one master and no worker;
 * otherwise every assigned master (at least 3, or 2 with arbiters) and, when
 * 2 or more workers were assigned, at least 2 workers; with arbiters, at least one arbiter.
 */
export function hasEnoughMastersAndWorkers(
  hosts: readonly HostRecord[],
  statuses: readonly HostStatus[],
  topology: ClusterTopology,
): boolean {
  const inStatus = hostsInStatus(hosts, statuses);
  if (topology.controlPlaneAgents === 1) return inStatus.masters === 1 && inStatus.workers === 0;

  const expected = hostsByAssignedRole(hosts);
  let minMasters = MIN_MASTERS_HA;
  if (expected.arbiters !== 0) {
    minMasters = MIN_MASTERS_HA_ARBITER;
    if (inStatus.arbiters === 0) return false;
  }
  // Two-node-with-fencing (2 masters, each with fencing credentials) is not modelled: the host
  // record has no fencing credentials, so upstream's topology check would never hold here.

  if (expected.masters < minMasters || inStatus.masters < expected.masters) return false;
  return (
    expected.workers < MIN_WORKERS_FOR_NON_SCHEDULABLE_MASTERS ||
    inStatus.workers >= MIN_WORKERS_FOR_NON_SCHEDULABLE_MASTERS
  );
}

/** Hosts whose effective role is worker (`NumberOfWorkers`). */
export function numberOfWorkers(hosts: readonly HostRecord[]): number {
  return hosts.filter((h) => effectiveRole(h) === HostRole.Worker).length;
}
