import { describe, it } from 'vitest';
import {
  NMSTATE_ADDRESS_INVALID,
  NMSTATE_DNS_INVALID,
  NMSTATE_INTERFACE_UNMAPPED,
  NMSTATE_ROUTE_INTERFACE_UNKNOWN,
  NMSTATE_ROUTE_INVALID,
  NODE_IP_DUPLICATE,
  NODE_IP_OUTSIDE_MACHINE_NETWORK,
} from '../../../src/siteconfig/rules/nmstate.js';
import { expectRule, worker } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

interface Config {
  iface?: string;
  ip?: string;
  prefix?: string;
  dns?: string;
  route?: { destination?: string; hop?: string; via?: string };
  mac?: string;
}

/** nodeNetwork lines for a node: one mapped NIC, one address, a DNS server and a route. */
function network(config: Config = {}): string {
  const route = config.route ?? {};
  return `          nodeNetwork:
            interfaces:
              - name: eno1
                macAddress: "${config.mac ?? 'aa:bb:cc:00:00:01'}"
            config:
              interfaces:
                - name: ${config.iface ?? 'eno1'}
                  type: ethernet
                  ipv4:
                    address:
                      - ip: ${config.ip ?? '10.0.0.10'}
                        prefix-length: ${config.prefix ?? '24'}
              dns-resolver:
                config:
                  server:
                    - ${config.dns ?? '10.0.0.1'}
              routes:
                config:
                  - destination: ${route.destination ?? '0.0.0.0/0'}
                    next-hop-address: ${route.hop ?? '10.0.0.1'}
                    next-hop-interface: ${route.via ?? config.iface ?? 'eno1'}
`;
}

const site = (config: Config = {}): string => snoSite({ node: network(config) });

describe('nmstate rules', () => {
  it('refuses an address that is no IPv4 address under ipv4', () => {
    expectRule(NMSTATE_ADDRESS_INVALID, site({ ip: 'fd00::10' }), site());
  });

  it('refuses a prefix length beyond 32 for IPv4', () => {
    expectRule(NMSTATE_ADDRESS_INVALID, site({ prefix: '33' }), site());
  });

  it('refuses a DNS server that is no address', () => {
    expectRule(NMSTATE_DNS_INVALID, site({ dns: 'dns.example.com' }), site());
  });

  it('refuses a route destination that is no CIDR', () => {
    expectRule(NMSTATE_ROUTE_INVALID, site({ route: { destination: 'default' } }), site());
  });

  it('refuses a route through an interface the config does not define', () => {
    expectRule(NMSTATE_ROUTE_INTERFACE_UNKNOWN, site({ route: { via: 'eno9' } }), site());
  });

  it('warns about an ethernet interface without a MAC in nodeNetwork.interfaces', () => {
    expectRule(NMSTATE_INTERFACE_UNMAPPED, site({ iface: 'eno2' }), site());
  });

  it('refuses one static address on two nodes', () => {
    const second = (ip: string): string =>
      worker('sno1-worker', 'aa:bb:cc:00:00:09', network({ ip, mac: 'aa:bb:cc:00:00:09' }));
    expectRule(NODE_IP_DUPLICATE, site() + second('10.0.0.10'), site() + second('10.0.0.11'));
  });

  it('refuses a node whose address lies outside the machine network', () => {
    expectRule(NODE_IP_OUTSIDE_MACHINE_NETWORK, site({ ip: '10.9.0.10' }), site());
  });
});
