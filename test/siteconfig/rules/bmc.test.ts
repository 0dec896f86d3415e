import { describe, it } from 'vitest';
import {
  BMC_ADDRESS_INVALID,
  BMC_NEEDS_PROVISIONING_NETWORK,
} from '../../../src/siteconfig/rules/bmc.js';
import { expectRule } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

const withBmc = (address: string): string =>
  snoSite().replace(
    'bmcAddress: redfish-virtualmedia://10.0.1.1/redfish/v1/Systems/1',
    `bmcAddress: ${address}`,
  );

describe('BMC rules', () => {
  it('refuses a BMC scheme the baremetal-operator does not know', () => {
    expectRule(BMC_ADDRESS_INVALID, withBmc('foo://10.0.1.1'), snoSite());
  });

  it('warns about a scheme that boots over a provisioning network', () => {
    expectRule(BMC_NEEDS_PROVISIONING_NETWORK, withBmc('ipmi://10.0.1.1'), snoSite());
  });
});
