/**
 * BMC work, off the reconcile workers. A Redfish operation takes seconds on a good BMC and
 * minutes on a bad one (ironic waits 60 s for a power change, sushy retries for ~100 s), so a
 * reconcile pass only *starts* one here and returns; the operation runs with bounded
 * concurrency, at most one per host, and its outcome waits for the next pass of its host,
 * which writes the status. One dead BMC thus holds one slot for a while, never a worker, and
 * never another host's turn for longer than the slot it holds. Urgent operations (the media of
 * a host about to reboot into its disk) have a lane of their own: a queue of boots never delays
 * them, since a late one lets the host boot the ISO again.
 */

/** How an operation ended. */
export type OperationOutcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

/** A finished operation waiting to be taken by its host's next reconcile pass. */
export interface FinishedOperation<T = unknown> {
  readonly kind: string;
  readonly outcome: OperationOutcome<T>;
}

/** Options of {@link BmcOperations}. */
export interface BmcOperationsOptions {
  /** Operations running at once, over all hosts. @default 16 */
  readonly concurrency?: number;
  /** Called when an operation of `key` has ended (or was aborted), so its host is looked at again. */
  readonly onFinished?: (key: string) => void;
}

interface Entry {
  readonly kind: string;
  readonly run: (signal: AbortSignal) => Promise<unknown>;
  readonly abort: AbortController;
  readonly urgent: boolean;
  state: 'queued' | 'running';
}

/** Runs BMC operations keyed by host, one at a time per host, `concurrency` at a time overall. */
export class BmcOperations {
  private readonly concurrency: number;
  private readonly entries = new Map<string, Entry>();
  private readonly queue: string[] = [];
  private readonly urgentQueue: string[] = [];
  private readonly finished = new Map<string, FinishedOperation>();
  private running = 0;
  private runningUrgent = 0;
  private stopped = false;
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly options: BmcOperationsOptions = {}) {
    this.concurrency = Math.max(1, options.concurrency ?? 16);
  }

  /** The kind of the operation queued or running for `key`, if any. */
  pending(key: string): string | undefined {
    return this.entries.get(key)?.kind;
  }

  /**
   * Queues `run` for `key` unless an operation of `key` is queued, running, or finished and not
   * yet taken (single flight: the caller looks again on its next pass).
   * @param urgent run in the urgent lane: its own `concurrency` slots, ahead of every other
   * @returns whether it was queued
   */
  start(
    key: string,
    kind: string,
    run: (signal: AbortSignal) => Promise<unknown>,
    urgent = false,
  ): boolean {
    if (this.stopped || this.entries.has(key) || this.finished.has(key)) return false;
    this.entries.set(key, { kind, run, abort: new AbortController(), urgent, state: 'queued' });
    (urgent ? this.urgentQueue : this.queue).push(key);
    this.pump();
    return true;
  }

  /** The finished operation of `key`, if there is one, left in place. */
  finishedOf(key: string): FinishedOperation | undefined {
    return this.finished.get(key);
  }

  /** Removes and returns the finished operation of `key`, if there is one. */
  take(key: string): FinishedOperation | undefined {
    const done = this.finished.get(key);
    this.finished.delete(key);
    return done;
  }

  /** Aborts the operation of `key` (queued: dropped; running: its signal fires). */
  abort(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.abort.abort(new Error('operation cancelled'));
    if (entry.state === 'queued') {
      this.entries.delete(key);
      const queue = entry.urgent ? this.urgentQueue : this.queue;
      queue.splice(queue.indexOf(key), 1);
      this.settle();
      this.options.onFinished?.(key);
    }
  }

  /** Aborts everything and resolves when no operation runs any more. Nothing starts after. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const key of [...this.entries.keys()]) this.abort(key);
    await this.idle();
  }

  /** Resolves when nothing is queued or running (for tests and shutdown). */
  idle(): Promise<void> {
    if (this.entries.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private pump(): void {
    while (this.runningUrgent < this.concurrency && this.urgentQueue.length > 0)
      this.run(this.urgentQueue.shift()!);
    while (this.running < this.concurrency && this.queue.length > 0) this.run(this.queue.shift()!);
  }

  private run(key: string): void {
    const entry = this.entries.get(key)!;
    entry.state = 'running';
    if (entry.urgent) this.runningUrgent++;
    else this.running++;
    void this.execute(key, entry);
  }

  private async execute(key: string, entry: Entry): Promise<void> {
    let outcome: OperationOutcome<unknown>;
    try {
      outcome = { ok: true, value: await entry.run(entry.abort.signal) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (entry.urgent) this.runningUrgent--;
    else this.running--;
    this.entries.delete(key);
    if (!entry.abort.signal.aborted) this.finished.set(key, { kind: entry.kind, outcome });
    this.pump();
    this.settle();
    // Aborted ones too: the host's next pass decides what follows (the deprovision of a
    // deleted host whose boot was cut short).
    this.options.onFinished?.(key);
  }

  private settle(): void {
    if (this.entries.size > 0) return;
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}
