/**
 * The image server BMCs boot from: `GET /images/<token>.iso` with HTTP ranges (BMCs read an
 * ISO in ranges), backed by a disk cache keyed by content. The first request for a source
 * downloads it once, whatever the number of BMCs asking at the same time; every later one is
 * served from disk. Like ironic's `redfish/boot-<uuid>.iso` republishing, it gives BMCs a short
 * URL without a query string that ends in `.iso`.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  mkdir,
  open,
  readFile,
  readdir,
  rename,
  rm,
  stat,
  utimes,
  writeFile,
} from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import express from 'express';
import type { Request, Response } from 'express';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Clock } from '../../shared/clock.js';
import { systemClock } from '../../shared/clock.js';
import { HttpListener } from '../runtime/http-listener.js';
import { defaultImageServerLimits } from '../../shared/limits.js';
import type { ImageServerLimits } from '../../shared/limits.js';
import { applyOverlay, overlayFromJson, overlayToJson } from './image-overlay.js';
import type { ImageOverlay } from './image-overlay.js';
import { ImageSourceClient, ImageSourceError } from './image-source.js';
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
  /**
   * Size limit of the blobs on disk. When a new image would push the cache over it, the least
   * recently used blobs are deleted (never one being served, never a download in flight); their
   * URLs keep working and download the source again. A single image larger than the limit is
   * kept until the next one arrives.
   * @default 20 GiB
   */
  readonly maxCacheBytes?: number;
  /**
   * Connections, timeouts and buffers granted to clients (see {@link ImageServerLimits}).
   * @default defaultImageServerLimits
   */
  readonly limits?: Partial<ImageServerLimits>;
}

/** Counters, for tests and benchmarks. */
export interface ImageServerStats {
  upstreamDownloads: number;
  requests: number;
  bytesServed: number;
  /** Blobs deleted to keep the cache under `maxCacheBytes`. */
  evictions: number;
  /** Responses waiting now for their client to take bytes already sent (a gauge). */
  waitingForClients: number;
  /** Responses cut off because their client took none of their bytes for `stallTimeoutMs`. */
  stalledResponses: number;
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
  /**
   * The short URL of a source's bytes with `overlay` laid over them (a discovery ISO: the base
   * ISO with an InfraEnv's ignition and kernel arguments). The base is downloaded and cached
   * once, whatever the number of overlays; each overlay is kept as a small reference file, so
   * the URL survives a restart. Served with ranges; its ETag names base and overlay.
   * @param ttlSeconds how long the URL works; `Infinity` for a URL that never expires, the same
   *   for the same source and overlay whenever it is asked for (a status field that must not
   *   change on every pass) @default 86_400
   */
  urlForOverlay(sourceUrl: string, overlay: ImageOverlay, ttlSeconds?: number): Promise<string>;
  /**
   * Downloads a source into the cache if needed and lets `use` read it; the blob is not evicted
   * before `use` settles. The reader is shared: `use` must not keep it.
   * @throws ImageSourceError when the source cannot be fetched
   */
  readSource<T>(
    sourceUrl: string,
    use: (reader: PositionalReader, blob: SourceBlob) => Promise<T>,
  ): Promise<T>;
  stop(): Promise<void>;
}

/** A cached source's blob, as {@link ImageServer.readSource} shows it. */
export interface SourceBlob {
  readonly sha256: string;
  readonly size: number;
  /** Its file, for a tool that reads it (e.g. xorriso); valid only while `use` runs. */
  readonly path: string;
}

/** Positional reads of an image (a FileHandle's, or one with an overlay laid over it). */
export interface PositionalReader {
  read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesRead: number }>;
}

/** Size of a response's reads and socket writes. */
const SLAB = 1 << 20;
/** The expiry of a URL that never expires: 2106, the last second a u32 holds. */
const NEVER_EXPIRES = 0xffff_ffff;

/** A blob in the cache, as the server tracks it. */
interface CacheEntry {
  readonly size: number;
  /** When it was last served or stored (clock ms); kept on disk as the blob's mtime. */
  lastUsed: number;
  /** Its place in the order of uses (the LRU order; ties of `lastUsed` broken). */
  useOrder: number;
  /** The `lastUsed` last written to the blob's mtime. */
  storedUse: number;
  /** Responses reading it now; it is not evicted while there are any. */
  readers: number;
}

/** A cached blob held against eviction while a response reads it. */
interface Lease {
  readonly sha256: string;
  readonly entry: CacheEntry;
}

