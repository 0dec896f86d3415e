import { describe, expect, it } from 'vitest';
import {
  ClusterEventLog,
  ClusterEventText,
  MAX_EVENTS_PER_CLUSTER,
} from '../../../src/assisted/clusters/cluster-events.js';

describe('the clusters’ event lists', () => {
  it('keeps upstream’s names and texts per cluster, oldest first, filterable by host', () => {
    const log = new ClusterEventLog();
    const at = new Date(Date.UTC(2026, 0, 1));
    log.record('c1', ClusterEventText.registered(), at);
    log.record('c1', ClusterEventText.roleSuggested('node-1', 'master'), at, { hostId: 'h1' });
    log.record('c1', ClusterEventText.installFailed('cluster has hosts in error'), at, {
      severity: 'critical',
    });
    log.record('c2', ClusterEventText.statusUpdated('ready'), at);
    expect(log.list('c1')).toEqual([
      {
        name: 'cluster_registration_succeeded',
        cluster_id: 'c1',
        severity: 'info',
        category: 'user',
        message: 'Successfully registered cluster',
        event_time: '2026-01-01T00:00:00.000Z',
      },
      {
        name: 'host_role_updated',
        cluster_id: 'c1',
        host_id: 'h1',
        severity: 'info',
        category: 'user',
        message: 'Host node-1: calculated role is master',
        event_time: '2026-01-01T00:00:00.000Z',
      },
      {
        name: 'cluster_installation_failed',
        cluster_id: 'c1',
        severity: 'critical',
        category: 'user',
        message: 'Failed installing cluster. Reason: cluster has hosts in error',
        event_time: '2026-01-01T00:00:00.000Z',
      },
    ]);
    expect(log.list('c1', 'h1').map((e) => e.name)).toEqual(['host_role_updated']);
    expect(log.list('c2').map((e) => e.message)).toEqual([
      'Updated status of the cluster to ready',
    ]);
    log.forget('c1');
    expect(log.list('c1')).toEqual([]);
  });

  it('drops the oldest events beyond its bound', () => {
    const log = new ClusterEventLog();
    for (let i = 0; i < MAX_EVENTS_PER_CLUSTER + 5; i++)
      log.record('c1', ClusterEventText.statusUpdated(String(i)), new Date(0));
    const list = log.list('c1');
    expect(list).toHaveLength(MAX_EVENTS_PER_CLUSTER);
    expect(list[0]?.message).toBe('Updated status of the cluster to 5');
  });
});
