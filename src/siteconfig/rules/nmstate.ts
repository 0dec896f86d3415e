/**
 * nmstate: the static network config of a node (addresses, routes, DNS servers), its interfaces
 * against nodeNetwork.interfaces, and the node addresses against the machine network.
 */
import { quote } from '../../shared/errors.js';
import { cidrContains, parseCidr, parseIp } from '../../shared/ip.js';
import type { Cidr } from '../../shared/ip.js';
import type { Path } from '../issue-collector.js';
import type { SiteConfigNode } from '../types.js';
import { mappedInterfaceNames } from './macs.js';
import { defineRule, isPlainObject } from './rule.js';
import type { ClusterContext, NodeCheck, Rule } from './rule.js';

const NMSTATE_REFUSES = 'nmstate refuses the static network config: no discovery image';

export const NMSTATE_ADDRESS_INVALID = defineRule({
  code: 'NMSTATE_ADDRESS_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: NMSTATE_REFUSES,
});

export const NMSTATE_DNS_INVALID = defineRule({
  code: 'NMSTATE_DNS_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: NMSTATE_REFUSES,
});

export const NMSTATE_ROUTE_INVALID = defineRule({
  code: 'NMSTATE_ROUTE_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: NMSTATE_REFUSES,
});

export const NMSTATE_ROUTE_INTERFACE_UNKNOWN = defineRule({
  code: 'NMSTATE_ROUTE_INTERFACE_UNKNOWN',
  severity: 'error',
  upstream: 'takes it',
  why: 'nmstate refuses a route through an interface the desired state does not define (kept; see the note below)',
});

export const NMSTATE_INTERFACE_UNMAPPED = defineRule({
  code: 'NMSTATE_INTERFACE_UNMAPPED',
  severity: 'warning',
  upstream: 'takes it',
  why: 'the discovery image may not find the NIC by name; the install can still go on',
});

export const NODE_IP_DUPLICATE = defineRule({
  code: 'NODE_IP_DUPLICATE',
  severity: 'error',
  upstream: 'takes it',
  why: 'install: `no-ip-collisions-in-network` is a required host validation',
});

export const NODE_IP_OUTSIDE_MACHINE_NETWORK = defineRule({
  code: 'NODE_IP_OUTSIDE_MACHINE_NETWORK',
  severity: 'error',
  upstream: 'takes it',
  why: 'install: `belongs-to-machine-cidr` is a required host validation',
});

/** The rules of this topic, for the registry. */
export const nmstateRules: readonly Rule[] = [
  NMSTATE_ADDRESS_INVALID,
  NMSTATE_DNS_INVALID,
  NMSTATE_ROUTE_INVALID,
  NMSTATE_ROUTE_INTERFACE_UNKNOWN,
  NMSTATE_INTERFACE_UNMAPPED,
  NODE_IP_DUPLICATE,
  NODE_IP_OUTSIDE_MACHINE_NETWORK,
];

