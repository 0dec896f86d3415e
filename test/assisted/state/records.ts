/**
 * Small builders for the state machine tests: host and cluster records, validations and
 * contexts at a fixed `NOW`, so every timeout is judged against explicit times.
 */
import { ClusterStatus, HostRole, HostStatus } from '../../../src/assisted/model.js';
import type {
  ClusterRecord,
  HostRecord,
  ValidationResult,
  ValidationStatus,
  ValidationsInfo,
  WireInventory,
} from '../../../src/assisted/model.js';
import type {
  ClusterMachineContext,
  HostMachineContext,
} from '../../../src/assisted/state/index.js';

export const NOW = new Date('2026-03-01T12:00:00.000Z');
export const MINUTE = 60_000;

/** RFC 3339 time `ms` before NOW. */
export function ago(ms: number): string {
  return new Date(NOW.getTime() - ms).toISOString();
}

export const INSTALL_DISK_ID = '/dev/disk/by-id/wwn-0x5000c500a1b2c3d4';

export const INVENTORY: WireInventory = {
  hostname: 'worker-0',
  disks: [
    { id: '/dev/disk/by-id/wwn-0x1111', name: 'sdb', size_bytes: 500e9 },
    {
      id: INSTALL_DISK_ID,
      name: 'sda',
      model: 'PERC H740P',
      serial: 'S3Z9NB0K',
      size_bytes: 960e9,
    },
  ],
};

export function host(overrides: Partial<HostRecord> = {}): HostRecord {
  return {
    id: '0f0e0d0c-0000-4000-8000-000000000001',
    namespace: 'site-a',
    infraEnvName: 'site-a',
    infraEnvId: 'ie-1',
    clusterDeploymentName: 'site-a',
    clusterId: 'c-1',
    status: HostStatus.Known,
    statusInfo: 'previous info',
    statusUpdatedAt: ago(1 * MINUTE),
    role: HostRole.Master,
    suggestedRole: HostRole.Master,
    bootstrap: false,
    approved: true,
    installationDiskId: INSTALL_DISK_ID,
    inventory: INVENTORY,
    registeredAt: ago(60 * MINUTE),
    checkedInAt: ago(0),
    validationsInfo: {},
    progress: {},
    stepResults: {},
    ...overrides,
  };
}

/**
 * Validations by id: a status alone (message `<id> message`) or `[status, message]`. Results
 * are spread over two categories, as upstream's validationsInfo is.
 */
export function validations(
  byId: Readonly<Record<string, ValidationStatus | readonly [ValidationStatus, string]>>,
): ValidationsInfo {
  const network: ValidationResult[] = [];
  const hardware: ValidationResult[] = [];
  for (const [id, spec] of Object.entries(byId)) {
    const [status, message] = typeof spec === 'string' ? [spec, `${id} message`] : spec;
    (id.includes('cidr') || id.includes('connected') ? network : hardware).push({
      id,
      status,
      message,
    });
  }
  return { network, hardware };
}

export function hostCtx(overrides: Partial<HostMachineContext> = {}): HostMachineContext {
  return {
    now: NOW,
    bound: true,
    day2: false,
    clusterStatus: ClusterStatus.Ready,
    validations: {},
    ignoredValidations: [],
    connected: true,
    sno: false,
    ...overrides,
  };
}

export function cluster(overrides: Partial<ClusterRecord> = {}): ClusterRecord {
  return {
    id: 'c-1',
    namespace: 'site-a',
    clusterDeploymentName: 'site-a',
    agentClusterInstallName: 'site-a',
    name: 'site-a',
    baseDnsDomain: 'example.com',
    openshiftVersion: '4.18',
    status: ClusterStatus.Ready,
    statusInfo: 'previous info',
    statusUpdatedAt: ago(1 * MINUTE),
    highAvailabilityMode: 'Full',
    controlPlaneAgents: 3,
    workerAgents: 2,
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

export function clusterCtx(overrides: Partial<ClusterMachineContext> = {}): ClusterMachineContext {
  return {
    now: NOW,
    validations: {},
    hosts: [],
    ignoredValidations: [],
    ...overrides,
  };
}

/** `masters` masters and `workers` workers, all in `status` (ids m0…, w0…). */
export function hostsIn(
  status: HostStatus,
  masters: number,
  workers: number,
  overrides: Partial<HostRecord> = {},
): HostRecord[] {
  const out: HostRecord[] = [];
  for (let i = 0; i < masters; i++) {
    out.push(host({ id: `m${String(i)}`, status, role: HostRole.Master, ...overrides }));
  }
  for (let i = 0; i < workers; i++) {
    out.push(host({ id: `w${String(i)}`, status, role: HostRole.Worker, ...overrides }));
  }
  return out;
}
