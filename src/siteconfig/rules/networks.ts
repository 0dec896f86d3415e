/**
 * Networks: the machine, cluster and service networks (CIDRs, host prefixes, overlaps, one
 * stack shape for all), and the API and ingress VIPs inside them.
 */
import { quote } from '../../shared/errors.js';
import {
  cidrContains,
  cidrsOverlap,
  formatCidrNetwork,
  parseCidr,
  parseIp,
} from '../../shared/ip.js';
import type { IpFamily } from '../../shared/ip.js';
import type { Path } from '../issue-collector.js';
import { DEPRECATED_FIELD } from './cluster.js';
import { defineRule } from './rule.js';
import type { ClusterCheck, ClusterContext, ParsedNetwork, Rule } from './rule.js';

export const CIDR_INVALID = defineRule({
  code: 'CIDR_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'install: `network-prefix-valid`',
});

export const CIDR_HOST_BITS_SET = defineRule({
  code: 'CIDR_HOST_BITS_SET',
  severity: 'error',
  upstream: 'takes it',
  why: 'the installer refuses a network address with host bits',
});

export const HOST_PREFIX_INVALID = defineRule({
  code: 'HOST_PREFIX_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'install: `network-prefix-valid`',
});

export const NETWORK_OVERLAP = defineRule({
  code: 'NETWORK_OVERLAP',
  severity: 'error',
  upstream: 'takes it',
  why: 'install: `no-cidrs-overlapping`',
});

export const STACK_MISMATCH = defineRule({
  code: 'STACK_MISMATCH',
  severity: 'error',
  upstream: 'takes it',
  why: 'install: `networks-same-address-families`',
});

const VIPS_VALID = 'install: `api-vips-valid` / `ingress-vips-valid`';

export const VIP_INVALID = defineRule({
  code: 'VIP_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: `${VIPS_VALID} (an address)`,
});

export const VIP_DUPLICATE = defineRule({
  code: 'VIP_DUPLICATE',
  severity: 'error',
  upstream: 'takes it',
  why: `${VIPS_VALID} (distinct)`,
});

export const VIP_OUTSIDE_MACHINE_NETWORK = defineRule({
  code: 'VIP_OUTSIDE_MACHINE_NETWORK',
  severity: 'error',
  upstream: 'takes it',
  why: `${VIPS_VALID} (in the machine network)`,
});

export const VIP_IS_NODE_IP = defineRule({
  code: 'VIP_IS_NODE_IP',
  severity: 'error',
  upstream: 'takes it',
  why: `${VIPS_VALID} (not in use)`,
});

export const VIP_CONFLICT = defineRule({
  code: 'VIP_CONFLICT',
  severity: 'error',
  upstream: 'takes it',
  why: 'assisted-service refuses an `apiVIP` that is not the first of `apiVIPs`',
});

/** The rules of this topic, for the registry. */
export const networkRules: readonly Rule[] = [
  CIDR_INVALID,
  CIDR_HOST_BITS_SET,
  HOST_PREFIX_INVALID,
  NETWORK_OVERLAP,
  STACK_MISMATCH,
  VIP_INVALID,
  VIP_DUPLICATE,
  VIP_OUTSIDE_MACHINE_NETWORK,
  VIP_IS_NODE_IP,
  VIP_CONFLICT,
];

function parseCidrList(
  c: ClusterContext,
  field: string,
  entries: readonly { cidr: string }[] | readonly string[] | undefined,
  viaCidr: boolean,
): ParsedNetwork[] {
  const result: ParsedNetwork[] = [];
  if (!c.sound(field)) return result;
  (entries ?? []).forEach((entry, index) => {
    const path = viaCidr ? [...c.at, field, index, 'cidr'] : [...c.at, field, index];
    const text = typeof entry === 'string' ? entry : entry.cidr;
    const cidr = parseCidr(text);
    if (!cidr) {
      c.report(
        CIDR_INVALID,
        path,
        `${field} ${quote(text)} is not a CIDR`,
        'write address/prefix, e.g. 10.16.231.0/24 or fd01::/48',
      );
      return;
    }
    if (cidr.hostBitsSet) {
      c.report(
        CIDR_HOST_BITS_SET,
        path,
        `${field} ${quote(text)} has host bits set`,
        `the network address is ${formatCidrNetwork(cidr)}`,
      );
    }
    result.push({ cidr, path });
  });
  return result;
}

