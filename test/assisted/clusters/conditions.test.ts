import { describe, expect, it } from 'vitest';
import {
  completed,
  failed,
  lastPreparationFailed,
  notAvailable,
  requirementsMet,
  setClusterCondition,
  specSynced,
  stopped,
  validated,
} from '../../../src/assisted/clusters/conditions.js';
import type { AgentCounts } from '../../../src/assisted/clusters/conditions.js';

const exact: AgentCounts = {
  expected: { masters: 3, arbiters: 0, workers: 2 },
  registered: { masters: 3, arbiters: 0, workers: 2 },
  approved: 5,
  unsynced: 0,
};

const row = (c: { status: string; reason: string; message: string }) => [
  c.status,
  c.reason,
  c.message,
];

describe('AgentClusterInstall conditions (assisted.md §3.3)', () => {
  it('SpecSynced says literally SyncOK, or the input or backend error', () => {
    expect(row(specSynced(undefined))).toEqual(['True', 'SyncOK', 'SyncOK']);
    expect(row(specSynced({ kind: 'input', message: 'bad' }))).toEqual([
      'False',
      'InputError',
      'The Spec could not be synced due to an input error: bad',
    ]);
    expect(row(specSynced({ kind: 'backend', message: 'down' }))).toEqual([
      'False',
      'BackendError',
      'The Spec could not be synced due to backend error: down',
    ]);
  });

  it('RequirementsMet, row by row', () => {
    expect(row(requirementsMet('ready', exact))).toEqual([
      'True',
      'ClusterIsReady',
      'The cluster is ready to begin the installation',
    ]);
    expect(
      row(
        requirementsMet('ready', { ...exact, registered: { masters: 2, arbiters: 1, workers: 2 } }),
      ),
    ).toEqual([
      'False',
      'InsufficientAgents',
      'The cluster currently requires exactly 3 master agents, 0 arbiter agents and 2 worker agents, but currently registered 2 master agents, 1 arbiter agents and 2 worker agents',
    ]);
    expect(row(requirementsMet('ready', { ...exact, unsynced: 2, approved: 3 }))).toEqual([
      'False',
      'UnsyncedAgents',
      'The cluster currently has 2 agents with spec error',
    ]);
    expect(row(requirementsMet('ready', { ...exact, approved: 3 }))).toEqual([
      'False',
      'UnapprovedAgents',
      'The installation is pending on the approval of 2 agents',
    ]);
    for (const status of ['insufficient', 'pending-for-input'])
      expect(row(requirementsMet(status, exact))).toEqual([
        'False',
        'ClusterNotReady',
        'The cluster is not ready to begin the installation',
      ]);
    for (const status of [
      'preparing-for-installation',
      'installing',
      'installing-pending-user-action',
      'adding-hosts',
      'finalizing',
    ])
      expect(row(requirementsMet(status, exact))).toEqual([
        'True',
        'ClusterAlreadyInstalling',
        'The cluster requirements are met',
      ]);
    for (const status of ['installed', 'error'])
      expect(row(requirementsMet(status, exact))).toEqual([
        'True',
        'ClusterInstallationStopped',
        'The cluster installation stopped',
      ]);
    expect(row(requirementsMet('cancelled', exact))).toEqual([
      'Unknown',
      'UnknownStatus',
      'The installation status is currently not recognized: cancelled',
    ]);
  });

  it('Validated lists the messages of what did not pass, comma-joined', () => {
    const info = {
      network: [
        {
          id: 'a',
          status: 'failure' as const,
          message: 'The base domain is undefined and must be provided.',
        },
        { id: 'b', status: 'success' as const, message: 'fine' },
        { id: 'c', status: 'pending' as const, message: 'The pull secret is not set.' },
      ],
    };
    expect(row(validated('insufficient', info))).toEqual([
      'False',
      'ValidationsFailing',
      "The cluster's validations are failing: The base domain is undefined and must be provided.,The pull secret is not set.",
    ]);
    expect(row(validated('pending-for-input', info))).toEqual([
      'False',
      'ValidationsUserPending',
      "The cluster's validations are pending for user: The base domain is undefined and must be provided.,The pull secret is not set.",
    ]);
    expect(row(validated('ready', {}))).toEqual([
      'Unknown',
      'ValidationsUnknown',
      "The cluster's validations have not yet been calculated",
    ]);
    expect(row(validated('adding-hosts', {}))).toEqual([
      'True',
      'ValidationsPassing',
      "The cluster's validations are passing",
    ]);
    expect(row(validated('ready', info))[1]).toBe('ValidationsPassing');
  });

  it('Completed follows the status, and says on hold only for a ready cluster', () => {
    expect(row(completed('installed', 'Cluster is installed', false))).toEqual([
      'True',
      'InstallationCompleted',
      'The installation has completed: Cluster is installed',
    ]);
    expect(row(completed('error', 'cluster has hosts in error', false))).toEqual([
      'False',
      'InstallationFailed',
      'The installation has failed: cluster has hosts in error',
    ]);
    expect(row(completed('ready', '', true))).toEqual([
      'False',
      'InstallationOnHold',
      'The installation is on hold. To unhold set holdInstallation to false',
    ]);
    expect(row(completed('insufficient', '', true))).toEqual([
      'False',
      'InstallationNotStarted',
      'The installation has not yet started',
    ]);
    expect(row(completed('finalizing', 'Finalizing cluster installation', false))).toEqual([
      'False',
      'InstallationInProgress',
      'The installation is in progress: Finalizing cluster installation',
    ]);
    expect(row(completed('unmonitored', '', false))[1]).toBe('UnknownStatus');
  });

  it('Failed and Stopped', () => {
    expect(row(failed('error', 'x'))).toEqual([
      'True',
      'InstallationFailed',
      'The installation failed: x',
    ]);
    expect(row(failed('installing', 'x'))).toEqual([
      'False',
      'InstallationNotFailed',
      'The installation has not failed',
    ]);
    expect(row(stopped('error'))).toEqual([
      'True',
      'InstallationFailed',
      'The installation has stopped due to error',
    ]);
    expect(row(stopped('cancelled'))).toEqual([
      'True',
      'InstallationCancelled',
      'The installation has stopped because it was cancelled',
    ]);
    expect(row(stopped('adding-hosts'))).toEqual([
      'True',
      'InstallationCompleted',
      'The installation has stopped because it completed successfully',
    ]);
    expect(row(stopped('ready'))).toEqual([
      'False',
      'InstallationNotStopped',
      'The installation is waiting to start or in progress',
    ]);
  });

  it('LastInstallationPreparationFailed puts its explanation in the reason, as upstream', () => {
    expect(row(lastPreparationFailed({ status: 'never' }))).toEqual([
      'False',
      'Cluster preparation has never been performed for this cluster',
      '',
    ]);
    expect(row(lastPreparationFailed({ status: 'success' }))).toEqual([
      'False',
      'There is no failing prior preparation attempt',
      '',
    ]);
    expect(row(lastPreparationFailed({ status: 'failed', reason: 'timeout' }))).toEqual([
      'True',
      'The last installation preparation failed',
      'timeout',
    ]);
  });

  it('without a cluster everything but SpecSynced is not available', () => {
    expect(notAvailable().map((c) => [c.type, ...row(c)])).toEqual(
      ['Validated', 'RequirementsMet', 'Completed', 'Failed', 'Stopped'].map((t) => [
        t,
        'Unknown',
        'NotAvailable',
        'Information not available',
      ]),
    );
  });

  it('moves both times only when status, reason or message change', () => {
    const t0 = Date.UTC(2026, 0, 1, 12);
    const first = setClusterCondition([], specSynced(undefined), t0);
    expect(first[0]).toMatchObject({
      lastProbeTime: '2026-01-01T12:00:00Z',
      lastTransitionTime: '2026-01-01T12:00:00Z',
    });
    const same = setClusterCondition(first, specSynced(undefined), t0 + 60_000);
    expect(same[0]?.lastTransitionTime).toBe('2026-01-01T12:00:00Z');
    const changed = setClusterCondition(
      same,
      specSynced({ kind: 'input', message: 'x' }),
      t0 + 60_000,
    );
    expect(changed[0]).toMatchObject({
      status: 'False',
      lastProbeTime: '2026-01-01T12:01:00Z',
      lastTransitionTime: '2026-01-01T12:01:00Z',
    });
  });
});