/** A download in progress: how far it got, for readers that stream it through. */
class Flight {
  written = 0;
  size: number | undefined;
  finished = false;
  /** Responses streaming it through; they become readers of its blob when it is stored. */
  readers = 0;
  /** Its blob, once stored. */
  entry: CacheEntry | undefined;
  /** Resolves when the source answered (and `size` is known), rejects if it failed first. */
  readonly started: Promise<void>;
  private resolveStarted!: () => void;
  private rejectStarted!: (err: Error) => void;
  private error: Error | undefined;
  private waiters: { bytes: number; resolve: () => void; reject: (err: Error) => void }[] = [];

  constructor(readonly path: string) {
    this.started = new Promise<void>((resolve, reject) => {
      this.resolveStarted = resolve;
      this.rejectStarted = reject;
    });
    this.started.catch(() => undefined);
  }

  start(size: number | undefined): void {
    this.size = size;
    this.resolveStarted();
  }

  advance(bytes: number): void {
    this.written += bytes;
    this.waiters = this.waiters.filter((w) => {
      if (w.bytes > this.written) return true;
      w.resolve();
      return false;
    });
  }

  /** Hands its readers over to the stored blob. */
  finish(entry: CacheEntry): void {
    this.finished = true;
    this.entry = entry;
    entry.readers += this.readers;
    this.readers = 0;
  }

  fail(err: Error): void {
    this.error = err;
    this.rejectStarted(err);
    for (const w of this.waiters) w.reject(err);
    this.waiters = [];
  }

  /** Resolves once `bytes` bytes are on disk. */
  waitFor(bytes: number): Promise<void> {
    if (this.error !== undefined) return Promise.reject(this.error);
    if (bytes <= this.written) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ bytes, resolve, reject }));
  }
}

interface Download {
  readonly flight: Flight;
  readonly done: Promise<RefRecord>;
}

/** Size of a response's reads and socket writes once the budget of {@link SLAB}s is spent. */
const SMALL_SLAB = 64 * 1024;

/**
 * Read buffers for responses. With a fresh buffer per read, collecting the garbage cost the
 * server more CPU than the reads (100 BMCs reading 1 MiB ranges); a buffer comes back once the
 * socket has taken its bytes. A client that stops reading keeps its last buffer until the stall
 * timeout: so the {@link SLAB}s out at once are capped by a byte budget, and past it responses
 * get {@link SMALL_SLAB}s, which thousands of stalled clients cannot turn into gigabytes.
 */
class SlabPool {
  private readonly free: Buffer[] = [];
  private readonly freeSmall: Buffer[] = [];
  /** Bytes of {@link SLAB}s taken and not given back. */
  private out = 0;

  /**
   * @param budget bytes of {@link SLAB}s out at once
   * @param keep how many free buffers of each size to keep at most
   */
  constructor(
    private readonly budget: number,
    private readonly keep: number,
  ) {}

  take(): Buffer {
    if (this.out + SLAB > this.budget)
      return this.freeSmall.pop() ?? Buffer.allocUnsafeSlow(SMALL_SLAB);
    this.out += SLAB;
    return this.free.pop() ?? Buffer.allocUnsafeSlow(SLAB);
  }

  /** @param reuse false when a failed socket may still hold it: it goes to the garbage collector */
  give(slab: Buffer, reuse: boolean): void {
    const free = slab.length === SLAB ? this.free : this.freeSmall;
    if (slab.length === SLAB) this.out -= SLAB;
    if (reuse && free.length < this.keep) free.push(slab);
  }
}

/** How a response sends bytes: buffers, progress, and how long it waits for its client. */
interface Sender {
  readonly pool: SlabPool;
  /** Called with each part the socket has taken. */
  readonly sent: (bytes: number) => void;
  /** Milliseconds the client may take none of the pending bytes before it is cut off. */
  readonly stallMs: number;
  /** Counts the responses waiting for their client. */
  readonly stats: ImageServerStats;
}

/**
 * Sends bytes `start`..`end` (inclusive) of `file`, in slabs read into pooled buffers, waiting
 * for `ready(bytes)` before reading up to `bytes` (a download in flight) and for the socket to
 * drain: never more than one buffer of a response is with its socket.
 */
