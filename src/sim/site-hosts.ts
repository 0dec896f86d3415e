/**
 * The simulated servers of a fleet, made from the hub objects SiteForge compiled for it: one
 * host per BareMetalHost, with the BMC vendor its address scheme names, the boot MAC and the
 * NICs of its NMStateConfig, disks that its rootDeviceHints choose, enough CPU and RAM for its
 * role, a DHCP address in its cluster's machine network, and the site's DNS answering the
 * cluster's API and ingress names. Faults are then applied per host.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../kube/index.js';
import type { HostFaults } from './faults.js';

/** One disk of a simulated host. */
export interface SimDisk {
  readonly name: string;
  readonly sizeBytes: number;
  readonly byPath: string;
  readonly hctl: string;
  readonly model: string;
  readonly vendor: string;
  readonly serial: string;
  readonly wwn: string;
  readonly driveType: 'SSD' | 'HDD';
}

/** A simulated server: everything the BMC and the discovery agent need. Plain data (IPC). */
export interface SimHostSpec {
  /** `namespace/name` of its BareMetalHost. */
  readonly key: string;
  readonly namespace: string;
  /** The BareMetalHost's name (the node's hostName). */
  readonly name: string;
  /** The cluster it installs into. */
  readonly cluster: string;
  /** A personality of the Redfish simulator (from the BMC address scheme). */
  readonly personality: string;
  /** The BMO scheme of its BMC address without transport (`idrac-virtualmedia`). */
  readonly scheme: string;
  /** The system UUID (the agent's host id): stable, so a host that boots again is the same. */
  readonly systemUuid: string;
  readonly bootMac: string;
  /** Its NICs' MACs, the boot MAC first. */
  readonly macs: readonly string[];
  /** The address DHCP gives NIC 0 (with prefix), when no static configuration applies. */
  readonly dhcpAddress: string;
  readonly dhcpGateway: string;
  readonly cpus: number;
  readonly ramMiB: number;
  readonly disks: readonly SimDisk[];
  /** What the site's DNS answers: name → addresses. */
  readonly dns: Readonly<Record<string, readonly string[]>>;
  readonly faults: HostFaults;
}

/** Generous hardware: any role of any supported version installs on it. */
const DEFAULT_CPUS = 16;
const DEFAULT_RAM_MIB = 64 * 1024;
const DEFAULT_DISK_BYTES = 480 * 1000 ** 3;

/** Which simulator personality answers a BMC address, by its BMO scheme. */
export function personalityOfScheme(scheme: string): string {
  if (scheme.startsWith('idrac')) return 'idrac9';
  if (scheme.startsWith('ilo')) return 'ilo6';
  return 'generic';
}

/** The scheme of a BMC address without its transport suffix (`idrac-virtualmedia`). */
export function schemeOf(address: string): string {
  const scheme = /^([a-z0-9-]+)(\+https?)?:/.exec(address)?.[1];
  return scheme ?? 'redfish-virtualmedia';
}

/**
 * The BMC address of a simulated host: the SiteConfig's scheme (so the vendor handling it
 * chose still applies) over plain HTTP to the simulator on loopback, with its System path.
 */
export function simulatedBmcAddress(scheme: string, origin: string, systemPath: string): string {
  const transport = origin.startsWith('https:') ? 'https' : 'http';
  return `${scheme}+${transport}://${origin.replace(/^https?:\/\//, '')}${systemPath}`;
}

