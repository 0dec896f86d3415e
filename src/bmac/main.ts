/**
 * The composition root of `siteforge controller`: the only file that wires the real adapters
 * (client-node, the system clock, signals, the pino destination) into the controller. It
 * resolves the mode, campaigns for leadership and runs until SIGTERM or SIGINT, then stops
 * acting and releases the Lease so a standby takes over at once.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import type { DiscoveryIsoType, InstallerBackend } from '../assisted/config/options.js';
import {
  ClientNodeKubeClient,
  ClientNodeLeaseClient,
  ClientNodeRuntimeKubeClient,
} from '../kube/index.js';
import type { KubeClient } from '../kube/index.js';
import { KubeApiError } from '../kube/errors.js';
import { Gvk } from './api.js';
import { SiteForgeError, UsageError } from '../shared/errors.js';
import { createLogger } from '../shared/logger.js';
import type { Logger } from '../shared/logger.js';
import { createAssistedCore } from '../assisted/core.js';
import type { AssistedCore } from '../assisted/core.js';
import { resolveAssistedSettings } from '../assisted/config/assisted-settings.js';
import { controllersFor } from './controllers.js';
import { isRedfishHostController, relayImageWritten } from './image-written-relay.js';
import { defaultAssetsDir } from '../dashboard/dashboard-server.js';
import { startDashboard } from '../dashboard/start-dashboard.js';
import type { Dashboard } from '../dashboard/start-dashboard.js';
import { packageRoot } from '../plugins/packaged-extra-manifests.js';
import type { IronicSettings } from './controllers.js';
import { startImageServer } from './images/index.js';
import type { ImageServer } from './images/index.js';
import { AnnotationInfraEnvBackend } from './infraenv-backend.js';
import { ControllerMode, resolveMode } from './mode.js';
import { kubeSpokeClientFactory } from './reconcilers/bmac/index.js';
import { imageUrlsOf } from './reconcilers/redfish-host/index.js';
import type { Controller } from './runtime/contract.js';
import { Manager } from './runtime/manager.js';
import { RuntimeMetrics } from './runtime/metrics.js';
import { ProbeServer } from './runtime/probe-server.js';
import type { ModeFlag } from './mode.js';
import type { LeaderGate } from './runtime/contract.js';
import { LeaderElector } from './runtime/leader-election.js';
import { systemRuntimeClock } from './runtime/runtime-clock.js';
import type { RuntimeClock } from './runtime/runtime-clock.js';

/** A listening address; `host` '' is every interface (Go's `:8080`). */
export interface BindAddress {
  readonly host: string;
  readonly port: number;
}

