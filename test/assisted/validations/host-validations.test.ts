import { describe, expect, it } from 'vitest';
import type { ClusterRecord, ValidationsInfo } from '../../../src/assisted/model.js';
import {
  isHostConnected,
  publishedValidations,
  validateHost,
  type ValidatedHost,
} from '../../../src/assisted/validations/index.js';
import {
  cluster,
  connectivity,
  GIB,
  host,
  inventory,
  MIB,
  NOW,
  snoCluster,
  threeMasters,
} from './fixtures.js';

interface Run {
  readonly cluster?: ClusterRecord | null;
  readonly hosts?: readonly ValidatedHost[];
  readonly connected?: boolean;
  readonly now?: Date;
  readonly agentImage?: string;
}

function run(h: ValidatedHost, opts: Run = {}): ValidationsInfo {
  const c = opts.cluster === null ? undefined : (opts.cluster ?? cluster());
  return validateHost(h, {
    ...(c && { cluster: c }),
    clusterHosts: opts.hosts ?? [h],
    now: opts.now ?? NOW,
    connected: opts.connected ?? true,
    ...(opts.agentImage !== undefined && { agentImage: opts.agentImage }),
  });
}

function get(
  info: ValidationsInfo,
  id: string,
): { status: string; message: string; category: string } {
  for (const [category, results] of Object.entries(info)) {
    const r = results.find((x) => x.id === id);
    if (r) return { status: r.status, message: r.message, category };
  }
  throw new Error(`validation ${id} missing`);
}

const check = (info: ValidationsInfo, id: string): [string, string] => {
  const r = get(info, id);
  return [r.status, r.message];
};

describe('validateHost: connection and inventory', () => {
  it('reports a connected host and a disconnected one', () => {
    expect(check(run(host()), 'connected')).toEqual(['success', 'Host is connected']);
    expect(check(run(host(), { connected: false }), 'connected')).toEqual([
      'failure',
      'Host is disconnected',
    ]);
    expect(get(run(host()), 'connected').category).toBe('network');
  });

  it('fails media-connected once the discovery media was lost', () => {
    expect(check(run(host()), 'media-connected')).toEqual(['success', 'Media device is connected']);
    expect(check(run(host({ mediaStatus: 'disconnected' })), 'media-connected')).toEqual([
      'failure',
      'Unable to read from the discovery media. It was either disconnected or poor network conditions prevented it from being read. Try using the minimal ISO option and be sure to keep the media connected until the installation is completed',
    ]);
  });

  it('waits for the inventory', () => {
    const info = run(host());
    expect(check(info, 'has-inventory')).toEqual([
      'success',
      'Valid inventory exists for the host',
    ]);
    expect(get(info, 'has-inventory').category).toBe('hardware');
    const none = run(host({ inventory: undefined }));
    expect(check(none, 'has-inventory')).toEqual([
      'failure',
      'Inventory has not been received for the host',
    ]);
    expect(check(none, 'has-min-cpu-cores')).toEqual(['pending', 'Missing inventory']);
    expect(check(none, 'has-cpu-cores-for-role')).toEqual(['pending', 'Missing inventory or role']);
  });

  it('reports a partially and a fully truncated inventory', () => {
    const partial = host({
      inventory: {
        ...inventory(),
        truncation: { type: 'partial', reasons: ['disks', 'gpus'] },
      } as never,
    });
    expect(check(run(partial), 'inventory-not-partially-truncated')).toEqual([
      'failure',
      'Inventory is truncated (partial): disks; gpus',
    ]);
    expect(check(run(partial), 'inventory-not-fully-truncated')).toEqual([
      'success',
      'Inventory is partially truncated',
    ]);
    const full = host({ inventory: { ...inventory(), truncation: { type: 'full' } } as never });
    expect(check(run(full), 'inventory-not-fully-truncated')).toEqual([
      'failure',
      'Inventory is truncated (full)',
    ]);
    expect(check(run(host()), 'inventory-not-partially-truncated')).toEqual([
      'success',
      'Inventory is not truncated',
    ]);
    expect(check(run(host()), 'inventory-not-fully-truncated')).toEqual([
      'success',
      'Inventory is not truncated',
    ]);
  });
});

