import { describe, expect, it } from 'vitest';
import { ClusterStatus, HostRole, HostStatus } from '../../../src/assisted/model.js';
import type { ClusterRecord, HostRecord } from '../../../src/assisted/model.js';
import {
  ClusterStatusInfo,
  PreparationReason,
  applyClusterEvent,
  clusterTransitions,
  hasEnoughMastersAndWorkers,
} from '../../../src/assisted/state/index.js';
import type {
  ClusterEvent,
  ClusterMachineContext,
  ClusterTransitionResult,
} from '../../../src/assisted/state/index.js';
import { MINUTE, NOW, ago, cluster, clusterCtx, host, hostsIn, validations } from './records.js';

const C = ClusterStatus;
const H = HostStatus;
const REFRESH: ClusterEvent = { type: 'Refresh' };

type Expected =
  | { readonly status: ClusterStatus; readonly statusInfo: string }
  | { readonly refused: 409; readonly reason: string };

interface Scenario {
  readonly rule: string;
  readonly story: string;
  readonly cluster: Partial<ClusterRecord>;
  readonly ctx?: Partial<ClusterMachineContext>;
  readonly event: ClusterEvent;
  readonly expect: Expected;
}

const pendingUserAction = (others: HostRecord[]): HostRecord[] => [
  ...others,
  host({ id: 'w9', status: H.InstallingPendingUserAction, role: HostRole.Worker }),
];

