/**
 * The assisted-service v2 agent API the discovery agent (assisted-installer-agent) and its
 * dry-run mode talk to: the same paths under `/api/assisted-install`, methods, JSON fields,
 * headers and status codes as assisted-service's go-swagger server. The API authenticates,
 * reads and checks the request as go-openapi does (401, 400, 415, 422, 404, 405 before any
 * handler), then asks the AgentApiBackend; it never changes a record itself.
 *
 * One deliberate difference: upstream's local authenticator lets a valid token of one InfraEnv
 * call on another InfraEnv's path. Here the token's `infra_env_id` must be the InfraEnv of the
 * path, and every authentication failure is the same 401, so no caller learns whether an
 * InfraEnv or host exists without holding its InfraEnv's token.
 */
import { mkdir } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse as parseQuery } from 'node:querystring';
import express from 'express';
import { SiteForgeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { HostStage, StepType } from '../model.js';
import type { HostStage as HostStageValue, StepType as StepTypeValue } from '../model.js';
import { AGENT_AUTH_HEADER, AgentTokenVerifier } from './auth.js';
import type { AgentTokenKey } from './auth.js';
import type {
  AgentApiBackend,
  AgentApiBackendExtras,
  InfraEnvRef,
  LogsState,
  Refusal,
} from './backend.js';
import { multipartBoundary, storeMultipartField } from './multipart.js';
import { nextStepRunnerArgs, parseStepReply } from './steps.js';
import { BASE_PATH, UNAUTHORIZED, apiError, infraError, renderHost, renderSteps } from './wire.js';

/** Byte budgets of request bodies. */
export interface AgentApiLimits {
  /** One JSON body (an inventory of a large host is a few hundred KB). @default 10 MiB */
  readonly jsonBodyBytes?: number;
  /** One log upload, multipart framing included (upstream `upfile` maxLength). @default 250 MB */
  readonly logsBytes?: number;
}

/** What the agent API needs. */
export interface AgentApiOptions {
  /** The assisted core; the optional AgentApiBackendExtras are used when present. */
  readonly backend: AgentApiBackend & AgentApiBackendExtras;
  /** Verifies agent tokens (the public half of the key the ignition's token is signed with). */
  readonly tokenKey: AgentTokenKey;
  /** The agent image the next-step runner runs (`AGENT_DOCKER_IMAGE`). */
  readonly agentImage: string;
  /** Where host log uploads are stored: `<logsDir>/<cluster_id>/<host_id>.tar.gz`. */
  readonly logsDir: string;
  readonly limits?: AgentApiLimits;
  /** The request's arrival time. @default the system clock */
  readonly now?: () => Date;
  readonly log?: Logger;
  /**
   * Whether this process answers now (the replica that leads, caches synced). Otherwise every
   * request gets 503 with Retry-After, which the agent retries; a 401 or 404 would make it stop.
   * @default always
   */
  readonly available?: () => boolean;
  /** Told of every answered request (for metrics: requests and latency per operation). */
  readonly observe?: (event: AgentApiRequestEvent) => void;
}

/** One answered request. */
export interface AgentApiRequestEvent {
  /** The swagger operation (`v2RegisterHost`, …), or `unknown` for paths we do not serve. */
  readonly operation: string;
  readonly method: string;
  readonly status: number;
  readonly durationMs: number;
}

/** Our routes and their upstream operation ids, also for 405's Allow. */
const OPERATIONS: readonly { pattern: RegExp; method: string; operation: string }[] = [
  { pattern: /^\/v2\/infra-envs\/[^/]+\/hosts\/?$/, method: 'POST', operation: 'v2RegisterHost' },
  {
    pattern: /^\/v2\/infra-envs\/[^/]+\/hosts\/[^/]+\/instructions\/?$/,
    method: 'GET',
    operation: 'v2GetNextSteps',
  },
  {
    pattern: /^\/v2\/infra-envs\/[^/]+\/hosts\/[^/]+\/instructions\/?$/,
    method: 'POST',
    operation: 'v2PostStepReply',
  },
  {
    pattern: /^\/v2\/infra-envs\/[^/]+\/hosts\/[^/]+\/progress\/?$/,
    method: 'PUT',
    operation: 'v2UpdateHostInstallProgress',
  },
  {
    pattern: /^\/v2\/infra-envs\/[^/]+\/hosts\/[^/]+\/logs-progress\/?$/,
    method: 'PUT',
    operation: 'v2UpdateHostLogsProgress',
  },
  { pattern: /^\/v2\/infra-envs\/[^/]+\/hosts\/[^/]+\/?$/, method: 'GET', operation: 'v2GetHost' },
  { pattern: /^\/v2\/clusters\/[^/]+\/logs\/?$/, method: 'POST', operation: 'v2UploadLogs' },
];

function operationOf(method: string, path: string): string {
  if (!path.startsWith(`${BASE_PATH}/`)) return 'unknown';
  const inner = path.slice(BASE_PATH.length);
  const verb = method === 'HEAD' ? 'GET' : method;
  return (
    OPERATIONS.find((op) => op.method === verb && op.pattern.test(inner))?.operation ?? 'unknown'
  );
}

/** Default JSON body budget. */
export const DEFAULT_JSON_BODY_BYTES = 10 * 1024 * 1024;
/** Default log upload budget: swagger's `upfile` maxLength (262144000). */
export const DEFAULT_LOGS_BYTES = 262_144_000;

const LOGS_STATES: readonly LogsState[] = ['requested', 'collecting', 'completed', 'timeout', ''];
const HOST_STAGES: readonly string[] = Object.values(HostStage);
const STEP_TYPES: readonly string[] = Object.values(StepType);

/** go-openapi strfmt's UUID: the hyphens are optional (`{32 hex}` is one too). */
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** A UUID in the hyphenated lowercase form (the Agent's name, the records' keys). */
function canonicalUuid(value: string): string {
  const hex = value.replace(/-/g, '').toLowerCase();
  return [0, 8, 12, 16, 20]
    .map((start, i, starts) => hex.slice(start, starts[i + 1] ?? 32))
    .join('-');
}

/** A refusal go-openapi would have sent before the handler: status and `{code, message}`. */
class EarlyRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A request as the routes see it: node's, with the params the router matched. */
type Request = IncomingMessage & { params: Record<string, string | undefined> };
type Response = ServerResponse;
type NextFunction = (err?: unknown) => void;

/** The first value of a request header (lower-case name). */
function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The request's path, without the query (express's `req.path`). */
function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** Answers JSON as express's res.json does (charset, length; no body for HEAD). */
function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  if (res.req.method === 'HEAD') res.end();
  else res.end(text);
}

