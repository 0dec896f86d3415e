/** BMC addresses, as the baremetal-operator reads them. */
import { quote } from '../../shared/errors.js';
import { parseBmcAddress } from './predicates.js';
import { defineRule } from './rule.js';
import type { NodeCheck, Rule } from './rule.js';

export const BMC_ADDRESS_INVALID = defineRule({
  code: 'BMC_ADDRESS_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'the baremetal-operator webhook rejects the BareMetalHost',
});

export const BMC_NEEDS_PROVISIONING_NETWORK = defineRule({
  code: 'BMC_NEEDS_PROVISIONING_NETWORK',
  severity: 'warning',
  upstream: 'takes it',
  why: 'the hub takes the BareMetalHost; it boots only where a provisioning network exists, which edge sites rarely have',
});

/** The rules of this topic, for the registry. */
export const bmcRules: readonly Rule[] = [BMC_ADDRESS_INVALID, BMC_NEEDS_PROVISIONING_NETWORK];

/** A node's bmcAddress: a URL the baremetal-operator knows, booting from virtual media. */
export const bmcAddressCheck: NodeCheck = {
  scope: 'node',
  name: 'BMC address',
  rules: [BMC_ADDRESS_INVALID, BMC_NEEDS_PROVISIONING_NETWORK],
  check(c, { node, at, sound }) {
    const bmc = sound('bmcAddress') ? parseBmcAddress(node.bmcAddress) : undefined;
    if (bmc === undefined) {
      // reported by the schema
    } else if ('problem' in bmc) {
      c.report(BMC_ADDRESS_INVALID, [...at, 'bmcAddress'], `bmcAddress: ${bmc.problem}`, bmc.hint);
    } else if (!bmc.virtualMedia) {
      c.report(
        BMC_NEEDS_PROVISIONING_NETWORK,
        [...at, 'bmcAddress'],
        `BMC scheme ${quote(bmc.scheme)} boots over a provisioning network, which edge sites do not have`,
        'use redfish-virtualmedia, idrac-virtualmedia or ilo5-virtualmedia to boot the discovery ISO',
      );
    }
  },
};
