import { KubeApiError } from '../../src/kube/errors.js';
import type {
  ApplyOptions,
  GroupVersionKind,
  KubeClient,
  KubeObject,
  ListOptions,
  ObjectRef,
} from '../../src/kube/kube-client.js';

const key = (ref: ObjectRef): string =>
  `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;

/**
 * An in-memory KubeClient for unit tests: apply stores the object (a dry run stores nothing),
 * bumping resourceVersion only when the content changes. Namespaced objects need their
 * Namespace, as on a real API server. `reject` makes chosen objects fail like the server would.
 */
export class FakeKubeClient implements KubeClient {
  readonly objects = new Map<string, KubeObject>();
  /** Every apply, in order, as `kind namespace/name` (with ` (dry run)`). */
  readonly applied: string[] = [];
  private version = 0;

  constructor(
    private readonly reject: (object: KubeObject) => KubeApiError | undefined = () => undefined,
  ) {}

  apply(object: KubeObject, options: ApplyOptions): Promise<KubeObject> {
    const { namespace, name } = object.metadata;
    this.applied.push(
      `${object.kind} ${namespace === undefined ? name : `${namespace}/${name}`}${options.dryRun ? ' (dry run)' : ''}`,
    );
    if (namespace !== undefined && !this.objects.has(key(nsRef(namespace))))
      return Promise.reject(
        new KubeApiError(404, 'NotFound', `namespaces "${namespace}" not found`),
      );
    const rejection = this.reject(object);
    if (rejection) return Promise.reject(rejection);
    const ref = { ...object, name, ...(namespace !== undefined && { namespace }) };
    const before = this.objects.get(key(ref));
    const same = before && JSON.stringify(strip(before)) === JSON.stringify(strip(object));
    const resourceVersion = same ? before.metadata.resourceVersion : String(++this.version);
    const stored = { ...object, metadata: { ...object.metadata, resourceVersion } };
    if (options.dryRun !== true) this.objects.set(key(ref), stored);
    return Promise.resolve(stored);
  }

  get(ref: ObjectRef): Promise<KubeObject | undefined> {
    return Promise.resolve(this.objects.get(key(ref)));
  }

  delete(ref: ObjectRef): Promise<boolean> {
    return Promise.resolve(this.objects.delete(key(ref)));
  }

  list(gvk: GroupVersionKind, options: ListOptions = {}): Promise<KubeObject[]> {
    return Promise.resolve(
      [...this.objects.values()].filter(
        (o) =>
          o.apiVersion === gvk.apiVersion &&
          o.kind === gvk.kind &&
          (options.namespace === undefined || o.metadata.namespace === options.namespace),
      ),
    );
  }
}

function nsRef(name: string): ObjectRef {
  return { apiVersion: 'v1', kind: 'Namespace', name };
}

/** The object without its resourceVersion, for comparing content. */
function strip(object: KubeObject): unknown {
  return { ...object, metadata: { ...object.metadata, resourceVersion: undefined } };
}
