import { createServer } from 'node:https';
import type { Server } from 'node:https';
import { request } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/** One request that went through the proxy. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** The JSON body, parsed; undefined when there was none or it was not JSON. */
  readonly body: unknown;
}

/**
 * An HTTPS proxy on loopback in front of an HTTPS server (sushy-tools), recording every request
 * with its body: what a client sent, where the server only shows what it made of it.
 */
export class RecordingProxy {
  readonly requests: RecordedRequest[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  private constructor(
    private readonly target: URL,
    targetCa: Buffer | undefined,
    tls: { readonly key: Buffer; readonly cert: Buffer },
  ) {
    this.server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        let body: unknown;
        try {
          body = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
        } catch {
          body = undefined;
        }
        this.requests.push({ method: req.method ?? '', path: req.url ?? '', body });
        const upstream = request(
          {
            host: this.target.hostname,
            port: this.target.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: this.target.host },
            ...(targetCa && { ca: targetCa }),
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        upstream.end(raw);
      });
    });
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** Starts a proxy to `target` (https://127.0.0.1:PORT), trusting `targetCa`. */
  static async start(
    target: string,
    targetCa: Buffer | undefined,
    tls: { readonly key: Buffer; readonly cert: Buffer },
  ): Promise<RecordingProxy> {
    const proxy = new RecordingProxy(new URL(target), targetCa, tls);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The requests for paths that match `path`, with method `method`. */
  matching(method: string, path: RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && path.test(r.path));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }
}
