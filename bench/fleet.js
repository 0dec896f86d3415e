// `npm run bench` (part of it): the whole fleet, from apply to installed. N synthetic single-node
// sites (bench/synthetic-fleet.js) run through the demo's machinery (src/sim/demo): a scratch hub
// on this machine, `siteforge controller` (redfish mode, simulated installer, no heap limit,
// log level warn, no dashboard) as a child process, N simulated BMCs and servers in child
// processes of their own, the compiled objects applied wave by wave. It reports the wall time
// from the first apply until every site is installed, sites installed per minute over time,
// the controller's CPU seconds and peak RSS (sampled from /proc), the controller's API server
// requests per site (its siteforge_api_requests_total), the bytes the image server sent to the
// hosts, the simulation's own CPU, and the scratch hub's (kube-apiserver, etcd,
// kube-controller-manager: on a real hub they run on control-plane nodes of their own, here
// they share the 2 cores), with the load average. Uses build/ (npm run build).
// BENCH_FLEET_SITES sets N (default 3500); BENCH_FLEET_STAGE_S the compressed stage time
// (default 2), BENCH_FLEET_POLL_S the most an agent waits between polls (default 10),
// BENCH_FLEET_POST_S the servers' POST (default 5), BENCH_FLEET_REBOOT_S the time from the
// Rebooting report to the firmware's boot choice (default 60), BENCH_FLEET_TIMEOUT_S the limit
// (default 1800). Run heavy sizes under `flock /tmp/siteforge-bench.lock`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiRequestBreakdown, metricSum } from './support.js';
import { writeSyntheticFleet } from './synthetic-fleet.js';

const here = fileURLToPath(import.meta.url);
const root = join(here, '..', '..');
const build = new URL('../build/src/', import.meta.url);
const env = (name, fallback) => Number(process.env[name] ?? fallback);

if (process.argv[1] === here) await runFleetBench();

/**
 * CPU seconds and peak RSS (MB) of a live process, from /proc; undefined once it is gone or a
 * zombie (whose status has no memory lines: its last figures stand).
 */
function processFigures(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const peakKb = /VmHWM:\s+(\d+)/.exec(status)?.[1];
    if (peakKb === undefined) return undefined;
    return {
      peakRssMb: Number(peakKb) / 1024,
      cpuSeconds: (Number(fields[11]) + Number(fields[12])) / 100,
    };
  } catch {
    return undefined;
  }
}

