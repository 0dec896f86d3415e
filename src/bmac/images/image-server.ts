/**
 * The image server BMCs boot from: `GET /images/<token>.iso` with HTTP ranges (BMCs read an
 * ISO in ranges), backed by a disk cache keyed by content. The first request for a source
 * downloads it once, whatever the number of BMCs asking at the same time; every later one is
 * served from disk. Like ironic's `redfish/boot-<uuid>.iso` republishing, it gives BMCs a short
 * URL without a query string that ends in `.iso`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Clock } from '../../shared/clock.js';
import { systemClock } from '../../shared/clock.js';
import { SiteForgeError } from '../../shared/errors.js';
import { imageRef, signImageToken, verifyImageToken } from './image-token.js';

/** Options of {@link startImageServer}. */
export interface ImageServerOptions {
  /** Where blobs (by SHA-256) and source references live; created if missing. */
  readonly cacheDir: string;
  /** HMAC key of the tokens, at least 32 bytes. */
  readonly key: Buffer;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default 0 (any free port) */
  readonly port?: number;
  /** Serve HTTPS. @default - HTTP */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer };
  /** Origin that BMCs reach this server at. @default - the listening origin */
  readonly publicOrigin?: string;
  /** @default systemClock */
  readonly clock?: Clock;
  /** How long a download from the source may take. @default 30 min */
  readonly downloadTimeoutMs?: number;
}

/** Counters, for tests and benchmarks. */
export interface ImageServerStats {
  upstreamDownloads: number;
  requests: number;
  bytesServed: number;
}

/** A running image server. */
export interface ImageServer {
  /** The listening origin, `http(s)://host:port`. */
  readonly origin: string;
  readonly stats: Readonly<ImageServerStats>;
  /**
   * Registers an ISO source and returns the short URL a BMC gets for it.
   * @param ttlSeconds how long the URL works @default 86_400
   */
  urlFor(sourceUrl: string, ttlSeconds?: number): Promise<string>;
  /** Downloads a source into the cache now, instead of on the first request. */
  prefetch(sourceUrl: string): Promise<void>;
  stop(): Promise<void>;
}

/** An image could not be fetched from its source. */
export class ImageSourceError extends SiteForgeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('IMAGE_SOURCE', message, options);
  }
}

const SMALL_RANGE = 4 << 20;

interface RefRecord {
  readonly source: string;
  readonly sha256?: string;
  readonly size?: number;
}

/** Starts an image server. */
export async function startImageServer(options: ImageServerOptions): Promise<ImageServer> {
  if (options.key.length < 32) throw new Error('the image token key needs at least 32 bytes');
  const server = new ImageServerImpl(options);
  await server.listen();
  return server;
}

class ImageServerImpl implements ImageServer {
  origin = '';
  readonly stats: ImageServerStats = { upstreamDownloads: 0, requests: 0, bytesServed: 0 };
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly clock: Clock;
  private readonly downloads = new Map<string, Promise<RefRecord>>();
  private readonly refs = new Map<string, RefRecord>();
  private readonly handles = new Map<string, Promise<FileHandle>>();

