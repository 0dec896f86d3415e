import { KubeApiError } from '../../src/kube/index.js';
import type { Lease, LeaseClient } from '../../src/kube/index.js';

/**
 * Leases in memory, with the API server's optimistic locking: every write bumps the
 * resourceVersion, and a create of an existing Lease or a replace with a stale resourceVersion
 * is refused with 409 (KUBE_CONFLICT). `client()` gives each elector its own view, which a test
 * can cut off as a network partition would.
 */
export class FakeLeaseStore {
  private readonly leases = new Map<string, Lease>();
  private version = 0;
  /** Every write that succeeded, in order. */
  readonly writes: Lease[] = [];

  lease(namespace: string, name: string): Lease | undefined {
    return this.leases.get(`${namespace}/${name}`);
  }

  /** A client on this store; `partition` makes its calls fail or hang. */
  client(): PartitionableLeaseClient {
    return new PartitionableLeaseClient(this);
  }

  get(namespace: string, name: string): Promise<Lease | undefined> {
    return Promise.resolve(structuredClone(this.lease(namespace, name)));
  }

  create(lease: Lease): Promise<Lease> {
    const key = `${lease.namespace}/${lease.name}`;
    if (this.leases.has(key))
      return Promise.reject(
        new KubeApiError(409, 'AlreadyExists', `leases "${lease.name}" already exists`),
      );
    return Promise.resolve(this.store(lease));
  }

  replace(lease: Lease): Promise<Lease> {
    const stored = this.lease(lease.namespace, lease.name);
    if (stored === undefined)
      return Promise.reject(new KubeApiError(404, 'NotFound', `leases "${lease.name}" not found`));
    if (stored.resourceVersion !== lease.resourceVersion)
      return Promise.reject(
        new KubeApiError(
          409,
          'Conflict',
          'the object has been modified; please apply your changes to the latest version and try again',
        ),
      );
    return Promise.resolve(this.store(lease));
  }

  private store(lease: Lease): Lease {
    const stored = { ...structuredClone(lease), resourceVersion: String(++this.version) };
    this.leases.set(`${lease.namespace}/${lease.name}`, stored);
    this.writes.push(stored);
    return structuredClone(stored);
  }
}

/** How a partitioned client fails: at once (connection refused) or never answering. */
export type Partition = 'refuse' | 'hang' | undefined;

/** One elector's view of a FakeLeaseStore. */
export class PartitionableLeaseClient implements LeaseClient {
  partition: Partition;
  calls = 0;

  constructor(private readonly store: FakeLeaseStore) {}

  get(namespace: string, name: string): Promise<Lease | undefined> {
    return this.through(() => this.store.get(namespace, name));
  }

  create(lease: Lease): Promise<Lease> {
    return this.through(() => this.store.create(lease));
  }

  replace(lease: Lease): Promise<Lease> {
    return this.through(() => this.store.replace(lease));
  }

  private through<T>(call: () => Promise<T>): Promise<T> {
    this.calls++;
    if (this.partition === 'refuse') return Promise.reject(new Error('connect ECONNREFUSED'));
    if (this.partition === 'hang') return new Promise<T>(() => undefined);
    return call();
  }
}
