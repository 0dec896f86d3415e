/**
 * One step of a rollout, as a pure function: from the Rollout's spec and status, what the hub
 * shows of each site and the time, the next status and the sites to release now. The runner
 * calls it in a loop; everything it decides is in the status it returns, which the runner writes
 * (with resourceVersion) before acting on it, so a runner that starts over from the stored
 * status decides the same.
 *
 * Rules:
 * - Waves run in order; a wave starts when the one before passed its gate.
 * - Sites of a wave are released in the order the wave lists them, while the rollout has fewer
 *   than maxInFlight sites in flight (released, neither installed nor failed) and the pacing's
 *   token bucket (sitesPerHour, holding up to five minutes' worth) has a token.
 * - A gate fails as soon as more sites failed than it allows, or as soon as too few sites are
 *   left to reach its installed percent; it passes once every site is released, enough are
 *   installed and no more failed than allowed; it fails when it has not passed `timeoutSeconds`
 *   after the wave's last release.
 * - `paused` stops releases (sites released carry on, gates are still evaluated); `abort`
 *   ends the rollout. Neither deletes anything.
 */
import type {
  Gate,
  PacingStatus,
  RolloutSpec,
  RolloutStatus,
  SiteFailure,
  WaveSpec,
  WaveStatus,
} from './rollout-resource.js';
import { isFinished, RolloutPhase, WavePhase } from './rollout-resource.js';

/** Where a site is, as the runner reads it off the hub. */
export const SiteCondition = {
  /** Not on the hub yet (not synced, or being created). */
  Absent: 'absent',
  /** On its way (pending, booting, discovering, validating, installing). */
  Progressing: 'progressing',
  /** Waiting for a person (validations failing): not final, but reported. */
  Stuck: 'stuck',
  Installed: 'installed',
  Failed: 'failed',
  /** A removal still under way: the site's objects are being deleted. */
  Removing: 'removing',
  /** A removal done: the site's install objects are gone. */
  Removed: 'removed',
} as const;
export type SiteCondition = (typeof SiteCondition)[keyof typeof SiteCondition];

/** What the hub shows of one site. */
export interface SiteObservation {
  readonly condition: SiteCondition;
  /** The finer state for reports, e.g. `insufficient`, `installing` (dashboard words). */
  readonly state: string;
  /** Why it is failed or stuck: the object and its condition, in the hub's words. */
  readonly problem?: Omit<SiteFailure, 'site' | 'state'>;
}

/** Reads a site's observation; called only for released sites. */
export type Observe = (site: string, removal: boolean) => SiteObservation;

/** What one step decided. */
export interface StepResult {
  readonly status: RolloutStatus;
  /** Sites to release now: wave index and the range [from, to) of its sites. */
  readonly release?: { readonly wave: number; readonly from: number; readonly to: number };
}

/** Failures kept per wave in the status, so that the object stays small. */
export const MAX_REPORTED_FAILURES = 50;

/** Pacing bucket size, in minutes of the rate (ZTP's "40 per 5 min" at 500 per hour). */
const BURST_MINUTES = 5;

/** The status of a Rollout that has not started. */
export function initialStatus(spec: RolloutSpec): RolloutStatus {
  return {
    phase: RolloutPhase.Pending,
    currentWave: 0,
    waves: spec.waves.map((w) => emptyWave(w.name)),
  };
}

function emptyWave(name: string): WaveStatus {
  return {
    name,
    phase: WavePhase.Pending,
    released: 0,
    applied: 0,
    installed: 0,
    failed: 0,
    inProgress: 0,
    failures: [],
  };
}

/** The number of sites a gate needs installed. */
export function requiredInstalled(gate: Gate, total: number): number {
  return Math.ceil((gate.minSucceededPercent * total) / 100);
}

/**
 * One step. Finished rollouts come back unchanged. `observe` is only called for released sites.
 */
