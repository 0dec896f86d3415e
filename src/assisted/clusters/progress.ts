/**
 * The cluster's `progress.totalPercentage`, as assisted-service weighs it (AS
 * `internal/cluster/cluster.go` UpdateInstallProgress, `internal/common/db.go`): preparation is
 * 10 %, the hosts' install stages 70 % (done stages over all stages of every host's role) and
 * finalizing 15 %; an installed cluster is at 100 %.
 */
import type { ClusterRecord, HostRecord } from '../model.js';
import { stagesFor } from '../state/host-stages.js';

const WEIGHT = { preparing: 0.1, installing: 0.7, finalizing: 0.15 } as const;

/** Percent of the hosts' stages done (the installing stage's own percentage). */
export function installingStagePercentage(
  hosts: readonly HostRecord[],
  singleNode: boolean,
): number {
  let done = 0;
  let total = 0;
  for (const host of hosts) {
    const stages = stagesFor(host.role, host.bootstrap, singleNode);
    const stage = host.progress.currentStage;
    const index = stage === undefined ? -1 : stages.indexOf(stage);
    done += index + 1;
    total += stages.length;
  }
  return total === 0 ? 0 : Math.floor((done / total) * 100);
}

/** The cluster's total percentage, undefined before the installation started. */
export function totalPercentage(
  cluster: ClusterRecord,
  hosts: readonly HostRecord[],
): number | undefined {
  const singleNode = cluster.highAvailabilityMode === 'None';
  switch (cluster.status) {
    case 'installed':
      return 100;
    case 'preparing-for-installation':
      return 0;
    case 'installing':
    case 'installing-pending-user-action':
    case 'finalizing':
      return Math.floor(
        WEIGHT.preparing * 100 + WEIGHT.installing * installingStagePercentage(hosts, singleNode),
      );
    case 'insufficient':
    case 'pending-for-input':
    case 'ready':
    case 'error':
    case 'cancelled':
    case 'adding-hosts':
    case 'unmonitored':
      return cluster.totalPercentage;
  }
}
