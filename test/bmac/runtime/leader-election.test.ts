import { afterEach, describe, expect, it } from 'vitest';
import {
  LeaderElectionConfigError,
  LeaderElector,
} from '../../../src/bmac/runtime/leader-election.js';
import type { LeaderElectorOptions } from '../../../src/bmac/runtime/leader-election.js';
import { FakeLeaseStore } from '../../fakes/fake-lease-store.js';
import type { PartitionableLeaseClient } from '../../fakes/fake-lease-store.js';
import { ManualClock } from '../../fakes/manual-clock.js';

const NS = 'siteforge';
const NAME = 'siteforge-controller';
// client-go's defaults.
const LEASE = 15_000;
const RENEW = 10_000;
const RETRY = 2_000;

interface Candidate {
  readonly elector: LeaderElector;
  readonly client: PartitionableLeaseClient;
  /** [time, leader] at every change. */
  readonly changes: [number, boolean][];
}

let running: LeaderElector[] = [];

afterEach(async () => {
  await Promise.all(running.map((e) => e.stop({ release: false })));
  running = [];
});

function setup() {
  const clock = new ManualClock();
  const store = new FakeLeaseStore();
  const candidate = (identity: string, options: Partial<LeaderElectorOptions> = {}): Candidate => {
    const client = store.client();
    const elector = new LeaderElector({
      leases: client,
      namespace: NS,
      name: NAME,
      identity,
      clock,
      ...options,
    });
    const changes: [number, boolean][] = [];
    elector.onChange((leader) => changes.push([clock.now(), leader]));
    running.push(elector);
    return { elector, client, changes };
  };
  /**
   * Lets `ms` of fake time pass in 100 ms steps, checking after each that at most one
   * candidate leads.
   */
  const run = async (ms: number, ...candidates: Candidate[]): Promise<void> => {
    for (let t = 0; t < ms; t += 100) {
      await clock.advance(100);
      const leaders = candidates.filter((c) => c.elector.isLeader());
      expect(leaders.length, `leaders at +${String(t + 100)} ms`).toBeLessThanOrEqual(1);
    }
  };
  const lease = () => store.lease(NS, NAME);
  return { clock, store, candidate, run, lease };
}