describe('validateHost: hardware minimums', () => {
  const withCpu = (count: number): ValidatedHost =>
    host({ inventory: inventory('192.168.111.20', { cpu: { count, architecture: 'x86_64' } }) });
  const withRam = (bytes: number, method?: string): ValidatedHost =>
    host({
      inventory: inventory('192.168.111.20', {
        memory: {
          physical_bytes: bytes,
          ...(method !== undefined && { physical_bytes_method: method }),
        },
      }),
    });

  it('needs 2 cores for any role', () => {
    expect(check(run(withCpu(2)), 'has-min-cpu-cores')).toEqual([
      'success',
      'Sufficient CPU cores',
    ]);
    expect(check(run(withCpu(1)), 'has-min-cpu-cores')).toEqual([
      'failure',
      'The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1',
    ]);
  });

  it('needs 8192 MiB less the 100 MiB tolerance for any role', () => {
    expect(check(run(withRam(8092 * MIB)), 'has-min-memory')).toEqual([
      'success',
      'Sufficient minimum RAM',
    ]);
    expect(check(run(withRam(8092 * MIB - 1)), 'has-min-memory')).toEqual([
      'failure',
      'The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 7.90 GiB',
    ]);
  });

  it('allows 2% more when the memory was read from meminfo', () => {
    const ram = (8192 - 100 - 163) * MIB;
    expect(check(run(withRam(ram, 'meminfo')), 'has-min-memory')[0]).toBe('success');
    expect(check(run(withRam(ram - 1, 'meminfo')), 'has-min-memory')[0]).toBe('failure');
    expect(check(run(withRam(ram)), 'has-min-memory')[0]).toBe('failure');
  });

  it('needs an eligible disk', () => {
    expect(check(run(host()), 'has-min-valid-disks')).toEqual([
      'success',
      'Sufficient disk capacity',
    ]);
    const small = host({
      inventory: inventory('192.168.111.20', {
        disks: [{ name: 'sda', drive_type: 'SSD', size_bytes: 50_000_000_000 }],
      }),
    });
    expect(check(run(small), 'has-min-valid-disks')).toEqual([
      'failure',
      'No eligible disks were found, please check specific disks to see why they are not eligible',
    ]);
    const none = host({ inventory: inventory('192.168.111.20', { disks: [] }) });
    expect(check(run(none), 'has-min-valid-disks')).toEqual(['error', 'Failed to detected disks']);
  });

  it('gives an arbiter a 50 GB disk that a master may not use', () => {
    const disk = { name: 'sda', drive_type: 'SSD', size_bytes: 60_000_000_000 };
    const arbiter = host({
      role: 'arbiter',
      inventory: inventory('192.168.111.20', { disks: [disk] }),
    });
    expect(check(run(arbiter), 'has-min-valid-disks')[0]).toBe('success');
    const master = host({ inventory: inventory('192.168.111.20', { disks: [disk] }) });
    expect(check(run(master), 'has-min-valid-disks')[0]).toBe('failure');
  });
});

describe('validateHost: requirements of the role', () => {
  const sized = (
    count: number,
    ramBytes: number,
    role: ValidatedHost['role'] = 'master',
  ): ValidatedHost =>
    host({
      role,
      suggestedRole: role,
      inventory: inventory('192.168.111.20', {
        cpu: { count, architecture: 'x86_64' },
        memory: { physical_bytes: ramBytes },
      }),
    });

  it('needs 4 cores and 16 GiB (less 100 MiB) for a master', () => {
    expect(check(run(sized(4, 16284 * MIB)), 'has-cpu-cores-for-role')).toEqual([
      'success',
      'Sufficient CPU cores for role master',
    ]);
    expect(check(run(sized(3, 16284 * MIB)), 'has-cpu-cores-for-role')).toEqual([
      'failure',
      'Require at least 4 CPU cores for master role, found only 3',
    ]);
    expect(check(run(sized(4, 16284 * MIB)), 'has-memory-for-role')).toEqual([
      'success',
      'Sufficient RAM for role master',
    ]);
    expect(check(run(sized(4, 16284 * MIB - 1)), 'has-memory-for-role')).toEqual([
      'failure',
      'Require at least 16.00 GiB RAM for role master, found only 15.90 GiB',
    ]);
  });

  it('needs 2 cores and 8 GiB for a worker, and judges auto-assign by its suggested role', () => {
    expect(check(run(sized(2, 8 * GIB, 'worker')), 'has-cpu-cores-for-role')[1]).toBe(
      'Sufficient CPU cores for role worker',
    );
    const auto = host({
      role: 'auto-assign',
      suggestedRole: 'master',
      inventory: inventory('192.168.111.20', { cpu: { count: 2, architecture: 'x86_64' } }),
    });
    expect(check(run(auto), 'has-cpu-cores-for-role')).toEqual([
      'failure',
      'Require at least 4 CPU cores for master role, found only 2',
    ]);
  });

  it('needs 8 cores for a single-node cluster before 4.22 and 4 from 4.22', () => {
    const h = sized(4, 32 * GIB);
    expect(check(run(h, { cluster: snoCluster() }), 'has-cpu-cores-for-role')).toEqual([
      'failure',
      'Require at least 8 CPU cores for master role, found only 4',
    ]);
    expect(
      check(
        run(h, { cluster: snoCluster({ openshiftVersion: '4.22.0' }) }),
        'has-cpu-cores-for-role',
      ),
    ).toEqual(['success', 'Sufficient CPU cores for role master']);
  });
});