function field(object: KubeObject | undefined, ...path: string[]): unknown {
  let value: unknown = object;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A v4-style UUID from a name: the same name, the same "hardware". */
function uuidOf(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Address number `n` (from 0) of a network, with its prefix; v4 and v6. */
export function addressInNetwork(cidr: string, n: number): { address: string; prefix: number } {
  const [base = '', prefixText = '24'] = cidr.split('/');
  const prefix = Number(prefixText);
  if (base.includes(':')) {
    const expanded = expandV6(base);
    const last = (expanded[7] ?? 0) + n;
    const groups = [...expanded.slice(0, 7), last & 0xffff].map((g) => g.toString(16));
    return { address: groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::'), prefix };
  }
  const value = base.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0) + n;
  const octets = [24, 16, 8, 0].map((shift) => String(Math.floor(value / 2 ** shift) % 256));
  return { address: octets.join('.'), prefix };
}

function expandV6(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const parse = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((g) => parseInt(g, 16));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The first disk chosen by the hints (or a plain sda), and a second smaller one. */
function disksFor(hints: Record<string, unknown> | undefined, seed: string): SimDisk[] {
  const h = hints ?? {};
  const deviceName = text(h['deviceName']);
  const byPathHint = deviceName?.startsWith('/dev/disk/by-path/') ? deviceName : undefined;
  const nameHint =
    deviceName !== undefined && byPathHint === undefined
      ? deviceName.replace(/^\/dev\//, '')
      : undefined;
  const minGb = typeof h['minSizeGigabytes'] === 'number' ? h['minSizeGigabytes'] : 0;
  const serial = createHash('sha256').update(seed).digest('hex').slice(0, 10).toUpperCase();
  const rotational = h['rotational'] === true;
  const root: SimDisk = {
    name: nameHint ?? 'sda',
    sizeBytes: Math.max(DEFAULT_DISK_BYTES, (minGb + 20) * 1000 ** 3),
    byPath: byPathHint ?? '/dev/disk/by-path/pci-0000:00:1f.2-ata-1',
    hctl: text(h['hctl']) ?? '0:0:0:0',
    model: text(h['model']) ?? 'SAMSUNG MZ7LH480',
    vendor: text(h['vendor']) ?? 'ATA',
    serial: text(h['serialNumber']) ?? `S4${serial}`,
    wwn: text(h['wwn']) ?? `0x5000c500${serial.slice(0, 8).toLowerCase()}`,
    driveType: rotational ? 'HDD' : 'SSD',
  };
  const second: SimDisk = {
    name: root.name === 'sdb' ? 'sdc' : 'sdb',
    sizeBytes: 240 * 1000 ** 3,
    byPath: '/dev/disk/by-path/pci-0000:00:1f.2-ata-2',
    hctl: root.hctl === '1:0:0:0' ? '2:0:0:0' : '1:0:0:0',
    model: 'DATA DISK',
    vendor: 'SEAGATE',
    serial: `Z1${serial}`,
    wwn: `0x5000c501${serial.slice(2, 10).toLowerCase()}`,
    driveType: rotational ? 'SSD' : 'HDD',
  };
  return [root, second];
}

/** The hub objects of one cluster a host belongs to. */
interface ClusterObjects {
  readonly aci: KubeObject | undefined;
  readonly cd: KubeObject | undefined;
  readonly nmstates: readonly KubeObject[];
}

/**
 * The simulated hosts of the fleet whose compiled objects are `objects`: one per
 * BareMetalHost, in the order given. `faultsOf` gives each its faults.
 */
export function hostsOfManifests(
  objects: readonly KubeObject[],
  faultsOf: (host: {
    readonly namespace: string;
    readonly name: string;
    readonly cluster: string;
  }) => HostFaults = () => ({}),
): SimHostSpec[] {
  const byNamespace = new Map<string, KubeObject[]>();
  for (const object of objects) {
    const namespace = object.metadata.namespace;
    if (namespace === undefined) continue;
    const list = byNamespace.get(namespace) ?? [];
    list.push(object);
    byNamespace.set(namespace, list);
  }
  const hosts: SimHostSpec[] = [];
  const dhcpIndex = new Map<string, number>();
  for (const bmh of objects.filter((o) => o.kind === 'BareMetalHost')) {
    const namespace = bmh.metadata.namespace ?? '';
    const own = byNamespace.get(namespace) ?? [];
    const infraEnvName = bmh.metadata.labels?.['infraenvs.agent-install.openshift.io'];
    const infraEnv = own.find((o) => o.kind === 'InfraEnv' && o.metadata.name === infraEnvName);
    const clusterName =
      text(field(infraEnv, 'spec', 'clusterRef', 'name')) ?? infraEnvName ?? namespace;
    const cluster: ClusterObjects = {
      aci: own.find((o) => o.kind === 'AgentClusterInstall' && o.metadata.name === clusterName),
      cd: own.find((o) => o.kind === 'ClusterDeployment' && o.metadata.name === clusterName),
      nmstates: own.filter((o) => o.kind === 'NMStateConfig'),
    };
    const bootMac = (text(field(bmh, 'spec', 'bootMACAddress')) ?? '').toLowerCase();
    const nmstate = cluster.nmstates.find((n) =>
      ((field(n, 'spec', 'interfaces') ?? []) as { macAddress?: string }[]).some(
        (i) => i.macAddress?.toLowerCase() === bootMac,
      ),
    );
    const nmMacs = ((field(nmstate, 'spec', 'interfaces') ?? []) as { macAddress?: string }[])
      .flatMap((i) => (i.macAddress === undefined ? [] : [i.macAddress.toLowerCase()]))
      .filter((mac) => mac !== bootMac);
    const machineNetworks = (
      (field(cluster.aci, 'spec', 'networking', 'machineNetwork') ?? []) as { cidr?: string }[]
    ).flatMap((n) => (n.cidr === undefined ? [] : [n.cidr]));
    const network =
      machineNetworks.find((c) => !c.includes(':')) ?? machineNetworks[0] ?? '192.168.111.0/24';
    const index = dhcpIndex.get(clusterName) ?? 0;
    dhcpIndex.set(clusterName, index + 1);
    const dhcp = addressInNetwork(network, 50 + index);
    const gateway = addressInNetwork(network, 1).address;
    const staticAddress = firstStaticAddress(nmstate);
    const nodeAddress = staticAddress ?? dhcp.address;
    const baseDomain = text(field(cluster.cd, 'spec', 'baseDomain')) ?? 'example.com';
    const suffix = `${clusterName}.${baseDomain}`;
    const apiVip = ((field(cluster.aci, 'spec', 'apiVIPs') ?? []) as string[])[0];
    const ingressVip = ((field(cluster.aci, 'spec', 'ingressVIPs') ?? []) as string[])[0];
    const address = text(field(bmh, 'spec', 'bmc', 'address')) ?? 'redfish-virtualmedia://0.0.0.0';
    const scheme = schemeOf(address);
    hosts.push({
      key: `${namespace}/${bmh.metadata.name}`,
      namespace,
      name: bmh.metadata.name,
      cluster: clusterName,
      personality: personalityOfScheme(scheme),
      scheme,
      systemUuid: uuidOf(`${namespace}/${bmh.metadata.name}`),
      bootMac,
      macs: [bootMac, ...nmMacs],
      dhcpAddress: `${dhcp.address}/${String(dhcp.prefix)}`,
      dhcpGateway: gateway,
      cpus: DEFAULT_CPUS,
      ramMiB: DEFAULT_RAM_MIB,
      disks: disksFor(
        field(bmh, 'spec', 'rootDeviceHints') as Record<string, unknown> | undefined,
        `${namespace}/${bmh.metadata.name}`,
      ),
      dns: {
        [`api.${suffix}`]: [apiVip ?? nodeAddress],
        [`api-int.${suffix}`]: [apiVip ?? nodeAddress],
        [`console-openshift-console.apps.${suffix}`]: [ingressVip ?? nodeAddress],
        'quay.io': ['192.0.2.10'],
        'registry.redhat.io': ['192.0.2.11'],
      },
      faults: faultsOf({ namespace, name: bmh.metadata.name, cluster: clusterName }),
    });
  }
  return hosts;
}

/** The first static address of an NMStateConfig's nmstate (what DNS must answer for SNO). */
function firstStaticAddress(nmstate: KubeObject | undefined): string | undefined {
  const interfaces = (field(nmstate, 'spec', 'config', 'interfaces') ?? []) as {
    ipv4?: { address?: { ip?: string }[] };
    ipv6?: { address?: { ip?: string }[] };
  }[];
  for (const nic of interfaces) {
    const ip = nic.ipv4?.address?.[0]?.ip ?? nic.ipv6?.address?.[0]?.ip;
    if (ip !== undefined) return ip;
  }
  return undefined;
}