/** Single or dual stack, the same for every network, with the same primary family. */
function checkStacks(
  c: ClusterContext,
  lists: { field: string; list: readonly ParsedNetwork[] }[],
): void {
  let reference: { field: string; shape: string } | undefined;
  for (const { field, list } of lists) {
    if (list.length === 0) continue;
    const families: IpFamily[] = [];
    for (const { cidr } of list) if (!families.includes(cidr.family)) families.push(cidr.family);
    const shape = families.map((f) => `IPv${String(f)}`).join('+');
    if (families.length === 2 && list.length === 2) {
      // dual stack: one network per family
    } else if (families.length === 2) {
      c.report(
        STACK_MISMATCH,
        [...c.at, field],
        `${field} mixes address families in ${String(list.length)} entries`,
        'a dual-stack network lists exactly one IPv4 and one IPv6 CIDR',
      );
      continue;
    }
    if (!reference) {
      reference = { field, shape };
    } else if (reference.shape !== shape) {
      c.report(
        STACK_MISMATCH,
        [...c.at, field],
        `${field} is ${shape} but ${reference.field} is ${reference.shape}`,
        'all networks must be single stack of the same family, or all dual stack with the same primary family first',
      );
    }
  }
}

/**
 * The machine, cluster and service networks: CIDRs, host prefixes, overlaps and stack shape.
 * Leaves the machine networks in the context for the VIP check.
 */
export const networksCheck: ClusterCheck = {
  scope: 'cluster',
  name: 'networks',
  rules: [CIDR_INVALID, CIDR_HOST_BITS_SET, HOST_PREFIX_INVALID, NETWORK_OVERLAP, STACK_MISMATCH],
  check(c) {
    const { cluster, at } = c;
    c.machineNetworks = parseCidrList(c, 'machineNetwork', cluster.machineNetwork, true);
    const clusterNetworks = parseCidrList(c, 'clusterNetwork', cluster.clusterNetwork, true);
    const serviceNetworks = parseCidrList(c, 'serviceNetwork', cluster.serviceNetwork, false);
    (c.sound('clusterNetwork') ? (cluster.clusterNetwork ?? []) : []).forEach((entry, index) => {
      const cidr = parseCidr(entry.cidr);
      if (!cidr || entry.hostPrefix === undefined) return;
      const bits = cidr.family === 4 ? 32 : 128;
      if (entry.hostPrefix < cidr.prefix || entry.hostPrefix > bits) {
        c.report(
          HOST_PREFIX_INVALID,
          [...at, 'clusterNetwork', index, 'hostPrefix'],
          `hostPrefix ${String(entry.hostPrefix)} does not fit ${entry.cidr}`,
          `use a value between ${String(cidr.prefix)} and ${String(bits)} (commonly 23 for IPv4, 64 for IPv6)`,
        );
      }
    });
    const named = [
      ...c.machineNetworks.map((n) => ({ ...n, kind: 'machineNetwork' })),
      ...clusterNetworks.map((n) => ({ ...n, kind: 'clusterNetwork' })),
      ...serviceNetworks.map((n) => ({ ...n, kind: 'serviceNetwork' })),
    ];
    for (let i = 0; i < named.length; i++) {
      for (let j = i + 1; j < named.length; j++) {
        const a = named[i]!;
        const b = named[j]!;
        if (cidrsOverlap(a.cidr, b.cidr)) {
          c.report(
            NETWORK_OVERLAP,
            b.path,
            `${b.kind} ${b.cidr.text} overlaps ${a.kind} ${a.cidr.text}`,
            'machine, cluster and service networks must not share addresses; pick disjoint ranges',
          );
        }
      }
    }
    checkStacks(c, [
      { field: 'machineNetwork', list: c.machineNetworks },
      { field: 'clusterNetwork', list: clusterNetworks },
      { field: 'serviceNetwork', list: serviceNetworks },
    ]);
  },
};

/** A VIP as written: its text, where, and under which field. */
export interface WrittenVip {
  readonly text: string;
  readonly path: Path;
  readonly field: string;
}

