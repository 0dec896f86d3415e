/**
 * Fake time: it stands still and jumps ahead by every sleep. Give `now` to a simulated BMC as
 * well, so its BIOS jobs, mounts and conflict windows follow the skipped waits.
 */
export function skippingClock() {
  const start = Date.now();
  let skipped = 0;
  const sleeps: number[] = [];
  return {
    /** Every sleep asked for, in order. */
    sleeps,
    now: () => start + skipped,
    sleep: (ms: number) => {
      sleeps.push(ms);
      skipped += ms;
      return new Promise<void>((resolve) => setImmediate(resolve));
    },
  };
}
