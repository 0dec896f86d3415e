import { afterEach, describe, expect, it } from 'vitest';
import { LeaderElector } from '../../src/bmac/runtime/leader-election.js';
import {
  ClientNodeLeaseClient,
  KubeApiError,
  KubeApiErrorCode,
  KubeUnreachableError,
} from '../../src/kube/index.js';
import type { Lease, LeaseClient } from '../../src/kube/index.js';
import { hubKubeconfig, useNamespace } from '../support/hub.js';

// Short, so the scenarios take seconds: renewals every 0.5 s, a leader that cannot renew for
// 2 s stops, a lease not renewed for 3 s is free.
const TIMING = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };

/** A LeaseClient on the hub that a test can cut off: then every call fails at once. */
class CuttableLeaseClient implements LeaseClient {
  cut = false;
  private readonly inner = ClientNodeLeaseClient.fromKubeconfig(hubKubeconfig());

  get(namespace: string, name: string) {
    return this.through(() => this.inner.get(namespace, name));
  }
  create(lease: Lease) {
    return this.through(() => this.inner.create(lease));
  }
  replace(lease: Lease) {
    return this.through(() => this.inner.replace(lease));
  }
  private through<T>(call: () => Promise<T>): Promise<T> {
    if (this.cut) return Promise.reject(new KubeUnreachableError('cut off by the test'));
    return call();
  }
}

interface Candidate {
  readonly elector: LeaderElector;
  readonly client: CuttableLeaseClient;
  /** [Date.now(), leader] at every change. */
  readonly changes: [number, boolean][];
}

/** Polls `check` every 25 ms; fails after `timeoutMs`. */
async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not true after ${String(timeoutMs)} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (err: unknown) => err,
  );
}

describe('leader election on the hub', () => {
  const ns = useNamespace('leader-election');
  let electors: LeaderElector[] = [];
  let leaseCount = 0;

  afterEach(async () => {
    await Promise.all(electors.map((e) => e.stop({ release: false })));
    electors = [];
  });

  /** Two candidates for a Lease of this test's own. */
  function pair(): {
    a: Candidate;
    b: Candidate;
    name: string;
    read: () => Promise<Lease | undefined>;
  } {
    const name = `lease-${String(++leaseCount)}`;
    const reader = ClientNodeLeaseClient.fromKubeconfig(hubKubeconfig());
    const make = (identity: string): Candidate => {
      const client = new CuttableLeaseClient();
      const elector = new LeaderElector({
        leases: client,
        namespace: ns.name,
        name,
        identity,
        ...TIMING,
      });
      const changes: [number, boolean][] = [];
      elector.onChange((leader) => changes.push([Date.now(), leader]));
      electors.push(elector);
      return { elector, client, changes };
    };
    return { a: make('a'), b: make('b'), name, read: () => reader.get(ns.name, name) };
  }

  /** Starts both; resolves with the leader and the standby once one leads. */
  async function elect(a: Candidate, b: Candidate): Promise<[Candidate, Candidate]> {
    a.elector.start();
    b.elector.start();
    await waitFor('a leader', () => a.elector.isLeader() || b.elector.isLeader(), 10_000);
    return a.elector.isLeader() ? [a, b] : [b, a];
  }

  it('creates, reads and replaces a Lease, refusing a stale resourceVersion with KUBE_CONFLICT', async () => {
    const client = ClientNodeLeaseClient.fromKubeconfig(hubKubeconfig());
    const created = await client.create({
      namespace: ns.name,
      name: 'plain',
      spec: {
        holderIdentity: 'x',
        leaseDurationSeconds: 3,
        renewTime: '2026-11-25T09:00:00.123Z',
        leaseTransitions: 0,
      },
    });
    expect(created.spec.renewTime).toBe('2026-11-25T09:00:00.123000Z');
    const again = await rejection(client.create(created));
    expect(again).toBeInstanceOf(KubeApiError);
    expect((again as KubeApiError).code).toBe(KubeApiErrorCode.Conflict);

    const replaced = await client.replace({
      ...created,
      spec: { ...created.spec, holderIdentity: 'y' },
    });
    expect((await client.get(ns.name, 'plain'))?.spec.holderIdentity).toBe('y');
    expect(replaced.resourceVersion).not.toBe(created.resourceVersion);
    const stale = await rejection(client.replace(created));
    expect((stale as KubeApiError).code).toBe(KubeApiErrorCode.Conflict);
    expect(await client.get(ns.name, 'absent')).toBeUndefined();
  });

  it('lets exactly one of two candidates lead while it renews', async () => {
    const { a, b, read } = pair();
    const [leader, standby] = await elect(a, b);
    const first = (await read())?.spec;
    // Four renewals later, still one leader and no change of hands.
    let renewals = 0;
    let last = first?.renewTime;
    await waitFor(
      'four renewals',
      async () => {
        const now = (await read())?.spec.renewTime;
        if (now !== last) renewals++;
        last = now;
        return renewals >= 4;
      },
      10_000,
    );
    expect(leader.changes.map(([, l]) => l)).toEqual([true]);
    expect(standby.changes).toEqual([]);
    expect((await read())?.spec).toMatchObject({
      holderIdentity: leader === a ? 'a' : 'b',
      acquireTime: first?.acquireTime,
      leaseDurationSeconds: 3,
      leaseTransitions: 0,
    });
  });

  it('hands the lease to the standby within the lease duration after the leader dies', async () => {
    const { a, b, read } = pair();
    const [leader, standby] = await elect(a, b);
    await leader.elector.stop({ release: false }); // dies: renews no more, releases nothing
    const lastRenewal = Date.parse((await read())!.spec.renewTime!);

    await waitFor(
      'the standby leads',
      () => standby.elector.isLeader(),
      TIMING.leaseDurationMs + 2 * TIMING.retryPeriodMs + 2_000,
    );
    const [tookAt] = standby.changes[0]!;
    expect(tookAt - lastRenewal).toBeGreaterThanOrEqual(TIMING.leaseDurationMs);
    expect((await read())?.spec).toMatchObject({
      holderIdentity: standby === a ? 'a' : 'b',
      leaseTransitions: 1,
    });
  });

  it('makes a leader cut off from the hub stop before the standby takes over', async () => {
    const { a, b } = pair();
    const [leader, standby] = await elect(a, b);
    leader.client.cut = true;

    await waitFor(
      'the cut-off leader stops',
      () => !leader.elector.isLeader(),
      TIMING.renewDeadlineMs + 1_000,
    );
    await waitFor(
      'the standby leads',
      () => standby.elector.isLeader(),
      TIMING.leaseDurationMs + 2 * TIMING.retryPeriodMs + 2_000,
    );
    const [lostAt] = leader.changes.at(-1)!;
    const [tookAt] = standby.changes[0]!;
    expect(tookAt - lostAt).toBeGreaterThanOrEqual(TIMING.leaseDurationMs - TIMING.renewDeadlineMs);
  });

  it('releases the lease on a graceful stop, and the standby takes it without waiting for expiry', async () => {
    const { a, b, read } = pair();
    const [leader, standby] = await elect(a, b);
    await leader.elector.stop();
    expect(leader.elector.isLeader()).toBe(false);
    const released = (await read())?.spec;
    expect(released?.holderIdentity).toBeUndefined();
    expect(released?.leaseDurationSeconds).toBe(1);

    // Well within the 3 s a dead leader's lease would hold.
    await waitFor('the standby leads', () => standby.elector.isLeader(), 2_000);
  });
});
