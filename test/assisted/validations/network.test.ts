import { describe, expect, it } from 'vitest';
import {
  calculateMachineNetworkCidr,
  connectivityMajorityGroups,
  ipCollisions,
  l3ConnectedAddresses,
  multiErrorText,
  type ValidatedHost,
} from '../../../src/assisted/validations/index.js';
import { connectivity, host, inventory, type Peer } from './fixtures.js';

const IPS: Record<string, string> = {
  a: '192.168.111.10',
  b: '192.168.111.11',
  c: '192.168.111.12',
  d: '192.168.111.13',
};

/** Hosts a..d where each reaches the peers listed for it. */
function mesh(reach: Record<string, string[]>): ValidatedHost[] {
  return Object.entries(reach).map(([id, peers]) =>
    host({
      id,
      inventory: inventory(IPS[id]),
      stepResults: { connectivity: connectivity(peers.map((p): Peer => ({ id: p, ip: IPS[p]! }))) },
    }),
  );
}

describe('connectivity majority groups', () => {
  it('finds the full mesh among the hosts and leaves out a host only one of them reaches', () => {
    const hosts = mesh({ a: ['b', 'c', 'd'], b: ['a', 'c'], c: ['a', 'b'], d: ['a'] });
    const groups = connectivityMajorityGroups(hosts);
    expect(groups.majorityGroups['192.168.111.0/24']).toEqual(['a', 'b', 'c']);
    expect(groups.majorityGroups['IPv4']).toEqual(['a', 'b', 'c']);
    expect(groups.majorityGroups['IPv6']).toEqual([]);
  });

  it('needs mutual reachability and at least three hosts', () => {
    expect(
      connectivityMajorityGroups(mesh({ a: ['b'], b: ['a'] })).majorityGroups['192.168.111.0/24'],
    ).toEqual([]);
    const oneWay = mesh({ a: ['b', 'c'], b: ['a', 'c'], c: ['a'] });
    expect(connectivityMajorityGroups(oneWay).majorityGroups['192.168.111.0/24']).toEqual([]);
  });

  it('keeps the L3 addresses every other host reached', () => {
    const hosts = mesh({ a: ['b', 'c'], b: ['a', 'c'], c: ['a'] });
    expect(l3ConnectedAddresses(hosts)).toEqual({ a: ['192.168.111.10'], c: ['192.168.111.12'] });
  });
});

describe('cluster network facts', () => {
  it('derives the machine network from the first host network holding the VIP', () => {
    const hosts = [host({ inventory: inventory('192.168.111.20') })];
    expect(calculateMachineNetworkCidr('192.168.111.5', '', hosts)).toEqual({
      cidr: '192.168.111.0/24',
    });
    expect(calculateMachineNetworkCidr('', '192.168.111.4', hosts)).toEqual({
      cidr: '192.168.111.0/24',
    });
    expect(calculateMachineNetworkCidr('10.1.1.1', '', hosts)).toEqual({
      error: 'No suitable matching CIDR found for VIP 10.1.1.1',
    });
    expect(calculateMachineNetworkCidr('bad', '', hosts)).toEqual({
      error: 'Could not parse VIP ip bad',
    });
  });

  it('detects an IP answered by two MACs on one NIC, not across NICs', () => {
    const report = (nic2: string): unknown => ({
      remote_hosts: [
        {
          host_id: 'x',
          l2_connectivity: [
            { outgoing_nic: 'eth0', remote_ip_address: '10.0.0.9', remote_mac: 'm2' },
          ],
        },
        {
          host_id: 'y',
          l2_connectivity: [
            { outgoing_nic: nic2, remote_ip_address: '10.0.0.9', remote_mac: 'm1' },
          ],
        },
      ],
    });
    expect(ipCollisions([host({ stepResults: { connectivity: report('eth0') } })])).toEqual({
      '10.0.0.9': ['m1', 'm2'],
    });
    expect(ipCollisions([host({ stepResults: { connectivity: report('eth1') } })])).toEqual({});
  });

  it('prints errors as go-multierror does', () => {
    expect(multiErrorText(['a'])).toBe('1 error occurred:\n\t* a\n\n');
    expect(multiErrorText(['a', 'b'])).toBe('2 errors occurred:\n\t* a\n\t* b\n\n');
  });
});
