/**
 * The one logger factory. Everything else receives a child of this logger with its own bindings
 * (`{controller, namespace, name}`), so no module configures logging of its own. Credentials and
 * tokens are removed by path here, by configuration, never by hand in each call.
 */
import { pino } from 'pino';
import type { DestinationStream, Logger, LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths pino censors in every log line, at any of the depths where our objects carry secrets:
 * BMC credentials, Secret data, bearer tokens, pull secrets, image tokens in URLs.
 */
export const REDACTED_PATHS: readonly string[] = [
  'password',
  'username',
  'token',
  'authorization',
  'credentials',
  'pullSecret',
  '*.password',
  '*.username',
  '*.token',
  '*.authorization',
  '*.Authorization',
  '*.credentials',
  '*.pullSecret',
  '*.data',
  '*.stringData',
  'headers.authorization',
  'headers["x-auth-token"]',
  '*.headers.authorization',
  '*.headers["x-auth-token"]',
];

/** Options of createLogger. */
export interface CreateLoggerOptions {
  /** @default 'info' (or `$SITEFORGE_LOG_LEVEL`, read by the caller at the edge) */
  readonly level?: string;
  /** Where lines go. @default standard error: stdout carries only manifests */
  readonly destination?: DestinationStream;
  /** Bindings on every line, e.g. `{ component: 'controller' }`. */
  readonly base?: Record<string, unknown>;
}

/** A pino logger writing JSON lines with the secret paths of REDACTED_PATHS censored. */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const config: LoggerOptions = {
    level: options.level ?? 'info',
    base: options.base ?? null,
    redact: { paths: [...REDACTED_PATHS], censor: '[REDACTED]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return pino(config, options.destination ?? pino.destination(2));
}
