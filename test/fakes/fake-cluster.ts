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
import { allows, resourceOf } from '../../src/bmac/permissions.js';
import type { PolicyRule } from '../../src/bmac/permissions.js';
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

/** Options of FakeCluster. */
export interface FakeClusterOptions {
  /**
   * RBAC rules the controller runs with (e.g. the chart's ClusterRole): every read or write of
   * a kind and verb they do not grant throws a 403 KubeApiError, as the API server would. Cache
   * reads need `list` and `watch` (the informer's), `getLive` needs `get`, `updateStatus` needs
   * `update` of `<resource>/status`, an Event needs `create` of events.
   * @default everything allowed
   */
  readonly rules?: readonly PolicyRule[];
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
  /** Above 0 while {@link asOtherActor} runs: no RBAC check. */
  private unchecked = 0;

  constructor(
    readonly clock: Clock = { now: () => Date.now(), sleep: () => Promise.resolve() },
    private readonly options: FakeClusterOptions = {},
  ) {}

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

  /** The stored object, for a test's assertions: no RBAC check, unlike the reader's `get`. */
  peek(ref: ObjectRef): KubeObject | undefined {
    const o = this.objects.get(keyOf(ref));
    return o && clone(o);
  }

  /**
   * Runs `act` as another actor than the controller (a user, BMO, the agent controller), whose
   * reads and writes the controller's rules do not limit. The check is made when a call starts,
   * so `act` only needs to start its calls synchronously.
   */
  asOtherActor<T>(act: (cluster: this) => T): T {
    this.unchecked++;
    try {
      return act(this);
    } finally {
      this.unchecked--;
    }
  }

  get(ref: ObjectRef): KubeObject | undefined {
    this.authorize(ref, ['list', 'watch']);
    const o = this.objects.get(keyOf(ref));
    return o && clone(o);
  }

  list(gvk: GroupVersionKind, options: ReaderListOptions = {}): readonly KubeObject[] {
    this.authorize(gvk, ['list', 'watch']);
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
    const denied = this.denial(ref, ['get']);
    if (denied) return Promise.reject(denied);
    const o = this.objects.get(keyOf(ref));
    return Promise.resolve(o && clone(o));
  }

  create(object: KubeObject): Promise<KubeObject> {
    const key = keyOf(refOfObject(object));
    const denied = this.denial(object, ['create']);
    if (denied) return Promise.reject(denied);
    this.writes.push(`create ${describe(object)}`);
    if (this.objects.has(key))
      return Promise.reject(new KubeApiError(409, 'AlreadyExists', `${describe(object)} exists`));
    this.seed(object);
    return Promise.resolve(clone(this.objects.get(key)!));
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
    const denied = this.denial(ref, ['delete']);
    if (denied) return Promise.reject(denied);
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
    this.authorize({ apiVersion: 'v1', kind: 'Event' }, ['create']);
    this.events.push({ object: describe(object), type, reason, message });
  }

  private write(
    verb: string,
    object: KubeObject,
    merge: (before: KubeObject) => KubeObject,
  ): Promise<KubeObject> {
    const ref = refOfObject(object);
    const key = keyOf(ref);
    const denied = this.denial(ref, ['update'], verb === 'updateStatus' ? 'status' : undefined);
    if (denied) return Promise.reject(denied);
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
    const stored = {
      ...next,
      metadata: { ...next.metadata, resourceVersion: String(++this.version) },
    };
    this.objects.set(key, stored);
    return Promise.resolve(clone(stored));
  }

  /** Throws the 403 Forbidden of {@link denial}, if any. */
  private authorize(gvk: GroupVersionKind, verbs: readonly string[]): void {
    const denied = this.denial(gvk, verbs);
    if (denied) throw denied;
  }

  /** A 403 Forbidden unless the rules grant every verb on the kind (or its subresource). */
  private denial(
    gvk: GroupVersionKind,
    verbs: readonly string[],
    subresource?: string,
  ): KubeApiError | undefined {
    const rules = this.options.rules;
    if (rules === undefined || this.unchecked > 0) return undefined;
    const { group, resource: plural } = resourceOf(gvk);
    const resource = subresource === undefined ? plural : `${plural}/${subresource}`;
    for (const verb of verbs)
      if (!allows(rules, group, resource, verb))
        return new KubeApiError(
          403,
          'Forbidden',
          `${resource}${group === '' ? '' : `.${group}`} is forbidden: the controller cannot ${verb} it (not granted by its ClusterRole)`,
        );
    return undefined;
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