function checkNmstate(
  c: ClusterContext,
  node: SiteConfigNode,
  at: Path,
  config: Readonly<Record<string, unknown>>,
  mappedNames: Set<string>,
): void {
  const ifaces = Array.isArray(config['interfaces']) ? (config['interfaces'] as unknown[]) : [];
  const names = new Set<string>();
  ifaces.forEach((raw, index) => {
    if (!isPlainObject(raw)) return;
    const iface = raw;
    const name = iface['name'];
    if (typeof name === 'string') names.add(name);
    if (
      typeof name === 'string' &&
      iface['type'] === 'ethernet' &&
      mappedNames.size > 0 &&
      !mappedNames.has(name)
    ) {
      c.report(
        NMSTATE_INTERFACE_UNMAPPED,
        [...at, 'interfaces', index, 'name'],
        `ethernet interface ${quote(name)} has no MAC in nodeNetwork.interfaces`,
        `add {name: ${name}, macAddress: ...} to nodeNetwork.interfaces so the discovery image can find the NIC`,
      );
    }
    for (const family of [4, 6] as const) {
      const stack = iface[`ipv${String(family)}`];
      if (!isPlainObject(stack)) continue;
      const addresses = stack['address'];
      if (!Array.isArray(addresses)) continue;
      addresses.forEach((entry: unknown, k) => {
        if (!isPlainObject(entry)) return;
        const { ip, 'prefix-length': prefix } = entry as {
          ip?: unknown;
          'prefix-length'?: unknown;
        };
        const path = [...at, 'interfaces', index, `ipv${String(family)}`, 'address', k];
        const parsed = typeof ip === 'string' ? parseIp(ip) : undefined;
        if (parsed?.family !== family) {
          c.report(
            NMSTATE_ADDRESS_INVALID,
            [...path, 'ip'],
            `${String(ip)} is not an IPv${String(family)} address`,
            `list IPv${String(family)} addresses under ipv${String(family)}.address`,
          );
          return;
        }
        const bits = family === 4 ? 32 : 128;
        if (
          typeof prefix !== 'number' ||
          !Number.isInteger(prefix) ||
          prefix < 1 ||
          prefix > bits
        ) {
          c.report(
            NMSTATE_ADDRESS_INVALID,
            [...path, 'prefix-length'],
            `prefix-length ${String(prefix)} is not valid for IPv${String(family)}`,
            `use an integer from 1 to ${String(bits)}`,
          );
          return;
        }
        const duplicate = c.nodeIps.find(
          (n) => n.ip.family === family && n.ip.value === parsed.value,
        );
        if (duplicate && duplicate.host !== node.hostName) {
          c.report(
            NODE_IP_DUPLICATE,
            [...path, 'ip'],
            `address ${ip as string} is also configured on node ${duplicate.host}`,
            'every node needs its own address',
          );
        }
        c.nodeIps.push({ ip: parsed, path: [...path, 'ip'], host: node.hostName });
      });
    }
  });
  const routes = isPlainObject(config['routes']) ? config['routes']['config'] : undefined;
  if (Array.isArray(routes)) {
    routes.forEach((raw: unknown, index) => {
      if (!isPlainObject(raw)) return;
      const route = raw;
      const path = [...at, 'routes', 'config', index];
      const dest = route['destination'];
      if (typeof dest === 'string' && !parseCidr(dest))
        c.report(
          NMSTATE_ROUTE_INVALID,
          [...path, 'destination'],
          `route destination ${quote(dest)} is not a CIDR`,
          'use 0.0.0.0/0 or ::/0 for a default route',
        );
      const hop = route['next-hop-address'];
      if (typeof hop === 'string' && !parseIp(hop))
        c.report(
          NMSTATE_ROUTE_INVALID,
          [...path, 'next-hop-address'],
          `next-hop-address ${quote(hop)} is not an IP address`,
          'write the gateway address',
        );
      const via = route['next-hop-interface'];
      if (typeof via === 'string' && !names.has(via)) {
        c.report(
          NMSTATE_ROUTE_INTERFACE_UNKNOWN,
          [...path, 'next-hop-interface'],
          `route uses interface ${quote(via)}, which config.interfaces does not define`,
          names.size > 0
            ? `use one of: ${[...names].join(', ')}`
            : 'define the interface under nodeNetwork.config.interfaces',
        );
      }
    });
  }
  const dns = isPlainObject(config['dns-resolver']) ? config['dns-resolver']['config'] : undefined;
  const servers = isPlainObject(dns) ? dns['server'] : undefined;
  if (Array.isArray(servers)) {
    servers.forEach((server: unknown, index) => {
      if (typeof server !== 'string' || !parseIp(server)) {
        c.report(
          NMSTATE_DNS_INVALID,
          [...at, 'dns-resolver', 'config', 'server', index],
          `DNS server ${quote(server)} is not an IP address`,
          'list name server IP addresses',
        );
      }
    });
  }
  checkNodeInMachineNetwork(c, node);
}

/** A node with static addresses needs one inside the machine network of each family it uses. */
function checkNodeInMachineNetwork(c: ClusterContext, node: SiteConfigNode): void {
  if (c.cluster.machineNetwork === undefined || !c.sound('machineNetwork')) return;
  const networks = c.cluster.machineNetwork
    .map((n) => parseCidr(n.cidr))
    .filter((cidr): cidr is Cidr => cidr !== undefined);
  const mine = c.nodeIps.filter((n) => n.host === node.hostName);
  for (const family of [4, 6] as const) {
    const familyNetworks = networks.filter((n) => n.family === family);
    const familyIps = mine.filter((n) => n.ip.family === family);
    if (familyNetworks.length === 0 || familyIps.length === 0) continue;
    if (!familyIps.some((n) => familyNetworks.some((net) => cidrContains(net, n.ip)))) {
      c.report(
        NODE_IP_OUTSIDE_MACHINE_NETWORK,
        familyIps[0]!.path,
        `node ${node.hostName} has no IPv${String(family)} address inside machineNetwork ${familyNetworks.map((n) => n.text).join(', ')}`,
        'the installer picks the node address from the machine network; fix the address or machineNetwork',
      );
    }
  }
}

/**
 * A node's nodeNetwork.config. Leaves its static addresses in the context, for the addresses of
 * later nodes and the VIP check.
 */
export const nmstateCheck: NodeCheck = {
  scope: 'node',
  name: 'nmstate',
  rules: nmstateRules,
  check(c, { node, at, sound }) {
    if (node.nodeNetwork?.config === undefined || !sound('nodeNetwork', 'config')) return;
    checkNmstate(
      c,
      node,
      [...at, 'nodeNetwork', 'config'],
      node.nodeNetwork.config,
      mappedInterfaceNames(node, sound('nodeNetwork', 'interfaces')),
    );
  },
};
