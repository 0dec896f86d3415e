import { describe, expect, it } from 'vitest';
import { HostRole, HostStage } from '../../../src/assisted/model.js';
import {
  goDuration,
  hostStageTimeoutMs,
  isPreReboot,
  stagesFor,
} from '../../../src/assisted/state/index.js';

const S = HostStage;
const MINUTE = 60_000;

describe('stages per role', () => {
  it('walks the bootstrap of a multi-node cluster through the control-plane waits', () => {
    expect(stagesFor(HostRole.Master, true, false)).toEqual([
      S.StartingInstallation,
      S.Installing,
      S.WritingImageToDisk,
      S.CopyingRegistryData,
      S.WaitingForControlPlane,
      S.WaitingForBootkube,
      S.WaitingForController,
      S.Rebooting,
      S.Configuring,
      S.Joined,
      S.Done,
    ]);
  });

  it('walks a single-node host through bootkube before writing its disk', () => {
    expect(stagesFor(HostRole.Master, true, true)).toEqual([
      S.StartingInstallation,
      S.Installing,
      S.WaitingForBootkube,
      S.WritingImageToDisk,
      S.CopyingRegistryData,
      S.Rebooting,
      S.Joined,
      S.Done,
    ]);
  });

  it('gives arbiters the master stages and workers the ignition wait', () => {
    expect(stagesFor(HostRole.Arbiter, false, false)).toEqual(
      stagesFor(HostRole.Master, false, false),
    );
    expect(stagesFor(HostRole.Worker, false, false)).toContain(S.WaitingForIgnition);
    expect(stagesFor(HostRole.Master, false, false)).not.toContain(S.WaitingForIgnition);
  });

  it('has no stages for a host whose role is still auto-assign', () => {
    expect(stagesFor(HostRole.AutoAssign, false, false)).toEqual([]);
  });
});

describe('stage timeouts', () => {
  it.each([
    [S.StartingInstallation, 30],
    [S.WritingImageToDisk, 30],
    [S.CopyingRegistryData, 90],
    [S.Rebooting, 40],
    [S.WaitingForIgnition, 24 * 60],
    [S.Configuring, 60],
    [S.Done, 60],
  ])('%s: %i minutes', (stage, minutes) => {
    expect(hostStageTimeoutMs(stage)).toBe(minutes * MINUTE);
  });
});

describe('Go duration text of $MAX_TIME', () => {
  it.each([
    [30 * MINUTE, '30m0s'],
    [60 * MINUTE, '1h0m0s'],
    [90 * MINUTE, '1h30m0s'],
    [24 * 60 * MINUTE, '24h0m0s'],
    [45_000, '45s'],
    [0, '0s'],
  ])('%i ms → %s', (ms, text) => {
    expect(goDuration(ms)).toBe(text);
  });
});

describe('before the reboot', () => {
  it('counts no stage and the stages before Rebooting as pre-reboot', () => {
    expect(isPreReboot(undefined)).toBe(true);
    expect(isPreReboot(S.WaitingForController)).toBe(true);
    expect(isPreReboot(S.Rebooting)).toBe(false);
    expect(isPreReboot(S.WaitingForIgnition)).toBe(false);
  });
});
