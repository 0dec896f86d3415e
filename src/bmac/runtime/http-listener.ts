/**
 * Listening and stopping, as every SiteForge HTTP(S) server does them (the controller's probes,
 * the dashboard, the image server, the BMC simulator): the origin of the address really bound
 * (port 0 picks a free one), and a stop that does not wait for idle keep-alive connections, which
 * a client's pool would otherwise hold open for minutes.
 */
import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/** A server's listening socket and the connections it accepted. */
export class HttpListener {
  private readonly sockets = new Set<Socket>();

  constructor(private readonly server: HttpServer | HttpsServer) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** Starts listening; rejects when the address cannot be bound (in use, not local). */
  listen(port: number, host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  /** `scheme://host:port` of the bound address, an IPv6 host in brackets. */
  origin(scheme: 'http' | 'https' = 'http'): string {
    const { address, port } = this.server.address() as AddressInfo;
    const host = address.includes(':') ? `[${address}]` : address;
    return `${scheme}://${host}:${String(port)}`;
  }

  /** Stops listening and ends every open connection, idle or not. */
  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
    for (const socket of this.sockets) socket.destroy();
    return closed;
  }
}
