import { describe, it } from 'vitest';
import { ANNOTATION_INVALID, LABEL_INVALID } from '../../../src/siteconfig/rules/labels.js';
import { expectRule } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

describe('label and annotation rules', () => {
  it('refuses a cluster label key the API server refuses', () => {
    expectRule(
      LABEL_INVALID,
      snoSite({ cluster: '      clusterLabels:\n        "bad key!": x\n' }),
      snoSite({ cluster: '      clusterLabels:\n        common: "true"\n' }),
    );
  });

  it('refuses a node label value longer than 63 characters', () => {
    expectRule(
      LABEL_INVALID,
      snoSite({ node: `          nodeLabels:\n            zone: ${'a'.repeat(64)}\n` }),
      snoSite({ node: '          nodeLabels:\n            zone: a\n' }),
    );
  });

  it('refuses an annotation key the API server refuses', () => {
    const annotate = (key: string): string =>
      `      crAnnotations:\n        add:\n          BareMetalHost:\n            "${key}": x\n`;
    expectRule(
      ANNOTATION_INVALID,
      snoSite({ cluster: annotate('bad key!') }),
      snoSite({ cluster: annotate('example.com/ok') }),
    );
  });
});
