/**
 * `npm run demo`: a fleet provisioned end to end on one machine. The SiteConfigs are compiled
 * by SiteForge's compiler; every BareMetalHost gets a simulated BMC (the vendor its address
 * scheme names) and a simulated server behind it; the BareMetalHosts are pointed at those BMCs
 * (same scheme, HTTP on loopback) and their credentials Secrets hold the simulators'
 * passwords. A real hub (etcd, kube-apiserver) and `siteforge controller` (redfish mode, the
 * simulated installer backend, its image server and agent API) do the provisioning; the
 * compiled objects are applied wave by wave as Argo CD syncs them. Progress and the final table
 * come from the fleet status model (src/fleet) fed by watches on the hub.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  createReadStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isFinal, STUCK_HINT } from '../../fleet/index.js';
import { FleetWatcher } from '../../fleet/fleet-watcher.js';
import type { SiteStatus } from '../../fleet/index.js';
import { ClientNodeKubeClient, ClientNodeRuntimeKubeClient } from '../../kube/index.js';
import type { KubeClient, KubeObject } from '../../kube/index.js';
import { applyInWaves } from '../../plugins/apply-waves.js';
import type { ApplyItem } from '../../plugins/apply-waves.js';
import { listInputFiles, readInputFiles } from '../../plugins/cli/read-inputs.js';
import { fsSiteFiles } from '../../plugins/fs-site-files.js';
import { kustomizationRoots } from '../../plugins/kustomization-root.js';
import { readLimits } from '../../plugins/limit-options.js';
import { renderFleet, reportIssues } from '../../plugins/render-fleet.js';
import { RunBudget } from '../../plugins/run-budget.js';
import { createLogger } from '../../shared/logger.js';
import { faultsFor, unmatchedTargets } from '../faults.js';
import { startFleetProcesses } from '../fleet-process.js';
import type { FleetProcesses, FleetProcessOptions, FleetProcessStats } from '../fleet-process.js';
import {
  bmcSecretObject,
  clusterImageSetObject,
  fleetReferences,
  manifestsConfigMapObject,
  openshiftVersionOf,
  pointAtSimulatedBmcs,
  pullSecretObject,
} from '../fleet-objects.js';
import { buildLiveIso } from '../live-iso.js';
import { hostsOfManifests } from '../site-hosts.js';
import { writeSyntheticFleet } from '../synthetic-sites.js';
import type { DemoOptions } from './demo-args.js';
import {
  allInstalled,
  progressBlock,
  progressLine,
  StateRates,
  summaryOf,
  summaryTable,
} from './demo-report.js';
import type { DemoSiteState, DemoTotals, ProgressSnapshot, SiteOutcome } from './demo-report.js';

/** A hub as scripts/hub/hub.mjs starts it. */
export interface DemoHub {
  readonly kubeconfig: string;
  readonly server: string;
}

/** What the demo needs from the repository's scripts (the hub, xorriso). */
export interface DemoDeps {
  /** The repository root: examples/sites, bin/siteforge.js. */
  readonly repoRoot: string;
  startHub(options: { readonly dir: string }): Promise<DemoHub>;
  /** Stops the hub in `dir`, also one whose start was interrupted. */
  stopHub(options: { readonly dir: string }): Promise<unknown>;
  /** The xorriso executable, installed when missing. */
  ensureXorriso(): Promise<string>;
  /** Starts the simulated fleet. @default startFleetProcesses */
  startFleet?: (options: FleetProcessOptions) => Promise<FleetProcesses>;
}

/** Where the demo writes and what it is told. */
export interface DemoIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** A terminal: bars redrawn in place; otherwise plain lines now and then. */
  readonly isTTY: boolean;
  readonly columns: number;
  /** Where relative paths given by the user start. */
  readonly cwd: string;
  /** Aborted on Ctrl-C (SIGINT) or SIGTERM. */
  readonly signal: AbortSignal;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** What a run measured, for the benchmark. */
export interface DemoResult {
  readonly exitCode: number;
  readonly totals?: DemoTotals;
  readonly outcomes?: readonly SiteOutcome[];
  /** Sites installed, as [seconds from the first apply, count] each time one was. */
  readonly installs?: readonly number[];
  readonly controllerPid?: number;
  readonly simulation?: FleetProcessStats;
  readonly controllerMetrics?: string;
  readonly applySeconds?: number;
}