export function step(
  spec: RolloutSpec,
  previous: RolloutStatus | undefined,
  observe: Observe,
  nowMs: number,
): StepResult {
  const now = new Date(nowMs).toISOString();
  let status = align(spec, previous ?? initialStatus(spec));
  if (isFinished(status.phase)) return { status };
  const waves = [...status.waves];

  if (spec.abort) {
    const current = waves[status.currentWave];
    if (current?.phase === WavePhase.Progressing)
      waves[status.currentWave] = { ...current, phase: WavePhase.Aborted, finishedAt: now };
    return {
      status: {
        ...status,
        waves,
        phase: RolloutPhase.Aborted,
        finishedAt: now,
        message: `aborted at wave ${current?.name ?? '(none)'}; sites already released carry on, the rest were never released`,
      },
    };
  }

  // Counts of every wave with released sites, and the rollout's sites in flight.
  let inFlight = 0;
  for (let i = 0; i < spec.waves.length; i++) {
    const counted = countWave(spec.waves[i]!, waves[i]!, observe);
    waves[i] = counted.status;
    inFlight += counted.inFlight;
  }

  status = { ...status, startedAt: status.startedAt ?? now };
  let pacing = status.pacing;
  let release: StepResult['release'];
  let index = status.currentWave;
  for (; index < spec.waves.length; index++) {
    const wave = spec.waves[index]!;
    let ws = waves[index]!;
    if (ws.phase === WavePhase.Pending)
      ws = { ...ws, phase: WavePhase.Progressing, startedAt: now };
    if (ws.phase === WavePhase.Passed) continue;

    // Releases, unless paused.
    if (!spec.paused && release === undefined && ws.released < wave.sites.length) {
      // The bucket is refilled lazily and stored only when it pays for a release, so an idle
      // step writes nothing.
      const bucket = refill(rateOf(spec, wave), wave.burst, pacing, nowMs);
      const room = Math.min(spec.maxInFlight ?? Infinity, wave.maxInFlight ?? Infinity) - inFlight;
      const tokens = bucket === undefined ? Infinity : Math.floor(bucket.tokens + 1e-9);
      const n = Math.max(0, Math.min(room, tokens, wave.sites.length - ws.released));
      if (n > 0) {
        release = { wave: index, from: ws.released, to: ws.released + n };
        inFlight += n;
        if (bucket !== undefined) pacing = { ...bucket, tokens: bucket.tokens - n };
        // Newly released sites are absent until the target acts: count them as in progress.
        ws = { ...ws, released: ws.released + n, inProgress: ws.inProgress + n };
        if (ws.released === wave.sites.length) ws = { ...ws, releasedAllAt: now };
      }
    }
    if (wave.sites.length === 0) ws = { ...ws, releasedAllAt: ws.releasedAllAt ?? now };

    ws = judge(wave, ws, observe, nowMs, now);
    waves[index] = ws;
    if (ws.phase !== WavePhase.Passed) break;
  }

  const current = Math.min(index, spec.waves.length);
  const failedWave = waves[current]?.phase === WavePhase.Failed ? waves[current] : undefined;
  let phase: RolloutPhase;
  let message: string;
  if (current >= spec.waves.length) {
    phase = RolloutPhase.Succeeded;
    message = `all ${String(spec.waves.length)} waves passed`;
  } else if (failedWave) {
    phase = RolloutPhase.Failed;
    message = `wave ${failedWave.name} failed its gate: ${failedWave.message ?? ''}`;
  } else if (spec.paused) {
    phase = RolloutPhase.Paused;
    message = `paused in wave ${waves[current]!.name}; released sites carry on`;
  } else {
    phase = RolloutPhase.Progressing;
    const ws = waves[current]!;
    message = `wave ${ws.name}: ${String(ws.released)}/${String(spec.waves[current]!.sites.length)} released, ${String(ws.installed)} installed, ${String(ws.failed)} failed`;
  }
  return {
    status: {
      ...status,
      phase,
      message,
      currentWave: current,
      waves,
      ...(pacing !== undefined && { pacing }),
      ...(isFinished(phase) && { finishedAt: now }),
    },
    ...(release !== undefined && { release }),
  };
}

/** The status with one wave entry per spec wave (a status written for another spec is reset). */
function align(spec: RolloutSpec, status: RolloutStatus): RolloutStatus {
  const same =
    status.waves.length === spec.waves.length &&
    status.waves.every((w, i) => w.name === spec.waves[i]!.name);
  return same ? status : initialStatus(spec);
}

