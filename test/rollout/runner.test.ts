import { afterEach, describe, expect, it } from 'vitest';
import { SiteCondition } from '../../src/rollout/progress.js';
import type { SiteObservation } from '../../src/rollout/progress.js';
import { DEFAULT_GATE, RolloutPhase, WavePhase } from '../../src/rollout/rollout-resource.js';
import type { Rollout, RolloutSpec } from '../../src/rollout/rollout-resource.js';
import { RolloutStore } from '../../src/rollout/rollout-store.js';
import {
  leaseName,
  RolloutHeldError,
  RolloutLeaseLostError,
  runRollout,
} from '../../src/rollout/runner.js';
import type { RunOutcome, RunnerOptions } from '../../src/rollout/runner.js';
import type { SiteObserver } from '../../src/rollout/site-observer.js';
import type { Release, RolloutTarget } from '../../src/rollout/target.js';
import { createLogger } from '../../src/shared/logger.js';
import { FakeApiServer } from '../fakes/fake-api-server.js';
import { FakeLeaseStore } from '../fakes/fake-lease-store.js';
import { ManualClock, settle } from '../fakes/manual-clock.js';

const NS = 'fleet';
const NAME = 'r1';
const log = createLogger({ level: 'silent' });
const LEASE = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };

function spec(extra: Partial<RolloutSpec> = {}): RolloutSpec {
  const wave = (name: string, sites: string[]) => ({
    name,
    sites,
    added: sites,
    removed: [],
    gate: DEFAULT_GATE,
  });
  return {
    planVersion: 'v1',
    from: { revision: 'main~1', commit: 'a'.repeat(40) },
    to: { revision: 'main', commit: 'b'.repeat(40) },
    target: { mode: 'Apply', apply: { path: '.' } },
    maxInFlight: 2,
    waves: [wave('canary', ['c1']), wave('w1', ['a', 'b', 'c'])],
    paused: false,
    abort: false,
    ...extra,
  };
}

/** Sites as the test scripts them; absent until released and "created". */
class ScriptedSites implements SiteObserver {
  readonly sites = new Map<string, SiteObservation>();
  start = () => Promise.resolve();
  stop = () => undefined;
  observe = (site: string): SiteObservation =>
    this.sites.get(site) ?? { condition: SiteCondition.Absent, state: 'absent' };
  set(condition: SiteCondition, ...names: string[]): void {
    for (const n of names) this.sites.set(n, { condition, state: condition });
  }
}

/** A target that records releases (and what the stored Rollout said while it acted). */
class RecordingTarget implements RolloutTarget {
  readonly releases: string[][] = [];
  /** `released/applied` of the release's wave in the stored Rollout, at each release. */
  readonly storedAtRelease: string[] = [];
  failNext = false;
  constructor(
    private readonly api: FakeApiServer,
    private readonly sites: ScriptedSites,
  ) {}
  prepare() {
    return Promise.resolve({ notes: [] });
  }
  release(_rollout: Rollout, release: Release): Promise<void> {
    const stored = this.api.peek({
      apiVersion: 'siteforge.io/v1alpha1',
      kind: 'Rollout',
      namespace: NS,
      name: NAME,
    });
    const ws = (stored?.['status'] as { waves: { released: number; applied: number }[] }).waves[
      release.wave
    ]!;
    this.storedAtRelease.push(`${String(ws.released)}/${String(ws.applied)}`);
    if (this.failNext) {
      this.failNext = false;
      return Promise.reject(new Error('the runner died here'));
    }
    this.releases.push([...release.sites]);
    this.sites.set(SiteCondition.Progressing, ...release.sites);
    return Promise.resolve();
  }
}

interface World {
  readonly api: FakeApiServer;
  readonly leases: FakeLeaseStore;
  readonly clock: ManualClock;
  readonly sites: ScriptedSites;
  readonly target: RecordingTarget;
  readonly store: RolloutStore;
}

function world(): World {
  const api = new FakeApiServer();
  const sites = new ScriptedSites();
  return {
    api,
    leases: new FakeLeaseStore(),
    clock: new ManualClock(),
    sites,
    target: new RecordingTarget(api, sites),
    store: new RolloutStore(api),
  };
}

const running: AbortController[] = [];
afterEach(() => {
  for (const c of running.splice(0)) c.abort();
});

function start(w: World, identity: string, extra: Partial<RunnerOptions> = {}) {
  const stop = new AbortController();
  running.push(stop);
  const result: { outcome?: RunOutcome; error?: unknown } = {};
  const done = runRollout({
    namespace: NS,
    name: NAME,
    store: w.store,
    leases: w.leases.client(),
    target: w.target,
    observer: w.sites,
    identity,
    clock: w.clock,
    log,
    pollIntervalMs: 1_000,
    lease: LEASE,
    signal: stop.signal,
    ...extra,
  }).then(
    (outcome) => {
      result.outcome = outcome;
    },
    (error: unknown) => {
      result.error = error;
    },
  );
  return { stop, result, done };
}

async function stored(w: World): Promise<Rollout> {
  return (await w.store.get(NS, NAME))!;
}

