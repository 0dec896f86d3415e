/**
 * The controller's probe and metrics endpoint, for the kubelet and Prometheus: `/healthz` answers
 * while the process runs, `/readyz` once every cache has synced and the leader gate has decided
 * (leader or standby: a warm standby is ready, so a rollout can go on), `/metrics` the runtime's
 * Registry in Prometheus text.
 */
import { createServer } from 'node:http';
import express from 'express';
import { HttpListener } from './http-listener.js';
import type { Readiness } from './manager.js';
import type { RuntimeMetrics } from './metrics.js';

/** Options of ProbeServer. */
export interface ProbeServerOptions {
  /** @default '127.0.0.1' (in a pod, pass '0.0.0.0' so the kubelet reaches it) */
  readonly host?: string;
  /** @default 0 (any free port) */
  readonly port?: number;
  /** Usually `() => manager.readiness()`. */
  readonly readiness: () => Readiness;
  readonly metrics: RuntimeMetrics;
}

/** An HTTP server answering /healthz, /readyz and /metrics. */
export class ProbeServer {
  private readonly listener: HttpListener;

  constructor(private readonly options: ProbeServerOptions) {
    const app = express();
    app.disable('x-powered-by');
    app.get('/healthz', (_req, res) => {
      res.type('text/plain').send('ok\n');
    });
    app.get('/readyz', (_req, res) => {
      const state = options.readiness();
      const text = state.ready
        ? `ok: ${state.leader}\n`
        : `not ready: ${state.synced ? 'caches synced' : 'caches not synced'}, leader ${state.leader}\n`;
      res
        .status(state.ready ? 200 : 503)
        .type('text/plain')
        .send(text);
    });
    app.get('/metrics', (_req, res, next) => {
      options.metrics.text().then((text) => {
        res.setHeader('content-type', options.metrics.contentType);
        res.send(text);
      }, next);
    });
    app.use((_req, res) => {
      res.status(404).type('text/plain').send('not found\n');
    });
    this.listener = new HttpListener(createServer(app));
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

  /** Stops listening and closes open connections. */
  close(): Promise<void> {
    return this.listener.close();
  }
}