describe('validateHost: hostnames', () => {
  it('fails hostname-unique when another host of the cluster has the same name', () => {
    const a = host();
    const b = host({ id: 'h2', inventory: inventory('192.168.111.21', { hostname: 'host-20' }) });
    expect(check(run(a, { hosts: [a, b] }), 'hostname-unique')).toEqual([
      'failure',
      'Hostname host-20 is not unique in cluster',
    ]);
    const renamed = host({ id: 'h2', requestedHostname: 'master-1', inventory: b.inventory });
    expect(check(run(a, { hosts: [a, renamed] }), 'hostname-unique')).toEqual([
      'success',
      'Hostname host-20 is unique in cluster',
    ]);
  });

  it('forbids localhost names and names outside the pattern', () => {
    expect(check(run(host()), 'hostname-valid')).toEqual([
      'success',
      'Hostname host-20 is allowed',
    ]);
    expect(check(run(host({ requestedHostname: 'localhost' })), 'hostname-valid')).toEqual([
      'failure',
      'The host name localhost is forbidden',
    ]);
    expect(check(run(host({ requestedHostname: 'Master_0' })), 'hostname-valid')).toEqual([
      'failure',
      'Hostname Master_0 is forbidden, hostname should match pattern ^[a-z0-9][a-z0-9-]{0,62}(?:[.][a-z0-9-]{1,63})*$',
    ]);
    const long = 'a'.repeat(64);
    expect(check(run(host({ requestedHostname: long })), 'hostname-valid')[0]).toBe('failure');
    expect(check(run(host({ inventory: undefined })), 'hostname-valid')).toEqual([
      'failure',
      'Missing inventory',
    ]);
  });
});

describe('validateHost: machine network', () => {
  it('needs a machine network, except with user-managed networking', () => {
    expect(check(run(host()), 'machine-cidr-defined')).toEqual([
      'success',
      'Machine Network CIDR is defined',
    ]);
    expect(
      check(run(host(), { cluster: cluster({ machineNetworks: [] }) }), 'machine-cidr-defined'),
    ).toEqual([
      'failure',
      'Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs',
    ]);
    expect(check(run(host(), { cluster: snoCluster() }), 'machine-cidr-defined')).toEqual([
      'success',
      'No Machine Network CIDR needed: User Managed Networking',
    ]);
  });

  it('checks the host has an address in every machine network', () => {
    expect(check(run(host()), 'belongs-to-machine-cidr')).toEqual([
      'success',
      'Host belongs to all machine network CIDRs',
    ]);
    expect(
      check(run(host({ inventory: inventory('10.0.0.5') })), 'belongs-to-machine-cidr'),
    ).toEqual([
      'failure',
      'Host does not belong to machine network CIDRs. Verify that the host belongs to every CIDR listed under machine networks',
    ]);
    expect(
      check(run(host(), { cluster: cluster({ machineNetworks: [] }) }), 'belongs-to-machine-cidr'),
    ).toEqual(['pending', 'Missing inventory or machine network CIDR']);
    // A single-node cluster still needs its machine network.
    expect(
      check(
        run(host({ inventory: inventory('10.0.0.5') }), { cluster: snoCluster() }),
        'belongs-to-machine-cidr',
      )[0],
    ).toBe('failure');
    const multiUmn = cluster({ userManagedNetworking: true });
    expect(check(run(host(), { cluster: multiUmn }), 'belongs-to-machine-cidr')).toEqual([
      'success',
      'No machine network CIDR validation needed: User Managed Networking',
    ]);
  });
});