async function sendRange(
  file: PositionalReader,
  res: ServerResponse,
  start: number,
  end: number,
  sender: Sender,
  /** Resolves once the first `bytes` of the file are on disk (a download in flight). */
  ready?: (bytes: number) => Promise<void>,
): Promise<void> {
  for (let at = start; at <= end && !res.destroyed;) {
    await ready?.(at + Math.min(SLAB, end + 1 - at));
    const slab = sender.pool.take();
    const length = Math.min(slab.length, end + 1 - at);
    try {
      for (let read = 0; read < length;) {
        const { bytesRead } = await file.read(slab, read, length - read, at + read);
        if (bytesRead === 0) throw new Error('image file is shorter than expected');
        read += bytesRead;
      }
    } catch (err) {
      sender.pool.give(slab, true);
      throw err;
    }
    at += length;
    // The callback runs once the socket is done with the bytes, or failed: then the buffer is
    // left to the garbage collector, as the socket may hold it still.
    const more = res.write(slab.subarray(0, length), (err) => {
      sender.pool.give(slab, !err);
      if (!err) sender.sent(length);
    });
    if (!more) await drained(res, sender);
  }
}

/**
 * Resolves when the response can take more bytes, or is gone. A client that takes none of
 * them for `stallMs` is cut off: its connection and buffer are freed.
 */
