import { createServer, connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A loopback TCP proxy to cut connections under a client: `cut()` drops every connection at
 * once (as a network blip or a restarting load balancer does), and while `down` is true every
 * new connection is dropped as soon as it is made.
 */
export class TcpProxy {
  /** While true, new connections are dropped at once. */
  down = false;
  /** Connections accepted so far. */
  connections = 0;
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((client) => {
    this.connections++;
    if (this.down) {
      client.destroy();
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });

  constructor(private readonly target: { host: string; port: number }) {}

  /** Starts listening on 127.0.0.1. @returns the port */
  listen(): Promise<number> {
    return new Promise((resolve) => {
      this.server.listen(0, '127.0.0.1', () => {
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  /** Drops every open connection. */
  cut(): void {
    for (const s of this.sockets) s.destroy();
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) =>
      this.server.close(() => {
        resolve();
      }),
    );
  }
}
