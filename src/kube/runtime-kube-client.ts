/**
 * The port the controller runtime needs from the API server: consistent lists with their
 * resourceVersion, watches resumed from a resourceVersion, and writes that carry
 * resourceVersion (optimistic locking). `ClientNodeRuntimeKubeClient` implements it on
 * @kubernetes/client-node; the runtime's tests use an in-memory fake.
 */
import type { DeleteOptions, GroupVersionKind, KubeObject, ObjectRef } from './kube-client.js';

/** Options of RuntimeKubeClient.list and watch. */
export interface ScopeOptions {
  /** Only objects of this namespace. @default every namespace */
  readonly namespace?: string;
  /**
   * Only objects with these labels (`key=value,…`). A watch tells an object that stops
   * matching as DELETED and one that starts matching as ADDED. @default every object
   */
  readonly labelSelector?: string;
}

/** A list answer: every object, and the resourceVersion a watch resumes from. */
export interface ListResult {
  readonly items: readonly KubeObject[];
  readonly resourceVersion: string;
}

/** One event of a watch. */
export type WatchEvent =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: KubeObject }
  /** Nothing changed, but the watch is now at `resourceVersion` (allowWatchBookmarks). */
  | { readonly type: 'BOOKMARK'; readonly resourceVersion: string };

/** Options of RuntimeKubeClient.watch. */
export interface WatchOptions extends ScopeOptions {
  /** Events after this version (from a list or the last event seen). */
  readonly resourceVersion: string;
  /** The server ends the watch cleanly after this long. @default the server's choice */
  readonly timeoutSeconds?: number;
}

/** A running watch. */
export interface WatchStream {
  /**
   * Resolves when the watch ended without error (the server's timeout, or `stop()`); rejects
   * with KubeApiError (KUBE_GONE when the resourceVersion is too old to resume from) or
   * KubeUnreachableError when it broke.
   */
  readonly ended: Promise<void>;
  /** Ends the watch; `ended` then resolves. */
  stop(): void;
}

/** What the runtime counts of its traffic: one call per API request with its HTTP status. */
export type RequestObserver = (
  verb: RequestVerb,
  status: number | 'unreachable',
  /** The resource (plural, with `/status` for the subresource), e.g. `baremetalhosts`. */
  resource?: string,
  /** From sending the request to its answer (not for watches). */
  seconds?: number,
) => void;

/** The verbs counted by a RequestObserver. */
export type RequestVerb =
  'list' | 'watch' | 'get' | 'create' | 'update' | 'updateStatus' | 'delete' | 'discovery';

/**
 * Reads, watches and writes objects of any kind. Errors are KubeApiError (with KUBE_CONFLICT on
 * a stale resourceVersion, KUBE_GONE on an expired one) and KubeUnreachableError, as KubeClient's.
 */
export interface RuntimeKubeClient {
  /** Whether objects of the kind live in namespaces (discovery; false for Namespace, Node). */
  namespaced(gvk: GroupVersionKind): Promise<boolean>;
  /** Every object of a kind (paged underneath), with the list's resourceVersion. */
  list(gvk: GroupVersionKind, options?: ScopeOptions): Promise<ListResult>;
  /** Watches a kind from a resourceVersion, calling `onEvent` for each event in order. */
  watch(
    gvk: GroupVersionKind,
    options: WatchOptions,
    onEvent: (event: WatchEvent) => void,
  ): WatchStream;
  /** The object, or undefined when it does not exist. */
  get(ref: ObjectRef): Promise<KubeObject | undefined>;
  /** POST. KUBE_CONFLICT when it exists. */
  create(object: KubeObject): Promise<KubeObject>;
  /** PUT with the object's resourceVersion; KUBE_CONFLICT when it is stale. Status is ignored. */
  update(object: KubeObject): Promise<KubeObject>;
  /** PUT of the status subresource with the object's resourceVersion. */
  updateStatus(object: KubeObject): Promise<KubeObject>;
  /** @returns false when it did not exist */
  delete(ref: ObjectRef, options?: DeleteOptions): Promise<boolean>;
}
