/**
 * KubeClient on @kubernetes/client-node 1.4 (`KubernetesObjectApi`, which discovers each kind's
 * resource path). This file and src/bmac/kube are the only places that import client-node; its
 * errors are turned into KubeApiError / KubeUnreachableError here and never passed on, because
 * its `ApiException` message carries the whole HTTP response.
 */
import {
  ApiException,
  createConfiguration,
  HttpMethod,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  ServerConfiguration,
} from '@kubernetes/client-node';
import type {
  Configuration,
  KubernetesObject,
  RequestContext,
  ResponseContext,
  V1APIResource,
} from '@kubernetes/client-node';
import { KubeApiError, KubeApiErrorCode, KubeUnreachableError } from './errors.js';
import type { KubeStatusCause } from './errors.js';
import { keepAliveAgent } from './keep-alive.js';
import type {
  ApplyOptions,
  DeleteOptions,
  GroupVersionKind,
  KubeClient,
  KubeObject,
  ListOptions,
  ObjectRef,
} from './kube-client.js';

/** Options of ClientNodeKubeClient. */
export interface ClientNodeKubeClientOptions {
  /**
   * Path of the kubeconfig file to use (its current context).
   * @default $KUBECONFIG, else ~/.kube/config, else the in-cluster service account
   */
  readonly kubeconfig?: string;
  /** Per-request time limit, so an unanswering server fails instead of hanging. @default 30_000 */
  readonly requestTimeoutMs?: number;
}

/** Reads a kubeconfig; throws KubeUnreachableError when there is none or it is unusable. */
export function loadKubeConfig(path?: string): KubeConfig {
  const kc = new KubeConfig();
  const source = path ?? 'the default kubeconfig';
  try {
    if (path === undefined) kc.loadFromDefault();
    else kc.loadFromFile(path);
  } catch (err) {
    throw new KubeUnreachableError(`cannot read ${source}: ${errorText(err)}`);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new KubeUnreachableError(`${source} has no current context with a cluster`);
  // loadFromDefault's last resort when it finds no configuration at all.
  if (
    path === undefined &&
    cluster.name === 'cluster' &&
    cluster.server === 'http://localhost:8080'
  )
    throw new KubeUnreachableError('no kubeconfig found: pass --kubeconfig FILE or set KUBECONFIG');
  return kc;
}

/** KubeClient over client-node's KubernetesObjectApi. */
export class ClientNodeKubeClient implements KubeClient {
  /** The API server URL from the kubeconfig (never credentials). */
  readonly server: string;
  private readonly api: DiscoveringObjectApi;

  /** @throws KubeUnreachableError when the kubeconfig cannot be read */
  static fromKubeconfig(options: ClientNodeKubeClientOptions = {}): ClientNodeKubeClient {
    return new ClientNodeKubeClient(loadKubeConfig(options.kubeconfig), options);
  }

  /**
   * A client from the text of a kubeconfig, such as a spoke cluster's admin kubeconfig Secret
   * (its current context).
   * @throws KubeUnreachableError when the text is not a usable kubeconfig; the message never
   *   quotes the text, which holds credentials
   */
  static fromKubeconfigText(
    text: string,
    options: Omit<ClientNodeKubeClientOptions, 'kubeconfig'> = {},
  ): ClientNodeKubeClient {
    const kc = new KubeConfig();
    try {
      kc.loadFromString(text);
    } catch {
      throw new KubeUnreachableError('the kubeconfig is not a valid kubeconfig document');
    }
    return new ClientNodeKubeClient(kc, options);
  }

  constructor(
    kubeConfig: KubeConfig,
    options: Omit<ClientNodeKubeClientOptions, 'kubeconfig'> = {},
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new KubeUnreachableError('the kubeconfig has no current cluster');
    this.server = cluster.server;
    const timeoutMs = options.requestTimeoutMs ?? 30_000;
    const reuseAgent = keepAliveAgent();
    const configuration = createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: kubeConfig },
      promiseMiddleware: [
        {
          pre: (context: RequestContext): Promise<RequestContext> => {
            context.setSignal(AbortSignal.timeout(timeoutMs));
            // Unknown or duplicate fields are errors, as with kubectl; the default would drop
            // them silently and the object read back would differ from what was sent.
            if (context.getHttpMethod() === HttpMethod.PATCH)
              context.setQueryParam('fieldValidation', 'Strict');
            // An apply of thousands of objects reuses keep-alive connections.
            reuseAgent(context);
            return Promise.resolve(context);
          },
          post: (response: ResponseContext): Promise<ResponseContext> => Promise.resolve(response),
        },
      ],
    });
    this.api = new DiscoveringObjectApi(configuration);
  }

  async apply(object: KubeObject, options: ApplyOptions): Promise<KubeObject> {
    // client-node fills in defaults on the object it is given; keep the caller's untouched.
    const body = structuredClone(object) as KubernetesObject;
    return this.call(async () => plain(await this.api.serverSideApply(body, options)));
  }

  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    try {
      return await this.call(async () => plain(await this.api.read<ObjectHeader>(headerOf(ref))));
    } catch (err) {
      if (err instanceof KubeApiError && err.code === KubeApiErrorCode.NotFound) return undefined;
      throw err;
    }
  }

  async delete(ref: ObjectRef, options: DeleteOptions = {}): Promise<boolean> {
    try {
      await this.call(() =>
        this.api.delete(
          headerOf(ref),
          undefined,
          undefined,
          undefined,
          undefined,
          options.propagation ?? 'Background',
        ),
      );
      return true;
    } catch (err) {
      if (err instanceof KubeApiError && err.code === KubeApiErrorCode.NotFound) return false;
      throw err;
    }
  }

  async list(gvk: GroupVersionKind, options: ListOptions = {}): Promise<KubeObject[]> {
    const list = await this.call(() =>
      this.api.list(
        gvk.apiVersion,
        gvk.kind,
        options.namespace,
        undefined,
        undefined,
        undefined,
        undefined,
        options.labelSelector,
      ),
    );
    // Items of a list carry no apiVersion and kind for built-in types.
    return list.items.map((item) => ({
      ...(plain(item) as unknown as Record<string, unknown>),
      apiVersion: gvk.apiVersion,
      kind: gvk.kind,
    })) as KubeObject[];
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (err) {
      throw toKubeError(err, this.server);
    }
  }
}