const scenarios: readonly Scenario[] = [
  {
    rule: 'Cancel installation of installing cluster',
    story: 'cancelling an installing cluster',
    cluster: { status: C.Installing },
    event: { type: 'CancelInstallation' },
    expect: { status: C.Cancelled, statusInfo: 'Installation was cancelled by user' },
  },
  {
    rule: 'Cancel installation of preparing cluster',
    story: 'cancelling a preparing cluster makes it ready again',
    cluster: { status: C.PreparingForInstallation },
    event: { type: 'CancelInstallation' },
    expect: { status: C.Ready, statusInfo: 'Installation was cancelled by user' },
  },
  {
    rule: 'Reset installation',
    story: 'resetting a failed cluster',
    cluster: { status: C.Error },
    event: { type: 'ResetCluster' },
    expect: { status: C.Insufficient, statusInfo: 'cluster was reset by user' },
  },
  {
    rule: 'Start installation',
    story: 'the install request on a ready cluster starts preparing',
    cluster: { status: C.Ready },
    event: { type: 'PrepareForInstallation' },
    expect: {
      status: C.PreparingForInstallation,
      statusInfo: 'Preparing cluster for installation',
    },
  },
  {
    rule: 'Refresh discovering cluster - detect required input',
    story: 'no pull secret yet',
    cluster: { status: C.Insufficient },
    ctx: {
      validations: validations({ 'pull-secret-set': ['failure', 'The pull secret is not set.'] }),
    },
    event: REFRESH,
    expect: { status: C.PendingForInput, statusInfo: 'User input required' },
  },
  {
    rule: 'Refresh discovering cluster - detect insufficient',
    story: 'hosts not ready',
    cluster: { status: C.Ready },
    ctx: {
      validations: validations({
        'all-hosts-are-ready-to-install': [
          'failure',
          'The cluster has hosts that are not ready to install.',
        ],
      }),
    },
    event: REFRESH,
    expect: { status: C.Insufficient, statusInfo: 'Cluster is not ready for install' },
  },
  {
    rule: 'Refresh discovering cluster - detect ready',
    story: 'everything passes',
    cluster: { status: C.PendingForInput },
    ctx: {
      validations: validations({
        'pull-secret-set': 'success',
        'platform-requirements-satisfied': 'failure',
      }),
    },
    event: REFRESH,
    expect: { status: C.Ready, statusInfo: 'Cluster ready to be installed' },
  },
  {
    rule: 'Refresh preparing cluster - detect timeout',
    story: 'preparing for more than 10 minutes',
    cluster: { status: C.PreparingForInstallation, statusUpdatedAt: ago(11 * MINUTE) },
    ctx: { hosts: hostsIn(H.PreparingForInstallation, 3, 0) },
    event: REFRESH,
    expect: { status: C.Ready, statusInfo: 'Preparing cluster for installation timeout' },
  },
  {
    rule: 'Refresh preparing cluster - detect timeout',
    story: 'the manifests generated but a host still checking its disk after 10 minutes',
    cluster: {
      status: C.PreparingForInstallation,
      statusUpdatedAt: ago(11 * MINUTE),
      lastPreparation: { status: 'success' },
    },
    ctx: {
      hosts: [
        ...hostsIn(H.PreparingSuccessful, 2, 0),
        host({ id: 'm9', status: H.PreparingForInstallation, role: HostRole.Master }),
      ],
    },
    event: REFRESH,
    expect: { status: C.Ready, statusInfo: 'Preparing cluster for installation timeout' },
  },
  {
    rule: 'Refresh preparing cluster - done preparing',
    story: 'a preparation done before its late refresh installs rather than times out',
    cluster: {
      status: C.PreparingForInstallation,
      statusUpdatedAt: ago(25 * MINUTE),
      lastPreparation: { status: 'success' },
    },
    ctx: { hosts: hostsIn(H.PreparingSuccessful, 3, 2) },
    event: REFRESH,
    expect: { status: C.Installing, statusInfo: 'Installation in progress' },
  },
  {
    rule: 'Refresh preparing cluster - done preparing',
    story: 'every host prepared and the manifests generated',
    cluster: { status: C.PreparingForInstallation, lastPreparation: { status: 'success' } },
    ctx: { hosts: hostsIn(H.PreparingSuccessful, 3, 2) },
    event: REFRESH,
    expect: { status: C.Installing, statusInfo: 'Installation in progress' },
  },
  {
    rule: 'Refresh preparing cluster - insufficient',
    story: 'a host dropped out of preparing',
    cluster: { status: C.PreparingForInstallation },
    ctx: {
      hosts: [...hostsIn(H.PreparingSuccessful, 3, 0), host({ id: 'w0', status: H.Disconnected })],
    },
    event: REFRESH,
    expect: {
      status: C.Insufficient,
      statusInfo: 'At least one host has stopped preparing for installation',
    },
  },
  {
    rule: 'Refresh preparing cluster - failed',
    story: 'manifest generation failed',
    cluster: {
      status: C.PreparingForInstallation,
      lastPreparation: { status: 'failed', reason: 'bad manifest' },
    },
    ctx: { hosts: hostsIn(H.PreparingSuccessful, 3, 0) },
    event: REFRESH,
    expect: { status: C.Ready, statusInfo: 'Cluster failed to prepare for installation' },
  },
  {
    rule: 'Installing pending user action without enough installing hosts',
    story: 'too many hosts failed while one waits for the user',
    cluster: { status: C.InstallingPendingUserAction },
    ctx: { hosts: pendingUserAction(hostsIn(H.Error, 3, 0)) },
    event: REFRESH,
    expect: { status: C.Error, statusInfo: 'cluster has hosts in error' },
  },
  {
    rule: 'Timed out while waiting for user',
    story: 'a day after the install started, still waiting for a user',
    cluster: { status: C.InstallingPendingUserAction, installStartedAt: ago(25 * 60 * MINUTE) },
    ctx: { hosts: pendingUserAction(hostsIn(H.InstallingInProgress, 3, 2)) },
    event: REFRESH,
    expect: {
      status: C.Error,
      statusInfo:
        'cluster installation timed out while pending user action (a manual booting from installation disk)',
    },
  },
  {
    rule: 'Timed out while finalizing',
    story: 'finalizing for more than 5 hours',
    cluster: { status: C.Finalizing, statusUpdatedAt: ago(5 * 60 * MINUTE + MINUTE) },
    ctx: { hosts: hostsIn(H.Installed, 3, 2) },
    event: REFRESH,
    expect: { status: C.Error, statusInfo: 'Cluster installation timeout while finalizing' },
  },
  {
    rule: 'Stay pending user action while a host waits for the user',
    story: 'a worker still waits for the user',
    cluster: { status: C.InstallingPendingUserAction, installStartedAt: ago(60 * MINUTE) },
    ctx: { hosts: pendingUserAction(hostsIn(H.InstallingInProgress, 3, 2)) },
    event: REFRESH,
    expect: { status: C.InstallingPendingUserAction, statusInfo: 'previous info' },
  },
  {
    rule: 'Back to installing once no host waits for the user',
    story: 'the user fixed the boot order',
    cluster: { status: C.InstallingPendingUserAction, installStartedAt: ago(60 * MINUTE) },
    ctx: { hosts: hostsIn(H.InstallingInProgress, 3, 2) },
    event: REFRESH,
    expect: { status: C.Installing, statusInfo: 'Installation in progress' },
  },
  {
    rule: 'On to finalizing once no host waits for the user',
    story: 'the user fixed the boot order and every host is installed',
    cluster: { status: C.InstallingPendingUserAction, installStartedAt: ago(60 * MINUTE) },
    ctx: { hosts: hostsIn(H.Installed, 3, 2) },
    event: REFRESH,
    expect: { status: C.Finalizing, statusInfo: 'Finalizing cluster installation' },
  },
  {
    rule: 'A host waits for the user',
    story: 'a host booted the discovery image after its reboot',
    cluster: { status: C.Installing },
    ctx: { hosts: pendingUserAction(hostsIn(H.InstallingInProgress, 3, 2)) },
    event: REFRESH,
    expect: {
      status: C.InstallingPendingUserAction,
      statusInfo: 'Cluster has hosts pending user action',
    },
  },
  {
    rule: 'Move to finalizing',
    story: 'masters and enough workers installed',
    cluster: { status: C.Installing },
    ctx: {
      hosts: [
        ...hostsIn(H.Installed, 3, 2),
        host({ id: 'w5', role: HostRole.Worker, status: H.Error }),
      ],
    },
    event: REFRESH,
    expect: { status: C.Finalizing, statusInfo: 'Finalizing cluster installation' },
  },
  {
    rule: 'Stay in installing',
    story: 'hosts still installing',
    cluster: { status: C.Installing },
    ctx: { hosts: hostsIn(H.InstallingInProgress, 3, 2) },
    event: REFRESH,
    expect: { status: C.Installing, statusInfo: 'Installation in progress' },
  },
  {
    rule: 'Finalizing complete',
    story: 'all hosts done and the kubeconfig uploaded',
    cluster: { status: C.Finalizing },
    ctx: { hosts: hostsIn(H.Installed, 3, 2), kubeconfigUploaded: true },
    event: REFRESH,
    expect: { status: C.Installed, statusInfo: 'Cluster is installed' },
  },
  {
    rule: 'Installation error',
    story: 'a master failed',
    cluster: { status: C.Installing },
    ctx: { hosts: [...hostsIn(H.InstallingInProgress, 2, 2), host({ id: 'm9', status: H.Error })] },
    event: REFRESH,
    expect: { status: C.Error, statusInfo: 'cluster has hosts in error' },
  },
  ...[
    C.PreparingForInstallation,
    C.Finalizing,
    C.Installed,
    C.Error,
    C.Cancelled,
    C.AddingHosts,
    C.Unmonitored,
  ].map((s): Scenario => ({
    rule: `Maintain ${s} state`,
    story: `${s} stays`,
    cluster: { status: s },
    ctx: {
      hosts:
        s === C.PreparingForInstallation
          ? hostsIn(H.PreparingForInstallation, 3, 0)
          : hostsIn(H.Installed, 3, 2),
    },
    event: REFRESH,
    expect: { status: s, statusInfo: 'previous info' },
  })),
];

