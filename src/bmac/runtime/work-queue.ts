/**
 * A keyed work queue after client-go's: a key waiting is queued once however often it is added;
 * a key being processed is never handed to a second worker, and if it is added meanwhile it is
 * queued again once its worker is done; keys can come back after a delay or after a per-key
 * exponential backoff with jitter, which a success resets.
 */
import { backoffDelay } from './runtime-clock.js';
import type { BackoffOptions, CancelTimer, RuntimeClock } from './runtime-clock.js';

/** Options of WorkQueue. */
export interface WorkQueueOptions {
  readonly clock: RuntimeClock;
  readonly backoff?: BackoffOptions;
  /** Source of jitter, in [0, 1). @default Math.random */
  readonly random?: () => number;
  /** Told the number of keys waiting for a worker whenever it changes (a metric). */
  readonly onDepth?: (depth: number) => void;
}

/** A queue of string keys for a pool of workers. */
export class WorkQueue {
  private readonly ready: string[] = [];
  /** Keys that need processing: waiting in `ready`, or added again while being processed. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  /** Keys added urgently while being processed: queued first again once their worker is done. */
  private readonly urgent = new Set<string>();
  private readonly delayed = new Map<
    string,
    { readonly at: number; readonly cancel: CancelTimer }
  >();
  private readonly failures = new Map<string, number>();
  private readonly takers: ((key: string | undefined) => void)[] = [];
  private readonly idleWaiters: (() => void)[] = [];
  private paused = false;
  private closed = false;

  constructor(private readonly options: WorkQueueOptions) {}

  /** Keys waiting for a worker. */
  get depth(): number {
    return this.ready.length;
  }

  /** Keys being processed now. */
  get inFlight(): number {
    return this.processing.size;
  }

  /** Queues `key` unless it is already waiting. Does nothing once shut down. */
  add(key: string): void {
    if (this.closed || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (!this.processing.has(key)) this.enqueue(key);
  }

  /**
   * Queues `key` ahead of every other waiting key (moving it to the front if it is waiting
   * already): for work that must not wait its turn behind a backlog. Does nothing once shut down.
   */
  addUrgent(key: string): void {
    if (this.closed) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      this.urgent.add(key);
      return;
    }
    if (this.dirty.has(key)) {
      const at = this.ready.indexOf(key);
      if (at > 0) {
        this.ready.splice(at, 1);
        this.ready.unshift(key);
      }
      return;
    }
    this.dirty.add(key);
    this.enqueue(key, true);
  }

  /** Adds `key` after `ms`; of several delayed adds of one key, the soonest wins. */
  addAfter(key: string, ms: number): void {
    if (this.closed) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.options.clock.now() + ms;
    const pending = this.delayed.get(key);
    if (pending !== undefined) {
      if (pending.at <= at) return;
      pending.cancel();
    }
    const cancel = this.options.clock.setTimer(ms, () => {
      this.delayed.delete(key);
      this.add(key);
    });
    this.delayed.set(key, { at, cancel });
  }

  /**
   * Adds `key` after its next backoff delay (one more failure counted).
   * @returns the delay chosen
   */
  addRateLimited(key: string): number {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    const ms = backoffDelay(failures, this.options.backoff, this.options.random);
    this.addAfter(key, ms);
    return ms;
  }

  /** Forgets the failures of `key`, so its next backoff starts again from the base delay. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Failures counted for `key` since it was last forgotten. */
  failuresOf(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /**
   * The next key for a worker, which must call `done(key)` when finished. Waits while the queue
   * is empty or paused; resolves undefined once the queue is shut down.
   */
  get(): Promise<string | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    if (!this.paused && this.ready.length > 0) return Promise.resolve(this.take());
    return new Promise((resolve) => this.takers.push(resolve));
  }

  /** Ends the processing of `key`; if it was added meanwhile, it is queued again. */
  done(key: string): void {
    this.processing.delete(key);
    const urgent = this.urgent.delete(key);
    if (this.dirty.has(key) && !this.closed) this.enqueue(key, urgent);
    if (this.processing.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** Hands out no keys until `resume()` (keys keep being added and deduplicated). */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.serve();
  }

  /** Stops handing out keys and drops delayed adds; waiting `get()` calls resolve undefined. */
  shutDown(): void {
    this.closed = true;
    for (const { cancel } of this.delayed.values()) cancel();
    this.delayed.clear();
    for (const taker of this.takers.splice(0)) taker(undefined);
  }

  /** Resolves when no key is being processed (true), or after `ms` (false). */
  whenIdle(ms: number): Promise<boolean> {
    if (this.processing.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = (): void => {
        cancel();
        resolve(true);
      };
      const cancel = this.options.clock.setTimer(ms, () => {
        const index = this.idleWaiters.indexOf(wake);
        if (index >= 0) this.idleWaiters.splice(index, 1);
        resolve(false);
      });
      this.idleWaiters.push(wake);
    });
  }

  private enqueue(key: string, first = false): void {
    if (first) this.ready.unshift(key);
    else this.ready.push(key);
    this.serve();
    this.options.onDepth?.(this.ready.length);
  }

  private serve(): void {
    while (!this.paused && !this.closed && this.ready.length > 0 && this.takers.length > 0)
      this.takers.shift()!(this.take());
  }

  private take(): string {
    const key = this.ready.shift()!;
    this.dirty.delete(key);
    this.processing.add(key);
    this.options.onDepth?.(this.ready.length);
    return key;
  }
}

/**
 * Runs `workers` loops that take keys from `queue` and process them with `handle`, until the
 * queue is shut down. `handle` decides what happens to the key (requeue, backoff); an error it
 * throws is a bug of the caller and is passed to `onBug`.
 */
export function runWorkers(
  queue: WorkQueue,
  workers: number,
  handle: (key: string) => Promise<void>,
  onBug: (error: unknown, key: string) => void,
): Promise<void> {
  const loop = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        await handle(key);
      } catch (error) {
        onBug(error, key);
      } finally {
        queue.done(key);
      }
    }
  };
  return Promise.all(Array.from({ length: Math.max(1, workers) }, loop)).then(() => undefined);
}
