/**
 * The informers' caches: one ObjectStore per kind, read by reconcilers through ObjectReader.
 * Stored objects are frozen, so a reconciler that edits what it read in place fails loudly
 * instead of corrupting the cache (it must copy, then write through the ObjectWriter).
 */
import type { GroupVersionKind, KubeObject, ObjectRef } from '../../kube/index.js';
import { SiteForgeError } from '../../shared/errors.js';
import type { ObjectReader, ReaderListOptions } from './contract.js';

/** `apiVersion/kind`, the key of a kind. */
export function gvkKey(gvk: GroupVersionKind): string {
  return `${gvk.apiVersion}/${gvk.kind}`;
}

/** Reading a kind that no controller declared in `for` or `watches`. */
export class KindNotCachedError extends SiteForgeError {
  constructor(readonly gvk: GroupVersionKind) {
    super(
      'RUNTIME_KIND_NOT_CACHED',
      `no informer caches ${gvk.kind} (${gvk.apiVersion}): declare it in a controller's for or watches`,
    );
  }
}

/**
 * The objects of one kind, by namespace then name (`''` for cluster scope). A label a list asks
 * for across namespaces gets an index (label value → objects) on first use, kept up to date from
 * then on, so that such a list costs the objects it finds, not every object of the kind.
 */
export class ObjectStore {
  private readonly byNamespace = new Map<string, Map<string, KubeObject>>();
  /** label key → label value → `namespace/name` → object. */
  private readonly byLabel = new Map<string, Map<string, Map<string, KubeObject>>>();
  private count = 0;

  /** Objects stored. */
  get size(): number {
    return this.count;
  }

  get(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.byNamespace.get(namespace ?? '')?.get(name);
  }

  /**
   * Stores a frozen copy of `object`, without `metadata.managedFields` (often the larger part
   * of an object, and read by no reconciler; an update that omits them leaves them as they are
   * on the server, as with controller-runtime's TransformStripManagedFields).
   * @param adopt store `object` itself, frozen, instead of a copy: for objects nobody else holds
   *   (an informer's freshly decoded watch events and list items)
   * @returns what it replaced
   */
  set(object: KubeObject, adopt = false): KubeObject | undefined {
    const namespace = object.metadata.namespace ?? '';
    let names = this.byNamespace.get(namespace);
    if (names === undefined)
      this.byNamespace.set(namespace, (names = new Map<string, KubeObject>()));
    const previous = names.get(object.metadata.name);
    if (previous === undefined) this.count++;
    const trimmed = withoutManagedFields(object);
    const stored = deepFreeze(adopt ? trimmed : structuredClone(trimmed));
    names.set(object.metadata.name, stored);
    for (const [key, index] of this.byLabel) {
      if (
        previous !== undefined &&
        previous.metadata.labels?.[key] !== stored.metadata.labels?.[key]
      )
        this.unindexLabel(index, key, previous);
      this.indexLabel(index, key, stored);
    }
    return previous;
  }

  /** @returns what was stored, if anything */
  delete(namespace: string | undefined, name: string): KubeObject | undefined {
    const names = this.byNamespace.get(namespace ?? '');
    const previous = names?.get(name);
    if (names === undefined || previous === undefined) return undefined;
    names.delete(name);
    this.count--;
    if (names.size === 0) this.byNamespace.delete(namespace ?? '');
    for (const [key, index] of this.byLabel) this.unindexLabel(index, key, previous);
    return previous;
  }

  /** The objects whose label `key` is `value` (indexing the label on first use). */
  withLabel(key: string, value: string): Iterable<KubeObject> {
    let index = this.byLabel.get(key);
    if (index === undefined) {
      this.byLabel.set(key, (index = new Map<string, Map<string, KubeObject>>()));
      for (const object of this.values()) this.indexLabel(index, key, object);
    }
    return index.get(value)?.values() ?? [];
  }

  private indexLabel(
    index: Map<string, Map<string, KubeObject>>,
    key: string,
    object: KubeObject,
  ): void {
    const value = object.metadata.labels?.[key];
    if (value === undefined) return;
    let objects = index.get(value);
    if (objects === undefined) index.set(value, (objects = new Map<string, KubeObject>()));
    objects.set(objectKey(object), object);
  }

  private unindexLabel(
    index: Map<string, Map<string, KubeObject>>,
    key: string,
    object: KubeObject,
  ): void {
    const value = object.metadata.labels?.[key];
    if (value === undefined) return;
    const objects = index.get(value);
    objects?.delete(objectKey(object));
    if (objects?.size === 0) index.delete(value);
  }

  /** Every object, or those of one namespace. */
  *values(namespace?: string): IterableIterator<KubeObject> {
    if (namespace !== undefined) {
      yield* this.byNamespace.get(namespace)?.values() ?? [];
      return;
    }
    for (const names of this.byNamespace.values()) yield* names.values();
  }
}

/** ObjectReader over the stores of the kinds the controllers declared. */
export class ObjectCache implements ObjectReader {
  private readonly stores = new Map<string, ObjectStore>();

  /** The store of `gvk`, created on first use (by the informer that fills it). */
  storeFor(gvk: GroupVersionKind): ObjectStore {
    const key = gvkKey(gvk);
    let store = this.stores.get(key);
    if (store === undefined) this.stores.set(key, (store = new ObjectStore()));
    return store;
  }

  get(ref: ObjectRef): KubeObject | undefined {
    return this.existing(ref).get(ref.namespace, ref.name);
  }

  list(gvk: GroupVersionKind, options: ReaderListOptions = {}): readonly KubeObject[] {
    const labels = Object.entries(options.labels ?? {});
    const store = this.existing(gvk);
    const { namespace } = options;
    const first = labels[0];
    // Within a namespace a scan is short; across namespaces a label index answers.
    const candidates =
      namespace === undefined && first !== undefined
        ? store.withLabel(first[0], first[1])
        : store.values(namespace);
    const found: KubeObject[] = [];
    for (const object of candidates)
      if (
        (namespace === undefined || (object.metadata.namespace ?? '') === namespace) &&
        labels.every(([k, v]) => object.metadata.labels?.[k] === v)
      )
        found.push(object);
    return found;
  }

  private existing(gvk: GroupVersionKind): ObjectStore {
    const store = this.stores.get(gvkKey(gvk));
    if (store === undefined) throw new KindNotCachedError(gvk);
    return store;
  }
}

function objectKey(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

function withoutManagedFields(object: KubeObject): KubeObject {
  if (!('managedFields' in object.metadata)) return object;
  const metadata = { ...object.metadata };
  delete metadata['managedFields'];
  return { ...object, metadata };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
