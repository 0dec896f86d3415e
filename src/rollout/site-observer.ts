/**
 * What the hub shows of each site of a rollout, kept current by informers (list, then watch) on
 * the kinds that describe a site: ClusterDeployment, AgentClusterInstall, Agent, BareMetalHost,
 * InfraEnv. A ZTP site (a SiteConfig cluster) lives in the namespace named after its cluster,
 * with a ClusterDeployment and an AgentClusterInstall of that name. Reading the cache costs no
 * request, so the runner may observe thousands of sites every few seconds.
 *
 * A site's state is the fleet status model's (src/fleet), so the runner, the demo and the
 * dashboard agree on what "installed" and "failed" mean and quote the same condition message.
 */
import { Informer } from '../bmac/runtime/informer.js';
import { ObjectStore } from '../bmac/runtime/cache.js';
import type { RuntimeClock } from '../bmac/runtime/runtime-clock.js';
import type { GroupVersionKind, KubeObject, RuntimeKubeClient } from '../kube/index.js';
import type { Logger } from '../shared/logger.js';
import { siteState } from './site-state.js';
import type { SiteObjects } from './site-state.js';
import { SiteCondition } from './progress.js';
import type { SiteObservation } from './progress.js';

/** The kinds the observer watches. */
export const SiteKinds = {
  ClusterDeployment: { apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment' },
  AgentClusterInstall: {
    apiVersion: 'extensions.hive.openshift.io/v1beta1',
    kind: 'AgentClusterInstall',
  },
  Agent: { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'Agent' },
  BareMetalHost: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost' },
  InfraEnv: { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'InfraEnv' },
} as const satisfies Record<string, GroupVersionKind>;

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

/** SiteObserver on informers of the hub. */
export class HubSiteObserver implements SiteObserver {
  private readonly stores = new Map<string, ObjectStore>();
  private readonly informers: Informer[];

  constructor(options: HubSiteObserverOptions) {
    this.informers = Object.values(SiteKinds).map((gvk) => {
      const store = new ObjectStore();
      this.stores.set(gvk.kind, store);
      return new Informer({
        client: options.client,
        gvk,
        store,
        clock: options.clock,
        log: options.log.child({ informer: gvk.kind }),
      });
    });
  }

  async start(): Promise<void> {
    for (const informer of this.informers) informer.start();
    await Promise.all(this.informers.map((i) => i.whenSynced()));
  }

  stop(): void {
    for (const informer of this.informers) informer.stop();
  }

  observe(site: string, removal: boolean): SiteObservation {
    return observeSite(this.objectsOf(site), removal);
  }

  private objectsOf(site: string): SiteObjects {
    const store = (kind: string): ObjectStore => this.stores.get(kind)!;
    const cd = store('ClusterDeployment').get(site, site);
    const aci = store('AgentClusterInstall').get(site, site);
    return {
      namespace: site,
      name: site,
      ...(cd !== undefined && { clusterDeployment: cd }),
      ...(aci !== undefined && { agentClusterInstall: aci }),
      agents: [...store('Agent').values(site)],
      bareMetalHosts: [...store('BareMetalHost').values(site)],
      infraEnvs: [...store('InfraEnv').values(site)],
    };
  }
}

/** The observation of one site from its objects. */
export function observeSite(objects: SiteObjects, removal: boolean): SiteObservation {
  const present =
    objects.clusterDeployment !== undefined || objects.agentClusterInstall !== undefined;
  if (removal)
    return present
      ? { condition: SiteCondition.Removing, state: 'removing', ...problemOfDeletion(objects) }
      : { condition: SiteCondition.Removed, state: 'removed' };
  if (!present) return { condition: SiteCondition.Absent, state: 'absent' };
  const status = siteState(objects);
  const problem = status.problem && {
    object: `${status.problem.source.kind} ${status.problem.source.namespace}/${status.problem.source.name}`,
    ...(status.problem.condition !== undefined && { condition: status.problem.condition }),
    reason: status.problem.reason,
    message: status.problem.message,
  };
  const condition =
    status.state === 'installed'
      ? SiteCondition.Installed
      : status.state === 'failed'
        ? SiteCondition.Failed
        : status.state === 'insufficient'
          ? SiteCondition.Stuck
          : SiteCondition.Progressing;
  return { condition, state: status.state, ...(problem && { problem }) };
}

/** Why a removal is still under way: the finalizers that hold the object. */
function problemOfDeletion(objects: SiteObjects): Pick<SiteObservation, 'problem'> {
  const held: KubeObject | undefined = objects.clusterDeployment ?? objects.agentClusterInstall;
  if (held === undefined) return {};
  const finalizers = held.metadata['finalizers'];
  const deleting = held.metadata['deletionTimestamp'] !== undefined;
  if (!deleting) return {};
  return {
    problem: {
      object: `${held.kind} ${held.metadata.namespace ?? ''}/${held.metadata.name}`,
      message: `being deleted${Array.isArray(finalizers) && finalizers.length > 0 ? `; waiting for finalizers ${finalizers.join(', ')}` : ''}`,
    },
  };
}
