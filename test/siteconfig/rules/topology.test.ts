import { describe, it } from 'vitest';
import {
  REMOVE_CONTROL_PLANE,
  REMOVE_SNO_CONTROL_PLANE,
  SNO_ONLY_CPUSET,
  SNO_WITH_VIPS,
  TOPOLOGY_INVALID,
  VIPS_REQUIRED,
} from '../../../src/siteconfig/rules/topology.js';
import { compactSite, expectRule, worker } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

describe('topology rules', () => {
  it('refuses two control-plane nodes', () => {
    expectRule(TOPOLOGY_INVALID, compactSite({ masters: 2 }), compactSite());
  });

  it('refuses three control-plane nodes with one worker', () => {
    expectRule(
      TOPOLOGY_INVALID,
      compactSite({ workers: worker('w0', 'aa:bb:cc:00:02:00') }),
      compactSite({
        workers: worker('w0', 'aa:bb:cc:00:02:00') + worker('w1', 'aa:bb:cc:00:02:01'),
      }),
    );
  });

  it('refuses a compact cluster without VIPs', () => {
    expectRule(VIPS_REQUIRED, compactSite({ cluster: '' }), compactSite());
  });

  it('refuses VIPs on a single-node cluster', () => {
    expectRule(SNO_WITH_VIPS, snoSite({ cluster: '      apiVIPs: ["10.0.0.5"]\n' }), snoSite());
  });

  it('refuses removing the only control-plane node', () => {
    expectRule(REMOVE_SNO_CONTROL_PLANE, snoSite({ node: '          remove: true\n' }), snoSite());
  });

  it('warns about removing a control-plane node of three', () => {
    expectRule(
      REMOVE_CONTROL_PLANE,
      compactSite({ node: '          remove: true\n' }),
      compactSite(),
    );
  });

  it('warns that cpuset is ignored on a multi-node cluster, not on a single node', () => {
    const cpuset = '          cpuset: "0-1"\n';
    expectRule(SNO_ONLY_CPUSET, compactSite({ node: cpuset }), snoSite({ node: cpuset }));
  });
});
