/**
 * Downloads of ISO sources, over node:http and node:https with agents of the image server's
 * own. Not with `fetch`: it goes through the process-wide dispatcher, which any module that
 * loads npm undici's index replaces with undici's Agent (undici/lib/global.js); undici 7's
 * HTTP/1 parser then kills the process with an uncatchable `assert(!this.paused)` when a source
 * closes the connection after the body (HTTP/1.0, `Connection: close`) while the disk write
 * holds the body back (fixed in undici 8 only, which needs Node 22). The controller runs the
 * Redfish client and the image server in one process.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { SiteForgeError } from '../../shared/errors.js';

/** An image could not be fetched from its source. */
export class ImageSourceError extends SiteForgeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('IMAGE_SOURCE', message, options);
  }
}

/** A source's answer: its body, and its headers (`content-length` when known). */
export type SourceResponse = NodeJS.ReadableStream & {
  readonly headers: IncomingHttpHeaders;
  destroy(): void;
};

/** Redirects followed, as many as `fetch` follows. */
const MAX_REDIRECTS = 20;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Silence from a source after which its download fails: undici's headers and body timeouts. */
const SOURCE_IDLE_MS = 300_000;

/** GETs ISO sources; one per image server. */
export class ImageSourceClient {
  // Without keep-alive: a source is downloaded once, then not asked again for a long time.
  private readonly http = new HttpAgent({ keepAlive: false });
  private readonly https = new HttpsAgent({ keepAlive: false });

  /**
   * GETs `source`, following redirects, and resolves with a 2xx response whose body the caller
   * reads (with backpressure). Bytes as stored: identity encoding is asked for, and any other
   * is refused (a compressed answer's Content-Length is not the image's size).
   * A `file:` source (an image SiteForge made itself, e.g. a minimal ISO template) is read
   * from disk; only the process registers sources, never a client.
   * @throws ImageSourceError for any other answer
   */
  async get(source: string, signal: AbortSignal): Promise<SourceResponse> {
    let target = new URL(source);
    if (target.protocol === 'file:') return readLocal(target, signal);
    for (let hops = 0; ; hops++) {
      if (target.protocol !== 'http:' && target.protocol !== 'https:')
        throw new ImageSourceError(`${source} leads to a ${target.protocol} URL`);
      const res = await this.request(target, signal);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECTS.has(status) && location !== undefined) {
        res.resume();
        if (hops >= MAX_REDIRECTS)
          throw new ImageSourceError(
            `${source} redirected more than ${String(MAX_REDIRECTS)} times`,
          );
        target = new URL(location, target);
        continue;
      }
      if (status < 200 || status > 299) {
        res.resume();
        throw new ImageSourceError(`${source} answered ${String(status)}`);
      }
      const encoding = res.headers['content-encoding'];
      if (encoding !== undefined && encoding !== 'identity') {
        res.destroy();
        throw new ImageSourceError(`${source} answered with content-encoding ${encoding}`);
      }
      return res;
    }
  }

  /** Closes the connections of downloads still running. */
  destroy(): void {
    this.http.destroy();
    this.https.destroy();
  }

  private request(url: URL, signal: AbortSignal): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(url, {
        agent: url.protocol === 'https:' ? this.https : this.http,
        headers: { 'accept-encoding': 'identity' },
        signal,
      });
      req.setTimeout(SOURCE_IDLE_MS, () =>
        req.destroy(new Error(`no data for ${String(SOURCE_IDLE_MS / 1000)} s`)),
      );
      req.once('response', resolve);
      req.on('error', reject);
      req.end();
    });
  }
}

async function readLocal(url: URL, signal: AbortSignal): Promise<SourceResponse> {
  let size: number;
  try {
    const info = await stat(url);
    if (!info.isFile()) throw new Error('not a file');
    size = info.size;
  } catch (err) {
    throw new ImageSourceError(`${url.href} cannot be read: ${(err as Error).message}`);
  }
  const stream = createReadStream(url, { signal });
  return Object.assign(stream, { headers: { 'content-length': String(size) } });
}