describe('validateHost: connectivity', () => {
  it('puts every host of a full mesh in the majority group', () => {
    const hosts = threeMasters();
    for (const h of hosts) {
      expect(check(run(h, { hosts }), 'belongs-to-majority-group')).toEqual([
        'success',
        'Host has connectivity to the majority of hosts in the cluster',
      ]);
    }
  });

  it('leaves a host out when one peer cannot reach it', () => {
    const [h1, h2, h3] = threeMasters() as [ValidatedHost, ValidatedHost, ValidatedHost];
    const deaf = {
      ...h3,
      stepResults: { connectivity: connectivity([{ id: 'h2', ip: '192.168.111.21' }]) },
    };
    const hosts = [h1, h2, deaf];
    expect(check(run(h1, { hosts }), 'belongs-to-majority-group')).toEqual([
      'failure',
      'No connectivity to the majority of hosts in the cluster',
    ]);
  });

  it('waits for a third host, and does not check a single-node cluster', () => {
    const [h1, h2] = threeMasters() as [ValidatedHost, ValidatedHost];
    expect(check(run(h1, { hosts: [h1, h2] }), 'belongs-to-majority-group')).toEqual([
      'pending',
      'Not enough hosts in cluster to calculate connectivity groups',
    ]);
    expect(check(run(host(), { cluster: snoCluster() }), 'belongs-to-majority-group')).toEqual([
      'success',
      'Host has connectivity to the majority of hosts in the cluster',
    ]);
  });

  it('uses L3 groups with user-managed networking', () => {
    const hosts = threeMasters();
    const umn = cluster({ userManagedNetworking: true, apiVips: [], ingressVips: [] });
    expect(check(run(hosts[0]!, { hosts, cluster: umn }), 'belongs-to-majority-group')[0]).toBe(
      'success',
    );
  });

  it('fails latency above the master threshold of 100 ms, with upstream advice', () => {
    const hosts = threeMasters();
    const slow = {
      ...hosts[0]!,
      stepResults: {
        connectivity: connectivity([
          { id: 'h2', ip: '192.168.111.21', rttMs: 150 },
          { id: 'h3', ip: '192.168.111.22', rttMs: 100 },
        ]),
      },
    };
    const all = [slow, hosts[1]!, hosts[2]!];
    expect(
      check(run(slow, { hosts: all }), 'sufficient-network-latency-requirement-for-role'),
    ).toEqual([
      'failure',
      'A total network latency above the tolerated threshold of 100.00 ms was encountered when performing network latency tests between host h1 and host-21 (150.00 ms)\\n' +
        'Actions:\n1: Please try the following commands on the host host-20 and examine averages to investigate the latency issue further\n\n' +
        '2: Please try the following commands on the host host-20 to investigate the packet loss further\n\n' +
        'ping -c 10 -W 3 -q -I eth0 192.168.111.20/24\n',
    ]);
    expect(
      check(run(hosts[1]!, { hosts: all }), 'sufficient-network-latency-requirement-for-role'),
    ).toEqual(['success', 'Network latency requirement has been satisfied.']);
  });

  it('fails any packet loss between masters', () => {
    const hosts = threeMasters();
    const lossy = {
      ...hosts[0]!,
      stepResults: { connectivity: connectivity([{ id: 'h2', ip: '192.168.111.21', lossPct: 5 }]) },
    };
    const all = [lossy, hosts[1]!, hosts[2]!];
    expect(
      check(run(lossy, { hosts: all }), 'sufficient-packet-loss-requirement-for-role'),
    ).toEqual([
      'failure',
      'A total packet loss above the tolerated threshold of 0.00% was encountered when performing connectivity validation between host h1 and host-21 (5.00%)\\n' +
        'Actions:\n1: Check if there are multiple devices on the same L2 network, if so then use the built-in nmstate-based advanced networking configuration to create a bond or disable all but one of the interfaces.\n' +
        '2: Please try the following commands on the host host-20 to investigate the packet loss further\n\n' +
        'ping -c 10 -W 3 -q -I eth0 192.168.111.20/24\n',
    ]);
    expect(
      check(run(hosts[1]!, { hosts: all }), 'sufficient-packet-loss-requirement-for-role'),
    ).toEqual(['success', 'Packet loss requirement has been satisfied.']);
    const noReport = { ...hosts[0]!, stepResults: {} };
    expect(
      check(
        run(noReport, { hosts: [noReport, hosts[1]!] }),
        'sufficient-packet-loss-requirement-for-role',
      ),
    ).toEqual(['pending', 'Missing packet loss information.']);
  });

  it('reports a broken MTU on the machine network', () => {
    const hosts = threeMasters();
    expect(check(run(hosts[0]!, { hosts }), 'mtu-valid')).toEqual(['success', 'MTU is ok']);
    const report = {
      remote_hosts: [
        {
          host_id: 'h2',
          mtu_report: [
            { outgoing_nic: 'eth0', remote_ip_address: '192.168.111.21', mtu_successful: false },
          ],
        },
      ],
    };
    const broken = { ...hosts[0]!, stepResults: { connectivity: report } };
    expect(check(run(broken, { hosts: [broken, hosts[1]!, hosts[2]!] }), 'mtu-valid')).toEqual([
      'failure',
      'MTU is broken. Interface: eth0, remote IP address: 192.168.111.21',
    ]);
    expect(check(run(host()), 'mtu-valid')).toEqual(['pending', 'Missing MTU report information']);
    expect(check(run(host(), { cluster: snoCluster() }), 'mtu-valid')).toEqual([
      'success-suppress-output',
      'The validation is not applicable to SNO',
    ]);
  });

  it('reports an IP of this host answered by two MAC addresses', () => {
    const [h1, h2, h3] = threeMasters() as [ValidatedHost, ValidatedHost, ValidatedHost];
    const seen = {
      remote_hosts: [
        {
          host_id: 'h1',
          l2_connectivity: [
            {
              outgoing_nic: 'eth0',
              remote_ip_address: '192.168.111.20',
              remote_mac: 'mac-b',
              successful: true,
            },
          ],
        },
        {
          host_id: 'hx',
          l2_connectivity: [
            {
              outgoing_nic: 'eth0',
              remote_ip_address: '192.168.111.20',
              remote_mac: 'mac-a',
              successful: true,
            },
          ],
        },
      ],
    };
    const witness = { ...h2, stepResults: { connectivity: seen } };
    const hosts = [h1, witness, h3];
    expect(check(run(h1, { hosts }), 'no-ip-collisions-in-network')).toEqual([
      'failure',
      'Collisions detected for host ID h1, IP address: 192.168.111.20 Mac addresses: mac-a,mac-b\n',
    ]);
    expect(check(run(h3, { hosts }), 'no-ip-collisions-in-network')).toEqual([
      'success',
      'No IP collisions were detected by host h3',
    ]);
  });
});

