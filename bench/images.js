// `npm run bench` (part of it): the image server's throughput for 100 concurrent ranged
// downloads of a 1 GiB ISO (each client reads its own slice in 1 MiB ranges, as BMCs read
// ISOs), against a plain read of the same file on this machine, from the page cache and from
// disk. The server runs in its own process, as in production; the clients share the machine
// with it, so the figures come with the load average and each side's CPU time. For scale, the
// same clients also read from a server that sends one static buffer (no file, no cache): what
// HTTP over loopback carries here at all. Uses build/.
import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';

const here = fileURLToPath(import.meta.url);
const build = new URL('../build/src/bmac/images/index.js', import.meta.url);
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** Runs the benchmark; exported for bench/run.js. */
export async function runImageBench({
  size = Number(process.env.IMAGE_BENCH_BYTES ?? GiB),
  clients = 100,
  rounds = 3,
} = {}) {
  const work = mkdtempSync(join(tmpdir(), 'siteforge-image-bench-'));
  const file = join(work, 'rhcos.iso');
  const fd = openSync(file, 'w');
  const chunk = randomBytes(MiB);
  for (let written = 0; written < size; written += MiB)
    writeSync(fd, chunk, 0, Math.min(MiB, size - written));
  closeSync(fd);

  const child = fork(here, ['--server', file, join(work, 'cache')], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const agent = new Agent({ connections: clients, pipelining: 1 });
  try {
    const started = await new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`image server exited ${code}`)));
    });
    const url = new URL(started.url);
    const serverCpu = () =>
      new Promise((resolve) => {
        child.once('message', resolve);
        child.send('cpu');
      });

    const plain = () => {
      const buffer = Buffer.allocUnsafe(MiB);
      const blob = openSync(file, 'r');
      const start = performance.now();
      let total = 0;
      for (let n; (n = readSync(blob, buffer, 0, MiB, null)) > 0;) total += n;
      closeSync(blob);
      return total / ((performance.now() - start) / 1000);
    };
    const served = async (target = url) => {
      const slice = Math.ceil(size / clients);
      const start = performance.now();
      let total = 0;
      await Promise.all(
        Array.from({ length: clients }, async (_, c) => {
          const end = Math.min(size, (c + 1) * slice);
          for (let from = c * slice; from < end; from += MiB) {
            const to = Math.min(end, from + MiB) - 1;
            const res = await request(target, {
              dispatcher: agent,
              headers: { range: `bytes=${from}-${to}` },
            });
            if (res.statusCode !== 206) throw new Error(`range answered ${res.statusCode}`);
            for await (const part of res.body) total += part.length;
          }
        }),
      );
      if (total !== size) throw new Error(`read ${total} of ${size} bytes`);
      return total / ((performance.now() - start) / 1000);
    };
    plain(); // warm the page cache
    const loadBefore = loadavg()[0];
    const plains = [];
    const serveds = [];
    const ceilings = [];
    let cpu = { server: 0, client: 0 };
    for (let i = 0; i < rounds; i++) {
      plains.push(plain());
      const [server0, client0] = [await serverCpu(), process.cpuUsage()];
      serveds.push(await served());
      const [server1, client1] = [await serverCpu(), process.cpuUsage(client0)];
      cpu = {
        server: cpu.server + (server1.user + server1.system - server0.user - server0.system) / 1e6,
        client: cpu.client + (client1.user + client1.system) / 1e6,
      };
      ceilings.push(await served(new URL(started.staticUrl)));
    }
    const loadAfter = loadavg()[0];
    const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const p = median(plains);
    const s = median(serveds);
    const ceiling = median(ceilings);
    const direct = directRead(file, size);
    const perGiB = (seconds) => (seconds / ((rounds * size) / GiB)).toFixed(2);
    const pct = (x) => `${((s / x) * 100).toFixed(0)} %`;
    console.log(
      `\nimage server: ${(size / GiB).toFixed(2)} GiB ISO, ${clients} concurrent clients reading 1 MiB ranges (median of ${rounds})`,
    );
    console.log(
      `  first download into the cache:  ${started.fill.toFixed(2)} s (${started.downloads} upstream download)`,
    );
    console.log(`  plain read, page cache:         ${(p / MiB).toFixed(0)} MiB/s`);
    if (direct) console.log(`  plain read, disk (O_DIRECT):    ${(direct / MiB).toFixed(0)} MiB/s`);
    console.log(
      `  served through HTTP ranges:     ${(s / MiB).toFixed(0)} MiB/s = ${pct(p)} of the page-cache read${direct ? `, ${pct(direct)} of the disk read` : ''} (target >= 80 %)`,
    );
    console.log(
      `  CPU per GiB served:             image server ${perGiB(cpu.server)} s, clients ${perGiB(cpu.client)} s`,
    );
    console.log(
      `  HTTP ceiling (static buffer):   ${(ceiling / MiB).toFixed(0)} MiB/s, same clients; the image server reaches ${pct(ceiling)} of it`,
    );
    console.log(
      `  machine: ${availableParallelism()} CPUs, load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after`,
    );
  } finally {
    await agent.close();
    child.kill();
    rmSync(work, { recursive: true, force: true });
  }
  await runStalledClientsBench();
}

