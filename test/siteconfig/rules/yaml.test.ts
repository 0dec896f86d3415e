import { describe, it } from 'vitest';
import {
  YAML11_LOOKALIKE,
  YAML11_LOOKALIKE_IN_CLUSTER_INSTANCE,
} from '../../../src/siteconfig/rules/yaml.js';
import { snoClusterInstance } from '../../support/cluster-instances.js';
import { expectRule } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

describe('YAML rules', () => {
  it('warns about a SiteConfig label value Go reads as a boolean', () => {
    expectRule(
      YAML11_LOOKALIKE,
      snoSite({ cluster: '      clusterLabels:\n        env: yes\n' }),
      snoSite({ cluster: '      clusterLabels:\n        env: "yes"\n' }),
    );
  });

  it('refuses the same in a ClusterInstance, which Kubernetes reads itself', () => {
    const labels = (value: string): string =>
      snoClusterInstance({
        cluster: `  extraLabels:\n    ManagedCluster:\n      env: ${value}\n`,
      });
    expectRule(YAML11_LOOKALIKE_IN_CLUSTER_INSTANCE, labels('yes'), labels('"yes"'));
  });
});
