// `npm run bench` (part of it): boots BMC_COUNT simulated BMCs (default 500) concurrently
// through the real UndiciRedfishClient and bootFromIso, and prints p50/p99 per operation, the
// wall time, the requests per boot and the peak RSS of the client process. The fleet runs in
// a child process so the figures are the controller side's alone. Uses build/ (npm run build).
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);
const build = new URL('../build/src/bmac/redfish/', import.meta.url);

if (process.argv[2] === '--fleet') {
  // Child: serve the fleet until the parent says stop.
  const { startBmcFleet } = await import(new URL('sim/index.js', build).href);
  // Hosts that are on, with an old ISO in the CD: every step of the workflow has work to do.
  const fleet = await startBmcFleet({
    count: Number(process.argv[3]),
    power: 'On',
    insertedImage: 'http://10.0.0.1/images/old.iso',
    seed: 7,
  });
  process.send({
    bmcs: fleet.bmcs.map((b) => ({ address: b.address, credentials: b.credentials })),
  });
  process.on('message', async (message) => {
    if (message !== 'stop') return;
    const booted = fleet.boots.filter((b) => b.imageUrl !== undefined).length;
    const requests = fleet.requestCount();
    const rssMb = process.resourceUsage().maxRSS / 1024;
    await fleet.stop();
    process.send({ booted, requests, rssMb });
    process.disconnect();
  });
} else if (process.argv[1] === here) {
  await runRedfishBench();
}

/** Runs the benchmark; exported for bench/run.js. */
export async function runRedfishBench(count = Number(process.env.BMC_COUNT ?? 500)) {
  const { bootFromIso, UndiciRedfishClient } = await import(new URL('index.js', build).href);
  const { PERSONALITIES } = await import(new URL('sim/index.js', build).href);
  const child = fork(here, ['--fleet', String(count)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`fleet exited ${code}`)));
    });
  const { bmcs } = await next();
  const timings = new Map();
  const timed =
    (name, fn) =>
    async (...args) => {
      const start = performance.now();
      try {
        return await fn(...args);
      } finally {
        if (!timings.has(name)) timings.set(name, []);
        timings.get(name).push(performance.now() - start);
      }
    };
  const options = { powerPollMs: 100, mediaPollMs: 100, minTaskPollMs: 20 };
  const started = performance.now();
  const failures = [];
  await Promise.all(
    bmcs.map(async ({ address, credentials }, i) => {
      const client = new UndiciRedfishClient({ address, credentials, ...options });
      const port = {
        discover: timed('discover', () => client.discover()),
        getSystem: () => client.getSystem(),
        getMediaSlots: () => client.getMediaSlots(),
        setPower: (action, o) => timed(`power ${action}`, () => client.setPower(action, o))(),
        ejectMedia: timed('eject', () => client.ejectMedia()),
        insertMedia: timed('insert', (url) => client.insertMedia(url)),
        setBootMode: timed('boot mode', (mode) => client.setBootMode(mode)),
        setBootOverride: timed('boot override', (r) => client.setBootOverride(r)),
        close: () => client.close(),
      };
      try {
        await timed('bootFromIso', () =>
          bootFromIso(port, `http://10.0.0.1/images/${String(i)}.iso`),
        )();
      } catch (err) {
        failures.push(err);
      } finally {
        await client.close();
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  child.send('stop');
  const fleet = await next();
  const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
  console.log(
    `\nbootFromIso on ${count} simulated BMCs at once (${String(Object.keys(PERSONALITIES).length)} vendor personalities in turn; polls every ${options.powerPollMs} ms)`,
  );
  console.log('operation          count     p50 ms     p99 ms');
  for (const [name, xs] of timings) {
    xs.sort((a, b) => a - b);
    console.log(
      `${name.padEnd(16)} ${String(xs.length).padStart(6)} ${pct(xs, 50).toFixed(1).padStart(10)} ${pct(xs, 99).toFixed(1).padStart(10)}`,
    );
  }
  console.log(
    `wall ${wall.toFixed(2)} s, ${fleet.booted}/${count} hosts booted the ISO, ${failures.length} failed, ` +
      `${(fleet.requests / count).toFixed(1)} requests per boot, ` +
      `peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (client) + ${fleet.rssMb.toFixed(0)} MB (fleet)`,
  );
  if (failures.length > 0) console.log(`first failure: ${failures[0].message}`);
}
