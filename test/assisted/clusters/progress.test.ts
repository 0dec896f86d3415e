import { describe, expect, it } from 'vitest';
import {
  installingStagePercentage,
  totalPercentage,
} from '../../../src/assisted/clusters/progress.js';
import type { ClusterRecord } from '../../../src/assisted/model.js';
import { host } from './fakes.js';

const sno = { highAvailabilityMode: 'None', status: 'installing' } as ClusterRecord;

describe('the cluster’s total percentage', () => {
  it('weighs preparation 10 %, the hosts’ stages 70 % and finalizing 15 %, as upstream', () => {
    // Writing image to disk is the 4th of a single node's 8 stages: 50 %.
    const node = host('s-1', 'c1', {
      role: 'master',
      bootstrap: true,
      progress: { currentStage: 'Writing image to disk' },
    });
    expect(installingStagePercentage([node], true)).toBe(50);
    expect(totalPercentage(sno, [node])).toBe(45);
    expect(totalPercentage({ ...sno, status: 'finalizing' }, [node])).toBe(45);
    expect(totalPercentage({ ...sno, status: 'installed' }, [node])).toBe(100);
    expect(totalPercentage({ ...sno, status: 'preparing-for-installation' }, [node])).toBe(0);
  });

  it('counts every host’s stages by its role', () => {
    const hosts = [
      // Bootstrap of a multi-node cluster: 11 stages, at the 11th.
      host('m-1', 'c1', { role: 'master', bootstrap: true, progress: { currentStage: 'Done' } }),
      // Master: 8 stages, not started.
      host('m-2', 'c1', { role: 'master', progress: {} }),
      // Worker: 9 stages, at the 5th (Rebooting).
      host('w-1', 'c1', { role: 'worker', progress: { currentStage: 'Rebooting' } }),
    ];
    // (11 + 0 + 5) / (11 + 8 + 9) = 57 %.
    expect(installingStagePercentage(hosts, false)).toBe(57);
  });
});
