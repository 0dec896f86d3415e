/**
 * When a failed Redfish request is sent again, and after how long. The rules are ironic's and
 * sushy's (reference/redfish.md §2 "Retry and backoff defaults"); the schedule is a capped
 * exponential backoff with jitter instead of their fixed delays, so a fleet of controllers
 * does not hammer a recovering BMC in lockstep.
 */
import type { RedfishError } from './errors.js';
import { RedfishErrorCode } from './errors.js';
import { TRANSIENT_ERRORS } from './quirks.js';
import type { RetryPolicy } from './types.js';

export type { RetryPolicy } from './types.js';

/**
 * sushy retries server-side and connection errors 10 times (`server_side_retries`); the
 * delays here grow 1, 2, 4, 8, 15, 15... seconds (about 100 s in all, ironic's is 30 s).
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 11,
  baseDelayMs: 1_000,
  maxDelayMs: 15_000,
};

/**
 * The delay before retry number `retry` (1 for the first retry): `base * 2^(retry-1)`, capped,
 * then "equal jitter": half fixed, half random.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(exp / 2 + (random() * exp) / 2);
}

/** Transport failures that say nothing about the request having been processed. */
const CONNECT_PHASE = new Set([
  'ECONNREFUSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/** Transport failures after the request may have reached the BMC. */
const AFTER_SEND = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** What to do with a failed request. */
export type RetryDecision =
  | { readonly retry: false }
  | { readonly retry: true; readonly reason: string; readonly policy: RetryPolicy };

/**
 * Decides whether `err` from `method` is worth another try:
 * - transport errors before the request left: always (sushy retries every ConnectionError);
 * - transport errors after it may have arrived: GET, PATCH and DELETE only. A POST action (a
 *   reset, an insert) is not sent twice blindly; the workflow re-reads state instead;
 * - 5xx on GET (sushy `server_side_retries`), and 503 on any method (the BMC said "not now");
 * - the vendor error shapes of {@link TRANSIENT_ERRORS} (iDRAC SYS518, iLO
 *   InvalidOperationForSystemState, UnableToModifyDuringSystemPOST) on the methods they name;
 * - never 4xx otherwise (401/403/404/412 are final here; 401 re-login is the session's job).
 */
export function retryDecision(
  err: RedfishError,
  method: string,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): RetryDecision {
  if (err.code === RedfishErrorCode.Transport || err.code === RedfishErrorCode.Timeout) {
    const cause = transportCode(err.cause);
    if (cause !== undefined && CONNECT_PHASE.has(cause))
      return { retry: true, reason: cause, policy };
    if (cause !== undefined && AFTER_SEND.has(cause) && method !== 'POST')
      return { retry: true, reason: cause, policy };
    return { retry: false };
  }
  if (err.code !== RedfishErrorCode.Http || err.status === undefined) return { retry: false };
  for (const rule of TRANSIENT_ERRORS) {
    if (rule.methods.includes(method) && rule.matches(err))
      return { retry: true, reason: rule.name, policy: rule.policy };
  }
  if (err.status >= 500 && (method === 'GET' || err.status === 503))
    return { retry: true, reason: `HTTP ${String(err.status)}`, policy };
  return { retry: false };
}

/** The `code` of an undici or Node.js error, if any. */
export function transportCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return transportCode((err as { cause?: unknown }).cause);
}

/** Parses a `Retry-After` value (seconds or an HTTP-date) into milliseconds from `now`. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1_000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
