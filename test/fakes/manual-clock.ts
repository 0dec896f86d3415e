import type { Clock } from '../../src/shared/clock.js';

/**
 * Fake time that moves only when a test says so. Sleepers wake in time order as `advance`
 * passes their moment, and everything they set off settles before time moves on.
 */
export class ManualClock implements Clock {
  private time: number;
  private sleepers: { at: number; wake: () => void }[] = [];

  constructor(start = Date.parse('2026-11-25T09:00:00Z')) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.sleepers.push({ at: this.time + Math.max(0, ms), wake: resolve });
    });
  }

  /** Moves time forward by `ms`, waking each sleeper at its moment. */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    await settle();
    for (;;) {
      const next = this.sleepers
        .filter((s) => s.at <= target)
        .reduce<number | undefined>(
          (min, s) => (min === undefined || s.at < min ? s.at : min),
          undefined,
        );
      if (next === undefined) break;
      this.time = next;
      const due = this.sleepers.filter((s) => s.at <= next);
      this.sleepers = this.sleepers.filter((s) => s.at > next);
      for (const sleeper of due) sleeper.wake();
      await settle();
    }
    this.time = target;
    await settle();
  }
}

/** Lets every promise chain that is ready run to its next wait. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