describe('validateHost: time', () => {
  it('needs a synced NTP source on a bound host', () => {
    const synced = host({
      stepResults: { ntp: { ntp_sources: [{ source_name: 'ntp1', source_state: 'synced' }] } },
    });
    expect(check(run(synced), 'ntp-synced')).toEqual(['success', 'Host NTP is synced']);
    const unreachable = host({
      stepResults: { ntp: { ntp_sources: [{ source_name: 'ntp1', source_state: 'unreachable' }] } },
    });
    expect(check(run(unreachable), 'ntp-synced')).toEqual([
      'failure',
      "Host couldn't synchronize with any NTP server",
    ]);
    expect(check(run(host({ stepResults: { ntp: 'not json' } })), 'ntp-synced')).toEqual([
      'error',
      'Parse error for NTP sources',
    ]);
    expect(check(run(host({ status: 'known-unbound' }), { cluster: null }), 'ntp-synced')[0]).toBe(
      'success-suppress-output',
    );
  });

  it('allows the host clock 20 minutes behind and 60 minutes ahead of the service', () => {
    const at = (offsetSeconds: number): ValidatedHost =>
      host({ agentTimestamp: NOW.getTime() / 1000 + offsetSeconds });
    const id = 'time-synced-between-host-and-service';
    expect(check(run(at(-20 * 60)), id)).toEqual([
      'success',
      'Host clock is synchronized with service',
    ]);
    expect(check(run(at(-20 * 60 - 1)), id)).toEqual([
      'failure',
      "Host clock is not synchronized, service time is ahead of host's at least for 20.0 minutes, please configure an NTP server via DHCP. Service time: 2026-11-25 12:00:00 +0000 UTC",
    ]);
    expect(check(run(at(60 * 60)), id)[0]).toBe('success');
    expect(check(run(at(60 * 60 + 1), { now: new Date('2026-11-25T12:00:00.250Z') }), id)).toEqual([
      'failure',
      'Host clock is not synchronized, host time is ahead of service at least for 60.0 minutes, please configure an NTP server via DHCP. Service time: 2026-11-25 12:00:00.25 +0000 UTC',
    ]);
    expect(check(run(host({ agentTimestamp: undefined })), id)).toEqual([
      'pending',
      "Missing host time, can't determine synchronization between host and service",
    ]);
  });
});

describe('validateHost: preparation results', () => {
  it('fails container-images-available for failed or crawling pulls', () => {
    const id = 'container-images-available';
    expect(check(run(host()), id)).toEqual([
      'success',
      'All required container images were either pulled successfully or no attempt was made to pull them',
    ]);
    const images = {
      images: [
        { name: 'quay.io/a', result: 'success', size_bytes: 100, download_rate: 5 },
        { name: 'quay.io/b', result: 'failure' },
        { name: 'quay.io/c', result: 'success', size_bytes: 100, download_rate: 0.0001 },
      ],
    };
    expect(check(run(host({ stepResults: { imageAvailability: images } })), id)).toEqual([
      'failure',
      'Failed to fetch container images needed for installation from quay.io/b,quay.io/c. This may be due to a network hiccup. Retry to install again. If this problem persists, check your network settings to make sure you’re not blocked.',
    ]);
  });

  it('fails the disk speed check only for the installation disk', () => {
    const id = 'sufficient-installation-disk-speed';
    expect(check(run(host()), id)).toEqual([
      'success',
      'Speed of installation disk has not yet been measured',
    ]);
    const speed = (exit: number, path = '/dev/disk/by-id/wwn-0x1'): ValidatedHost =>
      host({ stepResults: { diskSpeed: { path, io_sync_duration: 5, exit_code: exit } } });
    expect(check(run(speed(0)), id)).toEqual([
      'success',
      'Speed of installation disk is sufficient',
    ]);
    expect(check(run(speed(1)), id)).toEqual([
      'failure',
      'While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient',
    ]);
    expect(check(run(speed(1, '/dev/sdz')), id)[0]).toBe('success');
    expect(check(run(host({ inventory: undefined })), id)).toEqual(['error', 'Validation error']);
  });
});

