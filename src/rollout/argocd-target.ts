/**
 * The rollout target for hubs where Argo CD syncs the fleet: Applications that render sites
 * with the siteforge plugin (docs/argocd.md). Two levers, and one rule.
 *
 * - **Hold back** new sites: the plugin's `sites` parameter gets a `!NAME` exclusion for every
 *   site the plan adds that is not released yet, and loses it when the site's wave releases it.
 *   The runner's exclusions are listed in the annotation `rollout.siteforge.io/held-back`, so
 *   they are told apart from the user's own patterns, and a later rollout can release sites that
 *   an aborted one held back.
 * - **Sync per wave** (strategy Operation, for Applications without automated sync): each
 *   release starts a sync operation limited to the resources of its sites (their namespace, their
 *   Namespace and ManagedCluster), at the plan's target commit, with prune, and waits for it. So
 *   changes and removals of sites Argo CD already renders reach the hub in their wave too. With
 *   automated sync (strategy Selection) only additions can be gated: Argo CD syncs every change
 *   of a rendered site at its next sync, whatever the waves say.
 * - **The rule**: the selection never loses a site that is on the hub. A site is held back only
 *   if its ClusterDeployment does not exist, since an Application whose selection drops a site
 *   makes Argo CD prune (deprovision) it. Removals happen only through the plan: the site is
 *   gone from git, and its wave's sync operation (with prune) deletes it.
 *
 * Argo CD's Application has no status subresource: every write is a PUT of the whole object
 * with the resourceVersion read, retried on conflict with the controller's own writes.
 */
