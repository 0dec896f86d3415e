/**
 * coordination.k8s.io/v1 Leases, the lock objects of leader election. LeaseClient is the port the
 * elector sees; ClientNodeLeaseClient implements it on @kubernetes/client-node's typed
 * CoordinationV1Api. Writes carry `metadata.resourceVersion`, so two candidates that read the
 * same Lease cannot both win it: the second write is refused with 409 (KubeApiError
 * KUBE_CONFLICT) and its writer reads again.
 */
import {
  CoordinationV1Api,
  createConfiguration,
  ServerConfiguration,
  V1Lease,
  V1LeaseSpec,
  V1MicroTime,
  V1ObjectMeta,
} from '@kubernetes/client-node';
import type { KubeConfig, RequestContext, ResponseContext } from '@kubernetes/client-node';
import { loadKubeConfig, toKubeError } from './client-node-kube-client.js';
import { KubeApiError, KubeApiErrorCode, KubeUnreachableError } from './errors.js';

/** The spec of a Lease, as leader election reads and writes it. */
export interface LeaseSpec {
  /** Identity of the holder; absent when the lease is free (released). */
  readonly holderIdentity?: string;
  /** How long others must wait, after they last saw the lease change, before taking it. */
  readonly leaseDurationSeconds?: number;
  /** When the current holder acquired it; RFC 3339 with microseconds. */
  readonly acquireTime?: string;
  /** When the holder last renewed it; RFC 3339 with microseconds. */
  readonly renewTime?: string;
  /** How many times the lease changed hands. */
  readonly leaseTransitions?: number;
}

/** A Lease. `resourceVersion` is what the server last stored; absent on one not yet created. */
export interface Lease {
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion?: string;
  readonly spec: LeaseSpec;
}

/**
 * Reads and writes Leases. Every method rejects with KubeApiError when the server answers with
 * an error status and KubeUnreachableError when it does not answer.
 */
export interface LeaseClient {
  /** The Lease, or undefined when there is none (404). */
  get(namespace: string, name: string): Promise<Lease | undefined>;
  /**
   * Creates the Lease (its resourceVersion is ignored); KUBE_CONFLICT when it exists already
   * (someone created it first).
   */
  create(lease: Lease): Promise<Lease>;
  /**
   * Replaces the Lease's spec, provided the stored Lease still has `lease.resourceVersion`;
   * KUBE_CONFLICT when it changed since (someone else wrote it).
   */
  replace(lease: Lease): Promise<Lease>;
}

/** Options of ClientNodeLeaseClient. */
export interface ClientNodeLeaseClientOptions {
  /**
   * Per-request time limit. Leader election calls with a short one, so that a hung request
   * fails well before the renew deadline. @default 10_000
   */
  readonly requestTimeoutMs?: number;
}

/** LeaseClient on client-node's CoordinationV1Api. */
export class ClientNodeLeaseClient implements LeaseClient {
  /** The API server URL from the kubeconfig (never credentials). */
  readonly server: string;
  private readonly api: CoordinationV1Api;

  /** @throws KubeUnreachableError when the kubeconfig cannot be read */
  static fromKubeconfig(
    kubeconfig?: string,
    options: ClientNodeLeaseClientOptions = {},
  ): ClientNodeLeaseClient {
    return new ClientNodeLeaseClient(loadKubeConfig(kubeconfig), options);
  }

  constructor(kubeConfig: KubeConfig, options: ClientNodeLeaseClientOptions = {}) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new KubeUnreachableError('the kubeconfig has no current cluster');
    this.server = cluster.server;
    const timeoutMs = options.requestTimeoutMs ?? 10_000;
    this.api = new CoordinationV1Api(
      createConfiguration({
        baseServer: new ServerConfiguration(cluster.server, {}),
        authMethods: { default: kubeConfig },
        promiseMiddleware: [
          {
            pre: (context: RequestContext): Promise<RequestContext> => {
              context.setSignal(AbortSignal.timeout(timeoutMs));
              return Promise.resolve(context);
            },
            post: (response: ResponseContext): Promise<ResponseContext> =>
              Promise.resolve(response),
          },
        ],
      }),
    );
  }

  async get(namespace: string, name: string): Promise<Lease | undefined> {
    try {
      return leaseOf(await this.call(() => this.api.readNamespacedLease({ namespace, name })));
    } catch (err) {
      if (err instanceof KubeApiError && err.code === KubeApiErrorCode.NotFound) return undefined;
      throw err;
    }
  }

  async create(lease: Lease): Promise<Lease> {
    return leaseOf(
      await this.call(() =>
        this.api.createNamespacedLease({
          namespace: lease.namespace,
          // The server refuses a create that carries one (with a 500).
          body: bodyOf({ ...lease, resourceVersion: undefined }),
        }),
      ),
    );
  }

  async replace(lease: Lease): Promise<Lease> {
    if (lease.resourceVersion === undefined)
      throw new Error(`replacing Lease ${lease.namespace}/${lease.name} needs its resourceVersion`);
    return leaseOf(
      await this.call(() =>
        this.api.replaceNamespacedLease({
          namespace: lease.namespace,
          name: lease.name,
          body: bodyOf(lease),
        }),
      ),
    );
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (err) {
      throw toKubeError(err, this.server);
    }
  }
}

/** The Lease as client-node sends it. MicroTime fields go out with six fractional digits. */
function bodyOf(lease: Lease): V1Lease {
  const { spec } = lease;
  const metadata = Object.assign(new V1ObjectMeta(), {
    name: lease.name,
    namespace: lease.namespace,
    resourceVersion: lease.resourceVersion,
  });
  const body = Object.assign(new V1LeaseSpec(), {
    holderIdentity: spec.holderIdentity,
    leaseDurationSeconds: spec.leaseDurationSeconds,
    acquireTime: spec.acquireTime === undefined ? undefined : new V1MicroTime(spec.acquireTime),
    renewTime: spec.renewTime === undefined ? undefined : new V1MicroTime(spec.renewTime),
    leaseTransitions: spec.leaseTransitions,
  });
  return Object.assign(new V1Lease(), {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata,
    spec: body,
  });
}

/** client-node's V1Lease (timestamps as Date or string, as it happens to decode them) as a Lease. */
function leaseOf(body: V1Lease): Lease {
  const spec = body.spec ?? new V1LeaseSpec();
  const time = (value: unknown): string | undefined =>
    value instanceof Date ? new V1MicroTime(value.getTime()).toISOString() : (value as string);
  const acquireTime = time(spec.acquireTime);
  const renewTime = time(spec.renewTime);
  const resourceVersion = body.metadata?.resourceVersion;
  return {
    namespace: body.metadata?.namespace ?? '',
    name: body.metadata?.name ?? '',
    ...(resourceVersion !== undefined && { resourceVersion }),
    spec: {
      ...(spec.holderIdentity !== undefined && { holderIdentity: spec.holderIdentity }),
      ...(spec.leaseDurationSeconds !== undefined && {
        leaseDurationSeconds: spec.leaseDurationSeconds,
      }),
      ...(acquireTime !== undefined && { acquireTime }),
      ...(renewTime !== undefined && { renewTime }),
      ...(spec.leaseTransitions !== undefined && { leaseTransitions: spec.leaseTransitions }),
    },
  };
}
