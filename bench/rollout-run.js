// `npm run bench` (part of it): a 3,500-site rollout in simulation, end to end through the real
// commands. A scratch hub (kube-apiserver + etcd on loopback); a git repository whose first
// commit has no site and whose second adds 3,500 single-node sites and a rollout policy (canary of
// 10, waves of at most 500, 500 sites per hour with at most 500 in flight, gates of 95 % with at
// most 5 failures in 3 h: Red Hat's tested hub rates); `siteforge rollout plan --json`; then
// `siteforge rollout run --target apply` as a child process, which applies each release's objects
// to the hub. Installs are simulated on the hub objects: a site's AgentClusterInstall goes to
// installing when it appears and to installed (every 200th site: failed) after its install time.
//
// Time is compressed by BENCH_ROLLOUT_COMPRESS (default 360: an hour lasts 10 s): the plan's
// sitesPerHour is multiplied by it (its bucket keeping five minutes' worth of the real rate:
// 42 sites), its gate timeouts divided by it, and an install takes 75 min
// (an assisted SNO install, reference §4) divided by it, ±20 %; the runner polls every second.
// What stays real: the plan, the runner's decisions, its status writes and every object applied.
// Prints per-wave timings (release span, gate passed, installed and failed), the runner's wall
// and CPU time and peak RSS, the Rollout's size, and the load average. BENCH_ROLLOUT_SITES sets
// the fleet size. Run alone with `node bench/rollout-run.js` (needs build/: npm run build).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startHub, stopHub } from '../scripts/hub/hub.mjs';
import { siteConfigText } from './synthetic-fleet.js';

const here = fileURLToPath(import.meta.url);
const root = join(dirname(here), '..');
const cli = join(root, 'bin', 'siteforge.js');
const build = new URL('../build/src/', import.meta.url);

