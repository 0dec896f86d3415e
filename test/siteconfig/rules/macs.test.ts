import { describe, it } from 'vitest';
import {
  BOOT_MAC_NOT_IN_INTERFACES,
  MAC_DUPLICATE,
  MAC_INVALID,
} from '../../../src/siteconfig/rules/macs.js';
import { expectRule } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

const interfaces = (mac: string): string =>
  `          nodeNetwork:\n            interfaces:\n              - name: eno1\n                macAddress: "${mac}"\n`;

describe('MAC rules', () => {
  it('refuses a boot MAC that is no MAC', () => {
    expectRule(MAC_INVALID, snoSite({ mac: 'aa:bb:cc:00:00' }), snoSite());
  });

  it('refuses one MAC on hosts of two files', () => {
    expectRule(
      MAC_DUPLICATE,
      [
        { path: 'a.yaml', text: snoSite() },
        { path: 'b.yaml', text: snoSite({ name: 'sno2' }) },
      ],
      [
        { path: 'a.yaml', text: snoSite() },
        { path: 'b.yaml', text: snoSite({ name: 'sno2', mac: 'aa:bb:cc:00:00:02' }) },
      ],
    );
  });

  it('warns about a boot MAC missing from the interfaces', () => {
    expectRule(
      BOOT_MAC_NOT_IN_INTERFACES,
      snoSite({ node: interfaces('aa:bb:cc:00:00:09') }),
      snoSite({ node: interfaces('aa:bb:cc:00:00:01') }),
    );
  });
});
