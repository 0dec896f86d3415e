// `npm run bench` (part of it): the assisted core of `siteforge controller` on a real hub with
// N single-node sites whose discovery agents register and report at once. It starts a scratch
// hub (kube-apiserver + etcd on loopback), creates the N sites first (Namespace, pull secret,
// ClusterDeployment, AgentClusterInstall, InfraEnv with agent auto-approval; batch creation),
// starts `siteforge controller --installer simulated` as a child process, waits for every
// InfraEnv's image, then runs the agents from a few child processes (the scripted agent of
// src/sim/agent-client.ts, one undici keep-alive Pool per process): each registers with a
// realistic inventory, answers its steps, and once told to install walks the SNO stages. It
// measures the agent requests per second, p50/p99 latency per endpoint, the API server writes
// per host (the controller's siteforge_api_requests_total), the controller's peak RSS, the
// total time until every ClusterDeployment is installed, and the load average.
// Uses build/ (npm run build). BENCH_ASSISTED_HOSTS sets N (default 3500; "500" for a quick
// run); BENCH_ASSISTED_PROCS the agent processes (default 2); BENCH_ASSISTED_POLL_MS the most
// an agent waits between two polls (default 10000); BENCH_ASSISTED_DEADLINE_S how long the
// agents run before the line reports how many got installed (default 3600: the issue sets no
// time target, and a run cut short would report fewer hosts than the controller can install).
// Upstream's agent waits what the service says, next_instruction_seconds: 60 s in most states.
// The bench compresses that 6x, so a 3,500-site run takes minutes, not a quarter of an hour,
// and its agents still ask 6 times as often as a real fleet of that size (~350 polls/s at 3,500 hosts); BENCH_ASSISTED_POLL_MS=3000
// is a 20x stress run.
import { execFileSync, fork, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import {
  createReadStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { apiRequestBreakdown, freePort, metricSum, pool } from './support.js';

const here = fileURLToPath(import.meta.url);
const root = join(here, '..', '..');
const build = new URL('../build/src/', import.meta.url);
const POLL_MS = Number(process.env.BENCH_ASSISTED_POLL_MS ?? 10000);
const DEADLINE_MS = Number(process.env.BENCH_ASSISTED_DEADLINE_S ?? 3600) * 1000;
const NODE_ARGS = (process.env.BENCH_ASSISTED_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
const VERBOSE = process.env.BENCH_ASSISTED_VERBOSE === '1';
const VERSION = '4.18';

if (process.argv[2] === '--agents') {
  await runAgents();
} else if (process.argv[1] === here) {
  await runAssistedBench();
}

/** The scripted agent of the fleet simulation (src/sim/agent-client.ts, built). */
function loadAgentClient() {
  return import(new URL('sim/agent-client.js', build).href);
}

// ---- child: agents ---------------------------------------------------------------------------

/** Child: runs the agents of the hosts it is sent; reports its latencies when done. */
async function runAgents() {
  const { AgentClient, agentDispatcher, describeHost, stepAnswer, installStages } =
    await loadAgentClient();
  const job = await new Promise((resolve) => process.once('message', resolve));
  // The parent says stop once every cluster is installed, or at its deadline.
  let stopping = false;
  process.once('message', () => {
    stopping = true;
  });
  const dispatcher = agentDispatcher(job.url, { ca: job.ca, connections: job.connections });
  /** endpoint → latencies (ms). */
  const latencies = new Map();
  /** `endpoint: status or error code` → count. */
  const failed = new Map();
  const fail = (endpoint, why) =>
    failed.set(`${endpoint}: ${why}`, (failed.get(`${endpoint}: ${why}`) ?? 0) + 1);
  let installed = 0;
  /** The answer, or undefined when the request failed (refused, timed out): the agent retries. */
  const timed = async (endpoint, call) => {
    const started = performance.now();
    let response;
    try {
      response = await call();
    } catch (err) {
      fail(endpoint, err.code ?? err.name ?? 'error');
      await sleep(POLL_MS);
      return undefined;
    }
    const ms = performance.now() - started;
    let list = latencies.get(endpoint);
    if (list === undefined) latencies.set(endpoint, (list = []));
    list.push(ms);
    return response;
  };
  const runHost = async ({ index, infraEnvId, token }) => {
    const client = new AgentClient({ url: job.url, infraEnvId, token, dispatcher });
    const host = describeHost(index, {
      hostname: `sno-${index}`,
      ips: [`10.${(index >> 8) & 255}.${index & 255}.10/24`],
      dns: {},
    });
    const id = host.hostId;
    const cache = new Map();
    await sleep(Math.random() * POLL_MS);
    let registered = false;
    while (!stopping) {
      if (!registered) {
        const r = await timed('POST /v2/infra-envs/{id}/hosts', () => client.register(id));
        if (r === undefined) continue;
        if (r.status !== 201) {
          fail('register', r.status);
          await sleep(POLL_MS);
          continue;
        }
        registered = true;
      }
      const steps = await timed('GET …/hosts/{id}/instructions', () => client.nextSteps(id));
      if (steps === undefined) continue;
      if (steps.status !== 200) {
        fail('instructions', steps.status);
        if (steps.status === 404) registered = false;
        await sleep(POLL_MS);
        continue;
      }
      let install;
      await Promise.all(
        steps.body.instructions.map(async (step) => {
          if (step.step_type === 'install') install = step;
          const answer = stepAnswer(host, step);
          if (answer.exit_code === 0 && cache.get(step.step_type) === answer.output) return;
          const r = await timed('POST …/hosts/{id}/instructions', () =>
            client.postStepReply(id, {
              step_type: step.step_type,
              step_id: step.step_id,
              ...answer,
            }),
          );
          if (r?.status === 204) cache.set(step.step_type, answer.output);
          else if (r !== undefined) fail(`reply ${step.step_type}`, r.status);
        }),
      );
      if (install !== undefined) {
        for (const stage of installStages('sno')) {
          let r;
          while (r === undefined && !stopping)
            r = await timed('PUT …/hosts/{id}/progress', () => client.reportProgress(id, stage));
          if (r !== undefined && r.status !== 200) fail('progress', r.status);
        }
        installed++;
        return;
      }
      if (steps.body.post_step_action === 'exit') registered = false;
      const wait = Math.min(steps.body.next_instruction_seconds * 1000, POLL_MS);
      await sleep(wait * (0.75 + Math.random() * 0.5));
    }
  };
  const started = performance.now();
  await Promise.all(job.hosts.map(runHost));
  const seconds = (performance.now() - started) / 1000;
  await dispatcher.close();
  // Disconnect only once the (large) report is written, or it may be lost.
  const cpu = process.cpuUsage();
  process.send(
    {
      latencies: Object.fromEntries(latencies),
      failed: Object.fromEntries(failed),
      installed,
      seconds,
      cpuS: (cpu.user + cpu.system) / 1e6,
    },
    () => process.disconnect(),
  );
}

// ---- parent ---------------------------------------------------------------------------------

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Peak RSS (MB) and CPU seconds of a live process, from /proc. */
function processFigures(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const hwmKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { rssMb: hwmKb / 1024, cpuS: (Number(fields[11]) + Number(fields[12])) / 100 };
}

/** CPU seconds of the hub's kube-apiserver and etcd. */
function hubCpu(hub) {
  let sum = 0;
  for (const pid of [hub.apiserver?.pid, hub.etcd?.pid])
    if (pid !== undefined) sum += processFigures(pid).cpuS;
  return sum;
}

/** A gauge family's samples by their `status` label. */
function gaugeBy(text, name) {
  const out = new Map();
  for (const line of text.split('\n')) {
    const m = /^(\w+)\{[^}]*status="([^"]*)"[^}]*\}\s+(\S+)/.exec(line);
    if (m !== null && m[1] === name) out.set(m[2], Number(m[3]));
  }
  return out;
}

async function waitFor(what, deadlineMs, check, controller) {
  const end = Date.now() + deadlineMs;
  for (;;) {
    if (controller !== undefined && controller.exitCode !== null)
      throw new Error(`${what}: the controller exited with ${controller.exitCode}`);
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(1000);
  }
}

/** The namespace (and name of every object) of site i. */
function ns(i) {
  return `as-${String(i).padStart(5, '0')}`;
}

/** Creates the N single-node sites; returns the seconds it took. */
async function createSites(client, n) {
  const started = performance.now();
  const dockerConfig = Buffer.from(
    JSON.stringify({ auths: { 'quay.io': { auth: Buffer.from('u:p').toString('base64') } } }),
  ).toString('base64');
  await client.create({
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterImageSet',
    metadata: { name: 'bench-img' },
    spec: { releaseImage: `quay.io/openshift-release-dev/ocp-release:${VERSION}.12-x86_64` },
  });
  await pool(n, 64, async (i) => {
    const name = ns(i);
    const namespace = name;
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'pull-secret', namespace },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': dockerConfig },
    });
    await client.create({
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterDeployment',
      metadata: { name, namespace },
      spec: {
        baseDomain: 'bench.example.com',
        clusterName: name,
        clusterInstallRef: {
          group: 'extensions.hive.openshift.io',
          kind: 'AgentClusterInstall',
          name,
          version: 'v1beta1',
        },
        platform: { agentBareMetal: { agentSelector: { matchLabels: { 'cluster-name': name } } } },
        pullSecretRef: { name: 'pull-secret' },
      },
    });
    await client.create({
      apiVersion: 'extensions.hive.openshift.io/v1beta1',
      kind: 'AgentClusterInstall',
      metadata: { name, namespace },
      spec: {
        clusterDeploymentRef: { name },
        imageSetRef: { name: 'bench-img' },
        networking: {
          machineNetwork: [{ cidr: `10.${(i >> 8) & 255}.${i & 255}.0/24` }],
          clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
          serviceNetwork: ['172.30.0.0/16'],
        },
        provisionRequirements: { controlPlaneAgents: 1, workerAgents: 0 },
        sshPublicKey:
          'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBenchKeyOnly000000000000000000000000000 b@x',
      },
    });
    await client.create({
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'InfraEnv',
      metadata: { name, namespace },
      spec: {
        clusterRef: { name, namespace },
        pullSecretRef: { name: 'pull-secret' },
        agentApproval: { autoApprove: true },
      },
    });
  });
  return (performance.now() - started) / 1000;
}