const SITES = Number(process.env.BENCH_ROLLOUT_SITES ?? 3500);
const COMPRESS = Number(process.env.BENCH_ROLLOUT_COMPRESS ?? 360);
const INSTALL_S = (75 * 60) / COMPRESS;
const FAIL_EVERY = 200;
// Node options of the runner (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`).
const NODE_ARGS = (process.env.BENCH_ROLLOUT_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

const POLICY = `apiVersion: siteforge.io/v1alpha1
kind: RolloutPolicy
spec:
  canary:
    sites: ['sno-0000?']
  maxSitesPerWave: 500
  pacing: {sitesPerHour: 500, maxInFlight: 500}
  gate: {minInstalled: 95%, maxFailures: 5, timeout: 3h}
`;

const ACI = { apiVersion: 'extensions.hive.openshift.io/v1beta1', kind: 'AgentClusterInstall' };
const ROLLOUT = { apiVersion: 'siteforge.io/v1alpha1', kind: 'Rollout' };

/** The install of every site, played on its AgentClusterInstall: installing, then done. */
class SimulatedInstalls {
  constructor(client) {
    this.client = client;
    this.timers = new Set();
    this.writes = 0;
    this.failures = 0;
    this.seen = new Set();
  }

  async start() {
    const { resourceVersion } = await this.client.list(ACI);
    const watch = () => {
      this.stream = this.client.watch(
        ACI,
        { resourceVersion: this.rv ?? resourceVersion, timeoutSeconds: 300 },
        (event) => {
          if (event.type === 'BOOKMARK') {
            this.rv = event.resourceVersion;
            return;
          }
          this.rv = event.object.metadata.resourceVersion;
          if (event.type === 'ADDED') this.begin(event.object);
        },
      );
      this.stream.ended.then(
        () => !this.stopped && watch(),
        () => !this.stopped && watch(),
      );
    };
    watch();
  }

  begin(aci) {
    const key = `${aci.metadata.namespace}/${aci.metadata.name}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const index = Number(/(\d+)$/.exec(aci.metadata.name)?.[1] ?? 0);
    const fails = index % FAIL_EVERY === FAIL_EVERY - 1;
    void this.write(aci, installing());
    const ms = INSTALL_S * 1000 * (0.8 + (0.4 * ((index * 7919) % 1000)) / 1000);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.write(aci, fails ? failed() : installed());
      if (fails) this.failures++;
    }, ms);
    this.timers.add(timer);
  }

  async write(aci, conditions) {
    const ref = { ...ACI, namespace: aci.metadata.namespace, name: aci.metadata.name };
    for (let attempt = 0; attempt < 5; attempt++) {
      const live = await this.client.get(ref);
      if (live === undefined) return;
      const now = new Date().toISOString();
      try {
        await this.client.updateStatus({
          ...live,
          status: {
            ...(live.status ?? {}),
            conditions: conditions.map((c) => ({ ...c, lastTransitionTime: now })),
          },
        });
        this.writes++;
        return;
      } catch {
        // a conflict: read again
      }
    }
  }

  stop() {
    this.stopped = true;
    this.stream?.stop();
    for (const t of this.timers) clearTimeout(t);
  }
}

const condition = (type, status, reason, message) => ({ type, status, reason, message });
const installing = () => [
  condition(
    'Completed',
    'False',
    'InstallationInProgress',
    'The installation is in progress: Installation in progress',
  ),
  condition('Failed', 'False', 'InstallationNotFailed', 'The installation has not failed'),
];
const installed = () => [
  condition(
    'Completed',
    'True',
    'InstallationCompleted',
    'The installation has completed: Cluster is installed',
  ),
  condition('Failed', 'False', 'InstallationNotFailed', 'The installation has not failed'),
];
const failed = () => [
  condition(
    'Completed',
    'False',
    'InstallationFailed',
    'The installation has failed: Host failed to write image to disk',
  ),
  condition(
    'Failed',
    'True',
    'InstallationFailed',
    'The installation failed: Host failed to write image to disk',
  ),
];

/** Wall, CPU (user + system) seconds and peak RSS (MB) of a child process, from /proc. */
function watchProcess(pid) {
  const tick = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  const sample = { cpu: 0, rss: 0 };
  const read = () => {
    try {
      const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sample.cpu = (Number(fields[11]) + Number(fields[12])) / tick;
      const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
      if (hwm) sample.rss = Math.max(sample.rss, Number(hwm[1]) / 1024);
    } catch {
      // gone
    }
  };
  const timer = setInterval(read, 500);
  return { sample, stop: () => clearInterval(timer), read };
}

export async function runRolloutRunBench() {
  const { ClientNodeRuntimeKubeClient } = await import(new URL('kube/index.js', build).href);
  const work = mkdtempSync(join(tmpdir(), 'siteforge-bench-rollout-run-'));
  const hubDir = join(work, 'hub');
  let installs;
  try {
    // ---- the repository: nothing, then the fleet and its policy ------------------------------
    const repo = join(work, 'repo');
    mkdirSync(join(repo, 'sites'), { recursive: true });
    const git = (...args) =>
      execFileSync(
        'git',
        ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args],
        {
          cwd: repo,
          encoding: 'utf8',
        },
      ).trim();
    git('init', '--quiet', '--initial-branch=main');
    writeFileSync(join(repo, 'sites', 'README.md'), 'edge sites\n');
    git('add', '--all');
    git('commit', '--quiet', '-m', 'empty fleet');
    const from = git('rev-parse', 'HEAD');
    writeFileSync(join(repo, 'sites', 'rollout-policy.yaml'), POLICY);
    for (let i = 0; i < SITES; i++)
      writeFileSync(
        join(repo, 'sites', `site-${String(i).padStart(5, '0')}.yaml`),
        siteConfigText(i, { extraManifests: 'none' }),
      );
    git('add', '--all');
    git('commit', '--quiet', '-m', `${String(SITES)} sites`);

    const planStart = performance.now();
    const plan = JSON.parse(
      execFileSync(
        process.execPath,
        [cli, 'rollout', 'plan', '--from', from, '--to', 'HEAD', 'sites', '--json'],
        {
          cwd: repo,
          encoding: 'utf8',
          maxBuffer: 256 * 1024 * 1024,
        },
      ),
    );
    const planSeconds = (performance.now() - planStart) / 1000;
    for (const wave of plan.waves) {
      // The pacing's bucket keeps its size in sites (five minutes' worth at the real rate).
      wave.pacing.burst = Math.max(1, Math.ceil((wave.pacing.sitesPerHour * 5) / 60));
      wave.pacing.sitesPerHour *= COMPRESS;
      wave.gate.timeoutSeconds = Math.max(1, Math.round(wave.gate.timeoutSeconds / COMPRESS));
    }
    const planFile = join(work, 'plan.json');
    writeFileSync(planFile, JSON.stringify(plan));

    // ---- the hub and the simulated installs ---------------------------------------------------
    const hub = await startHub({ dir: hubDir });
    const client = ClientNodeRuntimeKubeClient.fromKubeconfig(hub.kubeconfig);
    installs = new SimulatedInstalls(client);
    await installs.start();

    // ---- the rollout ---------------------------------------------------------------------------
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        ...NODE_ARGS,
        cli,
        'rollout',
        'run',
        planFile,
        '--name',
        'bench',
        '-n',
        'default',
        '--target',
        'apply',
        '--kubeconfig',
        hub.kubeconfig,
        '--poll-interval',
        '1',
      ],
      { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const usage = watchProcess(child.pid);
    const code = await new Promise((resolve) => child.on('close', resolve));
    usage.stop();
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`rollout run exited ${String(code)}:\n${stderr.slice(-4000)}`);

    const rollout = await client.get({ ...ROLLOUT, namespace: 'default', name: 'bench' });
    const size = Buffer.byteLength(JSON.stringify(rollout));
    const t0 = Date.parse(rollout.status.startedAt);
    const at = (time) => (time === undefined ? '-' : ((Date.parse(time) - t0) / 1000).toFixed(1));
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(', ');
    console.log('');
    console.log(
      `rollout: run of ${String(SITES)} sites in ${String(plan.waves.length)} waves in ${seconds.toFixed(1)} s (apply target, simulated installs; time compressed ×${String(COMPRESS)}: 500 sites/h → ${String(500 * COMPRESS)}, install 75 min → ${INSTALL_S.toFixed(1)} s, gate timeout 3 h → ${String(Math.round(10800 / COMPRESS))} s)`,
    );
    console.log(
      `  runner: CPU ${usage.sample.cpu.toFixed(1)} s, peak RSS ${usage.sample.rss.toFixed(0)} MB; Rollout object ${(size / 1024).toFixed(0)} KB; plan ${planSeconds.toFixed(1)} s; ${String(installs.writes)} simulated status writes, ${String(installs.failures)} failed installs; load average ${load}`,
    );
    console.log(
      '  wave          sites  started  released  passed   installed  failed   (s from the rollout start)',
    );
    rollout.spec.waves.forEach((wave, i) => {
      const ws = rollout.status.waves[i];
      console.log(
        `  ${wave.name.padEnd(13)} ${String(wave.sites.length).padStart(5)}  ${at(ws.startedAt).padStart(7)}  ${at(ws.releasedAllAt).padStart(8)}  ${at(ws.finishedAt).padStart(6)}   ${String(ws.installed).padStart(9)}  ${String(ws.failed).padStart(6)}`,
      );
    });
    return { seconds, cpu: usage.sample.cpu, rss: usage.sample.rss, size };
  } finally {
    installs?.stop();
    await stopHub({ dir: hubDir }).catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === here) await runRolloutRunBench();
