/**
 * A token bucket limiting the rate of writes toward the API server, as client-go's QPS/burst:
 * `burst` writes may go at once, then `qps` a second. Waiters are served first come, first
 * served, so a busy controller cannot starve another.
 */
import type { CancelTimer, RuntimeClock } from './runtime-clock.js';

/** Options of TokenBucket. */
export interface TokenBucketOptions {
  /** Tokens added per second. */
  readonly qps: number;
  /** Most tokens held at once (and at the start). */
  readonly burst: number;
  readonly clock: RuntimeClock;
}

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/** Hands out tokens at a steady rate. */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly waiters: Waiter[] = [];
  private cancelTimer: CancelTimer | undefined;

  constructor(private readonly options: TokenBucketOptions) {
    if (!(options.qps > 0) || !(options.burst >= 1))
      throw new RangeError('a token bucket needs qps > 0 and burst >= 1');
    this.tokens = options.burst;
    this.last = options.clock.now();
  }

  /** Callers now waiting for a token. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Resolves when a token is taken; rejects with `signal.reason` if `signal` aborts first (the
   * token is then not used up).
   */
  take(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    this.refill();
    if (this.waiters.length === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(signal?.reason as Error);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiters.push(waiter);
      this.schedule();
    });
  }

  private refill(): void {
    const now = this.options.clock.now();
    this.tokens = Math.min(
      this.options.burst,
      this.tokens + ((now - this.last) * this.options.qps) / 1000,
    );
    this.last = now;
  }

  private schedule(): void {
    if (this.cancelTimer !== undefined || this.waiters.length === 0) return;
    const ms = Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.options.qps));
    this.cancelTimer = this.options.clock.setTimer(ms, () => {
      this.cancelTimer = undefined;
      this.refill();
      while (this.waiters.length > 0 && this.tokens >= 1) {
        const waiter = this.waiters.shift()!;
        waiter.signal?.removeEventListener('abort', waiter.onAbort);
        this.tokens -= 1;
        waiter.resolve();
      }
      this.schedule();
    });
  }
}