/** The base ISO, served over HTTP, and the controller's files. */
async function environment(dir) {
  const { ensureXorriso } = await import('../scripts/hub/coreos-installer.mjs');
  const xorriso = await ensureXorriso();
  const tree = join(dir, 'iso-tree');
  const kargs = 'coreos.liveiso=bench ignition.firstboot ignition.platform.id=metal';
  const area = `${kargs}\n${'#'.repeat(1137 - kargs.length - 1)}`;
  const grub = `menuentry 'bench' {\n  linux /images/pxeboot/vmlinuz ${area}# COREOS_KARG_EMBED_AREA\n}\n`;
  const isolinux = `label live\n  append initrd=/images/pxeboot/initrd.img ${area}# COREOS_KARG_EMBED_AREA\n`;
  const files = {
    'EFI/redhat/grub.cfg': grub,
    'isolinux/isolinux.cfg': isolinux,
    'images/ignition.img': Buffer.alloc(256 * 1024),
    'images/pxeboot/vmlinuz': Buffer.alloc(4096, 1),
    'images/pxeboot/initrd.img': Buffer.alloc(4096, 2),
    'images/pxeboot/rootfs.img': Buffer.alloc(1 << 20, 3),
    'coreos/igninfo.json': JSON.stringify({ file: 'images/ignition.img' }),
    'coreos/kargs.json': JSON.stringify({
      default: kargs,
      files: [
        { path: 'EFI/redhat/grub.cfg', offset: grub.indexOf(kargs) },
        { path: 'isolinux/isolinux.cfg', offset: isolinux.indexOf(kargs) },
      ],
      size: 1137,
    }),
  };
  for (const [path, contents] of Object.entries(files)) {
    mkdirSync(join(tree, path, '..'), { recursive: true });
    writeFileSync(join(tree, path), contents);
  }
  const iso = join(dir, 'base.iso');
  execFileSync(xorriso, ['-as', 'mkisofs', '-quiet', '-V', 'BENCH', '-R', '-J', '-o', iso, tree]);
  const size = statSync(iso).size;
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-length': size });
    createReadStream(iso).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const osImagesFile = join(dir, 'os-images.json');
  writeFileSync(
    osImagesFile,
    JSON.stringify({
      osImages: [
        {
          openshiftVersion: VERSION,
          version: '418.94.202501221327-0',
          url: `http://127.0.0.1:${server.address().port}/rhcos-live.iso`,
          cpuArchitecture: 'x86_64',
        },
      ],
    }),
  );
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ...['-keyout', keyFile, '-out', certFile],
    ],
    { stdio: 'ignore' },
  );
  const tokenKeyFile = join(dir, 'token-key.pem');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  writeFileSync(tokenKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  return {
    server,
    osImagesFile,
    certFile,
    keyFile,
    tokenKeyFile,
    ca: readFileSync(certFile, 'utf8'),
  };
}

