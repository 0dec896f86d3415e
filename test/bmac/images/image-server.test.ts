import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, get as httpGet } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  imageRef,
  parseRanges,
  signImageToken,
  startImageServer,
  verifyImageToken,
} from '../../../src/bmac/images/index.js';
import type { ImageServer } from '../../../src/bmac/images/index.js';
import { loopbackCert } from '../../support/loopback-cert.js';

const key = randomBytes(32);
const NOW = 1_800_000_000;

describe('image tokens', () => {
  it('round-trips, and refuses tampering, other keys, expiry and garbage', () => {
    const ref = imageRef('https://mirror.example/rhcos.iso?token=abc');
    const token = signImageToken({ ref, expiresAt: NOW + 60 }, key);
    expect(verifyImageToken(token, key, NOW)).toEqual({ ref, expiresAt: NOW + 60 });
    const forged = `${ref}.${(NOW + 99_999).toString(36)}.${token.split('.')[2]!}`;
    expect(verifyImageToken(forged, key, NOW)).toEqual({ refused: 'signature' });
    expect(verifyImageToken(token, randomBytes(32), NOW)).toEqual({ refused: 'signature' });
    expect(verifyImageToken(token, key, NOW + 60)).toEqual({ refused: 'expired' });
    expect(verifyImageToken('../../etc/passwd', key, NOW)).toEqual({ refused: 'malformed' });
  });

  it('gives the same reference to the same source, and another to another', () => {
    expect(imageRef('http://a/x.iso')).toBe(imageRef('http://a/x.iso'));
    expect(imageRef('http://a/x.iso')).not.toBe(imageRef('http://a/y.iso'));
    expect(imageRef('http://a/x.iso')).toMatch(/^[a-z2-7]{16}$/);
  });
});

describe('HTTP ranges', () => {
  const etag = '"abc"';
  it.each([
    ['bytes=0-99', [[0, 99]]],
    ['bytes=100-', [[100, 999]]],
    ['bytes=-50', [[950, 999]]],
    ['bytes=900-5000', [[900, 999]]],
    ['bytes=1000-', 'unsatisfiable'],
    ['bytes=5-4', 'unsatisfiable'],
    [
      'bytes=0-1,5-6',
      [
        [0, 1],
        [5, 6],
      ],
    ],
    [
      'bytes=500-599, 0-9, 2000-',
      [
        [0, 9],
        [500, 599],
      ],
    ],
    [
      'bytes=0-9,5-19,20-29,-1',
      [
        [0, 29],
        [999, 999],
      ],
    ],
    [
      `bytes=${Array.from({ length: 17 }, (_, i) => `${String(i * 10)}-${String(i * 10)}`).join(',')}`,
      undefined,
    ],
    ['bytes=0-1,x', undefined],
    ['items=0-1', undefined],
  ] as const)('%s of 1000 bytes → %j', (header, expected) => {
    expect(parseRanges(header, undefined, etag, 1000)).toEqual(expected);
  });
  it('serves the whole file when If-Range names another version', () => {
    expect(parseRanges('bytes=0-1', '"old"', etag, 1000)).toBeUndefined();
    expect(parseRanges('bytes=0-1', `W/${etag}`, etag, 1000)).toBeUndefined();
    expect(parseRanges('bytes=0-1', etag, etag, 1000)).toEqual([[0, 1]]);
  });
});

