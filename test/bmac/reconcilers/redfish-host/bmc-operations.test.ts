import { describe, expect, it } from 'vitest';
import { BmcOperations } from '../../../../src/bmac/reconcilers/redfish-host/index.js';

/** An operation that runs until released, counting how many run at once. */
function gate() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { done, release };
}

describe('BMC operations', () => {
  it('run at most `concurrency` at once, the rest in order as slots free up', async () => {
    const finished: string[] = [];
    const ops = new BmcOperations({ concurrency: 2, onFinished: (key) => finished.push(key) });
    const gates = new Map<string, ReturnType<typeof gate>>();
    let running = 0;
    let peak = 0;
    for (const key of ['a', 'b', 'c', 'd']) {
      const g = gate();
      gates.set(key, g);
      ops.start(key, 'register', async () => {
        peak = Math.max(peak, ++running);
        await g.done;
        running--;
        return key;
      });
    }
    expect(running).toBe(2);
    gates.get('a')!.release();
    gates.get('b')!.release();
    gates.get('c')!.release();
    gates.get('d')!.release();
    await ops.idle();
    expect(peak).toBe(2);
    expect(finished).toEqual(['a', 'b', 'c', 'd']);
    expect(ops.take('c')).toEqual({ kind: 'register', outcome: { ok: true, value: 'c' } });
    expect(ops.take('c')).toBeUndefined();
  });

  it('an urgent operation (an eject before a reboot) runs at once behind a full queue of boots', async () => {
    const ops = new BmcOperations({ concurrency: 1 });
    const boots = [gate(), gate()];
    const started: string[] = [];
    boots.forEach((g, i) =>
      ops.start(`boot-${String(i)}`, 'provision', async () => {
        started.push(`boot-${String(i)}`);
        await g.done;
      }),
    );
    const eject = gate();
    ops.start(
      'rebooting',
      'detach',
      async () => {
        started.push('rebooting');
        await eject.done;
      },
      true,
    );
    expect(started).toEqual(['boot-0', 'rebooting']);
    // A second urgent one waits only for the urgent lane, ahead of the queued boot.
    ops.start(
      'rebooting-2',
      'detach',
      () => {
        started.push('rebooting-2');
        return Promise.resolve();
      },
      true,
    );
    eject.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(['boot-0', 'rebooting', 'rebooting-2']);
    for (const g of boots) g.release();
    await ops.idle();
    expect(started).toEqual(['boot-0', 'rebooting', 'rebooting-2', 'boot-1']);
  });

  it('keep one operation per host: a second start waits until the outcome was taken', async () => {
    const ops = new BmcOperations();
    let runs = 0;
    expect(ops.start('a', 'provision', () => Promise.resolve(++runs))).toBe(true);
    expect(ops.start('a', 'provision', () => Promise.resolve(++runs))).toBe(false);
    await ops.idle();
    expect(ops.start('a', 'provision', () => Promise.resolve(++runs))).toBe(false);
    expect(ops.take('a')?.outcome).toEqual({ ok: true, value: 1 });
    expect(ops.start('a', 'provision', () => Promise.reject(new Error('BMC down')))).toBe(true);
    await ops.idle();
    expect(ops.take('a')?.outcome).toMatchObject({ ok: false, error: { message: 'BMC down' } });
    expect(runs).toBe(1);
  });

  it('drop an aborted operation’s outcome, and start nothing after stop', async () => {
    const woken: string[] = [];
    const ops = new BmcOperations({ concurrency: 1, onFinished: (key) => woken.push(key) });
    const g = gate();
    ops.start('a', 'provision', async (signal) => {
      await Promise.race([
        g.done,
        new Promise((resolve) => {
          signal.addEventListener('abort', resolve);
        }),
      ]);
      return 'a';
    });
    ops.start('b', 'register', () => Promise.resolve('b'));
    ops.abort('b');
    expect(ops.pending('b')).toBeUndefined();
    await ops.stop();
    expect(ops.take('a')).toBeUndefined();
    expect(ops.start('c', 'register', () => Promise.resolve('c'))).toBe(false);
    expect(woken.sort()).toEqual(['a', 'b']);
  });
});
