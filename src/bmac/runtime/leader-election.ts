/**
 * Leader election on a coordination.k8s.io/v1 Lease, after client-go's leaderelection package,
 * so that of several controller replicas exactly one acts while the others stand by.
 *
 * A candidate polls the Lease every retry period. It takes the Lease when there is none, when it
 * is released (no holder), or when the holder has not changed it for `leaseDurationSeconds`,
 * measured on the candidate's own clock from the moment it saw the last change (never from the
 * timestamps in the Lease, so clock skew between machines does not matter). The leader renews
 * every retry period. Every write carries the Lease's resourceVersion, so of two candidates that
 * race only one wins.
 *
 * Safety: the leader stops acting (onChange(false)) once `renewDeadline` has passed since it
 * began its last successful renewal, even while a request hangs. That write reached the server
 * after it began, and no other candidate takes the Lease before `leaseDuration` after it saw
 * that write; as renewDeadline < leaseDuration, the old leader has stopped before a new one
 * starts, with `leaseDuration - renewDeadline` to spare for clock drift and for the work in
 * hand to notice. (client-go measures the deadline from the start of the renewal round, up to a
 * retry period later; this is the stricter reading.)
 *
 * A graceful stop releases the Lease as client-go's ReleaseOnCancel does (no holder,
 * leaseDurationSeconds 1), so a standby takes over at its next poll instead of waiting out the
 * lease. A leader that died without releasing is replaced within leaseDuration plus up to two
 * retry periods (the standby's polls before and after the expiry). Unlike client-go there is no
 * jitter on the retry period: a handful of replicas do not need it, and the timing stays exact.
 */
