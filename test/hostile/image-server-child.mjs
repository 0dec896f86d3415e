// Child process of test/hostile/image-server.test.ts and bench/images.js: an image server (with
// the limits given as JSON in argv[2]) that holds one ISO of argv[3] MiB in its cache, alone in
// its process so that its memory can be measured. Sends `{ url }` once ready, then answers
// each message with its RSS and counters. Uses build/ (the test run builds it first).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { startImageServer } = await import(
  new URL('../../build/src/bmac/images/index.js', import.meta.url).href
);
const limits = JSON.parse(process.argv[2] ?? '{}');
const MiB = 1024 * 1024;
const image = Buffer.alloc(Number(process.argv[3] ?? 16) * MiB, randomBytes(MiB));
const upstream = createServer((req, res) => {
  res.writeHead(200, { 'content-length': image.length }).end(image);
});
await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const source = `http://127.0.0.1:${upstream.address().port}/rhcos.iso`;
const cacheDir = mkdtempSync(join(tmpdir(), 'siteforge-hostile-'));
const server = await startImageServer({ cacheDir, key: randomBytes(32), limits });
await server.prefetch(source);
upstream.close();
process.on('message', () => {
  const { rss, arrayBuffers } = process.memoryUsage();
  process.send({ rss, arrayBuffers, ...server.stats });
});
process.on('disconnect', () => {
  // Held open until the cache is removed: with the server closed, nothing else would be.
  const hold = setInterval(() => undefined, 1_000);
  void server.stop().finally(() => {
    rmSync(cacheDir, { recursive: true, force: true });
    clearInterval(hold);
  });
});
process.send({ url: await server.urlFor(source) });
