// A real Kubernetes control plane on loopback for integration tests: etcd, kube-apiserver and a
// kube-controller-manager running only the controllers that finish what the API server starts
// (namespace deletion, garbage collection, service accounts). No scheduler, no kubelet: nothing
// ever runs a Pod. Everything listens on 127.0.0.1 only. Our CRDs (crds/) are applied and
// established before the hub counts as ready.
//
// CLI: node scripts/hub/hub.mjs up|down|status [--dir DIR]
//   DIR defaults to $SITEFORGE_HUB_DIR or <repo>/.cache/hub. `up` leaves the processes running
//   (detached) and writes DIR/kubeconfig and DIR/hub.json; `down` stops them and removes DIR.
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:https';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ensureHubBinaries } from './build.mjs';
import {
  HubError,
  createCA,
  freePorts,
  isMain,
  issueCert,
  log,
  pidAlive,
  pidExe,
  repoRoot,
  rssKiB,
  run,
  runCli,
  stopPid,
  tailFile,
  waitFor,
} from './util.mjs';

export const defaultHubDir = () =>
  resolve(process.env.SITEFORGE_HUB_DIR || join(repoRoot, '.cache/hub'));
const SERVICE_CIDR = '10.96.0.0/16';
const SERVICE_IP = '10.96.0.1'; // first address of SERVICE_CIDR: the in-cluster `kubernetes` Service
/** Where the CRDs applied by startHub live. */
export const crdsDir = join(repoRoot, 'crds');
// The controllers a hub without nodes needs: namespace deletion (without it a deleted namespace
// stays Terminating forever), ownerReference garbage collection, and the `default` service
// account (+ its token controller) that admission expects in every namespace.
const CONTROLLERS = ['namespace', 'garbagecollector', 'serviceaccount', 'serviceaccount-token'];
/** The processes of a hub, in start order; stopHub stops them in reverse. */
const PROCESSES = ['etcd', 'apiserver', 'controllerManager'];

/**
 * Starts etcd, kube-apiserver and kube-controller-manager, waits for /readyz, applies the CRDs
 * in `crds` and waits until they are established, and returns the hub state
 * ({ dir, kubeconfig, server, etcd, apiserver, controllerManager, stop() }). If a healthy hub
 * already runs in `dir` it is returned as is. On any failure everything started here is
 * stopped again.
 */
