import { describe, expect, it } from 'vitest';
import { Gvk, Label } from '../../../../src/bmac/api.js';
import { createBmacController } from '../../../../src/bmac/reconcilers/bmac/index.js';
import type { KubeObject } from '../../../../src/kube/index.js';
import { FakeCluster } from '../../../fakes/fake-cluster.js';
import { chartRules } from '../../../support/chart-rules.js';
import {
  ISO_URL,
  NS,
  agent,
  bmh,
  clusterDeployment,
  fakeClock,
  infraEnv,
  ppi,
} from './fixtures.js';

const controller = createBmacController({ converged: true });

function mapOf(kind: string, object: KubeObject, cluster: FakeCluster) {
  const watch = controller.watches?.find((w) => w.gvk.kind === kind);
  if (watch === undefined) throw new Error(`no watch on ${kind}`);
  return watch.map(object, cluster);
}

function cluster(...objects: KubeObject[]): FakeCluster {
  return new FakeCluster(fakeClock(), { rules: chartRules() }).seed(...objects);
}

describe('BMAC watches', () => {
  it('watches BareMetalHosts and exactly Agents, InfraEnvs, ClusterDeployments and PreprovisioningImages', () => {
    expect(controller.name).toBe('baremetal-agent-controller');
    expect(controller.for).toEqual(Gvk.BareMetalHost);
    expect(controller.watches?.map((w) => w.gvk)).toEqual([
      Gvk.Agent,
      Gvk.InfraEnv,
      Gvk.ClusterDeployment,
      Gvk.PreprovisioningImage,
    ]);
  });

  it('maps an Agent to the host its label names', () => {
    const c = cluster(bmh('host-0'), bmh('host-1', { spec: { bootMACAddress: 'other' } }));
    expect(mapOf('Agent', agent('a', { labels: { [Label.AgentBmh]: 'host-1' } }), c)).toEqual([
      { namespace: NS, name: 'host-1' },
    ]);
  });

  it('maps an unlabelled Agent to the host with its MAC, case-insensitively, in its namespace', () => {
    const elsewhere = bmh('host-x');
    const c = cluster(
      { ...elsewhere, metadata: { ...elsewhere.metadata, namespace: 'other' } },
      bmh('host-1', { spec: { bootMACAddress: '52:54:00:AA:BB:01' } }),
    );
    expect(mapOf('Agent', agent(), c)).toEqual([{ namespace: NS, name: 'host-1' }]);
    expect(mapOf('Agent', agent('b', { mac: '52:54:00:00:00:00' }), c)).toEqual([]);
  });

  it('maps an InfraEnv with an ISO to its labelled hosts that do not boot it yet', () => {
    const c = cluster(
      bmh('waiting'),
      bmh('booting', { spec: { image: { url: ISO_URL, format: 'live-iso' } } }),
      bmh('stale', { spec: { image: { url: 'https://old/x.iso' } } }),
      bmh('other-env', { labels: { [Label.InfraEnv]: 'another' } }),
      bmh('unlabelled', { labels: {} }),
    );
    expect(mapOf('InfraEnv', infraEnv(), c)).toEqual([
      { namespace: NS, name: 'waiting' },
      { namespace: NS, name: 'stale' },
    ]);
  });

  it('maps an InfraEnv without an ISO to nothing', () => {
    expect(mapOf('InfraEnv', infraEnv({ url: '' }), cluster(bmh('waiting')))).toEqual([]);
  });

  it('maps an InfraEnv whose ISO is still cooling down to its hosts (their pass requeues)', () => {
    const fresh = infraEnv({ createdTime: new Date().toISOString() });
    expect(mapOf('InfraEnv', fresh, cluster(bmh('waiting')))).toEqual([
      { namespace: NS, name: 'waiting' },
    ]);
  });

  it('maps an installed ClusterDeployment to the hosts of its Agents, the newest Agent per host', () => {
    const bound = (name: string, host: string, created: string, cd = 'spoke') =>
      agent(name, {
        creationTimestamp: created,
        labels: {
          [Label.AgentBmh]: host,
          'agent-install.openshift.io/clusterdeployment-namespace': NS,
        },
        spec: { clusterDeploymentName: { namespace: NS, name: cd } },
      });
    const c = cluster(
      bound('a0', 'host-0', '2026-11-01T00:00:00Z'),
      bound('a0-again', 'host-0', '2026-11-02T00:00:00Z'),
      bound('a1', 'host-1', '2026-11-01T00:00:00Z'),
      bound('b0', 'host-9', '2026-11-01T00:00:00Z', 'another'),
      agent('unlabelled', { spec: { clusterDeploymentName: { namespace: NS, name: 'spoke' } } }),
    );
    const requests = mapOf('ClusterDeployment', clusterDeployment(true), c);
    expect([...requests].sort((x, y) => x.name.localeCompare(y.name))).toEqual([
      { namespace: NS, name: 'host-0' },
      { namespace: NS, name: 'host-1' },
    ]);
  });

  it('maps a ClusterDeployment that is not installed to nothing', () => {
    const c = cluster(
      agent('a0', {
        labels: {
          [Label.AgentBmh]: 'host-0',
          'agent-install.openshift.io/clusterdeployment-namespace': NS,
        },
        spec: { clusterDeploymentName: { namespace: NS, name: 'spoke' } },
      }),
    );
    expect(mapOf('ClusterDeployment', clusterDeployment(false), c)).toEqual([]);
  });

  it('maps a PreprovisioningImage to the host of the same name', () => {
    expect(mapOf('PreprovisioningImage', ppi('host-7'), cluster())).toEqual([
      { namespace: NS, name: 'host-7' },
    ]);
  });
});