/** pino's levels, as `--log-level` takes them. */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** The options of `siteforge controller`, after controller-runtime's manager flags. */
export interface ControllerOptions {
  /** @default $KUBECONFIG, ~/.kube/config, else the in-cluster service account */
  readonly kubeconfig?: string;
  readonly mode: ModeFlag;
  /** Namespaces to watch; empty watches all. */
  readonly namespaces: readonly string[];
  /** Where /metrics listens; undefined when off (`--metrics-bind-address 0`). */
  readonly metricsBindAddress?: BindAddress;
  /** Where /healthz and /readyz listen; undefined when off. */
  readonly healthProbeBindAddress?: BindAddress;
  /** Campaign for a Lease so that one replica acts at a time. */
  readonly leaderElect: boolean;
  /** @default $POD_NAMESPACE, else the service account's namespace */
  readonly leaderElectionNamespace?: string;
  /** Name of the Lease. */
  readonly leaderElectionId: string;
  /** Where the image server listens. */
  readonly imageServerBindAddress: BindAddress;
  /** Base URL at which BMCs reach the image server. @default - its listening address */
  readonly imageServerUrl?: string;
  /** Where the image server keeps downloaded images. @default $TMPDIR/siteforge-images */
  readonly imageCacheDir?: string;
  /**
   * File with the HMAC key of short image URLs (at least 32 bytes), shared by the replicas so
   * a URL stays valid after a failover. @default - a random key per process
   */
  readonly imageServerKeyFile?: string;
  /** Reconciles running at once, per controller. */
  readonly workers: number;
  /** Writes per second toward the API server (all controllers). */
  readonly kubeApiQps: number;
  /** Writes allowed at once before kubeApiQps applies. */
  readonly kubeApiBurst: number;
  /** redfish mode: BMC operations running at once over all hosts. */
  readonly maxConcurrentBmcOperations: number;
  /** metal3 mode: Ironic's API URL, which the ironic agent of a PreprovisioningImage calls. */
  readonly ironicUrl?: string;
  /** metal3 mode: Ironic inspector's URL. @default ironicUrl */
  readonly ironicInspectorUrl?: string;
  /** metal3 mode: the ironic agent image. @default $IRONIC_AGENT_IMAGE */
  readonly ironicAgentImage?: string;
  readonly logLevel: LogLevel;
  /** Run the assisted core (InfraEnv images, agent API, Agent and install controllers). @default true */
  readonly assisted?: boolean;
  /** Where the agent API listens (HTTPS). @default :8090 */
  readonly agentApiBindAddress?: BindAddress;
  /**
   * Base URL discovery agents are told to call (https).
   * @default - https://$POD_IP:PORT when listening on every interface, else the listening address
   */
  readonly agentApiUrl?: string;
  /** PEM certificate (and chain) of the agent API; with agentApiTlsKeyFile. @default - a CA and certificate made at start-up */
  readonly agentApiTlsCertFile?: string;
  /** PEM private key of agentApiTlsCertFile. */
  readonly agentApiTlsKeyFile?: string;
  /**
   * PEM EC P-256 private key that signs agent tokens, shared by the replicas.
   * @default - a random key per process (ISOs stop working after a restart or failover)
   */
  readonly agentTokenKeyFile?: string;
  /** YAML or JSON file with the osImages list (or an AgentServiceConfig). */
  readonly osImagesFile?: string;
  /** Where install ignition comes from. @default openshift-install */
  readonly installer?: InstallerBackend;
  /** The openshift-install binary of the openshift-install backend. @default openshift-install (on PATH) */
  readonly openshiftInstallPath?: string;
  /** The discovery ISO kind InfraEnvs get. @default minimal-iso */
  readonly discoveryIsoType?: DiscoveryIsoType;
  /** Where the fleet dashboard listens; undefined when off (the default). */
  readonly dashboardBindAddress?: BindAddress;
}