/** Extra knobs of the benchmark. */
export interface DemoTuning {
  /** Objects applied at once. @default 16 */
  readonly applyConcurrency?: number;
  /** The controller's log level. @default info */
  readonly controllerLogLevel?: string;
  /** node options of the controller process. @default none */
  readonly controllerNodeArgs?: readonly string[];
  /** Called with the controller's pid once it runs (to sample its CPU and memory). */
  readonly onController?: (pid: number, metricsUrl: string) => void;
  /** Simulator processes. @default one per 2,000 hosts */
  readonly simWorkers?: number;
  /** Serve the controller's fleet dashboard. @default true */
  readonly dashboard?: boolean;
}

class Interrupted extends Error {
  constructor() {
    super('interrupted');
  }
}

/** A failure of the environment (hub, controller), said in one line. */
class DemoFailure extends Error {}

const EXIT = { ok: 0, notInstalled: 1, usage: 2, environment: 3, interrupted: 130 } as const;

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => {
        resolvePort(port);
      });
    });
  });
}

/** Runs the demo; resolves with its exit code and what it measured. */
export async function runDemo(
  options: DemoOptions,
  deps: DemoDeps,
  io: DemoIo,
  tuning: DemoTuning = {},
): Promise<DemoResult> {
  const say = (text: string): void => {
    io.stdout(`${text}\n`);
  };
  const cleanups: { what: string; run: () => Promise<unknown> }[] = [];
  const work = mkdtempSync(join(tmpdir(), 'siteforge-demo-'));
  cleanups.push({
    what: 'work directory',
    run: () => {
      rmSync(work, { recursive: true, force: true });
      return Promise.resolve();
    },
  });
  const interrupted = (): void => {
    if (io.signal.aborted) throw new Interrupted();
  };
  /** `work` unless Ctrl-C comes first. */
  const orAbort = <T>(work: Promise<T>): Promise<T> =>
    new Promise<T>((resolveWork, reject) => {
      if (io.signal.aborted) {
        reject(new Interrupted());
        return;
      }
      const onAbort = (): void => {
        reject(new Interrupted());
      };
      io.signal.addEventListener('abort', onAbort, { once: true });
      work.then(resolveWork, reject).finally(() => {
        io.signal.removeEventListener('abort', onAbort);
      });
    });
  try {
    // ---- the fleet, compiled -----------------------------------------------------------------
    const dirs =
      options.sitesDirs.length > 0
        ? options.sitesDirs.map((d) => resolve(io.cwd, d))
        : [join(deps.repoRoot, 'examples', 'sites')];
    if (options.syntheticSites > 0)
      dirs.push(writeSyntheticFleet(join(work, 'synthetic-sites'), options.syntheticSites));
    const budget = new RunBudget({ ...readLimits(io.env), totalMs: 10 * 60_000 }, () =>
      performance.now(),
    );
    const files = readInputFiles(listInputFiles(dirs, io.cwd, budget), io.cwd, budget);
    const rendered = renderFleet(files, {
      withObjects: true,
      limits: budget.limits,
      deadline: budget,
      files: fsSiteFiles('/', io.cwd, budget),
      kustomizationRoot: kustomizationRoots({ base: io.cwd, fallback: '.' }),
    });
    const report = reportIssues(rendered.issues, false);
    if (report.text !== '') io.stderr(report.text);
    if (report.errors > 0 || rendered.clusters.length === 0) {
      io.stderr(
        report.errors > 0
          ? `demo: ${String(report.errors)} error(s) in the SiteConfigs; nothing was started\n`
          : `demo: no SiteConfig found in ${dirs.join(', ')}\n`,
      );
      return { exitCode: EXIT.notInstalled };
    }
    const items: ApplyItem<string>[] = rendered.clusters.flatMap((c) =>
      (c.objects ?? []).map(({ manifest }) => ({
        object: manifest,
        source: c.clusterName,
      })),
    );
    const compiled = items.map((i) => i.object);
    const hosts = hostsOfManifests(compiled, (h) => faultsFor(options.faults, h));
    const unknown = unmatchedTargets(options.faults, hosts);
    if (unknown.length > 0) {
      io.stderr(
        `demo: --fault names ${unknown.map((t) => `"${t}"`).join(', ')}, which is neither a cluster nor a BareMetalHost of the fleet\n`,
      );
      return { exitCode: EXIT.usage };
    }
    const sites = compiled
      .filter((o) => o.kind === 'ClusterDeployment')
      .map((o) => ({
        key: `${o.metadata.namespace ?? ''}/${o.metadata.name}`,
        name: o.metadata.name,
      }));
    const held = new Set(
      compiled
        .filter(
          (o) =>
            o.kind === 'AgentClusterInstall' &&
            (o['spec'] as { holdInstallation?: boolean } | undefined)?.holdInstallation === true,
        )
        .map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`),
    );
    say(
      `Fleet: ${String(sites.length)} sites, ${String(hosts.length)} hosts from ${dirs.join(', ')}${options.faults.length > 0 ? `; faults: ${options.faults.map((f) => `${f.target}=${f.kind}${f.stage === undefined ? '' : `:${f.stage}`}`).join(', ')}` : ''}`,
    );

    // ---- hub, then the simulated servers and the base ISO -------------------------------------
    // The hub picks free ports for etcd and kube-apiserver and binds them only as each starts;
    // thousands of BMCs binding port 0 meanwhile could take one of them. So every simulator
    // listens only once the hub is up (the base ISO is built meanwhile).
    const hubDir = join(work, 'hub');
    cleanups.push({ what: 'hub', run: () => deps.stopHub({ dir: hubDir }) });
    say('Starting the hub (etcd, kube-apiserver), then the simulated BMCs and the base ISO…');
    const isoBuild = baseIso(work, deps);
    isoBuild.catch(() => undefined); // awaited below, unless the hub fails first
    const hub = await orAbort(
      deps.startHub({ dir: hubDir }).catch((err: unknown) => {
        throw new DemoFailure(
          `the hub did not start: ${err instanceof Error ? err.message : String(err)}`,
        );
      }),
    );
    interrupted();
    const fleetStart = (deps.startFleet ?? startFleetProcesses)({
      hosts,
      timings: {
        stageMs: options.stageSeconds * 1000,
        pollMs: options.pollSeconds * 1000,
        postMs: options.postSeconds * 1000,
        rebootMs: options.rebootSeconds * 1000,
      },
      seed: options.seed,
      ...(tuning.simWorkers !== undefined && { workers: tuning.simWorkers }),
      onWorkerExit: (code, signal) => {
        // Ctrl-C in a terminal signals the whole process group, the simulators too: no news.
        if (io.signal.aborted || signal === 'SIGINT') return;
        io.stderr(`demo: a fleet simulator process exited (${String(code ?? signal)})\n`);
      },
    });
    let fleet: FleetProcesses | undefined;
    cleanups.push({ what: 'simulated fleet', run: async () => fleet?.stop() });
    void fleetStart.then((f) => (fleet = f)).catch(() => undefined);
    const isoStart = isoBuild.then((iso) => serveBaseIso(work, iso, compiled));
    let isoServer: Server | undefined;
    cleanups.push({
      what: 'base ISO server',
      run: () =>
        new Promise((done) => {
          if (isoServer === undefined) done(undefined);
          else isoServer.close(done);
        }),
    });
    void isoStart.then((s) => (isoServer = s.server)).catch(() => undefined);
    const [started, iso] = await orAbort(Promise.all([fleetStart, isoStart]));
    fleet = started;
    interrupted();
    say(
      `Hub up at ${hub.server}; ${String(started.bmcs.length)} simulated BMCs listening (simulator pid ${started.pids.join(', ')}).`,
    );

    // ---- the controller ----------------------------------------------------------------------
    const [metricsPort, probePort, imagePort, agentPort, dashboardPort] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const dashboard = tuning.dashboard ?? true;
    const logFile = join(work, 'controller.log');
    const controller = spawnController(deps, {
      kubeconfig: hub.kubeconfig,
      metricsPort,
      probePort,
      imagePort,
      agentPort,
      dashboardPort: dashboard ? dashboardPort : undefined,
      osImagesFile: iso.osImagesFile,
      cacheDir: join(work, 'image-cache'),
      logFile,
      logLevel: tuning.controllerLogLevel ?? 'info',
      nodeArgs: tuning.controllerNodeArgs ?? [],
    });
    cleanups.push({ what: 'controller', run: () => stopProcess(controller) });
    const metricsUrl = `http://127.0.0.1:${String(metricsPort)}/metrics`;
    await orAbort(waitReady(controller, probePort, logFile));
    tuning.onController?.(controller.pid ?? 0, metricsUrl);
    say(
      `siteforge controller up (pid ${String(controller.pid)}; redfish mode, simulated installer); its log: ${logFile}`,
    );
    const dashboardUrl = `http://127.0.0.1:${String(dashboardPort)}/`;
    if (dashboard) say(`Fleet dashboard: ${dashboardUrl}`);

    // ---- apply, as Argo CD syncs -------------------------------------------------------------
    const objects = pointAtSimulatedBmcs(compiled, started.bmcs);
    const client: KubeClient = ClientNodeKubeClient.fromKubeconfig({ kubeconfig: hub.kubeconfig });
    const runtimeClient = ClientNodeRuntimeKubeClient.fromKubeconfig(hub.kubeconfig);
    const model = new FleetWatcher({
      client: runtimeClient,
      log: createLogger({ level: 'warn', destination: { write: () => undefined } }),
      flushMs: 500,
    });
    cleanups.push({
      what: 'watches',
      run: () => {
        model.stop();
        return Promise.resolve();
      },
    });
    model.start();

    const tracker = new SiteTracker(
      sites.map((s) => s.key),
      held,
    );
    model.model.onChange((change) => {
      tracker.update(change.changed, Date.now());
    });
    let activity = 'applying the fleet';
    const startedAt = Date.now();
    const progress = new Progress(io, () =>
      tracker.snapshot(Date.now(), startedAt, hosts.length, activity),
    );
    cleanups.push({
      what: 'progress',
      run: () => {
        progress.stop();
        return Promise.resolve();
      },
    });
    say(
      `Applying ${String(objects.length)} objects wave by wave (server-side apply, as Argo CD syncs)…`,
    );
    progress.start();
    const applyStarted = Date.now();
    const refs = fleetReferences(objects);
    await orAbort(
      applyFleet(client, objects, refs, started, tuning.applyConcurrency ?? 16, (wave) => {
        activity = `applying wave ${String(wave)}`;
      }),
    );
    const applySeconds = (Date.now() - applyStarted) / 1000;
    tracker.applied(Date.now());
    activity = `applied in ${applySeconds.toFixed(0)} s; provisioning`;

    // ---- until every site is final, or nothing moves ------------------------------------------
    let ended: DemoTotals['ended'] = 'all-final';
    for (;;) {
      await orAbort(sleep(500));
      const now = Date.now();
      if (tracker.allFinal()) break;
      if (now - tracker.lastChange > options.idleSeconds * 1000) {
        ended = 'idle';
        break;
      }
      if (now - startedAt > options.timeoutSeconds * 1000) {
        ended = 'timeout';
        break;
      }
    }
    progress.stop();
    const simulation = await started.stats().catch(() => undefined);
    const metrics = await fetch(metricsUrl)
      .then((r) => (r.ok ? r.text() : ''))
      .catch(() => '');
    const endedAt = Date.now();
    const outcomes = tracker.outcomes(model.model.sites(), sites, endedAt);
    const totals = tracker.totals(outcomes, hosts.length, (endedAt - startedAt) / 1000, ended);
    io.stdout(`\n${summaryTable(outcomes, totals)}`);
    if (options.summaryFile !== undefined) {
      const file = resolve(io.cwd, options.summaryFile);
      writeFileSync(file, `${JSON.stringify(summaryOf(outcomes, totals), null, 2)}\n`);
      say(`Summary written to ${file}`);
    }
    const exitCode = allInstalled(totals) ? EXIT.ok : EXIT.notInstalled;
    if (options.keep) {
      say(
        [
          '',
          'Everything keeps running; Ctrl-C stops it all. To look around:',
          ...(dashboard ? [`  open ${dashboardUrl}   # the fleet dashboard`] : []),
          `  export KUBECONFIG=${hub.kubeconfig}`,
          '  kubectl get clusterdeployments,agentclusterinstalls,agents,baremetalhosts -A',
          `  curl -s ${metricsUrl} | grep siteforge_assisted   # the controller's metrics`,
          `  less ${logFile}   # the controller's log`,
        ].join('\n'),
      );
      await new Promise<void>((done) => {
        if (io.signal.aborted) done();
        else
          io.signal.addEventListener(
            'abort',
            () => {
              done();
            },
            { once: true },
          );
      });
    }
    return {
      exitCode,
      totals,
      outcomes,
      installs: tracker.installTimes(startedAt),
      controllerPid: controller.pid,
      ...(simulation !== undefined && { simulation }),
      controllerMetrics: metrics,
      applySeconds,
    };
  } catch (err) {
    if (err instanceof Interrupted) {
      io.stderr('\ndemo: interrupted; stopping everything it started…\n');
      return { exitCode: EXIT.interrupted };
    }
    if (err instanceof DemoFailure) {
      io.stderr(`demo: ${err.message}\n`);
      return { exitCode: EXIT.environment };
    }
    throw err;
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup.run();
      } catch (err) {
        io.stderr(
          `demo: stopping the ${cleanup.what} failed: ${err instanceof Error ? err.message : String(err)}\n`,
        );
      }
    }
  }
}

