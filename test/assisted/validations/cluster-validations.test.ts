import { describe, expect, it } from 'vitest';
import type { ClusterRecord, ValidationsInfo } from '../../../src/assisted/model.js';
import { validateCluster, type ValidatedHost } from '../../../src/assisted/validations/index.js';
import { cluster, host, inventory, NOW, snoCluster, threeMasters } from './fixtures.js';

function run(
  c: ClusterRecord,
  hosts: readonly ValidatedHost[] = threeMasters(),
  hasCustomManifests = false,
): ValidationsInfo {
  return validateCluster(c, hosts, { now: NOW, hasCustomManifests });
}

function check(info: ValidationsInfo, id: string): [string, string] {
  for (const results of Object.values(info)) {
    const r = results.find((x) => x.id === id);
    if (r) return [r.status, r.message];
  }
  throw new Error(`validation ${id} missing`);
}

/** Hosts whose free-address scans of the machine network list `free`. */
function withFreeAddresses(free: string[]): ValidatedHost[] {
  return threeMasters().map((h) => ({
    ...h,
    stepResults: {
      ...h.stepResults,
      freeAddresses: [{ network: '192.168.111.0/24', free_addresses: free }],
    },
  }));
}

describe('validateCluster: networks defined', () => {
  it('needs a machine network (its text differs on a single node)', () => {
    expect(check(run(cluster()), 'machine-cidr-defined')).toEqual([
      'success',
      'The Machine Network CIDR is defined.',
    ]);
    expect(check(run(cluster({ machineNetworks: [] })), 'machine-cidr-defined')).toEqual([
      'failure',
      'The Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs.',
    ]);
    expect(
      check(run(snoCluster({ machineNetworks: [] }), [host()]), 'machine-cidr-defined'),
    ).toEqual([
      'failure',
      'The Machine Network CIDR is undefined; Setting Machine Network CIDR is required for single node cluster',
    ]);
    expect(check(run(cluster({ machineNetworks: [] }), []), 'machine-cidr-defined')).toEqual([
      'pending',
      'Hosts have not been discovered yet',
    ]);
    expect(check(run(cluster({ userManagedNetworking: true })), 'machine-cidr-defined')).toEqual([
      'success',
      'No Machine Network CIDR needed: User Managed Networking',
    ]);
  });

  it('needs cluster and service networks', () => {
    expect(check(run(cluster()), 'cluster-cidr-defined')).toEqual([
      'success',
      'The Cluster Network CIDR is defined.',
    ]);
    expect(check(run(cluster({ clusterNetworks: [] })), 'cluster-cidr-defined')).toEqual([
      'failure',
      'The Cluster Network CIDR is undefined.',
    ]);
    expect(check(run(cluster()), 'service-cidr-defined')).toEqual([
      'success',
      'The Service Network CIDR is defined.',
    ]);
    expect(check(run(cluster({ serviceNetworks: [] })), 'service-cidr-defined')).toEqual([
      'failure',
      'The Service Network CIDR is undefined.',
    ]);
  });

  it('needs the base domain and the pull secret', () => {
    expect(check(run(cluster()), 'dns-domain-defined')).toEqual([
      'success',
      'The base domain is defined.',
    ]);
    expect(check(run(cluster({ baseDnsDomain: '' })), 'dns-domain-defined')).toEqual([
      'failure',
      'The base domain is undefined and must be provided.',
    ]);
    expect(check(run(cluster()), 'pull-secret-set')).toEqual([
      'success',
      'The pull secret is set.',
    ]);
    expect(check(run(cluster({ pullSecretSet: false })), 'pull-secret-set')).toEqual([
      'failure',
      'The pull secret is not set.',
    ]);
  });
});

