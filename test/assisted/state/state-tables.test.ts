/**
 * Properties of the two tables as a whole: every state has a way out unless listed as
 * terminal, and every event in every state is either handled or refused (never a throw, never
 * a status outside the model, never an unfilled `$MACRO`). Inputs come from a seeded generator,
 * so a failure names its seed.
 */
import { describe, expect, it } from 'vitest';
import { ClusterStatus, HostRole, HostStage, HostStatus } from '../../../src/assisted/model.js';
import type {
  ClusterRecord,
  HostRecord,
  ValidationStatus,
  ValidationsInfo,
} from '../../../src/assisted/model.js';
import {
  ClusterValidationSets,
  HostValidationSets,
  TERMINAL_CLUSTER_STATUSES,
  TERMINAL_HOST_STATUSES,
  applyClusterEvent,
  applyHostEvent,
  clusterTransitions,
  hostTransitions,
} from '../../../src/assisted/state/index.js';
import type {
  ClusterEvent,
  ClusterMachineContext,
  HostEvent,
  HostMachineContext,
} from '../../../src/assisted/state/index.js';
import { rng } from '../../support/random.js';
import { INSTALL_DISK_ID, INVENTORY, MINUTE, NOW, ago, cluster, host } from './records.js';

const HOST_STATUSES = Object.values(HostStatus);
const CLUSTER_STATUSES = Object.values(ClusterStatus);
const STAGES = Object.values(HostStage);
const ROLES = Object.values(HostRole);
const VALIDATION_STATUSES: readonly ValidationStatus[] = [
  'success',
  'success-suppress-output',
  'failure',
  'pending',
  'error',
  'disabled',
];
const HOST_EVENT_TYPES: readonly HostEvent['type'][] = [
  'RegisterHost',
  'Refresh',
  'BindHost',
  'UnbindHost',
  'ReclaimHost',
  'RebootingForReclaim',
  'ReclaimFailed',
  'InstallHost',
  'HostProgress',
  'HostInstallationFailed',
  'MediaDisconnect',
  'CancelInstallation',
  'ResetPendingUserAction',
];
const CLUSTER_EVENT_TYPES: readonly ClusterEvent['type'][] = [
  'Refresh',
  'PrepareForInstallation',
  'PreparationSucceeded',
  'PreparationFailed',
  'CancelInstallation',
  'ResetCluster',
];
const HOST_VALIDATION_IDS = [
  ...new Set([
    ...Object.values(HostValidationSets).flat(),
    'media-connected',
    'container-images-available',
    'ntp-synced',
  ]),
];
const CLUSTER_VALIDATION_IDS = [...new Set(Object.values(ClusterValidationSets).flat())];
const MACRO = /\$[A-Z_]{3,}/;

