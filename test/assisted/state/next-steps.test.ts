import { describe, expect, it } from 'vitest';
import { HostStatus, StepType } from '../../../src/assisted/model.js';
import { nextStepPlan } from '../../../src/assisted/state/index.js';

const H = HostStatus;
const T = StepType;
const day1 = { bound: true, day2: false };
const day2 = { bound: true, day2: true };
const unbound = { bound: false, day2: false };

describe('next steps per host status', () => {
  it('gives a known day-1 host the discovery checks every minute', () => {
    expect(nextStepPlan({ status: H.Known }, day1)).toEqual({
      stepTypes: [
        T.ConnectivityCheck,
        T.TangConnectivityCheck,
        T.FreeNetworkAddresses,
        T.DhcpLeaseAllocate,
        T.Inventory,
        T.NtpSynchronizer,
        T.DomainResolution,
        T.VerifyVips,
      ],
      nextInstructionSeconds: 60,
      postStepAction: 'continue',
    });
  });

  it('asks a discovering host for its inventory only', () => {
    expect(nextStepPlan({ status: H.Discovering }, day1).stepTypes).toEqual([T.Inventory]);
  });

  it('backs off to two minutes for a disconnected host', () => {
    expect(nextStepPlan({ status: H.Disconnected }, day1)).toMatchObject({
      stepTypes: [T.Inventory],
      nextInstructionSeconds: 120,
    });
  });

  it('runs the destructive checks only while preparing', () => {
    expect(nextStepPlan({ status: H.PreparingForInstallation }, day1).stepTypes).toEqual([
      T.DhcpLeaseAllocate,
      T.InstallationDiskSpeedCheck,
      T.ContainerImageAvailability,
    ]);
  });

  it('sends the install step to an installing host, then only DHCP renewals', () => {
    expect(nextStepPlan({ status: H.Installing }, day1).stepTypes).toEqual([
      T.Install,
      T.DhcpLeaseAllocate,
    ]);
    expect(nextStepPlan({ status: H.InstallingInProgress }, day1).stepTypes).toEqual([
      T.DhcpLeaseAllocate,
    ]);
  });

  it('gathers logs and stops a failed host, backed off', () => {
    expect(nextStepPlan({ status: H.Error }, day1)).toEqual({
      stepTypes: [T.LogsGather, T.StopInstallation],
      nextInstructionSeconds: 120,
      postStepAction: 'continue',
    });
  });

  it('tells a binding host to exit so it registers again', () => {
    expect(nextStepPlan({ status: H.Binding }, day1)).toEqual({
      stepTypes: [],
      nextInstructionSeconds: 0,
      postStepAction: 'exit',
    });
  });

  it('gives a host a status no map lists nothing, in a minute', () => {
    expect(nextStepPlan({ status: H.InstallingPendingUserAction }, day1)).toEqual({
      stepTypes: [],
      nextInstructionSeconds: 60,
      postStepAction: 'continue',
    });
  });

  it('checks API VIP connectivity for a day-2 host and installs it without DHCP', () => {
    expect(nextStepPlan({ status: H.Known }, day2).stepTypes).toContain(T.ApiVipConnectivityCheck);
    expect(nextStepPlan({ status: H.Installing }, day2).stepTypes).toEqual([T.Install]);
  });

  it('keeps unbound hosts to inventory and NTP', () => {
    expect(nextStepPlan({ status: H.KnownUnbound }, unbound).stepTypes).toEqual([
      T.Inventory,
      T.NtpSynchronizer,
    ]);
  });

  it('tells an unbinding host to exit', () => {
    for (const status of [H.Unbinding, H.UnbindingPendingUserAction]) {
      expect(nextStepPlan({ status }, unbound)).toMatchObject({ postStepAction: 'exit' });
    }
  });

  it('reclaims: download the boot artifacts, then reboot and exit', () => {
    expect(nextStepPlan({ status: H.Reclaiming }, unbound).stepTypes).toEqual([
      T.DownloadBootArtifacts,
    ]);
    expect(nextStepPlan({ status: H.ReclaimingRebooting }, unbound)).toEqual({
      stepTypes: [T.RebootForReclaim],
      nextInstructionSeconds: 120,
      postStepAction: 'exit',
    });
  });

  it('judges a host without a cluster by the unbound map, even if a day-2 flag is set', () => {
    expect(nextStepPlan({ status: H.Known }, { bound: false, day2: true }).stepTypes).toEqual([]);
  });
});