/** The InfraEnvs' ids and agent tokens, once every one has its image. */
async function discoveries(client, n, controller) {
  const gvk = { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'InfraEnv' };
  let ready = [];
  await waitFor(
    `${n} InfraEnv images`,
    DEADLINE_MS,
    async () => {
      const { items } = await client.list(gvk);
      ready = items.filter((e) => (e.status?.isoDownloadURL ?? '') !== '');
      return ready.length >= n;
    },
    controller,
  );
  return ready.map((e) => ({
    index: Number(e.metadata.name.slice(3)),
    infraEnvId: e.metadata.uid,
    token: /[?&]api_key=([^&]+)/.exec(e.status.bootArtifacts.discoveryIgnitionURL)[1],
  }));
}

/** One run with N hosts; returns its figures. */
async function benchSize(n, { startHub }, { ClientNodeRuntimeKubeClient }) {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-bench-assisted-'));
  const hub = await startHub({ dir: join(dir, 'hub') });
  const env = await environment(dir);
  let controller;
  const children = [];
  try {
    const client = ClientNodeRuntimeKubeClient.fromKubeconfig(hub.kubeconfig);
    const createS = await createSites(client, n);
    const [metricsPort, probePort, imagePort, apiPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const cacheDir = join(dir, 'cache');
    const url = `https://127.0.0.1:${apiPort}`;
    const started = performance.now();
    controller = spawn(
      process.execPath,
      [
        ...NODE_ARGS,
        join(root, 'bin', 'siteforge.js'),
        'controller',
        ...['--kubeconfig', hub.kubeconfig, '--mode', 'redfish', '--leader-elect=false'],
        ...['--metrics-bind-address', `127.0.0.1:${metricsPort}`],
        ...['--health-probe-bind-address', `127.0.0.1:${probePort}`],
        ...['--image-server-bind-address', `127.0.0.1:${imagePort}`],
        ...['--image-server-url', `http://127.0.0.1:${imagePort}`, '--image-cache-dir', cacheDir],
        ...['--installer', 'simulated', '--discovery-iso-type', 'full-iso'],
        ...['--agent-api-bind-address', `127.0.0.1:${apiPort}`, '--agent-api-url', url],
        ...['--agent-api-tls-cert-file', env.certFile, '--agent-api-tls-key-file', env.keyFile],
        ...['--agent-token-key-file', env.tokenKeyFile, '--os-images-file', env.osImagesFile],
        ...['--log-level', 'warn'],
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const exited = new Promise((resolve) => controller.once('exit', resolve));
    const metrics = async () => {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).catch(() => undefined);
      return res?.ok ? res.text() : '';
    };
    const hosts = await discoveries(client, n, controller);
    const imagesS = (performance.now() - started) / 1000;
    const before = await metrics();

    // The agents, from a few processes.
    const procs = Number(process.env.BENCH_ASSISTED_PROCS ?? 2);
    const agentsStarted = performance.now();
    const results = Promise.all(
      Array.from({ length: procs }, (_, p) => {
        const child = fork(here, ['--agents'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        children.push(child);
        child.send({
          url,
          ca: env.ca,
          connections: 64,
          hosts: hosts.filter((_, i) => i % procs === p),
        });
        return new Promise((resolve, reject) => {
          child.once('message', resolve);
          child.once('exit', (code) => {
            reject(new Error(`an agent process exited (${code}) without its figures`));
          });
        });
      }),
    );
    // A failed agent process ends the run at once (with the cleanup below).
    let agentFailure;
    results.catch((err) => {
      agentFailure = err;
    });
    const cdGvk = { apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment' };
    let installed = 0;
    let registered = 0;
    let lastList = 0;
    const cpuAtAgents = { controller: processFigures(controller.pid).cpuS, hub: hubCpu(hub) };
    // Progress from the controller's /metrics (cheap); the ClusterDeployments themselves (what
    // counts) are listed every 10 s, or at once when the controller says all are installed.
    // Listing every Agent each second, as this did before, loaded the API server more than the
    // controller under test did.
    await waitFor(
      `${n} installed ClusterDeployments`,
      DEADLINE_MS,
      async () => {
        const text = await metrics();
        const hostsBy = gaugeBy(text, 'siteforge_assisted_hosts');
        const clustersBy = gaugeBy(text, 'siteforge_assisted_clusters');
        registered = [...hostsBy.values()].reduce((a, b) => a + b, 0);
        if (VERBOSE) {
          const t = ((performance.now() - agentsStarted) / 1000).toFixed(0);
          const queues = new Map();
          for (const m of text.matchAll(
            /^siteforge_workqueue_depth\{controller="([^"]+)"\} (\S+)/gm,
          ))
            queues.set(m[1].replace(/-controller$/, ''), Number(m[2]));
          const show = (m) =>
            [...m]
              .filter(([, v]) => v > 0)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ');
          console.log(
            `  ${t} s: hosts ${show(hostsBy)}; clusters ${show(clustersBy)}; queues ${show(queues)}; load ${loadavg()[0].toFixed(1)}`,
          );
        }
        if (agentFailure !== undefined) throw agentFailure;
        if ((clustersBy.get('installed') ?? 0) >= n || Date.now() - lastList > 10_000) {
          lastList = Date.now();
          const { items } = await client.list(cdGvk);
          installed = items.filter((cd) => cd.spec?.installed === true).length;
        }
        return installed >= n;
      },
      controller,
    ).catch((err) =>
      console.log(`  ${err.message}: ${registered} hosts registered, ${installed} installed`),
    );
    const totalS = (performance.now() - agentsStarted) / 1000;
    for (const child of children) if (child.connected) child.send('stop');
    const reports = await results;
    const atEnd = await metrics();
    const figures = processFigures(controller.pid);
    const hubCpuS = hubCpu(hub) - cpuAtAgents.hub;
    const agentsCpuS = reports.reduce((sum, r) => sum + r.cpuS, 0);
    const failed = new Map();
    for (const report of reports)
      for (const [why, count] of Object.entries(report.failed))
        failed.set(why, (failed.get(why) ?? 0) + count);
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    const byEndpoint = new Map();
    for (const report of reports)
      for (const [endpoint, list] of Object.entries(report.latencies))
        byEndpoint.set(endpoint, [...(byEndpoint.get(endpoint) ?? []), ...list]);
    const all = [...byEndpoint.values()].flat().sort((a, b) => a - b);
    const endpoints = [...byEndpoint.entries()].map(([endpoint, list]) => {
      const sorted = list.sort((a, b) => a - b);
      return {
        endpoint,
        count: sorted.length,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
      };
    });
    const isWrite = (l) => ['create', 'update', 'patch', 'delete'].includes(l.verb);
    const writes =
      metricSum(atEnd, 'siteforge_api_requests_total', isWrite) -
      metricSum(before, 'siteforge_api_requests_total', isWrite);
    const allWrites = metricSum(atEnd, 'siteforge_api_requests_total', isWrite);
    const reads =
      metricSum(atEnd, 'siteforge_api_requests_total', (l) => !isWrite(l)) -
      metricSum(before, 'siteforge_api_requests_total', (l) => !isWrite(l));
    if (VERBOSE) {
      console.log('  reconciles (controller: passes, mean seconds):');
      for (const name of ['infraenv', 'agent-controller', 'clusterdeployments-controller']) {
        const mine = (l) => l.controller === name;
        const count = metricSum(atEnd, 'siteforge_reconcile_duration_seconds_count', mine);
        const sum = metricSum(atEnd, 'siteforge_reconcile_duration_seconds_sum', mine);
        console.log(`    ${name}: ${count}, ${(sum / Math.max(1, count)).toFixed(3)} s`);
      }
      const verbs = ['get', 'create', 'update', 'updateStatus'];
      console.log(
        `  API request time (mean ms): ${verbs
          .map((verb) => {
            const mine = (l) => l.verb === verb;
            const count = metricSum(atEnd, 'siteforge_api_request_duration_seconds_count', mine);
            const sum = metricSum(atEnd, 'siteforge_api_request_duration_seconds_sum', mine);
            return `${verb} ${((sum / Math.max(1, count)) * 1000).toFixed(0)}`;
          })
          .join(', ')}`,
      );
      console.log('  api requests (verb resource code: count):');
      for (const [k, v] of apiRequestBreakdown(atEnd)) console.log(`    ${k}: ${v}`);
    }
    controller.kill('SIGTERM');
    await exited;
    return {
      n,
      installed,
      registered,
      createS,
      imagesS,
      totalS,
      requests: all.length,
      agentSeconds: Math.max(...reports.map((r) => r.seconds)),
      failures: [...failed.values()].reduce((a, b) => a + b, 0),
      failed,
      agentPhaseCpuS: figures.cpuS - cpuAtAgents.controller,
      hubCpuS,
      agentsCpuS,
      p50: percentile(all, 50),
      p99: percentile(all, 99),
      endpoints,
      writesPerHost: writes / n,
      readsPerHost: reads / n,
      allWritesPerHost: allWrites / n,
      load,
      ...figures,
    };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    if (controller && controller.exitCode === null) controller.kill('SIGKILL');
    await new Promise((resolve) => env.server.close(resolve));
    await hub.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the benchmark; exported for bench/run.js. */
export async function runAssistedBench() {
  const sizes = (process.env.BENCH_ASSISTED_HOSTS ?? '3500').split(',').map(Number);
  const hubModule = await import('../scripts/hub/hub.mjs');
  const kube = await import(new URL('kube/index.js', build).href);
  console.log(
    `\nsiteforge controller's assisted core on a loopback hub: N single-node sites created first, then N scripted discovery agents registering, answering steps and reporting the SNO stages at once (installer simulated; agents poll at most every ${POLL_MS} ms)`,
  );
  for (const n of sizes) {
    const r = await benchSize(n, hubModule, kube);
    console.log(
      `  sites created in ${r.createS.toFixed(0)} s; every InfraEnv image in ${r.imagesS.toFixed(1)} s from the controller's start`,
    );
    console.log(
      `  ${r.requests} agent requests in ${r.agentSeconds.toFixed(1)} s: ${(r.requests / r.agentSeconds).toFixed(0)} requests/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms; ${r.failures} unexpected answers or failed requests`,
    );
    console.log('  endpoint                              requests    p50 ms    p99 ms');
    for (const e of r.endpoints)
      console.log(
        `  ${e.endpoint.padEnd(36)}  ${String(e.count).padStart(8)}  ${e.p50.toFixed(1).padStart(8)}  ${e.p99.toFixed(1).padStart(8)}`,
      );
    for (const [why, count] of [...r.failed].sort((a, b) => b[1] - a[1]))
      console.log(`    failed: ${why}: ${count}`);
    console.log(
      `  API server writes per host: ${r.writesPerHost.toFixed(1)} while the agents ran (${r.allWritesPerHost.toFixed(1)} including the images), reads ${r.readsPerHost.toFixed(1)}; load average ${r.load}`,
    );
    console.log(
      `  CPU while the agents ran: controller ${r.agentPhaseCpuS.toFixed(0)} s (${r.cpuS.toFixed(0)} s in all, ${((r.agentPhaseCpuS / r.totalS) * 100).toFixed(0)}% of a core), kube-apiserver + etcd ${r.hubCpuS.toFixed(0)} s, agent processes ${r.agentsCpuS.toFixed(0)} s`,
    );
    if (r.installed < r.n)
      console.log(
        `  only ${r.installed} of ${r.n} clusters installed (${r.registered} Agents registered) within the deadline`,
      );
    console.log(
      `assisted: ${r.installed} hosts registered and installed in ${r.totalS.toFixed(1)} s, p99 ${r.p99.toFixed(0)} ms, ${r.rssMb.toFixed(0)} MB peak RSS`,
    );
  }
}