function load() {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

/** One run with N sites; returns its figures. */
export async function benchFleet(n) {
  const { runDemo } = await import(new URL('sim/demo/demo.js', build).href);
  const { startHub, stopHub } = await import('../scripts/hub/hub.mjs');
  const { ensureXorriso } = await import('../scripts/hub/coreos-installer.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-bench-fleet-'));
  const sites = writeSyntheticFleet(join(dir, 'sites'), n);
  let controller;
  let sampler;
  let hubPids = {};
  const hub = {};
  const loads = [];
  const stop = new globalThis.AbortController();
  // Ctrl-C or SIGTERM: the demo machinery stops the hub, the controller and the simulators.
  const abort = () => stop.abort();
  const ownStart = process.cpuUsage();
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  try {
    const result = await runDemo(
      {
        sitesDirs: [sites],
        syntheticSites: 0,
        stageSeconds: env('BENCH_FLEET_STAGE_S', 2),
        faults: [],
        summaryFile: undefined,
        keep: false,
        timeoutSeconds: env('BENCH_FLEET_TIMEOUT_S', 1800),
        idleSeconds: 600,
        postSeconds: env('BENCH_FLEET_POST_S', 5),
        rebootSeconds: env('BENCH_FLEET_REBOOT_S', 60),
        pollSeconds: env('BENCH_FLEET_POLL_S', 10),
        seed: 7,
      },
      {
        repoRoot: root,
        startHub: async (options) => {
          const started = await startHub(options);
          hubPids = {
            'kube-apiserver': started.apiserver?.pid,
            etcd: started.etcd?.pid,
            'kube-controller-manager': started.controllerManager?.pid,
          };
          return started;
        },
        stopHub,
        ensureXorriso,
      },
      {
        stdout: (text) => {
          if (process.env.BENCH_FLEET_VERBOSE === '1') process.stdout.write(text);
        },
        stderr: (text) => process.stderr.write(text),
        isTTY: false,
        columns: 100,
        cwd: root,
        signal: stop.signal,
        env: process.env,
      },
      {
        applyConcurrency: 32,
        controllerLogLevel: 'warn',
        dashboard: false,
        onController: (pid) => {
          sampler = setInterval(() => {
            controller = processFigures(pid) ?? controller;
            for (const [name, hubPid] of Object.entries(hubPids))
              if (hubPid !== undefined) hub[name] = processFigures(hubPid) ?? hub[name];
            loads.push(loadavg()[0]);
          }, 1000);
        },
      },
    );
    clearInterval(sampler);
    const own = process.cpuUsage(ownStart);
    const demoCpuSeconds = (own.user + own.system) / 1e6;
    return { n, result, controller, hub, demoCpuSeconds, loads };
  } finally {
    clearInterval(sampler);
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sites installed in each minute since the first apply. */
function perMinute(installs) {
  const buckets = [];
  for (const t of installs) {
    const minute = Math.floor(t / 60);
    while (buckets.length <= minute) buckets.push(0);
    buckets[minute]++;
  }
  return buckets;
}

/** Runs the benchmark; exported for bench/run.js. */
export async function runFleetBench() {
  const sizes = (process.env.BENCH_FLEET_SITES ?? '3500').split(',').map(Number);
  console.log(
    `\nthe fleet from apply to installed: N synthetic single-node sites, a scratch hub, siteforge controller (redfish mode, simulated installer) and N simulated BMCs and servers on this machine (stages ${env('BENCH_FLEET_STAGE_S', 2)} s, agents poll at most every ${env('BENCH_FLEET_POLL_S', 10)} s, POST ${env('BENCH_FLEET_POST_S', 5)} s, reboot ${env('BENCH_FLEET_REBOOT_S', 60)} s)`,
  );
  for (const n of sizes) {
    const { result, controller, hub, demoCpuSeconds, loads } = await benchFleet(n);
    const totals = result.totals;
    if (totals === undefined) {
      console.log(
        `fleet: the run of ${n} sites did not get to provisioning (exit ${result.exitCode})`,
      );
      continue;
    }
    const metrics = result.controllerMetrics ?? '';
    const requests = metricSum(metrics, 'siteforge_api_requests_total');
    const writes = metricSum(metrics, 'siteforge_api_requests_total', (l) =>
      ['create', 'update', 'updateStatus', 'patch', 'delete'].includes(l.verb),
    );
    const agentRequests = metricSum(metrics, 'siteforge_agent_api_requests_total');
    const sim = result.simulation;
    const minutes = perMinute(result.installs ?? []);
    const meanLoad = loads.length === 0 ? 0 : loads.reduce((a, b) => a + b, 0) / loads.length;
    console.log(
      `  applied ${n} sites' objects in ${(result.applySeconds ?? 0).toFixed(0)} s; ${totals.installed} installed, ${totals.failed} failed, ${totals.unfinished} unfinished (${totals.ended})`,
    );
    console.log(`  sites installed per minute: ${minutes.join(', ')}`);
    if (controller !== undefined)
      console.log(
        `  controller: ${controller.cpuSeconds.toFixed(0)} CPU s, peak RSS ${controller.peakRssMb.toFixed(0)} MB; ${requests.toFixed(0)} API requests (${(requests / n).toFixed(1)}/site, ${(writes / n).toFixed(1)} writes/site); ${agentRequests.toFixed(0)} agent API requests (${(agentRequests / n).toFixed(1)}/site)`,
      );
    const top = apiRequestBreakdown(metrics)
      .slice(0, 10)
      .map(([what, count]) => `${what} ${(count / n).toFixed(1)}`);
    console.log(`  controller API requests per site, largest first: ${top.join('; ')}`);
    if (sim !== undefined)
      console.log(
        `  simulation: ${sim.cpuSeconds.toFixed(0)} CPU s, ${(sim.rssBytes / 2 ** 20).toFixed(0)} MB; image server sent ${(sim.mediaBytes / 2 ** 20).toFixed(1)} MiB in ${sim.mediaRequests} requests (${(sim.mediaBytes / n / 1024).toFixed(0)} KiB/host); ${sim.isoBoots} ISO boots; ${sim.bmcRequests} BMC requests; ${sim.agentFailures} failed agent calls`,
      );
    const hubParts = Object.entries(hub).map(
      ([name, figures]) =>
        `${name} ${figures.cpuSeconds.toFixed(0)} CPU s, peak RSS ${figures.peakRssMb.toFixed(0)} MB`,
    );
    if (hubParts.length > 0) console.log(`  hub: ${hubParts.join('; ')}`);
    console.log(
      `  this process (applies, watches the fleet for progress): ${demoCpuSeconds.toFixed(0)} CPU s`,
    );
    console.log(
      `  load average ${load()} at the end, ${meanLoad.toFixed(1)} on average over the run`,
    );
    if (totals.unfinished > 0 || totals.failed > 0) {
      const stuck = (result.outcomes ?? []).filter((o) => o.state !== 'installed').slice(0, 5);
      for (const o of stuck) console.log(`    ${o.name}: ${o.state} ${o.message}`);
    }
    // Where the cores went: SiteForge (controller and simulation) against the hub.
    const ownCpu = (controller?.cpuSeconds ?? 0) + (sim?.cpuSeconds ?? 0);
    const hubCpu = Object.values(hub).reduce((sum, figures) => sum + figures.cpuSeconds, 0);
    const cores = availableParallelism();
    if (hubParts.length > 0)
      console.log(
        `  CPU per site: ${(ownCpu / n).toFixed(3)} s controller and simulation, ${(hubCpu / n).toFixed(3)} s hub; ${(totals.seconds * cores).toFixed(0)} CPU s in the wall time on ${cores} cores`,
      );
    console.log(
      `fleet: ${totals.installed}/${n} sites installed in ${totals.seconds.toFixed(0)} s, ${(controller?.peakRssMb ?? 0).toFixed(0)} MB controller peak RSS, ${(requests / n).toFixed(1)} api requests/site`,
    );
  }
}