describe('the image server', () => {
  const iso = randomBytes(3 * 1024 * 1024 + 17);
  const sha = createHash('sha256').update(iso).digest('hex');
  let upstream: Server;
  let upstreamOrigin: string;
  let upstreamGets: number;
  let cacheDir: string;
  let server: ImageServer;
  let now: number;
  const clock = { now: () => now, sleep: () => Promise.resolve() };

  beforeEach(async () => {
    upstreamGets = 0;
    now = NOW * 1000;
    upstream = createServer((req, res) => {
      if (req.url?.startsWith('/moved/')) {
        res.writeHead(302, { location: `/rhcos-${req.url.slice('/moved/'.length)}` }).end();
        return;
      }
      if (!req.url?.startsWith('/rhcos')) {
        res.writeHead(404).end();
        return;
      }
      upstreamGets++;
      res.writeHead(200, { 'content-length': iso.length });
      res.end(iso);
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamOrigin = `http://127.0.0.1:${String((upstream.address() as AddressInfo).port)}`;
    cacheDir = mkdtempSync(join(tmpdir(), 'siteforge-images-'));
    server = await startImageServer({ cacheDir, key, clock });
  });
  afterEach(async () => {
    await server.stop();
    upstream.closeAllConnections();
    await new Promise<void>((r) =>
      upstream.close(() => {
        r();
      }),
    );
    rmSync(cacheDir, { recursive: true, force: true });
  });

  const longSource = () =>
    `${upstreamOrigin}/rhcos/byapikey/${'eyJhbGciOiJIUzI1NiJ9'.repeat(12)}/4.14/x86_64/minimal.iso?arch=x86_64&version=4.14`;

  it('hands BMCs a short URL without a query string that ends in .iso', async () => {
    const source = longSource();
    expect(source.length).toBeGreaterThan(300);
    const url = await server.urlFor(source);
    expect(url).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/images\/[a-z2-7]{16}\.[0-9a-z]+\.[\w-]{22}\.iso$/,
    );
    expect(url.length).toBeLessThan(100);
  });

  it('downloads a source once for a crowd of BMCs asking at the same time', async () => {
    const url = await server.urlFor(longSource());
    const bodies = await Promise.all(
      Array.from({ length: 24 }, async () => Buffer.from(await (await fetch(url)).arrayBuffer())),
    );
    expect(upstreamGets).toBe(1);
    for (const body of bodies) expect(createHash('sha256').update(body).digest('hex')).toBe(sha);
    expect(server.stats.upstreamDownloads).toBe(1);
  });

  it('serves ranges the way BMCs read ISOs', async () => {
    // From the cache: while the first download runs there is no ETag yet (the hash is known
    // only at the end), which the streaming test covers.
    await server.prefetch(`${upstreamOrigin}/rhcos.iso`);
    const url = await server.urlFor(`${upstreamOrigin}/rhcos.iso`);
    const part = await fetch(url, { headers: { range: 'bytes=1048576-1049599' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1048576-1049599/${String(iso.length)}`);
    expect(part.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await part.arrayBuffer())).toEqual(iso.subarray(1048576, 1049600));

    const tail = await fetch(url, { headers: { range: 'bytes=-17' } });
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(iso.subarray(iso.length - 17));

    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(iso.length));
    expect(head.headers.get('etag')).toBe(`"${sha}"`);

    const beyond = await fetch(url, { headers: { range: `bytes=${String(iso.length)}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${String(iso.length)}`);
    // Only bytes a BMC was sent count: the two ranges, not the HEAD or the refused range.
    await vi.waitFor(() => {
      expect(server.stats.bytesServed).toBe(1024 + 17);
    });
  });

  it('gives each of many BMCs reading at once its own bytes', async () => {
    await server.prefetch(`${upstreamOrigin}/rhcos.iso`);
    const url = await server.urlFor(`${upstreamOrigin}/rhcos.iso`);
    // Ranges of every shape, across the 1 MiB reads the server does, all in flight together.
    const ranges = Array.from({ length: 48 }, (_, i) => {
      const start = (i * 65_537) % iso.length;
      return [start, Math.min(iso.length - 1, start + ((i * 524_287) % (2 * 1024 * 1024)))];
    });
    const parts = await Promise.all(
      ranges.map(async ([start, end]) => {
        const res = await fetch(url, {
          headers: { range: `bytes=${String(start)}-${String(end)}` },
        });
        return Buffer.from(await res.arrayBuffer());
      }),
    );
    parts.forEach((part, i) => {
      const [start, end] = ranges[i]!;
      expect(part.equals(iso.subarray(start, end! + 1))).toBe(true);
    });
  });

  it('answers If-None-Match and If-Match as nginx does: 304 and 412', async () => {
    await server.prefetch(`${upstreamOrigin}/rhcos.iso`);
    const url = await server.urlFor(`${upstreamOrigin}/rhcos.iso`);
    const etag = `"${sha}"`;
    const get = (headers: Record<string, string>, method = 'GET') =>
      fetch(url, { method, headers }).then(async (r) => ({
        status: r.status,
        etag: r.headers.get('etag'),
        bytes: (await r.arrayBuffer()).byteLength,
      }));
    // A BMC or cache that holds the current ISO is told so, without the bytes.
    expect(await get({ 'if-none-match': etag })).toEqual({ status: 304, etag, bytes: 0 });
    expect(await get({ 'if-none-match': `"other", W/${etag}` })).toMatchObject({ status: 304 });
    expect(await get({ 'if-none-match': '*' }, 'HEAD')).toMatchObject({ status: 304 });
    expect(await get({ 'if-none-match': '"other"' })).toMatchObject({
      status: 200,
      bytes: iso.length,
    });
    // A client resuming a download of another version is refused, not handed mixed bytes.
    expect(await get({ 'if-match': '"other"', range: 'bytes=0-9' })).toMatchObject({
      status: 412,
    });
    expect(await get({ 'if-match': `W/${etag}` })).toMatchObject({ status: 412 });
    expect(await get({ 'if-match': `"other", ${etag}`, range: 'bytes=0-9' })).toMatchObject({
      status: 206,
      bytes: 10,
    });
    expect(await get({ 'if-match': '*', 'if-none-match': etag })).toMatchObject({ status: 304 });
    expect(server.stats.bytesServed).toBe(iso.length + 10);
  });

  it('answers several ranges with multipart/byteranges, not with the whole ISO', async () => {
    await server.prefetch(`${upstreamOrigin}/rhcos.iso`);
    const url = await server.urlFor(`${upstreamOrigin}/rhcos.iso`);
    const res = await fetch(url, { headers: { range: 'bytes=2097152-2097161,0-9,5-14' } });
    expect(res.status).toBe(206);
    const type = res.headers.get('content-type') ?? '';
    const boundary = /^multipart\/byteranges; boundary=(\w+)$/.exec(type)?.[1];
    expect(boundary).toBeDefined();
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBe(Number(res.headers.get('content-length')));
    // Overlapping ranges are merged and the parts come in file order (RFC 9110 §15.3.7.2).
    const parts = body
      .toString('latin1')
      .split(`--${boundary!}`)
      .slice(1, -1)
      .map((part) => {
        const [head, bytes] = part.split('\r\n\r\n');
        return { range: /content-range: (.*)/.exec(head!)?.[1], bytes: bytes!.slice(0, -2) };
      });
    const size = String(iso.length);
    expect(parts).toEqual([
      { range: `bytes 0-14/${size}`, bytes: iso.subarray(0, 15).toString('latin1') },
      {
        range: `bytes 2097152-2097161/${size}`,
        bytes: iso.subarray(2097152, 2097162).toString('latin1'),
      },
    ]);
    expect(body.toString('latin1').endsWith(`\r\n--${boundary!}--\r\n`)).toBe(true);
    // Ranges that merge into one get a plain single-range answer.
    const one = await fetch(url, { headers: { range: 'bytes=0-9,10-19' } });
    expect(one.headers.get('content-range')).toBe(`bytes 0-19/${size}`);
    expect(Buffer.from(await one.arrayBuffer())).toEqual(iso.subarray(0, 20));
  });

  it('keys the cache by content: two sources with the same bytes share one blob', async () => {
    await server.prefetch(`${upstreamOrigin}/rhcos-a.iso`);
    await server.prefetch(`${upstreamOrigin}/rhcos-b.iso`);
    expect(upstreamGets).toBe(2);
    expect(readdirSync(join(cacheDir, 'blobs'))).toEqual([`${sha}.iso`]);
  });

  it('keeps its URLs and cache across a restart', async () => {
    const url = await server.urlFor(`${upstreamOrigin}/rhcos.iso`);
    await fetch(url).then((r) => r.arrayBuffer());
    await server.stop();
    const port = new URL(url).port;
    server = await startImageServer({ cacheDir, key, clock, port: Number(port) });
    const again = await fetch(url);
    expect(again.status).toBe(200);
    expect(Buffer.from(await again.arrayBuffer()).length).toBe(iso.length);
    expect(upstreamGets).toBe(1);
  });

  it('refuses expired, forged and unknown URLs, and anything but GET and HEAD', async () => {
    const url = await server.urlFor(`${upstreamOrigin}/rhcos.iso`, 60);
    now += 61_000;
    expect((await fetch(url)).status).toBe(404);
    now -= 61_000;
    expect((await fetch(url.replace(/.{6}\.iso$/, 'AAAAAA.iso'))).status).toBe(404);
    const unknown = signImageToken(
      { ref: imageRef('http://nowhere/x.iso'), expiresAt: NOW + 60 },
      key,
    );
    expect((await fetch(`${server.origin}/images/${unknown}.iso`)).status).toBe(404);
    expect((await fetch(`${server.origin}/etc/passwd`)).status).toBe(404);
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);
    expect(upstreamGets).toBe(0);
  });

  it('streams the first bytes through before the download has finished', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = createServer((req, res) => {
      upstreamGets++;
      res.writeHead(200, { 'content-length': iso.length });
      res.write(iso.subarray(0, 1024 * 1024));
      void held.then(() => res.end(iso.subarray(1024 * 1024)));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const port = (slow.address() as AddressInfo).port;
      const url = await server.urlFor(`http://127.0.0.1:${String(port)}/rhcos-slow.iso`);
      const head = await fetch(url, { headers: { range: 'bytes=32768-34815' } });
      expect(head.status).toBe(206);
      expect(head.headers.get('etag')).toBeNull(); // the hash is not known yet
      expect(Buffer.from(await head.arrayBuffer())).toEqual(iso.subarray(32768, 34816));

      const whole = fetch(url).then(async (r) => Buffer.from(await r.arrayBuffer()));
      release();
      expect((await whole).equals(iso)).toBe(true);
      // The last byte can reach a reader before the blob is hashed and renamed: wait for that.
      await server.prefetch(`http://127.0.0.1:${String(port)}/rhcos-slow.iso`);
      const after = await fetch(url, { method: 'HEAD' });
      expect(after.headers.get('etag')).toBe(`"${sha}"`);
      expect(upstreamGets).toBe(1);
    } finally {
      release();
      slow.closeAllConnections();
      slow.close();
    }
  });

  it('serves https://host/images/<token>.iso with a certificate BMCs can verify', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'siteforge-images-tls-'));
    const cert = loopbackCert(dir);
    const tls = await startImageServer({
      cacheDir: join(dir, 'cache'),
      key,
      clock,
      tls: { key: cert.key, cert: cert.cert },
    });
    try {
      const url = await tls.urlFor(`${upstreamOrigin}/rhcos.iso`);
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/images\/[^?]+\.iso$/);
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = httpsGet(url, { ca: cert.cert, headers: { range: 'bytes=0-1023' } }, (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on('error', reject);
      });
      expect(status).toBe(206);
    } finally {
      await tls.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('follows the redirects of a source (mirrors answer with one)', async () => {
    const url = await server.urlFor(`${upstreamOrigin}/moved/x86_64.iso`);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(iso)).toBe(true);
    expect(upstreamGets).toBe(1);
  });

  it('answers 502 when the source fails, and tries again on the next request', async () => {
    const url = await server.urlFor(`${upstreamOrigin}/missing.iso`);
    expect((await fetch(url)).status).toBe(502);
    expect((await fetch(url)).status).toBe(502);
    expect(server.stats.upstreamDownloads).toBe(2);
    expect(readdirSync(join(cacheDir, 'tmp'))).toEqual([]);
  });

  it('tells a BMC only that the source failed: not its URL, which may carry a token', async () => {
    const url = await server.urlFor(`${upstreamOrigin}/missing.iso?api_key=sEcReT-jwt`);
    const res = await fetch(url);
    expect(res.status).toBe(502);
    expect(await res.text()).toBe('image source unavailable\n');
  });

  it('answers a range whose source fails mid-way with a complete error, not a hung body', async () => {
    // The source announces the whole ISO, sends 1 MiB, then drops: the range asked for lies
    // beyond, so the answer fails before its first byte, after its range headers were set.
    const dropping = createServer((req, res) => {
      res.writeHead(200, { 'content-length': iso.length });
      res.write(iso.subarray(0, 1024 * 1024), () => res.destroy());
    });
    await new Promise<void>((r) => dropping.listen(0, '127.0.0.1', r));
    try {
      const port = (dropping.address() as AddressInfo).port;
      const url = await server.urlFor(`http://127.0.0.1:${String(port)}/rhcos-drop.iso`);
      const res = await fetch(url, { headers: { range: 'bytes=2097152-2098175' } });
      expect(res.status).toBe(502);
      expect(res.headers.get('content-range')).toBeNull();
      expect(await res.text()).toBe('image source unavailable\n');
    } finally {
      dropping.closeAllConnections();
      dropping.close();
    }
  });

  it('answers 400 to a path it cannot decode, not 500', async () => {
    expect((await fetch(`${server.origin}/images/%ZZ.iso`)).status).toBe(400);
  });
});

/** A GET that takes the response headers and then reads nothing more. */
function stalledReader(url: URL): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, (res) => {
      res.pause();
      resolve(res);
    });
    req.on('error', reject);
  });
}

