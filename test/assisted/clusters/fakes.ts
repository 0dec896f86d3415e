/**
 * Stand-ins for the host service, the cluster state machine and the validations, with just the
 * behaviour install orchestration relies on, so the controller's tests drive hosts by hand.
 */
import type {
  ClusterEvent,
  ClusterEventContext,
  ClusterMachine,
  ClusterValidator,
  HostDirectory,
  HostEvent,
} from '../../../src/assisted/clusters/ports.js';
import type {
  ClusterRecord,
  HostRecord,
  HostStage,
  HostStatus,
  ValidationsInfo,
  WireInventory,
} from '../../../src/assisted/model.js';

const GIB = 1024 ** 3;

/** An inventory with `cores` CPUs and `ramGib` of RAM on 10.0.0.0/24. */
export function inventory(name: string, cores: number, ramGib: number, ip: string): WireInventory {
  return {
    hostname: name,
    cpu: { count: cores },
    memory: { physical_bytes: ramGib * GIB, usable_bytes: ramGib * GIB },
    interfaces: [
      {
        name: 'eth0',
        mac_address: `52:54:00:00:00:${ip.split('.')[3]!.padStart(2, '0')}`,
        ipv4_addresses: [`${ip}/24`],
      },
    ],
    disks: [
      {
        id: '/dev/disk/by-id/wwn-0x1',
        name: 'sda',
        path: '/dev/sda',
        by_id: '/dev/disk/by-id/wwn-0x1',
        size_bytes: 200 * GIB,
        installation_eligibility: { eligible: true },
      },
    ],
    boot: { current_boot_mode: 'uefi' },
  };
}

/** A known, approved host bound to `clusterId`. */
export function host(
  id: string,
  clusterId: string,
  options: Partial<HostRecord> & { cores?: number; ramGib?: number; ip?: string } = {},
): HostRecord {
  const { cores = 8, ramGib = 32, ip = '10.0.0.10', ...rest } = options;
  return {
    id,
    namespace: 'site',
    infraEnvName: 'site',
    infraEnvId: 'infraenv-uid',
    clusterDeploymentName: 'site',
    clusterId,
    status: 'known',
    statusInfo: 'Host is ready to be installed',
    statusUpdatedAt: '2026-01-01T00:00:00.000Z',
    role: 'auto-assign',
    suggestedRole: 'auto-assign',
    bootstrap: false,
    approved: true,
    inventory: inventory(id, cores, ramGib, ip),
    registeredAt: `2026-01-01T00:00:0${id.slice(-1)}.000Z`,
    checkedInAt: '2026-01-01T00:00:00.000Z',
    validationsInfo: {},
    progress: {},
    stepResults: {},
    installationDiskId: '/dev/disk/by-id/wwn-0x1',
    ...rest,
  };
}

/** Hosts in memory; every event is recorded. */
export class FakeHostDirectory implements HostDirectory {
  readonly hosts = new Map<string, HostRecord>();
  readonly applied: string[] = [];

  add(...hosts: HostRecord[]): this {
    for (const h of hosts) this.hosts.set(h.id, h);
    return this;
  }

  hostsOf(clusterId: string): readonly HostRecord[] {
    return [...this.hosts.values()].filter((h) => h.clusterId === clusterId);
  }

  set(id: string, update: Partial<HostRecord>): void {
    this.hosts.set(id, { ...this.hosts.get(id)!, ...update });
  }

  /** Every host of the cluster in `from` moves to `to`. */
  moveAll(clusterId: string, from: HostStatus, to: HostStatus, stage?: HostStage): void {
    for (const h of this.hostsOf(clusterId))
      if (h.status === from)
        this.set(h.id, {
          status: to,
          ...(stage !== undefined && { progress: { currentStage: stage } }),
        });
  }

