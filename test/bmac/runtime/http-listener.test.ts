import { createServer, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { HttpListener } from '../../../src/bmac/runtime/http-listener.js';

describe('HttpListener', () => {
  it('listens on a free port and names its origin', async () => {
    const listener = new HttpListener(createServer((_req, res) => res.end('ok')));
    await listener.listen(0, '127.0.0.1');
    const origin = listener.origin();
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(origin)).text()).toBe('ok');
    expect(listener.origin('https')).toBe(origin.replace('http:', 'https:'));
    await listener.close();
  });

  it('puts an IPv6 host in brackets', async (ctx) => {
    const listener = new HttpListener(createServer((_req, res) => res.end('ok')));
    try {
      await listener.listen(0, '::1');
    } catch {
      ctx.skip(); // no IPv6 loopback on this machine
    }
    expect(listener.origin()).toMatch(/^http:\/\/\[::1\]:\d+$/);
    await listener.close();
  });

  it('refuses an address in use, and the server can still listen elsewhere', async () => {
    const first = new HttpListener(createServer());
    await first.listen(0, '127.0.0.1');
    const port = Number(new URL(first.origin()).port);
    const second = new HttpListener(createServer());
    await expect(second.listen(port, '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await first.close();
  });

  it('stops while a request is still waiting for its answer', async () => {
    let arrived!: () => void;
    const waiting = new Promise<void>((resolve) => (arrived = resolve));
    // A handler that never answers: a stop must not wait for it.
    const listener = new HttpListener(
      createServer(() => {
        arrived();
      }),
    );
    await listener.listen(0, '127.0.0.1');
    const answer = new Promise<string>((resolve) => {
      const req = request(listener.origin(), (res) => {
        resolve(`status ${String(res.statusCode)}`);
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        resolve(err.code ?? err.message);
      });
      req.end();
    });
    await waiting;
    await listener.close();
    expect(await answer).toBe('ECONNRESET');
  });
});
