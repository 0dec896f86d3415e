/**
 * FakeCluster with RBAC rules: each reader and writer call needs the verbs the real API server
 * (and the informer behind the cache) would ask for, and anything else is a 403 Forbidden.
 */
import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../../src/kube/index.js';
import type { KubeObject } from '../../src/kube/index.js';
import { EventType } from '../../src/bmac/runtime/contract.js';
import type { PolicyRule } from '../../src/bmac/permissions.js';
import { FakeCluster } from './fake-cluster.js';

const HOST: KubeObject = {
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'BareMetalHost',
  metadata: { name: 'host-0', namespace: 'site-1' },
  spec: {},
};
const SECRET = { apiVersion: 'v1', kind: 'Secret', namespace: 'site-1', name: 'bmc' };

function clusterWith(...rules: PolicyRule[]): FakeCluster {
  return new FakeCluster(undefined, { rules }).seed(HOST);
}

const hosts = (...verbs: string[]): PolicyRule => ({
  apiGroups: ['metal3.io'],
  resources: ['baremetalhosts'],
  verbs,
});

function forbidden(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).status).toBe(403);
    return (error as KubeApiError).message;
  }
  throw new Error('expected 403 Forbidden');
}

describe('FakeCluster with RBAC rules', () => {
  it('needs list and watch (the informer) for cache reads', () => {
    expect(forbidden(() => clusterWith(hosts('list')).get({ ...HOST, ...HOST.metadata }))).toBe(
      'baremetalhosts.metal3.io is forbidden: the controller cannot watch it (not granted by its ClusterRole)',
    );
    const cluster = clusterWith(hosts('list', 'watch'));
    expect(cluster.list(HOST)).toHaveLength(1);
  });

  it('needs get for live reads, update for updates and update of /status for status', async () => {
    const cluster = clusterWith(hosts('list', 'watch', 'update'));
    await expect(cluster.getLive(SECRET)).rejects.toMatchObject({ status: 403 });
    const stored = cluster.get({ ...HOST, ...HOST.metadata })!;
    const updated = await cluster.update({ ...stored, spec: { online: true } });
    await expect(cluster.updateStatus({ ...updated, status: {} })).rejects.toThrow(
      'baremetalhosts/status.metal3.io is forbidden',
    );
    const withStatus = clusterWith(hosts('list', 'watch'), {
      apiGroups: ['metal3.io'],
      resources: ['baremetalhosts/status'],
      verbs: ['update'],
    });
    const host = withStatus.get({ ...HOST, ...HOST.metadata })!;
    await expect(withStatus.updateStatus({ ...host, status: {} })).resolves.toBeDefined();
  });

  it('needs create and delete for those, and create of events for an Event', async () => {
    const cluster = clusterWith(hosts('list', 'watch'));
    await expect(
      cluster.create({ ...HOST, metadata: { name: 'host-1', namespace: 'site-1' } }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(cluster.delete({ ...HOST, ...HOST.metadata })).rejects.toMatchObject({
      status: 403,
    });
    expect(cluster.writes).toEqual([]);
    expect(
      forbidden(() => {
        cluster.event(HOST, EventType.Normal, 'Seen', 'seen');
      }),
    ).toContain('events is forbidden');
  });

  it('takes * as any group, resource or verb, and allows everything without rules', () => {
    const any = clusterWith({ apiGroups: ['*'], resources: ['*'], verbs: ['*'] });
    expect(any.list(HOST)).toHaveLength(1);
    expect(new FakeCluster().seed(HOST).list(HOST)).toHaveLength(1);
  });
});