import type { Lease, LeaseClient, LeaseSpec } from '../../kube/index.js';
import { KubeApiError, KubeApiErrorCode } from '../../kube/index.js';
import { SiteForgeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { LeaderGate } from './contract.js';
import { delay, systemRuntimeClock } from './runtime-clock.js';
import type { RuntimeClock } from './runtime-clock.js';

/** Options of LeaderElector. */
export interface LeaderElectorOptions {
  readonly leases: LeaseClient;
  /** Namespace of the Lease. */
  readonly namespace: string;
  /** Name of the Lease (controller-runtime's leader election ID). */
  readonly name: string;
  /** This replica's identity, unique among the candidates (e.g. `hostname_uuid`). */
  readonly identity: string;
  /** How long a Lease holds without renewal; whole seconds. @default 15_000 (client-go's) */
  readonly leaseDurationMs?: number;
  /** How long the leader keeps acting without a successful renewal. @default 10_000 */
  readonly renewDeadlineMs?: number;
  /** How often candidates poll and the leader renews. @default 2_000 */
  readonly retryPeriodMs?: number;
  /** Its timers are cancelled when no longer needed. @default systemRuntimeClock */
  readonly clock?: RuntimeClock;
  readonly log?: Logger;
}

/** Options of LeaderElector.stop. */
export interface StopOptions {
  /**
   * Release the Lease if this replica holds it, so a standby takes over at once. False leaves
   * it to expire, as a crash would. @default true
   */
  readonly release?: boolean;
}

/** The durations of a LeaderElector do not fit together. */
export class LeaderElectionConfigError extends SiteForgeError {
  constructor(message: string) {
    super('LEADER_ELECTION_CONFIG', message);
  }
}

/** What the Lease looked like when this replica last read or wrote it, and when it saw it change. */
interface Observed {
  readonly lease: Lease;
  /** This replica's clock when the spec was first seen as it is. */
  readonly at: number;
}

/** Leader election on one Lease; a LeaderGate. */
export class LeaderElector implements LeaderGate {
  private readonly leases: LeaseClient;
  private readonly namespace: string;
  private readonly name: string;
  private readonly identity: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: RuntimeClock;
  private readonly log: Logger | undefined;
  private readonly listeners = new Set<(leader: boolean) => void>();
  private leader = false;
  /** Whether an attempt has seen the Lease (or created it), so standby means standby. */
  private known = false;
  private observed: Observed | undefined;
  /** When the last successful acquisition or renewal began. */
  private renewedAt = 0;
  private abort = new AbortController();
  private running: Promise<void> | undefined;

  constructor(options: LeaderElectorOptions) {
    this.leases = options.leases;
    this.namespace = options.namespace;
    this.name = options.name;
    this.identity = options.identity;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.clock = options.clock ?? systemRuntimeClock;
    this.log = options.log;
    if (this.identity === '') throw new LeaderElectionConfigError('the identity is empty');
    if (!Number.isInteger(this.leaseDurationMs / 1000) || this.leaseDurationMs < 1000)
      throw new LeaderElectionConfigError('the lease duration must be a whole number of seconds');
    if (this.retryPeriodMs <= 0)
      throw new LeaderElectionConfigError('the retry period must be positive');
    if (this.renewDeadlineMs >= this.leaseDurationMs)
      throw new LeaderElectionConfigError(
        'the renew deadline must be shorter than the lease duration, or two leaders could act at once',
      );
    if (this.renewDeadlineMs <= this.retryPeriodMs)
      throw new LeaderElectionConfigError(
        'the renew deadline must be longer than the retry period, or one failed renewal loses the lease',
      );
  }

  isLeader(): boolean {
    return this.leader;
  }

  isKnown(): boolean {
    return this.known;
  }

  /** @returns a function that removes the listener */
  onChange(listener: (leader: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts campaigning; returns at once. */
  start(): void {
    if (this.running) throw new Error('the leader elector runs already');
    this.abort = new AbortController();
    this.running = this.run(this.abort.signal);
  }

  /**
   * Stops campaigning. A leader first stops acting (onChange(false)), then releases the Lease
   * unless told not to. Stop the work the gate guards before calling this, so the next leader
   * cannot start while it still runs.
   */
  async stop(options: StopOptions = {}): Promise<void> {
    if (!this.running) return;
    this.abort.abort();
    await this.running;
    this.running = undefined;
    if (!this.leader) return;
    this.setLeader(false, 'stopped');
    if (options.release ?? true) await this.release();
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      // Candidate: poll until the Lease is ours.
      for (;;) {
        const started = this.clock.now();
        const won = await this.unlessAborted(this.tryAcquireOrRenew(started), signal);
        if (won === undefined) return;
        if (won) {
          this.renewedAt = started;
          break;
        }
        if (!(await this.wait(this.retryPeriodMs, signal))) return;
      }
      this.setLeader(true, 'acquired the lease');
      // Leader: renew every retry period until a renewal misses its deadline.
      for (;;) {
        if (!(await this.wait(this.retryPeriodMs, signal))) return;
        const renewed = await this.renew(signal);
        if (renewed === undefined) return;
        if (!renewed) {
          this.setLeader(
            false,
            `could not renew the lease within ${String(this.renewDeadlineMs)} ms`,
          );
          break;
        }
      }
    }
  }

  /** Retries the renewal until it succeeds or the deadline passes; undefined when stopped. */
  private async renew(signal: AbortSignal): Promise<boolean | undefined> {
    const deadline = this.renewedAt + this.renewDeadlineMs;
    for (;;) {
      const started = this.clock.now();
      if (started >= deadline) return false;
      let cancel = (): void => undefined;
      const missed = new Promise<'deadline'>((resolve) => {
        cancel = this.clock.setTimer(deadline - started, () => {
          resolve('deadline');
        });
      });
      const outcome = await this.unlessAborted(
        Promise.race([this.tryAcquireOrRenew(started), missed]),
        signal,
      );
      cancel();
      if (outcome === undefined) return undefined;
      if (outcome === 'deadline') return false;
      if (outcome) {
        this.renewedAt = started;
        return true;
      }
      const left = deadline - this.clock.now();
      if (left <= 0) return false;
      if (!(await this.wait(Math.min(this.retryPeriodMs, left), signal))) return undefined;
    }
  }

  /**
   * One attempt to take or keep the Lease, as client-go's tryAcquireOrRenew: true when this
   * replica holds it now. Never throws: a failed request is a failed attempt.
   */
  private async tryAcquireOrRenew(now: number): Promise<boolean> {
    const observed = this.observed;
    // The leader writes over the Lease it last wrote, one request, as long as no one else did.
    if (this.leader && observed?.lease.spec.holderIdentity === this.identity) {
      try {
        this.observe(await this.leases.replace(this.claim(observed.lease, now)));
        return true;
      } catch (err) {
        this.log?.debug({ err: describe(err) }, 'optimistic renewal failed; reading the lease');
      }
    }
    try {
      const current = await this.leases.get(this.namespace, this.name);
      if (current === undefined) {
        this.observe(await this.leases.create(this.claim(undefined, now)));
        return true;
      }
      this.observe(current);
      const holder = current.spec.holderIdentity ?? '';
      const durationMs = (current.spec.leaseDurationSeconds ?? this.leaseDurationMs / 1000) * 1000;
      if (holder !== '' && holder !== this.identity && this.observed!.at + durationMs > now)
        return false;
      this.observe(await this.leases.replace(this.claim(current, now)));
      if (holder !== this.identity)
        this.log?.info(
          { previousHolder: holder === '' ? undefined : holder },
          holder === '' ? 'took the released lease' : 'took the expired lease',
        );
      return true;
    } catch (err) {
      if (err instanceof KubeApiError && err.code === KubeApiErrorCode.Conflict)
        this.log?.debug('another candidate wrote the lease first');
      else this.log?.warn({ err: describe(err) }, 'lease request failed');
      return false;
    }
  }

  /** The Lease with this replica as holder at `now`; keeps acquireTime while it stays holder. */
  private claim(current: Lease | undefined, now: number): Lease {
    const time = new Date(now).toISOString();
    const kept = current?.spec.holderIdentity === this.identity;
    const transitions = current?.spec.leaseTransitions ?? 0;
    return {
      namespace: this.namespace,
      name: this.name,
      ...(current?.resourceVersion !== undefined && { resourceVersion: current.resourceVersion }),
      spec: {
        holderIdentity: this.identity,
        leaseDurationSeconds: this.leaseDurationMs / 1000,
        acquireTime: kept ? (current.spec.acquireTime ?? time) : time,
        renewTime: time,
        leaseTransitions: current === undefined ? 0 : kept ? transitions : transitions + 1,
      },
    };
  }

  /** Remembers the Lease; restarts its expiry clock when its spec changed. */
  private observe(lease: Lease): void {
    const before = this.observed;
    const changed = before === undefined || !sameSpec(before.lease.spec, lease.spec);
    this.observed = { lease, at: changed ? this.clock.now() : before.at };
    this.known = true;
  }

  /** Gives the Lease up as client-go's ReleaseOnCancel: no holder, expiring in one second. */
  private async release(): Promise<void> {
    let failure: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      const lease = this.observed?.lease;
      if (lease?.spec.holderIdentity !== this.identity) return;
      const time = new Date(this.clock.now()).toISOString();
      try {
        this.observe(
          await this.leases.replace({
            ...lease,
            spec: {
              leaseDurationSeconds: 1,
              acquireTime: time,
              renewTime: time,
              leaseTransitions: lease.spec.leaseTransitions ?? 0,
            },
          }),
        );
        this.log?.info('released the lease');
        return;
      } catch (err) {
        failure = err;
        if (!(err instanceof KubeApiError && err.code === KubeApiErrorCode.Conflict)) break;
      }
      // A renewal abandoned by stop() may have landed since: read the Lease and try again.
      try {
        const current = await this.leases.get(this.namespace, this.name);
        if (current) this.observe(current);
      } catch (err) {
        failure = err;
        break;
      }
    }
    this.log?.warn(
      { err: describe(failure) },
      'could not release the lease; a standby takes it when it expires',
    );
  }

  private setLeader(leader: boolean, why: string): void {
    if (this.leader === leader) return;
    this.leader = leader;
    const fields = { lease: `${this.namespace}/${this.name}`, identity: this.identity };
    if (leader) this.log?.info(fields, `became leader: ${why}`);
    else this.log?.warn(fields, `stopped leading: ${why}`);
    for (const listener of this.listeners) {
      try {
        listener(leader);
      } catch (err) {
        this.log?.error({ err: describe(err) }, 'a leadership listener threw');
      }
    }
  }

  /** Waits `ms`; false when stopped first (the timer is cancelled then). */
  private async wait(ms: number, signal: AbortSignal): Promise<boolean> {
    await delay(this.clock, ms, signal);
    return !signal.aborted;
  }

  /** The promise's value, or undefined as soon as `signal` aborts. */
  private unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    return new Promise<T | undefined>((resolve, reject) => {
      const onAbort = (): void => {
        resolve(undefined);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }
}

function sameSpec(a: LeaseSpec, b: LeaseSpec): boolean {
  return (
    a.holderIdentity === b.holderIdentity &&
    a.leaseDurationSeconds === b.leaseDurationSeconds &&
    a.acquireTime === b.acquireTime &&
    a.renewTime === b.renewTime &&
    a.leaseTransitions === b.leaseTransitions
  );
}

/** An error as a log field: its message and code, never a response dump. */
function describe(err: unknown): { message: string; code?: string } {
  if (err instanceof SiteForgeError) return { message: err.message, code: err.code };
  return { message: err instanceof Error ? err.message : String(err) };
}