/** Answers a status without a body. */
function sendEmpty(res: ServerResponse, status: number): void {
  res.statusCode = status;
  res.end();
}

/**
 * The agent API's request handler (no listener; see startAgentApiServer): an express Router on
 * the bare node:http request and response. Not an express application, whose per-request swap
 * of both objects' prototypes made every response write several times dearer (the agent API
 * answers hundreds of polls a second at fleet scale).
 */
export function createAgentApiHandler(
  options: AgentApiOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { backend } = options;
  const now = options.now ?? (() => new Date());
  const jsonLimit = options.limits?.jsonBodyBytes ?? DEFAULT_JSON_BODY_BYTES;
  const logsLimit = options.limits?.logsBytes ?? DEFAULT_LOGS_BYTES;
  const log = options.log;
  const verifier = new AgentTokenVerifier(options.tokenKey);
  const available = options.available;
  /** Answers 503 when this replica does not act; true when it did. */
  const unavailable = (res: ServerResponse): boolean => {
    if (available === undefined || available()) return false;
    res.setHeader('Retry-After', '5');
    // Closed, so the agent's next connection may reach the replica that acts (the Service
    // balances connections, not requests).
    res.setHeader('Connection', 'close');
    sendJson(res, 503, apiError(503, 'The service is not ready to serve agents; retry later'));
    return true;
  };

  /** The InfraEnv the request's token proves, when it is the path's (or the only one asked). */
  const authenticate = async (req: Request, pathInfraEnvId?: string): Promise<InfraEnvRef> => {
    const token = header(req, AGENT_AUTH_HEADER);
    const claimed =
      token === undefined || token === '' ? undefined : await verifier.verify(token, now());
    const infraEnv = claimed === undefined ? undefined : backend.infraEnv(claimed);
    const asked =
      pathInfraEnvId !== undefined && UUID.test(pathInfraEnvId)
        ? canonicalUuid(pathInfraEnvId)
        : pathInfraEnvId;
    if (!infraEnv || (asked !== undefined && asked !== infraEnv.id)) {
      throw new EarlyRefusal(401, UNAUTHORIZED.code, UNAUTHORIZED.message);
    }
    return infraEnv;
  };

  /** A route's handler: its rejection goes to the error handler. */
  const route = (
    handler: (req: Request, res: Response) => Promise<void>,
  ): express.RequestHandler => {
    const run = (req: Request, res: Response, next: NextFunction): void => {
      handler(req, res).catch(next);
    };
    // The router runs on node's own request and response (see createAgentApiHandler).
    return run as unknown as express.RequestHandler;
  };

  const sendRefusal = (res: Response, refusal: Refusal): void => {
    if (refusal.httpStatus === 503) res.setHeader('Retry-After', '5');
    sendJson(res, refusal.httpStatus, apiError(refusal.httpStatus, refusal.reason));
  };

  const readJson = async (req: Request, param: string): Promise<unknown> => {
    const type = header(req, 'content-type');
    if (type !== undefined && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type.trim())) {
      throw new EarlyRefusal(
        415,
        415,
        `unsupported media type ${JSON.stringify(type)}, only [application/json] are allowed`,
      );
    }
    const text = await readBody(req, jsonLimit);
    if (text.trim() === '') throw new EarlyRefusal(422, 602, `${param} in body is required`);
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new EarlyRefusal(
        400,
        400,
        `parsing ${param} body from "" failed, because ${(error as Error).message}`,
      );
    }
  };

  const router = express.Router({ caseSensitive: true, strict: false });
  const hostsPath = '/v2/infra-envs/:infra_env_id/hosts';
  const hostPath = `${hostsPath}/:host_id`;

  router.post(
    hostsPath,
    route(async (req, res) => {
      const infraEnv = await authenticate(req, param(req, 'infra_env_id'));
      const body = objectBody(await readJson(req, 'new-host-params'), 'new-host-params');
      const hostId = requiredUuid(body, 'host_id');
      const bodyVersion = optionalString(body, 'discovery_agent_version');
      const version = bodyVersion ?? header(req, 'discovery_agent_version');
      const outcome = await backend.registerHost(infraEnv, hostId, version, now());
      if (!outcome.ok) {
        sendRefusal(res, outcome);
        return;
      }
      sendJson(res, 201, {
        ...renderHost(outcome.value, backend.hostView?.(infraEnv, hostId)),
        next_step_runner_command: {
          args: nextStepRunnerArgs(infraEnv.id, hostId, options.agentImage),
        },
      });
    }),
  );

  router.get(
    `${hostPath}/instructions`,
    route(async (req, res) => {
      const infraEnv = await authenticate(req, param(req, 'infra_env_id'));
      const hostId = pathUuid(req, 'host_id');
      const timestamp = query(req, 'timestamp');
      if (timestamp !== undefined && !/^-?\d+$/.test(timestamp)) {
        throw new EarlyRefusal(
          422,
          601,
          `timestamp in query must be of type int64: ${JSON.stringify(timestamp)}`,
        );
      }
      const version = header(req, 'discovery_agent_version');
      backend.agentCheckIn?.(
        infraEnv,
        hostId,
        {
          ...(version !== undefined ? { discoveryAgentVersion: version } : {}),
          ...(timestamp !== undefined && timestamp !== '0'
            ? { hostTimestamp: Number(timestamp) }
            : {}),
        },
        now(),
      );
      const outcome = await backend.nextSteps(infraEnv, hostId, now());
      if (!outcome.ok) {
        sendRefusal(res, outcome);
        return;
      }
      sendJson(res, 200, renderSteps(outcome.value));
    }),
  );

  router.post(
    `${hostPath}/instructions`,
    route(async (req, res) => {
      const infraEnv = await authenticate(req, param(req, 'infra_env_id'));
      const hostId = pathUuid(req, 'host_id');
      const body = objectBody(await readJson(req, 'reply'), 'reply');
      const stepType = optionalEnum(body, 'step_type', STEP_TYPES) ?? '';
      const reply = {
        stepType: stepType as StepTypeValue,
        stepId: optionalString(body, 'step_id') ?? '',
        exitCode: optionalInteger(body, 'exit_code') ?? 0,
        output: optionalString(body, 'output') ?? '',
        error: optionalString(body, 'error') ?? '',
      };
      if (!backend.host(infraEnv, hostId)) {
        sendJson(res, 404, apiError(404, 'record not found'));
        return;
      }
      const parsed = parseStepReply(reply);
      if (!parsed.ok) {
        sendJson(res, 400, apiError(400, parsed.reason));
        return;
      }
      const outcome = await backend.postStepReply(infraEnv, hostId, reply, now());
      if (!outcome.ok) {
        sendRefusal(res, outcome);
        return;
      }
      sendEmpty(res, 204);
    }),
  );

  router.put(
    `${hostPath}/progress`,
    route(async (req, res) => {
      const infraEnv = await authenticate(req, param(req, 'infra_env_id'));
      const hostId = pathUuid(req, 'host_id');
      const body = objectBody(await readJson(req, 'host-progress'), 'host-progress');
      const stage = optionalEnum(body, 'current_stage', HOST_STAGES) as HostStageValue | undefined;
      const info = optionalString(body, 'progress_info');
      const outcome = await backend.updateProgress(
        infraEnv,
        hostId,
        {
          ...(stage !== undefined ? { currentStage: stage } : {}),
          ...(info !== undefined ? { progressInfo: info } : {}),
        },
        now(),
      );
      if (!outcome.ok) {
        sendRefusal(res, outcome);
        return;
      }
      sendEmpty(res, 200);
    }),
  );

  router.get(
    hostPath,
    route(async (req, res) => {
      const infraEnv = await authenticate(req, param(req, 'infra_env_id'));
      const hostId = pathUuid(req, 'host_id');
      const host = backend.host(infraEnv, hostId);
      if (!host) {
        sendJson(res, 404, apiError(404, 'record not found'));
        return;
      }
      sendJson(res, 200, renderHost(host, backend.hostView?.(infraEnv, hostId)));
    }),
  );

  router.put(
    `${hostPath}/logs-progress`,
    route(async (req, res) => {
      const infraEnv = await authenticate(req, param(req, 'infra_env_id'));
      const hostId = pathUuid(req, 'host_id');
      const body = objectBody(await readJson(req, 'logs-progress-params'), 'logs-progress-params');
      if (!('logs_state' in body)) {
        throw new EarlyRefusal(422, 602, 'logs_state in body is required');
      }
      const state = optionalEnum(body, 'logs_state', LOGS_STATES) ?? '';
      if (backend.updateLogsProgress) {
        const outcome = await backend.updateLogsProgress(infraEnv, hostId, state, now());
        if (!outcome.ok) {
          sendRefusal(res, outcome);
          return;
        }
      } else if (!backend.host(infraEnv, hostId)) {
        sendJson(res, 404, apiError(404, 'record not found'));
        return;
      }
      sendEmpty(res, 204);
    }),
  );

  router.post(
    '/v2/clusters/:cluster_id/logs',
    route(async (req, res) => {
      const infraEnv = await authenticate(req, query(req, 'infra_env_id'));
      const clusterId = pathUuid(req, 'cluster_id');
      const logsType = query(req, 'logs_type');
      if (logsType === undefined)
        throw new EarlyRefusal(422, 602, 'logs_type in query is required');
      if (logsType !== 'host' && logsType !== 'controller') {
        throw new EarlyRefusal(422, 606, `logs_type in query should be one of [host controller]`);
      }
      const hostIdText = query(req, 'host_id');
      if (hostIdText !== undefined && !UUID.test(hostIdText)) {
        throw new EarlyRefusal(
          422,
          605,
          `host_id in query must be of type uuid: ${JSON.stringify(hostIdText)}`,
        );
      }
      const hostIdParam = hostIdText === undefined ? undefined : canonicalUuid(hostIdText);
      if (logsType === 'controller') {
        // Controller logs come with the cluster's token, which this API does not accept.
        throw new EarlyRefusal(401, UNAUTHORIZED.code, UNAUTHORIZED.message);
      }
      if (hostIdParam === undefined) {
        sendJson(
          res,
          400,
          apiError(400, 'cluster_id and host_id are required for upload host logs'),
        );
        return;
      }
      const host = backend.host(infraEnv, hostIdParam);
      if (host?.clusterId !== clusterId) {
        sendJson(res, 404, apiError(404, 'record not found'));
        return;
      }
      const boundary = multipartBoundary(header(req, 'content-type'));
      if (boundary === undefined) {
        throw new EarlyRefusal(
          415,
          415,
          `unsupported media type ${JSON.stringify(header(req, 'content-type') ?? '')}, only [multipart/form-data] are allowed`,
        );
      }
      const declared = Number(header(req, 'content-length') ?? '0');
      if (declared > logsLimit) throw tooLarge(logsLimit);
      const dir = join(options.logsDir, clusterId);
      await mkdir(dir, { recursive: true });
      const stored = await storeMultipartField(
        req,
        boundary,
        'upfile',
        join(dir, `${hostIdParam}.tar.gz`),
        logsLimit,
      );
      if (!stored.ok) {
        if (stored.kind === 'too-large') throw tooLarge(logsLimit);
        const reason =
          stored.kind === 'missing-field' ? 'upfile in formData is required' : stored.message;
        res.setHeader('connection', 'close');
        sendJson(res, 400, apiError(400, reason));
        return;
      }
      const outcome = await backend.logsUploaded(infraEnv, hostIdParam, now());
      if (!outcome.ok) {
        sendRefusal(res, outcome);
        return;
      }
      sendEmpty(res, 204);
    }),
  );

  const observe = options.observe;

  /** Known paths with another method: 405 with Allow, as go-openapi's router answers. */
  const notRouted = (req: IncomingMessage, res: ServerResponse, path: string): void => {
    const inner = path.startsWith(`${BASE_PATH}/`) ? path.slice(BASE_PATH.length) : undefined;
    const methods =
      inner === undefined
        ? []
        : OPERATIONS.filter((op) => op.pattern.test(inner)).map((op) => op.method);
    if (methods.length > 0) {
      const allow = [...new Set(methods)].join(',');
      res.setHeader('allow', allow);
      sendJson(
        res,
        405,
        infraError(405, `method ${req.method ?? ''} is not allowed, but [${allow}] are`),
      );
      return;
    }
    sendJson(res, 404, infraError(404, `path ${path} was not found`));
  };

  const failed = (error: unknown, req: IncomingMessage, res: ServerResponse, path: string) => {
    if (error instanceof EarlyRefusal) {
      if (error.status === 413) res.setHeader('connection', 'close');
      sendJson(res, error.status, infraError(error.code, error.message));
      return;
    }
    log?.error({ err: error, method: req.method, path }, 'agent API request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendJson(res, 500, apiError(500, 'internal error'));
  };

  return (req, res) => {
    if (unavailable(res)) return;
    const path = pathOf(req);
    if (observe) {
      const started = performance.now();
      const operation = operationOf(req.method ?? '', path);
      res.once('finish', () => {
        observe({
          operation,
          method: req.method ?? '',
          status: res.statusCode,
          durationMs: performance.now() - started,
        });
      });
    }
    if (!path.startsWith(`${BASE_PATH}/`)) {
      notRouted(req, res, path);
      return;
    }
    // The router sees the path under the base, as express's app.use(BASE_PATH, router) did.
    const url = req.url ?? '/';
    req.url = url.slice(BASE_PATH.length);
    router(req as express.Request, res as express.Response, (error?: unknown) => {
      req.url = url;
      if (error !== undefined && error !== 'route' && error !== 'router')
        failed(error, req, res, path);
      else notRouted(req, res, path);
    });
  };
}

