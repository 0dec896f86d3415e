import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, get as httpGet } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyOverlay, overlayOf, startImageServer } from '../../../src/bmac/images/index.js';

describe('image overlays', () => {
  const overlay = overlayOf([
    { offset: 10, length: 8, bytes: Buffer.from('ABC') },
    { offset: 2, length: 3, bytes: Buffer.from('xyz') },
  ]);

  it('replaces the parts of any chunk that crosses them, zero-filling past their bytes', () => {
    const image = Buffer.alloc(24, '.');
    const whole = Buffer.from(image);
    applyOverlay(overlay, whole, 0);
    expect(whole.toString('latin1')).toBe('..xyz.....ABC\0\0\0\0\0......');
    // Any split into chunks gives the same bytes.
    for (let cut = 1; cut < image.length; cut++) {
      const a = Buffer.from(image.subarray(0, cut));
      const b = Buffer.from(image.subarray(cut));
      applyOverlay(overlay, a, 0);
      applyOverlay(overlay, b, cut);
      expect(Buffer.concat([a, b])).toEqual(whole);
    }
  });

  it('is named by its content, whatever the order of its parts', () => {
    const same = overlayOf([
      { offset: 2, length: 3, bytes: Buffer.from('xyz') },
      { offset: 10, length: 8, bytes: Buffer.from('ABC') },
    ]);
    expect(same.id).toBe(overlay.id);
    expect(overlayOf([{ offset: 2, length: 3, bytes: Buffer.from('xyZ') }]).id).not.toBe(
      overlay.id,
    );
  });

  it('refuses overlapping parts and bytes longer than their part', () => {
    expect(() =>
      overlayOf([
        { offset: 0, length: 4, bytes: Buffer.alloc(0) },
        { offset: 3, length: 4, bytes: Buffer.alloc(0) },
      ]),
    ).toThrow(/overlap/);
    expect(() => overlayOf([{ offset: 0, length: 2, bytes: Buffer.alloc(3) }])).toThrow(
      'content length (3) exceeds embed area size (2)',
    );
  });
});

describe('image server overlays', () => {
  let dir: string;
  let origin: Server;
  let sourceUrl: string;
  let downloads = 0;
  const base = randomBytes(3 * 1024 * 1024 + 17);
  const key = randomBytes(32);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sf-overlay-'));
    origin = createServer((_req, res) => {
      downloads++;
      res.writeHead(200, { 'content-length': base.length }).end(base);
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    sourceUrl = `http://127.0.0.1:${String((origin.address() as AddressInfo).port)}/base.iso`;
  });

  afterAll(async () => {
    await new Promise((resolve) => origin.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const overlay = overlayOf([
    { offset: 1_048_570, length: 4096, bytes: Buffer.from('discovery ignition') },
    { offset: 2_000_000, length: 5, bytes: Buffer.from(' a=b\n') },
  ]);
  const expected = Buffer.from(base);
  applyOverlay(overlay, expected, 0);

  /** A GET on a connection of its own. */
  function get(url: string, headers: Record<string, string> = {}) {
    return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>(
      (resolve, reject) => {
        httpGet(url, { headers, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks),
            });
          });
          res.on('error', reject);
        }).on('error', reject);
      },
    );
  }

  it('serves base + overlay whole and in several ranges, and keeps the URL across a restart', async () => {
    let server = await startImageServer({ cacheDir: join(dir, 'cache'), key });
    const url = await server.urlForOverlay(sourceUrl, overlay);
    // Buffer.equals: a deep toEqual of megabytes takes vitest minutes.
    expect((await get(url)).body.equals(expected)).toBe(true);
    const multi = await get(url, { range: 'bytes=1048560-1048600,1999990-2000010' });
    expect(multi.status).toBe(206);
    expect(multi.headers['content-type']).toMatch(/^multipart\/byteranges; boundary=/);
    const text = multi.body.toString('latin1');
    expect(text).toContain(expected.subarray(1_048_560, 1_048_601).toString('latin1'));
    expect(text).toContain(expected.subarray(1_999_990, 2_000_011).toString('latin1'));
    await server.stop();

    // A new port: the client's pooled connections to the stopped server must not be reused.
    server = await startImageServer({ cacheDir: join(dir, 'cache'), key });
    const restarted = url.replace(new URL(url).origin, server.origin);
    try {
      expect((await get(restarted)).body.equals(expected)).toBe(true);
      // The base itself is still served as it is, under its own ETag.
      const plain = await get(await server.urlFor(sourceUrl));
      expect(plain.body.equals(base)).toBe(true);
      expect(plain.headers.etag).not.toBe((await get(restarted)).headers.etag);
      expect(downloads).toBe(1);
      expect(
        await server.readSource(sourceUrl, async (reader, blob) => {
          const buffer = Buffer.alloc(16);
          await reader.read(buffer, 0, 16, 100);
          return { head: buffer, size: blob.size };
        }),
      ).toEqual({ head: base.subarray(100, 116), size: base.length });
    } finally {
      await server.stop();
    }
  });

  it('serves an image SiteForge made (a file: source), and says so when the file is gone', async () => {
    const local = join(dir, 'template.iso');
    writeFileSync(local, base.subarray(0, 100_000));
    const server = await startImageServer({ cacheDir: join(dir, 'cache-file'), key });
    try {
      const url = await server.urlForOverlay(pathToFileURL(local).href, overlay);
      const got = await get(url);
      const want = Buffer.from(base.subarray(0, 100_000));
      applyOverlay(overlay, want, 0);
      expect(got.status).toBe(200);
      expect(got.body.equals(want)).toBe(true);
      const gone = await get(await server.urlFor(pathToFileURL(join(dir, 'gone.iso')).href));
      expect(gone.status).toBe(502);
      await expect(server.prefetch(pathToFileURL(join(dir, 'gone.iso')).href)).rejects.toThrow(
        /gone\.iso cannot be read: ENOENT/,
      );
    } finally {
      await server.stop();
    }
  });

  it('gives a never-expiring overlay URL that stays the same over time', async () => {
    let now = Date.parse('2026-11-25T10:00:00Z');
    const clock = { now: () => now, sleep: () => Promise.resolve() };
    const server = await startImageServer({ cacheDir: join(dir, 'cache-clock'), key, clock });
    try {
      const forever = await server.urlForOverlay(sourceUrl, overlay, Infinity);
      const day = await server.urlForOverlay(sourceUrl, overlay);
      now += 3_600_000;
      expect(await server.urlForOverlay(sourceUrl, overlay, Infinity)).toBe(forever);
      expect(await server.urlForOverlay(sourceUrl, overlay)).not.toBe(day);
      now += 30 * 86_400_000;
      expect((await get(forever)).status).toBe(200);
      expect((await get(day)).status).toBe(404);
    } finally {
      await server.stop();
    }
  });
});