export async function startHub({
  dir = defaultHubDir(),
  readyTimeoutMs = 60_000,
  crds = crdsDir,
} = {}) {
  dir = resolve(dir);
  const existing = await hubStatus({ dir });
  if (existing.running && existing.ready) {
    log(`hub already running in ${dir}`);
    const { state } = existing;
    const pki = {
      ca: { cert: state.pki.ca },
      admin: { cert: state.pki.adminCert, key: state.pki.adminKey },
    };
    // CRDs edited since it started are brought up to date.
    if (crds)
      await installCrds((...a) => apiRequest(state.server, pki, ...a), crds, readyTimeoutMs);
    return withStop(state);
  }
  if (existing.state) await stopHub({ dir }); // stale or half-dead: start over
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'pki'), { recursive: true });

  const t0 = Date.now();
  const bins = await ensureHubBinaries();
  const pki = await makePki(join(dir, 'pki'));
  const [etcdClientPort, etcdPeerPort, apiPort] = await freePorts(3);
  const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
  const peerUrl = `http://127.0.0.1:${etcdPeerPort}`;
  const server = `https://127.0.0.1:${apiPort}`;
  // hub.json is written as soon as a process exists, so `down` can always clean up after an
  // interrupted `up`.
  const state = {
    dir,
    server,
    kubeconfig: join(dir, 'kubeconfig'),
    startedAt: new Date().toISOString(),
    pki: { ca: pki.ca.cert, adminCert: pki.admin.cert, adminKey: pki.admin.key },
  };
  const save = () => writeFileSync(join(dir, 'hub.json'), JSON.stringify(state, null, 2) + '\n');
  const started = [];
  try {
    const etcd = launch(dir, 'etcd', bins.etcd.path, [
      '--name=hub',
      `--data-dir=${join(dir, 'etcd-data')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=hub=${peerUrl}`,
      '--initial-cluster-state=new',
      '--logger=zap',
      '--log-level=warn',
    ]);
    started.push(etcd);
    state.etcd = {
      pid: etcd.pid,
      exe: bins.etcd.path,
      version: bins.etcd.version,
      source: bins.etcd.source,
      url: etcdUrl,
      peerPort: etcdPeerPort,
    };
    save();
    log(`etcd ${bins.etcd.version} (${bins.etcd.source}) pid ${etcd.pid} on ${etcdUrl}`);
    await waitFor('etcd /health', () => httpGetOk(`${etcdUrl}/health`), {
      timeoutMs: readyTimeoutMs,
      failIf: () => exited(etcd),
    });
    const timings = { etcd: Number(secondsSince(t0)) };
    log(`etcd ready after ${timings.etcd} s`);

    const apiserver = launch(dir, 'kube-apiserver', bins.kubeApiserver.path, [
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--etcd-servers=${etcdUrl}`,
      `--tls-cert-file=${pki.serving.cert}`,
      `--tls-private-key-file=${pki.serving.key}`,
      `--client-ca-file=${pki.ca.cert}`,
      '--authorization-mode=RBAC',
      '--anonymous-auth=false',
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${pki.sa.pub}`,
      `--service-account-signing-key-file=${pki.sa.key}`,
      // The `kubernetes` Endpoints may not hold a loopback address, so the default lease
      // reconciler would fail forever; nothing in-cluster needs to reach this server.
      '--endpoint-reconciler-type=none',
      // SITEFORGE_HUB_PROFILING=1 serves /debug/pprof (for profiling the hub under a bench).
      `--profiling=${process.env.SITEFORGE_HUB_PROFILING === '1'}`,
    ]);
    started.push(apiserver);
    state.apiserver = {
      pid: apiserver.pid,
      exe: bins.kubeApiserver.path,
      version: bins.kubeApiserver.version,
      port: apiPort,
    };
    save();
    log(`kube-apiserver ${bins.kubeApiserver.version} pid ${apiserver.pid} on ${server}`);
    await waitFor('kube-apiserver /readyz', () => httpsGetOk(`${server}/readyz`, pki), {
      timeoutMs: readyTimeoutMs,
      intervalMs: 500,
      failIf: () => exited(apiserver),
    });
    timings.apiserver = Number(secondsSince(t0));
    log(`kube-apiserver ready after ${timings.apiserver} s`);

    writeFileSync(state.kubeconfig, kubeconfigYaml(server, pki), { mode: 0o600 });
    const kcmKubeconfig = join(dir, 'controller-manager.kubeconfig');
    const kcmUser = [pki.controllerManager, 'system:kube-controller-manager'];
    writeFileSync(kcmKubeconfig, kubeconfigYaml(server, pki, ...kcmUser), { mode: 0o600 });
    const controllerManager = launch(
      dir,
      'kube-controller-manager',
      bins.kubeControllerManager.path,
      [
        `--kubeconfig=${kcmKubeconfig}`,
        `--controllers=${CONTROLLERS.join(',')}`,
        // Each controller acts as its own service account with the bootstrap RBAC role made
        // for it (as kubeadm sets it up), not with the controller-manager's own rights.
        '--use-service-account-credentials=true',
        `--service-account-private-key-file=${pki.sa.key}`,
        `--root-ca-file=${pki.ca.cert}`,
        '--secure-port=0', // nothing needs its /metrics or /healthz; readiness is checked below
        '--leader-elect=false',
        '--profiling=false',
      ],
    );
    started.push(controllerManager);
    state.controllerManager = {
      pid: controllerManager.pid,
      exe: bins.kubeControllerManager.path,
      version: bins.kubeControllerManager.version,
      controllers: CONTROLLERS,
    };
    save();
    log(`kube-controller-manager pid ${controllerManager.pid} (${CONTROLLERS.join(', ')})`);

    const api = (method, path, body, contentType) =>
      apiRequest(server, pki, method, path, body, contentType);
    const crdNames = crds ? await installCrds(api, crds, readyTimeoutMs) : [];
    if (crdNames.length > 0) log(`${crdNames.length} CRDs established after ${secondsSince(t0)} s`);
    timings.crds = Number(secondsSince(t0));
    // The serviceaccount controller creating `default/default` proves the controller-manager
    // is authenticated, authorized and running its controllers.
    await waitFor(
      'kube-controller-manager (the default ServiceAccount in namespace default)',
      () => api('GET', '/api/v1/namespaces/default/serviceaccounts/default').then(Boolean),
      { timeoutMs: readyTimeoutMs, failIf: () => exited(controllerManager) },
    );
    timings.controllerManager = Number(secondsSince(t0));
    log(`kube-controller-manager running after ${timings.controllerManager} s`);

    state.crds = crdNames;
    state.timings = timings;
    state.startSeconds = Number(secondsSince(t0));
    save();
    return withStop(state);
  } catch (err) {
    // Leave nothing running behind a failed start; the logs stay in `dir` for diagnosis.
    for (const p of started.reverse())
      await stopPid(p.pid, { termMs: 5_000 }).catch(() => undefined);
    rmSync(join(dir, 'hub.json'), { force: true });
    throw err;
  }
}

