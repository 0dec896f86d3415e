/**
 * The page's copy of the fleet: a snapshot from the server-sent event stream, then updates
 * applied as they come. EventSource reconnects by itself; every reconnection starts with a new
 * snapshot, so nothing is missed while the controller restarts.
 */
import type { FleetTotals, WaveSummary } from '../../fleet/fleet-model.js';
import type { FleetSnapshot, FleetUpdate, SiteRow } from '../api.js';

/** Whether the page hears the controller. */
export type Connection = 'connecting' | 'live' | 'reconnecting';

/** What the page shows. */
export interface FleetView {
  readonly rows: ReadonlyMap<string, SiteRow>;
  readonly totals: FleetTotals | undefined;
  readonly waves: readonly WaveSummary[];
  readonly connection: Connection;
  /** False while the controller is still listing the hub. */
  readonly synced: boolean;
  /** When the last snapshot or update arrived (browser clock). */
  readonly updatedAt: number | undefined;
  /** Bumped on every change, for memoised views. */
  readonly version: number;
}

/** The fleet as the event stream tells it; `subscribe` to re-render. */
export class FleetStore {
  private rows = new Map<string, SiteRow>();
  private view: FleetView = {
    rows: this.rows,
    totals: undefined,
    waves: [],
    connection: 'connecting',
    synced: true,
    updatedAt: undefined,
    version: 0,
  };
  private readonly listeners = new Set<() => void>();
  private source: EventSource | undefined;

  /** Opens the stream at `url`. */
  connect(url: string): void {
    const source = new EventSource(url);
    this.source = source;
    source.addEventListener('snapshot', (event) => {
      const snapshot = JSON.parse((event as MessageEvent<string>).data) as FleetSnapshot;
      this.rows = new Map(snapshot.sites.map((s) => [s.key, s]));
      this.set({
        rows: this.rows,
        totals: snapshot.totals,
        waves: snapshot.waves,
        synced: snapshot.synced,
        connection: 'live',
      });
    });
    source.addEventListener('update', (event) => {
      const update = JSON.parse((event as MessageEvent<string>).data) as FleetUpdate;
      for (const key of update.removed) this.rows.delete(key);
      for (const row of update.changed) this.rows.set(row.key, row);
      this.set({
        rows: this.rows,
        totals: update.totals,
        waves: update.waves,
        synced: update.synced,
      });
    });
    source.addEventListener('open', () => {
      this.set({ connection: 'live' });
    });
    source.addEventListener('error', () => {
      this.set({ connection: 'reconnecting' });
    });
  }

  close(): void {
    this.source?.close();
  }

  get current(): FleetView {
    return this.view;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private set(change: Partial<FleetView>): void {
    this.view = {
      ...this.view,
      ...change,
      updatedAt: change.totals !== undefined ? Date.now() : this.view.updatedAt,
      version: this.view.version + 1,
    };
    for (const listener of this.listeners) listener();
  }
}
