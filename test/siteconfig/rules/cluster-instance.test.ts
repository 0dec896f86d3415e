import { describe, it } from 'vitest';
import {
  CLUSTER_TYPE_MISMATCH,
  CLUSTER_TYPE_UNSUPPORTED,
  CLUSTERINSTANCE_FIELD_IGNORED,
  NAMESPACE_MISMATCH,
  SSH_KEYS_JOINED,
} from '../../../src/siteconfig/rules/cluster-instance.js';
import { snoClusterInstance } from '../../support/cluster-instances.js';
import { expectRule } from '../../support/rule-cases.js';

const base = snoClusterInstance();

describe('ClusterInstance rules', () => {
  it('refuses a namespace other than the cluster name', () => {
    expectRule(
      NAMESPACE_MISMATCH,
      base.replace('  namespace: ci-1\n', '  namespace: other\n'),
      base,
      '/metadata/namespace',
    );
  });

  it('refuses a HostedControlPlane cluster', () => {
    expectRule(
      CLUSTER_TYPE_UNSUPPORTED,
      base.replace('clusterType: SNO', 'clusterType: HostedControlPlane'),
      base,
    );
  });

  it('refuses clusterType HighlyAvailable with one control-plane node', () => {
    expectRule(
      CLUSTER_TYPE_MISMATCH,
      base.replace('clusterType: SNO', 'clusterType: HighlyAvailable'),
      base,
    );
  });

  it('warns about two SSH keys on two lines, which the templates join', () => {
    const keys = (between: string): string =>
      base.replace(
        '  sshPublicKey: ssh-ed25519 AAAA\n',
        `  sshPublicKey: |\n    ssh-ed25519 AAAA a@x\n${between}    ssh-rsa BBBB b@x\n`,
      );
    expectRule(SSH_KEYS_JOINED, keys(''), keys('\n'));
  });

  it('warns about reinstall, which SiteForge does not carry out', () => {
    expectRule(
      CLUSTERINSTANCE_FIELD_IGNORED,
      snoClusterInstance({ cluster: '  reinstall:\n    generation: "2"\n' }),
      base,
    );
  });
});
