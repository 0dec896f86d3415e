import type { CancelTimer, RuntimeClock } from '../../src/bmac/runtime/runtime-clock.js';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly callback: () => void;
}

/**
 * Fake time for the runtime: it stands still until a test calls `advance`, which fires the due
 * timers in order, letting promises settle after each one. `sleep` is a timer as well.
 */
export class ManualClock implements RuntimeClock {
  private time: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.setTimer(ms, resolve);
    });
  }

  setTimer(ms: number, callback: () => void): CancelTimer {
    const timer: Timer = { at: this.time + Math.max(0, ms), seq: this.seq++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Delays of the timers now pending, from now, soonest first. */
  pending(): number[] {
    return this.sorted().map((t) => t.at - this.time);
  }

  /** Moves time ahead by `ms`, firing every timer due on the way (and those they set). */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    await settle();
    for (;;) {
      const next = this.sorted()[0];
      if (next === undefined || next.at > end) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = next.at;
      next.callback();
      await settle();
    }
    this.time = end;
    await settle();
  }

  private sorted(): Timer[] {
    return [...this.timers].sort((a, b) => a.at - b.at || a.seq - b.seq);
  }
}

/** Lets pending promise callbacks and I/O callbacks run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
