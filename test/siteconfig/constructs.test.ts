import { Chart, Testing } from 'cdk8s';
import { describe, expect, it } from 'vitest';
import { SiteConfigError } from '../../src/shared/errors.js';
import { EmittedKinds, Fleet } from '../../src/siteconfig/constructs/index.js';
import type { SiteProps } from '../../src/siteconfig/constructs/index.js';
import { compileFleet, loadSiteConfigs } from '../../src/siteconfig/index.js';
import { exampleFiles } from '../support/sites.js';

const site: SiteProps = {
  name: 'site-1',
  baseDomain: 'edge.example.com',
  pullSecretRef: { name: 'pull-secret' },
  clusterImageSetNameRef: 'openshift-4.18.12',
  clusters: [
    {
      clusterName: 'sno-1',
      machineNetwork: [{ cidr: '10.0.0.0/24' }],
      nodes: [
        {
          hostName: 'sno-1',
          bmcAddress: 'redfish-virtualmedia+https://10.0.1.1/redfish/v1/Systems/1',
          bmcCredentialsName: { name: 'sno-1-bmc' },
          bootMACAddress: '0c:42:a1:00:00:01',
        },
      ],
    },
  ],
};

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
  );
}

describe('the cdk8s construct API', () => {
  it('emits the same objects for the example sites as the YAML compiler', () => {
    const { sites } = loadSiteConfigs(exampleFiles());
    const chart = new Chart(Testing.app(), 'sites');
    const fleet = new Fleet(chart, 'fleet');
    for (const { siteConfig } of sites) {
      fleet.addSite({
        ...siteConfig.spec,
        name: siteConfig.metadata.name,
        apiVersion: siteConfig.apiVersion,
      });
    }
    const synthesized = Testing.synth(chart)
      .map((o) => JSON.stringify(canonical(o)))
      .sort();
    const compiled = compileFleet(sites.map((s) => s.siteConfig))
      .flatMap((c) => c.manifests)
      .map((o) => JSON.stringify(canonical(o)))
      .sort();
    expect(synthesized).toEqual(compiled);
  });

  it('builds a construct tree of site, cluster and node', () => {
    const chart = new Chart(Testing.app(), 'sites');
    const created = new Fleet(chart, 'fleet').addSite(site);
    expect(created.clusters.map((c) => c.clusterName)).toEqual(['sno-1']);
    expect(created.clusters[0]!.nodes.map((n) => n.hostName)).toEqual(['sno-1']);
    const kinds = Testing.synth(chart).map((o) => (o as { kind: string }).kind);
    expect(kinds).toContain('BareMetalHost');
    expect(kinds).toContain('AgentClusterInstall');
  });

  it('defaults to the v2 template set (manifestsConfigMapRefs)', () => {
    const chart = new Chart(Testing.app(), 'sites');
    new Fleet(chart, 'fleet').addSite(site);
    const aci = Testing.synth(chart).find(
      (o) => (o as { kind: string }).kind === 'AgentClusterInstall',
    ) as { spec: Record<string, unknown> };
    expect(aci.spec['manifestsConfigMapRefs']).toEqual([{ name: 'sno-1' }]);
  });

  it('throws a SiteConfigError listing every problem of an invalid site', () => {
    const chart = new Chart(Testing.app(), 'sites');
    const bad: SiteProps = {
      ...site,
      clusters: [
        { ...site.clusters[0]!, clusterName: 'ztp-bad', machineNetwork: [{ cidr: '10.0.0.0/33' }] },
      ],
    };
    let error: unknown;
    try {
      new Fleet(chart, 'fleet').addSite(bad);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SiteConfigError);
    expect((error as SiteConfigError).issues.map((i) => i.code).sort()).toEqual([
      'CIDR_INVALID',
      'CLUSTER_NAME_RESERVED',
    ]);
    expect((error as SiteConfigError).issues[0]!.file).toBe('sites/fleet/site-1');
  });

  it('rejects a MAC used by two sites of the same fleet', () => {
    const fleet = new Fleet(new Chart(Testing.app(), 'sites'), 'fleet');
    fleet.addSite(site);
    const other = {
      ...site,
      name: 'site-2',
      clusters: [
        {
          ...site.clusters[0]!,
          clusterName: 'sno-2',
          nodes: [{ ...site.clusters[0]!.nodes[0]!, hostName: 'sno-2' }],
        },
      ],
    };
    expect(() => fleet.addSite(other)).toThrow(SiteConfigError);
  });

  it('takes every emitted group/version/kind from the CRDs we import', () => {
    const manifests = compileFleet(
      loadSiteConfigs(exampleFiles()).sites.map((s) => s.siteConfig),
    ).flatMap((c) => c.manifests);
    for (const m of manifests)
      expect(
        EmittedKinds[m.kind]?.map((gvk) => gvk.apiVersion),
        m.kind,
      ).toContain(m.apiVersion);
  });
});
