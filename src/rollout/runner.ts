/**
 * The rollout runner: holds a rollout's Lease, then loops until the rollout is finished (or the
 * runner is stopped): read the Rollout, let the target catch up with releases recorded but not
 * acted on, decide a step (progress.ts) from what the hub shows of the sites, write the status
 * with the resourceVersion read, act on the step's release, record that it acted.
 *
 * Crash safety: a release is written to the status (`released`) before the target acts and
 * confirmed (`applied`) after, so a runner killed between the two leaves `applied < released`,
 * and the next runner acts on those sites again (targets are idempotent) before deciding
 * anything new. Two runners: the Lease (leader election of src/bmac/runtime) lets one act; a
 * second one that finds the Lease renewed by a live holder gives up with the holder's identity.
 * A runner that loses its Lease stops writing at once.
 */
import { LeaderElector } from '../bmac/runtime/leader-election.js';
import { delay } from '../bmac/runtime/runtime-clock.js';
import type { RuntimeClock } from '../bmac/runtime/runtime-clock.js';
import type { LeaseClient } from '../kube/index.js';
import { SiteForgeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { step } from './progress.js';
import { isFinished, rolloutKey } from './rollout-resource.js';
import type { Rollout, RolloutStatus, WaveStatus } from './rollout-resource.js';
import { isConflict } from './rollout-store.js';
import type { RolloutStore } from './rollout-store.js';
import type { SiteObserver } from './site-observer.js';
import type { Preparation, RolloutTarget } from './target.js';

/** Another runner drives the rollout. */
export class RolloutHeldError extends SiteForgeError {
  constructor(
    readonly rollout: string,
    readonly holder: string,
  ) {
    super(
      'ROLLOUT_HELD',
      `rollout ${rollout} is driven by another runner (${holder}), which keeps renewing its lease; stop that runner first, or let it finish`,
    );
  }
}

/** The runner lost its Lease (the hub was unreachable for longer than the renew deadline). */
export class RolloutLeaseLostError extends SiteForgeError {
  constructor(rollout: string) {
    super(
      'ROLLOUT_LEASE_LOST',
      `lost the lease of rollout ${rollout} (the hub did not answer in time); stopped driving it. Run the runner again to resume where it stopped`,
    );
  }
}

/** The Rollout was deleted while the runner drove it. */
export class RolloutGoneError extends SiteForgeError {
  constructor(rollout: string) {
    super('ROLLOUT_GONE', `rollout ${rollout} was deleted; stopped`);
  }
}

/** Lease timing of a runner. */
export interface LeaseTiming {
  /** @default 15_000 */
  readonly leaseDurationMs?: number;
  /** @default 10_000 */
  readonly renewDeadlineMs?: number;
  /** @default 2_000 */
  readonly retryPeriodMs?: number;
}

/** Options of runRollout. */
export interface RunnerOptions {
  readonly namespace: string;
  readonly name: string;
  readonly store: RolloutStore;
  readonly leases: LeaseClient;
  readonly target: RolloutTarget;
  readonly observer: SiteObserver;
  /** Unique among runners, e.g. `host_pid_random`. */
  readonly identity: string;
  readonly clock: RuntimeClock;
  readonly log: Logger;
  /** How often the runner looks at the sites and the Rollout. @default 10_000 */
  readonly pollIntervalMs?: number;
  readonly lease?: LeaseTiming;
  /** Stops the runner (SIGTERM): it finishes the write in hand and releases the Lease. */
  readonly signal?: AbortSignal;
  /** Told of each status written, and of the target's preparation. */
  readonly onStatus?: (rollout: Rollout, previous: RolloutStatus | undefined) => void;
  readonly onPrepared?: (preparation: Preparation) => void;
}

/** How a run ended. */
export type RunOutcome =
  | { readonly kind: 'finished'; readonly rollout: Rollout }
  | { readonly kind: 'stopped'; readonly rollout: Rollout | undefined };

/** Name of the Lease that guards a rollout. */
export function leaseName(rolloutName: string): string {
  return `siteforge-rollout-${rolloutName}`.slice(0, 253);
}

/**
 * Drives one rollout until it is finished or `signal` stops the runner.
 * @throws RolloutHeldError, RolloutLeaseLostError, RolloutGoneError, and the target's errors
 */
export async function runRollout(options: RunnerOptions): Promise<RunOutcome> {
  const { namespace, name, clock, log } = options;
  const key = `${namespace}/${name}`;
  const timing = {
    leaseDurationMs: options.lease?.leaseDurationMs ?? 15_000,
    renewDeadlineMs: options.lease?.renewDeadlineMs ?? 10_000,
    retryPeriodMs: options.lease?.retryPeriodMs ?? 2_000,
  };
  const elector = new LeaderElector({
    leases: options.leases,
    namespace,
    name: leaseName(name),
    identity: options.identity,
    ...timing,
    clock,
    log: log.child({ lease: leaseName(name) }),
  });
  const lost = new AbortController();
  const stopped = options.signal ?? new AbortController().signal;
  elector.onChange((leader) => {
    if (!leader) lost.abort();
  });
  elector.start();
  try {
    await takeLease(elector, options, timing, stopped);
    if (stopped.aborted) return { kind: 'stopped', rollout: undefined };
    log.info({ rollout: key, identity: options.identity }, 'holding the rollout');
    const drive = new Driver(options, () => {
      if (lost.signal.aborted) throw new RolloutLeaseLostError(key);
    });
    return await drive.run(AbortSignal.any([stopped, lost.signal]));
  } finally {
    options.observer.stop();
    await options.target.close?.();
    await elector.stop();
  }
}

/** Waits for the Lease; gives up when a live runner keeps it. */
async function takeLease(
  elector: LeaderElector,
  options: RunnerOptions,
  timing: Required<LeaseTiming>,
  stopped: AbortSignal,
): Promise<void> {
  // A dead holder's lease expires leaseDuration after this runner first saw it, and the elector
  // takes it at its next poll; a holder still renewing after that is alive.
  const deadline = options.clock.now() + timing.leaseDurationMs + 2 * timing.retryPeriodMs;
  while (!elector.isLeader()) {
    if (stopped.aborted) return;
    if (options.clock.now() >= deadline) {
      const lease = await options.leases
        .get(options.namespace, leaseName(options.name))
        .catch(() => undefined);
      throw new RolloutHeldError(
        `${options.namespace}/${options.name}`,
        lease?.spec.holderIdentity ?? 'unknown',
      );
    }
    await delay(options.clock, Math.min(250, timing.retryPeriodMs), stopped);
  }
}

/** The loop of a runner that holds the rollout. */
class Driver {
  private prepared = false;
  private readonly key: string;

  constructor(
    private readonly options: RunnerOptions,
    /** Throws when the Lease is lost: called before every write. */
    private readonly mustHold: () => void,
  ) {
    this.key = `${options.namespace}/${options.name}`;
  }

  async run(signal: AbortSignal): Promise<RunOutcome> {
    const { observer, clock, log } = this.options;
    await observer.start();
    let rollout: Rollout | undefined;
    while (!signal.aborted) {
      this.mustHold();
      rollout = await this.read();
      if (!this.prepared) {
        rollout = await this.prepare(rollout);
        this.prepared = true;
      }
      rollout = await this.catchUp(rollout);
      const previous = rollout.status;
      const decided = step(
        rollout.spec,
        previous,
        (site, removal) => observer.observe(site, removal),
        clock.now(),
      );
      const status: RolloutStatus = {
        ...decided.status,
        runner: this.options.identity,
        ...(rollout.generation !== undefined && { observedGeneration: rollout.generation }),
      };
      if (!sameStatus(status, previous)) {
        try {
          this.mustHold();
          rollout = await this.options.store.updateStatus(rollout, status);
        } catch (err) {
          if (!isConflict(err)) throw err;
          log.debug({ rollout: this.key }, 'the Rollout changed meanwhile; reading it again');
          continue;
        }
        this.options.onStatus?.(rollout, previous);
      }
      if (decided.release) rollout = await this.catchUp(rollout);
      if (isFinished(status.phase)) return { kind: 'finished', rollout };
      await delay(clock, this.options.pollIntervalMs ?? 10_000, signal);
    }
    this.mustHold();
    return { kind: 'stopped', rollout };
  }

  private async read(): Promise<Rollout> {
    const rollout = await this.options.store.get(this.options.namespace, this.options.name);
    if (rollout === undefined) throw new RolloutGoneError(this.key);
    return rollout;
  }

  /** Lets the target hold back what is not released, once per runner. */
  private async prepare(rollout: Rollout): Promise<Rollout> {
    const released = new Set<string>();
    rollout.spec.waves.forEach((wave, i) => {
      for (const site of wave.sites.slice(0, rollout.status?.waves[i]?.released ?? 0))
        released.add(site);
    });
    this.mustHold();
    const preparation = await this.options.target.prepare(rollout, released);
    this.options.onPrepared?.(preparation);
    const strategy = preparation.syncStrategy;
    if (strategy === undefined || rollout.status?.syncStrategy === strategy) return rollout;
    for (;;) {
      const status: RolloutStatus = {
        ...(rollout.status ?? { phase: 'Pending', currentWave: 0, waves: [] }),
        syncStrategy: strategy,
      };
      try {
        this.mustHold();
        return await this.options.store.updateStatus(rollout, status);
      } catch (err) {
        if (!isConflict(err)) throw err;
        rollout = await this.read();
      }
    }
  }

  /** Acts on every release recorded but not acted on, and records that it did. */
  private async catchUp(rollout: Rollout): Promise<Rollout> {
    for (let i = 0; i < rollout.spec.waves.length; i++) {
      for (;;) {
        const ws = rollout.status?.waves[i];
        const wave = rollout.spec.waves[i]!;
        if (ws === undefined || ws.applied >= ws.released) break;
        const sites = wave.sites.slice(ws.applied, ws.released);
        const removed = new Set(wave.removed);
        this.mustHold();
        await this.options.target.release(rollout, {
          wave: i,
          sites: sites.filter((s) => !removed.has(s)),
          removals: sites.filter((s) => removed.has(s)),
        });
        this.options.log.info(
          { rollout: this.key, wave: wave.name, sites: sites.length },
          `released ${String(sites.length)} site(s) of wave ${wave.name}`,
        );
        try {
          this.mustHold();
          rollout = await this.options.store.updateStatus(
            rollout,
            withWave(rollout.status!, i, { applied: ws.released }),
          );
          break;
        } catch (err) {
          if (!isConflict(err)) throw err;
          // Someone wrote meanwhile (a pause): read again; acting again is harmless.
          rollout = await this.read();
        }
      }
    }
    return rollout;
  }
}

function withWave(
  status: RolloutStatus,
  index: number,
  change: Partial<WaveStatus>,
): RolloutStatus {
  return {
    ...status,
    waves: status.waves.map((w, i) => (i === index ? { ...w, ...change } : w)),
  };
}

/** Whether a status write would change anything. */
function sameStatus(a: RolloutStatus, b: RolloutStatus | undefined): boolean {
  return b !== undefined && canonical(a) === canonical(b);
}

/** JSON with keys sorted: the API server does not keep the order of keys it was sent. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** `rollout ns/name`, for messages. */
export function describeRollout(rollout: Rollout): string {
  return `rollout ${rolloutKey(rollout)}`;
}