function expectOutcome(result: ClusterTransitionResult, expected: Expected): void {
  if ('refused' in expected) {
    expect(result).toMatchObject({
      ok: false,
      httpStatus: expected.refused,
      reason: expected.reason,
    });
  } else {
    expect(result).toMatchObject({
      ok: true,
      status: expected.status,
      statusInfo: expected.statusInfo,
    });
  }
}

describe('cluster transitions, one story per upstream rule', () => {
  it.each(scenarios.map((s) => [s.story, s] as const))('%s', (_story, s) => {
    const result = applyClusterEvent(cluster(s.cluster), s.event, clusterCtx(s.ctx));
    expectOutcome(result, s.expect);
    if (result.ok) expect(result.rule).toBe(s.rule);
  });

  it('has a story for every row of the table (preparation records are tested below)', () => {
    const told = new Set(scenarios.map((s) => s.rule));
    const untold = clusterTransitions
      .filter((row) => row.event !== 'PreparationSucceeded' && row.event !== 'PreparationFailed')
      .map((row) => row.name)
      .filter((name) => !told.has(name));
    expect(untold).toEqual([]);
  });
});

describe('what else changes with a cluster transition', () => {
  it('starts the install clock and forgets the last preparation on the install request', () => {
    const result = applyClusterEvent(
      cluster({ status: C.Ready, lastPreparation: { status: 'failed', reason: 'x' } }),
      { type: 'PrepareForInstallation' },
      clusterCtx(),
    );
    expect(result).toMatchObject({
      ok: true,
      installStartedAt: NOW.toISOString(),
      lastPreparation: { status: 'never' },
    });
  });

  it('records a preparation outcome without changing status', () => {
    const preparing = cluster({ status: C.PreparingForInstallation });
    expect(
      applyClusterEvent(preparing, { type: 'PreparationSucceeded' }, clusterCtx()),
    ).toMatchObject({
      ok: true,
      status: C.PreparingForInstallation,
      changed: false,
      lastPreparation: { status: 'success', reason: PreparationReason.success },
    });
    expect(
      applyClusterEvent(
        preparing,
        { type: 'PreparationFailed', reason: 'no release image' },
        clusterCtx(),
      ),
    ).toMatchObject({
      ok: true,
      lastPreparation: { status: 'failed', reason: 'no release image' },
    });
  });

  it('marks the preparation failed when it times out', () => {
    const result = applyClusterEvent(
      cluster({ status: C.PreparingForInstallation, statusUpdatedAt: ago(11 * MINUTE) }),
      REFRESH,
      clusterCtx({ hosts: hostsIn(H.PreparingForInstallation, 3, 0) }),
    );
    expect(result).toMatchObject({
      lastPreparation: { status: 'failed', reason: PreparationReason.timedOut },
    });
  });

  it('stamps the completion time on entering installed, error or cancelled only', () => {
    expect(
      applyClusterEvent(
        cluster({ status: C.Installing }),
        { type: 'CancelInstallation' },
        clusterCtx(),
      ),
    ).toMatchObject({
      installCompletedAt: NOW.toISOString(),
    });
    expect(
      applyClusterEvent(
        cluster({ status: C.Error }),
        REFRESH,
        clusterCtx({ hosts: hostsIn(H.Error, 3, 0) }),
      ),
    ).not.toHaveProperty('installCompletedAt');
  });
});