/** The lease timing, client-go's and controller-runtime's defaults unless a test shortens it. */
export interface LeaseTiming {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** What the controller takes from its host process; tests replace parts of it. */
export interface ControllerHost {
  /** @default standard error */
  readonly logDestination?: DestinationStream;
  /** Stops the controller when it aborts. @default - SIGTERM or SIGINT */
  readonly stop?: AbortSignal;
  /** @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** @default systemRuntimeClock */
  readonly clock?: RuntimeClock;
  /**
   * @default - from $SITEFORGE_LEASE_DURATION, $SITEFORGE_RENEW_DEADLINE and
   *   $SITEFORGE_RETRY_PERIOD when set (hidden, for tests that fail over in seconds), else a
   *   15 s lease, 10 s renew deadline and 2 s retry period
   */
  readonly leaseTiming?: LeaseTiming;
}

const DEFAULT_LEASE_TIMING: LeaseTiming = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/** Where a pod finds its own namespace. */
const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/**
 * Runs the controller until it is told to stop.
 * @returns the exit code: 0 after a graceful stop
 * @throws UsageError when leader election has no namespace; KubeUnreachableError when the hub
 *   cannot be reached; ModeDetectionError when `--mode auto` may not look
 */
export async function runController(
  options: ControllerOptions,
  host: ControllerHost = {},
): Promise<number> {
  const env = host.env ?? process.env;
  const clock = host.clock ?? systemRuntimeClock;
  const log = createLogger({
    level: options.logLevel,
    base: { component: 'siteforge-controller' },
    ...(host.logDestination && { destination: host.logDestination }),
  });
  const leaseNamespace = options.leaderElect ? leaderElectionNamespace(options, env) : undefined;
  // Checked before anything connects, as flags are.
  const leaseTiming = options.leaderElect ? (host.leaseTiming ?? leaseTimingOf(env)) : undefined;

  if (options.kubeconfig !== undefined && !existsSync(options.kubeconfig))
    throw new UsageError(`--kubeconfig ${options.kubeconfig}: no such file`);

  const kube = ClientNodeKubeClient.fromKubeconfig(
    options.kubeconfig === undefined ? {} : { kubeconfig: options.kubeconfig },
  );
  log.info({ server: kube.server }, 'connecting to the hub');
  const { mode, reason } = await resolveMode(options.mode, kube);
  log.info({ mode, reason }, `mode ${mode}: ${reason}`);

  const ironic = mode === ControllerMode.Metal3 ? ironicSettings(options, env, kube) : undefined;

  let elector: LeaderElector | undefined;
  if (leaseNamespace !== undefined && leaseTiming !== undefined) {
    const timing = leaseTiming;
    elector = new LeaderElector({
      // A hung request fails in time for another attempt before the renew deadline.
      leases: ClientNodeLeaseClient.fromKubeconfig(options.kubeconfig, {
        requestTimeoutMs: Math.max(1_000, Math.floor(timing.renewDeadlineMs / 2)),
      }),
      namespace: leaseNamespace,
      name: options.leaderElectionId,
      identity: `${hostname()}_${randomUUID()}`,
      ...timing,
      clock,
      log: log.child({ lease: `${leaseNamespace}/${options.leaderElectionId}` }),
    });
    log.info(`campaigning for Lease ${leaseNamespace}/${options.leaderElectionId}`);
  } else {
    log.info('leader election is off: this replica acts alone');
  }
  // The Manager's `leader`: undefined runs the controllers at once, as with one replica.
  const gate: LeaderGate | undefined = elector;
  gate?.onChange((leader) => {
    log.info({ leader }, leader ? 'controllers may act' : 'controllers stand by');
  });

  const metrics = new RuntimeMetrics();
  const client = ClientNodeRuntimeKubeClient.fromKubeconfig(options.kubeconfig, {
    onRequest: (verb, status, resource, seconds) => {
      metrics.apiRequest(verb, status, resource, seconds);
    },
  });
  const assisted = options.assisted !== false;
  // Read and checked before anything listens: bad files fail the start, as flags do.
  const assistedSettings = assisted
    ? await resolveAssistedSettings(options, {
        env,
        log,
        ...(leaseNamespace !== undefined && {
          tlsSecret: {
            client: client,
            namespace: leaseNamespace,
            name: `${options.leaderElectionId}-agent-api-tls`,
          },
        }),
      })
    : undefined;
  // The image server boots BMCs (redfish mode) and serves discovery ISOs (the assisted core).
  const imageServer =
    mode === ControllerMode.Redfish || assisted ? await startImages(options, env, log) : undefined;
  const manager = new Manager({
    client,
    log,
    clock,
    metrics,
    leader: gate,
    namespaces: options.namespaces,
    workers: options.workers,
    writeQps: options.kubeApiQps,
    writeBurst: options.kubeApiBurst,
  });
  const controllers = [
    ...controllersFor(mode, {
      spokeClients: kubeSpokeClientFactory((text) => ClientNodeKubeClient.fromKubeconfigText(text)),
      ...(imageServer && { images: imageUrlsOf(imageServer) }),
      bmcConcurrency: options.maxConcurrentBmcOperations,
      redfishCall: (vendor, outcome) => {
        metrics.redfishCall(vendor, outcome);
      },
      wake: (controller, request, urgent) => {
        manager.enqueue(controller, request, urgent);
      },
      ...(ironic && { ironic }),
    }),
  ];
  let core: AssistedCore | undefined;
  if (assistedSettings !== undefined && imageServer !== undefined) {
    core = createAssistedCore({
      settings: assistedSettings,
      manager,
      images: imageServer,
      log,
      clock,
      dataDir: join(options.imageCacheDir ?? join(tmpdir(), 'siteforge-images'), 'assisted'),
    });
    controllers.push(...core.controllers);
    const provisioner = controllers.find(isRedfishHostController);
    if (provisioner) relayImageWritten(core.hosts, provisioner, manager.cache);
  }
  for (const controller of controllers) manager.add(controller);
  log.info(
    { controllers: controllers.map((c) => c.name), namespaces: options.namespaces },
    `${String(controllers.length)} controllers for mode ${mode}`,
  );
  let probes: ProbeServer[];
  try {
    probes = await startProbes(options, manager, metrics, log);
  } catch (err) {
    // Nothing half-started stays behind a failed start.
    await imageServer?.stop();
    throw err;
  }
  let dashboard: Dashboard | undefined;
  if (options.dashboardBindAddress !== undefined) {
    const address = options.dashboardBindAddress;
    try {
      dashboard = await listening(address, 'the dashboard', () =>
        startDashboard({
          manager,
          client,
          clock,
          log,
          host: address.host === '' ? '::' : address.host,
          port: address.port,
          assetsDir: defaultAssetsDir(packageRoot()),
          namespaces: options.namespaces,
        }),
      );
    } catch (err) {
      await Promise.all([
        ...probes.map((p) => p.close()),
        ...(imageServer ? [imageServer.stop()] : []),
      ]);
      throw err;
    }
    log.info({ url: dashboard.url }, 'serving the fleet dashboard');
  }

  try {
    await checkAccess(kube, options, leaseNamespace);
  } catch (err) {
    await Promise.all([
      ...probes.map((p) => p.close()),
      ...(dashboard ? [dashboard.stop()] : []),
      ...(imageServer ? [imageServer.stop()] : []),
    ]);
    throw err;
  }

  elector?.start();
  manager.start();
  try {
    await core?.start();
  } catch (err) {
    await manager.stop();
    await elector?.stop();
    await Promise.all([
      ...probes.map((p) => p.close()),
      ...(dashboard ? [dashboard.stop()] : []),
      ...(imageServer ? [imageServer.stop()] : []),
    ]);
    throw err;
  }
  // The runtime's timers do not hold the process up; this does, until the stop.
  const alive = setInterval(() => undefined, 1 << 30);

  const signal = await stopped(host.stop, log);
  log.info(signal === undefined ? 'stopping' : `received ${signal}: stopping`);
  // Stop acting first (in-flight passes and BMC operations are aborted and waited for), then
  // hand the Lease over so the standby starts at once, then close the servers.
  await core?.stop();
  await manager.stop();
  await Promise.all(controllers.filter(isStoppable).map((c) => c.stop()));
  await elector?.stop();
  await Promise.all([
    ...probes.map((p) => p.close()),
    ...(dashboard ? [dashboard.stop()] : []),
    ...(imageServer ? [imageServer.stop()] : []),
  ]);
  clearInterval(alive);
  log.info('stopped');
  return 0;
}

/** Hosts that listen on every interface: no address a BMC could be given. */
const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '[::]']);