function tooLarge(limit: number): EarlyRefusal {
  return new EarlyRefusal(413, 413, `request body is larger than ${String(limit)} bytes`);
}

/** Reads a body as UTF-8 text, refusing it (413) past `limit` bytes. */
async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let total = 0;
  // Iterated by hand so that refusing early leaves the socket able to carry the 413.
  const iterator = (req as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) {
    total += next.value.length;
    if (total > limit) throw tooLarge(limit);
    chunks.push(next.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A query parameter's (first) value, parsed as express's `simple` query parser does. */
function query(req: IncomingMessage, name: string): string | undefined {
  const url = req.url ?? '';
  const start = url.indexOf('?');
  if (start < 0) return undefined;
  const value: unknown = parseQuery(url.slice(start + 1))[name];
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : undefined;
}

function param(req: Request, name: string): string {
  const value = req.params[name];
  return value ?? '';
}

function pathUuid(req: Request, name: string): string {
  const value = param(req, name);
  if (!UUID.test(value)) {
    throw new EarlyRefusal(
      422,
      605,
      `${name} in path must be of type uuid: ${JSON.stringify(value)}`,
    );
  }
  return canonicalUuid(value);
}

function objectBody(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EarlyRefusal(
      400,
      400,
      `parsing ${name} body from "" failed, because json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value`,
    );
  }
  return value as Record<string, unknown>;
}

function requiredUuid(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (value === undefined || value === null)
    throw new EarlyRefusal(422, 602, `${name} in body is required`);
  if (typeof value !== 'string') {
    throw new EarlyRefusal(
      422,
      601,
      `${name} in body must be of type string: ${JSON.stringify(typeof value)}`,
    );
  }
  if (!UUID.test(value)) {
    throw new EarlyRefusal(
      422,
      605,
      `${name} in body must be of type uuid: ${JSON.stringify(value)}`,
    );
  }
  return canonicalUuid(value);
}

function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new EarlyRefusal(
      400,
      400,
      `json: cannot unmarshal ${typeof value} into Go struct field .${name} of type string`,
    );
  }
  return value;
}