// ---- pieces ----------------------------------------------------------------------------------

/** The base live ISO (built with xorriso); its path. */
async function baseIso(work: string, deps: DemoDeps): Promise<string> {
  const xorriso = await deps.ensureXorriso().catch((err: unknown) => {
    throw new DemoFailure(
      `xorriso is needed to make the base ISO: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  const dir = join(work, 'iso');
  mkdirSync(dir, { recursive: true });
  return buildLiveIso(dir, { xorriso, rootfsBytes: 256 * 1024, volumeId: 'SFDEMO' });
}

/** The base live ISO served over HTTP as the OS image mirror, and the osImages naming it. */
async function serveBaseIso(
  work: string,
  iso: string,
  compiled: readonly KubeObject[],
): Promise<{ server: Server; osImagesFile: string }> {
  const size = statSync(iso).size;
  const server = createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    res.writeHead(200, { 'content-length': size, 'content-type': 'application/octet-stream' });
    if (req.method === 'HEAD') res.end();
    else createReadStream(iso).pipe(res);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  const versions = new Set(fleetReferences(compiled).imageSets.map(openshiftVersionOf));
  const osImagesFile = join(work, 'os-images.json');
  writeFileSync(
    osImagesFile,
    JSON.stringify({
      osImages: [...versions].sort().map((version) => ({
        openshiftVersion: version,
        version: `${version.replace('.', '')}.94.202501221327-0`,
        url: `http://127.0.0.1:${String(port)}/rhcos-${version}-live.x86_64.iso`,
        cpuArchitecture: 'x86_64',
      })),
    }),
  );
  return { server, osImagesFile };
}

