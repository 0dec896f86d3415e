import { describe, it } from 'vitest';
import {
  INVALID_TYPE,
  INVALID_VALUE,
  MISSING_FIELD,
  NUMBER_NOT_INTEGER,
  UNKNOWN_FIELD,
  UNKNOWN_KIND,
} from '../../../src/siteconfig/rules/structure.js';
import { expectRule } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

describe('structure rules', () => {
  it('refuses a list where a map belongs', () => {
    expectRule(INVALID_TYPE, snoSite({ cluster: '      clusterLabels: [a]\n' }), snoSite());
  });

  it('refuses a value outside an enum', () => {
    expectRule(INVALID_VALUE, snoSite({ node: '          bootMode: UEFIX\n' }), snoSite());
  });

  it('refuses a node without its boot MAC', () => {
    expectRule(
      MISSING_FIELD,
      snoSite().replace('          bootMACAddress: "aa:bb:cc:00:00:01"\n', ''),
      snoSite(),
    );
  });

  it('refuses a crTemplates kind SiteForge does not emit', () => {
    expectRule(
      UNKNOWN_KIND,
      snoSite({ cluster: '      crTemplates:\n        FooKind: foo.yaml\n' }),
      snoSite(),
    );
  });

  it('warns about a misspelt field', () => {
    expectRule(UNKNOWN_FIELD, snoSite({ cluster: '      clustrLabels: {}\n' }), snoSite());
  });

  it('refuses .inf in an integer field', () => {
    expectRule(
      NUMBER_NOT_INTEGER,
      snoSite({ node: '          rootDeviceHints:\n            minSizeGigabytes: .inf\n' }),
      snoSite({ node: '          rootDeviceHints:\n            minSizeGigabytes: 64\n' }),
    );
  });
});
