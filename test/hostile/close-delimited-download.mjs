// Child process of test/hostile/image-server.test.ts: the image server, in a process that has
// loaded the Redfish module (as the controller does) and npm undici's index (as any dependency
// may), downloads ISOs from a source that answers HTTP/1.0 and closes the connection after the
// body, onto a disk whose writes lag. Prints one JSON line: whether undici was installed as
// fetch's dispatcher by the Redfish module, and how many downloads came out whole.
// Arguments: <downloads> [--with-undici-index]. Uses build/ (the test run builds it first).
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const build = new URL('../../build/src/bmac/', import.meta.url);
const dispatcher = Symbol.for('undici.globalDispatcher.1');
await import(new URL('redfish/index.js', build).href);
const installedByRedfish = globalThis[dispatcher] !== undefined;
if (process.argv.includes('--with-undici-index')) await import('undici');
const { startImageServer } = await import(new URL('images/index.js', build).href);

// A disk that lags: every write waits 2 ms, so the body piles up in the HTTP client.
const probe = await open(process.execPath, 'r');
const FileHandle = Object.getPrototypeOf(probe);
await probe.close();
const write = FileHandle.write;
FileHandle.write = function (...args) {
  return new Promise((resolve) => setTimeout(resolve, 2)).then(() => write.apply(this, args));
};

const body = randomBytes(8 * 1024 * 1024);
const sha = createHash('sha256').update(body).digest('hex');
const source = createServer((socket) => {
  socket.once('data', () => {
    socket.write('HTTP/1.0 200 OK\r\ncontent-type: application/octet-stream\r\n\r\n');
    socket.end(body); // no Content-Length: the body ends where the connection does
  });
});
await new Promise((resolve) => source.listen(0, '127.0.0.1', resolve));
const cacheDir = mkdtempSync(join(tmpdir(), 'siteforge-close-delimited-'));
const server = await startImageServer({ cacheDir, key: randomBytes(32) });
let whole = 0;
try {
  for (let i = 0; i < Number(process.argv[2]); i++) {
    await server.prefetch(`http://127.0.0.1:${source.address().port}/iso-${i}.iso`);
    const blob = readFileSync(join(cacheDir, 'blobs', `${sha}.iso`));
    if (createHash('sha256').update(blob).digest('hex') === sha) whole++;
  }
} finally {
  await server.stop();
  source.close();
  rmSync(cacheDir, { recursive: true, force: true });
}
console.log(JSON.stringify({ installedByRedfish, whole }));