/**
 * The base URL BMCs are given for the image server: --image-server-url; else, when it listens
 * on every interface, the pod's own address ($POD_IP, from the downward API); else its
 * listening address.
 * @returns undefined for the listening address
 * @throws UsageError when it listens on every interface and neither is set
 */
export function imageServerPublicUrl(
  options: Pick<ControllerOptions, 'imageServerUrl' | 'imageServerBindAddress'>,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (options.imageServerUrl !== undefined) return options.imageServerUrl.replace(/\/+$/, '');
  const { host, port } = options.imageServerBindAddress;
  if (!WILDCARD_HOSTS.has(host)) return undefined;
  const podIp = env['POD_IP']?.trim();
  if (podIp === undefined || podIp === '')
    throw new UsageError(
      `the image server listens on every interface (--image-server-bind-address :${String(port)}), which is no address a BMC can reach: pass --image-server-url URL (or set POD_IP to the pod's address)`,
    );
  return `http://${podIp.includes(':') ? `[${podIp}]` : podIp}:${String(port)}`;
}

/** The hub refused a request the controller needs: exit 1, with what to grant. */
export class AccessDeniedError extends SiteForgeError {
  constructor(message: string) {
    super('KUBE_FORBIDDEN', message);
  }
}

/**
 * Before anything acts: one list of BareMetalHosts (in the first --namespace, else all) and, with
 * leader election, a get of the Lease, so an unreachable hub or a ServiceAccount without the
 * chart's ClusterRole fails the start instead of retrying forbidden watches forever.
 * @throws KubeUnreachableError; AccessDeniedError on a 403
 */
