/**
 * An informer that never goes silent. client-node's own informer stops for good on any watch
 * error but 410; this one lists, then watches from the list's resourceVersion. A watch the server
 * ends on its own time limit is simply resumed. One that ends early without an error (a cut
 * connection, or the API server dropping a watcher that read too slowly) counts a restart, waits
 * an exponential backoff with jitter and resumes from the last version it saw, as client-go's
 * reflector does: the server replays what happened since, or answers 410 Gone. Only an error
 * (a refused or failed watch, an ERROR event, 410 Gone at once without waiting) makes it list
 * again, and tell its listeners what changed during the gap: deletes for objects gone, updates
 * for objects changed, adds for new ones. Listing a large kind again (thousands of Agents with
 * their inventories) costs the API server and this process far more than resuming.
 */
import type {
  GroupVersionKind,
  KubeObject,
  RuntimeKubeClient,
  WatchEvent,
} from '../../kube/index.js';
import { KubeApiError, KubeApiErrorCode } from '../../kube/index.js';
import type { Logger } from '../../shared/logger.js';
import type { ObjectStore } from './cache.js';
import { backoffDelay, delay } from './runtime-clock.js';
import type { BackoffOptions, CancelTimer, RuntimeClock } from './runtime-clock.js';

/** What an informer tells its listeners. `resync` repeats an unchanged object periodically. */
export type InformerEvent =
  | { readonly type: 'add' | 'resync'; readonly object: KubeObject }
  | { readonly type: 'update'; readonly object: KubeObject; readonly previous: KubeObject }
  | { readonly type: 'delete'; readonly object: KubeObject };

/** Why a watch was restarted (a metric label). */
export type RestartReason = 'error' | 'gone' | 'closed';

/** Options of Informer. */
export interface InformerOptions {
  readonly client: RuntimeKubeClient;
  readonly gvk: GroupVersionKind;
  /** Fills this store (the cache's store of the kind). */
  readonly store: ObjectStore;
  /** Watch only these namespaces (one list and watch each). @default every namespace */
  readonly namespaces?: readonly string[];
  /** Only objects with these labels (`key=value,…`). @default every object */
  readonly labelSelector?: string;
  readonly clock: RuntimeClock;
  readonly log: Logger;
  /**
   * Keep `metadata.managedFields` in the cache. Off by default: they are often the larger part
   * of an object, no reconciler reads them, and a PUT without them keeps the stored ones.
   * @default false
   */
  readonly keepManagedFields?: boolean;
  /** Tells every object to the listeners again this often. @default never */
  readonly resyncMs?: number;
  /** Backoff between restarts after errors. @default base 500 ms, max 30 s, jitter 0.2 */
  readonly backoff?: BackoffOptions;
  readonly random?: () => number;
  /** The server ends each watch after a random time in this range (seconds). @default [300, 600] */
  readonly watchTimeoutSeconds?: readonly [number, number];
  /** A watch that ran this long was healthy: its end resets the backoff. @default 60_000 */
  readonly stableAfterMs?: number;
  /** Told of every restart, for metrics. */
  readonly onRestart?: (reason: RestartReason) => void;
}

const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000, jitter: 0.2 };

/** Lists and watches one kind into a store, telling listeners of every change. */
export class Informer {
  private readonly listeners: ((event: InformerEvent) => void)[] = [];
  private readonly synced = new Set<string | undefined>();
  /** The resourceVersion each scope's list and watch has brought the store up to. */
  private readonly seen = new Map<string | undefined, string>();
  private scopes: readonly (string | undefined)[];
  private readonly stopping = new AbortController();
  private readonly stopWatches = new Set<() => void>();
  private cancelResync: CancelTimer | undefined;
  private started = false;
  private restartCount = 0;
  private markSynced: () => void = () => undefined;
  private readonly syncedOnce = new Promise<void>((resolve) => {
    this.markSynced = resolve;
  });

  constructor(private readonly options: InformerOptions) {
    this.scopes =
      options.namespaces === undefined || options.namespaces.length === 0
        ? [undefined]
        : [...new Set(options.namespaces)];
  }

  /** The kind informed about. */
  get gvk(): GroupVersionKind {
    return this.options.gvk;
  }

  /** Restarts since start. */
  get restarts(): number {
    return this.restartCount;
  }

  /** True once every namespace was listed (the store is complete as of then). */
  hasSynced(): boolean {
    return this.synced.size === this.scopes.length;
  }

  /** Resolves once `hasSynced()` is true (never, if the informer is stopped before). */
  whenSynced(): Promise<void> {
    return this.syncedOnce;
  }

  /** Calls `listener` for every change from now on (add listeners before `start`). */
  on(listener: (event: InformerEvent) => void): void {
    this.listeners.push(listener);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    void this.begin();
    this.scheduleResync();
  }

