/**
 * What the hub shows of each site of a rollout: the fleet status model (src/fleet, the one the
 * demo and the dashboard read), fed by informers (list, then watch) on the kinds that describe
 * a site. A ZTP site (a SiteConfig cluster) is its ClusterDeployment, named after the cluster
 * in the namespace of that name. Reading the model costs no request, so the runner observes
 * thousands of sites every few seconds, and it calls a site installed or failed exactly when
 * the dashboard does, quoting the same condition message.
 */
import type { RuntimeClock } from '../bmac/runtime/runtime-clock.js';
import { FleetWatcher } from '../fleet/fleet-watcher.js';
import { SiteKind, STUCK_HINT } from '../fleet/index.js';
import type { FleetModel, SiteStatus } from '../fleet/index.js';
import type { RuntimeKubeClient } from '../kube/index.js';
import type { Logger } from '../shared/logger.js';
import { SiteCondition } from './progress.js';
import type { SiteObservation } from './progress.js';

/** Reads sites' observations. */
export interface SiteObserver {
  /** Starts watching; resolves once every kind was listed. */
  start(): Promise<void>;
  stop(): void;
  /** What the hub shows of `site`; `removal` when the rollout deletes it. */
  observe(site: string, removal: boolean): SiteObservation;
}

/** Options of HubSiteObserver. */
export interface HubSiteObserverOptions {
  readonly client: RuntimeKubeClient;
  readonly clock: RuntimeClock;
  readonly log: Logger;
}

/** SiteObserver on a FleetWatcher of the hub. */
export class HubSiteObserver implements SiteObserver {
  private readonly watcher: FleetWatcher;

  constructor(options: HubSiteObserverOptions) {
    this.watcher = new FleetWatcher({
      client: options.client,
      clock: options.clock,
      log: options.log,
      // Rollouts are the runner's own business: it reads its one Rollout fresh every step.
      kinds: Object.values(SiteKind),
    });
  }

  async start(): Promise<void> {
    this.watcher.start();
    await this.watcher.whenSynced();
  }

  stop(): void {
    this.watcher.stop();
  }

  observe(site: string, removal: boolean): SiteObservation {
    return observeSite(this.watcher.model, site, removal);
  }
}

/** The observation of one site in a fleet model (namespace and name = the cluster name). */
export function observeSite(model: FleetModel, site: string, removal: boolean): SiteObservation {
  const status = model.site(`${site}/${site}`);
  if (removal)
    return status === undefined
      ? { condition: SiteCondition.Removed, state: 'removed' }
      : { condition: SiteCondition.Removing, state: 'removing' };
  if (status === undefined) return { condition: SiteCondition.Absent, state: 'absent' };
  return { condition: conditionOf(status), state: status.state, ...problemOf(status) };
}

function conditionOf(status: SiteStatus): SiteCondition {
  switch (status.state) {
    case 'installed':
      return SiteCondition.Installed;
    case 'failed':
      return SiteCondition.Failed;
    case 'insufficient':
      return SiteCondition.Stuck;
    case 'pending':
    case 'booting':
    case 'discovering':
    case 'validating':
    case 'installing':
      return SiteCondition.Progressing;
  }
}

/** The site's problem in the hub's words, else what to look at in its state. */
function problemOf(status: SiteStatus): Pick<SiteObservation, 'problem'> {
  const p = status.problem;
  if (p === undefined) {
    const hint = STUCK_HINT[status.state];
    return hint === '' ? {} : { problem: { hint } };
  }
  return {
    problem: {
      object: `${p.source.kind} ${p.source.namespace}/${p.source.name}`,
      ...(p.condition !== undefined && { condition: p.condition }),
      reason: p.reason,
      message: p.message,
      ...(p.hint !== '' && { hint: p.hint }),
    },
  };
}