async function checkAccess(
  kube: KubeClient,
  options: ControllerOptions,
  leaseNamespace: string | undefined,
): Promise<void> {
  const namespace = options.namespaces[0];
  const checks: { what: string; run: () => Promise<unknown> }[] = [
    {
      what: `list baremetalhosts.metal3.io ${namespace === undefined ? 'in every namespace' : `in namespace ${namespace}`}`,
      run: () => kube.list(Gvk.BareMetalHost, namespace === undefined ? {} : { namespace }),
    },
  ];
  if (leaseNamespace !== undefined)
    checks.push({
      what: `get leases.coordination.k8s.io in namespace ${leaseNamespace}`,
      run: () =>
        kube.get({ ...Gvk.Lease, namespace: leaseNamespace, name: options.leaderElectionId }),
    });
  for (const { what, run } of checks) {
    try {
      await run();
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 403)
        throw new AccessDeniedError(
          `the hub refuses to let the controller ${what}: bind its ServiceAccount to the ClusterRole of charts/siteforge-controller (generated from src/bmac/permissions.ts)`,
        );
      throw err;
    }
  }
}

/** Starts the image server of redfish mode. */
async function startImages(
  options: ControllerOptions,
  env: Readonly<Record<string, string | undefined>>,
  log: Logger,
): Promise<ImageServer> {
  const publicUrl = imageServerPublicUrl(options, env);
  const key = imageServerKey(options, log);
  const { host, port } = options.imageServerBindAddress;
  const server = await listening(options.imageServerBindAddress, 'the image server', () =>
    startImageServer({
      cacheDir: options.imageCacheDir ?? join(tmpdir(), 'siteforge-images'),
      key,
      host: host === '' ? '::' : host,
      port,
      ...(publicUrl !== undefined && { publicOrigin: publicUrl }),
    }),
  );
  log.info({ listening: server.origin, url: publicUrl ?? server.origin }, 'image server up');
  return server;
}

/** The HMAC key of short URLs: from --image-server-key-file, else random for this process. */
function imageServerKey(options: ControllerOptions, log: Logger): Buffer {
  if (options.imageServerKeyFile === undefined) {
    log.warn(
      'no --image-server-key-file: short image URLs are signed with a key of this process alone and stop working after a restart or failover',
    );
    return randomBytes(32);
  }
  let key: Buffer;
  try {
    key = readFileSync(options.imageServerKeyFile);
  } catch (err) {
    throw new UsageError(
      `cannot read --image-server-key-file ${options.imageServerKeyFile}: ${(err as Error).message}`,
    );
  }
  if (key.length < 32)
    throw new UsageError(
      `--image-server-key-file ${options.imageServerKeyFile} holds ${String(key.length)} bytes; the key needs at least 32 (e.g. head -c 48 /dev/urandom | base64)`,
    );
  return key;
}

