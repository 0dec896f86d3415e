import { KubeApiError, KubeUnreachableError } from '../../src/kube/errors.js';
import type {
  GroupVersionKind,
  KubeObject,
  ListResult,
  ObjectRef,
  RuntimeKubeClient,
  ScopeOptions,
  WatchEvent,
  WatchOptions,
  WatchStream,
} from '../../src/kube/index.js';

/** Kinds the fake serves without namespaces. */
const CLUSTER_SCOPED = new Set(['Namespace', 'Node', 'ClusterRole', 'CustomResourceDefinition']);

interface HistoryEntry {
  readonly version: number;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: KubeObject;
}

interface LiveWatch {
  readonly gvk: GroupVersionKind;
  readonly namespace: string | undefined;
  readonly onEvent: (event: WatchEvent) => void;
  readonly end: (error?: Error) => void;
}

const keyOf = (ref: { apiVersion: string; kind: string; namespace?: string; name: string }) =>
  `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;

const refOf = (o: KubeObject): ObjectRef => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name,
  ...(o.metadata.namespace !== undefined && { namespace: o.metadata.namespace }),
});

/**
 * An in-memory API server with watches, for runtime tests: one resourceVersion sequence, an
 * event history that watches replay from any version newer than the last compaction (older ones
 * get 410 Gone, as etcd compaction does), optimistic locking, the status subresource and
 * finalizers. Tests can cut every watch (a dropped connection), break them with an error, and
 * make the server unreachable for a while.
 */
export class FakeApiServer implements RuntimeKubeClient {
  /** Every request, as `verb kind` in order. */
  readonly requests: string[] = [];
  /** While true every request fails as if the server could not be reached. */
  unreachable = false;
  /** Each update/updateStatus first bumps the stored object, so it answers 409, this many times. */
  conflictsToInject = 0;
  /** While true, watch events wait (a lagging watch) until {@link releaseEvents}. */
  holdEvents = false;
  private readonly held: (() => void)[] = [];
  private readonly objects = new Map<string, KubeObject>();
  private readonly history: HistoryEntry[] = [];
  private readonly live = new Set<LiveWatch>();
  private version = 0;
  private compacted = 0;

  /** Number of watches open now. */
  get openWatches(): number {
    return this.live.size;
  }

  /** Stores objects as a user's kubectl would (ADDED events). */
  seed(...objects: KubeObject[]): this {
    for (const o of objects)
      this.store('ADDED', { ...o, metadata: { generation: 1, ...o.metadata } });
    return this;
  }

  /** The stored object (no request counted). */
  peek(ref: ObjectRef): KubeObject | undefined {
    const o = this.objects.get(keyOf(ref));
    return o && structuredClone(o);
  }

  /** Ends every open watch without error, as a dropped connection does. */
  cutWatches(): void {
    for (const w of [...this.live]) w.end();
  }

  /** Ends every open watch with `error`. */
  breakWatches(error: Error): void {
    for (const w of [...this.live]) w.end(error);
  }

  /** Forgets the history: watches from any version seen so far get 410 Gone. */
  compact(): void {
    this.compacted = this.version;
    this.history.length = 0;
  }

  namespaced(gvk: GroupVersionKind): Promise<boolean> {
    return this.request('discovery', gvk, () => !CLUSTER_SCOPED.has(gvk.kind));
  }

  list(gvk: GroupVersionKind, options: ScopeOptions = {}): Promise<ListResult> {
    return this.request('list', gvk, () => ({
      items: [...this.objects.values()]
        .filter((o) => matches(o, gvk, options.namespace))
        .map((o) => structuredClone(o)),
      resourceVersion: String(this.version),
    }));
  }

  watch(
    gvk: GroupVersionKind,
    options: WatchOptions,
    onEvent: (event: WatchEvent) => void,
  ): WatchStream {
    this.requests.push(`watch ${gvk.kind}`);
    let end: (error?: Error) => void = () => undefined;
    const ended = new Promise<void>((resolve, reject) => {
      end = (error) => {
        end = () => undefined;
        this.live.delete(watch);
        if (error) reject(error);
        else resolve();
      };
    });
    const watch: LiveWatch = {
      gvk,
      namespace: options.namespace,
      onEvent: (event) => {
        onEvent(event);
      },
      end: (error) => {
        end(error);
      },
    };
    const from = Number(options.resourceVersion);
    queueMicrotask(() => {
      if (this.unreachable) {
        end(new KubeUnreachableError('cannot reach the API server at fake: ECONNREFUSED'));
        return;
      }
      if (from < this.compacted) {
        end(new KubeApiError(410, 'Expired', `too old resource version: ${String(from)}`));
        return;
      }
      this.live.add(watch);
      for (const entry of this.history)
        if (entry.version > from && matches(entry.object, gvk, options.namespace))
          onEvent({ type: entry.type, object: structuredClone(entry.object) });
    });
    return {
      ended,
      stop: () => {
        end();
      },
    };
  }

  get(ref: ObjectRef): Promise<KubeObject | undefined> {
    return this.request('get', ref, () => this.peek(ref));
  }

  create(object: KubeObject): Promise<KubeObject> {
    return this.request('create', object, () => {
      if (this.objects.has(keyOf(refOf(object))))
        throw new KubeApiError(
          409,
          'AlreadyExists',
          `${object.kind} ${object.metadata.name} already exists`,
        );
      return this.store('ADDED', { ...object, metadata: { ...object.metadata, generation: 1 } });
    });
  }

  update(object: KubeObject): Promise<KubeObject> {
    return this.request('update', object, () => {
      const before = this.current(object);
      const spec = JSON.stringify(object['spec']) !== JSON.stringify(before['spec']);
      const generation = Number(before.metadata['generation'] ?? 1) + (spec ? 1 : 0);
      const next: KubeObject = { ...object, metadata: { ...object.metadata, generation } };
      if ('status' in before) (next as Record<string, unknown>)['status'] = before['status'];
      const finalizers = (next.metadata['finalizers'] as string[] | undefined) ?? [];
      if (next.metadata['deletionTimestamp'] !== undefined && finalizers.length === 0)
        return this.remove(next);
      return this.store('MODIFIED', next);
    });
  }

  updateStatus(object: KubeObject): Promise<KubeObject> {
    return this.request('updateStatus', object, () => {
      const before = this.current(object);
      return this.store('MODIFIED', { ...before, status: object['status'] });
    });
  }

  delete(ref: ObjectRef): Promise<boolean> {
    return this.request('delete', ref, () => {
      const before = this.objects.get(keyOf(ref));
      if (!before) return false;
      const finalizers = (before.metadata['finalizers'] as string[] | undefined) ?? [];
      if (finalizers.length === 0) this.remove(before);
      else if (before.metadata['deletionTimestamp'] === undefined)
        this.store('MODIFIED', {
          ...before,
          metadata: { ...before.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
        });
      return true;
    });
  }

  /** Changes a stored object as another client would (a MODIFIED event). */
  modify(ref: ObjectRef, change: (o: KubeObject) => KubeObject): KubeObject {
    const before = this.objects.get(keyOf(ref));
    if (!before) throw new Error(`no ${keyOf(ref)}`);
    return this.store('MODIFIED', change(structuredClone(before)));
  }

  /** Deletes a stored object as another client would (a DELETED event). */
  remove(object: KubeObject): KubeObject {
    const key = keyOf(refOf(object));
    const before = this.objects.get(key);
    if (!before) throw new Error(`no ${key}`);
    this.objects.delete(key);
    const version = ++this.version;
    const gone = { ...before, metadata: { ...before.metadata, resourceVersion: String(version) } };
    this.publish({ version, type: 'DELETED', object: gone });
    return structuredClone(gone);
  }

  private current(object: KubeObject): KubeObject {
    const before = this.objects.get(keyOf(refOf(object)));
    if (!before)
      throw new KubeApiError(404, 'NotFound', `${object.kind} ${object.metadata.name} not found`);
    if (this.conflictsToInject > 0) {
      this.conflictsToInject--;
      this.modify(refOf(before), (o) => o);
    }
    const stored = this.objects.get(keyOf(refOf(object)))!;
    if (object.metadata.resourceVersion !== stored.metadata.resourceVersion)
      throw new KubeApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${object.kind} "${object.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    return stored;
  }

  private store(type: 'ADDED' | 'MODIFIED', object: KubeObject): KubeObject {
    const version = ++this.version;
    const stored = structuredClone({
      ...object,
      metadata: { ...object.metadata, resourceVersion: String(version) },
    });
    this.objects.set(keyOf(refOf(stored)), stored);
    this.publish({ version, type, object: stored });
    return structuredClone(stored);
  }

  private publish(entry: HistoryEntry): void {
    this.history.push(entry);
    for (const w of this.live)
      if (matches(entry.object, w.gvk, w.namespace)) {
        const tell = (): void => {
          w.onEvent({ type: entry.type, object: structuredClone(entry.object) });
        };
        if (this.holdEvents) this.held.push(tell);
        else tell();
      }
  }

  /** Delivers the watch events held back, in order, and stops holding them. */
  releaseEvents(): void {
    this.holdEvents = false;
    for (const tell of this.held.splice(0)) tell();
  }

  private request<T>(verb: string, gvk: GroupVersionKind, answer: () => T): Promise<T> {
    this.requests.push(`${verb} ${gvk.kind}`);
    if (this.unreachable)
      return Promise.reject(
        new KubeUnreachableError('cannot reach the API server at fake: ECONNREFUSED'),
      );
    try {
      return Promise.resolve(answer());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

function matches(o: KubeObject, gvk: GroupVersionKind, namespace: string | undefined): boolean {
  return (
    o.apiVersion === gvk.apiVersion &&
    o.kind === gvk.kind &&
    (namespace === undefined || o.metadata.namespace === namespace)
  );
}
