/**
 * A fleet of simulated servers in one process: a simulated Redfish BMC per host (one loopback
 * port each, the vendor personality its address scheme names) and the host behind it
 * (sim-host.ts). The hosts share keep-alive pools to the image server and the agent API, so
 * thousands run from one process.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import { mulberry32, PERSONALITIES, startSimulatedBmc } from '../bmac/redfish/sim/index.js';
import type { FaultConfig, SimulatedBmc } from '../bmac/redfish/sim/index.js';
import type { AgentExchange } from './agent-client.js';
import { HostPhase, SimHost } from './sim-host.js';
import type { SimHostContext, SimTimings } from './sim-host.js';
import { simulatedBmcAddress } from './site-hosts.js';
import type { SimHostSpec } from './site-hosts.js';

/** How to reach a host's BMC, as its BareMetalHost must say. */
export interface SimBmcAccess {
  /** `namespace/name` of the BareMetalHost. */
  readonly key: string;
  /** `spec.bmc.address`: the SiteConfig's scheme, over HTTP to the simulator. */
  readonly address: string;
  readonly username: string;
  readonly password: string;
}

/** Counters of a running fleet. Plain data. */
export interface SimFleetStats {
  readonly hosts: number;
  /** Hosts per phase. */
  readonly phases: Readonly<Record<string, number>>;
  /** Boots from the ISO (a host booted twice counts twice). */
  readonly isoBoots: number;
  /** Bytes and requests read from image URLs (the image server). */
  readonly mediaBytes: number;
  readonly mediaRequests: number;
  readonly agentRequests: number;
  readonly agentFailures: number;
  /** Requests the BMCs served. */
  readonly bmcRequests: number;
}

/** Options of {@link startSimFleet}. */
export interface SimFleetOptions {
  readonly hosts: readonly SimHostSpec[];
  readonly timings: SimTimings;
  /** Seed of every random choice (jitter, BMC fault dice, passwords stay random). @default 1 */
  readonly seed?: number;
  /**
   * The firmware boot order of every host (see SimulatedBmcOptions.bootOrder).
   * @default 'cd-first': a host boots its disk only once the controller ejected the media
   */
  readonly bootOrder?: 'disk-first' | 'cd-first';
  /** Called on every phase change of a host. */
  readonly onPhase?: (host: SimHost, phase: HostPhase, detail: string | undefined) => void;
  /** Sees every agent API exchange (a conformance check). */
  readonly onExchange?: (exchange: AgentExchange) => void;
}

/** A running fleet. */
export interface SimFleet {
  readonly hosts: readonly SimHost[];
  readonly bmcs: readonly SimBmcAccess[];
  stats(): SimFleetStats;
  /** Stops every host and BMC and closes the pools. */
  stop(): Promise<void>;
}

/** What the bmc-errors and bmc-flaky faults make a BMC do. */
function bmcFaults(spec: SimHostSpec): FaultConfig | undefined {
  if (spec.faults.bmcErrors === true)
    return { errorRate: 1, errorStatus: 500, methods: ['POST', 'PATCH', 'DELETE'] };
  if (spec.faults.bmcFlaky === true) return { errorRate: 0.33, errorStatus: 503 };
  return undefined;
}

/** Starts a BMC per host and the hosts behind them; hosts start powered off. */
export async function startSimFleet(options: SimFleetOptions): Promise<SimFleet> {
  const seed = options.seed ?? 1;
  const random = mulberry32(seed);
  const pools = new Map<string, Pool>();
  const media = { requests: 0, bytes: 0 };
  const agentCalls = { requests: 0, failures: 0 };
  const context: SimHostContext = {
    timings: options.timings,
    media,
    agentCalls,
    random,
    ...(options.onExchange !== undefined && { onExchange: options.onExchange }),
    dispatcherFor(url: string, ca: string | undefined): Dispatcher {
      const origin = new URL(url).origin;
      const key = `${origin} ${ca === undefined ? '' : createHash('sha256').update(ca).digest('hex')}`;
      let pool = pools.get(key);
      if (pool === undefined) {
        pool = new Pool(origin, {
          connections: 64,
          pipelining: 1,
          keepAliveTimeout: 30_000,
          headersTimeout: 60_000,
          bodyTimeout: 60_000,
          connect: ca === undefined ? { rejectUnauthorized: false } : { ca },
        });
        pools.set(key, pool);
      }
      return pool;
    },
    onPhase(host, phase, detail) {
      options.onPhase?.(host, phase, detail);
    },
  };
  const hosts: SimHost[] = [];
  const bmcs: SimulatedBmc[] = [];
  const access: SimBmcAccess[] = [];
  try {
    for (const [i, spec] of options.hosts.entries()) {
      const personality = PERSONALITIES[spec.personality] ?? PERSONALITIES['generic']!;
      const faults = bmcFaults(spec);
      const credentials = { username: 'admin', password: randomBytes(12).toString('base64url') };
      // The BMC calls the host it powers, which is made once the BMC is listening.
      const powered: { host?: SimHost } = {};
      const bmc = await startSimulatedBmc({
        personality,
        credentials,
        power: 'Off',
        bootOrder: options.bootOrder ?? 'cd-first',
        cdBootModes: ['UEFI', 'Legacy'],
        random: mulberry32(seed * 7919 + i),
        ...(faults !== undefined && { faults }),
        onBoot: (event) => powered.host?.onBoot(event),
        onPowerOff: () => powered.host?.onPowerOff(),
      });
      const host = new SimHost(spec, bmc, context);
      powered.host = host;
      bmcs.push(bmc);
      hosts.push(host);
      const systemPath = new URL(bmc.address.replace(/^[^:]+:/, 'http:')).pathname;
      access.push({
        key: spec.key,
        address: simulatedBmcAddress(spec.scheme, bmc.origin, systemPath),
        ...credentials,
      });
    }
  } catch (err) {
    await Promise.all(bmcs.map((bmc) => bmc.stop()));
    throw err;
  }
  return {
    hosts,
    bmcs: access,
    stats: () => {
      const phases: Record<string, number> = {};
      for (const host of hosts) phases[host.phase] = (phases[host.phase] ?? 0) + 1;
      return {
        hosts: hosts.length,
        phases,
        isoBoots: hosts.reduce((sum, h) => sum + h.isoBoots, 0),
        mediaBytes: media.bytes,
        mediaRequests: media.requests,
        agentRequests: agentCalls.requests,
        agentFailures: agentCalls.failures,
        bmcRequests: bmcs.reduce((sum, b) => sum + b.requestCount, 0),
      };
    },
    stop: async () => {
      for (const host of hosts) host.stop();
      await Promise.all(bmcs.map((bmc) => bmc.stop()));
      await Promise.all([...pools.values()].map((pool) => pool.destroy()));
    },
  };
}

export { HostPhase };