/** The PreprovisioningImage controller's settings (metal3 mode). */
function ironicSettings(
  options: ControllerOptions,
  env: Readonly<Record<string, string | undefined>>,
  kube: KubeClient,
): IronicSettings {
  const agentImage = options.ironicAgentImage ?? env['IRONIC_AGENT_IMAGE'];
  if (options.ironicUrl === undefined || agentImage === undefined || agentImage === '')
    throw new UsageError(
      'metal3 mode serves PreprovisioningImages with the ironic agent: pass --ironic-url URL and --ironic-agent-image IMAGE (or set IRONIC_AGENT_IMAGE), or --mode redfish',
    );
  return {
    endpoints: {
      ironicUrl: options.ironicUrl,
      inspectorUrl: options.ironicInspectorUrl ?? options.ironicUrl,
    },
    agentImage,
    backend: new AnnotationInfraEnvBackend(kube),
  };
}

/** The probe and metrics servers (one server when both flags name the same address). */
async function startProbes(
  options: ControllerOptions,
  manager: Manager,
  metrics: RuntimeMetrics,
  log: Logger,
): Promise<ProbeServer[]> {
  const addresses = [options.healthProbeBindAddress, options.metricsBindAddress].filter(
    (a): a is BindAddress => a !== undefined,
  );
  const distinct = addresses.filter(
    (a, i) => addresses.findIndex((b) => b.host === a.host && b.port === a.port) === i,
  );
  const servers: ProbeServer[] = [];
  for (const address of distinct) {
    const server = new ProbeServer({
      host: address.host === '' ? '::' : address.host,
      port: address.port,
      readiness: () => manager.readiness(),
      metrics,
    });
    const serves = [
      ...(same(address, options.healthProbeBindAddress) ? ['/healthz', '/readyz'] : []),
      ...(same(address, options.metricsBindAddress) ? ['/metrics'] : []),
    ];
    const what =
      serves.length === 1 ? serves[0]! : `${serves.slice(0, -1).join(', ')} and ${serves.at(-1)!}`;
    try {
      log.info({ url: await listening(address, what, () => server.listen()) }, `serving ${what}`);
    } catch (err) {
      await Promise.all(servers.map((s) => s.close()));
      throw err;
    }
    servers.push(server);
  }
  return servers;
}

function same(a: BindAddress, b: BindAddress | undefined): boolean {
  return a.host === b?.host && a.port === b.port;
}

/** Why a server could not listen, by Node's error code. */
const LISTEN_FAILURES: Readonly<Record<string, string>> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'no such address on this machine',
  ENOTFOUND: 'no such host',
};

/** A server that could not listen: one clear line, not a bug report. */
export class ListenError extends SiteForgeError {
  constructor(message: string, cause: unknown) {
    super('LISTEN_FAILED', message, { cause });
  }
}

/**
 * Starts a server, turning a failure to listen into a ListenError such as
 * `cannot listen on 127.0.0.1:8080 for /metrics: address already in use`.
 */
export async function listening<T>(
  address: BindAddress,
  what: string,
  start: () => Promise<T>,
): Promise<T> {
  try {
    return await start();
  } catch (err) {
    const why = LISTEN_FAILURES[(err as NodeJS.ErrnoException).code ?? ''];
    if (why === undefined) throw err;
    const host = address.host.includes(':') ? `[${address.host}]` : address.host;
    throw new ListenError(
      `cannot listen on ${host}:${String(address.port)} for ${what}: ${why}`,
      err,
    );
  }
}

function isStoppable(controller: Controller): controller is Controller & { stop(): Promise<void> } {
  return typeof (controller as { stop?: unknown }).stop === 'function';
}