  apply(hostId: string, event: HostEvent): Promise<HostRecord | undefined> {
    const h = this.hosts.get(hostId);
    if (h === undefined) return Promise.resolve(undefined);
    this.applied.push(`${hostId} ${event.type}${'role' in event ? ` ${event.role}` : ''}`);
    const next: Partial<HostRecord> = (() => {
      switch (event.type) {
        case 'SuggestRole':
          return { suggestedRole: event.role };
        case 'AssignRole':
          return { role: event.role };
        case 'SetBootstrap':
          return { bootstrap: event.bootstrap };
        case 'PrepareForInstallation':
          return { status: 'preparing-for-installation' as const };
        case 'Install':
          return {
            status: 'installing' as const,
            progress: { currentStage: 'Starting installation' as const },
          };
        case 'CancelPreparation':
          return { status: 'known' as const };
        case 'CancelInstallation':
          return { status: 'cancelled' as const };
        case 'ClusterFailed':
          return {
            status: 'error' as const,
            statusInfo: 'Host is part of a cluster that failed to install',
          };
      }
    })();
    this.set(hostId, next);
    return Promise.resolve(this.hosts.get(hostId));
  }
}

/** Validations that pass unless a test lists failing ones (by category). */
export class FakeValidator implements ClusterValidator {
  failing: ValidationsInfo = {};
  pending: ValidationsInfo = {};

  validate(): ValidationsInfo {
    const base: ValidationsInfo = {
      'hosts-data': [
        {
          id: 'all-hosts-are-ready-to-install',
          status: 'success',
          message: 'All hosts in the cluster are ready to install.',
        },
      ],
    };
    return { ...base, ...this.pending, ...this.failing };
  }
}

const INFO = {
  insufficient: 'Cluster is not ready for install',
  'pending-for-input': 'User input required',
  ready: 'Cluster ready to be installed',
  'preparing-for-installation': 'Preparing cluster for installation',
  installing: 'Installation in progress',
  finalizing: 'Finalizing cluster installation',
  installed: 'Cluster is installed',
  error: 'cluster has hosts in error',
  cancelled: 'Canceled cluster installation',
} as const;

/** The cluster transitions of assisted.md §4.4, enough for orchestration. */
export class SimpleClusterMachine implements ClusterMachine {
  apply(cluster: ClusterRecord, event: ClusterEvent, ctx: ClusterEventContext): ClusterRecord {
    const to = (status: keyof typeof INFO, extra: Partial<ClusterRecord> = {}): ClusterRecord =>
      cluster.status === status && Object.keys(extra).length === 0
        ? cluster
        : {
            ...cluster,
            status,
            statusInfo: INFO[status],
            statusUpdatedAt: ctx.now.toISOString(),
            ...extra,
          };
    const results = Object.values(ctx.validationsInfo).flat();
    const hosts = ctx.hosts;
    switch (event.type) {
      case 'PrepareForInstallation':
        return cluster.status === 'ready'
          ? to('preparing-for-installation', {
              installStartedAt: ctx.now.toISOString(),
              lastPreparation: { status: 'never' },
            })
          : cluster;
      case 'PreparationSucceeded':
        return { ...cluster, lastPreparation: { status: 'success' } };
      case 'PreparationFailed':
        return {
          ...(cluster.status === 'preparing-for-installation' ? to('ready') : cluster),
          lastPreparation: { status: 'failed', reason: event.reason },
        };
      case 'CancelInstallation':
        return cluster.status === 'preparing-for-installation' ? to('ready') : to('cancelled');
      case 'Refresh':
        switch (cluster.status) {
          case 'insufficient':
          case 'pending-for-input':
          case 'ready':
            if (results.some((r) => r.status === 'pending')) return to('pending-for-input');
            if (results.some((r) => r.status === 'failure')) return to('insufficient');
            return to('ready');
          case 'preparing-for-installation':
            return cluster.lastPreparation.status === 'success' &&
              hosts.every((h) => h.status === 'preparing-successful')
              ? to('installing')
              : cluster;
          case 'installing':
            if (hosts.some((h) => h.status === 'error')) return to('error');
            return hosts.every((h) => h.status === 'installed') ? to('finalizing') : cluster;
          case 'finalizing':
            return ctx.installerOutputReady && hosts.every((h) => h.status === 'installed')
              ? to('installed')
              : cluster;
          case 'installing-pending-user-action':
          case 'installed':
          case 'error':
          case 'cancelled':
          case 'adding-hosts':
          case 'unmonitored':
            return cluster;
        }
    }
  }
}
