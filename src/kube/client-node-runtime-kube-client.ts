/**
 * RuntimeKubeClient on @kubernetes/client-node 1.4. Requests go through KubernetesObjectApi's
 * discovery (resource paths) and auth, but bodies are sent and read as plain JSON: its typed
 * models would turn timestamps into Dates and drop fields they do not know. Watches use
 * client-node's `Watch`, which has no time limit of its own; a watchdog here ends a watch the
 * server should have ended, so a half-open connection cannot leave an informer silent forever.
 */
import { keepAliveAgent } from './keep-alive.js';
import {
  ApiException,
  createConfiguration,
  HttpMethod,
  ServerConfiguration,
  Watch,
} from '@kubernetes/client-node';
import type {
  Configuration,
  KubeConfig,
  KubernetesObject,
  RequestContext,
  ResponseContext,
  V1APIResource,
} from '@kubernetes/client-node';
import { DiscoveringObjectApi, loadKubeConfig, toKubeError } from './client-node-kube-client.js';
import { KubeApiError, KubeApiErrorCode, KubeUnreachableError } from './errors.js';
import type { DeleteOptions, GroupVersionKind, KubeObject, ObjectRef } from './kube-client.js';
import type {
  ListResult,
  RequestObserver,
  RequestVerb,
  RuntimeKubeClient,
  ScopeOptions,
  WatchEvent,
  WatchOptions,
  WatchStream,
} from './runtime-kube-client.js';

/** Options of ClientNodeRuntimeKubeClient. */
export interface ClientNodeRuntimeKubeClientOptions {
  /** Per-request time limit (not for watches). @default 30_000 */
  readonly requestTimeoutMs?: number;
  /** Objects per page of a list. @default 500 */
  readonly pageSize?: number;
  /** Told of every request and its HTTP status, for metrics. */
  readonly onRequest?: RequestObserver;
  /** How long past its `timeoutSeconds` a watch may stay open before it is cut. @default 30_000 */
  readonly watchGraceMs?: number;
}

/** RuntimeKubeClient over client-node's KubernetesObjectApi and Watch. */
export class ClientNodeRuntimeKubeClient implements RuntimeKubeClient {
  /** The API server URL from the kubeconfig (never credentials). */
  readonly server: string;
  private readonly api: RawObjectApi;
  private readonly watcher: Watch;
  private readonly pageSize: number;
  private readonly watchGraceMs: number;
  private readonly observe: RequestObserver;

  /** @throws KubeUnreachableError when the kubeconfig cannot be read */
  static fromKubeconfig(
    path?: string,
    options: ClientNodeRuntimeKubeClientOptions = {},
  ): ClientNodeRuntimeKubeClient {
    return new ClientNodeRuntimeKubeClient(loadKubeConfig(path), options);
  }

