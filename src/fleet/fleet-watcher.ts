/**
 * The edge that feeds a FleetModel from a hub: one informer (list, then watch; restarted after
 * any broken watch) per fleet kind, each change applied to the model, and the model flushed at
 * most every `flushMs` so that a burst of changes (the initial list of 3,500 sites, a wave
 * starting) is derived once per site. `siteforge controller` feeds its dashboard from its own
 * informer cache instead (Manager.observe) and uses this only for Rollouts, which no
 * controller watches.
 */
import type { GroupVersionKind, RuntimeKubeClient } from '../kube/index.js';
import type { Logger } from '../shared/logger.js';
import { ObjectStore } from '../bmac/runtime/cache.js';
import { Informer } from '../bmac/runtime/informer.js';
import { systemRuntimeClock } from '../bmac/runtime/runtime-clock.js';
import type { CancelTimer, RuntimeClock } from '../bmac/runtime/runtime-clock.js';
import { FleetModel } from './fleet-model.js';
import type { FleetEvent } from './fleet-model.js';
import { FLEET_KINDS, RolloutKind } from './kinds.js';

/** Options of FleetWatcher. */
export interface FleetWatcherOptions {
  readonly client: RuntimeKubeClient;
  readonly log: Logger;
  /** The model to feed. @default a new one */
  readonly model?: FleetModel;
  /**
   * Where events go instead of the model (which is then not flushed here): for a feed that
   * applies and flushes on its own schedule.
   */
  readonly sink?: (event: FleetEvent) => void;
  /** The kinds to watch. @default FLEET_KINDS (the site kinds and Rollout) */
  readonly kinds?: readonly GroupVersionKind[];
  /** Watch only these namespaces. @default every namespace */
  readonly namespaces?: readonly string[];
  /** Longest time between a change and the flush that derives it. @default 250 */
  readonly flushMs?: number;
  /** @default the system clock */
  readonly clock?: RuntimeClock;
}

/** Informers of the fleet kinds feeding a FleetModel. */
export class FleetWatcher {
  readonly model: FleetModel;
  private readonly informers: Informer[];
  private readonly clock: RuntimeClock;
  private cancelFlush: CancelTimer | undefined;
  private stopped = false;

  constructor(private readonly options: FleetWatcherOptions) {
    this.model = options.model ?? new FleetModel();
    this.clock = options.clock ?? systemRuntimeClock;
    this.informers = (options.kinds ?? FLEET_KINDS).map((gvk) => {
      const informer = new Informer({
        client: options.client,
        gvk,
        store: new ObjectStore(),
        clock: this.clock,
        log: options.log,
        ...(options.namespaces !== undefined && { namespaces: options.namespaces }),
      });
      informer.on((event) => {
        if (options.sink !== undefined) {
          options.sink(event);
          return;
        }
        this.model.apply(event);
        this.scheduleFlush();
      });
      return informer;
    });
  }

  /** Starts the informers. */
  start(): void {
    for (const informer of this.informers) informer.start();
  }

  /**
   * Resolves once every site kind has been listed and the model flushed (Rollouts are not
   * waited for: a hub without the Rollout CRD still shows its sites).
   */
  async whenSynced(): Promise<void> {
    await Promise.all(
      this.informers
        .filter(
          (i) => !(i.gvk.kind === RolloutKind.kind && i.gvk.apiVersion === RolloutKind.apiVersion),
        )
        .map((i) => i.whenSynced()),
    );
    this.model.flush();
  }

  /** Stops the informers; the model keeps what it has. */
  stop(): void {
    this.stopped = true;
    this.cancelFlush?.();
    for (const informer of this.informers) informer.stop();
  }

  private scheduleFlush(): void {
    if (this.cancelFlush !== undefined || this.stopped) return;
    this.cancelFlush = this.clock.setTimer(this.options.flushMs ?? 250, () => {
      this.cancelFlush = undefined;
      this.model.flush();
    });
  }
}