  /**
   * Takes an object this process just wrote (the API server's answer) into the store before its
   * watch event arrives, as client-go's mutation cache does, so that the next pass reads what it
   * wrote instead of the version before (which made its next write a 409 conflict, and retried
   * passes on stale data). Only an object newer than everything the watch has brought so far is
   * taken (a later delete cannot have been told yet); listeners hear of it as of a watch event,
   * and the watch event itself, when it comes, changes nothing. Versions that are not decimal
   * (an API server not backed by etcd) are never compared: such objects wait for their event.
   */
  offer(object: KubeObject): void {
    if (this.isStopped()) return;
    const namespace = object.metadata.namespace;
    const scope = this.scopes[0] === undefined ? undefined : namespace;
    if (scope !== undefined && !this.scopes.includes(scope)) return;
    const seen = this.seen.get(scope);
    const version = object.metadata.resourceVersion;
    if (seen === undefined || version === undefined || !isNewer(version, seen)) return;
    const { store } = this.options;
    const current = store.get(namespace, object.metadata.name);
    const currentVersion = current?.metadata.resourceVersion;
    if (currentVersion !== undefined && !isNewer(version, currentVersion)) return;
    store.set(this.trim(object));
    const stored = store.get(namespace, object.metadata.name)!;
    this.tell(
      current === undefined
        ? { type: 'add', object: stored }
        : { type: 'update', object: stored, previous: current },
    );
  }

  /** Ends the watches and any wait; nothing is told to listeners afterwards. */
  stop(): void {
    this.stopping.abort();
    this.cancelResync?.();
    for (const stop of this.stopWatches) stop();
    this.stopWatches.clear();
  }

  private isStopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /**
   * Starts one list-and-watch loop per namespace; a cluster-scoped kind (a Namespace, say) has
   * no namespaces, so it gets a single loop whatever namespaces were asked for.
   */
  private async begin(): Promise<void> {
    const { client, gvk, clock } = this.options;
    if (this.scopes[0] !== undefined) {
      for (let failures = 1; !this.isStopped(); failures++) {
        try {
          if (!(await client.namespaced(gvk))) this.scopes = [undefined];
          break;
        } catch (error) {
          const waitMs = backoffDelay(
            failures,
            this.options.backoff ?? DEFAULT_BACKOFF,
            this.options.random,
          );
          this.options.log.warn(
            { kind: gvk.kind, error: errorText(error), retryInMs: waitMs },
            'cannot discover the kind; trying again',
          );
          await delay(clock, waitMs, this.stopping.signal);
        }
      }
    }
    if (this.isStopped()) return;
    for (const scope of this.scopes) void this.run(scope);
  }

  private async run(namespace: string | undefined): Promise<void> {
    const { client, gvk, clock } = this.options;
    const selector = this.options.labelSelector;
    const scope = {
      ...(namespace !== undefined && { namespace }),
      ...(selector !== undefined && { labelSelector: selector }),
    };
    const log = this.options.log.child({ kind: gvk.kind, ...scope });
    let failures = 0;
    let version: string | undefined;
    while (!this.isStopped()) {
      let startedAt = clock.now();
      try {
        if (version === undefined) {
          this.seen.delete(namespace);
          const listed = await client.list(gvk, scope);
          if (this.isStopped()) return;
          this.replace(namespace, listed.items, listed.resourceVersion);
          version = listed.resourceVersion;
          this.seen.set(namespace, version);
          if (!this.synced.has(namespace)) {
            this.synced.add(namespace);
            log.debug({ objects: listed.items.length }, 'informer synced');
            if (this.hasSynced()) this.markSynced();
          }
        }
        const timeoutSeconds = this.watchTimeout();
        startedAt = clock.now();
        const from = version;
        const stream = client.watch(
          gvk,
          { ...scope, resourceVersion: version, timeoutSeconds },
          (event) => {
            if (this.isStopped()) return;
            version = this.apply(event) ?? version;
            if (version !== undefined) this.seen.set(namespace, version);
          },
        );
        const stop = (): void => {
          stream.stop();
        };
        this.stopWatches.add(stop);
        try {
          await stream.ended;
        } finally {
          this.stopWatches.delete(stop);
        }
        if (this.isStopped()) return;
        const ranMs = clock.now() - startedAt;
        // The server ended the watch on its time limit: carry on from where it was.
        if (ranMs >= timeoutSeconds * 1000) {
          failures = 0;
          continue;
        }
        // Ended early but cleanly: resume from the last version seen, after a backoff. A watch
        // that brought changes did its work (a busy kind's watcher the API server dropped):
        // the backoff starts over, so the cache is not left minutes behind.
        if (ranMs >= (this.options.stableAfterMs ?? 60_000) || version !== from) failures = 0;
        failures++;
        this.restartCount++;
        this.options.onRestart?.('closed');
        const waitMs = backoffDelay(
          failures,
          this.options.backoff ?? DEFAULT_BACKOFF,
          this.options.random,
        );
        log.warn(
          { reason: 'closed', ranMs, retryInMs: waitMs },
          'watch ended early; resuming from the last version seen',
        );
        await delay(clock, waitMs, this.stopping.signal);
      } catch (error) {
        if (this.isStopped()) return;
        const gone = error instanceof KubeApiError && error.code === KubeApiErrorCode.Gone;
        const reason: RestartReason = gone ? 'gone' : 'error';
        if (clock.now() - startedAt >= (this.options.stableAfterMs ?? 60_000)) failures = 0;
        failures++;
        version = undefined;
        this.seen.delete(namespace);
        this.restartCount++;
        this.options.onRestart?.(reason);
        const waitMs = gone
          ? 0
          : backoffDelay(failures, this.options.backoff ?? DEFAULT_BACKOFF, this.options.random);
        log.warn(
          {
            reason,
            error: error instanceof Error ? error.message : String(error),
            retryInMs: waitMs,
          },
          'watch broke; listing again',
        );
        if (waitMs > 0) await delay(clock, waitMs, this.stopping.signal);
      }
    }
  }