/** `--leader-election-namespace`, else the pod's own namespace. */
function leaderElectionNamespace(
  options: ControllerOptions,
  env: Readonly<Record<string, string | undefined>>,
): string {
  if (options.leaderElectionNamespace !== undefined) return options.leaderElectionNamespace;
  const fromEnv = env['POD_NAMESPACE'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  try {
    const fromPod = readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim();
    if (fromPod !== '') return fromPod;
  } catch {
    // not in a pod
  }
  throw new UsageError(
    'leader election needs a namespace for its Lease outside a pod: pass --leader-election-namespace NS (or --leader-elect=false for a single replica)',
  );
}

/**
 * The lease timing from the hidden $SITEFORGE_LEASE_DURATION, $SITEFORGE_RENEW_DEADLINE and
 * $SITEFORGE_RETRY_PERIOD (Go durations such as `4s` or `500ms`, as kube-controller-manager's
 * --leader-elect-* flags take them), each defaulting to controller-runtime's value. Tests set
 * them so that a failover takes seconds; a Deployment has no reason to.
 * @throws UsageError naming the variable that does not parse or does not fit with the others
 */
export function leaseTimingOf(env: Readonly<Record<string, string | undefined>>): LeaseTiming {
  const timing: LeaseTiming = {
    leaseDurationMs: durationOf(
      env,
      'SITEFORGE_LEASE_DURATION',
      DEFAULT_LEASE_TIMING.leaseDurationMs,
    ),
    renewDeadlineMs: durationOf(
      env,
      'SITEFORGE_RENEW_DEADLINE',
      DEFAULT_LEASE_TIMING.renewDeadlineMs,
    ),
    retryPeriodMs: durationOf(env, 'SITEFORGE_RETRY_PERIOD', DEFAULT_LEASE_TIMING.retryPeriodMs),
  };
  if (timing.leaseDurationMs % 1000 !== 0)
    throw new UsageError(
      'SITEFORGE_LEASE_DURATION must be whole seconds (a Lease holds leaseDurationSeconds)',
    );
  if (!(
    timing.retryPeriodMs < timing.renewDeadlineMs && timing.renewDeadlineMs < timing.leaseDurationMs
  ))
    throw new UsageError(
      `the lease timing must have SITEFORGE_RETRY_PERIOD < SITEFORGE_RENEW_DEADLINE < SITEFORGE_LEASE_DURATION, not ${String(timing.retryPeriodMs)} ms, ${String(timing.renewDeadlineMs)} ms and ${String(timing.leaseDurationMs)} ms`,
    );
  return timing;
}

/** A duration variable such as `4s` or `500ms`, in milliseconds. */
function durationOf(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: number,
): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const match = /^([0-9]{1,6})(ms|s)$/.exec(text);
  if (!match || Number(match[1]) === 0)
    throw new UsageError(`${name} must be a positive duration such as 4s or 500ms, not "${text}"`);
  return Number(match[1]) * (match[2] === 's' ? 1000 : 1);
}

/** Resolves when `stop` aborts, or at the first SIGTERM or SIGINT; with the signal's name. */
function stopped(stop: AbortSignal | undefined, log: Logger): Promise<string | undefined> {
  if (stop) {
    if (stop.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      stop.addEventListener('abort', () => {
        resolve(undefined);
      });
    });
  }
  return new Promise((resolve) => {
    const onSignal = (name: NodeJS.Signals): void => {
      process.removeListener('SIGTERM', onSignal);
      process.removeListener('SIGINT', onSignal);
      // A second signal while stopping ends the process at once, as controller-runtime does.
      const force = (again: NodeJS.Signals): void => {
        log.warn(`received ${again} while stopping: exiting now`);
        process.exit(1);
      };
      process.once('SIGTERM', force);
      process.once('SIGINT', force);
      resolve(name);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
