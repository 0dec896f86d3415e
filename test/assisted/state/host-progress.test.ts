import { describe, expect, it } from 'vitest';
import { ClusterStatus, HostRole, HostStage, HostStatus } from '../../../src/assisted/model.js';
import type { HostProgress, HostRecord } from '../../../src/assisted/model.js';
import { applyHostEvent } from '../../../src/assisted/state/index.js';
import type { HostMachineContext } from '../../../src/assisted/state/index.js';
import { MINUTE, NOW, ago, host, hostCtx } from './records.js';

const H = HostStatus;
const S = HostStage;
const installing = hostCtx({ clusterStatus: ClusterStatus.Installing });

function at(stage: HostStage, overrides: Partial<HostRecord> = {}, minutesAgo = 1): HostRecord {
  const progress: HostProgress = {
    currentStage: stage,
    progressInfo: 'old info',
    stageStartedAt: ago(minutesAgo * MINUTE),
    stageUpdatedAt: ago(minutesAgo * MINUTE),
  };
  return host({ status: H.InstallingInProgress, progress, ...overrides });
}

function report(
  h: HostRecord,
  stage: HostStage,
  progressInfo?: string,
  ctx: HostMachineContext = installing,
) {
  return applyHostEvent(
    h,
    progressInfo === undefined
      ? { type: 'HostProgress', stage }
      : { type: 'HostProgress', stage, progressInfo },
    ctx,
  );
}

describe('install progress reports', () => {
  it('refuses a stage lower than the one the host is in', () => {
    expect(report(at(S.Configuring), S.Installing)).toEqual({
      ok: false,
      httpStatus: 409,
      reason: 'Can\'t assign lower stage "Installing" after host has been in stage "Configuring"',
    });
  });

  it('refuses a stage the host role never goes through', () => {
    expect(report(at(S.Installing, { role: HostRole.Worker }), S.WaitingForBootkube)).toEqual({
      ok: false,
      httpStatus: 409,
      reason: "Stages Waiting for bootkube isn't available for host role worker bootstrap false",
    });
  });

  it('refuses progress from a host that is not installing', () => {
    expect(report(host({ status: H.Known }), S.Installing)).toEqual({
      ok: false,
      httpStatus: 409,
      reason: "Can't set progress <Installing> to host in status <known>",
    });
  });

  it('takes the same stage again as new progress info only', () => {
    const result = report(at(S.WritingImageToDisk, {}, 5), S.WritingImageToDisk, '45%');
    expect(result).toMatchObject({
      ok: true,
      status: H.InstallingInProgress,
      statusInfo: 'previous info',
      changed: false,
      progress: {
        currentStage: S.WritingImageToDisk,
        progressInfo: '45%',
        stageStartedAt: ago(5 * MINUTE),
        stageUpdatedAt: NOW.toISOString(),
      },
    });
  });

  it('ignores the same stage with the same info', () => {
    const result = report(at(S.WritingImageToDisk), S.WritingImageToDisk, 'old info');
    expect(result).toMatchObject({ ok: true, changed: false });
    expect(result).not.toHaveProperty('progress');
  });

  it('moves to a later stage with its name as status info and a new stage start', () => {
    const result = report(at(S.Installing), S.WritingImageToDisk, '10%');
    expect(result).toMatchObject({
      ok: true,
      status: H.InstallingInProgress,
      statusInfo: 'Writing image to disk',
      progress: {
        currentStage: S.WritingImageToDisk,
        progressInfo: '10%',
        stageStartedAt: NOW.toISOString(),
        stageUpdatedAt: NOW.toISOString(),
        installationPercentage: 37,
      },
    });
  });

  it('may skip stages forward', () => {
    expect(report(at(S.StartingInstallation), S.Rebooting)).toMatchObject({
      ok: true,
      statusInfo: 'Rebooting',
    });
  });

  it('fails the host on the Failed stage, with the info after a dash, keeping its progress', () => {
    const failed = report(at(S.WritingImageToDisk), S.Failed, 'failed to write image');
    expect(failed).toMatchObject({
      ok: true,
      status: H.Error,
      statusInfo: 'Failed - failed to write image',
    });
    expect(failed).not.toHaveProperty('progress');
    expect(report(at(S.WritingImageToDisk), S.Failed)).toMatchObject({
      status: H.Error,
      statusInfo: 'Failed',
    });
  });

  it('installs a day-1 host on Done at 100 percent', () => {
    expect(report(at(S.Joined), S.Done)).toMatchObject({
      status: H.Installed,
      statusInfo: 'Done',
      progress: { installationPercentage: 100 },
    });
  });
});

