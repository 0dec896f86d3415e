/**
 * The Manager runs controllers, after controller-runtime's: one informer per kind any controller
 * declares (in `for` or `watches`) fills the shared cache; informer events become keys of the
 * controllers' work queues (a primary object its own key, a watched object the keys `map()`
 * returns); workers call `reconcile` once every cache has synced, and only while this process
 * leads. A standby keeps its informers running (warm), so taking over costs no list. Losing
 * leadership aborts every in-flight pass at once through its signal and pauses the workers.
 */
import { setMaxListeners } from 'node:events';
import type { GroupVersionKind, KubeObject, RuntimeKubeClient } from '../../kube/index.js';
import { KubeApiError, KubeApiErrorCode } from '../../kube/index.js';
import { SiteForgeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { gvkKey, ObjectCache } from './cache.js';
import type { ObjectStore } from './cache.js';
import { requestKey, requestOf } from './contract.js';
import type {
  Controller,
  LeaderGate,
  ObjectWriter,
  ReconcileContext,
  Request,
} from './contract.js';
import { KubeEventRecorder } from './event-recorder.js';
import { Informer } from './informer.js';
import type { InformerEvent } from './informer.js';
import { RuntimeMetrics } from './metrics.js';
import type { ReconcileOutcome } from './metrics.js';
import { RateLimitedObjectWriter } from './object-writer.js';
import { systemRuntimeClock } from './runtime-clock.js';
import type { BackoffOptions, RuntimeClock } from './runtime-clock.js';
import { TokenBucket } from './token-bucket.js';
import { runWorkers, WorkQueue } from './work-queue.js';

/** Options of Manager. */
export interface ManagerOptions {
  readonly client: RuntimeKubeClient;
  /** The parent of every controller's logger. */
  readonly log: Logger;
  /** @default the system clock */
  readonly clock?: RuntimeClock;
  /** Give the same metrics to the client's `onRequest` to count API requests. @default new */
  readonly metrics?: RuntimeMetrics;
  /** Reconcile only while it says so. @default always (no election) */
  readonly leader?: LeaderGate;
  /** Watch only these namespaces. @default every namespace */
  readonly namespaces?: readonly string[];
  /** Reconcile every object again this often even without change. @default 3_600_000 (1 hour) */
  readonly resyncMs?: number;
  /** Workers per controller, unless the controller's options say otherwise. @default 2 */
  readonly workers?: number;
  /** Writes per second toward the API server, for all controllers together. @default 20 */
  readonly writeQps?: number;
  /** Writes allowed at once before `writeQps` applies. @default 40 */
  readonly writeBurst?: number;
  /** Event writes per second, for all controllers together. @default writeQps */
  readonly eventQps?: number;
  /** Event writes allowed at once before `eventQps` applies. @default writeBurst */
  readonly eventBurst?: number;
  /** Backoff of a key whose reconcile failed. @default base 100 ms, max 5 min, jitter 0.2 */
  readonly backoff?: BackoffOptions;
  /** Backoff of a broken watch. @default base 500 ms, max 30 s, jitter 0.2 */
  readonly informerBackoff?: BackoffOptions;
  /** Longest wait in stop() for in-flight passes to return. @default 30_000 */
  readonly shutdownTimeoutMs?: number;
  /** Server-side time limit of each watch, a random value in this range (s). @default [300, 600] */
  readonly watchTimeoutSeconds?: readonly [number, number];
  /** Source of jitter, in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/** Options of one controller in a Manager. */
export interface ControllerOptions {
  /** @default ManagerOptions.workers */
  readonly workers?: number;
}

/** Whether this process knows if it leads: `unknown` until the leader gate has decided. */
export type LeaderState = 'leader' | 'standby' | 'unknown';

/** What /readyz reports. */
export interface Readiness {
  /** Every informer has listed its kind once. */
  readonly synced: boolean;
  readonly leader: LeaderState;
  /** Synced and the leader state known: ready to lead or to stand by. */
  readonly ready: boolean;
}

/** Conflicts in a row a key retries at once before it backs off like any error. */
const IMMEDIATE_CONFLICT_RETRIES = 5;

/** A key failing with the same error is logged at warn every this many failures. */
const REPEATED_FAILURE_REMINDER = 10;

/** The reason of a pass's signal when leadership is lost. */
export class LeadershipLostError extends SiteForgeError {
  constructor() {
    super('LEADERSHIP_LOST', 'leadership was lost; the next leader takes over');
  }
}

/** The reason of a pass's signal when the manager stops. */
export class ManagerStoppingError extends SiteForgeError {
  constructor() {
    super('MANAGER_STOPPING', 'the controller manager is stopping');
  }
}

interface Runner {
  readonly controller: Controller;
  readonly queue: WorkQueue;
  readonly workers: number;
  readonly events: KubeEventRecorder;
  readonly log: Logger;
  readonly conflicts: Map<string, number>;
  /** The error of each key whose last pass failed (its first failure was logged as an error). */
  readonly failing: Map<string, string>;
  done?: Promise<void>;
}

/** Runs controllers against one API server. */
export class Manager {
  /** The informers' caches, as reconcilers read them. */
  readonly cache = new ObjectCache();
  readonly metrics: RuntimeMetrics;
  private readonly clock: RuntimeClock;
  private readonly runners: Runner[] = [];
  private readonly informers = new Map<string, Informer>();
  /** The label selector of each kind's informer (undefined: every object). */
  private readonly selectors = new Map<string, string | undefined>();
  /** Informers of kinds only observers asked for: not in the cache, not in readiness. */
  private readonly observers = new Map<string, Informer>();
  private readonly writes: TokenBucket;
  private readonly eventWrites: TokenBucket;
  private term = unboundedController();
  private leading: boolean;
  private synced = false;
  private started = false;
  private stopping: Promise<void> | undefined;
  private unsubscribe: () => void = () => undefined;
  private readonly actingHooks: (() => void)[] = [];

  constructor(private readonly options: ManagerOptions) {
    this.clock = options.clock ?? systemRuntimeClock;
    this.metrics = options.metrics ?? new RuntimeMetrics();
    this.writes = new TokenBucket({
      qps: options.writeQps ?? 20,
      burst: options.writeBurst ?? 40,
      clock: this.clock,
    });
    // A bucket of its own at the same rate, as controller-runtime's recorder has a client (and
    // a limiter) of its own from the same config: Events must not take reconcile writes' turns,
    // nor trail them. At 5 a second, the ~3 Events per booted host lagged minutes behind a
    // fleet's boot, and drained long after (the steady state's only requests).
    this.eventWrites = new TokenBucket({
      qps: options.eventQps ?? options.writeQps ?? 20,
      burst: options.eventBurst ?? options.writeBurst ?? 40,
      clock: this.clock,
    });
    this.leading = options.leader === undefined;
  }

  /** Adds a controller; all must be added before `start()`. */
  add(controller: Controller, options: ControllerOptions = {}): this {
    if (this.started) throw new SiteForgeError('RUNTIME_STARTED', 'add controllers before start()');
    if (this.runners.some((r) => r.controller.name === controller.name))
      throw new SiteForgeError('RUNTIME_DUPLICATE', `two controllers are named ${controller.name}`);
    const { name } = controller;
    const log = this.options.log.child({ controller: name });
    const queue = new WorkQueue({
      clock: this.clock,
      ...(this.options.backoff !== undefined && { backoff: this.options.backoff }),
      ...(this.options.random !== undefined && { random: this.options.random }),
      onDepth: (depth) => {
        this.metrics.queueDepth(name, depth);
      },
    });
    queue.pause();
    const events = new KubeEventRecorder({
      client: this.options.client,
      component: name,
      clock: this.clock,
      log,
      bucket: this.eventWrites,
    });
    this.runners.push({
      controller,
      queue,
      workers: options.workers ?? this.options.workers ?? 2,
      events,
      log,
      conflicts: new Map(),
      failing: new Map(),
    });
    this.informerFor(controller.for);
    for (const watch of controller.watches ?? []) this.informerFor(watch.gvk, watch.labelSelector);
    return this;
  }

  /**
   * Calls `listener` with every change the informer of `gvk` applies (the controllers' own
   * informer when one declared the kind): for read-only views of the hub, such as the fleet
   * dashboard, which must not list and watch it a second time. A kind no controller declared
   * gets an informer of its own, outside the cache and outside readiness (observersSynced
   * tells when it has listed). Add before `start()`.
   */
  observe(gvk: GroupVersionKind, listener: (event: InformerEvent) => void): void {
    if (this.started) throw new SiteForgeError('RUNTIME_STARTED', 'observe kinds before start()');
    const key = gvkKey(gvk);
    let informer = this.informers.get(key) ?? this.observers.get(key);
    if (informer === undefined) {
      // A kind no controller declared: watched for the observer alone, so a hub without its
      // CRD never keeps the controllers from becoming ready.
      informer = this.newInformer(gvk, new ObjectCache().storeFor(gvk));
      this.observers.set(key, informer);
    }
    informer.on(listener);
  }

  /** Whether the kinds observed (observe) beyond the controllers' have been listed. */
  observersSynced(): boolean {
    return [...this.observers.values()].every((i) => i.hasSynced());
  }

  /**
   * A writer for work outside a reconcile (the agent API registering a host): the reconcilers'
   * write budget, and aborted with the current leadership term.
   */
  writer(): ObjectWriter {
    return new RateLimitedObjectWriter(
      this.options.client,
      this.writes,
      this.term.signal,
      this.written,
    );
  }

  /** What a write answered goes into the cache at once (Informer.offer). */
  private readonly written = (object: KubeObject): void => {
    if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') return;
    this.informers.get(gvkKey({ apiVersion: object.apiVersion, kind: object.kind }))?.offer(object);
  };

  /**
   * Calls `hook` each time this replica starts acting (caches synced and leading), before any
   * worker runs: state kept in memory beside the cache (the assisted core's host records) is
   * rebuilt from the cache there, so no reconcile sees it half restored.
   */
  beforeActing(hook: () => void): void {
    this.actingHooks.push(hook);
  }

  /** Whether this replica may act now (leads, or runs without leader election) and has synced. */
  acting(): boolean {
    const { synced, leader } = this.readiness();
    return synced && leader === 'leader' && this.stopping === undefined;
  }

  /** Starts the informers, and the workers once every cache has synced. Returns at once. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const gate = this.options.leader;
    if (gate !== undefined) {
      this.leading = gate.isLeader();
      this.unsubscribe = gate.onChange((leader) => {
        this.leadershipChanged(leader);
      });
    }
    this.metrics.leading(this.leading);
    for (const runner of this.runners) {
      runner.done = runWorkers(
        runner.queue,
        runner.workers,
        (key) => this.reconcile(runner, key),
        (error, key) => {
          runner.log.error({ key, error: errorText(error) }, 'worker failed');
        },
      );
    }
    for (const informer of this.informers.values()) informer.start();
    for (const informer of this.observers.values()) informer.start();
    void Promise.all([...this.informers.values()].map((i) => i.whenSynced())).then(() => {
      this.synced = true;
      this.options.log.info({ kinds: this.informers.size }, 'caches synced');
      this.resumeIfLeading();
    });
  }

  /** Resolves once every cache has synced; rejects after `timeoutMs`. */
  async waitForSync(timeoutMs = 60_000): Promise<void> {
    const syncs = Promise.all([...this.informers.values()].map((i) => i.whenSynced()));
    let cancel: () => void = () => undefined;
    const timeout = new Promise<never>((_, reject) => {
      cancel = this.clock.setTimer(timeoutMs, () => {
        reject(
          new SiteForgeError(
            'RUNTIME_SYNC_TIMEOUT',
            `caches not synced after ${String(timeoutMs)} ms`,
          ),
        );
      });
    });
    try {
      await Promise.race([syncs, timeout]);
    } finally {
      cancel();
    }
  }

  /**
   * Asks the controller named `controller` to look at `request` now, as a watch event would: for
   * work that ends outside the API server (a BMC operation that finished off the workers).
   * `urgent` puts it ahead of the controller's backlog (work that must not wait its turn).
   */
  enqueue(controller: string, request: Request, urgent = false): void {
    const runner = this.runners.find((r) => r.controller.name === controller);
    if (runner === undefined)
      throw new SiteForgeError(
        'RUNTIME_UNKNOWN_CONTROLLER',
        `no controller is named ${controller}`,
      );
    const key = requestKey(request);
    if (urgent) runner.queue.addUrgent(key);
    else runner.queue.add(key);
  }

  /** What /readyz reports. */
  readiness(): Readiness {
    const synced = [...this.informers.values()].every((i) => i.hasSynced());
    const gate = this.options.leader;
    const leader: LeaderState =
      gate === undefined || this.leading ? 'leader' : gate.isKnown() ? 'standby' : 'unknown';
    return { synced, leader, ready: synced && leader !== 'unknown' && this.stopping === undefined };
  }

  /**
   * Stops taking keys, aborts the signal of every in-flight pass and waits for them to return
   * (at most `shutdownTimeoutMs`), then stops the informers and writes the Events still queued.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    const limit = this.options.shutdownTimeoutMs ?? 30_000;
    this.unsubscribe();
    for (const runner of this.runners) runner.queue.shutDown();
    this.term.abort(new ManagerStoppingError());
    const deadline = this.clock.now() + limit;
    for (const runner of this.runners) {
      const idle = await runner.queue.whenIdle(Math.max(0, deadline - this.clock.now()));
      if (!idle)
        runner.log.warn(
          { inFlight: runner.queue.inFlight, waitedMs: limit },
          'reconciles still running at shutdown; leaving them',
        );
    }
    for (const informer of this.informers.values()) informer.stop();
    for (const informer of this.observers.values()) informer.stop();
    await Promise.race([
      Promise.all(this.runners.map((r) => r.events.flush())),
      new Promise<void>((resolve) =>
        this.clock.setTimer(Math.max(0, deadline - this.clock.now()), resolve),
      ),
    ]);
  }

  private informerFor(gvk: GroupVersionKind, labelSelector?: string): void {
    const key = gvkKey(gvk);
    if (this.informers.has(key)) {
      if (this.selectors.get(key) !== labelSelector)
        throw new SiteForgeError(
          'RUNTIME_SELECTOR_MISMATCH',
          `controllers watch ${gvk.kind} with different label selectors (${this.selectors.get(key) ?? 'none'} and ${labelSelector ?? 'none'}); the cache holds one set of objects per kind`,
        );
      return;
    }
    this.selectors.set(key, labelSelector);
    const informer = this.newInformer(gvk, this.cache.storeFor(gvk), labelSelector);
    informer.on((event) => {
      this.dispatch(gvk, event);
    });
    this.informers.set(key, informer);
  }

  private newInformer(gvk: GroupVersionKind, store: ObjectStore, labelSelector?: string): Informer {
    return new Informer({
      client: this.options.client,
      gvk,
      store,
      ...(labelSelector !== undefined && { labelSelector }),
      clock: this.clock,
      log: this.options.log,
      ...(this.options.namespaces !== undefined && { namespaces: this.options.namespaces }),
      resyncMs: this.options.resyncMs ?? 3_600_000,
      ...(this.options.informerBackoff !== undefined && { backoff: this.options.informerBackoff }),
      ...(this.options.random !== undefined && { random: this.options.random }),
      ...(this.options.watchTimeoutSeconds !== undefined && {
        watchTimeoutSeconds: this.options.watchTimeoutSeconds,
      }),
      onRestart: (reason) => {
        this.metrics.informerRestart(gvk.kind, reason);
      },
    });
  }

  /** Turns an informer event into keys of the controllers that care. */
  private dispatch(gvk: GroupVersionKind, event: InformerEvent): void {
    const key = gvkKey(gvk);
    for (const runner of this.runners) {
      const { controller } = runner;
      if (gvkKey(controller.for) === key) runner.queue.add(requestKey(requestOf(event.object)));
      for (const watch of controller.watches ?? []) {
        if (gvkKey(watch.gvk) !== key) continue;
        if (event.type === 'update' && watch.onUpdate?.(event.object, event.previous) === false)
          continue;
        const objects = event.type === 'update' ? [event.object, event.previous] : [event.object];
        for (const object of objects) {
          try {
            for (const request of watch.map(object, this.cache))
              runner.queue.add(requestKey(request));
          } catch (error) {
            runner.log.error(
              { kind: gvk.kind, name: object.metadata.name, error: errorText(error) },
              'watch map failed',
            );
          }
        }
      }
    }
  }

  private leadershipChanged(leader: boolean): void {
    if (leader === this.leading || this.stopping !== undefined) return;
    this.leading = leader;
    this.metrics.leading(leader);
    if (leader) {
      this.options.log.info('leading: reconciling');
      this.term = unboundedController();
      this.resumeIfLeading();
      return;
    }
    this.options.log.warn('leadership lost: aborting in-flight reconciles and standing by');
    this.term.abort(new LeadershipLostError());
    for (const runner of this.runners) runner.queue.pause();
  }

  private resumeIfLeading(): void {
    if (!this.synced || !this.leading || this.stopping !== undefined) return;
    for (const hook of this.actingHooks) {
      try {
        hook();
      } catch (error) {
        this.options.log.error({ error: errorText(error) }, 'a start-of-term hook failed');
      }
    }
    for (const runner of this.runners) {
      // A new term looks at every object: the last leader may have left any of them half done.
      for (const object of this.cache.list(runner.controller.for))
        runner.queue.add(requestKey(requestOf(object)));
      runner.queue.resume();
    }
  }

  private async reconcile(runner: Runner, key: string): Promise<void> {
    const { controller, queue, log } = runner;
    const term = this.term;
    if (term.signal.aborted) {
      // Taken just as leadership went: leave it to the next term.
      queue.add(key);
      return;
    }
    const request = requestOfKey(key);
    const context: ReconcileContext = {
      reader: this.cache,
      writer: new RateLimitedObjectWriter(
        this.options.client,
        this.writes,
        term.signal,
        this.written,
      ),
      events: runner.events,
      clock: this.clock,
      log: log.child(request.namespace === undefined ? { name: request.name } : { ...request }),
      signal: term.signal,
    };
    const started = this.clock.now();
    let outcome: ReconcileOutcome;
    try {
      const result = await controller.reconcile(request, context);
      runner.conflicts.delete(key);
      if (runner.failing.delete(key))
        context.log.info({ failures: queue.failuresOf(key) }, 'reconciled again after failing');
      queue.forget(key);
      const after = result.requeueAfterMs;
      if (after !== undefined && after > 0) {
        queue.addAfter(key, after);
        outcome = 'requeue_after';
      } else outcome = 'success';
    } catch (error) {
      outcome = this.failed(runner, key, error, term.signal, context.log);
    }
    this.metrics.reconcile(controller.name, outcome, (this.clock.now() - started) / 1000);
  }

  private failed(
    runner: Runner,
    key: string,
    error: unknown,
    signal: AbortSignal,
    log: Logger,
  ): ReconcileOutcome {
    const { queue } = runner;
    if (signal.aborted) {
      log.debug({ reason: errorText(signal.reason) }, 'reconcile aborted');
      queue.add(key);
      return 'aborted';
    }
    if (error instanceof KubeApiError && error.code === KubeApiErrorCode.Conflict) {
      const conflicts = (runner.conflicts.get(key) ?? 0) + 1;
      runner.conflicts.set(key, conflicts);
      if (conflicts <= IMMEDIATE_CONFLICT_RETRIES) {
        log.debug({ conflicts }, 'conflict: the object changed; reconciling again');
        queue.add(key);
      } else {
        const retryInMs = queue.addRateLimited(key);
        log.info({ conflicts, retryInMs }, 'conflict again: backing off');
      }
      return 'conflict';
    }
    runner.conflicts.delete(key);
    const retryInMs = queue.addRateLimited(key);
    const text = errorText(error);
    const failures = queue.failuresOf(key);
    const fields = {
      error: text,
      ...(error instanceof SiteForgeError && { code: error.code }),
      failures,
      retryInMs,
    };
    // A key failing the same way pass after pass (a spoke or BMC that stays unreachable) is
    // told once as an error, then at debug with a warning every tenth time: not a line per
    // retry per object. A new error is told again; the metric counts every one.
    const repeated = runner.failing.get(key) === text;
    runner.failing.set(key, text);
    if (!repeated) log.error(fields, 'reconcile failed');
    else if (failures % REPEATED_FAILURE_REMINDER === 0)
      log.warn(fields, 'reconcile still failing');
    else log.debug(fields, 'reconcile failed again');
    return 'error';
  }
}

/** The Request of a queue key (`namespace/name` or `name`). */
function requestOfKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * An AbortController whose signal takes any number of listeners: every in-flight pass and BMC
 * operation listens to the term's signal, far more than Node's warning threshold of 10.
 */
function unboundedController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
