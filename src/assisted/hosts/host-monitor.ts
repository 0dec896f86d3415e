/**
 * The host monitor (AS internal/host/monitor.go): every few seconds each host in a monitored
 * status is re-evaluated — connection (HOST_MAX_DISCONNECTION_TIME, bootstrap longer, not
 * after the reboot), validations and the Refresh transition, which also carries the stage
 * timeouts. A round reads only memory and the informers' cache, and a host whose record did not
 * change costs nothing further: only a changed record enqueues its Agent for a write. A round
 * also sends the minor changes the HostService held back (progress info, step results), so
 * those reach the Agent within one interval, in one write however many there were.
 */
import type { RuntimeClock } from '../../bmac/runtime/runtime-clock.js';
import type { Logger } from '../../shared/logger.js';
import type { HostService } from './host-service.js';
import { MONITORED } from './host-statuses.js';

/** How often the monitor runs (upstream's HostMonitoring is driven every few seconds). */
export const HOST_MONITOR_INTERVAL_MS = 10_000;

/**
 * Hosts a scheduled round refreshes before it lets other work run: a round over thousands of
 * hosts in one go held the event loop long enough for agent requests to time out and for the
 * API server to drop the informers' watches as too slow to read.
 */
export const HOST_MONITOR_SLICE = 200;

/** Options of HostMonitor. */
export interface HostMonitorOptions {
  readonly hosts: HostService;
  readonly clock: RuntimeClock;
  readonly log: Logger;
  /** @default HOST_MONITOR_INTERVAL_MS */
  readonly intervalMs?: number;
  /** Monitor only while this says so (leader election). @default always */
  readonly isLeader?: () => boolean;
}

/** What one round did. */
export interface MonitorRound {
  readonly refreshed: number;
  readonly changed: number;
  /** Hosts whose minor changes (progress info, step results) were sent to their Agent. */
  readonly deferred: number;
  readonly durationMs: number;
}

/** Re-evaluates every monitored host periodically. */
export class HostMonitor {
  private cancel: (() => void) | undefined;
  private running = false;

  constructor(private readonly options: HostMonitorOptions) {}

  /** One round over every host, now. */
  runOnce(): MonitorRound {
    const started = this.options.clock.now();
    const now = new Date(started);
    // Hosts whose Agents the Agent controller has not reached yet after a restart.
    this.options.hosts.restoreAll(now);
    let refreshed = 0;
    let changed = 0;
    for (const host of this.options.hosts.all()) {
      if (!MONITORED.has(host.status)) continue;
      refreshed++;
      try {
        if (this.options.hosts.refresh(host.id, now)) changed++;
      } catch (err) {
        this.options.log.error({ host: host.id, err }, 'failed to refresh host');
      }
    }
    const deferred = this.options.hosts.flushDeferred();
    return { refreshed, changed, deferred, durationMs: this.options.clock.now() - started };
  }

  /** Runs a round every interval until stop(). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    this.cancel?.();
    this.cancel = undefined;
  }

  private schedule(): void {
    this.cancel = this.options.clock.setTimer(
      this.options.intervalMs ?? HOST_MONITOR_INTERVAL_MS,
      () => {
        if (!this.running) return;
        if (this.options.isLeader?.() ?? true) this.runSliced();
        else this.schedule();
      },
    );
  }

  /**
   * A round as runOnce's, in slices of HOST_MONITOR_SLICE hosts with other work let in between
   * (the first slice at once); the next round is scheduled when this one ends.
   */
  private runSliced(): void {
    const { clock, hosts } = this.options;
    const started = clock.now();
    hosts.restoreAll(new Date(started));
    const ids = hosts
      .all()
      .filter((host) => MONITORED.has(host.status))
      .map((host) => host.id);
    let next = 0;
    let changed = 0;
    const slice = (): void => {
      if (!this.running) return;
      const now = new Date(clock.now());
      const end = Math.min(next + HOST_MONITOR_SLICE, ids.length);
      for (; next < end; next++) {
        const id = ids[next]!;
        const status = hosts.get(id)?.status;
        if (status === undefined || !MONITORED.has(status)) continue;
        try {
          if (hosts.refresh(id, now)) changed++;
        } catch (err) {
          this.options.log.error({ host: id, err }, 'failed to refresh host');
        }
      }
      if (next < ids.length) {
        setImmediate(slice);
        return;
      }
      const deferred = hosts.flushDeferred();
      if (changed + deferred > 0)
        this.options.log.debug(
          { refreshed: ids.length, changed, deferred, durationMs: clock.now() - started },
          'host monitor round',
        );
      this.schedule();
    };
    slice();
  }
}
