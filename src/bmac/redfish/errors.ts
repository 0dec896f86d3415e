/**
 * Errors of the Redfish client. Each carries the request it belongs to (method and path, never
 * credentials or tokens) and, for HTTP errors, the status and the Redfish `MessageId` that the
 * retry rules and vendor quirks key on.
 */
import { SiteForgeError } from '../../shared/errors.js';

/** What went wrong, as a stable code. */
export const RedfishErrorCode = {
  /** The BMC answered with an HTTP error status. */
  Http: 'REDFISH_HTTP',
  /** The connection failed, was reset, or the TLS handshake failed. */
  Transport: 'REDFISH_TRANSPORT',
  /** The BMC did not answer (or did not finish a task or power change) in time. */
  Timeout: 'REDFISH_TIMEOUT',
  /** The BMC answered something a Redfish service must not (no JSON, 202 without Location). */
  Protocol: 'REDFISH_PROTOCOL',
  /** An asynchronous task ended in Exception, Killed or Cancelled. */
  TaskFailed: 'REDFISH_TASK_FAILED',
  /** The BMC lacks what the operation needs (no System, no CD slot, a ResetType not offered). */
  Unsupported: 'REDFISH_UNSUPPORTED',
  /** The BMC address cannot be used for Redfish. */
  Address: 'REDFISH_ADDRESS',
} as const;
export type RedfishErrorCode = (typeof RedfishErrorCode)[keyof typeof RedfishErrorCode];

/** One `@Message.ExtendedInfo` entry of a Redfish error body. */
export interface RedfishMessage {
  readonly MessageId?: string;
  readonly Message?: string;
  readonly Severity?: string;
  readonly MessageSeverity?: string;
  readonly RelatedProperties?: readonly string[];
  /** The message's arguments, e.g. the action and the missing parameter. */
  readonly MessageArgs?: readonly unknown[];
}

/** Context of a {@link RedfishError}. */
export interface RedfishErrorContext {
  readonly method: string;
  /** Path (and query) of the request on the BMC, without the origin. */
  readonly path: string;
  /** @default - none: no HTTP response */
  readonly status?: number;
  /** @default - none */
  readonly messages?: readonly RedfishMessage[];
  /** `error.code` of the body, e.g. `Base.1.8.GeneralError`. @default - none */
  readonly errorCode?: string;
  /** `error.message` of the body. @default - none */
  readonly errorMessage?: string;
  /** `Retry-After` header of the response. @default - none */
  readonly retryAfter?: string;
  readonly cause?: unknown;
}

/** A failed Redfish request or operation. */
export class RedfishError extends SiteForgeError {
  declare readonly code: RedfishErrorCode;
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  /** The most severe `@Message.ExtendedInfo` MessageId, else the body's `error.code`. */
  readonly messageId: string | undefined;
  readonly messages: readonly RedfishMessage[];
  /** `RelatedProperties` of the first message, e.g. `#/TransferProtocolType`. */
  readonly relatedProperties: readonly string[];
  /** `MessageArgs` of the first message that are strings. */
  readonly messageArgs: readonly string[];
  /** Every message text of the body, for matching vendor error shapes. */
  readonly detail: string;
  /** `Retry-After` header of the response, if any. */
  readonly retryAfter: string | undefined;

  constructor(code: RedfishErrorCode, summary: string, context: RedfishErrorContext) {
    const messages = context.messages ?? [];
    const worst = mostSevere(messages);
    const messageId = worst?.MessageId ?? context.errorCode;
    const texts = [context.errorMessage, ...messages.map((m) => m.Message)].filter(
      (t): t is string => typeof t === 'string' && t !== '',
    );
    const status = context.status === undefined ? '' : ` ${String(context.status)}`;
    const id = messageId === undefined ? '' : ` ${messageId}`;
    const text = worst?.Message ?? context.errorMessage;
    super(
      code,
      `${context.method} ${context.path}:${status}${id} ${summary}${text ? `: ${text}` : ''}`,
      context.cause === undefined ? undefined : { cause: context.cause },
    );
    this.method = context.method;
    this.path = context.path;
    this.status = context.status;
    this.messageId = messageId;
    this.messages = messages;
    // Vendors put other shapes here too (Dell: MessageArgs as a string): keep string lists only.
    this.relatedProperties = strings(messages[0]?.RelatedProperties);
    this.messageArgs = strings(messages[0]?.MessageArgs);
    this.detail = texts.join('\n');
    this.retryAfter = context.retryAfter;
  }

  /** True when the MessageId ends with `suffix` (registries differ in prefix and version). */
  hasMessageId(suffix: string): boolean {
    return [this.messageId, ...this.messages.map((m) => m.MessageId)].some(
      (id) => id !== undefined && (id === suffix || id.endsWith(`.${suffix}`)),
    );
  }
}

const SEVERITY_RANK: Readonly<Record<string, number>> = { Critical: 3, Warning: 2, OK: 1 };

function mostSevere(messages: readonly RedfishMessage[]): RedfishMessage | undefined {
  let best: RedfishMessage | undefined;
  let bestRank = -1;
  for (const message of messages) {
    const rank = SEVERITY_RANK[message.MessageSeverity ?? message.Severity ?? ''] ?? 0;
    if (rank > bestRank) {
      best = message;
      bestRank = rank;
    }
  }
  return best;
}

/** The strings of `value` when it is a list; none otherwise. */
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Reads the `error` object of a Redfish error body. `@Message.ExtendedInfo` may be a list or,
 * on some iDRAC firmware, a single object (sushy `fix-extended-info-error-handling`).
 */
export function parseErrorBody(body: unknown): {
  errorCode?: string;
  errorMessage?: string;
  messages: RedfishMessage[];
} {
  if (typeof body !== 'object' || body === null) return { messages: [] };
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return { messages: [] };
  const { code, message } = error as { code?: unknown; message?: unknown };
  const info = (error as Record<string, unknown>)['@Message.ExtendedInfo'];
  const list: unknown[] = Array.isArray(info) ? info : info === undefined ? [] : [info];
  const messages = list.filter((m): m is RedfishMessage => typeof m === 'object' && m !== null);
  return {
    ...(typeof code === 'string' ? { errorCode: code } : {}),
    ...(typeof message === 'string' ? { errorMessage: message } : {}),
    messages,
  };
}

/** What stands in BMC text where a credential or token was. */
export const REDACTED = '<redacted>';

/**
 * Registry identifiers: vendor quirks and retry rules key on them, and they are not free text a
 * BMC fills from the request.
 */
const IDENTIFIER_KEYS = new Set(['MessageId', 'code', '@odata.type']);

/**
 * A copy of `value` (a parsed BMC body, or part of one) with every occurrence of each secret
 * in its strings replaced by {@link REDACTED}: BMCs quote request values in their messages and
 * MessageArgs, a login's password and a session's token among them.
 * @param secrets the credentials and tokens to hide; empty ones are ignored
 */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
  // Longest first, so a password that contains the username is hidden whole.
  const hidden = [...new Set(secrets.filter((s) => s !== ''))].sort((a, b) => b.length - a.length);
  if (hidden.length === 0) return value;
  const text = (s: string): string =>
    hidden.reduce((t, secret) => t.split(secret).join(REDACTED), s);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v !== 'object' || v === null) return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, inner]) => [
        k,
        IDENTIFIER_KEYS.has(k) && typeof inner === 'string' ? inner : walk(inner),
      ]),
    );
  };
  return walk(value) as T;
}