  /** Applies one watch event to the store. @returns the resourceVersion it brings */
  private apply(event: WatchEvent): string | undefined {
    if (event.type === 'BOOKMARK')
      return event.resourceVersion === '' ? undefined : event.resourceVersion;
    const { object } = event;
    const { store } = this.options;
    if (event.type === 'DELETED') {
      const previous = store.delete(object.metadata.namespace, object.metadata.name);
      this.tell({ type: 'delete', object: previous ?? object });
    } else {
      const current = store.get(object.metadata.namespace, object.metadata.name);
      // Equal: already stored; older: this process stored its own newer write (offer).
      if (current === undefined || isNewerOrOther(object.metadata.resourceVersion, current)) {
        store.set(this.trim(object), true);
        const stored = store.get(object.metadata.namespace, object.metadata.name)!;
        this.tell(
          current === undefined
            ? { type: 'add', object: stored }
            : { type: 'update', object: stored, previous: current },
        );
      }
    }
    return object.metadata.resourceVersion;
  }

  /** Makes the store's view of `namespace` what a list answered, telling every difference. */
  private replace(
    namespace: string | undefined,
    items: readonly KubeObject[],
    listVersion: string,
  ): void {
    const { store } = this.options;
    const listed = new Set<string>();
    for (const item of items) {
      listed.add(`${item.metadata.namespace ?? ''}/${item.metadata.name}`);
      const current = store.get(item.metadata.namespace, item.metadata.name);
      if (current !== undefined && !isNewerOrOther(item.metadata.resourceVersion, current))
        continue;
      store.set(this.trim(item), true);
      const stored = store.get(item.metadata.namespace, item.metadata.name)!;
      this.tell(
        current === undefined
          ? { type: 'add', object: stored }
          : { type: 'update', object: stored, previous: current },
      );
    }
    for (const object of [...store.values(namespace)]) {
      if (listed.has(`${object.metadata.namespace ?? ''}/${object.metadata.name}`)) continue;
      // Written by this process after the list's snapshot: not gone, only newer.
      const version = object.metadata.resourceVersion;
      if (version !== undefined && isNewer(version, listVersion)) continue;
      store.delete(object.metadata.namespace, object.metadata.name);
      this.tell({ type: 'delete', object });
    }
  }

  private trim(object: KubeObject): KubeObject {
    if (this.options.keepManagedFields === true || !('managedFields' in object.metadata))
      return object;
    const metadata = { ...object.metadata };
    delete metadata['managedFields'];
    return { ...object, metadata };
  }

  private scheduleResync(): void {
    const every = this.options.resyncMs;
    if (every === undefined || every <= 0 || this.isStopped()) return;
    this.cancelResync = this.options.clock.setTimer(every, () => {
      if (this.hasSynced())
        for (const object of this.options.store.values()) this.tell({ type: 'resync', object });
      this.scheduleResync();
    });
  }

  private watchTimeout(): number {
    const [low, high] = this.options.watchTimeoutSeconds ?? [300, 600];
    const random = this.options.random ?? Math.random;
    return Math.floor(low + (high - low) * random());
  }

  private tell(event: InformerEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.options.log.error(
          {
            kind: this.options.gvk.kind,
            error: error instanceof Error ? error.message : String(error),
          },
          'informer listener failed',
        );
      }
    }
  }
}

const DECIMAL = /^\d+$/;

/** Whether resourceVersion `a` is later than `b`; false unless both are decimal (etcd's). */
function isNewer(a: string, b: string): boolean {
  if (!DECIMAL.test(a) || !DECIMAL.test(b)) return false;
  return a.length !== b.length ? a.length > b.length : a > b;
}

/** Whether `version` should replace the stored object: later, or not comparable and different. */
function isNewerOrOther(version: string | undefined, stored: KubeObject): boolean {
  const current = stored.metadata.resourceVersion;
  if (version === current) return false;
  if (version === undefined || current === undefined) return true;
  if (DECIMAL.test(version) && DECIMAL.test(current)) return isNewer(version, current);
  return true;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
