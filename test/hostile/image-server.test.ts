import { fork, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { signImageToken, startImageServer } from '../../src/bmac/images/index.js';
import type { ImageServer } from '../../src/bmac/images/index.js';
import type { ImageServerLimits } from '../../src/shared/limits.js';

const here = import.meta.dirname;

/** Runs a child script of this suite with node; kills it after `timeoutMs`. */
async function runChild(
  script: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(here, script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe('the image server in a process that loaded undici', () => {
  it('survives sources that close the connection after the body while the disk lags', async () => {
    // undici 7's HTTP/1 parser asserts `!this.paused` when the connection ends while the body
    // is held back, and kills the process: on the first or second of these downloads when the
    // image server fetched through the process-wide dispatcher.
    const { code, stdout, stderr } = await runChild(
      'close-delimited-download.mjs',
      ['10', '--with-undici-index'],
      60_000,
    );
    expect(stderr).not.toContain('assert(!this.paused)');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ whole: 10 });
  });

  it('is not handed undici as the process-wide fetch dispatcher by the Redfish module', async () => {
    const { code, stdout } = await runChild('close-delimited-download.mjs', ['1'], 60_000);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ installedByRedfish: false, whole: 1 });
  });
});

const MiB = 1024 * 1024;

/** When each raw client's connection closed; a refused one may close before it is read. */
const closedAt = new WeakMap<Socket, Promise<unknown>>();

/** Opens a connection to `url`'s server and sends `text`; the socket reads nothing. */
async function rawClient(url: URL, text: string): Promise<Socket> {
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => undefined); // a reset by the server is what some tests expect
  closedAt.set(socket, new Promise((resolve) => socket.once('close', resolve)));
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(text);
  socket.pause();
  return socket;
}

/** Resolves with everything `socket` receives until the server closes it. */
async function received(socket: Socket): Promise<Buffer> {
  const parts: Buffer[] = [];
  socket.on('data', (part: Buffer) => parts.push(part));
  socket.resume();
  await closedAt.get(socket);
  return Buffer.concat(parts);
}

/** Half a request: the headers never end. */
const HALF_SENT = 'GET /images/anything.iso HTTP/1.1\r\nhost: images\r\nuser-agent: slow';

