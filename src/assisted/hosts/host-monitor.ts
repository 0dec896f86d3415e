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
        if (this.options.isLeader?.() ?? true) {
          const round = this.runOnce();
          if (round.changed + round.deferred > 0)
            this.options.log.debug(round, 'host monitor round');
        }
        this.schedule();
      },
    );
  }
}
