import { describe, expect, it } from 'vitest';
import {
  computeAgentConditions,
  mergeConditions,
} from '../../../src/assisted/hosts/agent-conditions.js';
import { HostStatus } from '../../../src/assisted/model.js';
import type { HostRecord, ValidationsInfo } from '../../../src/assisted/model.js';

const FAILING: ValidationsInfo = {
  hardware: [
    {
      id: 'has-cpu-cores-for-role',
      status: 'failure',
      message: 'Require at least 4 CPU cores for master role, found only 2',
    },
    { id: 'has-memory-for-role', status: 'success', message: 'Sufficient RAM for role master' },
    { id: 'sufficient-installation-disk-speed', status: 'disabled', message: 'off' },
  ],
  network: [
    {
      id: 'belongs-to-machine-cidr',
      status: 'pending',
      message: 'Missing inventory or machine network CIDR',
    },
  ],
};
const PASSING: ValidationsInfo = {
  hardware: [
    {
      id: 'has-cpu-cores-for-role',
      status: 'success',
      message: 'Sufficient CPU cores for role master',
    },
  ],
};

function host(status: HostStatus, statusInfo = 'info', validationsInfo = PASSING): HostRecord {
  return {
    id: 'h',
    namespace: 'ns',
    infraEnvName: 'ie',
    infraEnvId: 'ie-uid',
    status,
    statusInfo,
    statusUpdatedAt: '2026-11-25T12:00:00Z',
    role: 'auto-assign',
    suggestedRole: 'auto-assign',
    bootstrap: false,
    approved: false,
    registeredAt: '2026-11-25T12:00:00Z',
    checkedInAt: '2026-11-25T12:00:00Z',
    validationsInfo,
    progress: {},
    stepResults: {},
  };
}

function conditionOf(h: HostRecord | undefined, type: string, approved = false) {
  const found = computeAgentConditions(h, approved, undefined).find((c) => c.type === type);
  return found && [found.status, found.reason, found.message];
}

const S = HostStatus;