describe('the image server under hostile clients', () => {
  const key = randomBytes(32);
  let upstream: ReturnType<typeof createServer>;
  let cacheDir: string;
  let server: ImageServer;
  const image = Buffer.alloc(16 * MiB, randomBytes(MiB));

  beforeEach(async () => {
    upstream = createServer((_req, res) => {
      res.writeHead(200, { 'content-length': image.length }).end(image);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    cacheDir = mkdtempSync(join(tmpdir(), 'siteforge-hostile-images-'));
  });
  afterEach(async () => {
    await server.stop();
    await new Promise((resolve) => upstream.close(resolve));
    rmSync(cacheDir, { recursive: true, force: true });
  });

  const start = async (limits: Partial<ImageServerLimits>) => {
    server = await startImageServer({ cacheDir, key, limits });
    const source = `http://127.0.0.1:${String((upstream.address() as AddressInfo).port)}/x.iso`;
    await server.prefetch(source);
    return new URL(await server.urlFor(source));
  };

  it('answers an expired URL with the 404 of a forged one', async () => {
    const url = await start({});
    const expired = new URL(url);
    const [ref] = url.pathname.slice('/images/'.length).split('.');
    const old = signImageToken({ ref: ref!, expiresAt: Date.now() / 1000 - 60 }, key);
    expired.pathname = `/images/${old}.iso`;
    const forged = new URL(url);
    forged.pathname = url.pathname.replace(/.{6}\.iso$/, 'AAAAAA.iso');
    const answer = async (target: URL) => {
      const res = await fetch(target);
      const headers = Object.fromEntries(
        [...res.headers].filter(([name]) => name !== 'date' && name !== 'keep-alive'),
      );
      return { status: res.status, headers, body: await res.text() };
    };
    const forgedAnswer = await answer(forged);
    expect(forgedAnswer.status).toBe(404);
    expect(await answer(expired)).toEqual(forgedAnswer);
  });

  it('closes connections whose request headers never end', async () => {
    const url = await start({ headersTimeoutMs: 1_000 });
    const slow = await Promise.all(Array.from({ length: 50 }, () => rawClient(url, HALF_SENT)));
    const answers = await Promise.all(slow.map(received));
    for (const answer of answers) expect(answer.toString()).toMatch(/^HTTP\/1\.1 408 /);
    // Still serving.
    expect((await fetch(url, { headers: { range: 'bytes=0-9' } })).status).toBe(206);
  });

  it('refuses connections over its cap, and takes new ones once slow clients are gone', async () => {
    const url = await start({ maxConnections: 20, headersTimeoutMs: 2_000 });
    const clients = [];
    for (let i = 0; i < 30; i++) clients.push(await rawClient(url, HALF_SENT));
    const answers = await Promise.all(clients.map(received));
    const refused = answers.filter((answer) => answer.length === 0).length;
    const timedOut = answers.filter((answer) => answer.toString().startsWith('HTTP/1.1 408 '));
    expect({ refused, timedOut: timedOut.length }).toEqual({ refused: 10, timedOut: 20 });
    expect((await fetch(url, { headers: { range: 'bytes=0-9' } })).status).toBe(206);
  });

  it('cuts off a client that stops reading for longer than the stall timeout', async () => {
    const url = await start({ stallTimeoutMs: 300 });
    const client = await rawClient(url, `GET ${url.pathname} HTTP/1.1\r\nhost: images\r\n\r\n`);
    // The 16 MiB do not fit in the socket buffers: the response waits for the client, then
    // gives up on it.
    // The response counts as stalled when it is cut off, and stops waiting once its connection
    // has closed, a moment later.
    await vi.waitFor(
      () => {
        expect(server.stats.stalledResponses).toBe(1);
        expect(server.stats.waitingForClients).toBe(0);
      },
      { timeout: 10_000 },
    );
    // Reading again, it gets what the socket buffers held, then the end of the connection.
    const bytes = await received(client);
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes.length).toBeLessThan(image.length);
  });
});

describe('the image server process under a crowd of hostile clients', () => {
  let child: ChildProcess;
  afterEach(async () => {
    // Cut off, the child stops its server and removes its cache, then exits.
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.disconnect();
    await exited;
  });

  /** The server's RSS, buffer memory and counters. */
  const ask = () =>
    new Promise<{ rss: number; arrayBuffers: number; waitingForClients?: number }>((resolve) => {
      child.once('message', resolve as (m: unknown) => void);
      child.send('stats');
    });

  it('keeps its memory flat under clients that never read and requests that never end', async () => {
    const limits: Partial<ImageServerLimits> = {
      responseBufferBytes: 4 * MiB,
      headersTimeoutMs: 1_000,
      stallTimeoutMs: 60_000, // the readers stay stalled while memory is measured
    };
    child = fork(join(here, 'image-server-child.mjs'), [JSON.stringify(limits), '8'], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const { url } = await new Promise<{ url: string }>((resolve) =>
      child.once('message', resolve as (m: unknown) => void),
    );
    const target = new URL(url);
    const before = await ask();

    // Clients that ask for the 8 MiB ISO and never read: each fills its socket buffers (a few
    // MiB of kernel memory on loopback, whatever the server does, hence 150 of them, not
    // thousands) and leaves the rest of its answer to the server. Before the limits each kept
    // a 1 MiB read buffer: +150 MiB.
    const readers = 150;
    const stalled = await Promise.all(
      Array.from({ length: readers }, () =>
        rawClient(target, `GET ${target.pathname} HTTP/1.1\r\nhost: images\r\n\r\n`),
      ),
    );
    const grown = (now: { rss: number; arrayBuffers: number }) => ({
      rss: (now.rss - before.rss) / MiB,
      buffers: (now.arrayBuffers - before.arrayBuffers) / MiB,
    });
    let during = await ask();
    // Until every response waits for its client, or the memory is already over the bound.
    for (let i = 0; i < 250 && (during.waitingForClients ?? 0) < readers; i++) {
      if (grown(during).rss > 64) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
      during = await ask();
    }
    // 4 MiB of 1 MiB buffers and 64 KiB per stalled client: under 14 MiB of buffers.
    expect(grown(during).rss).toBeLessThan(64);
    expect(grown(during).buffers).toBeLessThan(32);
    expect(during.waitingForClients).toBe(readers);
    for (const socket of stalled) socket.destroy();

    // Half-sent requests, no token needed: all closed by the headers timeout.
    const halfSent = await Promise.all(
      Array.from({ length: 3_000 }, () => rawClient(target, HALF_SENT)),
    );
    const closed = await Promise.race([
      Promise.all(halfSent.map(received)).then(() => 'all closed'),
      new Promise((resolve) => setTimeout(resolve, 15_000, 'still open after 15 s')),
    ]);
    expect(closed).toBe('all closed');
    // What node:http itself keeps for 3,000 connections (about 30 MiB), no more.
    expect(grown(await ask()).rss).toBeLessThan(128);
  }, 60_000);
});
