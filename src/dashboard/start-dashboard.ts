/**
 * Wires the dashboard into `siteforge controller`: the fleet model is fed from the Manager's
 * own informers (the objects the controllers already list and watch: no second watch of the
 * hub, and a standby replica's warm cache serves it too), Rollouts from an informer of their
 * own once the hub has the Rollout CRD, and the page is served on its own address.
 */
import type { Manager } from '../bmac/runtime/manager.js';
import type { RuntimeClock } from '../bmac/runtime/runtime-clock.js';
import { delay } from '../bmac/runtime/runtime-clock.js';
import { RolloutKind, SiteKind } from '../fleet/index.js';
import { FleetWatcher } from '../fleet/fleet-watcher.js';
import { KubeApiError, KubeApiErrorCode } from '../kube/index.js';
import type { RuntimeKubeClient } from '../kube/index.js';
import type { Logger } from '../shared/logger.js';
import { DashboardServer } from './dashboard-server.js';
import { FleetFeed } from './fleet-feed.js';

/** Options of startDashboard. */
export interface DashboardOptions {
  readonly manager: Manager;
  readonly client: RuntimeKubeClient;
  readonly clock: RuntimeClock;
  readonly log: Logger;
  readonly host: string;
  readonly port: number;
  readonly assetsDir: string;
  /** Namespaces the controller watches (Rollouts are watched in the same). */
  readonly namespaces: readonly string[];
  /** How often to look again for the Rollout CRD when the hub lacks it. @default 60_000 */
  readonly rolloutRetryMs?: number;
}

/** A running dashboard. */
export interface Dashboard {
  readonly url: string;
  readonly feed: FleetFeed;
  stop(): Promise<void>;
}

/**
 * Starts the dashboard. Call before `manager.start()`: the site kinds are observed on the
 * Manager's informers, which take listeners only before they start.
 */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const log = options.log.child({ component: 'dashboard' });
  const feed = new FleetFeed({ clock: options.clock, synced: false });
  for (const gvk of Object.values(SiteKind))
    options.manager.observe(gvk, (event) => {
      feed.apply(event);
    });
  const server = new DashboardServer({
    feed,
    log,
    assetsDir: options.assetsDir,
    host: options.host,
    port: options.port,
  });
  const url = await server.listen();
  const stopping = new AbortController();
  let rollouts: FleetWatcher | undefined;
  const watchRollouts = async (): Promise<void> => {
    let told = false;
    while (!stopping.signal.aborted) {
      try {
        await options.client.namespaced(RolloutKind);
        rollouts = new FleetWatcher({
          client: options.client,
          log,
          kinds: [RolloutKind],
          namespaces: options.namespaces,
          sink: (event) => {
            feed.apply(event);
          },
          clock: options.clock,
        });
        rollouts.start();
        log.info('showing the waves of Rollouts (siteforge.io/v1alpha1)');
        return;
      } catch (error) {
        if (!(error instanceof KubeApiError && error.code === KubeApiErrorCode.KindUnknown))
          log.warn(
            { error: error instanceof Error ? error.message : String(error) },
            'cannot look for the Rollout kind; trying again',
          );
        else if (!told)
          log.info(
            'the hub has no Rollout CRD (siteforge.io/v1alpha1): every site shows under "no wave" until it is installed',
          );
        told = true;
      }
      await delay(options.clock, options.rolloutRetryMs ?? 60_000, stopping.signal);
    }
  };
  const watching = watchRollouts();
  // The page says its counts are partial until the Manager's informers have listed the hub.
  const syncing = (async (): Promise<void> => {
    const synced = (): boolean =>
      options.manager.readiness().synced && options.manager.observersSynced();
    while (!stopping.signal.aborted && !synced()) await delay(options.clock, 500, stopping.signal);
    feed.setSynced(true);
  })();
  return {
    url,
    feed,
    stop: async () => {
      stopping.abort();
      await Promise.all([watching, syncing]);
      rollouts?.stop();
      feed.close();
      await server.close();
    },
  };
}