describe('Agent conditions (assisted.md §3.2)', () => {
  it('SpecSynced: ok, backend error, input error', () => {
    expect(computeAgentConditions(host(S.Known), true, undefined)[0]).toEqual({
      type: 'SpecSynced',
      status: 'True',
      reason: 'SyncOK',
      message: 'The Spec has been successfully applied',
    });
    expect(
      computeAgentConditions(host(S.Known), true, { internal: true, message: 'db down' })[0],
    ).toMatchObject({
      status: 'False',
      reason: 'BackendError',
      message: 'The Spec could not be synced due to backend error: db down',
    });
    expect(
      computeAgentConditions(host(S.Known), true, {
        internal: false,
        message: "Requested installation disk is not part of the host's valid disks",
      })[0],
    ).toMatchObject({
      status: 'False',
      reason: 'InputError',
      message:
        "The Spec could not be synced due to an input error: Requested installation disk is not part of the host's valid disks",
    });
  });

  it.each([
    [
      S.Disconnected,
      'False',
      'AgentIsDisconnected',
      'The agent has not contacted the installation service in some time, user action should be taken',
    ],
    [
      S.DisconnectedUnbound,
      'False',
      'AgentIsDisconnected',
      'The agent has not contacted the installation service in some time, user action should be taken',
    ],
    [
      S.Known,
      'True',
      'AgentIsConnected',
      "The agent's connection to the installation service is unimpaired",
    ],
    [
      S.Installing,
      'True',
      'AgentIsConnected',
      "The agent's connection to the installation service is unimpaired",
    ],
  ])('Connected in %s', (status, ...expected) => {
    expect(conditionOf(host(status), 'Connected')).toEqual(expected);
  });

  it.each([
    [S.Known, true, 'True', 'AgentIsReady', 'The agent is ready to begin the installation'],
    [S.KnownUnbound, true, 'True', 'AgentIsReady', 'The agent is ready to begin the installation'],
    [S.Known, false, 'False', 'AgentIsNotApproved', 'The agent is not approved'],
    [
      S.Insufficient,
      true,
      'False',
      'AgentNotReady',
      'The agent is not ready to begin the installation',
    ],
    [
      S.DisconnectedUnbound,
      true,
      'False',
      'AgentNotReady',
      'The agent is not ready to begin the installation',
    ],
    [
      S.Discovering,
      true,
      'False',
      'AgentNotReady',
      'The agent is not ready to begin the installation',
    ],
    [
      S.PendingForInput,
      true,
      'False',
      'AgentNotReady',
      'The agent is not ready to begin the installation',
    ],
    [
      S.PreparingForInstallation,
      true,
      'True',
      'AgentAlreadyInstalling',
      'Installation already started and is in progress',
    ],
    [
      S.InstallingPendingUserAction,
      true,
      'True',
      'AgentAlreadyInstalling',
      'Installation already started and is in progress',
    ],
    [S.Installed, true, 'True', 'AgentInstallationStopped', 'The agent installation stopped'],
    [S.Error, true, 'True', 'AgentInstallationStopped', 'The agent installation stopped'],
    [
      S.AddedToExistingCluster,
      true,
      'True',
      'AgentInstallationStopped',
      'The agent installation stopped',
    ],
    [S.Binding, true, 'False', 'Binding', 'The agent is currently binding to a cluster deployment'],
    [
      S.UnbindingPendingUserAction,
      true,
      'False',
      'Unbinding',
      'The agent is currently unbinding from a cluster deployment',
    ],
    [
      S.Cancelled,
      true,
      'Unknown',
      'UnknownStatus',
      'The installation status is currently not recognized: cancelled',
    ],
  ])('RequirementsMet in %s (approved %s)', (status, approved, ...expected) => {
    expect(conditionOf(host(status), 'RequirementsMet', approved)).toEqual(expected);
  });

  it.each([
    [
      S.Insufficient,
      FAILING,
      'False',
      'ValidationsFailing',
      "The agent's validations are failing: Require at least 4 CPU cores for master role, found only 2,Missing inventory or machine network CIDR",
    ],
    [
      S.InsufficientUnbound,
      FAILING,
      'False',
      'ValidationsFailing',
      "The agent's validations are failing: Require at least 4 CPU cores for master role, found only 2,Missing inventory or machine network CIDR",
    ],
    [
      S.PendingForInput,
      FAILING,
      'False',
      'ValidationsUserPending',
      "The agent's validations are pending for user: Require at least 4 CPU cores for master role, found only 2,Missing inventory or machine network CIDR",
    ],
    [
      S.Discovering,
      {},
      'Unknown',
      'ValidationsUnknown',
      "The agent's validations have not yet been calculated",
    ],
    [S.Known, PASSING, 'True', 'ValidationsPassing', "The agent's validations are passing"],
    [
      S.Binding,
      PASSING,
      'False',
      'Binding',
      'The agent is currently binding to a cluster deployment',
    ],
    [
      S.Unbinding,
      PASSING,
      'False',
      'Unbinding',
      'The agent is currently unbinding from a cluster deployment',
    ],
  ])('Validated in %s', (status, validations, ...expected) => {
    expect(conditionOf(host(status, 'info', validations), 'Validated')).toEqual(expected);
  });

  it.each([
    [S.Installed, 'True', 'InstallationCompleted', 'The installation has completed: Done'],
    [
      S.AddedToExistingCluster,
      'True',
      'InstallationCompleted',
      'The installation has completed: Done',
    ],
    [S.Error, 'False', 'InstallationFailed', 'The installation has failed: Done'],
    [S.Known, 'False', 'InstallationNotStarted', 'The installation has not yet started'],
    [S.KnownUnbound, 'False', 'InstallationNotStarted', 'The installation has not yet started'],
    [
      S.InstallingInProgress,
      'False',
      'InstallationInProgress',
      'The installation is in progress: Done',
    ],
    [
      S.PreparingSuccessful,
      'False',
      'InstallationInProgress',
      'The installation is in progress: Done',
    ],
    [S.Binding, 'False', 'Binding', 'The agent is currently binding to a cluster deployment'],
    [
      S.Resetting,
      'Unknown',
      'UnknownStatus',
      'The installation status is currently not recognized: resetting',
    ],
  ])('Installed in %s', (status, ...expected) => {
    expect(conditionOf(host(status, 'Done'), 'Installed')).toEqual(expected);
  });

  it.each([
    [S.Known, 'True', 'Bound', 'The agent is bound to a cluster deployment'],
    [S.KnownUnbound, 'False', 'Unbound', 'The agent is not bound to any cluster deployment'],
    [S.DisabledUnbound, 'False', 'Unbound', 'The agent is not bound to any cluster deployment'],
    [S.Binding, 'False', 'Binding', 'The agent is currently binding to a cluster deployment'],
    [
      S.Unbinding,
      'False',
      'Unbinding',
      'The agent is currently unbinding from a cluster deployment',
    ],
    [
      S.UnbindingPendingUserAction,
      'False',
      'UnbindingPendingUserAction',
      'The agent is currently unbinding; Pending host reboot from infraenv image',
    ],
  ])('Bound in %s', (status, ...expected) => {
    expect(conditionOf(host(status), 'Bound')).toEqual(expected);
  });

  it('without a backend host all but SpecSynced are Unknown NotAvailable', () => {
    const conditions = computeAgentConditions(undefined, false, undefined);
    expect(conditions.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['SpecSynced', 'True', 'SyncOK', 'The Spec has been successfully applied'],
      ['Connected', 'Unknown', 'NotAvailable', 'Information not available'],
      ['RequirementsMet', 'Unknown', 'NotAvailable', 'Information not available'],
      ['Validated', 'Unknown', 'NotAvailable', 'Information not available'],
      ['Installed', 'Unknown', 'NotAvailable', 'Information not available'],
      ['Bound', 'Unknown', 'NotAvailable', 'Information not available'],
    ]);
  });

  it('lastTransitionTime moves only when the status flips; other conditions are kept', () => {
    const first = mergeConditions(
      [
        {
          type: 'Cleanup',
          status: 'False',
          reason: 'CleanupFailed',
          message: 'x',
          lastTransitionTime: 't0',
        },
      ],
      computeAgentConditions(host(S.Discovering, 'a', {}), false, undefined),
      't1',
    );
    const second = mergeConditions(
      first,
      computeAgentConditions(host(S.Insufficient, 'b', FAILING), false, undefined),
      't2',
    );
    const byType = (type: string) => second.find((c) => c.type === type);
    expect(byType('Cleanup')?.lastTransitionTime).toBe('t0');
    // RequirementsMet stays False (AgentNotReady): its time stays.
    expect(byType('RequirementsMet')?.lastTransitionTime).toBe('t1');
    // Validated went Unknown → False.
    expect(byType('Validated')).toMatchObject({ status: 'False', lastTransitionTime: 't2' });
  });
});
