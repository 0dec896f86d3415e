/**
 * One BMC's Redfish transport on undici: a connection pool with its own TLS settings and
 * timeouts, authentication (session with Basic fallback), at most one mutating request in
 * flight, retries with backoff, ETag/If-Match with the 412 fallbacks, and 202 task monitors.
 * The operations (what to GET, PATCH or POST) live in UndiciRedfishClient.
 */
import { createRequire } from 'node:module';
import type { Dispatcher, Pool as UndiciPool } from 'undici';
import type { Clock } from '../../shared/clock.js';
import { systemClock } from '../../shared/clock.js';
import { RedfishError, RedfishErrorCode, parseErrorBody, redactSecrets } from './errors.js';
import {
  DEFAULT_RETRY_POLICY,
  backoffDelay,
  parseRetryAfter,
  retryDecision,
  transportCode,
} from './retry-policy.js';
import type { RetryPolicy } from './retry-policy.js';
import type { ServiceRoot, Task } from './types.js';

// undici's Pool and request API without undici's index, which also installs its Agent as the
// dispatcher of every `fetch` in the process (undici/lib/global.js): importing this module has
// no process-wide effect. The API is mixed into undici's dispatchers as its index does it.
const load = createRequire(import.meta.url);
Object.assign(
  (load('undici/lib/dispatcher/dispatcher.js') as { prototype: object }).prototype,
  load('undici/lib/api/index.js'),
);
const Pool = load('undici/lib/dispatcher/pool.js') as typeof UndiciPool;

/** BMC credentials. Never logged, never put in an error. */
export interface RedfishCredentials {
  readonly username: string;
  readonly password: string;
}

/** How to authenticate: `auto` tries a session and falls back to Basic, as ironic does. */
export type RedfishAuthMode = 'auto' | 'session' | 'basic';

/** One finished HTTP exchange, reported to {@link RedfishHttpOptions.onExchange}. */
export interface RedfishExchange {
  readonly method: string;
  readonly path: string;
  /** @default - none: the request failed before a response */
  readonly status: number | undefined;
  readonly durationMs: number;
}

/** Options of {@link RedfishHttp}. */
export interface RedfishHttpOptions {
  /** `http(s)://host[:port]` */
  readonly origin: string;
  readonly credentials: RedfishCredentials;
  /** @default 'auto' */
  readonly auth?: RedfishAuthMode;
  /** Skip TLS certificate verification (BMH `disableCertificateVerification`). @default false */
  readonly insecure?: boolean;
  /** PEM CA certificate(s) to trust instead of the system ones. @default - system CAs */
  readonly ca?: string | Buffer;
  /** @default 30_000 (ironic connect_timeout) */
  readonly connectTimeoutMs?: number;
  /** Time to the response headers, and between body chunks. @default 60_000 (read_timeout) */
  readonly requestTimeoutMs?: number;
  /** Connections kept to this BMC; mutating requests use one at a time anyway. @default 2 */
  readonly connections?: number;
  /**
   * Reuse connections. Some BMCs drop reused keep-alive connections; false sends
   * `Connection: close` on every request, as sushy does. @default true
   */
  readonly keepAlive?: boolean;
  /** @default DEFAULT_RETRY_POLICY */
  readonly retry?: RetryPolicy;
  /** Shortest wait between task-monitor polls, whatever Retry-After says. @default 50 */
  readonly minTaskPollMs?: number;
  /** How long a 202 task may run. @default 600_000 */
  readonly taskTimeoutMs?: number;
  /** @default systemClock */
  readonly clock?: Clock;
  /** @default Math.random */
  readonly random?: () => number;
  /** Use this dispatcher instead of a pool of our own (tests: MockAgent). */
  readonly dispatcher?: Dispatcher;
  /** Called after every HTTP exchange (metrics, debugging); must not throw. */
  readonly onExchange?: (exchange: RedfishExchange) => void;
}

/** A Redfish response with the headers the client acts on. */
export interface RedfishResponse<T = unknown> {
  readonly status: number;
  readonly body: T | undefined;
  /** `ETag` header, else the body's `@odata.etag`. */
  readonly etag: string | undefined;
  /** Methods of the `Allow` header, upper case. */
  readonly allow: readonly string[];
  readonly location: string | undefined;
  /** `Retry-After` header (task monitors). */
  readonly retryAfter?: string;
}

/** Options of a mutating request. */
export interface SendOptions {
  /** Sent as `If-Match` (with the 412 fallbacks); empty strings are ignored. */
  readonly etag?: string | undefined;
  /** Retry schedule override for this request. */
  readonly retry?: RetryPolicy;
}