describe('completing an installation', () => {
  const finalizing = cluster({ status: C.Finalizing });

  it('waits for the kubeconfig', () => {
    expect(
      applyClusterEvent(finalizing, REFRESH, clusterCtx({ hosts: hostsIn(H.Installed, 3, 2) })),
    ).toMatchObject({
      status: C.Finalizing,
    });
  });

  it('waits for monitored operators', () => {
    const ctx = clusterCtx({
      hosts: hostsIn(H.Installed, 3, 2),
      kubeconfigUploaded: true,
      monitoredOperatorsDone: false,
    });
    expect(applyClusterEvent(finalizing, REFRESH, ctx)).toMatchObject({ status: C.Finalizing });
  });

  it('waits for every host to be installed or failed', () => {
    const hosts = [
      ...hostsIn(H.Installed, 3, 2),
      host({ id: 'w7', role: HostRole.Worker, status: H.InstallingInProgress }),
    ];
    expect(
      applyClusterEvent(finalizing, REFRESH, clusterCtx({ hosts, kubeconfigUploaded: true })),
    ).toMatchObject({
      status: C.Finalizing,
    });
  });

  it('says when some workers did not join', () => {
    const hosts = [
      ...hostsIn(H.Installed, 3, 2),
      host({ id: 'w7', role: HostRole.Worker, status: H.Error }),
    ];
    expect(
      applyClusterEvent(finalizing, REFRESH, clusterCtx({ hosts, kubeconfigUploaded: true })),
    ).toMatchObject({
      status: C.Installed,
      statusInfo: ClusterStatusInfo.notAllWorkersInstalled,
    });
  });

  it('says when OLM operators failed', () => {
    const ctx = clusterCtx({
      hosts: hostsIn(H.Installed, 3, 2),
      kubeconfigUploaded: true,
      failedOlmOperators: ['lvms', 'mce'],
    });
    expect(applyClusterEvent(finalizing, REFRESH, ctx)).toMatchObject({
      status: C.Installed,
      statusInfo: 'Cluster is installed but degraded. Failed OLM operators: lvms, mce',
    });
  });
});