/** The most a TCP connection's receive and send buffers can grow to (Linux), else 0. */
function socketBufferMax(): number {
  const max = (name: string) => {
    try {
      const fields = readFileSync(`/proc/sys/net/ipv4/${name}`, 'utf8').trim().split(/\s+/);
      return Number(fields[2]) || 0;
    } catch {
      return 0;
    }
  };
  return max('tcp_rmem') + max('tcp_wmem');
}

describe('the image cache with several ISOs', () => {
  const MiB = 1024 * 1024;
  /** Image `n` of the upstream: `size` bytes of `n`. */
  const image = (n: number, size = MiB) => Buffer.alloc(size, n);
  const shaOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  /** Larger than what the socket buffers of a stalled reader can hold (64 MiB at least). */
  const BIG = Math.max(64 * MiB, socketBufferMax() + 16 * MiB);
  let upstream: Server;
  let upstreamOrigin: string;
  let gets: Map<string, number>;
  let release: () => void;
  let cacheDir: string;
  let server: ImageServer;
  let now: number;
  const clock = { now: () => now, sleep: () => Promise.resolve() };

  beforeEach(async () => {
    gets = new Map();
    now = NOW * 1000;
    const held = new Promise<void>((resolve) => (release = resolve));
    upstream = createServer((req, res) => {
      const path = req.url ?? '';
      gets.set(path, (gets.get(path) ?? 0) + 1);
      const [, kind, n] = /^\/(iso|big|held)-(\d+)\.iso$/.exec(path) ?? [];
      const bytes = image(Number(n), kind === 'big' ? BIG : kind === 'held' ? 3 * MiB : MiB);
      res.writeHead(200, { 'content-length': bytes.length });
      if (kind !== 'held') {
        res.end(bytes);
        return;
      }
      res.write(bytes.subarray(0, MiB)); // the rest once the test releases it
      void held.then(() => res.end(bytes.subarray(MiB)));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamOrigin = `http://127.0.0.1:${String((upstream.address() as AddressInfo).port)}`;
    cacheDir = mkdtempSync(join(tmpdir(), 'siteforge-images-lru-'));
  });
  afterEach(async () => {
    release();
    await server.stop();
    upstream.closeAllConnections();
    await new Promise<void>((r) =>
      upstream.close(() => {
        r();
      }),
    );
    rmSync(cacheDir, { recursive: true, force: true });
  });

  const start = async (maxCacheBytes: number) => {
    server = await startImageServer({ cacheDir, key, clock, maxCacheBytes });
  };
  const source = (n: number, kind = 'iso') => `${upstreamOrigin}/${kind}-${String(n)}.iso`;
  /** Prefetches image `n` a minute after the last step, as a BMC fleet would over time. */
  const prefetch = async (n: number) => {
    now += 60_000;
    await server.prefetch(source(n));
  };
  const fetchImage = async (n: number, kind = 'iso') => {
    now += 60_000;
    const res = await fetch(await server.urlFor(source(n, kind)));
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  };
  const blobs = () =>
    readdirSync(join(cacheDir, 'blobs'))
      .map((name) => name.replace(/\.iso$/, ''))
      .sort();
  const cachedBytes = () =>
    readdirSync(join(cacheDir, 'blobs')).reduce(
      (sum, name) => sum + statSync(join(cacheDir, 'blobs', name)).size,
      0,
    );
  const shasOf = (...ns: number[]) => ns.map((n) => shaOf(image(n))).sort();

  it('keeps the cache under its limit across several distinct ISOs', async () => {
    await start(3.5 * MiB);
    for (let n = 1; n <= 8; n++) {
      await prefetch(n);
      expect(cachedBytes()).toBeLessThanOrEqual(3.5 * MiB);
    }
    expect(blobs()).toEqual(shasOf(6, 7, 8));
    expect(server.stats.evictions).toBe(5);
  });

  it('evicts the least recently used ISO, not the one a BMC just read', async () => {
    await start(2.5 * MiB);
    await prefetch(1);
    await prefetch(2);
    expect((await fetchImage(1)).status).toBe(200);
    await prefetch(3);
    expect(blobs()).toEqual(shasOf(1, 3));
    expect(gets.get('/iso-1.iso')).toBe(1);
  });

  it("still serves an evicted ISO's URL: it downloads the source again", async () => {
    await start(1.5 * MiB);
    const url = await server.urlFor(source(1));
    await prefetch(1);
    await prefetch(2);
    expect(blobs()).toEqual(shasOf(2));
    const again = await fetch(url);
    expect(again.status).toBe(200);
    expect(Buffer.from(await again.arrayBuffer()).equals(image(1))).toBe(true);
    expect(gets.get('/iso-1.iso')).toBe(2);
    await server.prefetch(source(1)); // stored once the download is hashed and renamed
    expect(blobs()).toEqual(shasOf(1));
    expect(server.stats.evictions).toBe(2);
  });

  it('does not evict an ISO while a BMC reads it, and evicts it once the read is over', async () => {
    await start(BIG + MiB / 2); // the big ISO fits, not with another
    await server.prefetch(source(1, 'big'));
    const url = new URL(await server.urlFor(source(1, 'big')));
    // A reader that takes the headers and then stops: BIG cannot fit in the socket buffers, so
    // the server is still sending.
    const reader = await stalledReader(url);
    await prefetch(2);
    await prefetch(3);
    const bigSha = shaOf(image(1, BIG));
    expect(blobs()).toEqual([bigSha, shaOf(image(3))].sort());
    expect(server.stats.evictions).toBe(1); // image 2, although the big one was read first

    const hash = createHash('sha256');
    for await (const part of reader) hash.update(part as Buffer);
    expect(hash.digest('hex')).toBe(bigSha);
    await vi.waitFor(
      () => {
        expect(blobs()).toEqual(shasOf(3));
      },
      { timeout: 10_000 },
    );
  });

  it('does not evict a download in flight, nor the ISO it becomes while streamed', async () => {
    await start(2.5 * MiB);
    await prefetch(1);
    await prefetch(2);
    now += 60_000;
    const streamed = await fetch(await server.urlFor(source(9, 'held')));
    // Its 3 MiB are counted as soon as the source announces them: the older images make room.
    await prefetch(3);
    expect(readdirSync(join(cacheDir, 'tmp'))).toHaveLength(1);
    expect(blobs()).toEqual(shasOf(3));
    release();
    expect(Buffer.from(await streamed.arrayBuffer()).equals(image(9, 3 * MiB))).toBe(true);
    await server.prefetch(source(9, 'held'));
    expect(blobs()).toContain(shaOf(image(9, 3 * MiB)));
    expect(gets.get('/held-9.iso')).toBe(1);
  });

  it("keeps a stalled BMC's bytes its own while others read", async () => {
    await start(BIG * 2);
    await server.prefetch(source(1, 'big'));
    await server.prefetch(source(2));
    // The stalled response's last write waits in the server with the socket buffers full: the
    // buffer it holds must not be reused for another response meanwhile.
    const bigUrl = new URL(await server.urlFor(source(1, 'big')));
    const stalled = await stalledReader(bigUrl);
    const url = await server.urlFor(source(2));
    const others = await Promise.all(
      Array.from({ length: 32 }, async () => Buffer.from(await (await fetch(url)).arrayBuffer())),
    );
    for (const body of others) expect(body.equals(image(2))).toBe(true);
    const hash = createHash('sha256');
    for await (const part of stalled) hash.update(part as Buffer);
    expect(hash.digest('hex')).toBe(shaOf(image(1, BIG)));
  });

  it('keeps the LRU order across a restart', async () => {
    await start(2.5 * MiB);
    await prefetch(1);
    await prefetch(2);
    expect((await fetchImage(1)).status).toBe(200);
    await server.stop();
    await start(2.5 * MiB);
    await prefetch(3);
    expect(blobs()).toEqual(shasOf(1, 3));
    expect((await fetchImage(1)).body.equals(image(1))).toBe(true);
    expect(gets.get('/iso-1.iso')).toBe(1);
  });
});
