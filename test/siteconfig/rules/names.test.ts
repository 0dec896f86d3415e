import { describe, it } from 'vitest';
import {
  BASE_DOMAIN_INVALID,
  CLUSTER_NAME_DUPLICATE,
  CLUSTER_NAME_INVALID,
  CLUSTER_NAME_RESERVED,
  HOSTNAME_DUPLICATE,
  HOSTNAME_INVALID,
} from '../../../src/siteconfig/rules/names.js';
import { expectRule, worker } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

describe('name rules', () => {
  it('refuses a cluster name that is no namespace name', () => {
    expectRule(CLUSTER_NAME_INVALID, snoSite({ name: 'Edge_1' }), snoSite({ name: 'edge-1' }));
  });

  it('warns about a cluster name starting with ztp', () => {
    expectRule(CLUSTER_NAME_RESERVED, snoSite({ name: 'ztp-edge' }), snoSite({ name: 'edge' }));
  });

  it('refuses two clusters of one name in two files', () => {
    const other = snoSite({ mac: 'aa:bb:cc:00:00:02' }).replace('site-sno1', 'site-other');
    expectRule(
      CLUSTER_NAME_DUPLICATE,
      [
        { path: 'a.yaml', text: snoSite() },
        { path: 'b.yaml', text: other },
      ],
      [
        { path: 'a.yaml', text: snoSite() },
        { path: 'b.yaml', text: snoSite({ name: 'sno2', mac: 'aa:bb:cc:00:00:02' }) },
      ],
      '/spec/clusters/0/clusterName',
    );
  });

  it('refuses a host name that is no DNS name', () => {
    expectRule(
      HOSTNAME_INVALID,
      snoSite().replace('hostName: sno1-node', 'hostName: Node_1'),
      snoSite(),
    );
  });

  it('refuses two nodes of one host name in a cluster', () => {
    expectRule(
      HOSTNAME_DUPLICATE,
      snoSite() + worker('sno1-node', 'aa:bb:cc:00:00:09'),
      snoSite() + worker('sno1-worker', 'aa:bb:cc:00:00:09'),
    );
  });

  it('refuses a base domain that is no DNS domain', () => {
    expectRule(
      BASE_DOMAIN_INVALID,
      snoSite().replace('baseDomain: example.com', 'baseDomain: -bad.example.com'),
      snoSite(),
    );
  });
});