import type { KubeObject, RuntimeKubeClient } from '../kube/index.js';
import { objectName } from '../kube/index.js';
import { siteSelection } from '../plugins/argocd/parameters.js';
import { SiteForgeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { delay } from '../bmac/runtime/runtime-clock.js';
import type { RuntimeClock } from '../bmac/runtime/runtime-clock.js';
import type { Rollout } from './rollout-resource.js';
import { SyncStrategy } from './rollout-resource.js';
import { isConflict } from './rollout-store.js';
import type { Preparation, Release, RolloutTarget } from './target.js';

/** Group, version and kind of Argo CD's Application. */
export const ApplicationGvk = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application' } as const;

/** The runner's held-back sites of an Application, as a JSON list of cluster names. */
export const HELD_BACK_ANNOTATION = 'rollout.siteforge.io/held-back';

/** The plugin parameter the selection lives in. */
const SITES_PARAMETER = 'sites';

/** Applications that render with this plugin name prefix are the fleet's. */
const PLUGIN_PREFIX = 'siteforge';

/** The user Argo CD records as having started the runner's sync operations. */
export const SYNC_INITIATOR = 'siteforge-rollout';

/** Sites per sync operation: three resource filters each, well inside an Application's size. */
export const SITES_PER_OPERATION = 200;

const CLUSTER_DEPLOYMENT = { apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment' };

/** The Applications cannot carry out the plan, or a sync failed. */
export class RolloutArgoCdError extends SiteForgeError {
  constructor(message: string) {
    super('ROLLOUT_ARGOCD', message);
  }
}

/** Options of ArgoCdTarget. */
export interface ArgoCdTargetOptions {
  readonly client: RuntimeKubeClient;
  readonly clock: RuntimeClock;
  readonly log: Logger;
  /** How long one sync operation may take. @default 600_000 */
  readonly syncTimeoutMs?: number;
  /** How often a sync operation is polled. @default 2_000 */
  readonly pollIntervalMs?: number;
}

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `object[a][b]...` or undefined. */
function at(object: unknown, ...path: string[]): unknown {
  let v = object;
  for (const key of path) v = isMap(v) ? v[key] : undefined;
  return v;
}

/** An Application's `sites` patterns (array or string form, as the plugin reads them). */
export function sitesParameter(app: KubeObject): string[] {
  const params = at(app, 'spec', 'source', 'plugin', 'parameters');
  if (!Array.isArray(params)) return [];
  const param = params.find((p) => isMap(p) && p['name'] === SITES_PARAMETER) as Json | undefined;
  if (!param) return [];
  if (Array.isArray(param['array']))
    return param['array'].filter((x): x is string => typeof x === 'string');
  if (typeof param['string'] === 'string')
    return param['string'].split(/[\s,]+/).filter((x) => x !== '');
  return [];
}

/** The runner's held-back sites recorded on an Application. */
export function heldBack(app: KubeObject): string[] {
  const text = app.metadata.annotations?.[HELD_BACK_ANNOTATION];
  if (text === undefined) return [];
  try {
    const list: unknown = JSON.parse(text);
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** The user's own patterns: the selection without the runner's exclusions. */
function ownPatterns(app: KubeObject): string[] {
  const held = new Set(heldBack(app).map((s) => `!${s}`));
  return sitesParameter(app).filter((p) => !held.has(p));
}

/** The Application with its selection set to the user's patterns plus `held` exclusions. */
function withHeld(app: KubeObject, held: readonly string[]): KubeObject {
  const sorted = [...new Set(held)].sort();
  const patterns = [...ownPatterns(app), ...sorted.map((s) => `!${s}`)];
  const spec = (app['spec'] ?? {}) as Json;
  const source = (spec['source'] ?? {}) as Json;
  const plugin = (source['plugin'] ?? {}) as Json;
  const params = (Array.isArray(plugin['parameters']) ? plugin['parameters'] : []) as Json[];
  const others = params.filter((p) => p['name'] !== SITES_PARAMETER);
  const annotations = Object.fromEntries(
    Object.entries(app.metadata.annotations ?? {}).filter(([k]) => k !== HELD_BACK_ANNOTATION),
  );
  if (sorted.length > 0) annotations[HELD_BACK_ANNOTATION] = JSON.stringify(sorted);
  return {
    ...app,
    metadata: { ...app.metadata, annotations },
    spec: {
      ...spec,
      source: {
        ...source,
        plugin: {
          ...plugin,
          parameters:
            patterns.length > 0 ? [...others, { name: SITES_PARAMETER, array: patterns }] : others,
        },
      },
    },
  };
}

function automated(app: KubeObject): boolean {
  const policy = at(app, 'spec', 'syncPolicy', 'automated');
  // Argo CD 3.x may keep the block and switch it off with `enabled: false`.
  return isMap(policy) && policy['enabled'] !== false;
}

/** RolloutTarget through Argo CD Applications. */
export class ArgoCdTarget implements RolloutTarget {
  /** Application of each site of the rollout, decided in prepare. */
  private readonly appOf = new Map<string, string>();
  private strategy: SyncStrategy = SyncStrategy.Operation;
  private added = new Set<string>();

  constructor(private readonly options: ArgoCdTargetOptions) {}

  /** Names of the Applications of a namespace that render with the siteforge plugin. */
  static async fleetApplications(client: RuntimeKubeClient, namespace: string): Promise<string[]> {
    const { items } = await client.list(ApplicationGvk, { namespace });
    return items
      .filter((app) => {
        const name = at(app, 'spec', 'source', 'plugin', 'name');
        return typeof name === 'string' && name.startsWith(PLUGIN_PREFIX);
      })
      .map((app) => app.metadata.name)
      .sort();
  }

  async prepare(rollout: Rollout, released: ReadonlySet<string>): Promise<Preparation> {
    const argocd = rollout.spec.target.argocd;
    if (!argocd) throw new RolloutArgoCdError('the rollout has no Argo CD target');
    const apps = await Promise.all(
      argocd.applications.map((name) => this.application(argocd.namespace, name)),
    );
    const auto = apps.filter(automated).map((a) => a.metadata.name);
    this.strategy =
      argocd.syncStrategy ?? (auto.length > 0 ? SyncStrategy.Selection : SyncStrategy.Operation);
    if (this.strategy === SyncStrategy.Operation && auto.length > 0)
      throw new RolloutArgoCdError(
        `Application(s) ${auto.join(', ')} sync automatically, so every change of a site they render reaches the hub at the next sync, whatever its wave; for the Operation strategy turn automated sync off for the rollout (argocd app set NAME --sync-policy none), or run with --sync-strategy selection (only additions are gated)`,
      );

    const notes: string[] = [];
    const sites = rollout.spec.waves.flatMap((w) => w.sites);
    this.added = new Set(rollout.spec.waves.flatMap((w) => w.added));
    this.assign(rollout, apps, argocd.namespace);

    // Hold back every added site not released yet, unless it is on the hub already.
    const deployed: string[] = [];
    const held = new Map<string, string[]>(apps.map((a) => [a.metadata.name, []]));
    for (const site of sites) {
      if (!this.added.has(site) || released.has(site)) continue;
      if (await this.onHub(site)) {
        deployed.push(site);
        continue;
      }
      held.get(this.appOf.get(site)!)!.push(site);
    }
    if (deployed.length > 0)
      notes.push(
        `${String(deployed.length)} site(s) the plan adds are on the hub already and are not held back (synced before the rollout started; start the runner before Argo CD sees the commit): ${preview(deployed)}`,
      );
    const rolloutSites = new Set(sites);
    for (const app of apps) {
      // Sites an earlier rollout held back stay held unless this rollout deals with them.
      const earlier = heldBack(app).filter((s) => !rolloutSites.has(s));
      await this.updateApplication(argocd.namespace, app.metadata.name, (current) =>
        withHeld(current, [...earlier, ...held.get(app.metadata.name)!]),
      );
    }
    if (this.strategy === SyncStrategy.Selection) {
      const ungated = sites.filter((s) => !this.added.has(s));
      if (ungated.length > 0)
        notes.push(
          `automated sync: ${String(ungated.length)} changed or removed site(s) reach the hub at Argo CD's next sync, not in their wave (their gates only watch them): ${preview(ungated)}`,
        );
    }
    return { syncStrategy: this.strategy, notes };
  }

  async release(rollout: Rollout, release: Release): Promise<void> {
    const namespace = rollout.spec.target.argocd!.namespace;
    const sites = [...release.sites, ...release.removals];
    const byApp = new Map<string, string[]>();
    for (const site of sites) {
      const app = this.appOf.get(site);
      if (app === undefined)
        throw new RolloutArgoCdError(`site ${site} has no Application (internal)`);
      byApp.set(app, [...(byApp.get(app) ?? []), site]);
    }
    for (const [app, appSites] of byApp) {
      const freed = new Set(appSites.filter((s) => this.added.has(s)));
      if (freed.size > 0)
        await this.updateApplication(namespace, app, (current) =>
          withHeld(
            current,
            heldBack(current).filter((s) => !freed.has(s)),
          ),
        );
      if (this.strategy !== SyncStrategy.Operation) continue;
      for (let i = 0; i < appSites.length; i += SITES_PER_OPERATION)
        await this.sync(rollout, namespace, app, appSites.slice(i, i + SITES_PER_OPERATION));
    }
  }

  /**
   * Decides the Application of every site: the one whose status lists resources in the site's
   * namespace (a site Argo CD renders now), else the one whose folder holds the site's file and
   * whose own patterns select its cluster or SiteConfig name.
   */
  private assign(rollout: Rollout, apps: readonly KubeObject[], namespace: string): void {
    const rendered = new Map<string, string>();
    for (const app of apps)
      for (const r of (at(app, 'status', 'resources') ?? []) as unknown[])
        if (isMap(r) && typeof r['namespace'] === 'string')
          rendered.set(r['namespace'], app.metadata.name);
    const candidates = apps.map((app) => {
      const path = text(at(app, 'spec', 'source', 'path')).replace(/^\.?\/+|\/+$/g, '');
      return { name: app.metadata.name, path, selection: siteSelection(ownPatterns(app)) };
    });
    const problems: string[] = [];
    for (const site of rollout.spec.waves.flatMap((w) => w.sites)) {
      const known = rendered.get(site);
      if (known !== undefined) {
        this.appOf.set(site, known);
        continue;
      }
      const source = rollout.spec.sources?.[site];
      const file = source?.file;
      const found = candidates
        .filter((c) => file === undefined || c.path === '' || file.startsWith(`${c.path}/`))
        .filter((c) => c.selection.select(site, source?.siteConfig ?? site))
        .map((c) => c.name);
      if (found.length === 1) this.appOf.set(site, found[0]!);
      else if (found.length === 0)
        problems.push(
          `site ${site}${file === undefined ? '' : ` (${file})`}: no Application renders it (none has its folder, or their sites patterns exclude it)`,
        );
      else
        problems.push(
          `site ${site}: rendered by ${found.join(' and ')}; give each Application its own folder or sites patterns`,
        );
    }
    if (problems.length > 0)
      throw new RolloutArgoCdError(
        `the Applications in ${namespace} cannot carry out the plan:\n${problems
          .slice(0, 20)
          .map((p) => `  ${p}`)
          .join(
            '\n',
          )}${problems.length > 20 ? `\n  and ${String(problems.length - 20)} more` : ''}`,
      );
  }

  /** Starts a sync operation limited to the sites' resources and waits for its outcome. */
  private async sync(
    rollout: Rollout,
    namespace: string,
    name: string,
    sites: readonly string[],
  ): Promise<void> {
    const { clock } = this.options;
    const marker = `${rollout.namespace}/${rollout.name}: ${sites[0]!}..${sites[sites.length - 1]!} (${String(sites.length)})`;
    const deadline = clock.now() + (this.options.syncTimeoutMs ?? 600_000);
    const poll = this.options.pollIntervalMs ?? 2_000;
    let started = false;
    for (;;) {
      const app = await this.application(namespace, name);
      const state = at(app, 'status', 'operationState');
      const phase = at(state, 'phase');
      const ours = isOurs(at(state, 'operation'), marker);
      const busy = app['operation'] !== undefined || phase === 'Running' || phase === 'Terminating';
      if (started && ours && !busy) {
        if (phase === 'Succeeded') return;
        throw new RolloutArgoCdError(
          `the sync of ${objectName(app)} for ${String(sites.length)} site(s) (${preview(sites)}) ended ${text(phase)}: ${text(at(state, 'message'))}${failedResources(state)}`,
        );
      }
      if (!started && !busy) {
        try {
          await this.options.client.update({
            ...app,
            operation: operation(rollout, app, sites, marker),
          });
          started = true;
          this.options.log.info(
            { application: name, sites: sites.length },
            'started a sync operation',
          );
        } catch (err) {
          if (!isConflict(err)) throw err;
          continue;
        }
      } else if (!started && ours) started = true; // a runner before this one started it
      if (clock.now() >= deadline)
        throw new RolloutArgoCdError(
          `the sync of Application ${namespace}/${name} for ${String(sites.length)} site(s) did not finish in ${String(Math.round((this.options.syncTimeoutMs ?? 600_000) / 1000))} s${busy && !started ? ' (another operation kept it busy)' : ''}`,
        );
      await delay(clock, poll);
    }
  }

  /** Whether the site's ClusterDeployment exists on the hub. */
  private async onHub(site: string): Promise<boolean> {
    return (
      (await this.options.client.get({ ...CLUSTER_DEPLOYMENT, namespace: site, name: site })) !==
      undefined
    );
  }

  private async application(namespace: string, name: string): Promise<KubeObject> {
    const app = await this.options.client.get({ ...ApplicationGvk, namespace, name });
    if (app === undefined)
      throw new RolloutArgoCdError(`there is no Application ${namespace}/${name}`);
    const plugin = at(app, 'spec', 'source', 'plugin', 'name');
    if (
      at(app, 'spec', 'sources') !== undefined ||
      typeof plugin !== 'string' ||
      !plugin.startsWith(PLUGIN_PREFIX)
    )
      throw new RolloutArgoCdError(
        `Application ${namespace}/${name} does not render with the siteforge plugin (spec.source.plugin.name siteforge-v1); a rollout drives only those`,
      );
    return app;
  }

  /** Read, change, write with the resourceVersion read; again on conflict. */
  private async updateApplication(
    namespace: string,
    name: string,
    change: (app: KubeObject) => KubeObject,
  ): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const app = await this.application(namespace, name);
      const next = change(app);
      if (JSON.stringify(next) === JSON.stringify(app)) return;
      try {
        await this.options.client.update(next);
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= 20) throw err;
      }
    }
  }
}

/** The sync operation of a release: the sites' resources, at the plan's commit, with prune. */
function operation(
  rollout: Rollout,
  app: KubeObject,
  sites: readonly string[],
  marker: string,
): Json {
  const syncOptions = at(app, 'spec', 'syncPolicy', 'syncOptions');
  return {
    initiatedBy: { username: SYNC_INITIATOR },
    info: [{ name: 'rollout', value: marker }],
    sync: {
      revision: rollout.spec.to.commit,
      prune: true,
      ...(Array.isArray(syncOptions) && { syncOptions }),
      resources: sites.flatMap((site) => [
        { group: '', kind: 'Namespace', name: site },
        { group: 'cluster.open-cluster-management.io', kind: 'ManagedCluster', name: site },
        { group: '*', kind: '*', name: '*', namespace: site },
      ]),
    },
  };
}

function isOurs(operation: unknown, marker: string): boolean {
  const info = at(operation, 'info');
  return (
    Array.isArray(info) &&
    info.some((i) => isMap(i) && i['name'] === 'rollout' && i['value'] === marker)
  );
}

/** The resources a failed sync names, with their messages. */
function failedResources(state: unknown): string {
  const resources = at(state, 'syncResult', 'resources');
  if (!Array.isArray(resources)) return '';
  const failed = resources
    .filter((r) => isMap(r) && r['status'] === 'SyncFailed')
    .slice(0, 10) as Json[];
  return failed
    .map((r) => {
      const ns = text(r['namespace']);
      return `\n  ${text(r['kind'])} ${ns ? `${ns}/` : ''}${text(r['name'])}: ${text(r['message'])}`;
    })
    .join('');
}

/** A string field as text ('' for anything else). */
function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function preview(sites: readonly string[]): string {
  return sites.length <= 10
    ? sites.join(', ')
    : `${sites.slice(0, 10).join(', ')} and ${String(sites.length - 10)} more`;
}