  constructor(kubeConfig: KubeConfig, options: ClientNodeRuntimeKubeClientOptions = {}) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new KubeUnreachableError('the kubeconfig has no current cluster');
    this.server = cluster.server;
    this.pageSize = options.pageSize ?? 500;
    this.watchGraceMs = options.watchGraceMs ?? 30_000;
    this.observe = options.onRequest ?? (() => undefined);
    const timeoutMs = options.requestTimeoutMs ?? 30_000;
    const reuseAgent = keepAliveAgent();
    const configuration = createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: kubeConfig },
      promiseMiddleware: [
        {
          pre: (context: RequestContext): Promise<RequestContext> => {
            context.setSignal(AbortSignal.timeout(timeoutMs));
            // A controller's steady traffic reuses keep-alive connections.
            reuseAgent(context);
            return Promise.resolve(context);
          },
          post: (response: ResponseContext): Promise<ResponseContext> => Promise.resolve(response),
        },
      ],
    });
    this.api = new RawObjectApi(configuration, this.observe);
    this.watcher = new Watch(kubeConfig);
  }

  async namespaced(gvk: GroupVersionKind): Promise<boolean> {
    try {
      return await this.api.namespaced(gvk);
    } catch (err) {
      throw toKubeError(err, this.server);
    }
  }

  async list(gvk: GroupVersionKind, options: ScopeOptions = {}): Promise<ListResult> {
    const path = await this.path(listHeader(gvk, options.namespace), 'list');
    const items: KubeObject[] = [];
    let resourceVersion = '';
    let token: string | undefined;
    do {
      const query: Record<string, string> = { limit: String(this.pageSize) };
      if (options.labelSelector !== undefined) query['labelSelector'] = options.labelSelector;
      if (token !== undefined) query['continue'] = token;
      const page = (await this.send('list', HttpMethod.GET, path, query)) as ListBody;
      // Every page of one list is a snapshot at the first page's version.
      if (token === undefined) resourceVersion = page.metadata?.resourceVersion ?? '';
      // Items of a list carry no apiVersion and kind.
      for (const item of page.items ?? [])
        items.push({ ...item, apiVersion: gvk.apiVersion, kind: gvk.kind } as KubeObject);
      const next = page.metadata?.continue;
      token = next === undefined || next === '' ? undefined : next;
    } while (token !== undefined);
    return { items, resourceVersion };
  }

  watch(
    gvk: GroupVersionKind,
    options: WatchOptions,
    onEvent: (event: WatchEvent) => void,
  ): WatchStream {
    let stopped = false;
    let abort: AbortController | undefined;
    let settle: (error?: Error) => void = () => undefined;
    const ended = new Promise<void>((resolve, reject) => {
      settle = (error) => {
        settle = () => undefined;
        clearTimeout(watchdog);
        abort?.abort();
        if (error && !stopped) reject(error);
        else resolve();
      };
    });
    const limitMs =
      options.timeoutSeconds === undefined
        ? undefined
        : options.timeoutSeconds * 1000 + this.watchGraceMs;
    const watchdog =
      limitMs === undefined
        ? undefined
        : setTimeout(() => {
            settle(
              new KubeUnreachableError(
                `the watch of ${gvk.kind} at ${this.server} stayed open past its time limit`,
                this.server,
              ),
            );
          }, limitMs).unref();

    const query: Record<string, string | number | boolean> = {
      resourceVersion: options.resourceVersion,
      allowWatchBookmarks: true,
    };
    if (options.timeoutSeconds !== undefined) query['timeoutSeconds'] = options.timeoutSeconds;
    if (options.labelSelector !== undefined) query['labelSelector'] = options.labelSelector;
    const onLine = (type: string, object: unknown): void => {
      const event = watchEvent(gvk, type, object);
      if (event instanceof Error) settle(event);
      else if (event && !stopped) onEvent(event);
    };
    const onDone = (err: unknown): void => {
      if (err === null || err === undefined) {
        this.observe('watch', 200);
        settle();
        return;
      }
      const error = this.watchError(err);
      this.observe('watch', error instanceof KubeApiError ? error.status : 'unreachable');
      settle(error);
    };
    void this.path(listHeader(gvk, options.namespace), 'list')
      .then((path) => this.watcher.watch(path, query, onLine, onDone))
      .then((controller) => {
        abort = controller;
        if (stopped) controller.abort();
      })
      .catch((err: unknown) => {
        onDone(err);
      });
    return {
      ended,
      stop: () => {
        stopped = true;
        settle();
      },
    };
  }

  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    const path = await this.path(header(ref), 'read');
    try {
      return (await this.send('get', HttpMethod.GET, path)) as KubeObject;
    } catch (err) {
      if (err instanceof KubeApiError && err.code === KubeApiErrorCode.NotFound) return undefined;
      throw err;
    }
  }

  async create(object: KubeObject): Promise<KubeObject> {
    const path = await this.path(header(object), 'create');
    return (await this.send('create', HttpMethod.POST, path, {}, object)) as KubeObject;
  }

  async update(object: KubeObject): Promise<KubeObject> {
    const path = await this.path(header(object), 'replace');
    return (await this.send('update', HttpMethod.PUT, path, {}, object)) as KubeObject;
  }

  async updateStatus(object: KubeObject): Promise<KubeObject> {
    const path = await this.path(header(object), 'replace');
    return (await this.send(
      'updateStatus',
      HttpMethod.PUT,
      `${path}/status`,
      {},
      object,
    )) as KubeObject;
  }

  async delete(ref: ObjectRef, options: DeleteOptions = {}): Promise<boolean> {
    const path = await this.path(header(ref), 'delete');
    try {
      await this.send('delete', HttpMethod.DELETE, path, {
        propagationPolicy: options.propagation ?? 'Background',
      });
      return true;
    } catch (err) {
      if (err instanceof KubeApiError && err.code === KubeApiErrorCode.NotFound) return false;
      throw err;
    }
  }

  private async path(
    spec: KubernetesObject,
    action: 'list' | 'read' | 'create' | 'replace' | 'delete',
  ): Promise<string> {
    try {
      return await this.api.uriPath(spec, action);
    } catch (err) {
      throw toKubeError(err, this.server);
    }
  }

  private async send(
    verb: RequestVerb,
    method: HttpMethod,
    path: string,
    query: Readonly<Record<string, string>> = {},
    body?: KubeObject,
  ): Promise<unknown> {
    const started = performance.now();
    try {
      const answer = await this.api.raw(method, path, query, body);
      this.observe(verb, answer.status, resourceOf(path), (performance.now() - started) / 1000);
      return answer.body;
    } catch (err) {
      const error = toKubeError(err, this.server);
      this.observe(
        verb,
        error instanceof KubeApiError ? error.status : 'unreachable',
        resourceOf(path),
        (performance.now() - started) / 1000,
      );
      throw error;
    }
  }

  private watchError(err: unknown): Error {
    if (err instanceof KubeApiError || err instanceof KubeUnreachableError) return err;
    const status = (err as { statusCode?: unknown } | null)?.statusCode;
    if (typeof status === 'number')
      return new KubeApiError(
        status,
        `HTTP${String(status)}`,
        `the API server refused the watch with HTTP ${String(status)}`,
      );
    const converted = toKubeError(err, this.server);
    if (converted instanceof KubeUnreachableError) return converted;
    const why = err instanceof Error ? err.message : String(err);
    return new KubeUnreachableError(`the watch at ${this.server} broke: ${why}`, this.server);
  }
}

