import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../../src/bmac/runtime/runtime-clock.js';
import { TokenBucket } from '../../../src/bmac/runtime/token-bucket.js';
import { runWorkers, WorkQueue } from '../../../src/bmac/runtime/work-queue.js';
import { ManualClock, settle } from '../../fakes/manual-clock.js';

/** A handler whose calls stay open until the test finishes them. */
function gatedHandler() {
  const open = new Map<string, () => void>();
  const started: string[] = [];
  let running = 0;
  let most = 0;
  const runningKeys = new Set<string>();
  let overlap = false;
  return {
    started,
    open,
    most: () => most,
    overlap: () => overlap,
    handle: (key: string) =>
      new Promise<void>((resolve) => {
        if (runningKeys.has(key)) overlap = true;
        runningKeys.add(key);
        started.push(key);
        most = Math.max(most, ++running);
        open.set(key, () => {
          running--;
          runningKeys.delete(key);
          open.delete(key);
          resolve();
        });
      }),
  };
}

describe('WorkQueue', () => {
  it('queues a key added many times once', async () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    for (let i = 0; i < 5; i++) queue.add('ns/a');
    queue.add('ns/b');
    expect(queue.depth).toBe(2);
    expect(await queue.get()).toBe('ns/a');
    expect(await queue.get()).toBe('ns/b');
  });

  it('hands out an urgent key before a backlog, moving a waiting key to the front', async () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    for (const key of ['ns/a', 'ns/b', 'ns/c']) queue.add(key);
    queue.addUrgent('ns/u');
    queue.addUrgent('ns/c');
    expect(queue.depth).toBe(4);
    const order: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) order.push(await queue.get());
    expect(order).toEqual(['ns/c', 'ns/u', 'ns/a', 'ns/b']);
  });

  it('queues a key added urgently while it is processed first once its worker is done', async () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    queue.add('ns/a');
    expect(await queue.get()).toBe('ns/a');
    queue.add('ns/b');
    queue.addUrgent('ns/a');
    // Never handed to a second worker while the first one holds it.
    expect(queue.depth).toBe(1);
    queue.done('ns/a');
    expect(await queue.get()).toBe('ns/a');
    expect(await queue.get()).toBe('ns/b');
  });

  it('never hands one key to two workers, and processes a key added meanwhile once more after', async () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    const handler = gatedHandler();
    const workers = runWorkers(queue, 4, handler.handle, () => undefined);
    queue.add('ns/a');
    await settle();
    queue.add('ns/a');
    queue.add('ns/a');
    queue.add('ns/b');
    await settle();
    expect(handler.started).toEqual(['ns/a', 'ns/b']);

    handler.open.get('ns/a')!();
    await settle();
    expect(handler.started).toEqual(['ns/a', 'ns/b', 'ns/a']);
    handler.open.get('ns/a')!();
    handler.open.get('ns/b')!();
    await settle();
    expect(handler.started).toHaveLength(3);
    expect(handler.overlap()).toBe(false);
    queue.shutDown();
    await workers;
  });

  it('runs at most N keys at once', async () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    const handler = gatedHandler();
    const workers = runWorkers(queue, 3, handler.handle, () => undefined);
    for (let i = 0; i < 10; i++) queue.add(`k${String(i)}`);
    await settle();
    expect(handler.started).toHaveLength(3);
    expect(queue.depth).toBe(7);
    while (handler.open.size > 0) {
      for (const finish of [...handler.open.values()]) finish();
      await settle();
    }
    expect(handler.started).toHaveLength(10);
    expect(handler.most()).toBe(3);
    queue.shutDown();
    await workers;
  });

  it('adds a key back after requeue-after, the soonest of several delays winning', async () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    queue.addAfter('ns/a', 10_000);
    queue.addAfter('ns/a', 3_000);
    queue.addAfter('ns/a', 20_000);
    expect(clock.pending()).toEqual([3_000]);
    await clock.advance(2_999);
    expect(queue.depth).toBe(0);
    await clock.advance(1);
    expect(queue.depth).toBe(1);
  });

  it('backs off a failing key exponentially with bounded jitter, and a success resets it', () => {
    const clock = new ManualClock();
    const backoff = { baseMs: 100, maxMs: 10_000, jitter: 0.5 };
    const low = new WorkQueue({ clock, backoff, random: () => 0 });
    const delays = Array.from({ length: 9 }, () => low.addRateLimited('ns/a'));
    expect(delays).toEqual([100, 200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000]);
    expect(low.failuresOf('ns/a')).toBe(9);
    low.forget('ns/a');
    expect(low.addRateLimited('ns/a')).toBe(100);

    const high = new WorkQueue({ clock, backoff, random: () => 0.999_999 });
    const highDelays = Array.from({ length: 9 }, () => high.addRateLimited('ns/a'));
    expect(highDelays).toEqual([149, 299, 599, 1_199, 2_399, 4_799, 9_599, 14_999, 14_999]);
  });

  it('spreads the delays of keys that failed together', () => {
    let seed = 7;
    const random = (): number => ((seed = (seed * 16_807) % 2_147_483_647) - 1) / 2_147_483_646;
    const delays = new Set(
      Array.from({ length: 20 }, () => backoffDelay(3, { baseMs: 1_000, jitter: 0.2 }, random)),
    );
    expect(delays.size).toBeGreaterThan(10);
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(4_000);
      expect(d).toBeLessThan(4_800);
    }
  });

  it('hands out nothing while paused, then everything on resume', async () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    queue.pause();
    queue.add('ns/a');
    let got: string | undefined;
    void queue.get().then((key) => (got = key));
    await settle();
    expect(got).toBeUndefined();
    queue.resume();
    await settle();
    expect(got).toBe('ns/a');
  });

  it('after shutdown hands out no key, drops delayed adds and waits for in-flight keys within a bound', async () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    queue.add('ns/a');
    queue.addAfter('ns/b', 1_000);
    expect(await queue.get()).toBe('ns/a');
    queue.shutDown();
    expect(clock.pending()).toEqual([]);
    expect(await queue.get()).toBeUndefined();
    queue.add('ns/c');
    expect(queue.depth).toBe(0);

    let idle: boolean | undefined;
    void queue.whenIdle(5_000).then((v) => (idle = v));
    await clock.advance(4_000);
    expect(idle).toBeUndefined();
    await clock.advance(1_000);
    expect(idle).toBe(false);

    void queue.whenIdle(5_000).then((v) => (idle = v));
    queue.done('ns/a');
    await settle();
    expect(idle).toBe(true);
  });
});