describe('validateHost: routes and DNS', () => {
  it('needs a default route', () => {
    expect(check(run(host()), 'has-default-route')).toEqual([
      'success',
      'Host has been configured with at least one default route.',
    ]);
    const noRoute = host({
      inventory: inventory('192.168.111.20', {
        routes: [{ interface: 'eth0', destination: '192.168.111.0', gateway: '', family: 2 }],
      }),
    });
    expect(check(run(noRoute), 'has-default-route')).toEqual([
      'failure',
      'Host has not yet been configured with a default route.',
    ]);
  });

  it('needs no DNS records with managed networking or on a single node', () => {
    expect(check(run(host()), 'api-domain-name-resolved-correctly')).toEqual([
      'success',
      'Domain name resolution for the api.site1.example.com domain was successful or not required',
    ]);
    expect(
      check(run(host(), { cluster: snoCluster() }), 'api-int-domain-name-resolved-correctly'),
    ).toEqual([
      'success',
      'Domain name resolution for the api-int.site1.example.com domain was successful or not required',
    ]);
    expect(check(run(host()), 'apps-domain-name-resolved-correctly')[1]).toBe(
      'Domain name resolution for the *.apps.site1.example.com domain was successful or not required',
    );
  });

  it('needs the API and apps records with user-managed networking on several nodes', () => {
    const umn = cluster({ userManagedNetworking: true, apiVips: [], ingressVips: [] });
    const resolved = host({
      stepResults: {
        domainResolution: {
          resolutions: [
            { domain_name: 'api.site1.example.com', ipv4_addresses: ['192.168.111.100'] },
            { domain_name: 'api-int.site1.example.com', ipv4_addresses: [] },
          ],
        },
      },
    });
    expect(check(run(resolved, { cluster: umn }), 'api-domain-name-resolved-correctly')).toEqual([
      'success',
      'Domain name resolution for the api.site1.example.com domain was successful or not required',
    ]);
    expect(
      check(run(resolved, { cluster: umn }), 'api-int-domain-name-resolved-correctly'),
    ).toEqual([
      'failure',
      "Couldn't resolve domain name api-int.site1.example.com on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's internal API load balancer IP address",
    ]);
    expect(check(run(resolved, { cluster: umn }), 'apps-domain-name-resolved-correctly')).toEqual([
      'failure',
      "Couldn't resolve domain name *.apps.site1.example.com on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's application ingress IP address",
    ]);
    const unresolved = host({ stepResults: { domainResolution: { resolutions: [] } } });
    expect(check(run(unresolved, { cluster: umn }), 'api-domain-name-resolved-correctly')).toEqual([
      'failure',
      "Couldn't resolve domain name api.site1.example.com on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's API load balancer IP address",
    ]);
    expect(check(run(host(), { cluster: umn }), 'api-domain-name-resolved-correctly')).toEqual([
      'error',
      'Error while evaluating DNS resolution on this host',
    ]);
  });

  it('detects a wildcard DNS record under the cluster domain', () => {
    const id = 'dns-wildcard-not-configured';
    expect(check(run(host()), id)).toEqual([
      'pending',
      'DNS wildcard check cannot be performed yet because the host has not yet performed DNS resolution',
    ]);
    const answer = (ips: string[]): ValidatedHost =>
      host({
        stepResults: {
          domainResolution: {
            resolutions: [
              { domain_name: 'validateNoWildcardDNS.site1.example.com.', ipv4_addresses: ips },
              { domain_name: 'validateNoWildcardDNS.site1.example.com', ipv4_addresses: [] },
            ],
          },
        },
      });
    expect(check(run(answer([])), id)).toEqual(['success', 'DNS wildcard check was successful']);
    expect(check(run(answer(['1.2.3.4'])), id)).toEqual([
      'failure',
      'DNS wildcard configuration was detected for domain *.site1.example.com - the installation will not be able to complete while this record exists. Please remove it to proceed. The domain resolves to 1.2.3.4',
    ]);
  });
});

