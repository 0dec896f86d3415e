/**
 * A simulated fleet split over child processes (fleet-worker.ts): each runs the BMCs and hosts
 * of its share. The parent gets the BMC addresses to point the BareMetalHosts at, the workers'
 * counters and CPU, and stops them all.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SimBmcAccess, SimFleetOptions, SimFleetStats } from './sim-fleet.js';
import type { SimHostSpec } from './site-hosts.js';

/** What the parent asks a worker. */
export type WorkerRequest =
  | { readonly type: 'start'; readonly options: Omit<SimFleetOptions, 'onPhase' | 'onExchange'> }
  | { readonly type: 'stats' }
  | { readonly type: 'stop' };

/** A host's phase as a worker reports it. */
export interface HostPhaseReport {
  readonly key: string;
  readonly phase: string;
  readonly detail: string | undefined;
}

/** What a worker answers. */
export type WorkerReply =
  | { readonly type: 'ready'; readonly bmcs: readonly SimBmcAccess[] }
  | { readonly type: 'failed'; readonly message: string }
  | {
      readonly type: 'stats';
      readonly stats: SimFleetStats | undefined;
      readonly cpuSeconds: number;
      readonly rssBytes: number;
      readonly hosts: readonly HostPhaseReport[] | undefined;
    }
  | { readonly type: 'stopped' };

/** The fleet's counters summed over the workers, and the workers' own figures. */
export interface FleetProcessStats extends SimFleetStats {
  /** CPU seconds of all workers. */
  readonly cpuSeconds: number;
  /** Peak of the workers' summed RSS seen by stats() calls. */
  readonly rssBytes: number;
  readonly hostPhases: readonly HostPhaseReport[];
}

/** A fleet running in child processes. */
export interface FleetProcesses {
  readonly bmcs: readonly SimBmcAccess[];
  readonly pids: readonly number[];
  stats(): Promise<FleetProcessStats>;
  /** Stops the workers (each stops its BMCs and hosts, then exits). */
  stop(): Promise<void>;
}

/** Options of {@link startFleetProcesses}. */
export interface FleetProcessOptions extends Omit<
  SimFleetOptions,
  'hosts' | 'onPhase' | 'onExchange'
> {
  readonly hosts: readonly SimHostSpec[];
  /** Child processes. @default one per 2,000 hosts, at least 1 */
  readonly workers?: number;
  /** Called when a worker dies before it was stopped. */
  readonly onWorkerExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
}

const WORKER = fileURLToPath(new URL('./fleet-worker.js', import.meta.url));

class Worker {
  private readonly waiting: ((reply: WorkerReply) => void)[] = [];
  stopping = false;

  constructor(readonly child: ChildProcess) {
    child.on('message', (reply: WorkerReply) => {
      this.waiting.shift()?.(reply);
    });
  }

  ask(request: WorkerRequest): Promise<WorkerReply> {
    return new Promise((resolve, reject) => {
      if (!this.child.connected) {
        reject(new Error(`the fleet worker ${String(this.child.pid)} is gone`));
        return;
      }
      this.waiting.push(resolve);
      this.child.send(request);
    });
  }
}

/** Starts the workers and their share of the hosts; resolves once every BMC listens. */
export async function startFleetProcesses(options: FleetProcessOptions): Promise<FleetProcesses> {
  const count = Math.max(1, options.workers ?? Math.ceil(options.hosts.length / 2000));
  const shares = Array.from({ length: count }, (_, w) =>
    options.hosts.filter((_, i) => i % count === w),
  ).filter((share) => share.length > 0);
  const workers = shares.map(
    () => new Worker(fork(WORKER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })),
  );
  for (const worker of workers)
    worker.child.once('exit', (code, signal) => {
      if (!worker.stopping) options.onWorkerExit?.(code, signal);
    });
  const stopAll = async (): Promise<void> => {
    await Promise.all(
      workers.map(async (worker) => {
        worker.stopping = true;
        if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
        const exited = new Promise((resolve) => worker.child.once('exit', resolve));
        await worker.ask({ type: 'stop' }).catch(() => undefined);
        const timer = setTimeout(() => worker.child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }),
    );
  };
  let bmcs: SimBmcAccess[];
  try {
    const replies = await Promise.all(
      workers.map((worker, w) => {
        return worker.ask({
          type: 'start',
          options: {
            timings: options.timings,
            ...(options.bootOrder !== undefined && { bootOrder: options.bootOrder }),
            hosts: shares[w]!,
            seed: (options.seed ?? 1) * 31 + w,
          },
        });
      }),
    );
    bmcs = replies.flatMap((reply) => {
      if (reply.type === 'failed') throw new Error(`the fleet simulator failed: ${reply.message}`);
      return reply.type === 'ready' ? reply.bmcs : [];
    });
  } catch (err) {
    await stopAll();
    throw err;
  }
  let peakRss = 0;
  return {
    bmcs,
    pids: workers.map((w) => w.child.pid ?? 0),
    stats: async () => {
      const replies = await Promise.all(workers.map((w) => w.ask({ type: 'stats' })));
      const phases: Record<string, number> = {};
      let rss = 0;
      const sum = {
        hosts: 0,
        isoBoots: 0,
        mediaBytes: 0,
        mediaRequests: 0,
        agentRequests: 0,
        agentFailures: 0,
        bmcRequests: 0,
        cpuSeconds: 0,
      };
      const hostPhases: HostPhaseReport[] = [];
      for (const reply of replies) {
        if (reply.type !== 'stats') continue;
        rss += reply.rssBytes;
        sum.cpuSeconds += reply.cpuSeconds;
        hostPhases.push(...(reply.hosts ?? []));
        const s = reply.stats;
        if (s === undefined) continue;
        for (const key of Object.keys(sum) as (keyof typeof sum)[])
          if (key !== 'cpuSeconds') sum[key] += s[key];
        for (const [phase, n] of Object.entries(s.phases)) phases[phase] = (phases[phase] ?? 0) + n;
      }
      peakRss = Math.max(peakRss, rss);
      return { ...sum, phases, rssBytes: peakRss, hostPhases };
    },
    stop: stopAll,
  };
}