describe('TokenBucket', () => {
  it('lets a burst through at once, then one write per 1/qps, in arrival order', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ qps: 10, burst: 3, clock });
    const passed: number[] = [];
    for (let i = 0; i < 6; i++) void bucket.take().then(() => passed.push(i));
    await settle();
    expect(passed).toEqual([0, 1, 2]);
    await clock.advance(99);
    expect(passed).toEqual([0, 1, 2]);
    await clock.advance(1);
    expect(passed).toEqual([0, 1, 2, 3]);
    await clock.advance(200);
    expect(passed).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('refills up to the burst while idle, never beyond', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ qps: 10, burst: 2, clock });
    await bucket.take();
    await bucket.take();
    await clock.advance(60_000);
    const passed: number[] = [];
    for (let i = 0; i < 3; i++) void bucket.take().then(() => passed.push(i));
    await settle();
    expect(passed).toEqual([0, 1]);
  });

  it('gives up waiting when the signal aborts, and the token goes to the next caller', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ qps: 1, burst: 1, clock });
    await bucket.take();
    const abort = new AbortController();
    const first = bucket.take(abort.signal);
    let second = false;
    void bucket.take().then(() => (second = true));
    abort.abort(new Error('leadership lost'));
    await expect(first).rejects.toThrow('leadership lost');
    await clock.advance(1_000);
    expect(second).toBe(true);
  });
});
