// `npm run bench` (part of it): the controller on a real hub. For each fleet size N it starts a
// scratch hub (kube-apiserver + etcd on loopback) and N simulated BMCs answering at once (in a
// child process), creates N sites (Namespace, BMC Secret, InfraEnv with status.isoDownloadURL
// and a createdTime past the cool-down, BareMetalHost naming both), then starts
// `siteforge controller --mode redfish` as a child process and measures, from its start:
// the time until every BMC has been booted from its short image URL, reconciles and API
// requests per host (from the controller's own /metrics), its peak RSS and CPU seconds, and the
// API requests per minute once nothing changes (watches excluded: they are long-lived).
// Uses build/ (npm run build). BENCH_CONTROLLER_HOSTS="500,3500" sets the sizes; 3,500 BMCs
// need `ulimit -n 9048` or more (checked at the start). BENCH_CONTROLLER_STEADY_S sets the quiet
// window (default 60).
import { fork, spawn } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { apiRequestBreakdown, freePort, metricSum, pool } from './support.js';

const here = fileURLToPath(import.meta.url);
const root = join(here, '..', '..');
const build = new URL('../build/src/', import.meta.url);
const STEADY_WINDOW_S = Number(process.env.BENCH_CONTROLLER_STEADY_S ?? 60);
const BOOT_DEADLINE_MS = Number(process.env.BENCH_CONTROLLER_DEADLINE_S ?? 600) * 1000;
// Extra arguments of the controller (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p` go to node itself
// when given in BENCH_CONTROLLER_NODE_ARGS), and a breakdown of API requests by verb and resource.
const EXTRA_ARGS = (process.env.BENCH_CONTROLLER_ARGS ?? '').split(' ').filter((a) => a !== '');
// By default node runs with the heap limit the chart sets (values.yaml heapLimitMb).
const NODE_ARGS = (process.env.BENCH_CONTROLLER_NODE_ARGS ?? '--max-old-space-size=320')
  .split(' ')
  .filter((a) => a !== '');
const VERBOSE = process.env.BENCH_CONTROLLER_VERBOSE === '1';

if (process.argv[2] === '--fleet') {
  // Child: N simulated BMCs, powered off, answering at once; reports boots on request.
  const { startBmcFleet } = await import(new URL('bmac/redfish/sim/index.js', build).href);
  const fleet = await startBmcFleet({ count: Number(process.argv[3]), power: 'Off', seed: 11 });
  process.send({
    bmcs: fleet.bmcs.map((b) => ({ address: b.address, credentials: b.credentials })),
  });
  process.on('message', async (message) => {
    if (message === 'boots') {
      // Boots from an image, and the BMCs that had one (a host booted twice counts once).
      const fromImage = fleet.boots.filter((b) => b.imageUrl !== undefined);
      process.send({
        boots: fromImage.length,
        distinct: new Set(fromImage.map((b) => b.bmc)).size,
      });
    } else if (message === 'stop') {
      await fleet.stop();
      process.disconnect();
    }
  });
} else if (process.argv[1] === here) {
  await runControllerBench();
}

/** The soft limit of open files of this process (inherited by its children). */
function openFileLimit() {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const soft = line?.split(/\s{2,}/)[1];
  return soft === undefined || soft === 'unlimited' ? Infinity : Number(soft);
}

/** Peak RSS (MB) and CPU seconds of a live process, from /proc. */
function processFigures(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const hwmKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
  return { rssMb: hwmKb / 1024, cpuS: ticks / 100 };
}

async function waitFor(what, deadlineMs, check) {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/** Creates the N sites on the hub; returns the seconds it took. */
async function createSites(client, bmcs, isoBase) {
  const started = performance.now();
  const createdTime = new Date(Date.now() - 5 * 60_000).toISOString();
  await pool(bmcs.length, 64, async (i) => {
    const ns = `site-${String(i).padStart(5, '0')}`;
    const { address, credentials } = bmcs[i];
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'bmc', namespace: ns },
      type: 'Opaque',
      stringData: { username: credentials.username, password: credentials.password },
    });
    const infraEnv = await client.create({
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'InfraEnv',
      metadata: { name: ns, namespace: ns },
      spec: { pullSecretRef: { name: 'pull-secret' } },
    });
    await client.updateStatus({
      ...infraEnv,
      status: {
        isoDownloadURL: `${isoBase}/images/${ns}/discovery.iso?arch=x86_64&type=full-iso`,
        createdTime,
      },
    });
    const mac = `52:54:00:${[i >> 16, (i >> 8) & 255, i & 255].map((b) => b.toString(16).padStart(2, '0')).join(':')}`;
    await client.create({
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata: {
        name: 'node1',
        namespace: ns,
        labels: { 'infraenvs.agent-install.openshift.io': ns },
      },
      spec: {
        online: false,
        bootMACAddress: mac,
        bmc: { address, credentialsName: 'bmc', disableCertificateVerification: true },
      },
    });
  });
  return (performance.now() - started) / 1000;
}