/** Counts of a wave's released sites; failures listed with their messages. */
function countWave(
  wave: WaveSpec,
  ws: WaveStatus,
  observe: Observe,
): { status: WaveStatus; inFlight: number } {
  if (ws.released === 0) return { status: ws, inFlight: 0 };
  const removed = new Set(wave.removed);
  let installed = 0;
  let failed = 0;
  let inFlight = 0;
  const failures: SiteFailure[] = [];
  for (const site of wave.sites.slice(0, ws.released)) {
    const seen = observe(site, removed.has(site));
    switch (seen.condition) {
      case SiteCondition.Installed:
      case SiteCondition.Removed:
        installed++;
        break;
      case SiteCondition.Failed:
        failed++;
        if (failures.length < MAX_REPORTED_FAILURES)
          failures.push({ site, state: seen.state, ...seen.problem });
        break;
      case SiteCondition.Absent:
      case SiteCondition.Progressing:
      case SiteCondition.Stuck:
      case SiteCondition.Removing:
        inFlight++;
        break;
    }
  }
  return {
    status: { ...ws, installed, failed, inProgress: inFlight, failures },
    inFlight,
  };
}

/** Applies the gate to a wave under way. */
function judge(
  wave: WaveSpec,
  ws: WaveStatus,
  observe: Observe,
  nowMs: number,
  now: string,
): WaveStatus {
  const total = wave.sites.length;
  const { gate } = wave;
  const required = requiredInstalled(gate, total);
  const summary = `${String(ws.installed)} of ${String(total)} installed (gate: ${String(required)}), ${String(ws.failed)} failed (gate: at most ${String(gate.maxFailures)})`;
  if (ws.failed > gate.maxFailures) return fail(ws, now, `${summary}: too many failures`);
  if (total - ws.failed < required)
    return fail(ws, now, `${summary}: too few sites left to reach the installed percent`);
  const allReleased = ws.released >= total;
  if (allReleased && ws.installed >= required)
    return { ...ws, phase: WavePhase.Passed, finishedAt: now, message: summary };
  if (allReleased && ws.releasedAllAt !== undefined) {
    const deadline = Date.parse(ws.releasedAllAt) + gate.timeoutSeconds * 1000;
    if (nowMs >= deadline) {
      // The sites that kept the gate from passing, with where they are.
      const removed = new Set(wave.removed);
      const waiting: SiteFailure[] = [...ws.failures];
      for (const site of wave.sites) {
        if (waiting.length >= MAX_REPORTED_FAILURES) break;
        const seen = observe(site, removed.has(site));
        if (seen.condition === SiteCondition.Installed || seen.condition === SiteCondition.Removed)
          continue;
        if (seen.condition === SiteCondition.Failed) continue;
        waiting.push({ site, state: seen.state, ...seen.problem });
      }
      return {
        ...fail(ws, now, `${summary}: timed out after ${duration(gate.timeoutSeconds)}`),
        failures: waiting,
      };
    }
  }
  return { ...ws, message: summary };
}

function fail(ws: WaveStatus, now: string, message: string): WaveStatus {
  return { ...ws, phase: WavePhase.Failed, finishedAt: now, message };
}

/** Sites per hour a wave may be released at: the smaller of the rollout's and the wave's. */
function rateOf(spec: RolloutSpec, wave: WaveSpec | undefined): number | undefined {
  const rate = Math.min(spec.pacing?.sitesPerHour ?? Infinity, wave?.sitesPerHour ?? Infinity);
  return rate === Infinity ? undefined : rate;
}

/** The pacing bucket refilled up to now at `perHour`, or undefined without pacing. */
function refill(
  perHour: number | undefined,
  size: number | undefined,
  pacing: PacingStatus | undefined,
  nowMs: number,
): PacingStatus | undefined {
  if (perHour === undefined) return undefined;
  const burst = size ?? Math.max(1, (perHour * BURST_MINUTES) / 60);
  if (pacing === undefined) return { tokens: burst, updatedAt: new Date(nowMs).toISOString() };
  const since = Math.max(0, nowMs - Date.parse(pacing.updatedAt));
  return {
    tokens: Math.min(burst, pacing.tokens + (since * perHour) / 3_600_000),
    updatedAt: new Date(nowMs).toISOString(),
  };
}

/** `2h`, `90m`, `45s`. */
export function duration(seconds: number): string {
  if (seconds % 3600 === 0) return `${String(seconds / 3600)}h`;
  if (seconds % 60 === 0) return `${String(seconds / 60)}m`;
  return `${String(seconds)}s`;
}

/** Sites of a wave that are released, in order. */
export function releasedSites(wave: WaveSpec, ws: WaveStatus | undefined): readonly string[] {
  return wave.sites.slice(0, ws?.released ?? 0);
}