interface ControllerPorts {
  readonly kubeconfig: string;
  readonly metricsPort: number;
  readonly probePort: number;
  readonly imagePort: number;
  readonly agentPort: number;
  readonly dashboardPort: number | undefined;
  readonly osImagesFile: string;
  readonly cacheDir: string;
  readonly logFile: string;
  readonly logLevel: string;
  readonly nodeArgs: readonly string[];
}

/** `siteforge controller` as a child process, its log in a file. */
function spawnController(deps: DemoDeps, p: ControllerPorts): ChildProcess {
  const log = openSync(p.logFile, 'a');
  const bind = (port: number): string => `127.0.0.1:${String(port)}`;
  return spawn(
    process.execPath,
    [
      ...p.nodeArgs,
      join(deps.repoRoot, 'bin', 'siteforge.js'),
      'controller',
      ...['--kubeconfig', p.kubeconfig, '--mode', 'redfish', '--leader-elect=false'],
      ...['--metrics-bind-address', bind(p.metricsPort)],
      ...['--health-probe-bind-address', bind(p.probePort)],
      ...['--image-server-bind-address', bind(p.imagePort), '--image-cache-dir', p.cacheDir],
      ...['--agent-api-bind-address', bind(p.agentPort)],
      ...(p.dashboardPort === undefined ? [] : ['--dashboard-bind-address', bind(p.dashboardPort)]),
      ...['--installer', 'simulated', '--discovery-iso-type', 'full-iso'],
      ...['--os-images-file', p.osImagesFile, '--log-level', p.logLevel],
    ],
    { stdio: ['ignore', log, log] },
  );
}