const TASK_FAILED = new Set(['Exception', 'Killed', 'Cancelled']);
const DEFAULT_SESSIONS_PATH = '/redfish/v1/SessionService/Sessions';
const ROOT_PATH = '/redfish/v1/';

/** The Redfish transport of one BMC. Call {@link close} when done with it. */
export class RedfishHttp {
  readonly origin: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly retry: RetryPolicy;
  private readonly authMode: RedfishAuthMode;
  private auth:
    | { kind: 'none' }
    | { kind: 'basic' }
    | { kind: 'session'; token: string; uri: string | undefined } = { kind: 'none' };
  private authPending: Promise<void> | undefined;
  private sessionEverCreated = false;
  private mutating: Promise<unknown> = Promise.resolve();
  private rootCache: Promise<ServiceRoot> | undefined;
  private closed = false;

  constructor(private readonly options: RedfishHttpOptions) {
    this.origin = options.origin.replace(/\/+$/, '');
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.authMode = options.auth ?? 'auto';
    if (options.dispatcher) {
      this.dispatcher = options.dispatcher;
      this.ownsDispatcher = false;
    } else {
      const timeout = options.requestTimeoutMs ?? 60_000;
      this.dispatcher = new Pool(this.origin, {
        connections: options.connections ?? 2,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        connect: {
          timeout: options.connectTimeoutMs ?? 30_000,
          // Per BMC, never the process-wide NODE_TLS_REJECT_UNAUTHORIZED.
          rejectUnauthorized: !(options.insecure ?? false),
          ...(options.ca === undefined ? {} : { ca: options.ca }),
        },
      });
      this.ownsDispatcher = true;
    }
  }

  /** The service root, read once without credentials (Redfish serves it to anyone). */
  serviceRoot(): Promise<ServiceRoot> {
    this.rootCache ??= this.request<ServiceRoot>('GET', ROOT_PATH, undefined, {
      authenticate: false,
    }).then((res) => res.body ?? {});
    this.rootCache.catch(() => (this.rootCache = undefined));
    return this.rootCache;
  }

  /** GET with retries. */
  get<T>(path: string): Promise<RedfishResponse<T>> {
    return this.request<T>('GET', path, undefined, {});
  }

  /**
   * POST, PATCH or DELETE: one at a time per BMC, following a 202 task monitor to its end.
   * PATCH with an ETag sends If-Match; on 412 it retries once with the strong form of a weak
   * ETag, then once without If-Match (sushy `_etag_handler`).
   */
  send<T>(
    method: 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body: unknown,
    options: SendOptions = {},
  ): Promise<RedfishResponse<T>> {
    const run = async (): Promise<RedfishResponse<T>> => {
      const etags = ifMatchLadder(options.etag);
      for (let i = 0; ; i++) {
        const etag = etags[i];
        try {
          const res = await this.request<T>(method, path, body, {
            ...(etag === undefined ? {} : { ifMatch: etag }),
            ...(options.retry ? { retry: options.retry } : {}),
          });
          return res.status === 202 ? await this.followTask<T>(method, path, res) : res;
        } catch (err) {
          if (err instanceof RedfishError && err.status === 412 && i < etags.length - 1) continue;
          throw err;
        }
      }
    };
    const result = this.mutating.then(run, run);
    this.mutating = result.catch(() => undefined);
    return result;
  }

