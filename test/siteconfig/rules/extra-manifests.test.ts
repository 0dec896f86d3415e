import { describe, it } from 'vitest';
import {
  FILTER_EMPTY_LIST_UNUSED,
  FILTER_INVALID,
} from '../../../src/siteconfig/rules/extra-manifests.js';
import { DEPRECATED_FIELD, IGNORED_FIELD } from '../../../src/siteconfig/rules/cluster.js';
import { expectRule } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

const filter = (lines: string): string => `      extraManifests:\n        filter:\n${lines}`;

describe('extra-manifest rules', () => {
  it('refuses entries in the include list of the include mode', () => {
    expectRule(
      FILTER_INVALID,
      snoSite({ cluster: filter('          include:\n            - a.yaml\n') }),
      snoSite({ cluster: filter('          exclude:\n            - a.yaml\n') }),
    );
  });

  it('warns about an empty list of the mode not used', () => {
    expectRule(
      FILTER_EMPTY_LIST_UNUSED,
      snoSite({ cluster: filter('          include: []\n') }),
      snoSite({ cluster: filter('          exclude: []\n') }),
    );
  });

  it('warns that extraManifestPath is deprecated, and ignored beside searchPaths', () => {
    const path = '      extraManifestPath: sno-extra\n';
    const searchPaths = '      extraManifests:\n        searchPaths:\n          - sno-extra/\n';
    expectRule(
      DEPRECATED_FIELD,
      snoSite({ cluster: path }),
      snoSite(),
      '/spec/clusters/0/extraManifestPath',
    );
    expectRule(
      IGNORED_FIELD,
      snoSite({ cluster: path + searchPaths }),
      snoSite({ cluster: path }),
      '/spec/clusters/0/extraManifestPath',
    );
  });
});
