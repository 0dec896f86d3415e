import { describe, expect, it } from 'vitest';
import { chooseBootstrap, suggestRoles } from '../../../src/assisted/clusters/roles.js';
import type { ClusterRecord, HostRecord } from '../../../src/assisted/model.js';
import { host } from './fakes.js';

const cluster = (masters: number, workers: number): ClusterRecord =>
  ({
    id: 'c1',
    controlPlaneAgents: masters,
    workerAgents: workers,
    arbiterAgents: 0,
    highAvailabilityMode: masters === 1 && workers === 0 ? 'None' : 'Full',
  }) as ClusterRecord;

describe('role suggestions', () => {
  it('makes the lighter capable hosts masters and keeps the heavier ones as workers', () => {
    const hosts = [
      host('h-1', 'c1', { cores: 32, ramGib: 128 }),
      host('h-2', 'c1', { cores: 8, ramGib: 32 }),
      host('h-3', 'c1', { cores: 8, ramGib: 32 }),
      host('h-4', 'c1', { cores: 2, ramGib: 8 }),
      host('h-5', 'c1', { cores: 8, ramGib: 32 }),
    ];
    expect(Object.fromEntries(suggestRoles(cluster(3, 2), hosts))).toEqual({
      'h-1': 'worker',
      'h-2': 'master',
      'h-3': 'master',
      'h-4': 'worker',
      'h-5': 'master',
    });
  });

  it('keeps a host already suggested master when a lighter one arrives', () => {
    const hosts = [
      host('h-1', 'c1', { cores: 16, ramGib: 64, suggestedRole: 'master' }),
      host('h-2', 'c1', { cores: 8, ramGib: 32 }),
    ];
    expect(suggestRoles(cluster(1, 1), hosts).get('h-1')).toBe('master');
    expect(suggestRoles(cluster(1, 1), hosts).get('h-2')).toBe('worker');
  });

  it('counts hosts with a chosen role, and leaves hosts without inventory on auto-assign', () => {
    const noInventory: HostRecord = Object.fromEntries(
      Object.entries(host('h-3', 'c1')).filter(([key]) => key !== 'inventory'),
    ) as unknown as HostRecord;
    const hosts = [host('h-1', 'c1', { role: 'master' }), host('h-2', 'c1'), noInventory];
    const roles = suggestRoles(cluster(1, 1), hosts);
    expect(roles.get('h-2')).toBe('worker');
    expect(roles.get('h-3')).toBe('auto-assign');
    expect(roles.has('h-1')).toBe(false);
  });

  it('suggests an arbiter for a two-master cluster', () => {
    const hosts = [
      host('h-1', 'c1', { cores: 8, ramGib: 32 }),
      host('h-2', 'c1', { cores: 8, ramGib: 32 }),
      host('h-3', 'c1', { cores: 2, ramGib: 8 }),
    ];
    expect(suggestRoles(cluster(2, 0), hosts).get('h-3')).toBe('arbiter');
  });

  it('needs 8 cores for a single-node master', () => {
    expect(
      suggestRoles(cluster(1, 0), [host('h-1', 'c1', { cores: 4, ramGib: 32 })]).get('h-1'),
    ).toBe('worker');
  });

  it('chooses the last known master as bootstrap, and none when one exists', () => {
    const hosts = [
      host('h-1', 'c1', { role: 'master' }),
      host('h-2', 'c1', { role: 'master' }),
      host('h-3', 'c1', { role: 'worker' }),
    ];
    expect(chooseBootstrap(hosts)?.id).toBe('h-2');
    expect(
      chooseBootstrap([...hosts, host('h-4', 'c1', { role: 'master', bootstrap: true })]),
    ).toBeUndefined();
  });
});
