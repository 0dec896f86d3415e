/**
 * The runtime's time: the shared Clock plus cancellable timers, which the work queue's delayed
 * adds, backoff and resync need (a sleep cannot be called off when the manager stops). Tests
 * drive it with a manual clock instead of waiting.
 */
import type { Clock } from '../../shared/clock.js';

/** Cancels a timer; calling it after the timer fired does nothing. */
export type CancelTimer = () => void;

/** A Clock that can also schedule and cancel callbacks. */
export interface RuntimeClock extends Clock {
  /** Calls `callback` once after `ms` milliseconds. */
  setTimer(ms: number, callback: () => void): CancelTimer;
}

/**
 * The real clock. Its timers do not keep the process alive: an idle manager's requeue or
 * resync timers must not hold up a process that is shutting down.
 */
export const systemRuntimeClock: RuntimeClock = {
  now: () => Date.now(),
  sleep: (ms) =>
    new Promise((resolve) => {
      setTimeout(resolve, ms);
    }),
  setTimer: (ms, callback) => {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return () => {
      clearTimeout(timer);
    };
  },
};

/** Resolves after `ms`, or as soon as `signal` aborts (never rejects). */
export function delay(clock: RuntimeClock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const done = (): void => {
      cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.setTimer(ms, done);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Options of exponential backoff. */
export interface BackoffOptions {
  /** Delay after the first failure. @default 100 */
  readonly baseMs?: number;
  /** Longest delay, however many failures. @default 300_000 (5 minutes) */
  readonly maxMs?: number;
  /**
   * Spread added to each delay, as a fraction of it: a delay `d` becomes a value in
   * `[d, d * (1 + jitter))`, so keys that failed together do not retry together. @default 0.2
   */
  readonly jitter?: number;
}

/**
 * The delay before retry number `failures` (1 for the first): `baseMs * 2^(failures-1)`, at most
 * `maxMs`, plus jitter. `random` returns a number in [0, 1), as Math.random.
 */
export function backoffDelay(
  failures: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const base = options.baseMs ?? 100;
  const max = options.maxMs ?? 300_000;
  const jitter = options.jitter ?? 0.2;
  const exponent = Math.min(Math.max(failures, 1) - 1, 52);
  const delayMs = Math.min(max, base * 2 ** exponent);
  return Math.floor(delayMs * (1 + jitter * random()));
}