describe('rollout runner', () => {
  it('drives the waves to success, recording each release before acting on it', async () => {
    const w = world();
    await w.store.create({ namespace: NS, name: NAME, spec: spec() });
    const run = start(w, 'runner-a');
    await w.clock.advance(1_000);
    expect(w.target.releases).toEqual([['c1']]);
    // The release was in the status (released 1) and not yet confirmed (applied 0).
    expect(w.target.storedAtRelease).toEqual(['1/0']);
    w.sites.set(SiteCondition.Installed, 'c1');
    await w.clock.advance(1_000);
    expect(w.target.releases).toEqual([['c1'], ['a', 'b']]);
    w.sites.set(SiteCondition.Installed, 'a', 'b');
    await w.clock.advance(1_000);
    expect(w.target.releases).toEqual([['c1'], ['a', 'b'], ['c']]);
    w.sites.set(SiteCondition.Installed, 'c');
    await w.clock.advance(1_000);
    await run.done;
    expect(run.result.outcome?.kind).toBe('finished');
    const r = await stored(w);
    expect(r.status?.phase).toBe(RolloutPhase.Succeeded);
    expect(r.status?.waves.map((x) => [x.phase, x.released, x.applied, x.installed])).toEqual([
      [WavePhase.Passed, 1, 1, 1],
      [WavePhase.Passed, 3, 3, 3],
    ]);
    // The Lease was released for the next runner.
    expect(w.leases.lease(NS, leaseName(NAME))?.spec.holderIdentity).toBeUndefined();
  });

  it('a new runner acts first on sites recorded as released by a runner that died', async () => {
    const w = world();
    await w.store.create({ namespace: NS, name: NAME, spec: spec() });
    w.target.failNext = true;
    const first = start(w, 'runner-a');
    await w.clock.advance(1_000);
    await first.done;
    expect(first.result.error).toBeInstanceOf(Error);
    const r = await stored(w);
    expect([r.status?.waves[0]?.released, r.status?.waves[0]?.applied]).toEqual([1, 0]);

    const second = start(w, 'runner-b');
    await w.clock.advance(1_000);
    expect(w.target.releases).toEqual([['c1']]);
    expect((await stored(w)).status?.waves[0]?.applied).toBe(1);
    second.stop.abort();
    await second.done;
    expect(second.result.outcome?.kind).toBe('stopped');
  });

  it('refuses a second runner while the first keeps the lease', async () => {
    const w = world();
    await w.store.create({ namespace: NS, name: NAME, spec: spec() });
    const first = start(w, 'runner-a');
    await w.clock.advance(500);
    const second = start(w, 'runner-b');
    await w.clock.advance(LEASE.leaseDurationMs + 2 * LEASE.retryPeriodMs + 500);
    await second.done;
    expect(second.result.error).toBeInstanceOf(RolloutHeldError);
    expect((second.result.error as Error).message).toContain('runner-a');
    expect(w.target.releases).toEqual([['c1']]);
    first.stop.abort();
    await first.done;
  });

  it('takes over from a runner that died holding the lease, once the lease expires', async () => {
    const w = world();
    await w.store.create({ namespace: NS, name: NAME, spec: spec() });
    const dead = w.leases.client();
    const first = start(w, 'runner-a', { leases: dead });
    await w.clock.advance(1_000);
    dead.partition = 'hang'; // the process is gone: no renewal, no release
    const second = start(w, 'runner-b');
    await w.clock.advance(LEASE.leaseDurationMs + 2 * LEASE.retryPeriodMs + 1_000);
    expect(second.result.error).toBeUndefined();
    expect(w.leases.lease(NS, leaseName(NAME))?.spec.holderIdentity).toBe('runner-b');
    // The first one noticed it could not renew and stopped acting.
    await first.done;
    expect(first.result.error).toBeInstanceOf(RolloutLeaseLostError);
    w.sites.set(SiteCondition.Installed, 'c1');
    await w.clock.advance(1_000);
    expect(w.target.releases).toEqual([['c1'], ['a', 'b']]);
    expect((await stored(w)).status?.runner).toBe('runner-b');
  });

  it('releases nothing while paused and carries on when resumed', async () => {
    const w = world();
    await w.store.create({ namespace: NS, name: NAME, spec: spec() });
    start(w, 'runner-a');
    await w.clock.advance(1_000);
    let r = await stored(w);
    await w.store.updateSpec(r, { ...r.spec, paused: true });
    w.sites.set(SiteCondition.Installed, 'c1');
    await w.clock.advance(3_000);
    r = await stored(w);
    expect(r.status?.phase).toBe(RolloutPhase.Paused);
    expect(r.status?.waves[0]?.phase).toBe(WavePhase.Passed);
    expect(w.target.releases).toEqual([['c1']]);
    await w.store.updateSpec(r, { ...r.spec, paused: false });
    await w.clock.advance(1_000);
    expect(w.target.releases).toEqual([['c1'], ['a', 'b']]);
  });

  it('stops at a failed canary with the failure in the status', async () => {
    const w = world();
    await w.store.create({ namespace: NS, name: NAME, spec: spec() });
    const run = start(w, 'runner-a');
    await w.clock.advance(1_000);
    w.sites.sites.set('c1', {
      condition: SiteCondition.Failed,
      state: 'failed',
      problem: {
        object: 'AgentClusterInstall c1/c1',
        condition: 'Failed',
        reason: 'InstallationFailed',
        message: 'The installation failed: boom',
      },
    });
    await w.clock.advance(1_000);
    await run.done;
    expect(run.result.outcome?.kind).toBe('finished');
    const r = await stored(w);
    expect(r.status?.phase).toBe(RolloutPhase.Failed);
    expect(r.status?.waves[0]?.failures[0]?.message).toBe('The installation failed: boom');
    expect(w.target.releases).toEqual([['c1']]);
  });

  it('survives conflicting writes: a pause written between its read and its write', async () => {
    const w = world();
    await w.store.create({ namespace: NS, name: NAME, spec: spec() });
    w.api.conflictsToInject = 3;
    start(w, 'runner-a');
    await w.clock.advance(1_000);
    await settle();
    expect(w.target.releases).toEqual([['c1']]);
    expect((await stored(w)).status?.waves[0]?.applied).toBe(1);
  });
});