describe('refusals and ignores', () => {
  it('refuses to install a cluster that is not ready', () => {
    expect(
      applyClusterEvent(
        cluster({ status: C.Insufficient }),
        { type: 'PrepareForInstallation' },
        clusterCtx(),
      ),
    ).toEqual({
      ok: false,
      httpStatus: 409,
      reason: 'no condition found to run transition',
    });
  });

  it('counts an ignored cluster validation as passing, but never the non-ignorable ones', () => {
    const failing = validations({
      'ntp-server-configured': ['failure', 'Host clocks are not synchronized'],
    });
    const insufficient = cluster({ status: C.Insufficient });
    expect(
      applyClusterEvent(insufficient, REFRESH, clusterCtx({ validations: failing })),
    ).toMatchObject({
      status: C.Insufficient,
    });
    expect(
      applyClusterEvent(
        insufficient,
        REFRESH,
        clusterCtx({ validations: failing, ignoredValidations: ['all'] }),
      ),
    ).toMatchObject({ status: C.Ready });
    const masters = validations({
      'sufficient-masters-count': [
        'failure',
        'The cluster must have exactly 3 dedicated control plane nodes.',
      ],
    });
    expect(
      applyClusterEvent(
        insufficient,
        REFRESH,
        clusterCtx({ validations: masters, ignoredValidations: ['all'] }),
      ),
    ).toMatchObject({ status: C.Insufficient });
  });

  it('counts a success-suppress-output cluster validation as failing (upstream counts only success)', () => {
    const ctx = clusterCtx({
      validations: validations({ 'no-cidrs-overlapping': 'success-suppress-output' }),
    });
    expect(applyClusterEvent(cluster({ status: C.Ready }), REFRESH, ctx)).toMatchObject({
      status: C.Insufficient,
    });
  });
});

describe('enough masters and workers', () => {
  const ha = { controlPlaneAgents: 3, arbiterAgents: 0 };

  it('needs every master and, with two or more workers assigned, two of them', () => {
    expect(hasEnoughMastersAndWorkers(hostsIn(H.Installed, 3, 2), [H.Installed], ha)).toBe(true);
    const oneWorker = [
      ...hostsIn(H.Installed, 3, 1),
      host({ id: 'w1', role: HostRole.Worker, status: H.Error }),
    ];
    expect(hasEnoughMastersAndWorkers(oneWorker, [H.Installed], ha)).toBe(false);
    expect(hasEnoughMastersAndWorkers(hostsIn(H.Installed, 3, 1), [H.Installed], ha)).toBe(true);
    expect(hasEnoughMastersAndWorkers(hostsIn(H.Installed, 2, 2), [H.Installed], ha)).toBe(false);
  });

  it('needs exactly one master and no worker in a single-node cluster', () => {
    const sno = { controlPlaneAgents: 1, arbiterAgents: 0 };
    expect(hasEnoughMastersAndWorkers(hostsIn(H.Installed, 1, 0), [H.Installed], sno)).toBe(true);
    expect(hasEnoughMastersAndWorkers(hostsIn(H.Installed, 1, 1), [H.Installed], sno)).toBe(false);
  });

  it('needs an arbiter and two masters when arbiters are assigned', () => {
    const hosts = [
      ...hostsIn(H.Installed, 2, 0),
      host({ id: 'a0', role: HostRole.Arbiter, status: H.Installed }),
    ];
    const arbiter = { controlPlaneAgents: 2, arbiterAgents: 1 };
    expect(hasEnoughMastersAndWorkers(hosts, [H.Installed], arbiter)).toBe(true);
    const failedArbiter = [
      ...hostsIn(H.Installed, 2, 0),
      host({ id: 'a0', role: HostRole.Arbiter, status: H.Error }),
    ];
    expect(hasEnoughMastersAndWorkers(failedArbiter, [H.Installed], arbiter)).toBe(false);
  });
});