/**
 * The image server's memory under clients that ask for an ISO and never read (the attack of
 * issue 9: 1,500 of them took it from 98 MB to 1.59 GB), with its default limits. Each such
 * loopback connection also holds a few MiB of kernel socket memory, whatever the server does:
 * 1,500 of them reach the kernel's TCP memory pressure limit for some seconds.
 */
export async function runStalledClientsBench({
  clients = Number(process.env.IMAGE_BENCH_STALLED ?? 1_500),
} = {}) {
  const child = fork(
    fileURLToPath(new URL('../test/hostile/image-server-child.mjs', import.meta.url)),
    ['{}', '16'],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const ask = () =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send('stats');
    });
  const sockets = [];
  try {
    const url = new URL((await new Promise((resolve) => child.once('message', resolve))).url);
    const before = await ask();
    for (let i = 0; i < clients; i++) {
      const socket = connect(Number(url.port), url.hostname);
      socket.on('error', () => undefined);
      socket.write(`GET ${url.pathname} HTTP/1.1\r\nhost: images\r\n\r\n`);
      socket.pause();
      sockets.push(socket);
    }
    const start = performance.now();
    let during = await ask();
    while (during.waitingForClients < clients && performance.now() - start < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      during = await ask();
    }
    const mb = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;
    console.log(
      `  ${clients} clients that never read: server RSS ${mb(before.rss)} before, ${mb(during.rss)} with ${during.waitingForClients} of them stalled (buffers ${mb(during.arrayBuffers - before.arrayBuffers)})`,
    );
  } finally {
    for (const socket of sockets) socket.destroy();
    // Cut off, the child stops its server and removes its cache, then exits.
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.disconnect();
    await exited;
  }
}

/** Reads the file bypassing the page cache; undefined where dd cannot. */
function directRead(file, size) {
  try {
    const start = performance.now();
    execFileSync('dd', [`if=${file}`, 'of=/dev/null', 'bs=4M', 'iflag=direct'], {
      stdio: 'ignore',
    });
    return size / ((performance.now() - start) / 1000);
  } catch {
    return undefined;
  }
}

if (process.argv[2] === '--server') {
  // Child: an upstream serving the ISO, and the image server with it in its cache.
  const [file, cacheDir] = process.argv.slice(3);
  const { startImageServer } = await import(build.href);
  const upstream = createServer((req, res) => {
    res.writeHead(200, { 'content-length': statSync(file).size });
    createReadStream(file, { highWaterMark: MiB }).pipe(res);
  });
  await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
  const source = `http://127.0.0.1:${upstream.address().port}/rhcos.iso`;
  const server = await startImageServer({ cacheDir, key: randomBytes(32) });
  // The transport alone: every range answered with the same bytes from memory.
  const slab = randomBytes(MiB);
  const staticServer = createServer((req, res) => {
    const [, from, to] = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '') ?? [0, 0, MiB - 1];
    const length = Number(to) - Number(from) + 1;
    res.writeHead(206, { 'content-length': length });
    res.end(slab.subarray(0, length));
  });
  await new Promise((r) => staticServer.listen(0, '127.0.0.1', r));
  process.on('message', () => process.send(process.cpuUsage()));
  const url = await server.urlFor(source);
  const start = performance.now();
  await server.prefetch(source);
  process.send({
    url,
    staticUrl: `http://127.0.0.1:${staticServer.address().port}/static.iso`,
    fill: (performance.now() - start) / 1000,
    downloads: server.stats.upstreamDownloads,
  });
} else if (process.argv[1] === here) {
  await runImageBench();
}