  constructor(private readonly options: ImageServerOptions) {
    this.clock = options.clock ?? systemClock;
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) {
          const status = err instanceof ImageSourceError ? 502 : 500;
          res.writeHead(status, { 'content-type': 'text/plain' });
          res.end(`${err instanceof Error ? err.message : String(err)}\n`);
        } else {
          res.destroy();
        }
      });
    };
    this.server = options.tls
      ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler)
      : createHttpServer(handler);
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  async listen(): Promise<void> {
    await mkdir(join(this.options.cacheDir, 'refs'), { recursive: true });
    await mkdir(join(this.options.cacheDir, 'blobs'), { recursive: true });
    await mkdir(join(this.options.cacheDir, 'tmp'), { recursive: true });
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', resolve);
    });
    const { address, port } = this.server.address() as AddressInfo;
    const host = address.includes(':') ? `[${address}]` : address;
    this.origin = `${this.options.tls ? 'https' : 'http'}://${host}:${String(port)}`;
  }

  async urlFor(sourceUrl: string, ttlSeconds = 86_400): Promise<string> {
    const ref = await this.register(sourceUrl);
    const token = signImageToken(
      { ref, expiresAt: Math.floor(this.clock.now() / 1000) + ttlSeconds },
      this.options.key,
    );
    return `${this.options.publicOrigin ?? this.origin}/images/${token}.iso`;
  }

  async prefetch(sourceUrl: string): Promise<void> {
    await this.blob(await this.register(sourceUrl));
  }

  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) =>
      this.server.close(() => {
        resolve();
      }),
    );
    for (const socket of this.sockets) socket.destroy();
    await closed;
    const handles = [...this.handles.values()];
    this.handles.clear();
    await Promise.all(handles.map(async (h) => (await h).close().catch(() => undefined)));
  }

  /** Records the source under its reference (on disk, so a restart keeps the URLs valid). */
  private async register(sourceUrl: string): Promise<string> {
    const ref = imageRef(sourceUrl);
    if (!this.refs.has(ref)) {
      const existing = await this.readRef(ref);
      if (existing === undefined) {
        const record = { source: sourceUrl };
        await writeFile(this.refPath(ref), JSON.stringify(record));
        this.refs.set(ref, record);
      }
    }
    return ref;
  }

  private async readRef(ref: string): Promise<RefRecord | undefined> {
    const cached = this.refs.get(ref);
    if (cached) return cached;
    try {
      const record = JSON.parse(await readFile(this.refPath(ref), 'utf8')) as RefRecord;
      this.refs.set(ref, record);
      return record;
    } catch {
      return undefined;
    }
  }

  private refPath(ref: string): string {
    return join(this.options.cacheDir, 'refs', `${ref}.json`);
  }

  private blobPath(sha256: string): string {
    return join(this.options.cacheDir, 'blobs', `${sha256}.iso`);
  }

  /** The cached blob of a reference, downloading it once however many ask at once. */
  private async blob(ref: string): Promise<RefRecord & { sha256: string; size: number }> {
    const record = await this.readRef(ref);
    if (record === undefined) throw new Error(`unknown image ${ref}`);
    if (record.sha256 !== undefined && record.size !== undefined) {
      try {
        await stat(this.blobPath(record.sha256));
        return { ...record, sha256: record.sha256, size: record.size };
      } catch {
        // The blob was removed from the cache: download again.
      }
    }
    let flight = this.downloads.get(ref);
    if (flight === undefined) {
      flight = this.download(ref, record.source).finally(() => this.downloads.delete(ref));
      this.downloads.set(ref, flight);
    }
    const done = await flight;
    return { ...done, sha256: done.sha256!, size: done.size! };
  }

  private async download(ref: string, source: string): Promise<RefRecord> {
    this.stats.upstreamDownloads++;
    const tmp = join(this.options.cacheDir, 'tmp', `${ref}-${randomBytes(6).toString('hex')}`);
    const hash = createHash('sha256');
    let size = 0;
    try {
      const res = await fetch(source, {
        signal: AbortSignal.timeout(this.options.downloadTimeoutMs ?? 30 * 60_000),
      });
      if (!res.ok || res.body === null)
        throw new ImageSourceError(`${source} answered ${String(res.status)}`);
      await pipeline(
        Readable.fromWeb(res.body as WebReadableStream<Uint8Array>),
        new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            hash.update(chunk);
            size += chunk.length;
            callback(null, chunk);
          },
        }),
        createWriteStream(tmp),
      );
    } catch (err) {
      await rm(tmp, { force: true });
      if (err instanceof ImageSourceError) throw err;
      throw new ImageSourceError(`downloading ${source} failed: ${String(err)}`, { cause: err });
    }
    const sha256 = hash.digest('hex');
    // Keyed by content: a second source with the same bytes shares the blob.
    await rename(tmp, this.blobPath(sha256));
    const record = { source, sha256, size };
    await writeFile(this.refPath(ref), JSON.stringify(record));
    this.refs.set(ref, record);
    return record;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.stats.requests++;
    const match = /^\/images\/([^/]+)\.iso$/.exec(req.url ?? '');
    if (!match) {
      this.plain(res, 404, 'not found');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      this.plain(res, 405, 'method not allowed');
      return;
    }
    const claims = verifyImageToken(match[1]!, this.options.key, this.clock.now() / 1000);
    if ('refused' in claims) {
      this.plain(res, claims.refused === 'expired' ? 410 : 404, 'no such image');
      return;
    }
    if ((await this.readRef(claims.ref)) === undefined) {
      this.plain(res, 404, 'no such image');
      return;
    }
    const blob = await this.blob(claims.ref);
    const etag = `"${blob.sha256}"`;
    const ifRange = req.headers['if-range'];
    const range = parseRange(
      req.headers.range,
      Array.isArray(ifRange) ? ifRange[0] : ifRange,
      etag,
      blob.size,
    );
    res.setHeader('accept-ranges', 'bytes');
    res.setHeader('etag', etag);
    res.setHeader('content-type', 'application/octet-stream');
    if (range === 'unsatisfiable') {
      res.setHeader('content-range', `bytes */${String(blob.size)}`);
      this.plain(res, 416, 'range not satisfiable');
      return;
    }
    const [start, end] = range ?? [0, blob.size - 1];
    res.statusCode = range ? 206 : 200;
    if (range)
      res.setHeader('content-range', `bytes ${String(start)}-${String(end)}/${String(blob.size)}`);
    const length = blob.size === 0 ? 0 : end - start + 1;
    res.setHeader('content-length', length);
    if (req.method === 'HEAD' || length === 0) {
      res.end();
      return;
    }
    this.stats.bytesServed += length;
    // One descriptor per blob, shared by every range (positional reads), instead of an
    // open/close per request: BMCs read an ISO in thousands of small ranges. A range up to
    // 4 MiB is one read and one write; larger ones stream.
    const handle = await this.openBlob(blob.sha256);
    if (length <= SMALL_RANGE) {
      const buffer = Buffer.allocUnsafe(length);
      let read = 0;
      while (read < length) {
        const { bytesRead } = await handle.read(buffer, read, length - read, start + read);
        if (bytesRead === 0) throw new Error(`blob ${blob.sha256} is shorter than its record`);
        read += bytesRead;
      }
      res.end(buffer);
      return;
    }
    await pipeline(
      createReadStream(this.blobPath(blob.sha256), {
        fd: handle.fd,
        autoClose: false,
        start,
        end,
        highWaterMark: 1 << 20,
      }),
      res,
    );
  }

  private openBlob(sha256: string): Promise<FileHandle> {
    let handle = this.handles.get(sha256);
    if (handle === undefined) {
      handle = open(this.blobPath(sha256), 'r');
      handle.catch(() => this.handles.delete(sha256));
      this.handles.set(sha256, handle);
    }
    return handle;
  }

  private plain(res: ServerResponse, status: number, text: string): void {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(`${text}\n`);
  }
}

/**
 * One `bytes=` range as [start, end] (inclusive), `undefined` to serve the whole file (no
 * Range, a stale If-Range, or several ranges, which RFC 9110 lets a server ignore).
 */
export function parseRange(
  header: string | undefined,
  ifRange: string | undefined,
  etag: string,
  size: number,
): [number, number] | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  if (ifRange !== undefined && ifRange !== etag) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return [start, end];
}