function optionalInteger(body: Record<string, unknown>, name: string): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new EarlyRefusal(
      400,
      400,
      `json: cannot unmarshal ${typeof value} into Go struct field .${name} of type int64`,
    );
  }
  return value;
}

function optionalEnum<T extends string>(
  body: Record<string, unknown>,
  name: string,
  values: readonly T[],
): T | undefined {
  const value = optionalString(body, name);
  if (value === undefined) return undefined;
  if (!(values as readonly string[]).includes(value)) {
    throw new EarlyRefusal(422, 606, `${name} in body should be one of [${values.join(' ')}]`);
  }
  return value as T;
}

/** How the agent API listens. */
export interface AgentApiServerOptions extends AgentApiOptions {
  /** @default 127.0.0.1 */
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** PEM certificate (chain) and key; required unless insecureHttp. */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  /** Serve plain HTTP (only for the agent's `--insecure` tests). @default false */
  readonly insecureHttp?: boolean;
}

/** A listening agent API. */
export interface AgentApiServer {
  /** `https://host:port` (or http), without the base path. */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

/** Starts the agent API on HTTPS (or plain HTTP when explicitly asked). */
export async function startAgentApiServer(options: AgentApiServerOptions): Promise<AgentApiServer> {
  if (!options.tls && options.insecureHttp !== true) {
    throw new SiteForgeError(
      'AGENT_API_TLS_REQUIRED',
      'the agent API needs a TLS certificate and key (or insecureHttp, for tests only)',
    );
  }
  const handler = createAgentApiHandler(options);
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handler)
    : createHttpServer(handler);
  // Agents poll every minute or faster; keep their connections longer than a poll.
  server.keepAliveTimeout = 75_000;
  server.headersTimeout = 80_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const scheme = options.tls ? 'https' : 'http';
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${scheme}://${urlHost}:${String(port)}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
        server.closeAllConnections();
      }),
  };
}