class Gen {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = rng(seed);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  bool(p = 0.5): boolean {
    return this.next() < p;
  }
  /** A time up to `maxMinutes` before NOW. */
  ago(maxMinutes: number): string {
    return ago(Math.floor(this.next() * maxMinutes) * MINUTE);
  }
  validations(ids: readonly string[]): ValidationsInfo {
    const results = ids
      .filter(() => this.bool(0.4))
      .map((id) => ({ id, status: this.pick(VALIDATION_STATUSES), message: `${id} says so` }));
    return { hardware: results };
  }
  host(status: HostStatus = this.pick(HOST_STATUSES)): HostRecord {
    const stage = this.bool(0.3) ? undefined : this.pick(STAGES);
    return host({
      id: `h${String(Math.floor(this.next() * 1000))}`,
      status,
      role: this.pick(ROLES),
      bootstrap: this.bool(0.2),
      statusUpdatedAt: this.ago(30 * 60),
      installationDiskId: this.pick([undefined, INSTALL_DISK_ID, '/dev/missing']),
      inventory: this.pick([undefined, INVENTORY]),
      progress:
        stage === undefined
          ? {}
          : {
              currentStage: stage,
              progressInfo: this.pick(['', 'x']),
              stageUpdatedAt: this.ago(30 * 60),
            },
    });
  }
  hostCtx(): HostMachineContext {
    const withCluster = this.bool(0.3);
    return {
      now: NOW,
      bound: this.bool(0.8),
      day2: this.bool(0.2),
      ...(this.bool(0.9) ? { clusterStatus: this.pick(CLUSTER_STATUSES) } : {}),
      validations: this.validations(HOST_VALIDATION_IDS),
      ignoredValidations: this.pick([[], ['all'], ['hostname-unique', 'has-min-memory']]),
      connected: this.bool(0.7),
      sno: this.bool(0.2),
      installationDiskSpeedCheckSuccessful: this.bool(),
      containerImagesAvailable: this.bool(),
      ...(withCluster
        ? {
            cluster: {
              controlPlaneAgents: this.pick([1, 3]),
              arbiterAgents: 0,
              hosts: Array.from({ length: 1 + Math.floor(this.next() * 5) }, () => this.host()),
            },
          }
        : {}),
    };
  }
  hostEvent(type: HostEvent['type'] = this.pick(HOST_EVENT_TYPES)): HostEvent {
    if (type === 'HostProgress') {
      return { type, stage: this.pick(STAGES), progressInfo: this.pick(['', 'step 3/5']) };
    }
    if (type === 'HostInstallationFailed' || type === 'CancelInstallation') {
      return this.bool() ? { type } : { type, reason: 'because' };
    }
    return { type };
  }
  cluster(status: ClusterStatus = this.pick(CLUSTER_STATUSES)): ClusterRecord {
    return cluster({
      status,
      controlPlaneAgents: this.pick([1, 3]),
      statusUpdatedAt: this.ago(30 * 60),
      ...(this.bool() ? { installStartedAt: this.ago(30 * 60) } : {}),
      lastPreparation: this.pick([
        { status: 'never' },
        { status: 'success' },
        { status: 'failed', reason: 'r' },
      ]),
    });
  }
  clusterCtx(): ClusterMachineContext {
    return {
      now: NOW,
      validations: this.validations(CLUSTER_VALIDATION_IDS),
      hosts: Array.from({ length: Math.floor(this.next() * 7) }, () => this.host()),
      ignoredValidations: this.pick([[], ['all'], ['ntp-server-configured']]),
      kubeconfigUploaded: this.bool(),
      monitoredOperatorsDone: this.bool(0.8),
      ...(this.bool(0.2) ? { failedOlmOperators: ['lvms'] } : {}),
    };
  }
  clusterEvent(type: ClusterEvent['type'] = this.pick(CLUSTER_EVENT_TYPES)): ClusterEvent {
    return type === 'PreparationFailed' ? { type, reason: 'manifests failed' } : { type };
  }
}

function exits<S extends string>(
  rows: readonly { from: readonly string[]; to: S }[],
  status: S,
): boolean {
  return rows.some((row) => row.from.includes(status) && row.to !== status);
}

function entered<S extends string>(
  rows: readonly { from: readonly string[]; to: S }[],
  status: S,
): boolean {
  return rows.some((row) => row.to === status && row.from.some((f) => f !== status));
}

