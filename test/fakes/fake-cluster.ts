import { KubeApiError } from '../../src/kube/errors.js';
import type { GroupVersionKind, KubeObject, ObjectRef } from '../../src/kube/kube-client.js';
import type {
  Controller,
  EventRecorder,
  EventType,
  ObjectReader,
  ObjectWriter,
  ReaderListOptions,
  ReconcileResult,
  Request,
} from '../../src/bmac/runtime/contract.js';
import { createLogger } from '../../src/shared/logger.js';
import type { Clock } from '../../src/shared/clock.js';

const keyOf = (ref: ObjectRef): string =>
  `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;

const refOfObject = (o: KubeObject): ObjectRef => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name,
  ...(o.metadata.namespace !== undefined && { namespace: o.metadata.namespace }),
});

/** One recorded Event. */
export interface RecordedEvent {
  readonly object: string;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
}

/**
 * An in-memory API server for reconciler unit tests, with the semantics reconcilers depend on:
 * resourceVersion bumps on every write and a stale one is a 409 Conflict; `update` ignores
 * status and `updateStatus` takes only status; deleting an object with finalizers only sets
 * `deletionTimestamp`, and removing its last finalizer then deletes it; generation bumps when
 * spec changes. The cache is the store itself (no informer delay).
 */
export class FakeCluster implements ObjectReader, ObjectWriter, EventRecorder {
  readonly objects = new Map<string, KubeObject>();
  readonly events: RecordedEvent[] = [];
  /** Every write, in order: `create|update|updateStatus|delete kind namespace/name`. */
  readonly writes: string[] = [];
  private version = 0;

  constructor(readonly clock: Clock = { now: () => Date.now(), sleep: () => Promise.resolve() }) {}

  /** Puts objects in the store as they are (a test's starting world). */
  seed(...objects: KubeObject[]): this {
    for (const o of objects) {
      const stored = clone({
        ...o,
        metadata: {
          generation: 1,
          uid: `uid-${o.metadata.name}`,
          creationTimestamp: new Date(this.clock.now()).toISOString(),
          ...o.metadata,
          resourceVersion: String(++this.version),
        },
      });
      this.objects.set(keyOf(refOfObject(stored)), stored);
    }
    return this;
  }

  get(ref: ObjectRef): KubeObject | undefined {
    const o = this.objects.get(keyOf(ref));
    return o && clone(o);
  }

  list(gvk: GroupVersionKind, options: ReaderListOptions = {}): readonly KubeObject[] {
    return [...this.objects.values()]
      .filter(
        (o) =>
          o.apiVersion === gvk.apiVersion &&
          o.kind === gvk.kind &&
          (options.namespace === undefined || o.metadata.namespace === options.namespace) &&
          Object.entries(options.labels ?? {}).every(([k, v]) => o.metadata.labels?.[k] === v),
      )
      .map(clone);
  }

  getLive(ref: ObjectRef): Promise<KubeObject | undefined> {
    return Promise.resolve(this.get(ref));
  }

  create(object: KubeObject): Promise<KubeObject> {
    const key = keyOf(refOfObject(object));
    this.writes.push(`create ${describe(object)}`);
    if (this.objects.has(key))
      return Promise.reject(new KubeApiError(409, 'AlreadyExists', `${describe(object)} exists`));
    this.seed(object);
    return Promise.resolve(this.get(refOfObject(object))!);
  }

  update(object: KubeObject): Promise<KubeObject> {
    return this.write('update', object, (before) => {
      const spec = JSON.stringify(object['spec']) !== JSON.stringify(before['spec']);
      const generation = Number(before.metadata['generation'] ?? 1) + (spec ? 1 : 0);
      return {
        ...object,
        status: before['status'],
        metadata: { ...object.metadata, generation },
      };
    });
  }

  updateStatus(object: KubeObject): Promise<KubeObject> {
    return this.write('updateStatus', object, (before) => ({
      ...before,
      status: object['status'],
    }));
  }

  delete(ref: ObjectRef): Promise<boolean> {
    const key = keyOf(ref);
    const before = this.objects.get(key);
    this.writes.push(`delete ${ref.kind} ${ref.namespace ?? ''}/${ref.name}`);
    if (!before) return Promise.resolve(false);
    const finalizers = (before.metadata['finalizers'] as string[] | undefined) ?? [];
    if (finalizers.length === 0) this.objects.delete(key);
    else if (before.metadata['deletionTimestamp'] === undefined)
      this.objects.set(key, {
        ...before,
        metadata: {
          ...before.metadata,
          deletionTimestamp: new Date(this.clock.now()).toISOString(),
          resourceVersion: String(++this.version),
        },
      });
    return Promise.resolve(true);
  }

  event(object: KubeObject, type: EventType, reason: string, message: string): void {
    this.events.push({ object: describe(object), type, reason, message });
  }

  private write(
    verb: string,
    object: KubeObject,
    merge: (before: KubeObject) => KubeObject,
  ): Promise<KubeObject> {
    const ref = refOfObject(object);
    const key = keyOf(ref);
    const before = this.objects.get(key);
    this.writes.push(`${verb} ${describe(object)}`);
    if (!before)
      return Promise.reject(new KubeApiError(404, 'NotFound', `${describe(object)} not found`));
    if (object.metadata.resourceVersion !== before.metadata.resourceVersion)
      return Promise.reject(
        new KubeApiError(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${describe(object)}: the object has been modified`,
        ),
      );
    const next = clone(merge(before));
    const finalizers = (next.metadata['finalizers'] as string[] | undefined) ?? [];
    if (next.metadata['deletionTimestamp'] !== undefined && finalizers.length === 0) {
      this.objects.delete(key);
      return Promise.resolve(next);
    }
    const stored = { ...next, metadata: { ...next.metadata, resourceVersion: String(++this.version) } };
    this.objects.set(key, stored);
    return Promise.resolve(clone(stored));
  }
}

/**
 * Runs `controller.reconcile` for `request` against `cluster` until it neither throws a conflict
 * nor changes anything, at most `maxPasses` times, the way the runtime would on repeated
 * events. Returns the last pass's result. Other errors are thrown to the test.
 */
export async function reconcileUntilStable(
  controller: Controller,
  request: Request,
  cluster: FakeCluster,
  maxPasses = 10,
): Promise<ReconcileResult> {
  const log = createLogger({ level: 'silent' });
  let result: ReconcileResult = {};
  for (let pass = 0; pass < maxPasses; pass++) {
    const writes = cluster.writes.length;
    try {
      result = await controller.reconcile(request, {
        reader: cluster,
        writer: cluster,
        events: cluster,
        clock: cluster.clock,
        log,
        signal: new AbortController().signal,
      });
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 409) continue;
      throw error;
    }
    if (cluster.writes.length === writes) return result;
  }
  return result;
}

function describe(o: KubeObject): string {
  return `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}