describe('installation percentage: (index + 1) / stages × 100, truncated', () => {
  const cases: readonly [string, Partial<HostRecord>, boolean, HostStage, number][] = [
    ['master, Installing (2 of 8)', { role: HostRole.Master }, false, S.Installing, 25],
    [
      'bootstrap, Writing image (3 of 11)',
      { role: HostRole.Master, bootstrap: true },
      false,
      S.WritingImageToDisk,
      27,
    ],
    ['worker, Rebooting (5 of 9: 55.5)', { role: HostRole.Worker }, false, S.Rebooting, 55],
    ['arbiter, Joined (7 of 8)', { role: HostRole.Arbiter }, false, S.Joined, 87],
    [
      'single node, Waiting for bootkube (3 of 8)',
      { role: HostRole.Master, bootstrap: true },
      true,
      S.WaitingForBootkube,
      37,
    ],
  ];
  it.each(cases)('%s', (_name, overrides, sno, stage, percentage) => {
    const result = report(
      host({ status: H.Installing, ...overrides }),
      stage,
      undefined,
      hostCtx({ sno }),
    );
    expect(result).toMatchObject({ ok: true, progress: { installationPercentage: percentage } });
  });
});

describe('stage timeouts, judged at an explicit now', () => {
  const refresh = (h: HostRecord, ctx: HostMachineContext = installing) =>
    applyHostEvent(h, { type: 'Refresh' }, ctx);

  it('gives Starting installation 30 minutes', () => {
    expect(refresh(at(S.StartingInstallation, {}, 29))).toMatchObject({
      status: H.InstallingInProgress,
    });
    expect(refresh(at(S.StartingInstallation, {}, 31))).toMatchObject({
      status: H.Error,
      statusInfo:
        'Host failed to install because its installation stage Starting installation took longer than expected 30m0s',
    });
  });

  it('gives Waiting for ignition 24 hours', () => {
    const worker = { role: HostRole.Worker };
    expect(refresh(at(S.WaitingForIgnition, worker, 23 * 60))).toMatchObject({
      status: H.InstallingInProgress,
    });
    expect(refresh(at(S.WaitingForIgnition, worker, 25 * 60))).toMatchObject({
      status: H.Error,
      statusInfo:
        'Host failed to install because its installation stage Waiting for ignition took longer than expected 24h0m0s',
    });
  });

  it('gives Configuring 60 minutes', () => {
    expect(refresh(at(S.Configuring, {}, 59))).toMatchObject({ status: H.InstallingInProgress });
    expect(refresh(at(S.Configuring, {}, 61))).toMatchObject({
      status: H.Error,
      statusInfo:
        'Host failed to install because its installation stage Configuring took longer than expected 1h0m0s',
    });
  });

  it('gives a single-node host 80 minutes to come back from its reboot', () => {
    const sno = hostCtx({ sno: true, clusterStatus: ClusterStatus.Installing });
    const bootstrap = { bootstrap: true };
    expect(refresh(at(S.Rebooting, bootstrap, 79), sno)).toMatchObject({
      status: H.InstallingInProgress,
    });
    expect(refresh(at(S.Rebooting, bootstrap, 81), sno)).toMatchObject({
      status: H.InstallingPendingUserAction,
    });
    expect(refresh(at(S.Rebooting, {}, 41))).toMatchObject({
      status: H.InstallingPendingUserAction,
    });
  });

  it('keeps waiting for a user past the hour when the cluster cannot do without the host', () => {
    const stuck = host({
      id: 'm0',
      status: H.InstallingPendingUserAction,
      statusUpdatedAt: ago(2 * 60 * MINUTE),
    });
    const ctx = hostCtx({
      clusterStatus: ClusterStatus.InstallingPendingUserAction,
      cluster: {
        controlPlaneAgents: 3,
        arbiterAgents: 0,
        hosts: [
          stuck,
          host({ id: 'm1', status: H.Installed }),
          host({ id: 'm2', status: H.Installed }),
        ],
      },
    });
    expect(refresh(stuck, ctx)).toMatchObject({ status: H.InstallingPendingUserAction });
  });
});