/** Stops the hub in `dir` (controller-manager, kube-apiserver, then etcd) and removes `dir`. */
export async function stopHub({ dir = defaultHubDir() } = {}) {
  dir = resolve(dir);
  const state = readState(dir);
  const results = [];
  if (state) {
    for (const name of [...PROCESSES].reverse()) {
      const p = state[name];
      if (p?.pid) results.push(`${name}: ${await stopPid(p.pid, { exe: p.exe })}`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  return results;
}

/** { running, ready, state, rssKiB } for the hub in `dir`; never throws for a missing hub. */
export async function hubStatus({ dir = defaultHubDir() } = {}) {
  const state = readState(resolve(dir));
  if (!state) return { running: false, ready: false };
  const alive = (p) => Boolean(p) && pidAlive(p.pid) && pidExe(p.pid) === p.exe;
  const running = PROCESSES.every((name) => alive(state[name]));
  const pki = {
    ca: { cert: state.pki.ca },
    admin: { cert: state.pki.adminCert, key: state.pki.adminKey },
  };
  const ready = running && (await httpsGetOk(`${state.server}/readyz`, pki).catch(() => false));
  const rss = running
    ? Object.fromEntries(PROCESSES.map((name) => [name, rssKiB(state[name].pid)]))
    : undefined;
  return { running, ready, state, rssKiB: rss };
}

function withStop(state) {
  return { ...state, stop: () => stopHub({ dir: state.dir }) };
}

function readState(dir) {
  const file = join(dir, 'hub.json');
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Spawns a detached server (it outlives this process) logging to <dir>/<name>.log. */
function launch(dir, name, exe, args) {
  const logFile = join(dir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(exe, args, { cwd: dir, detached: true, stdio: ['ignore', fd, fd] });
    const proc = { name, pid: child.pid, logFile, exit: undefined };
    child.on('exit', (code, signal) => (proc.exit = signal ?? `exit ${code}`));
    child.on('error', (err) => (proc.exit = err.message));
    child.unref();
    return proc;
  } finally {
    closeSync(fd);
  }
}

function exited(proc) {
  if (proc.exit === undefined) return undefined;
  return `${proc.name} stopped (${proc.exit}); log ${proc.logFile} ends with: ${tailFile(proc.logFile, 3)}`;
}

function secondsSince(t0) {
  return ((Date.now() - t0) / 1000).toFixed(1);
}

async function httpGetOk(url) {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  return res.ok;
}

function httpsGetOk(url, pki) {
  return new Promise((ok, fail) => {
    const req = request(
      url,
      {
        ca: readFileSync(pki.ca.cert),
        cert: readFileSync(pki.admin.cert),
        key: readFileSync(pki.admin.key),
        timeout: 2_000,
      },
      (res) => {
        res.resume();
        ok(res.statusCode === 200);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', fail);
    req.end();
  });
}

/**
 * One request to the API server as the admin user. Resolves the parsed JSON body, or undefined
 * for a 404; rejects with a HubError carrying the server's message otherwise.
 */
function apiRequest(server, pki, method, path, body, contentType = 'application/json') {
  return new Promise((ok, fail) => {
    const req = request(
      `${server}${path}`,
      {
        method,
        ca: readFileSync(pki.ca.cert),
        cert: readFileSync(pki.admin.cert),
        key: readFileSync(pki.admin.key),
        timeout: 10_000,
        headers: { accept: 'application/json', ...(body && { 'content-type': contentType }) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          if (res.statusCode === 404) return ok(undefined);
          let parsed;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = { message: text };
          }
          if (res.statusCode >= 200 && res.statusCode < 300) return ok(parsed);
          fail(new HubError(`${method} ${path}: ${res.statusCode} ${parsed.message ?? ''}`));
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', fail);
    req.end(body);
  });
}

/**
 * Server-side applies every CRD manifest in `dir` (the YAML is sent as is: apply patches accept
 * YAML), waits until all are established and returns their names.
 */
async function installCrds(api, dir, timeoutMs) {
  const names = [];
  for (const file of readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()) {
    const text = readFileSync(join(dir, file), 'utf8');
    const name = parseYaml(text)?.metadata?.name;
    if (!name) throw new HubError(`${join(dir, file)}: no metadata.name`);
    await api(
      'PATCH',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}?fieldManager=siteforge-hub&force=true`,
      text,
      'application/apply-patch+yaml',
    ).catch((err) => {
      throw new HubError(`applying ${file}: ${err.message}`);
    });
    names.push(name);
  }
  await waitFor(
    `${names.length} CRDs from ${dir} established`,
    async () => {
      for (const name of names) {
        const crd = await api(
          'GET',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
        );
        const established = crd?.status?.conditions?.some(
          (c) => c.type === 'Established' && c.status === 'True',
        );
        if (!established) return false;
      }
      return true;
    },
    { timeoutMs },
  );
  return names;
}

/** CA, serving cert, admin client cert (group system:masters) and the service-account key pair. */
async function makePki(pkiDir) {
  const ca = await createCA(pkiDir, 'ca', 'siteforge-hub-ca');
  const serving = await issueCert(pkiDir, 'apiserver', {
    cn: 'kube-apiserver',
    usage: 'server',
    sans: [
      'IP:127.0.0.1',
      'DNS:localhost',
      `IP:${SERVICE_IP}`,
      'DNS:kubernetes',
      'DNS:kubernetes.default',
      'DNS:kubernetes.default.svc',
      'DNS:kubernetes.default.svc.cluster.local',
    ],
  });
  const admin = await issueCert(pkiDir, 'admin', {
    cn: 'siteforge-admin',
    org: 'system:masters',
    usage: 'client',
  });
  // The built-in identity that the bootstrap RBAC policy binds to system:kube-controller-manager.
  const controllerManager = await issueCert(pkiDir, 'controller-manager', {
    cn: 'system:kube-controller-manager',
    usage: 'client',
  });
  await run(
    'openssl',
    ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'sa.key'],
    { cwd: pkiDir },
  );
  await run('openssl', ['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], { cwd: pkiDir });
  return {
    ca,
    serving,
    admin,
    controllerManager,
    sa: { key: join(pkiDir, 'sa.key'), pub: join(pkiDir, 'sa.pub') },
  };
}

/** A kubeconfig for `user` (default: the admin) with certificates inlined. */
function kubeconfigYaml(server, pki, user = pki.admin, userName = 'siteforge-admin') {
  const b64 = (file) => readFileSync(file).toString('base64');
  return `apiVersion: v1
kind: Config
clusters:
- name: siteforge-hub
  cluster:
    server: ${server}
    certificate-authority-data: ${b64(pki.ca.cert)}
users:
- name: ${userName}
  user:
    client-certificate-data: ${b64(user.cert)}
    client-key-data: ${b64(user.key)}
contexts:
- name: siteforge-hub
  context:
    cluster: siteforge-hub
    user: ${userName}
current-context: siteforge-hub
`;
}

if (isMain(import.meta.url)) {
  runCli('hub.mjs', async () => {
    const args = process.argv.slice(2);
    const dirIdx = args.indexOf('--dir');
    const dir = dirIdx >= 0 ? args.splice(dirIdx, 2)[1] : undefined;
    if (dirIdx >= 0 && !dir) throw new HubError('--dir needs a value');
    const cmd = args[0];
    if (cmd === 'up') {
      // Ctrl-C while waiting: stop whatever was started instead of leaving it detached.
      const abort = (sig) =>
        stopHub({ dir }).finally(() => process.exit(sig === 'SIGINT' ? 130 : 143));
      ['SIGINT', 'SIGTERM'].forEach((sig) => process.once(sig, abort));
      const hub = await startHub({ dir });
      log(`hub ready: ${hub.server}`);
      process.stdout.write(`export KUBECONFIG=${hub.kubeconfig}\n`);
      return 0;
    }
    if (cmd === 'down') {
      const results = await stopHub({ dir });
      log(
        results.length
          ? `hub stopped (${results.join(', ')})`
          : 'no hub was running; state removed',
      );
      return 0;
    }
    if (cmd === 'status') {
      const st = await hubStatus({ dir });
      const { state } = st;
      const summary = state
        ? {
            running: st.running,
            ready: st.ready,
            server: state.server,
            kubeconfig: state.kubeconfig,
            etcd: state.etcd,
            apiserver: state.apiserver,
            controllerManager: state.controllerManager,
            crds: state.crds?.length,
            rssKiB: st.rssKiB,
          }
        : { running: false, ready: false };
      process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
      return st.ready ? 0 : 3;
    }
    throw new HubError('usage: node scripts/hub/hub.mjs up|down|status [--dir DIR]');
  });
}
