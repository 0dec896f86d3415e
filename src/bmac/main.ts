/**
 * The composition root of `siteforge controller`: the only file that wires the real adapters
 * (client-node, the system clock, signals, the pino destination) into the controller. It
 * resolves the mode, campaigns for leadership and runs until SIGTERM or SIGINT, then stops
 * acting and releases the Lease so a standby takes over at once.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { DestinationStream } from 'pino';
import { ClientNodeKubeClient, ClientNodeLeaseClient } from '../kube/index.js';
import { UsageError } from '../shared/errors.js';
import { createLogger } from '../shared/logger.js';
import type { Logger } from '../shared/logger.js';
import { controllersFor } from './controllers.js';
import { resolveMode } from './mode.js';
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
  /** Reconciles running at once, per controller. */
  readonly workers: number;
  readonly logLevel: LogLevel;
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
  /** @default 15 s lease, 10 s renew deadline, 2 s retry period */
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

  const kube = ClientNodeKubeClient.fromKubeconfig(
    options.kubeconfig === undefined ? {} : { kubeconfig: options.kubeconfig },
  );
  log.info({ server: kube.server }, 'connecting to the hub');
  const { mode, reason } = await resolveMode(options.mode, kube);
  log.info({ mode, reason }, `mode ${mode}: ${reason}`);

  const controllers = controllersFor(mode, {
    kube,
    clock,
    log,
    namespaces: options.namespaces,
    ...(options.imageServerUrl !== undefined && { imageServerUrl: options.imageServerUrl }),
  });
  // The runtime manager (informers, work queue, metrics and probe servers) takes `controllers`
  // and `gate` here, and starts the controllers whenever the gate opens.
  log.info(
    { controllers: controllers.map((c) => c.name), namespaces: options.namespaces },
    `${String(controllers.length)} controller(s) for mode ${mode}`,
  );

  let elector: LeaderElector | undefined;
  if (leaseNamespace !== undefined) {
    const timing = host.leaseTiming ?? DEFAULT_LEASE_TIMING;
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
  elector?.start();
  // The runtime's timers do not hold the process up; this does, until the stop.
  const alive = setInterval(() => undefined, 1 << 30);

  const signal = await stopped(host.stop, log);
  log.info(signal === undefined ? 'stopping' : `received ${signal}: stopping`);
  await elector?.stop();
  clearInterval(alive);
  log.info('stopped');
  return 0;
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