describe('validateCluster: machine network and VIPs', () => {
  it('compares the machine network with the one the API VIP implies', () => {
    const id = 'machine-cidr-equals-to-calculated-cidr';
    expect(check(run(cluster()), id)).toEqual([
      'success',
      'The Cluster Machine CIDR is equivalent to the calculated CIDR.',
    ]);
    expect(check(run(cluster({ machineNetworks: ['192.168.111.0/25'] })), id)).toEqual([
      'failure',
      '1 error occurred:\n\t* The Cluster Machine CIDR 192.168.111.0/25 is different than the calculated CIDR 192.168.111.0/24.\n\n',
    ]);
    expect(check(run(cluster({ apiVips: ['10.0.0.5'] })), id)).toEqual([
      'failure',
      '1 error occurred:\n\t* No suitable matching CIDR found for VIP 10.0.0.5\n\n',
    ]);
    expect(check(run(cluster({ apiVips: [], ingressVips: [] })), id)).toEqual([
      'pending',
      'The Machine Network CIDR, API virtual IPs, or Ingress virtual IPs are undefined.',
    ]);
    expect(check(run(snoCluster(), [host()]), id)).toEqual([
      'success',
      'The Cluster Machine CIDR is not required: User Managed Networking',
    ]);
  });

  it('needs VIPs on a multi-node cluster with managed networking only', () => {
    expect(check(run(cluster()), 'api-vips-defined')).toEqual([
      'success',
      'API virtual IPs are defined.',
    ]);
    expect(check(run(cluster({ apiVips: [] })), 'api-vips-defined')).toEqual([
      'failure',
      'API virtual IPs are undefined and must be provided.',
    ]);
    expect(check(run(cluster({ ingressVips: [] })), 'ingress-vips-defined')).toEqual([
      'failure',
      'Ingress virtual IPs are undefined and must be provided.',
    ]);
    // A single-node ACI has user-managed networking, which upstream checks first.
    expect(check(run(snoCluster(), [host()]), 'api-vips-defined')).toEqual([
      'success',
      'API virtual IPs are not required: User Managed Networking',
    ]);
    const managedSno = snoCluster({ userManagedNetworking: false });
    expect(check(run(managedSno, [host()]), 'api-vips-defined')).toEqual([
      'success',
      'API virtual IPs are not required: SNO',
    ]);
    expect(check(run(managedSno, [host()]), 'ingress-vips-valid')).toEqual([
      'success',
      'Ingress virtual IPs are not required: SNO',
    ]);
    expect(check(run(cluster({ userManagedNetworking: true })), 'ingress-vips-defined')).toEqual([
      'success',
      'Ingress virtual IPs are not required: User Managed Networking',
    ]);
  });

  it('accepts a VIP in the machine network that every host sees free', () => {
    const hosts = withFreeAddresses(['192.168.111.4', '192.168.111.5']);
    expect(check(run(cluster(), hosts), 'api-vips-valid')).toEqual([
      'success',
      'api vips 192.168.111.5 belongs to the Machine CIDR and is not in use.',
    ]);
    expect(check(run(cluster(), hosts), 'ingress-vips-valid')).toEqual([
      'success',
      'ingress vips 192.168.111.4 belongs to the Machine CIDR and is not in use.',
    ]);
  });

  it('refuses a VIP in use, outside the network or on its broadcast address', () => {
    const hosts = withFreeAddresses(['192.168.111.4']);
    expect(check(run(cluster(), hosts), 'api-vips-valid')).toEqual([
      'failure',
      'api vips <192.168.111.5> is already in use in cidr 192.168.111.0/24',
    ]);
    expect(check(run(cluster({ apiVips: ['10.0.0.5'] }), hosts), 'api-vips-valid')).toEqual([
      'failure',
      'api vips <10.0.0.5> does not belong to machine-network-cidr <192.168.111.0/24>',
    ]);
    expect(
      check(run(cluster({ ingressVips: ['192.168.111.255'] }), hosts), 'ingress-vips-valid'),
    ).toEqual([
      'failure',
      'ingress vips <192.168.111.255> is the broadcast address of machine-network-cidr <192.168.111.0/24>',
    ]);
    expect(check(run(cluster()), 'api-vips-valid')).toEqual([
      'failure',
      'api vips <192.168.111.5> are not verified yet.',
    ]);
    expect(check(run(cluster({ apiVips: [] })), 'api-vips-valid')).toEqual([
      'pending',
      'API virtual IPs are undefined.',
    ]);
  });

  it('trusts the verify-vips step over the free-address scans', () => {
    const hosts = withFreeAddresses(['192.168.111.4']).map((h) => ({
      ...h,
      stepResults: {
        ...h.stepResults,
        verifyVips: [{ vip: '192.168.111.5', vip_type: 'api', verification: 'succeeded' }],
      },
    }));
    expect(check(run(cluster(), hosts), 'api-vips-valid')[0]).toBe('success');
  });

  it('finds no overlap between machine, cluster and service networks', () => {
    const id = 'no-cidrs-overlapping';
    expect(check(run(cluster()), id)).toEqual(['success', 'No CIDRS are overlapping.']);
    expect(check(run(cluster({ serviceNetworks: ['10.128.0.0/16'] })), id)).toEqual([
      'failure',
      'CIDRS Overlapping: ServiceNetworkCidr and ClusterNetworkCidr: CIDRS 10.128.0.0/16 and 10.128.0.0/14 overlap.',
    ]);
    expect(check(run(cluster({ serviceNetworks: ['192.168.0.0/16'] })), id)).toEqual([
      'failure',
      'CIDRS Overlapping: MachineNetworkCIDR and ServiceNetworkCIDR: CIDRS 192.168.111.0/24 and 192.168.0.0/16 overlap.',
    ]);
    expect(check(run(cluster({ serviceNetworks: [] })), id)).toEqual([
      'pending',
      'At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.',
    ]);
  });

  it('needs the same address families in every network', () => {
    const id = 'networks-same-address-families';
    expect(check(run(cluster()), id)).toEqual([
      'success',
      'Same address families for all networks.',
    ]);
    expect(check(run(cluster({ serviceNetworks: ['fd02::/112'] })), id)).toEqual([
      'failure',
      'Address families of networks (ServiceNetworks, ClusterNetworks) are not the same.',
    ]);
    expect(check(run(cluster({ machineNetworks: ['192.168.111.0/24', 'fd00::/64'] })), id)).toEqual(
      [
        'failure',
        'Address families of networks (MachineNetworks, ServiceNetworks, ClusterNetworks) are not the same.',
      ],
    );
  });

  it('checks the host prefix fits the cluster network', () => {
    const id = 'network-prefix-valid';
    expect(check(run(cluster()), id)).toEqual(['success', 'The Cluster Network prefix is valid.']);
    expect(
      check(run(cluster({ clusterNetworks: [{ cidr: '10.128.0.0/14', hostPrefix: 26 }] })), id),
    ).toEqual([
      'failure',
      'Host prefix, now 26, must be less than or equal to 25 to allow at least 128 addresses',
    ]);
    expect(
      check(run(cluster({ clusterNetworks: [{ cidr: '10.128.0.0/22', hostPrefix: 23 }] })), id),
    ).toEqual([
      'failure',
      'Cluster network CIDR prefix 22 does not contain enough addresses for 3 hosts each one with 23 prefix (512 addresses)',
    ]);
    expect(
      check(run(cluster({ clusterNetworks: [{ cidr: '10.128.0.0/14', hostPrefix: 0 }] })), id),
    ).toEqual([
      'failure',
      'Invalid Cluster Network prefix: Host prefix, now 0, must be a positive integer.',
    ]);
  });

  it('accepts only known network types, and not OpenShift SDN on a single node', () => {
    const id = 'network-type-valid';
    expect(check(run(cluster()), id)).toEqual(['success', 'The cluster has a valid network type']);
    expect(check(run(cluster({ networkType: 'Flannel' })), id)).toEqual([
      'failure',
      'The network type is not valid; the valid network types are OpenShiftSDN, OVNKubernetes, Cilium, Calico, CiscoACI, or None',
    ]);
    expect(check(run(snoCluster({ networkType: 'OpenShiftSDN' }), [host()]), id)).toEqual([
      'failure',
      "Control Plane Count '1' (SNO) is not supported by OpenShiftSDN; use another network type instead",
    ]);
  });

  it('needs custom manifests for a third-party network type', () => {
    const id = 'custom-manifests-requirements-satisfied';
    expect(check(run(cluster()), id)).toEqual(['success', 'No custom manifests are required']);
    expect(check(run(cluster({ networkType: 'Cilium' })), id)).toEqual([
      'failure',
      'Custom manifests are required for: Cilium network type. Please upload manifests via the custom manifests API.',
    ]);
    expect(check(run(cluster({ networkType: 'Cilium' }), threeMasters(), true), id)).toEqual([
      'success',
      'Custom manifests are uploaded',
    ]);
  });
});

