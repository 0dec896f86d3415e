import { describe, expect, it } from 'vitest';
import { hostServiceDirectory } from '../../../src/assisted/clusters/adapters.js';
import type {
  HostEvent as ServiceEvent,
  RoleAssignment,
} from '../../../src/assisted/hosts/ports.js';
import type { HostRecord } from '../../../src/assisted/model.js';
import { host } from './fakes.js';

/** A HostService stand-in recording what the cluster side asks of it. */
function service() {
  const calls: string[] = [];
  const record = host('h-1', 'c1');
  return {
    calls,
    hostsOfCluster: (id: string): readonly HostRecord[] => (id === 'c1' ? [record] : []),
    get: (id: string) => (id === 'h-1' ? record : undefined),
    apply: (id: string, event: ServiceEvent) => {
      calls.push(`${id} apply ${JSON.stringify(event)}`);
      return { ok: true as const, host: record };
    },
    assignRole: (id: string, assignment: RoleAssignment) => {
      calls.push(`${id} assign ${JSON.stringify(assignment)}`);
      return record;
    },
    refresh: (id: string) => {
      calls.push(`${id} refresh`);
      return true;
    },
  };
}

describe('the HostService as the cluster side’s host directory', () => {
  it('turns orchestration events into the host machine’s events and role assignments', async () => {
    const s = service();
    const directory = hostServiceDirectory(s);
    const now = new Date(0);
    expect(directory.hostsOf('c1').map((h) => h.id)).toEqual(['h-1']);
    await directory.apply('h-1', { type: 'SuggestRole', role: 'master' }, now);
    await directory.apply('h-1', { type: 'AssignRole', role: 'worker' }, now);
    await directory.apply('h-1', { type: 'SetBootstrap', bootstrap: true }, now);
    await directory.apply('h-1', { type: 'PrepareForInstallation' }, now);
    await directory.apply('h-1', { type: 'Install' }, now);
    await directory.apply('h-1', { type: 'CancelPreparation' }, now);
    await directory.apply('h-1', { type: 'ClusterFailed', reason: 'x' }, now);
    expect(s.calls).toEqual([
      'h-1 assign {"suggestedRole":"master"}',
      'h-1 assign {"role":"worker"}',
      'h-1 assign {"bootstrap":true}',
      'h-1 apply {"type":"PrepareForInstallation"}',
      'h-1 apply {"type":"InstallHost"}',
      'h-1 apply {"type":"CancelInstallation","reason":"Installation was cancelled by user"}',
      'h-1 refresh',
    ]);
  });
});
