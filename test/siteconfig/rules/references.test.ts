import { describe, it } from 'vitest';
import {
  IMAGE_SET_MISSING,
  REFERENCE_NAME_INVALID,
} from '../../../src/siteconfig/rules/references.js';
import { expectRule } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

describe('reference rules', () => {
  it('refuses a pull secret name Kubernetes cannot hold', () => {
    expectRule(
      REFERENCE_NAME_INVALID,
      snoSite().replace('name: pull-secret', 'name: Pull_Secret'),
      snoSite(),
      '/spec/pullSecretRef/name',
    );
  });

  it('refuses a cluster with no ClusterImageSet at either level', () => {
    const without = snoSite().replace('  clusterImageSetNameRef: openshift-4.18\n', '');
    expectRule(
      IMAGE_SET_MISSING,
      without,
      snoSite({ cluster: '      clusterImageSetNameRef: openshift-4.18\n' }).replace(
        '  clusterImageSetNameRef: openshift-4.18\n  sshPublicKey',
        '  sshPublicKey',
      ),
    );
  });
});
