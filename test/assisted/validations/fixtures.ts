/** Builders of host and cluster records for the validation tests. */
import type { ClusterRecord, WireInventory } from '../../../src/assisted/model.js';
import type { ValidatedHost } from '../../../src/assisted/validations/index.js';

export const GIB = 1024 ** 3;
export const MIB = 1024 ** 2;
export const NOW = new Date('2026-11-25T12:00:00.000Z');

/** An inventory of a healthy 8-core, 32 GiB host with one 200 GB SSD on 192.168.111.0/24. */
export function inventory(
  ip = '192.168.111.20',
  overrides: Partial<WireInventory> = {},
): WireInventory {
  return {
    hostname: `host-${ip.split('.').pop() ?? ''}`,
    cpu: { count: 8, architecture: 'x86_64' },
    memory: { physical_bytes: 32 * GIB, usable_bytes: 31 * GIB },
    disks: [
      {
        id: '/dev/disk/by-id/wwn-0x1',
        name: 'sda',
        path: '/dev/sda',
        drive_type: 'SSD',
        size_bytes: 200_000_000_000,
        bootable: true,
        installation_eligibility: { eligible: true, not_eligible_reasons: [] },
      },
    ],
    interfaces: [
      { name: 'eth0', ipv4_addresses: [`${ip}/24`], ipv6_addresses: [], mac_address: 'aa:bb' },
    ],
    routes: [
      {
        interface: 'eth0',
        destination: '0.0.0.0',
        gateway: '192.168.111.1',
        family: 2,
        metric: 100,
      },
    ],
    system_vendor: { manufacturer: 'Red Hat', product_name: 'KVM' },
    ...overrides,
  };
}

export function host(overrides: Partial<ValidatedHost> = {}): ValidatedHost {
  return {
    id: 'h1',
    namespace: 'site1',
    infraEnvName: 'site1',
    infraEnvId: 'ie1',
    clusterDeploymentName: 'site1',
    clusterId: 'c1',
    status: 'known',
    statusInfo: '',
    statusUpdatedAt: NOW.toISOString(),
    role: 'master',
    suggestedRole: 'master',
    bootstrap: false,
    approved: true,
    inventory: inventory(),
    registeredAt: NOW.toISOString(),
    checkedInAt: NOW.toISOString(),
    validationsInfo: {},
    progress: {},
    stepResults: {},
    agentTimestamp: NOW.getTime() / 1000,
    ...overrides,
  };
}

export function cluster(overrides: Partial<ClusterRecord> = {}): ClusterRecord {
  return {
    id: 'c1',
    namespace: 'site1',
    clusterDeploymentName: 'site1',
    agentClusterInstallName: 'site1',
    name: 'site1',
    baseDnsDomain: 'example.com',
    openshiftVersion: '4.20.0',
    status: 'insufficient',
    statusInfo: '',
    statusUpdatedAt: NOW.toISOString(),
    highAvailabilityMode: 'Full',
    controlPlaneAgents: 3,
    workerAgents: 0,
    arbiterAgents: 0,
    userManagedNetworking: false,
    platformType: 'BareMetal',
    networkType: 'OVNKubernetes',
    clusterNetworks: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
    serviceNetworks: ['172.30.0.0/16'],
    machineNetworks: ['192.168.111.0/24'],
    apiVips: ['192.168.111.5'],
    ingressVips: ['192.168.111.4'],
    pullSecretSet: true,
    ignoredHostValidations: [],
    ignoredClusterValidations: [],
    validationsInfo: {},
    holdInstallation: false,
    lastPreparation: { status: 'never' },
    ...overrides,
  };
}

/** A single-node cluster (user-managed networking, no VIPs) as the ACI makes it. */
export function snoCluster(overrides: Partial<ClusterRecord> = {}): ClusterRecord {
  return cluster({
    highAvailabilityMode: 'None',
    controlPlaneAgents: 1,
    userManagedNetworking: true,
    platformType: 'None',
    apiVips: [],
    ingressVips: [],
    ...overrides,
  });
}

export interface Peer {
  readonly id: string;
  readonly ip: string;
  readonly rttMs?: number;
  readonly lossPct?: number;
  readonly l2?: boolean;
  readonly l3?: boolean;
}

/** A connectivity report that reached each peer (L2 and L3 unless told otherwise). */
export function connectivity(peers: readonly Peer[]): unknown {
  return {
    remote_hosts: peers.map((p) => ({
      host_id: p.id,
      l2_connectivity: [
        {
          outgoing_nic: 'eth0',
          remote_ip_address: p.ip,
          remote_mac: `mac-${p.id}`,
          successful: p.l2 ?? true,
        },
      ],
      l3_connectivity: [
        {
          outgoing_nic: 'eth0',
          remote_ip_address: p.ip,
          successful: p.l3 ?? true,
          average_rtt_ms: p.rttMs ?? 0.5,
          packet_loss_percentage: p.lossPct ?? 0,
        },
      ],
      mtu_report: [{ outgoing_nic: 'eth0', remote_ip_address: p.ip, mtu_successful: true }],
    })),
  };
}

/** Three masters on 192.168.111.0/24 with full-mesh connectivity (h1 .20, h2 .21, h3 .22). */
export function threeMasters(): ValidatedHost[] {
  const ips = { h1: '192.168.111.20', h2: '192.168.111.21', h3: '192.168.111.22' };
  const ids = Object.keys(ips) as (keyof typeof ips)[];
  return ids.map((id) =>
    host({
      id,
      inventory: inventory(ips[id]),
      stepResults: {
        connectivity: connectivity(ids.filter((o) => o !== id).map((o) => ({ id: o, ip: ips[o] }))),
      },
    }),
  );
}