/**
 * KubernetesObjectApi with two fixes. It turns "this kind is not served" into a typed error:
 * client-node would otherwise answer a missing CRD with a plain Error, or with a discovery 404
 * indistinguishable from a missing object. And it sends apply bodies as they are: `patch()`
 * passes built-in kinds through client-node's typed models, which silently drop unknown fields,
 * so the server's strict field validation would never see them.
 */
export class DiscoveringObjectApi extends KubernetesObjectApi {
  async serverSideApply(
    object: KubernetesObject,
    options: ApplyOptions,
  ): Promise<KubernetesObject> {
    const path = await this.specUriPath(object, 'patch');
    const request = this.configuration.baseServer.makeRequestContext(path, HttpMethod.PATCH);
    request.setHeaderParam('Accept', 'application/json');
    request.setHeaderParam('Content-Type', PatchStrategy.ServerSideApply);
    request.setQueryParam('fieldManager', options.fieldManager);
    request.setQueryParam('force', String(options.force ?? false));
    if (options.dryRun === true) request.setQueryParam('dryRun', 'All');
    request.setBody(JSON.stringify(object)); // JSON is YAML, which apply patches are
    return this.requestPromise(request);
  }

  protected override async resource(
    apiVersion: string,
    kind: string,
    options?: Configuration,
  ): Promise<V1APIResource | undefined> {
    let found: V1APIResource | undefined;
    try {
      found = await super.resource(apiVersion, kind, options);
    } catch (err) {
      if (!(err instanceof ApiException && err.code === 404)) throw err;
    }
    if (found) return found;
    throw new KubeApiError(
      404,
      'NotFound',
      `the API server does not serve kind ${kind} in ${apiVersion}; is its CRD installed?`,
      { kind, causes: [] },
      KubeApiErrorCode.KindUnknown,
    );
  }
}

/** What client-node needs to find one object. */
interface ObjectHeader extends KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

function headerOf(ref: ObjectRef): ObjectHeader {
  const metadata =
    ref.namespace === undefined ? { name: ref.name } : { name: ref.name, namespace: ref.namespace };
  return { apiVersion: ref.apiVersion, kind: ref.kind, metadata };
}

/** client-node's typed models (Date timestamps, class instances) as plain JSON data. */
function plain(object: object): KubeObject {
  return JSON.parse(JSON.stringify(object)) as KubeObject;
}

interface StatusBody {
  readonly message?: string;
  readonly reason?: string;
  readonly details?: {
    readonly name?: string;
    readonly group?: string;
    readonly kind?: string;
    readonly causes?: readonly KubeStatusCause[];
  };
}

/** Any error of a client-node request as KubeApiError / KubeUnreachableError (others pass through). */
export function toKubeError(err: unknown, server: string): Error {
  if (err instanceof KubeApiError || err instanceof KubeUnreachableError) return err;
  if (err instanceof ApiException) {
    const status = parseStatus(err.body);
    const reason = status?.reason ?? `HTTP${String(err.code)}`;
    const message = status?.message ?? `the API server answered HTTP ${String(err.code)}`;
    const details = status?.details;
    return new KubeApiError(err.code, reason, message, {
      ...(details?.name !== undefined && { name: details.name }),
      ...(details?.group !== undefined && { group: details.group }),
      ...(details?.kind !== undefined && { kind: details.kind }),
      causes: (details?.causes ?? []).map((c) => ({
        ...(c.reason !== undefined && { reason: c.reason }),
        ...(c.message !== undefined && { message: c.message }),
        ...(c.field !== undefined && { field: c.field }),
      })),
    });
  }
  if (err instanceof Error) {
    // node-fetch's FetchError (refused, reset, DNS, TLS) and AbortError (our time limit).
    if (err.name === 'FetchError' || err.name === 'AbortError' || err.name === 'TimeoutError') {
      const code = (err as { code?: unknown }).code;
      const why =
        err.name === 'FetchError'
          ? typeof code === 'string'
            ? code
            : err.message.replace(/^.*reason: /, '')
          : 'no answer in time';
      return new KubeUnreachableError(`cannot reach the API server at ${server}: ${why}`, server);
    }
  }
  return err instanceof Error ? err : new Error(String(err));
}

function parseStatus(body: unknown): StatusBody | undefined {
  let value = body;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return value !== null && typeof value === 'object' ? value : undefined;
}

function errorText(err: unknown): string {
  if (err instanceof Error && 'code' in err && err.code === 'ENOENT') return 'no such file';
  return err instanceof Error ? err.message : String(err);
}