const DEPRECATED_VIP_HINT =
  'write the plural form (apiVIPs / ingressVIPs) as a list; keep the singular form only for clusters already installed with it';

/** The VIPs of one kind, from the plural field or else the deprecated singular one. */
export function vipList(
  c: ClusterContext,
  plural: 'apiVIPs' | 'ingressVIPs',
  singular: 'apiVIP' | 'ingressVIP',
): WrittenVip[] {
  const { cluster, at } = c;
  const list = (cluster[plural] ?? []).map((text, index) => ({
    text,
    path: [...at, plural, index],
    field: plural,
  }));
  const single = cluster[singular];
  if (single !== undefined) {
    c.report(
      DEPRECATED_FIELD,
      [...at, singular],
      `${singular} is deprecated`,
      DEPRECATED_VIP_HINT,
      'key',
    );
    if (list.length > 0 && list[0]!.text !== single) {
      c.report(
        VIP_CONFLICT,
        [...at, singular],
        `${singular} ${quote(single)} differs from the first of ${plural} ${quote(list[0]!.text)}`,
        `set only ${plural}, or make ${singular} equal to its first entry`,
      );
    }
    if (list.length === 0) return [{ text: single, path: [...at, singular], field: singular }];
  }
  return list;
}

/**
 * The VIPs: addresses, distinct, inside the machine network, no node's address, one per family
 * in the networks' order. Reads the machine networks and node addresses earlier checks found.
 */
export function checkVips(
  c: ClusterContext,
  apiVips: readonly WrittenVip[],
  ingressVips: readonly WrittenVip[],
): void {
  const seen = new Map<string, string>();
  const networkFamilies = c.machineNetworks.map((n) => n.cidr.family);
  const primary = networkFamilies[0];
  for (const [name, list] of [
    ['apiVIPs', apiVips],
    ['ingressVIPs', ingressVips],
  ] as const) {
    const families: IpFamily[] = [];
    for (const vip of list) {
      const ip = parseIp(vip.text);
      if (!ip) {
        c.report(
          VIP_INVALID,
          vip.path,
          `VIP ${quote(vip.text)} is not an IP address`,
          'write a single address, without a prefix length',
        );
        continue;
      }
      families.push(ip.family);
      const key = ip.value.toString() + String(ip.family);
      const other = seen.get(key);
      if (other !== undefined)
        c.report(
          VIP_DUPLICATE,
          vip.path,
          `VIP ${vip.text} is also used as ${other}`,
          'API and ingress VIPs must be distinct addresses',
        );
      else seen.set(key, name);
      if (
        c.machineNetworks.length > 0 &&
        !c.machineNetworks.some((n) => cidrContains(n.cidr, ip))
      ) {
        c.report(
          VIP_OUTSIDE_MACHINE_NETWORK,
          vip.path,
          `VIP ${vip.text} is outside the machine network (${c.machineNetworks.map((n) => n.cidr.text).join(', ')})`,
          'pick a free address inside machineNetwork, or fix machineNetwork',
        );
      }
      const node = c.nodeIps.find((n) => n.ip.family === ip.family && n.ip.value === ip.value);
      if (node)
        c.report(
          VIP_IS_NODE_IP,
          vip.path,
          `VIP ${vip.text} is the address of node ${node.host}`,
          'a VIP must be a free address that no node owns',
        );
    }
    if (list.length === 2 && families.length === 2 && families[0] === families[1]) {
      c.report(
        STACK_MISMATCH,
        list[1]!.path,
        `${name} lists two IPv${String(families[0])} addresses`,
        'a dual-stack cluster lists one VIP per family, primary family first',
      );
    } else if (
      networkFamilies.length === 2 &&
      new Set(networkFamilies).size === 2 &&
      list.length === 1
    ) {
      c.report(
        STACK_MISMATCH,
        list[0]!.path,
        `the cluster is dual stack but ${name} has one address`,
        `add the IPv${String(families[0] === 4 ? 6 : 4)} VIP as second entry`,
      );
    } else if (primary !== undefined && families.length > 0 && families[0] !== primary) {
      c.report(
        STACK_MISMATCH,
        list[0]!.path,
        `${name} starts with an IPv${String(families[0])} address but the primary machine network is IPv${String(primary)}`,
        'list VIPs in the same family order as the networks',
      );
    }
  }
}