describe('the host table', () => {
  it('names only statuses of the model', () => {
    for (const row of hostTransitions) {
      expect(HOST_STATUSES).toContain(row.to);
      for (const from of row.from) expect(['', ...HOST_STATUSES]).toContain(from);
    }
  });

  it('handles every event type somewhere', () => {
    const handled = new Set(hostTransitions.map((r) => r.event));
    expect([...handled].sort()).toEqual([...HOST_EVENT_TYPES].sort());
  });

  it('leaves every status but the listed terminal ones', () => {
    const noExit = HOST_STATUSES.filter((s) => !exits(hostTransitions, s));
    expect(noExit).toEqual([...TERMINAL_HOST_STATUSES]);
  });

  it('enters every status but the obsolete ones', () => {
    // disabled, disabled-unbound: obsolete upstream; resetting: entered only by upstream's
    // auto-reset, which ENABLE_AUTO_RESET=false (always) turns off.
    const neverEntered = HOST_STATUSES.filter((s) => !entered(hostTransitions, s));
    expect(neverEntered).toEqual([
      HostStatus.Disabled,
      HostStatus.Resetting,
      HostStatus.DisabledUnbound,
    ]);
  });

  it('handles or refuses every event in every status (exhaustive, seeded contexts)', () => {
    const gen = new Gen(12);
    for (const status of HOST_STATUSES) {
      for (const type of HOST_EVENT_TYPES) {
        for (let i = 0; i < 20; i++) {
          const h = gen.host(status);
          const ctx = gen.hostCtx();
          const event = gen.hostEvent(type);
          const result = applyHostEvent(h, event, ctx);
          if (result.ok) {
            expect(HOST_STATUSES, `${status} ${type}`).toContain(result.status);
            expect(result.statusInfo).not.toMatch(MACRO);
            expect(result.rule.length).toBeGreaterThan(0);
          } else {
            expect([400, 409]).toContain(result.httpStatus);
            expect(result.reason.length).toBeGreaterThan(0);
            expect(result.reason).not.toMatch(MACRO);
          }
        }
      }
    }
  });

  it.each([1, 2, 3, 4, 5])('keeps its invariants on random inputs (seed %i)', (seed) => {
    const gen = new Gen(seed);
    for (let i = 0; i < 2000; i++) {
      const h = gen.host();
      const ctx = gen.hostCtx();
      const event = gen.hostEvent();
      const result = applyHostEvent(h, event, ctx);
      if (!result.ok) continue;
      // Only an installer report installs a host.
      if (event.type === 'Refresh' && result.status === HostStatus.Installed) {
        expect(h.status, `seed ${String(seed)} case ${String(i)}`).toBe(HostStatus.Installed);
      }
      const percentage = result.progress?.installationPercentage;
      if (percentage !== undefined) {
        expect(percentage).toBeGreaterThanOrEqual(0);
        expect(percentage).toBeLessThanOrEqual(100);
      }
      // An unbind always forgets the role.
      if (result.unbind === true) expect(result.role).toBe(HostRole.AutoAssign);
    }
  });
});

describe('the cluster table', () => {
  it('names only statuses of the model', () => {
    for (const row of clusterTransitions) {
      expect(CLUSTER_STATUSES).toContain(row.to);
      for (const from of row.from) expect(CLUSTER_STATUSES).toContain(from);
    }
  });

  it('handles every event type somewhere', () => {
    const handled = new Set(clusterTransitions.map((r) => r.event));
    expect([...handled].sort()).toEqual([...CLUSTER_EVENT_TYPES].sort());
  });

  it('leaves every status but the listed terminal ones', () => {
    const noExit = CLUSTER_STATUSES.filter((s) => !exits(clusterTransitions, s));
    expect(noExit).toEqual([...TERMINAL_CLUSTER_STATUSES]);
  });

  it('handles or refuses every event in every status (exhaustive, seeded contexts)', () => {
    const gen = new Gen(21);
    for (const status of CLUSTER_STATUSES) {
      for (const type of CLUSTER_EVENT_TYPES) {
        for (let i = 0; i < 30; i++) {
          const result = applyClusterEvent(
            gen.cluster(status),
            gen.clusterEvent(type),
            gen.clusterCtx(),
          );
          if (result.ok) {
            expect(CLUSTER_STATUSES, `${status} ${type}`).toContain(result.status);
            expect(result.statusInfo).not.toMatch(MACRO);
          } else {
            expect(result.httpStatus).toBe(409);
          }
        }
      }
    }
  });

  it.each([1, 2, 3])('keeps its invariants on random inputs (seed %i)', (seed) => {
    const gen = new Gen(100 + seed);
    for (let i = 0; i < 2000; i++) {
      const c = gen.cluster();
      const event = gen.clusterEvent();
      const ctx = gen.clusterCtx();
      const result = applyClusterEvent(c, event, ctx);
      if (!result.ok) continue;
      const where = `seed ${String(seed)} case ${String(i)}`;
      // Installed only from finalizing, with every host done and the kubeconfig uploaded.
      if (result.status === ClusterStatus.Installed && c.status !== ClusterStatus.Installed) {
        expect(c.status, where).toBe(ClusterStatus.Finalizing);
        expect(ctx.kubeconfigUploaded, where).toBe(true);
        for (const h of ctx.hosts)
          expect([HostStatus.Installed, HostStatus.Error]).toContain(h.status);
      }
      // Installing only after a successful preparation.
      if (
        result.status === ClusterStatus.Installing &&
        c.status === ClusterStatus.PreparingForInstallation
      ) {
        expect(c.lastPreparation.status, where).toBe('success');
      }
    }
  });
});