/** The answer of a raw request. */
interface RawAnswer {
  readonly status: number;
  readonly body: unknown;
}

const RAW = 'SiteForgeRawJson';

/** DiscoveringObjectApi sending and returning plain JSON, and counting discovery requests. */
class RawObjectApi extends DiscoveringObjectApi {
  constructor(
    configuration: Configuration,
    private readonly observe: RequestObserver,
  ) {
    super(configuration);
  }

  uriPath(
    spec: KubernetesObject,
    action: 'list' | 'read' | 'create' | 'replace' | 'delete',
  ): Promise<string> {
    return this.specUriPath(spec, action);
  }

  async namespaced(gvk: GroupVersionKind): Promise<boolean> {
    // DiscoveringObjectApi throws KUBE_KIND_UNKNOWN rather than answer undefined.
    const resource = await this.resource(gvk.apiVersion, gvk.kind);
    return resource?.namespaced ?? true;
  }

  async raw(
    method: HttpMethod,
    path: string,
    query: Readonly<Record<string, string>>,
    body: KubeObject | undefined,
  ): Promise<RawAnswer> {
    const request = this.configuration.baseServer.makeRequestContext(path, method);
    request.setHeaderParam('Accept', 'application/json');
    for (const [name, value] of Object.entries(query)) request.setQueryParam(name, value);
    if (body !== undefined) {
      request.setHeaderParam('Content-Type', 'application/json');
      request.setBody(JSON.stringify(body));
    }
    return (await this.requestPromise(request, RAW)) as unknown as RawAnswer;
  }

  protected override async processResponse<T extends KubernetesObject>(
    response: ResponseContext,
    type?: string,
  ): Promise<T> {
    if (type !== RAW || response.httpStatusCode < 200 || response.httpStatusCode > 299)
      return super.processResponse(response, type);
    const text = await response.body.text();
    const answer: RawAnswer = {
      status: response.httpStatusCode,
      body: text === '' ? undefined : JSON.parse(text),
    };
    return answer as unknown as T;
  }

  protected override async resource(
    apiVersion: string,
    kind: string,
    options?: Configuration,
  ): Promise<V1APIResource | undefined> {
    const cached = this.apiVersionResourceCache[apiVersion]?.resources.some((r) => r.kind === kind);
    if (cached === true) return super.resource(apiVersion, kind, options);
    try {
      const found = await super.resource(apiVersion, kind, options);
      this.observe('discovery', 200);
      return found;
    } catch (err) {
      const status =
        err instanceof KubeApiError
          ? err.status
          : err instanceof ApiException
            ? err.code
            : undefined;
      this.observe('discovery', status ?? 'unreachable');
      throw err;
    }
  }
}

interface ListBody {
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
  readonly items?: readonly Record<string, unknown>[];
}

/** A watch line as a WatchEvent; an ERROR line as the error it reports. */
function watchEvent(
  gvk: GroupVersionKind,
  type: string,
  object: unknown,
): WatchEvent | Error | undefined {
  const body = (object ?? {}) as {
    metadata?: { resourceVersion?: string };
    code?: number;
    reason?: string;
    message?: string;
  };
  switch (type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      return {
        type,
        object: { ...(object as KubeObject), apiVersion: gvk.apiVersion, kind: gvk.kind },
      };
    case 'BOOKMARK':
      return { type, resourceVersion: body.metadata?.resourceVersion ?? '' };
    case 'ERROR': {
      const status = body.code ?? 500;
      return new KubeApiError(
        status,
        body.reason ?? `HTTP${String(status)}`,
        body.message ?? `the watch of ${gvk.kind} ended with HTTP ${String(status)}`,
      );
    }
    default:
      return undefined;
  }
}

/** What client-node needs to find a resource path. */
interface PathHeader extends KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string };
}

function header(ref: ObjectRef | KubeObject): PathHeader {
  const { name, namespace } = 'metadata' in ref ? ref.metadata : ref;
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: namespace === undefined ? { name } : { name, namespace },
  };
}

function listHeader(gvk: GroupVersionKind, namespace: string | undefined): PathHeader {
  return {
    apiVersion: gvk.apiVersion,
    kind: gvk.kind,
    metadata: namespace === undefined ? {} : { namespace },
  };
}

/**
 * The resource a request path names (`/apis/g/v/namespaces/ns/things/name/status` →
 * `things/status`), for metrics: a bounded label, unlike the path.
 */
export function resourceOf(path: string): string {
  const parts = path
    .split('?')[0]!
    .split('/')
    .filter((p) => p !== '');
  // /api/v1/... or /apis/group/version/...
  let rest = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  const resource = rest[0] ?? '';
  return rest[2] === undefined ? resource : `${resource}/${rest[2]}`;
}