describe('validateHost: platform and disks', () => {
  it('accepts any host on baremetal, only VMware guests on vSphere', () => {
    expect(check(run(host()), 'compatible-with-cluster-platform')).toEqual([
      'success',
      'Host is compatible with cluster platform baremetal',
    ]);
    expect(
      check(run(host(), { cluster: snoCluster() }), 'compatible-with-cluster-platform')[1],
    ).toBe('Host is compatible with cluster platform none');
    expect(
      check(
        run(host(), { cluster: cluster({ platformType: 'VSphere' }) }),
        'compatible-with-cluster-platform',
      ),
    ).toEqual([
      'failure',
      'Host is not compatible with cluster platform vsphere; either disable this host or discover a new compatible host.',
    ]);
  });

  it('refuses OpenStack guests with managed networking', () => {
    expect(check(run(host()), 'valid-platform-network-settings')).toEqual([
      'success',
      'Platform KVM is allowed',
    ]);
    const openstack = host({
      inventory: inventory('192.168.111.20', {
        system_vendor: { product_name: 'OpenStack Compute' },
      }),
    });
    expect(check(run(openstack), 'valid-platform-network-settings')).toEqual([
      'failure',
      'Platform OpenStack Compute is allowed only for Single Node OpenShift or user-managed networking',
    ]);
  });

  it('needs disk.EnableUUID on VMware guests', () => {
    expect(check(run(host()), 'vsphere-disk-uuid-enabled')[0]).toBe('success-suppress-output');
    const vmware = host({
      inventory: inventory('192.168.111.20', {
        system_vendor: { manufacturer: 'VMware, Inc.', product_name: 'VMware7,1' },
      }),
    });
    expect(check(run(vmware), 'vsphere-disk-uuid-enabled')).toEqual([
      'failure',
      "VSphere disk.EnableUUID isn't enabled for this virtual machine, it's necessary for disks to be mounted properly",
    ]);
    const disks = vmware.inventory!.disks!.map((d) => ({ ...d, has_uuid: true }));
    const fixed = { ...vmware, inventory: { ...vmware.inventory!, disks } };
    expect(check(run(fixed), 'vsphere-disk-uuid-enabled')).toEqual([
      'success',
      'VSphere disk.EnableUUID is enabled for this virtual machine',
    ]);
  });

  it('reports overlapping subnets on two interfaces', () => {
    expect(check(run(host()), 'non-overlapping-subnets')).toEqual([
      'success',
      'Host subnets are not overlapping',
    ]);
    const twice = host({
      inventory: inventory('192.168.111.20', {
        interfaces: [
          { name: 'eth0', ipv4_addresses: ['192.168.111.20/24'] },
          { name: 'eth1', ipv4_addresses: ['192.168.111.30/24'] },
        ],
      }),
    });
    expect(check(run(twice), 'non-overlapping-subnets')).toEqual([
      'failure',
      'Address networks are overlapping: Address network 192.168.111.0/24 appears on multiple interfaces [eth0, eth1]',
    ]);
    const nested = host({
      inventory: inventory('192.168.111.20', {
        interfaces: [
          { name: 'eth0', ipv4_addresses: ['192.168.111.20/24'] },
          { name: 'eth1', ipv4_addresses: ['192.168.0.1/16'] },
        ],
      }),
    });
    expect(check(run(nested), 'non-overlapping-subnets')).toEqual([
      'failure',
      'Address networks are overlapping: Address networks 192.168.111.0/24 in interface eth0 and 192.168.0.0/16 in interface eth1 overlap',
    ]);
  });

  it('refuses an iSCSI installation disk reached through a machine-network interface', () => {
    const iscsiHost = (ip: string): ValidatedHost =>
      host({
        inventory: inventory('192.168.111.20', {
          interfaces: [
            { name: 'eth0', ipv4_addresses: ['192.168.111.20/24'] },
            { name: 'eth1', ipv4_addresses: [`${ip}/24`] },
          ],
          disks: [
            {
              id: '/dev/disk/by-id/iscsi-1',
              name: 'sdb',
              drive_type: 'iSCSI',
              size_bytes: 200_000_000_000,
              iscsi: { host_ip_address: ip },
            } as never,
          ],
        }),
      });
    const id = 'no-iscsi-nic-belongs-to-machine-cidr';
    expect(check(run(iscsiHost('192.168.111.30')), id)).toEqual([
      'failure',
      'Network interface connected to iSCSI disk cannot belong to machine network CIDRs',
    ]);
    expect(check(run(iscsiHost('10.9.9.9')), id)).toEqual([
      'success',
      'Network interface connected to iSCSI disk does not belong to machine network CIDRs',
    ]);
    expect(check(run(host()), id)[0]).toBe('success-suppress-output');
  });

  it('passes the validations of features we do not use', () => {
    const info = run(host());
    expect(check(info, 'disk-encryption-requirements-satisfied')[0]).toBe(
      'success-suppress-output',
    );
    expect(check(info, 'ignition-downloadable')[0]).toBe('success-suppress-output');
    expect(check(info, 'no-skip-installation-disk')).toEqual([
      'success',
      'No request to skip formatting of the installation disk',
    ]);
    expect(check(info, 'no-skip-missing-disk')).toEqual([
      'success',
      'All disks that have skipped formatting are present in the host inventory',
    ]);
    expect(check(run(host({ inventory: undefined })), 'no-skip-missing-disk')).toEqual([
      'pending',
      'Host inventory not available yet',
    ]);
    expect(check(info, 'compatible-agent')).toEqual([
      'success',
      'Host agent compatibility checking is disabled',
    ]);
  });

  it('fails compatible-agent when the agent image differs from the expected one', () => {
    const h = host({ discoveryAgentVersion: 'quay.io/agent:old' });
    expect(check(run(h, { agentImage: 'quay.io/agent:new' }), 'compatible-agent')).toEqual([
      'failure',
      "This host's agent is in the process of being upgraded to a compatible version. This might take a few minutes",
    ]);
    expect(check(run(h, { agentImage: 'quay.io/agent:old' }), 'compatible-agent')).toEqual([
      'success',
      'Host agent is compatible with the service',
    ]);
  });

  it('orders categories by name, as upstream serializes them', () => {
    expect(Object.keys(run(host()))).toEqual(['hardware', 'network', 'operators']);
  });

  it('reports every operator as disabled, sorted by id', () => {
    const operators = run(host())['operators']!;
    expect(operators).toHaveLength(28);
    expect(operators[0]).toEqual({
      id: 'amd-gpu-requirements-satisfied',
      status: 'success',
      message: 'amd-gpu is disabled',
    });
    expect(operators.map((o) => o.id)).toEqual([...operators.map((o) => o.id)].sort());
    expect(operators.find((o) => o.id === 'lso-requirements-satisfied')?.message).toBe(
      'lso is disabled',
    );
  });
});

