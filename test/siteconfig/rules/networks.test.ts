import { describe, it } from 'vitest';
import {
  CIDR_HOST_BITS_SET,
  CIDR_INVALID,
  HOST_PREFIX_INVALID,
  NETWORK_OVERLAP,
  STACK_MISMATCH,
  VIP_CONFLICT,
  VIP_DUPLICATE,
  VIP_INVALID,
  VIP_IS_NODE_IP,
  VIP_OUTSIDE_MACHINE_NETWORK,
} from '../../../src/siteconfig/rules/networks.js';
import { compactSite, expectRule } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

const clusterNetwork = (cidr: string, hostPrefix = 23): string =>
  `      clusterNetwork:\n        - cidr: ${cidr}\n          hostPrefix: ${String(hostPrefix)}\n`;
const serviceNetwork = (cidr: string): string => `      serviceNetwork:\n        - ${cidr}\n`;
const vips = (api: string, ingress: string): string =>
  `      apiVIPs: ["${api}"]\n      ingressVIPs: ["${ingress}"]\n`;

describe('network rules', () => {
  it('refuses a network that is no CIDR', () => {
    expectRule(
      CIDR_INVALID,
      snoSite({ cluster: clusterNetwork('10.128.0.0/99') }),
      snoSite({ cluster: clusterNetwork('10.128.0.0/14') }),
    );
  });

  it('refuses a network with host bits set', () => {
    expectRule(
      CIDR_HOST_BITS_SET,
      snoSite({ cluster: serviceNetwork('172.30.0.1/16') }),
      snoSite({ cluster: serviceNetwork('172.30.0.0/16') }),
    );
  });

  it('refuses a host prefix shorter than the cluster network', () => {
    expectRule(
      HOST_PREFIX_INVALID,
      snoSite({ cluster: clusterNetwork('10.128.0.0/14', 8) }),
      snoSite({ cluster: clusterNetwork('10.128.0.0/14', 23) }),
    );
  });

  it('refuses a service network inside the machine network', () => {
    expectRule(
      NETWORK_OVERLAP,
      snoSite({ cluster: serviceNetwork('10.0.0.0/16') }),
      snoSite({ cluster: serviceNetwork('172.30.0.0/16') }),
    );
  });

  it('refuses an IPv6 service network beside an IPv4 machine network', () => {
    expectRule(
      STACK_MISMATCH,
      snoSite({ cluster: serviceNetwork('fd02::/112') }),
      snoSite({ cluster: serviceNetwork('172.30.0.0/16') }),
    );
  });

  it('refuses a VIP that is no address', () => {
    expectRule(
      VIP_INVALID,
      compactSite({ cluster: vips('10.0.0.300', '10.0.0.6') }),
      compactSite(),
    );
  });

  it('refuses one address as API and ingress VIP', () => {
    expectRule(
      VIP_DUPLICATE,
      compactSite({ cluster: vips('10.0.0.5', '10.0.0.5') }),
      compactSite(),
    );
  });

  it('refuses a VIP outside the machine network', () => {
    expectRule(
      VIP_OUTSIDE_MACHINE_NETWORK,
      compactSite({ cluster: vips('10.9.0.5', '10.0.0.6') }),
      compactSite(),
    );
  });

  it("refuses a VIP that is a node's address", () => {
    const address = (ip: string): string => `          nodeNetwork:
            interfaces:
              - name: eno1
                macAddress: "aa:bb:cc:00:01:00"
            config:
              interfaces:
                - name: eno1
                  type: ethernet
                  ipv4:
                    address:
                      - ip: ${ip}
                        prefix-length: 24
`;
    expectRule(
      VIP_IS_NODE_IP,
      compactSite({ node: address('10.0.0.5') }),
      compactSite({ node: address('10.0.0.10') }),
    );
  });

  it('refuses an apiVIP that differs from the first of apiVIPs', () => {
    expectRule(
      VIP_CONFLICT,
      compactSite({ cluster: `${vips('10.0.0.5', '10.0.0.6')}      apiVIP: 10.0.0.7\n` }),
      compactSite({ cluster: `${vips('10.0.0.5', '10.0.0.6')}      apiVIP: 10.0.0.5\n` }),
    );
  });
});