/** Resolves once the controller answers /readyz; rejects if it exits first. */
async function waitReady(
  controller: ChildProcess,
  probePort: number,
  logFile: string,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (controller.exitCode !== null || controller.signalCode !== null)
      throw new DemoFailure(
        `siteforge controller exited (${String(controller.exitCode ?? controller.signalCode)}) before it was ready; see ${logFile}`,
      );
    const ok = await fetch(`http://127.0.0.1:${String(probePort)}/readyz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline)
      throw new DemoFailure(`siteforge controller was not ready within 60 s; see ${logFile}`);
    await sleep(250);
  }
}

/** SIGTERM, then SIGKILL after 15 s. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Applies the fleet as Argo CD syncs it: the ClusterImageSets the hub administrator provides,
 * then wave by wave, the pull and BMC credentials Secrets (what an administrator or an
 * external-secrets operator puts in each site namespace) and the manifests ConfigMaps the
 * ZTP policies application would make (accelerated ZTP) as soon as the namespaces exist.
 */
async function applyFleet(
  client: KubeClient,
  objects: readonly KubeObject[],
  refs: ReturnType<typeof fleetReferences>,
  fleet: FleetProcesses,
  concurrency: number,
  onWave: (wave: number) => void,
): Promise<void> {
  const apply = async (items: readonly KubeObject[]): Promise<void> => {
    const result = await applyInWaves(
      client,
      items.map((object) => ({ object, source: '' })),
      {
        concurrency,
        // The apply's answer is the stored object: no read before it, no wait after the wave.
        confirm: false,
        onWave: (wave) => {
          onWave(wave + 1);
        },
      },
    );
    if (result.rejected.length > 0) {
      const first = result.rejected[0]!;
      throw new DemoFailure(
        `the hub rejected ${String(result.rejected.length)} object(s), e.g. ${first.item.object.kind} ${first.item.object.metadata.name}: ${first.error.message}`,
      );
    }
  };
  onWave(0);
  await apply(refs.imageSets.map(clusterImageSetObject));
  const namespaces = objects.filter((o) => o.kind === 'Namespace');
  await apply(namespaces);
  const secrets: KubeObject[] = [];
  for (const [namespace, names] of refs.pullSecrets)
    for (const name of names) secrets.push(pullSecretObject(namespace, name));
  for (const [namespace, names] of refs.manifestConfigMaps)
    for (const name of names) secrets.push(manifestsConfigMapObject(namespace, name));
  for (const bmc of fleet.bmcs) {
    const name = refs.bmcSecrets.get(bmc.key);
    if (name !== undefined) secrets.push(bmcSecretObject(bmc.key.split('/')[0]!, name, bmc));
  }
  await apply(secrets);
  await apply(objects.filter((o) => o.kind !== 'Namespace'));
}

// ---- following the sites -----------------------------------------------------------------------

/** The demo's view of every site: state changes, when, and final outcomes. */
class SiteTracker {
  private readonly states = new Map<string, DemoSiteState>();
  private readonly finishedAt = new Map<string, number>();
  private readonly rates = new StateRates();
  private readonly installs: number[] = [];
  private appliedAt = Date.now();
  lastChange = Date.now();

  constructor(
    private readonly keys: readonly string[],
    private readonly held: ReadonlySet<string>,
  ) {
    for (const key of keys) this.states.set(key, 'pending');
  }

  applied(now: number): void {
    this.appliedAt = now;
    this.lastChange = now;
  }

  update(changed: readonly SiteStatus[], now: number): void {
    for (const status of changed) {
      if (!this.states.has(status.key)) continue;
      const state = this.demoState(status);
      if (this.states.get(status.key) === state) continue;
      this.states.set(status.key, state);
      this.rates.entered(state, now);
      this.lastChange = now;
      if (isFinal(status.state) && !this.finishedAt.has(status.key)) {
        this.finishedAt.set(status.key, now);
        if (status.state === 'installed') this.installs.push(now);
      }
    }
  }

  allFinal(): boolean {
    return [...this.states.values()].every(
      (s) => s === 'installed' || s === 'failed' || s === 'held',
    );
  }

  snapshot(now: number, startedAt: number, hosts: number, activity: string): ProgressSnapshot {
    const counts = Object.fromEntries(
      [
        'pending',
        'booting',
        'discovering',
        'validating',
        'insufficient',
        'installing',
        'installed',
        'failed',
        'held',
      ].map((s) => [s, 0]),
    ) as Record<DemoSiteState, number>;
    for (const state of this.states.values()) counts[state]++;
    const rates: Partial<Record<DemoSiteState, number>> = {};
    for (const state of Object.keys(counts) as DemoSiteState[])
      rates[state] = this.rates.perMinute(state, now, startedAt);
    return { elapsedMs: now - startedAt, sites: this.keys.length, hosts, counts, rates, activity };
  }

  outcomes(
    statuses: Iterable<SiteStatus>,
    sites: readonly { key: string; name: string }[],
    endedAt: number,
  ): SiteOutcome[] {
    const byKey = new Map([...statuses].map((s) => [s.key, s]));
    return sites.map(({ key, name }) => {
      const status = byKey.get(key);
      const state = this.states.get(key) ?? 'pending';
      const end = this.finishedAt.get(key) ?? endedAt;
      const problem = status?.problem;
      const where = status?.stage === undefined ? '' : ` at stage "${status.stage}"`;
      const message =
        state === 'installed'
          ? ''
          : state === 'held'
            ? (problem?.message ?? 'holdInstallation is true in its SiteConfig')
            : (problem?.message ??
              `no progress while ${state}${where} (nothing on the hub says why)`);
      const hint =
        problem?.hint ?? (state === 'held' ? undefined : STUCK_HINT[status?.state ?? 'pending']);
      return {
        name,
        namespace: key.split('/')[0] ?? '',
        state,
        seconds: Math.max(0, (end - this.appliedAt) / 1000),
        message,
        ...(state !== 'installed' && hint !== undefined && hint !== '' && { hint }),
      };
    });
  }

  totals(
    outcomes: readonly SiteOutcome[],
    hosts: number,
    seconds: number,
    ended: DemoTotals['ended'],
  ): DemoTotals {
    const byState: Record<string, number> = {};
    for (const o of outcomes) byState[o.state] = (byState[o.state] ?? 0) + 1;
    const count = (s: string): number => byState[s] ?? 0;
    return {
      sites: outcomes.length,
      hosts,
      installed: count('installed'),
      failed: count('failed'),
      held: count('held'),
      unfinished: outcomes.length - count('installed') - count('failed') - count('held'),
      seconds: Math.round(seconds * 10) / 10,
      byState,
      ended,
    };
  }

  installTimes(startedAt: number): number[] {
    return this.installs.map((t) => (t - startedAt) / 1000);
  }

  private demoState(status: SiteStatus): DemoSiteState {
    if (
      !isFinal(status.state) &&
      this.held.has(status.key) &&
      status.state !== 'pending' &&
      status.state !== 'booting' &&
      status.state !== 'discovering'
    )
      return 'held';
    return status.state;
  }
}

/** Redraws bars in place on a terminal; prints a line every 10 s otherwise. */
class Progress {
  private timer: NodeJS.Timeout | undefined;
  private drawn = 0;

  constructor(
    private readonly io: DemoIo,
    private readonly snapshot: () => ProgressSnapshot,
  ) {}

  start(): void {
    const every = this.io.isTTY ? 500 : 10_000;
    this.timer = setInterval(() => {
      this.draw();
    }, every);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.draw();
  }

  private draw(): void {
    const snapshot = this.snapshot();
    if (!this.io.isTTY) {
      this.io.stdout(`${progressLine(snapshot)}\n`);
      return;
    }
    const lines = progressBlock(snapshot, this.io.columns);
    const up = this.drawn > 0 ? `\x1b[${String(this.drawn)}A` : '';
    this.io.stdout(`${up}${lines.map((l) => `\x1b[2K${l}`).join('\n')}\n`);
    this.drawn = lines.length;
  }
}