describe('validateCluster: hosts', () => {
  it('needs every host ready', () => {
    const id = 'all-hosts-are-ready-to-install';
    expect(check(run(cluster()), id)).toEqual([
      'success',
      'All hosts in the cluster are ready to install.',
    ]);
    const hosts = threeMasters();
    hosts[2] = { ...hosts[2]!, status: 'insufficient' };
    expect(check(run(cluster(), hosts), id)).toEqual([
      'failure',
      'The cluster has hosts that are not ready to install.',
    ]);
  });

  it('needs exactly the control-plane count, counting capable auto-assign hosts as masters', () => {
    const id = 'sufficient-masters-count';
    expect(check(run(cluster()), id)).toEqual([
      'success',
      'The cluster has the exact amount of dedicated control plane nodes.',
    ]);
    expect(check(run(cluster(), threeMasters().slice(0, 2)), id)).toEqual([
      'failure',
      'The cluster must have exactly 3 dedicated control plane nodes. Add or remove hosts, or change their roles configurations to meet the requirement.',
    ]);
    const auto = threeMasters().map((h) => ({
      ...h,
      role: 'auto-assign' as const,
      suggestedRole: 'auto-assign' as const,
    }));
    expect(check(run(cluster(), auto), id)[0]).toBe('success');
    auto[2] = {
      ...auto[2]!,
      inventory: inventory('192.168.111.22', { cpu: { count: 2, architecture: 'x86_64' } }),
    };
    expect(check(run(cluster(), auto), id)[0]).toBe('failure');
  });

  it('needs one master and no worker on a single node', () => {
    const id = 'sufficient-masters-count';
    expect(check(run(snoCluster(), [host()]), id)[0]).toBe('success');
    const worker = host({
      id: 'h2',
      role: 'worker',
      suggestedRole: 'worker',
      inventory: inventory('192.168.111.21'),
    });
    expect(check(run(snoCluster(), [host(), worker]), id)).toEqual([
      'failure',
      'Single-node clusters must have a single control plane node and no workers.',
    ]);
  });

  it('asks a two-master cluster for an arbiter', () => {
    expect(
      check(
        run(cluster({ controlPlaneAgents: 2 }), threeMasters().slice(0, 2)),
        'sufficient-masters-count',
      ),
    ).toEqual([
      'failure',
      'The cluster must have exactly 2 dedicated control plane nodes and at least 1 arbiter node or the control plane nodes must have fencing credentials. Add or remove hosts, or change their roles configurations to meet the requirement.',
    ]);
  });

  it('needs host clocks within 4 minutes of each other', () => {
    const id = 'ntp-server-configured';
    const t = NOW.getTime() / 1000;
    const clocks = (offsets: number[]): ValidatedHost[] =>
      threeMasters().map((h, i) => ({ ...h, agentTimestamp: t + (offsets[i] ?? 0) }));
    expect(check(run(cluster(), clocks([0, 100, 299])), id)).toEqual([
      'success',
      'No ntp problems found',
    ]);
    expect(check(run(cluster(), clocks([0, 100, 300])), id)).toEqual([
      'failure',
      "Hosts' clocks are not synchronized (there's more than a 4 minutes gap between clocks), please configure an NTP server via DHCP or set clocks manually.",
    ]);
    const skewed = clocks([0, 100, 3000]);
    skewed[2] = { ...skewed[2]!, status: 'disconnected' };
    expect(check(run(cluster(), skewed), id)[0]).toBe('success');
  });
});

describe('validateCluster: shape', () => {
  it('sorts each category by id and reports operators as disabled', () => {
    const info = run(cluster());
    expect(Object.keys(info)).toEqual(['configuration', 'hosts-data', 'network', 'operators']);
    expect(info['hosts-data']!.map((r) => r.id)).toEqual([
      'all-hosts-are-ready-to-install',
      'sufficient-masters-count',
    ]);
    expect(info['configuration']).toEqual([
      {
        id: 'platform-requirements-satisfied',
        status: 'success',
        message: 'Platform requirements satisfied',
      },
      { id: 'pull-secret-set', status: 'success', message: 'The pull secret is set.' },
    ]);
    const network = info['network']!.map((r) => r.id);
    expect(network).toEqual([...network].sort());
    expect(network).toHaveLength(15);
    expect(info['operators']!.find((r) => r.id === 'mce-requirements-satisfied')?.message).toBe(
      'mce is disabled',
    );
  });

  it('keeps the last results once the cluster left the pre-install statuses', () => {
    const last: ValidationsInfo = {
      network: [{ id: 'machine-cidr-defined', status: 'success', message: 'x' }],
    };
    expect(run(cluster({ status: 'installing', validationsInfo: last }))).toBe(last);
  });
});
