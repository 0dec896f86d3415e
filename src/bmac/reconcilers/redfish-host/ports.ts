/**
 * What the redfish-host controller needs from the outside, as small interfaces: Redfish clients
 * (UndiciRedfishClient in production, the same class pointed at the BMC simulator in tests),
 * the image server's short URLs, and a metrics hook.
 */
import type { ImageServer } from '../../images/index.js';
import { imageRef } from '../../images/index.js';
import { UndiciRedfishClient } from '../../redfish/index.js';
import type { RedfishClient, RedfishExchange } from '../../redfish/index.js';

/** What a Redfish client is made from: one host's BMC fields and Secret. */
export interface RedfishClientRequest {
  /** `spec.bmc.address`. */
  readonly address: string;
  readonly credentials: { readonly username: string; readonly password: string };
  /** `spec.bmc.disableCertificateVerification`. */
  readonly disableCertificateVerification: boolean;
  /** Called after every HTTP exchange with the BMC (for metrics). */
  readonly onExchange: (exchange: RedfishExchange) => void;
}

/** Makes a client for one operation on one BMC; the controller closes it afterwards. */
export type RedfishClientFactory = (request: RedfishClientRequest) => RedfishClient;

/** The production factory: an UndiciRedfishClient per operation. */
export const undiciRedfishClients: RedfishClientFactory = (request) =>
  new UndiciRedfishClient(request);

/**
 * The image server's short URLs. A BMC is only ever given a short URL (`/images/<token>.iso`),
 * never the source URL with its tokens and query string.
 */
export interface ImageUrls {
  /** Registers `sourceUrl` and returns a short URL that serves it. */
  shortUrlFor(sourceUrl: string): Promise<string>;
  /**
   * Whether `url`, as a BMC reports its inserted image, is a short URL of `sourceUrl` (any
   * token for it, whatever its expiry): how a restarted controller recognises its own insert.
   */
  isShortUrlOf(url: string, sourceUrl: string): boolean;
}

/**
 * ImageUrls on an image server: tokens start with the source's stable reference
 * (image-token.ts), so an inserted image is recognised without storing its token anywhere.
 * @param ttlSeconds how long a short URL works @default 86_400
 */
export function imageUrlsOf(server: Pick<ImageServer, 'urlFor'>, ttlSeconds = 86_400): ImageUrls {
  return {
    shortUrlFor: (sourceUrl) => server.urlFor(sourceUrl, ttlSeconds),
    isShortUrlOf: (url, sourceUrl) => isShortUrlOf(url, sourceUrl),
  };
}

/** Whether `url` has the path `/images/<ref of sourceUrl>.<expiry>.<mac>.iso`. */
export function isShortUrlOf(url: string, sourceUrl: string): boolean {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return false;
  }
  return path.startsWith(`/images/${imageRef(sourceUrl)}.`) && path.endsWith('.iso');
}

/** How one Redfish HTTP exchange ended, for the `redfishCall` metric. */
export type RedfishCallOutcome = 'success' | 'http_error' | 'transport_error';

/** Counts Redfish calls by BMC vendor and outcome (the runtime's metrics provide it). */
export type RedfishCallMetric = (vendor: string, outcome: RedfishCallOutcome) => void;
