/**
 * Between the informers and the browsers: object changes are applied to a FleetModel as they
 * come; at most every `intervalMs` the model is flushed (each touched site derived once) and
 * one FleetUpdate with the rows of the sites that changed goes to every subscriber. Cost per
 * tick is the sites that changed plus the waves, never the fleet.
 */
import type { RuntimeClock, CancelTimer } from '../bmac/runtime/runtime-clock.js';
import { FleetModel } from '../fleet/index.js';
import type { FleetEvent } from '../fleet/index.js';
import { siteRow } from './api.js';
import type { FleetSnapshot, FleetUpdate, SiteDetail, SiteRow } from './api.js';

/** Options of FleetFeed. */
export interface FleetFeedOptions {
  readonly clock: RuntimeClock;
  /** The model fed. @default a new one */
  readonly model?: FleetModel;
  /** Longest time between a change and the update that shows it. @default 500 */
  readonly intervalMs?: number;
  /**
   * Whether the informers have listed every kind yet; until setSynced(true) the page says its
   * counts are partial. @default true
   */
  readonly synced?: boolean;
}

/** A subscriber's callback. */
export type FleetListener = (update: FleetUpdate) => void;

/** A FleetModel fed by events, with batched updates for subscribers. */
export class FleetFeed {
  readonly model: FleetModel;
  private readonly listeners = new Set<FleetListener>();
  private readonly changed = new Set<string>();
  private readonly removed = new Set<string>();
  private cancelTick: CancelTimer | undefined;
  private closed = false;
  private synced: boolean;
  private syncedChanged = false;

  constructor(private readonly options: FleetFeedOptions) {
    this.model = options.model ?? new FleetModel();
    this.synced = options.synced ?? true;
    this.model.onChange(({ changed, removed, moved }) => {
      for (const s of changed) {
        this.changed.add(s.key);
        this.removed.delete(s.key);
      }
      for (const key of moved) this.changed.add(key);
      for (const key of removed) {
        this.changed.delete(key);
        this.removed.add(key);
      }
    });
  }

  /** Takes one object change; subscribers hear of it at the next tick. */
  apply(event: FleetEvent): void {
    this.model.apply(event);
    this.schedule();
  }

  /** Tells the page whether the fleet is whole (every kind listed) at the next tick. */
  setSynced(synced: boolean): void {
    if (synced === this.synced) return;
    this.synced = synced;
    this.syncedChanged = true;
    this.schedule();
  }

  /** Every site as a row, with totals and waves (flushes first). */
  snapshot(): FleetSnapshot {
    this.tick();
    const sites: SiteRow[] = [];
    for (const status of this.model.sites())
      sites.push(siteRow(status, this.model.placement(status.key)));
    sites.sort((a, b) => a.key.localeCompare(b.key));
    return {
      synced: this.synced,
      totals: this.model.totals(),
      waves: this.model.waves(),
      sites,
    };
  }

  /** One site in full, if it exists (flushes first). */
  site(key: string): SiteDetail | undefined {
    this.tick();
    const status = this.model.site(key);
    if (status === undefined) return undefined;
    const wave = this.model.placement(key);
    return { status, ...(wave !== undefined && { wave }) };
  }

  /** Calls `listener` with every update from now on. @returns a function that unsubscribes */
  subscribe(listener: FleetListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Stops the ticks; subscribers hear nothing more. */
  close(): void {
    this.closed = true;
    this.cancelTick?.();
    this.listeners.clear();
  }

  private schedule(): void {
    if (this.cancelTick !== undefined || this.closed) return;
    this.cancelTick = this.options.clock.setTimer(this.options.intervalMs ?? 500, () => {
      this.cancelTick = undefined;
      this.tick();
    });
  }

  /** Flushes the model and tells subscribers what changed. */
  private tick(): void {
    this.model.flush();
    if (this.changed.size === 0 && this.removed.size === 0 && !this.syncedChanged) return;
    this.syncedChanged = false;
    const changed: SiteRow[] = [];
    for (const key of this.changed) {
      const status = this.model.site(key);
      if (status !== undefined) changed.push(siteRow(status, this.model.placement(key)));
    }
    const update: FleetUpdate = {
      synced: this.synced,
      totals: this.model.totals(),
      waves: this.model.waves(),
      changed,
      removed: [...this.removed],
    };
    this.changed.clear();
    this.removed.clear();
    for (const listener of this.listeners) {
      try {
        listener(update);
      } catch {
        // A subscriber's failure (a closed socket) is its own; the others still hear.
      }
    }
  }
}