function drained(res: ServerResponse, sender: Sender): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  sender.stats.waitingForClients++;
  return new Promise((resolve) => {
    const stalled = setTimeout(() => {
      sender.stats.stalledResponses++;
      res.destroy();
    }, sender.stallMs);
    const done = () => {
      sender.stats.waitingForClients--;
      clearTimeout(stalled);
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Writes a short piece of a response (a multipart header), waiting for the socket to drain. */
async function sendText(res: ServerResponse, text: string, sender: Sender): Promise<void> {
  if (!res.destroyed && !res.write(text)) await drained(res, sender);
}

interface RefRecord {
  readonly source: string;
  readonly sha256?: string;
  readonly size?: number;
  /** A source with bytes laid over it: the overlay ({@link overlayToJson}); its base is `source`. */
  readonly overlay?: unknown;
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
  readonly stats: ImageServerStats = {
    upstreamDownloads: 0,
    requests: 0,
    bytesServed: 0,
    evictions: 0,
    waitingForClients: 0,
    stalledResponses: 0,
  };
  private readonly server: Server;
  private readonly listener: HttpListener;
  private readonly clock: Clock;
  private readonly maxCacheBytes: number;
  private readonly downloads = new Map<string, Download>();
  /** Counts bytes a socket has taken: an aborted response counts only what it got. */
  private readonly countSent = (bytes: number): void => {
    this.stats.bytesServed += bytes;
  };
  /** Its own HTTP agents for sources, whatever dispatcher the process has installed. */
  private readonly sources = new ImageSourceClient();
  /** Aborted by stop(): downloads in flight end with the server. */
  private readonly stopping = new AbortController();
  private readonly refs = new Map<string, RefRecord>();
  /** The blobs on disk, by SHA-256. */
  private readonly cache = new Map<string, CacheEntry>();
  /** Blobs being deleted: a download of the same bytes waits before storing its copy. */
  private readonly evicting = new Map<string, Promise<void>>();
  private readonly handles = new Map<string, Promise<FileHandle>>();
  /** mtime updates under way, awaited by stop() so a restart sees them. */
  private readonly touches = new Set<Promise<void>>();
  private readonly limits: ImageServerLimits;
  /** How responses send their bytes. */
  private readonly sender: Sender;
  /** Uses so far, numbering them for the LRU order. */
  private uses = 0;

  constructor(private readonly options: ImageServerOptions) {
    this.clock = options.clock ?? systemClock;
    this.maxCacheBytes = options.maxCacheBytes ?? 20 * 1024 ** 3;
    this.limits = { ...defaultImageServerLimits, ...options.limits };
    this.sender = {
      // At most 64 free buffers of each size kept while idle.
      pool: new SlabPool(this.limits.responseBufferBytes, 64),
      sent: this.countSent,
      stallMs: this.limits.stallTimeoutMs,
      stats: this.stats,
    };
    // An express Router on the bare node:http objects: express's routing, without the
    // application layer that swaps each request's and response's prototype, which costs about
    // a third of the server's CPU per GiB served (measured with `npm run bench`).
    const router = express.Router({ caseSensitive: true, strict: true });
    // GET routes answer HEAD too; the token carries dots, `:token` takes them all.
    router.get('/images/:token.iso', (req, res) => this.handle(req.params.token, req, res));
    router.all('/images/:token.iso', (_req, res) => {
      res.setHeader('allow', 'GET, HEAD');
      plain(res, 405, 'method not allowed');
    });
    router.use((_req, res) => {
      plain(res, 404, 'not found');
    });
    const dispatch = (req: IncomingMessage, res: ServerResponse): void => {
      this.stats.requests++;
      // Only a failed handler gets here: our own last word. A BMC gets a status and a fixed
      // text, never a stack trace, a cache path, or the source URL (which may carry a token).
      router(req as Request, res as Response, (err?: unknown) => {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        // Headers a range answer had set (length, range, ETag) must not describe this one.
        for (const name of res.getHeaderNames()) res.removeHeader(name);
        const status = (err as { status?: unknown } | undefined)?.status;
        if (typeof status === 'number' && status >= 400 && status < 500)
          plain(res, status, 'bad request');
        else if (err instanceof ImageSourceError) plain(res, 502, 'image source unavailable');
        else plain(res, 500, 'internal error');
      });
    };
    const headersTimeout = this.limits.headersTimeoutMs;
    const timeouts = {
      // A GET is complete with its headers: the whole request gets the headers' time.
      headersTimeout,
      requestTimeout: headersTimeout,
      // How often node:http looks for requests over their time (30 s by default).
      connectionsCheckingInterval: Math.max(100, Math.min(headersTimeout / 4, 5_000)),
    };
    this.server = options.tls
      ? createHttpsServer({ ...timeouts, key: options.tls.key, cert: options.tls.cert }, dispatch)
      : createHttpServer(timeouts, dispatch);
    this.server.maxConnections = this.limits.maxConnections;
    this.listener = new HttpListener(this.server);
  }

  async listen(): Promise<void> {
    await mkdir(join(this.options.cacheDir, 'refs'), { recursive: true });
    await mkdir(join(this.options.cacheDir, 'blobs'), { recursive: true });
    // Downloads a previous run left unfinished cannot be resumed.
    await rm(join(this.options.cacheDir, 'tmp'), { recursive: true, force: true });
    await mkdir(join(this.options.cacheDir, 'tmp'), { recursive: true });
    await this.loadCache();
    await this.listener.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1');
    this.origin = this.listener.origin(this.options.tls ? 'https' : 'http');
  }

  /** Lists the blobs on disk with their sizes and last uses, and trims them to the limit. */
  private async loadCache(): Promise<void> {
    const dir = join(this.options.cacheDir, 'blobs');
    for (const name of await readdir(dir)) {
      const match = /^([0-9a-f]{64})\.iso$/.exec(name);
      if (!match) continue;
      const { size, mtimeMs } = await stat(join(dir, name));
      this.cache.set(match[1]!, {
        size,
        lastUsed: mtimeMs,
        useOrder: 0,
        storedUse: mtimeMs,
        readers: 0,
      });
    }
    for (const entry of [...this.cache.values()].sort((a, b) => a.lastUsed - b.lastUsed))
      entry.useOrder = ++this.uses;
    await this.evict();
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
    const ref = await this.register(sourceUrl);
    const record = await this.readRef(ref);
    const entry = record?.sha256 === undefined ? undefined : this.cache.get(record.sha256);
    // A download under way is awaited even when its blob is stored: it may still be evicting.
    if (entry !== undefined && !this.downloads.has(ref)) this.touch(record!.sha256!, entry);
    else await this.download(ref, sourceUrl).done;
  }

  async urlForOverlay(
    sourceUrl: string,
    overlay: ImageOverlay,
    ttlSeconds = 86_400,
  ): Promise<string> {
    const ref = imageRef(`${sourceUrl}#overlay=${overlay.id}`);
    if ((await this.readRef(ref)) === undefined) {
      const record: RefRecord = { source: sourceUrl, overlay: overlayToJson(overlay) };
      await writeFile(this.refPath(ref), JSON.stringify(record));
      this.refs.set(ref, record);
    }
    const expiresAt =
      ttlSeconds === Infinity ? NEVER_EXPIRES : Math.floor(this.clock.now() / 1000) + ttlSeconds;
    const token = signImageToken({ ref, expiresAt }, this.options.key);
    return `${this.options.publicOrigin ?? this.origin}/images/${token}.iso`;
  }

  async readSource<T>(
    sourceUrl: string,
    use: (reader: PositionalReader, blob: SourceBlob) => Promise<T>,
  ): Promise<T> {
    const ref = await this.register(sourceUrl);
    for (let attempt = 1; ; attempt++) {
      const lease = this.acquire(await this.readRef(ref));
      if (lease !== undefined) {
        try {
          let handle: FileHandle | undefined;
          try {
            handle = await this.openBlob(lease.sha256);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
            if (this.cache.get(lease.sha256) === lease.entry) this.cache.delete(lease.sha256);
          }
          if (handle !== undefined) {
            const shared = handle;
            return await use(
              {
                read: (buffer, offset, length, position) =>
                  shared.read(buffer, offset, length, position),
              },
              { sha256: lease.sha256, size: lease.entry.size, path: this.blobPath(lease.sha256) },
            );
          }
        } finally {
          this.release(lease.entry);
        }
      }
      if (attempt > 3) throw new Error(`the blob of ${ref} keeps vanishing from the cache`);
      await this.download(ref, sourceUrl).done;
    }
  }

  async stop(): Promise<void> {
    await this.listener.close();
    this.stopping.abort();
    await Promise.all([...this.downloads.values()].map((d) => d.done.catch(() => undefined)));
    this.sources.destroy();
    const handles = [...this.handles.values()];
    this.handles.clear();
    await Promise.all(handles.map((h) => h.then((f) => f.close()).catch(() => undefined)));
    await Promise.all([...this.evicting.values(), ...this.touches]);
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

  /**
   * Holds the cached blob of a reference for a response, or `undefined` when it is not in the
   * cache (never downloaded, or evicted). Synchronous, so no eviction can come in between.
   */
  private acquire(record: RefRecord | undefined): Lease | undefined {
    if (record?.sha256 === undefined) return undefined;
    const entry = this.cache.get(record.sha256);
    if (entry === undefined) return undefined;
    entry.readers++;
    this.touch(record.sha256, entry);
    return { sha256: record.sha256, entry };
  }

  private release(entry: CacheEntry): void {
    entry.readers--;
    if (entry.readers === 0) void this.evict();
  }

  /**
   * Marks a blob used now. The mtime on disk follows at most once a second per blob, so the
   * LRU order survives a restart without a write per range.
   */
  private touch(sha256: string, entry: CacheEntry): void {
    const now = this.clock.now();
    entry.lastUsed = Math.max(entry.lastUsed, now);
    entry.useOrder = ++this.uses;
    if (Math.abs(now - entry.storedUse) < 1000) return;
    entry.storedUse = now;
    const touched = utimes(this.blobPath(sha256), now / 1000, now / 1000)
      .catch(() => undefined) // evicted meanwhile
      .finally(() => this.touches.delete(touched));
    this.touches.add(touched);
  }

  /**
   * Deletes least recently used blobs until the blobs and the downloads in flight fit
   * `maxCacheBytes`. Blobs being read stay, and so does the most recently used one (the
   * newest image, even when it alone is over the limit).
   * @returns when the deleted blobs are gone from disk
   */
  private evict(): Promise<void> {
    let used = 0;
    for (const entry of this.cache.values()) used += entry.size;
    for (const { flight } of this.downloads.values())
      if (!flight.finished) used += flight.size ?? flight.written;
    if (used <= this.maxCacheBytes) return this.evictions();
    const candidates = [...this.cache]
      .sort(([, a], [, b]) => a.useOrder - b.useOrder)
      .slice(0, -1)
      .filter(([, entry]) => entry.readers === 0);
    for (const [sha256, entry] of candidates) {
      if (used <= this.maxCacheBytes) break;
      this.cache.delete(sha256);
      used -= entry.size;
      this.stats.evictions++;
      const handle = this.handles.get(sha256);
      this.handles.delete(sha256);
      const removed = (async () => {
        await handle?.then((h) => h.close()).catch(() => undefined);
        await rm(this.blobPath(sha256), { force: true }).catch(() => undefined);
      })().finally(() => this.evicting.delete(sha256));
      this.evicting.set(sha256, removed);
    }
    return this.evictions();
  }

  /** Resolves when the blobs being deleted are gone. */
  private async evictions(): Promise<void> {
    await Promise.all(this.evicting.values());
  }

  /** The download of a reference, started once however many ask at the same time. */
  private download(ref: string, source: string): Download {
    let download = this.downloads.get(ref);
    if (download === undefined) {
      const flight = new Flight(
        join(this.options.cacheDir, 'tmp', `${ref}-${randomBytes(6).toString('hex')}`),
      );
      const done = this.fetchSource(ref, source, flight).finally(() => this.downloads.delete(ref));
      done.catch(() => undefined); // each waiter sees the failure; none is left unhandled
      download = { flight, done };
      this.downloads.set(ref, download);
    }
    return download;
  }

  private async fetchSource(ref: string, source: string, flight: Flight): Promise<RefRecord> {
    this.stats.upstreamDownloads++;
    const hash = createHash('sha256');
    let file: FileHandle | undefined;
    try {
      const res = await this.sources.get(
        source,
        AbortSignal.any([
          this.stopping.signal,
          AbortSignal.timeout(this.options.downloadTimeoutMs ?? 30 * 60_000),
        ]),
      );
      const length = Number(res.headers['content-length'] ?? NaN);
      try {
        file = await open(flight.path, 'w');
      } catch (err) {
        res.destroy();
        throw err;
      }
      flight.start(Number.isSafeInteger(length) ? length : undefined);
      void this.evict(); // make room for it now, when its size is known
      const out = file;
      await pipeline(
        res,
        new Writable({
          write(chunk: Buffer, _encoding, callback) {
            hash.update(chunk);
            writeFully(out, chunk, flight.written).then(() => {
              flight.advance(chunk.length);
              callback();
            }, callback);
          },
        }),
      );
      await file.close();
      file = undefined;
      if (flight.size !== undefined && flight.written !== flight.size)
        throw new ImageSourceError(
          `${source} sent ${String(flight.written)} of ${String(flight.size)} bytes`,
        );
    } catch (err) {
      // Readers waiting on this download must hear of the failure whatever the cleanup does.
      await file?.close().catch(() => undefined);
      await rm(flight.path, { force: true }).catch(() => undefined);
      const failure =
        err instanceof ImageSourceError
          ? err
          : new ImageSourceError(`downloading ${source} failed: ${String(err)}`, { cause: err });
      flight.fail(failure);
      throw failure;
    }
    const sha256 = hash.digest('hex');
    const entry = await this.store(flight, sha256);
    const record = { source, sha256, size: flight.written };
    try {
      await writeFile(this.refPath(ref), JSON.stringify(record));
      this.refs.set(ref, record);
    } finally {
      this.release(entry); // held by store()
    }
    await this.evict();
    return record;
  }

  /**
   * Moves a finished download into the cache. Keyed by content: a second source with the same
   * bytes shares the blob. Readers that opened the temporary file keep reading it.
   * @returns its cache entry, held (call {@link release})
   */
  private async store(flight: Flight, sha256: string): Promise<CacheEntry> {
    const now = this.clock.now();
    let entry = this.cache.get(sha256);
    if (entry !== undefined) {
      entry.readers++;
      flight.finish(entry);
      await rm(flight.path, { force: true });
    } else {
      await this.evicting.get(sha256);
      await rename(flight.path, this.blobPath(sha256));
      entry = this.cache.get(sha256) ?? {
        size: flight.written,
        lastUsed: now,
        useOrder: 0,
        storedUse: -Infinity,
        readers: 0,
      };
      this.cache.set(sha256, entry);
      entry.readers++;
      flight.finish(entry);
    }
    this.touch(sha256, entry);
    return entry;
  }

  /** Serves `/images/<token>.iso` (GET or HEAD). */
  private async handle(token: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const claims = verifyImageToken(token, this.options.key, this.clock.now() / 1000);
    // An expired token gets the answer of a forged one: a prober learns nothing of which
    // tokens ever existed.
    if ('refused' in claims) {
      plain(res, 404, 'no such image');
      return;
    }
    const record = await this.readRef(claims.ref);
    if (record === undefined) {
      plain(res, 404, 'no such image');
      return;
    }
    if (record.overlay !== undefined) {
      await this.serveOverlaid(req, res, record);
      return;
    }
    // From the cache when it holds the blob. Otherwise stream the bytes through as they arrive,
    // when the source said how many there will be, or wait for the whole download. A blob
    // evicted between its download and this response is downloaded again, a few times at most.
    for (let attempt = 1; ; attempt++) {
      const lease = this.acquire(this.refs.get(claims.ref) ?? record);
      if (lease !== undefined && (await this.serveBlob(req, res, lease))) return;
      if (attempt > 3) throw new Error(`the blob of ${claims.ref} keeps vanishing from the cache`);
      const { flight, done } = this.download(claims.ref, record.source);
      await flight.started;
      if (
        flight.size !== undefined &&
        !flight.finished &&
        (await this.serveFlight(req, res, flight))
      )
        return;
      await done;
    }
  }

  /**
   * Serves a held blob from the cache, and releases it.
   * @returns false, with nothing sent, when its file is gone (then it is forgotten)
   */
  private async serveBlob(
    req: IncomingMessage,
    res: ServerResponse,
    lease: Lease,
    overlay?: ImageOverlay,
  ): Promise<boolean> {
    try {
      // One descriptor per blob, shared by every range (positional reads), instead of an
      // open/close per request: BMCs read an ISO in thousands of small ranges.
      let handle: FileHandle;
      try {
        handle = await this.openBlob(lease.sha256);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        if (this.cache.get(lease.sha256) === lease.entry) this.cache.delete(lease.sha256);
        return false;
      }
      if (overlay === undefined)
        await this.respond(req, res, handle, lease.entry.size, `"${lease.sha256}"`);
      else
        await this.respond(
          req,
          res,
          overlaid(handle, overlay),
          lease.entry.size,
          `"${lease.sha256}+${overlay.id}"`,
        );
      return true;
    } finally {
      this.release(lease.entry);
    }
  }

  /**
   * Serves a source with an overlay, from its cached blob; the base is downloaded first when it
   * is not in the cache (no streaming through: the ETag must name the base's content).
   */
  private async serveOverlaid(
    req: IncomingMessage,
    res: ServerResponse,
    record: RefRecord,
  ): Promise<void> {
    const overlay = overlayFromJson(record.overlay);
    if (overlay === undefined) throw new Error('an overlay reference is corrupt');
    const baseRef = await this.register(record.source);
    for (let attempt = 1; ; attempt++) {
      const lease = this.acquire(await this.readRef(baseRef));
      if (lease !== undefined && (await this.serveBlob(req, res, lease, overlay))) return;
      if (attempt > 3) throw new Error(`the blob of ${baseRef} keeps vanishing from the cache`);
      await this.download(baseRef, record.source).done;
    }
  }

  /**
   * Serves a range of a download in progress, each part as soon as it is on disk.
   * @returns false, with nothing sent, when the download is no longer in progress
   */
  private async serveFlight(
    req: IncomingMessage,
    res: ServerResponse,
    flight: Flight,
  ): Promise<boolean> {
    // Counted as a reader of the blob it becomes, so that is not evicted under this response.
    flight.readers++;
    let file: FileHandle;
    try {
      file = await open(flight.path, 'r');
    } catch {
      this.leave(flight);
      return false; // it finished (and was renamed) or failed meanwhile
    }
    try {
      // No ETag yet: the content hash is known only at the end.
      await this.respond(req, res, file, flight.size ?? 0, undefined, (bytes) =>
        flight.waitFor(bytes),
      );
      return true;
    } finally {
      this.leave(flight);
      await file.close();
    }
  }

  /** Ends a response's read of a download, or of the blob it became. */
  private leave(flight: Flight): void {
    if (flight.entry !== undefined) this.release(flight.entry);
    else flight.readers--;
  }

  /**
   * Answers a GET or HEAD of the `size` bytes of `file`: its preconditions, then the whole file,
   * one range, or several (multipart/byteranges, as nginx answers them).
   */
  private async respond(
    req: IncomingMessage,
    res: ServerResponse,
    file: PositionalReader,
    size: number,
    etag: string | undefined,
    ready?: (bytes: number) => Promise<void>,
  ): Promise<void> {
    // RFC 9110 §13.2.2: If-Match, then If-None-Match, then If-Range with Range.
    const ifMatch = req.headers['if-match'];
    if (ifMatch !== undefined && !matchesEtag(ifMatch, etag, 'strong')) {
      plain(res, 412, 'precondition failed');
      return;
    }
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, etag, 'weak')) {
      if (etag !== undefined) res.setHeader('etag', etag);
      res.writeHead(304).end();
      return;
    }
    const ifRange = req.headers['if-range'];
    const ranges = parseRanges(
      req.headers.range,
      Array.isArray(ifRange) ? ifRange[0] : ifRange,
      etag ?? '',
      size,
    );
    res.setHeader('accept-ranges', 'bytes');
    if (etag !== undefined) res.setHeader('etag', etag);
    if (ranges === 'unsatisfiable') {
      res.setHeader('content-range', `bytes */${String(size)}`);
      plain(res, 416, 'range not satisfiable');
      return;
    }
    const head = req.method === 'HEAD';
    if (ranges === undefined || ranges.length === 1) {
      const [start, end] = ranges?.[0] ?? [0, size - 1];
      res.statusCode = ranges ? 206 : 200;
      res.setHeader('content-type', 'application/octet-stream');
      if (ranges)
        res.setHeader('content-range', `bytes ${String(start)}-${String(end)}/${String(size)}`);
      const length = size === 0 ? 0 : end - start + 1;
      res.setHeader('content-length', length);
      if (!head && length > 0) await sendRange(file, res, start, end, this.sender, ready);
      res.end();
      return;
    }
    const boundary = randomBytes(12).toString('hex');
    const partHead = ([start, end]: [number, number]) =>
      `\r\n--${boundary}\r\ncontent-type: application/octet-stream\r\n` +
      `content-range: bytes ${String(start)}-${String(end)}/${String(size)}\r\n\r\n`;
    const tail = `\r\n--${boundary}--\r\n`;
    let length = Buffer.byteLength(tail);
    for (const range of ranges)
      length += Buffer.byteLength(partHead(range)) + range[1] - range[0] + 1;
    res.statusCode = 206;
    res.setHeader('content-type', `multipart/byteranges; boundary=${boundary}`);
    res.setHeader('content-length', length);
    if (!head) {
      for (const range of ranges) {
        await sendText(res, partHead(range), this.sender);
        await sendRange(file, res, range[0], range[1], this.sender, ready);
      }
      await sendText(res, tail, this.sender);
    }
    res.end();
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
}

/** Reads of `file` with `overlay` laid over the bytes read. */
function overlaid(file: PositionalReader, overlay: ImageOverlay): PositionalReader {
  return {
    async read(buffer, offset, length, position) {
      const result = await file.read(buffer, offset, length, position);
      applyOverlay(overlay, buffer.subarray(offset, offset + result.bytesRead), position);
      return result;
    },
  };
}

/** Writes all of `chunk` at `position`: a write to a nearly full disk may take only part. */
async function writeFully(file: FileHandle, chunk: Buffer, position: number): Promise<void> {
  for (let done = 0; done < chunk.length;) {
    const { bytesWritten } = await file.write(chunk, done, chunk.length - done, position + done);
    if (bytesWritten === 0) throw new Error('the disk took no more bytes');
    done += bytesWritten;
  }
}

/** A short text answer. */
function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(`${text}\n`);
}

/** More ranges than this in one request are ignored, as nginx's `max_ranges` does. */
const MAX_RANGES = 16;

/**
 * The `bytes=` ranges of a request as [start, end] pairs (inclusive), sorted, with overlapping
 * and adjacent ones merged (RFC 9110 §15.3.7.2 lets a server coalesce them); `undefined` to
 * serve the whole file (no Range, an If-Range that is not the current ETag, a Range that is
 * not `bytes=`, or more than 16 ranges); `'unsatisfiable'` when no range lies in the file.
 */
export function parseRanges(
  header: string | undefined,
  ifRange: string | undefined,
  etag: string,
  size: number,
): [number, number][] | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  if (ifRange !== undefined && (etag === '' || ifRange.trim() !== etag)) return undefined;
  const set = /^bytes=(.+)$/.exec(header.trim());
  if (!set) return undefined;
  const specs = set[1]!.split(',').map((spec) => /^(\d*)-(\d*)$/.exec(spec.trim()));
  if (specs.length > MAX_RANGES) return undefined;
  const ranges: [number, number][] = [];
  for (const spec of specs) {
    if (!spec || (spec[1] === '' && spec[2] === '')) return undefined;
    if (spec[1] === '') {
      const suffix = Number(spec[2]);
      if (suffix > 0 && size > 0) ranges.push([Math.max(0, size - suffix), size - 1]);
      continue;
    }
    const start = Number(spec[1]);
    const end = spec[2] === '' ? size - 1 : Math.min(Number(spec[2]), size - 1);
    if (start < size && start <= end) ranges.push([start, end]);
  }
  if (ranges.length === 0) return 'unsatisfiable';
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [ranges[0]!];
  for (const [start, end] of ranges.slice(1)) {
    const last = merged[merged.length - 1]!;
    if (start <= last[1] + 1) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/**
 * Whether an If-Match or If-None-Match header names the current ETag (`undefined` while the
 * image is being downloaded: only `*` matches then). If-Match compares strongly, If-None-Match
 * weakly (RFC 9110 §8.8.3.2), as nginx does.
 */
function matchesEtag(
  header: string,
  etag: string | undefined,
  comparison: 'strong' | 'weak',
): boolean {
  if (header.trim() === '*') return true;
  if (etag === undefined) return false;
  for (const [, weak, tag] of header.matchAll(/(W\/)?("[^"]*")/g))
    if (tag === etag && (comparison === 'weak' || weak === undefined)) return true;
  return false;
}
