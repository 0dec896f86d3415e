/**
 * The contract between the controller runtime and the reconcilers, after controller-runtime:
 * a reconciler is asked to converge one object named by a Request, reads the world from the
 * informers' caches (level-based: event payloads are never passed in), writes through an
 * ObjectWriter that carries resourceVersion (optimistic locking), and returns when to look
 * again. Throwing asks the runtime to retry the key with per-key exponential backoff.
 *
 * Reconcilers see only these interfaces, so their unit tests run on in-memory fakes
 * (test/fakes/fake-cluster.ts) and the integration tests run the same code on a real hub.
 */
import type { GroupVersionKind, KubeObject, ObjectRef, DeleteOptions } from '../../kube/index.js';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';

/** Names the object a reconciler should converge. `namespace` is absent for cluster scope. */
export interface Request {
  readonly namespace?: string;
  readonly name: string;
}

/** What a reconcile pass asks of the runtime. */
export interface ReconcileResult {
  /** Look at the key again after this long even if nothing changes. @default never */
  readonly requeueAfterMs?: number;
}

/** Filters of ObjectReader.list. */
export interface ReaderListOptions {
  readonly namespace?: string;
  /** Every label here must be present with this value. */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * The read side: the informers' caches, up to date as of the last watch event. Reading a kind
 * that no controller declared (in `for` or `watches`) is a programming error and throws.
 */
export interface ObjectReader {
  get(ref: ObjectRef): KubeObject | undefined;
  list(gvk: GroupVersionKind, options?: ReaderListOptions): readonly KubeObject[];
}

/**
 * The write side. `update` and `updateStatus` send the object's `metadata.resourceVersion`; when
 * the object changed since it was read they reject with KubeApiError code KUBE_CONFLICT (409),
 * which the reconciler lets through: the runtime requeues the key at once and the next pass reads
 * the newer object. Every method rejects with KubeApiError / KubeUnreachableError as KubeClient's.
 */
export interface ObjectWriter {
  /** POST. Rejects with KUBE_CONFLICT when it exists. @returns the stored object */
  create(object: KubeObject): Promise<KubeObject>;
  /** PUT of the whole object except status (metadata, spec; finalizers, labels, annotations). */
  update(object: KubeObject): Promise<KubeObject>;
  /** PUT of the status subresource; only `status` of `object` is taken. */
  updateStatus(object: KubeObject): Promise<KubeObject>;
  /** @returns false when it did not exist */
  delete(ref: ObjectRef, options?: DeleteOptions): Promise<boolean>;
  /** A read from the API server itself, bypassing the cache (e.g. Secrets, which are not cached). */
  getLive(ref: ObjectRef): Promise<KubeObject | undefined>;
}

/** Kubernetes Event types. */
export const EventType = { Normal: 'Normal', Warning: 'Warning' } as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

/**
 * Records Kubernetes Events on an object, for what a user should see in `kubectl describe`.
 * Fire and forget: a failed event write is logged, never thrown; repeats are aggregated (count).
 */
export interface EventRecorder {
  /** @param reason CamelCase, e.g. `ProvisioningStarted` */
  event(object: KubeObject, type: EventType, reason: string, message: string): void;
}

/** What every reconcile pass receives. */
export interface ReconcileContext {
  readonly reader: ObjectReader;
  readonly writer: ObjectWriter;
  readonly events: EventRecorder;
  readonly clock: Clock;
  /** A child logger bound to `{controller, namespace, name}`. */
  readonly log: Logger;
  /** Aborted when the process shuts down or loses leadership: stop side effects at once. */
  readonly signal: AbortSignal;
}

/** A secondary kind whose changes wake keys of the controller's primary kind. */
export interface Watch {
  readonly gvk: GroupVersionKind;
  /**
   * Cache and watch only objects with these labels (`key=value,…`), as controller-runtime's
   * cache options by object: for kinds a hub holds many of and a controller needs few (Secrets).
   * Every controller that watches the kind must ask for the same selector. @default every object
   */
  readonly labelSelector?: string;
  /** The primary objects to reconcile when `object` changes (read more from `reader` if needed). */
  map(object: KubeObject, reader: ObjectReader): readonly Request[];
  /**
   * Whether an update matters to the controller (controller-runtime's update predicate): an
   * update it answers false to wakes nothing. Adds, deletes and resyncs always go to `map`.
   * @default every update matters
   */
  onUpdate?(object: KubeObject, previous: KubeObject): boolean;
}

/** One controller: a primary kind, the kinds it also watches, and its reconcile function. */
export interface Controller {
  /** Used in logs, metrics (`controller` label) and Events' `source.component`. */
  readonly name: string;
  /** The primary kind; each of its objects is a key of this controller's queue. */
  readonly for: GroupVersionKind;
  readonly watches?: readonly Watch[];
  /** Converge one object. Idempotent: it may run again at any time for the same key. */
  reconcile(request: Request, context: ReconcileContext): Promise<ReconcileResult>;
}

/** The key of a Request in a queue: `namespace/name`, or `name` for cluster scope. */
export function requestKey(request: Request): string {
  return request.namespace === undefined ? request.name : `${request.namespace}/${request.name}`;
}

/** The Request of an object. */
export function requestOf(object: KubeObject): Request {
  const { name, namespace } = object.metadata;
  return namespace === undefined ? { name } : { namespace, name };
}

/**
 * Whether this process may reconcile now. Leader election implements it; the Manager runs its
 * informers and caches regardless (a standby stays warm) but its workers reconcile only while
 * `isLeader()`, and aborts every in-flight reconcile the moment leadership is lost.
 */
export interface LeaderGate {
  /** True while this process holds the lease. */
  isLeader(): boolean;
  /**
   * False until the first attempt to acquire (or observe) the lease has finished, so readiness
   * can say "leader" or "standby" only once it knows which.
   */
  isKnown(): boolean;
  /** Calls `listener` on every change of `isLeader()`. @returns a function that unsubscribes */
  onChange(listener: (leader: boolean) => void): () => void;
}
