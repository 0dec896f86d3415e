/**
 * The fleet dashboard's web server (`siteforge controller --dashboard-bind-address`): the
 * page's static files (bundled at build time into build/dashboard, no CDN), the fleet API and
 * its server-sent events. Read-only: only GET and HEAD are answered, nothing in a response
 * comes from a Secret, and the page may load nothing from elsewhere (Content-Security-Policy).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { createGzip, gzipSync } from 'node:zlib';
import type { Gzip } from 'node:zlib';
import { HttpListener } from '../bmac/runtime/http-listener.js';
import type { Logger } from '../shared/logger.js';
import type { FleetFeed } from './fleet-feed.js';

/** Options of DashboardServer. */
export interface DashboardServerOptions {
  readonly feed: FleetFeed;
  readonly log: Logger;
  /** Where the bundled page is (index.html, app.js, app.css). */
  readonly assetsDir: string;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default 0 (any free port) */
  readonly port?: number;
  /** Event streams open at once; more are refused with 503. @default 200 */
  readonly maxStreams?: number;
  /** A comment line on idle streams this often, so proxies keep them open. @default 20_000 */
  readonly heartbeatMs?: number;
}

/** Names a browser uses for this machine, the only Host headers a loopback server answers. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Whether the server listens on loopback only. */
function isLoopback(host: string | undefined): boolean {
  return host === undefined || host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/** The host name of a Host header (`name`, `name:port`, `[v6]:port`), lower-cased. */
function hostName(header: string | undefined): string {
  if (header === undefined) return '';
  const text = header.trim().toLowerCase();
  if (text.startsWith('[')) return text.slice(0, text.indexOf(']') + 1);
  const colon = text.indexOf(':');
  return colon < 0 ? text : text.slice(0, colon);
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
};

/** The files the page is made of; nothing else is served from the assets directory. */
const ASSETS = ['index.html', 'app.js', 'app.css', 'favicon.svg'] as const;

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** A namespace or name as Kubernetes allows them (DNS subdomain), for the site URL. */
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

interface Asset {
  readonly body: Buffer;
  readonly gzipped: Buffer;
  readonly type: string;
  readonly etag: string;
}

/** Where the page's files are in this package: build/dashboard beside build/src. */
export function defaultAssetsDir(packageRoot: string): string {
  return join(packageRoot, 'build', 'dashboard');
}

/** The dashboard's HTTP server. */
export class DashboardServer {
  private readonly listener: HttpListener;
  private readonly assets = new Map<string, Asset>();
  private readonly streams = new Set<() => void>();

  constructor(private readonly options: DashboardServerOptions) {
    if (!existsSync(join(options.assetsDir, 'index.html')))
      throw new Error(
        `the dashboard page is not built (no ${join(options.assetsDir, 'index.html')}): run npm run build`,
      );
    for (const name of ASSETS) {
      const path = join(options.assetsDir, name);
      if (!existsSync(path)) continue;
      const body = readFileSync(path);
      this.assets.set(`/${name}`, {
        body,
        gzipped: gzipSync(body),
        type: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream',
        etag: `"${String(body.length)}-${hash(body)}"`,
      });
    }
    this.listener = new HttpListener(
      createServer((req, res) => {
        this.handle(req, res);
      }),
    );
  }

  /** Starts listening. @returns the URL, `http://host:port` */
  async listen(): Promise<string> {
    await this.listener.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1');
    return this.url;
  }

  /** The listening URL. */
  get url(): string {
    return this.listener.origin();
  }

  /** Ends the event streams, stops listening and closes open connections. */
  close(): Promise<void> {
    for (const end of [...this.streams]) end();
    return this.listener.close();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    // On loopback, a page of another site could reach this server through a DNS name that
    // resolves to 127.0.0.1 (DNS rebinding): answer only the names of this machine.
    if (isLoopback(this.options.host) && !LOOPBACK_HOSTS.has(hostName(req.headers.host))) {
      this.plain(res, 403, 'this dashboard answers only to localhost on this machine\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' });
      res.end('the dashboard is read-only\n');
      return;
    }
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://dashboard').pathname;
    } catch {
      this.plain(res, 400, 'bad request\n');
      return;
    }
    try {
      if (path === '/' || path === '/index.html') this.asset(req, res, '/index.html');
      else if (this.assets.has(path)) this.asset(req, res, path);
      else if (path === '/api/fleet') this.json(req, res, this.options.feed.snapshot());
      else if (path === '/api/events') this.events(req, res);
      else if (path.startsWith('/api/sites/'))
        this.site(req, res, path.slice('/api/sites/'.length));
      else this.plain(res, 404, 'not found\n');
    } catch (error) {
      this.options.log.error(
        { path, error: error instanceof Error ? error.message : String(error) },
        'dashboard request failed',
      );
      if (!res.headersSent) this.plain(res, 500, 'internal error\n');
      else res.end();
    }
  }

  private site(req: IncomingMessage, res: ServerResponse, rest: string): void {
    const parts = rest.split('/');
    const [namespace, name] = parts.map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return '';
      }
    });
    if (parts.length !== 2 || !NAME.test(namespace ?? '') || !NAME.test(name ?? '')) {
      this.plain(res, 404, 'not found\n');
      return;
    }
    const detail = this.options.feed.site(`${namespace ?? ''}/${name ?? ''}`);
    if (detail === undefined) this.plain(res, 404, 'no such site\n');
    else this.json(req, res, detail);
  }

  private asset(req: IncomingMessage, res: ServerResponse, path: string): void {
    const asset = this.assets.get(path);
    if (asset === undefined) {
      this.plain(res, 404, 'not found\n');
      return;
    }
    if (req.headers['if-none-match'] === asset.etag) {
      res.writeHead(304, { etag: asset.etag });
      res.end();
      return;
    }
    const gzip = acceptsGzip(req);
    const body = gzip ? asset.gzipped : asset.body;
    res.writeHead(200, {
      'content-type': asset.type,
      'content-length': body.length,
      'cache-control': 'no-cache',
      etag: asset.etag,
      vary: 'accept-encoding',
      ...(gzip && { 'content-encoding': 'gzip' }),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  private json(req: IncomingMessage, res: ServerResponse, value: unknown): void {
    const text = Buffer.from(JSON.stringify(value));
    const gzip = acceptsGzip(req) && text.length > 1024;
    const body = gzip ? gzipSync(text) : text;
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': body.length,
      'cache-control': 'no-store',
      vary: 'accept-encoding',
      ...(gzip && { 'content-encoding': 'gzip' }),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  private plain(res: ServerResponse, status: number, text: string): void {
    res.writeHead(status, {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
    });
    res.end(text);
  }

  /** A stream of server-sent events: the snapshot, then updates, until the browser leaves. */
  private events(req: IncomingMessage, res: ServerResponse): void {
    if (this.streams.size >= (this.options.maxStreams ?? 200)) {
      res.writeHead(503, { 'retry-after': '10', 'content-type': 'text/plain' });
      res.end('too many dashboard streams open\n');
      return;
    }
    const gzip = acceptsGzip(req);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      vary: 'accept-encoding',
      ...(gzip && { 'content-encoding': 'gzip' }),
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    let out: Gzip | ServerResponse = res;
    if (gzip) {
      const zip = createGzip();
      zip.pipe(res);
      out = zip;
    }
    const sink = out;
    const send = (text: string): void => {
      sink.write(text);
      if (sink !== res) (sink as Gzip).flush();
    };
    // Retry quickly after a controller restart; the snapshot on reconnect makes the page whole.
    send(`retry: 2000\nevent: snapshot\ndata: ${JSON.stringify(this.options.feed.snapshot())}\n\n`);
    const unsubscribe = this.options.feed.subscribe((update) => {
      send(`event: update\ndata: ${JSON.stringify(update)}\n\n`);
    });
    const heartbeat = setInterval(() => {
      send(': keep-alive\n\n');
    }, this.options.heartbeatMs ?? 20_000);
    heartbeat.unref();
    const end = (): void => {
      if (!this.streams.delete(end)) return;
      clearInterval(heartbeat);
      unsubscribe();
      sink.end();
      if (sink !== res) res.end();
    };
    this.streams.add(end);
    req.on('close', end);
    res.on('error', end);
  }
}

function acceptsGzip(req: IncomingMessage): boolean {
  const header = req.headers['accept-encoding'];
  return typeof header === 'string' && /\bgzip\b/.test(header);
}

/** A short content hash for ETags (FNV-1a; no need for a cryptographic one). */
function hash(body: Buffer): string {
  let h = 0x811c9dc5;
  for (const byte of body) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16);
}