  /** Ends the session (BMCs have few) and closes the connections. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const auth = this.auth;
    if (auth.kind === 'session' && auth.uri !== undefined) {
      try {
        await this.request('DELETE', auth.uri, undefined, { retry: noRetry });
      } catch {
        // Best effort: the BMC expires it anyway.
      }
    }
    this.auth = { kind: 'none' };
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** One request with authentication, 401 re-login and retries. */
  private async request<T>(
    method: string,
    path: string,
    body: unknown,
    options: {
      authenticate?: boolean;
      ifMatch?: string;
      retry?: RetryPolicy;
      reauthenticated?: boolean;
      anyEncoding?: boolean;
    },
  ): Promise<RedfishResponse<T>> {
    const authenticate = options.authenticate ?? true;
    for (let attempt = 1; ; attempt++) {
      try {
        if (authenticate) await this.ensureAuth();
        return await this.exchange<T>(method, path, body, {
          authenticate,
          ...(options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch }),
          ...(options.anyEncoding ? { anyEncoding: true } : {}),
        });
      } catch (err) {
        if (!(err instanceof RedfishError)) throw err;
        if (err.status === 406 && method === 'GET' && !options.anyEncoding) {
          // HPE iLO Gen10 Plus refuses `Accept-Encoding: identity` on some GETs (sushy
          // NotAcceptableError branch): ask once more without it.
          return this.request<T>(method, path, body, { ...options, anyEncoding: true });
        }
        if (
          err.status === 401 &&
          authenticate &&
          this.auth.kind === 'session' &&
          !options.reauthenticated
        ) {
          // The session expired or was dropped: log in again once, retry once.
          this.auth = { kind: 'none' };
          return this.request<T>(method, path, body, { ...options, reauthenticated: true });
        }
        const decision = retryDecision(err, method, options.retry ?? this.retry);
        if (!decision.retry || attempt >= decision.policy.attempts || this.closed) throw err;
        const retryAfter =
          err.status === 503 ? parseRetryAfter(err.retryAfter, this.clock.now()) : undefined;
        const delay = Math.max(
          backoffDelay(attempt, decision.policy, this.random),
          Math.min(retryAfter ?? 0, decision.policy.maxDelayMs),
        );
        await this.clock.sleep(delay);
      }
    }
  }

  /** Makes sure there is a session or Basic auth; one login at a time. */
  private ensureAuth(): Promise<void> {
    if (this.auth.kind !== 'none') return Promise.resolve();
    if (this.authMode === 'basic') {
      this.auth = { kind: 'basic' };
      return Promise.resolve();
    }
    this.authPending ??= this.login().finally(() => (this.authPending = undefined));
    return this.authPending;
  }

  /**
   * POST {Sessions} without credentials headers. In `auto` mode a failure with an HTTP status
   * falls back to Basic unless a session was made before; connection errors do not
   * (sushy `SessionOrBasicAuth`).
   */
  private async login(): Promise<void> {
    try {
      const root = await this.serviceRoot();
      const sessions = root.Links?.Sessions?.['@odata.id'] ?? DEFAULT_SESSIONS_PATH;
      const { username, password } = this.options.credentials;
      const res = await this.exchange<{ '@odata.id'?: string }>(
        'POST',
        sessions,
        { UserName: username, Password: password },
        { authenticate: false, login: true },
      );
      const token = res.token;
      if (token === undefined || token === '')
        throw new RedfishError(RedfishErrorCode.Protocol, 'session created without X-Auth-Token', {
          method: 'POST',
          path: sessions,
          status: res.status,
        });
      this.auth = {
        kind: 'session',
        token,
        uri: res.location ?? res.body?.['@odata.id'],
      };
      this.sessionEverCreated = true;
    } catch (err) {
      const httpFailure =
        err instanceof RedfishError &&
        (err.code === RedfishErrorCode.Http || err.code === RedfishErrorCode.Protocol);
      if (this.authMode === 'auto' && httpFailure && !this.sessionEverCreated) {
        this.auth = { kind: 'basic' };
        return;
      }
      throw err;
    }
  }

  /** Follows a task monitor until it stops answering 202 (sushy `taskmonitor.py`). */
  private async followTask<T>(
    method: string,
    path: string,
    accepted: RedfishResponse<T>,
  ): Promise<RedfishResponse<T>> {
    const monitor = accepted.location;
    if (monitor === undefined)
      throw new RedfishError(RedfishErrorCode.Protocol, '202 Accepted without a Location', {
        method,
        path,
        status: 202,
      });
    const deadline = this.clock.now() + (this.options.taskTimeoutMs ?? 600_000);
    let retryAfter = accepted.retryAfter;
    for (;;) {
      // Retry-After defaults to 1 s (sushy); a BMC saying 0 is still not polled in a tight loop.
      const wait = Math.max(
        parseRetryAfter(retryAfter, this.clock.now()) ?? 1_000,
        this.options.minTaskPollMs ?? 50,
      );
      if (this.clock.now() + wait > deadline)
        throw new RedfishError(RedfishErrorCode.Timeout, `task ${monitor} did not finish`, {
          method,
          path,
        });
      await this.clock.sleep(Math.min(wait, 60_000));
      const res = await this.request<T>('GET', monitor, undefined, {});
      if (res.status === 202) {
        retryAfter = res.retryAfter;
        continue;
      }
      const task = res.body as Task | undefined;
      if (task?.TaskState !== undefined && TASK_FAILED.has(task.TaskState)) {
        const messages = this.redact(task.Messages ?? []).map((m) => ({
          ...m,
          Severity: 'Critical',
        }));
        throw new RedfishError(RedfishErrorCode.TaskFailed, `task ended ${task.TaskState}`, {
          method,
          path,
          status: res.status,
          messages,
        });
      }
      return res;
    }
  }

  /**
   * Where text from the BMC (error bodies, task messages) becomes our error text: with the
   * credentials and the session token taken out, plain, Basic-encoded and URL-encoded, as a BMC
   * that quotes a request back would show them.
   */
  private redact<T>(value: T): T {
    const { username, password } = this.options.credentials;
    const token = this.auth.kind === 'session' ? this.auth.token : '';
    return redactSecrets(value, [
      username,
      password,
      encodeURIComponent(username),
      encodeURIComponent(password),
      Buffer.from(`${username}:${password}`).toString('base64'),
      token,
    ]);
  }

  /** A single HTTP exchange; HTTP errors and transport failures become RedfishErrors. */
  private async exchange<T>(
    method: string,
    path: string,
    body: unknown,
    options: { authenticate: boolean; ifMatch?: string; login?: boolean; anyEncoding?: boolean },
  ): Promise<RedfishResponse<T> & { token?: string }> {
    const headers: Record<string, string> = {
      'odata-version': '4.0',
      accept: 'application/json',
    };
    // Compression makes some BMCs turn ETags weak (sushy do-not-offer-compression-encoding).
    if (options.anyEncoding !== true) headers['accept-encoding'] = 'identity';
    if (this.options.keepAlive === false) headers['connection'] = 'close';
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    } else if (method === 'POST') {
      // A POST without Content-Length gets 411 from some services (DMTF mockup server).
      payload = '';
    }
    if (options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
    if (options.authenticate) {
      const auth = this.auth;
      if (auth.kind === 'session') headers['x-auth-token'] = auth.token;
      else if (auth.kind === 'basic') {
        const { username, password } = this.options.credentials;
        headers['authorization'] =
          `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
      }
    }
    const started = this.clock.now();
    let status: number | undefined;
    try {
      const res = await this.dispatcher.request({
        origin: this.origin,
        path,
        method,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
      });
      status = res.statusCode;
      const text = await res.body.text();
      const header = (name: string): string | undefined => {
        const value = res.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      let json: unknown;
      if (text.trim() !== '') {
        try {
          json = JSON.parse(text);
        } catch {
          if (res.statusCode < 400)
            throw new RedfishError(RedfishErrorCode.Protocol, 'response is not JSON', {
              method,
              path,
              status: res.statusCode,
            });
        }
      }
      if (res.statusCode >= 400) {
        const parsed = parseErrorBody(this.redact(json));
        const retryAfter = header('retry-after');
        throw new RedfishError(RedfishErrorCode.Http, 'request failed', {
          method,
          path,
          status: res.statusCode,
          ...parsed,
          ...(retryAfter === undefined ? {} : { retryAfter }),
        });
      }
      const bodyEtag = (json as { '@odata.etag'?: unknown } | undefined)?.['@odata.etag'];
      const token = header('x-auth-token');
      const retryAfter = header('retry-after');
      return {
        status: res.statusCode,
        body: json as T | undefined,
        etag: header('etag') ?? (typeof bodyEtag === 'string' ? bodyEtag : undefined),
        allow: (header('allow') ?? '')
          .split(',')
          .map((m) => m.trim().toUpperCase())
          .filter((m) => m !== ''),
        location: toPath(header('location'), this.origin),
        ...(options.login && token !== undefined ? { token } : {}),
        ...(retryAfter === undefined ? {} : { retryAfter }),
      };
    } catch (err) {
      if (err instanceof RedfishError) throw err;
      const code = transportCode(err);
      const timeout = code?.includes('TIMEOUT') === true;
      throw new RedfishError(
        timeout ? RedfishErrorCode.Timeout : RedfishErrorCode.Transport,
        code ?? 'request failed',
        { method, path, cause: err },
      );
    } finally {
      this.options.onExchange?.({
        method,
        path,
        status,
        durationMs: this.clock.now() - started,
      });
    }
  }
}

const noRetry: RetryPolicy = { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 };

/** If-Match values to try in turn: the ETag, its strong form if weak, then none. */
function ifMatchLadder(etag: string | undefined): (string | undefined)[] {
  if (etag === undefined || etag === '') return [undefined];
  if (etag.startsWith('W/')) return [etag, etag.slice(2), undefined];
  return [etag, undefined];
}

/** Location headers may be absolute; keep only the path when it is on this BMC. */
function toPath(location: string | undefined, origin: string): string | undefined {
  if (location === undefined || location === '') return undefined;
  if (location.startsWith('/')) return location;
  try {
    const url = new URL(location);
    return url.origin === new URL(origin).origin ? `${url.pathname}${url.search}` : location;
  } catch {
    return location;
  }
}