describe('validateHost: unbound hosts', () => {
  const unbound = host({
    status: 'known-unbound',
    role: 'auto-assign',
    suggestedRole: 'auto-assign',
    clusterId: undefined,
  });
  const info = run(unbound, { cluster: null });

  it('suppresses what needs a cluster and judges hardware by the smallest role', () => {
    for (const id of [
      'machine-cidr-defined',
      'hostname-unique',
      'belongs-to-machine-cidr',
      'belongs-to-majority-group',
      'api-domain-name-resolved-correctly',
      'dns-wildcard-not-configured',
      'compatible-with-cluster-platform',
      'non-overlapping-subnets',
    ]) {
      expect(get(info, id).status, id).toBe('success-suppress-output');
    }
    expect(check(info, 'mtu-valid')).toEqual([
      'success-suppress-output',
      'Host is not bound to a cluster',
    ]);
    expect(check(info, 'has-cpu-cores-for-role')).toEqual([
      'success',
      'Sufficient CPU cores for role auto-assign',
    ]);
    expect(check(info, 'no-ip-collisions-in-network')).toEqual([
      'success',
      'Cluster has not yet been defined, skipping validation.',
    ]);
    expect(info['operators']).toBeUndefined();
  });

  it('publishes only what upstream shows', () => {
    const shown = publishedValidations(info);
    const ids = Object.values(shown)
      .flat()
      .map((r) => r.id);
    expect(ids).not.toContain('machine-cidr-defined');
    expect(ids).toContain('has-inventory');
    const rebooting = publishedValidations(run(host()), 'Rebooting');
    const rebootingIds = Object.values(rebooting)
      .flat()
      .map((r) => r.id);
    expect(rebootingIds).not.toContain('connected');
    expect(rebootingIds).not.toContain('ntp-synced');
    expect(rebootingIds).not.toContain('compatible-agent');
    expect(rebootingIds).toContain('has-inventory');
  });
});

describe('isHostConnected', () => {
  const at = (ago: number, extra: Partial<ValidatedHost> = {}): ValidatedHost =>
    host({ checkedInAt: new Date(NOW.getTime() - ago).toISOString(), ...extra });

  it('allows 3 minutes of silence, 5 for the bootstrap host', () => {
    expect(isHostConnected(at(180_000), NOW)).toBe(true);
    expect(isHostConnected(at(180_001), NOW)).toBe(false);
    expect(isHostConnected(at(300_000, { bootstrap: true }), NOW)).toBe(true);
    expect(isHostConnected(at(300_001, { bootstrap: true }), NOW)).toBe(false);
  });

  it('no longer expects check-ins once the host rebooted', () => {
    expect(isHostConnected(at(3_600_000, { progress: { currentStage: 'Rebooting' } }), NOW)).toBe(
      true,
    );
    expect(isHostConnected(at(3_600_000, { progress: { currentStage: 'Installing' } }), NOW)).toBe(
      false,
    );
  });
});