describe('LeaderElector', () => {
  it('creates the Lease and leads when there is none', async () => {
    const { clock, candidate, lease } = setup();
    const a = candidate('a');
    const start = clock.now();
    expect(a.elector.isKnown()).toBe(false);
    a.elector.start();
    await clock.advance(0);
    expect(a.elector.isKnown()).toBe(true);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.changes).toEqual([[start, true]]);
    expect(lease()?.spec).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: new Date(start).toISOString(),
      renewTime: new Date(start).toISOString(),
      leaseTransitions: 0,
    });
  });

  it('renews every retry period while a second candidate stands by', async () => {
    const { clock, candidate, run, lease } = setup();
    const a = candidate('a');
    const b = candidate('b');
    a.elector.start();
    await clock.advance(0);
    b.elector.start();
    const acquired = lease()?.spec.acquireTime;
    expect(b.elector.isKnown()).toBe(false);
    await run(60_000, a, b);
    expect(b.elector.isKnown()).toBe(true);
    expect(a.elector.isLeader()).toBe(true);
    expect(b.changes).toEqual([]);
    expect(lease()?.spec).toMatchObject({
      holderIdentity: 'a',
      acquireTime: acquired,
      renewTime: new Date(clock.now()).toISOString(),
      leaseTransitions: 0,
    });
  });

  it('lets exactly one of two candidates that start together lead', async () => {
    const { clock, candidate, run } = setup();
    const a = candidate('a');
    const b = candidate('b');
    a.elector.start();
    b.elector.start();
    await clock.advance(0);
    expect([a.elector.isLeader(), b.elector.isLeader()].filter(Boolean)).toHaveLength(1);
    await run(30_000, a, b);
    expect(a.changes.length + b.changes.length).toBe(1);
  });

  for (const partition of ['refuse', 'hang'] as const) {
    it(`stops a leader cut off from the API server (${partition}) at its renew deadline, before the standby takes over`, async () => {
      const { clock, candidate, run, store } = setup();
      const a = candidate('a');
      const b = candidate('b');
      a.elector.start();
      await clock.advance(0);
      b.elector.start();
      await run(5_000, a, b);
      const lastRenewal = Date.parse(store.writes.at(-1)!.spec.renewTime!);
      a.client.partition = partition;
      await run(30_000, a, b);

      const [lostAt, lost] = a.changes.at(-1)!;
      expect(lost).toBe(false);
      expect(lostAt - lastRenewal).toBeLessThanOrEqual(RENEW);
      const [tookAt, took] = b.changes.at(-1)!;
      expect(took).toBe(true);
      expect(tookAt - lastRenewal).toBeGreaterThanOrEqual(LEASE);
      expect(tookAt - lastRenewal).toBeLessThanOrEqual(LEASE + 2 * RETRY);
    });
  }

  it('keeps leading through an outage shorter than the renew deadline', async () => {
    const { clock, candidate, run } = setup();
    const a = candidate('a');
    const b = candidate('b');
    a.elector.start();
    await clock.advance(0);
    b.elector.start();
    a.client.partition = 'refuse';
    // Renewals at +2, +4 and +6 s fail; the one at +8 s, before the deadline at +10 s, succeeds.
    await run(7_000, a, b);
    a.client.partition = undefined;
    await run(30_000, a, b);
    expect(a.changes.map(([, leader]) => leader)).toEqual([true]);
    expect(b.changes).toEqual([]);
  });

  it('takes over from a leader that died within the lease duration and two retry periods', async () => {
    const { clock, candidate, run, store, lease } = setup();
    const a = candidate('a');
    const b = candidate('b');
    a.elector.start();
    await clock.advance(0);
    b.elector.start();
    await run(7_000, a, b);
    await a.elector.stop({ release: false }); // killed: no release
    const lastRenewal = Date.parse(store.writes.at(-1)!.spec.renewTime!);
    expect(lease()?.spec.holderIdentity).toBe('a');

    await run(LEASE + 2 * RETRY, a, b);
    const [tookAt, took] = b.changes.at(-1)!;
    expect(took).toBe(true);
    expect(tookAt - lastRenewal).toBeGreaterThanOrEqual(LEASE);
    expect(lease()?.spec).toMatchObject({
      holderIdentity: 'b',
      acquireTime: new Date(tookAt).toISOString(),
      leaseTransitions: 1,
    });
  });

  it('releases the lease on a graceful stop, after it stopped acting, and the standby takes it at its next poll', async () => {
    const { clock, candidate, run, lease } = setup();
    const a = candidate('a');
    const b = candidate('b');
    a.elector.start();
    await clock.advance(0);
    b.elector.start();
    await run(5_000, a, b);
    let holderWhenStopped: string | undefined;
    a.elector.onChange(() => (holderWhenStopped = lease()?.spec.holderIdentity));

    const stoppedAt = clock.now();
    await a.elector.stop();
    expect(holderWhenStopped).toBe('a');
    expect(lease()?.spec).toMatchObject({ leaseDurationSeconds: 1, leaseTransitions: 0 });
    expect(lease()?.spec.holderIdentity).toBeUndefined();

    await run(RETRY, a, b);
    expect(b.elector.isLeader()).toBe(true);
    expect(b.changes[0]![0] - stoppedAt).toBeLessThanOrEqual(RETRY);
    expect(lease()?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  it('stands by after losing the lease until the new leader goes', async () => {
    const { clock, candidate, run } = setup();
    const a = candidate('a');
    const b = candidate('b');
    a.elector.start();
    await clock.advance(0);
    b.elector.start();
    a.client.partition = 'refuse';
    await run(LEASE + 2 * RETRY, a, b);
    expect(b.elector.isLeader()).toBe(true);
    a.client.partition = undefined;
    await run(30_000, a, b);
    expect(a.elector.isLeader()).toBe(false);

    await b.elector.stop();
    await run(RETRY, a, b);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.changes.map(([, leader]) => leader)).toEqual([true, false, true]);
  });

  it('stops at once while a renewal hangs, without waiting for it', async () => {
    const { clock, candidate } = setup();
    const a = candidate('a');
    a.elector.start();
    await clock.advance(0);
    a.client.partition = 'hang';
    await clock.advance(RETRY + 500); // a renewal is in flight and never answers
    expect(a.elector.isLeader()).toBe(true);
    await a.elector.stop({ release: false }); // resolves with no time passing
    expect(a.elector.isLeader()).toBe(false);
    expect(a.changes.map(([, leader]) => leader)).toEqual([true, false]);
  });

  it('refuses durations that could let two leaders act at once', () => {
    const store = new FakeLeaseStore();
    const make = (options: Partial<LeaderElectorOptions>) => () =>
      new LeaderElector({
        leases: store.client(),
        namespace: NS,
        name: NAME,
        identity: 'a',
        ...options,
      });
    expect(make({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toThrow(
      LeaderElectionConfigError,
    );
    expect(make({ renewDeadlineMs: 2_000, retryPeriodMs: 2_000 })).toThrow(/retry period/);
    expect(make({ leaseDurationMs: 2_500 })).toThrow(/whole number of seconds/);
    expect(make({ identity: '' })).toThrow(/identity/);
  });
});
