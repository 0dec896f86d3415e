/**
 * The port through which SiteForge talks to a Kubernetes API server. Callers see only this
 * interface; `ClientNodeKubeClient` implements it on @kubernetes/client-node, and tests may use
 * any other implementation.
 */

/** A Kubernetes object as plain data, as SiteForge sends it and reads it back. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly resourceVersion?: string;
    readonly [field: string]: unknown;
  };
  readonly [field: string]: unknown;
}

/** Group, version and kind of a resource: `apiVersion` is `group/version`, or `v1` for core. */
export interface GroupVersionKind {
  readonly apiVersion: string;
  readonly kind: string;
}

/** Names one object. `namespace` is omitted for cluster-scoped kinds. */
export interface ObjectRef extends GroupVersionKind {
  readonly name: string;
  readonly namespace?: string;
}

/** Options of KubeClient.apply. */
export interface ApplyOptions {
  /** Owner of the applied fields (server-side apply `fieldManager`). */
  readonly fieldManager: string;
  /** Let the server run every check and admission step but persist nothing. @default false */
  readonly dryRun?: boolean;
  /**
   * Take over fields that another field manager owns. Without it such fields make the apply
   * fail with a 409 Conflict naming the other manager.
   * @default false
   */
  readonly force?: boolean;
}

/** Options of KubeClient.list. */
export interface ListOptions {
  /** Only objects in this namespace. @default all namespaces */
  readonly namespace?: string;
  /** A label selector such as `app=x,tier!=db`. @default every object */
  readonly labelSelector?: string;
}

/** How dependents of a deleted object are handled (the API's `propagationPolicy`). */
export const Propagation = {
  Background: 'Background',
  Foreground: 'Foreground',
  Orphan: 'Orphan',
} as const;
export type Propagation = (typeof Propagation)[keyof typeof Propagation];

/** Options of KubeClient.delete. */
export interface DeleteOptions {
  /** @default Propagation.Background, as kubectl */
  readonly propagation?: Propagation;
}

/**
 * Reads and writes Kubernetes objects. Every method rejects with `KubeApiError` when the server
 * answers with an error status, and with `KubeUnreachableError` when there is no answer.
 */
export interface KubeClient {
  /**
   * Server-side apply (`application/apply-patch+yaml`) of the fields in `object`, with strict
   * field validation: a field the schema does not know is an error, not silently dropped.
   * Idempotent: applying the same object again changes nothing.
   * @returns the object as the server stored it (or would store it, in a dry run)
   */
  apply(object: KubeObject, options: ApplyOptions): Promise<KubeObject>;

  /** The object, or undefined when it does not exist (404). */
  get(ref: ObjectRef): Promise<KubeObject | undefined>;

  /**
   * Asks for the object's deletion. Finalizers may keep it for a while after this returns.
   * @returns false when the object did not exist
   */
  delete(ref: ObjectRef, options?: DeleteOptions): Promise<boolean>;

  /** Every object of a kind (one list call; no paging). */
  list(gvk: GroupVersionKind, options?: ListOptions): Promise<KubeObject[]>;
}

/** `namespace/name`, or `name` for a cluster-scoped object; used in messages. */
export function objectName(ref: ObjectRef | KubeObject): string {
  const { name, namespace } = 'metadata' in ref ? ref.metadata : ref;
  return namespace === undefined ? name : `${namespace}/${name}`;
}

/** The reference of an object. */
export function refOf(object: KubeObject): ObjectRef {
  const { apiVersion, kind, metadata } = object;
  return metadata.namespace === undefined
    ? { apiVersion, kind, name: metadata.name }
    : { apiVersion, kind, name: metadata.name, namespace: metadata.namespace };
}
