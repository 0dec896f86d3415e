/**
 * A fleet of simulated BMCs on loopback, one port each (a BMC address has no room for a path
 * prefix, and BMO addresses carry host:port). Used by the contract tests and the benchmark,
 * and by later fleet simulators that hang discovery agents on `onBoot`.
 */
import { PERSONALITIES } from './personalities.js';
import type { Personality } from './personalities.js';
import { startSimulatedBmc } from './simulated-bmc.js';
import type { BootEvent, FaultConfig, SimulatedBmc, SimulatedBmcOptions } from './simulated-bmc.js';

/** Options of {@link startBmcFleet}. */
export interface BmcFleetOptions extends Omit<
  SimulatedBmcOptions,
  'personality' | 'port' | 'faults' | 'random'
> {
  readonly count: number;
  /**
   * The personality of BMC number `index`: a name of PERSONALITIES or a Personality.
   * @default round-robin over every personality
   */
  readonly personality?: (index: number) => string | Personality;
  /** @default - no faults */
  readonly faults?: FaultConfig | ((index: number) => FaultConfig | undefined);
  /** Seed of the fault dice, so a run can be repeated. @default 1 */
  readonly seed?: number;
}

/** A running fleet. */
export interface BmcFleet {
  readonly bmcs: readonly SimulatedBmc[];
  /** Boots seen so far, in order. */
  readonly boots: readonly BootEvent[];
  /** HTTP requests served by all BMCs. */
  requestCount(): number;
  stop(): Promise<void>;
}

/** Starts `count` simulated BMCs. */
export async function startBmcFleet(options: BmcFleetOptions): Promise<BmcFleet> {
  const names = Object.keys(PERSONALITIES);
  const pick = options.personality ?? ((i: number) => names[i % names.length]!);
  const boots: BootEvent[] = [];
  const bmcs: SimulatedBmc[] = [];
  try {
    for (let i = 0; i < options.count; i++) {
      const chosen = pick(i);
      const personality = typeof chosen === 'string' ? PERSONALITIES[chosen] : chosen;
      if (personality === undefined) throw new Error(`no personality "${chosen as string}"`);
      const faults = typeof options.faults === 'function' ? options.faults(i) : options.faults;
      bmcs.push(
        await startSimulatedBmc({
          ...(options.credentials ? { credentials: options.credentials } : {}),
          ...(options.tls ? { tls: options.tls } : {}),
          ...(options.sessionTtlMs === undefined ? {} : { sessionTtlMs: options.sessionTtlMs }),
          ...(options.power ? { power: options.power } : {}),
          ...(options.insertedImage === undefined ? {} : { insertedImage: options.insertedImage }),
          ...(options.fetchImage ? { fetchImage: true } : {}),
          personality,
          random: mulberry32((options.seed ?? 1) * 7919 + i),
          ...(faults === undefined ? {} : { faults }),
          onBoot: (event) => {
            boots.push(event);
            options.onBoot?.(event);
          },
        }),
      );
    }
  } catch (err) {
    await Promise.all(bmcs.map((bmc) => bmc.stop()));
    throw err;
  }
  return {
    bmcs,
    boots,
    requestCount: () => bmcs.reduce((sum, bmc) => sum + bmc.requestCount, 0),
    stop: async () => {
      await Promise.all(bmcs.map((bmc) => bmc.stop()));
    },
  };
}

/** A small seeded PRNG, so injected faults repeat run to run. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
