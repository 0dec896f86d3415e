/** MAC addresses: their syntax, the boot MAC among the interfaces, one host per MAC in a run. */
import { quote } from '../../shared/errors.js';
import { FleetIndex, RELATED } from '../issue-collector.js';
import type { Path } from '../issue-collector.js';
import type { SiteConfigNode } from '../types.js';
import { MAC } from './predicates.js';
import { defineRule } from './rule.js';
import type { ClusterContext, NodeCheck, Rule } from './rule.js';

export const MAC_INVALID = defineRule({
  code: 'MAC_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'the BareMetalHost and NMStateConfig need MACs',
});

export const MAC_DUPLICATE = defineRule({
  code: 'MAC_DUPLICATE',
  severity: 'error',
  upstream: 'takes it',
  why: 'two hosts with one MAC are matched to one agent',
});

export const BOOT_MAC_NOT_IN_INTERFACES = defineRule({
  code: 'BOOT_MAC_NOT_IN_INTERFACES',
  severity: 'warning',
  was: 'error',
  upstream: 'takes it',
  why: 'the host boots from virtual media and its agent is matched by any of its MACs: the install goes on',
});

/** The rules of this topic, for the registry. */
export const macRules: readonly Rule[] = [MAC_INVALID, MAC_DUPLICATE, BOOT_MAC_NOT_IN_INTERFACES];

/** Checks MAC syntax; returns the MAC in lower case, or undefined when it is not one. */
function macKey(c: ClusterContext, path: Path, mac: string): string | undefined {
  if (MAC.test(mac)) return mac.toLowerCase();
  c.report(
    MAC_INVALID,
    path,
    `${quote(mac)} is not a MAC address`,
    'write six hex pairs separated by colons, e.g. 0c:42:a1:8a:74:ec',
  );
  return undefined;
}

/** Records that a host owns a MAC; a second host with the same MAC anywhere in the input is an error. */
function claimMac(c: ClusterContext, node: SiteConfigNode, key: string, path: Path): void {
  const owner = `${c.cluster.clusterName}/${node.hostName}`;
  const first = c.fleet.macs.get(key);
  if (!first) c.fleet.macs.set(key, { place: FleetIndex.place(c.doc, path), owner });
  else if (first.owner !== owner) {
    c.report(
      MAC_DUPLICATE,
      path,
      `MAC ${key} is also used by ${first.owner} (${RELATED})`,
      'MAC addresses identify hosts; every host in the fleet needs its own',
      'value',
      first.place,
    );
  }
}

/** The names of a node's interfaces in nodeNetwork.interfaces (read by the nmstate check). */
export function mappedInterfaceNames(node: SiteConfigNode, interfacesSound: boolean): Set<string> {
  const names = new Set<string>();
  if (interfacesSound) for (const nic of node.nodeNetwork?.interfaces ?? []) names.add(nic.name);
  return names;
}

/** A node's boot MAC and interface MACs: syntax, the boot MAC among them, unique in the run. */
export const macsCheck: NodeCheck = {
  scope: 'node',
  name: 'MAC addresses',
  rules: [MAC_INVALID, MAC_DUPLICATE, BOOT_MAC_NOT_IN_INTERFACES],
  check(c, { node, at, sound }) {
    const macs = new Map<string, Path>();
    const bootPath = [...at, 'bootMACAddress'];
    const bootKey = sound('bootMACAddress') ? macKey(c, bootPath, node.bootMACAddress) : undefined;
    if (bootKey) macs.set(bootKey, bootPath);
    const interfaces = sound('nodeNetwork', 'interfaces')
      ? (node.nodeNetwork?.interfaces ?? [])
      : [];
    const interfaceMacs = new Set<string>();
    interfaces.forEach((nic, index) => {
      const path = [...at, 'nodeNetwork', 'interfaces', index, 'macAddress'];
      const key = macKey(c, path, nic.macAddress);
      if (!key) return;
      if (interfaceMacs.has(key)) {
        c.report(
          MAC_DUPLICATE,
          path,
          `MAC ${nic.macAddress} is listed twice for node ${node.hostName}`,
          'each interface has its own MAC',
        );
      }
      interfaceMacs.add(key);
      if (!macs.has(key)) macs.set(key, path);
    });
    // An interface MAC that is no MAC is reported already; it may well be the boot MAC mistyped.
    if (
      bootKey &&
      interfaces.length > 0 &&
      !interfaceMacs.has(bootKey) &&
      interfaces.every((nic) => MAC.test(nic.macAddress))
    ) {
      // A warning: the host boots from virtual media and is matched by any of its MACs.
      c.report(
        BOOT_MAC_NOT_IN_INTERFACES,
        bootPath,
        `bootMACAddress ${node.bootMACAddress} is not among nodeNetwork.interfaces`,
        `add {name: <nic>, macAddress: ${quote(node.bootMACAddress)}} to nodeNetwork.interfaces, or fix the MAC`,
      );
    }
    for (const [key, path] of macs) claimMac(c, node, key, path);
  },
};