/** One fleet size; returns its figures. */
async function benchSize(n, { startHub }, { ClientNodeRuntimeKubeClient }) {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-bench-controller-'));
  const hub = await startHub({ dir });
  const fleet = fork(here, ['--fleet', String(n)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let controller;
  try {
    const { bmcs } = await new Promise((resolve) => fleet.once('message', resolve));
    const ask = () =>
      new Promise((resolve) => {
        fleet.once('message', resolve);
        fleet.send('boots');
      });
    const client = ClientNodeRuntimeKubeClient.fromKubeconfig(hub.kubeconfig);
    const createS = await createSites(client, bmcs, 'http://127.0.0.1:9/upstream');

    const [metricsPort, probePort, imagePort] = [
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const started = performance.now();
    controller = spawn(
      process.execPath,
      [
        ...NODE_ARGS,
        join(root, 'bin', 'siteforge.js'),
        'controller',
        '--kubeconfig',
        hub.kubeconfig,
        '--mode',
        'redfish',
        '--leader-elect=false',
        '--metrics-bind-address',
        `127.0.0.1:${metricsPort}`,
        '--health-probe-bind-address',
        `127.0.0.1:${probePort}`,
        '--image-server-bind-address',
        `127.0.0.1:${imagePort}`,
        '--image-server-url',
        `http://127.0.0.1:${imagePort}`,
        '--log-level',
        'warn',
        // The BMAC alone, as this bench has measured it; bench/assisted.js measures the core.
        '--assisted=false',
        ...EXTRA_ARGS,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const exited = new Promise((resolve) => controller.once('exit', resolve));
    const metrics = async () => {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).catch(() => undefined);
      return res?.ok ? res.text() : undefined;
    };
    let booted = 0;
    await waitFor(`${n} boots`, BOOT_DEADLINE_MS, async () => {
      if (controller.exitCode !== null)
        throw new Error(`the controller exited with ${controller.exitCode}`);
      // Hosts booted, not boots: a host booted twice must not stand in for one not booted.
      booted = (await ask()).distinct;
      return booted >= n;
    });
    const bootS = (performance.now() - started) / 1000;
    const { boots } = await ask();
    // Let the last status writes land, then count a quiet window.
    await sleep(10_000);
    const nonWatch = (l) => l.verb !== 'watch';
    const before = metricSum(await metrics(), 'siteforge_api_requests_total', nonWatch);
    const atBoot = await metrics();
    await sleep(STEADY_WINDOW_S * 1000);
    const atEnd = await metrics();
    const after = metricSum(atEnd, 'siteforge_api_requests_total', nonWatch);
    if (VERBOSE) {
      console.log(`  api requests until every boot (verb resource code: count):`);
      for (const [k, v] of apiRequestBreakdown(atBoot)) console.log(`    ${k}: ${v}`);
      console.log(`  api requests in the steady window:`);
      const base = new Map(apiRequestBreakdown(atBoot));
      for (const [k, v] of apiRequestBreakdown(atEnd))
        if (v !== (base.get(k) ?? 0)) console.log(`    ${k}: ${v - (base.get(k) ?? 0)}`);
      for (const line of atBoot.split('\n'))
        if (/^siteforge_reconcile_(total|duration_seconds_(sum|count))/.test(line))
          console.log(`  ${line}`);
    }
    const figures = processFigures(controller.pid);
    const load = loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
    const requests = metricSum(atBoot, 'siteforge_api_requests_total', nonWatch);
    const reconciles = metricSum(atBoot, 'siteforge_reconcile_total');
    controller.kill('SIGTERM');
    await exited;
    return {
      n,
      booted,
      boots,
      createS,
      bootS,
      requestsPerHost: requests / n,
      reconcilesPerHost: reconciles / n,
      steadyPerMinute: ((after - before) * 60) / STEADY_WINDOW_S,
      load,
      ...figures,
    };
  } finally {
    if (controller && controller.exitCode === null) controller.kill('SIGKILL');
    fleet.send('stop');
    await new Promise((resolve) => fleet.once('exit', resolve));
    await hub.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the benchmark; exported for bench/run.js. */
export async function runControllerBench() {
  const sizes = (process.env.BENCH_CONTROLLER_HOSTS ?? '500,3500').split(',').map(Number);
  // The fleet child holds a listening socket and the controller's connections per BMC.
  const limit = openFileLimit();
  const needed = 2 * Math.max(...sizes) + 2048;
  if (limit < needed)
    throw new Error(
      `${Math.max(...sizes)} BMCs need about ${needed} open files; this shell allows ${limit}: run \`ulimit -n ${needed}\` first`,
    );
  const hubModule = await import('../scripts/hub/hub.mjs');
  const kube = await import(new URL('kube/index.js', build).href);
  console.log(
    `\nsiteforge controller --mode redfish on a loopback hub, N simulated BMCs answering at once (the sites are created first; times from the controller's start; steady state over ${STEADY_WINDOW_S} s; node ${NODE_ARGS.join(' ') || '(no options)'}, as the chart runs it)`,
  );
  console.log(
    'hosts  create   booted  boot time  reconciles/host  api req/host  peak RSS  CPU s   steady req/min',
  );
  const rows = [];
  for (const n of sizes) {
    const r = await benchSize(n, hubModule, kube);
    rows.push(r);
    console.log(
      `${String(n).padStart(5)}  ${r.createS.toFixed(0).padStart(4)} s  ${String(r.booted).padStart(6)}  ${r.bootS.toFixed(1).padStart(7)} s  ${r.reconcilesPerHost.toFixed(1).padStart(15)}  ${r.requestsPerHost.toFixed(1).padStart(12)}  ${r.rssMb.toFixed(0).padStart(5)} MB  ${r.cpuS.toFixed(1).padStart(5)}  ${r.steadyPerMinute.toFixed(1).padStart(14)}${r.boots === r.booted ? '' : `  (${r.boots - r.booted} second boots!)`}`,
    );
  }
  for (const r of rows)
    console.log(
      `controller: ${r.booted}/${r.n} hosts booted in ${r.bootS.toFixed(1)} s, ${r.requestsPerHost.toFixed(1)} api requests/host, ${r.rssMb.toFixed(0)} MB peak RSS  [load average ${r.load}; target: 3,500 within 120 s, <= 400 MB, steady ~0 req/min]`,
    );
}
