import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ClientNodeKubeClient,
  ClientNodeRuntimeKubeClient,
  KubeApiError,
  KubeApiErrorCode,
  Propagation,
} from '../../src/kube/index.js';
import type { KubeObject, ObjectRef } from '../../src/kube/index.js';
import { ApplicationGvk } from '../../src/rollout/argocd-target.js';
import { CmpSidecar } from './cmp-harness.js';
import type { AppParameter } from './cmp-harness.js';
import { hubKubeconfig } from './hub.js';

type Json = Record<string, unknown>;

/** A resource filter of a sync operation (SyncOperationResource). */
interface ResourceFilter {
  readonly group?: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

/** One sync the stand-in ran, for assertions. */
export interface SyncRecord {
  readonly app: string;
  readonly revision: string;
  readonly automated: boolean;
  /** `Kind namespace/name` of what it applied. */
  readonly applied: readonly string[];
  /** `Kind namespace/name` of what it pruned. */
  readonly pruned: readonly string[];
}

const TRACKING = 'argocd.argoproj.io/tracking-id';

/**
 * Plays Argo CD's application controller on the test hub for Applications of the siteforge
 * plugin, as far as a rollout depends on it: it renders an Application's source at a revision of
 * the test's git repository through the plugin.yaml the image ships (test/support/cmp-harness.ts),
 * syncs automatically (with prune) when `syncPolicy.automated` is set and the revision or the
 * source changed, runs a sync operation found in `operation` (its revision, its `resources`
 * filters with `*` as SyncOperationResource.Compare reads them, prune), and records the outcome
 * in `status.operationState`, `status.sync` and `status.resources`, then clears `operation`.
 * Objects are applied server-side and tracked with Argo CD's annotation tracking id; prune deletes
 * tracked objects the source no longer renders, last sync wave first.
 *
 * Not Argo CD: no health assessment, hooks, retries, diffing or self-heal of drifted fields.
 */
export class ArgoCdStandIn {
  readonly syncs: SyncRecord[] = [];
  /** Errors of the loop (a test fails on them). */
  readonly errors: string[] = [];
  private readonly runtime = ClientNodeRuntimeKubeClient.fromKubeconfig(hubKubeconfig());
  private readonly kube = ClientNodeKubeClient.fromKubeconfig({ kubeconfig: hubKubeconfig() });
  private readonly sidecar = new CmpSidecar();
  private readonly worktrees = new Map<string, string>();
  /** What each Application last synced automatically: revision and source. */
  private readonly synced = new Map<string, string>();
  /** What each Application's status.resources was computed from. */
  private readonly refreshed = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(
    /** The git repository every Application's repoURL stands for. */
    private readonly repo: string,
    private readonly namespace: string,
    /** The Applications it plays the controller of (a real one would own every one). */
    private readonly applications: readonly string[],
  ) {}

  start(): this {
    this.timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      this.pass()
        .catch((err: unknown) => {
          this.errors.push(err instanceof Error ? err.message : String(err));
        })
        .finally(() => {
          this.busy = false;
        });
    }, 300);
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
    this.sidecar.close();
    for (const dir of this.worktrees.values()) {
      spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: this.repo });
      rmSync(dir, { recursive: true, force: true });
    }
  }

  private async pass(): Promise<void> {
    const { items } = await this.runtime.list(ApplicationGvk, { namespace: this.namespace });
    for (const app of items)
      if (this.applications.includes(app.metadata.name)) await this.reconcile(app);
  }

  private async reconcile(app: KubeObject): Promise<void> {
    const name = app.metadata.name;
    const source = (app['spec'] as Json)['source'] as Json;
    const operation = app['operation'] as Json | undefined;
    if (operation !== undefined) {
      const sync = (operation['sync'] ?? {}) as Json;
      const revision = this.resolve(
        typeof sync['revision'] === 'string' ? sync['revision'] : String(source['targetRevision']),
      );
      const filters = Array.isArray(sync['resources'])
        ? (sync['resources'] as ResourceFilter[])
        : undefined;
      await this.sync(app, revision, filters, sync['prune'] === true, operation, false);
      return;
    }
    const automated = ((app['spec'] as Json)['syncPolicy'] as Json | undefined)?.['automated'] as
      Json | undefined;
    const revision = this.resolve(String(source['targetRevision']));
    const key = `${revision} ${JSON.stringify(source)}`;
    if (automated !== undefined && automated['enabled'] !== false) {
      if (this.synced.get(name) === key) return;
      const op = {
        initiatedBy: { username: 'automated-sync', automated: true },
        sync: { revision, prune: automated['prune'] === true },
      };
      if (await this.sync(app, revision, undefined, automated['prune'] === true, op, true))
        this.synced.set(name, key);
      return;
    }
    if (this.refreshed.get(name) === key) return;
    const rendered = this.render(revision, source);
    if (typeof rendered === 'string') return;
    await this.write(app, (status) => ({ ...status, resources: this.resources(name, rendered) }));
    this.refreshed.set(name, key);
  }

  /** One sync; false when the source does not render (recorded as a failed operation). */
  private async sync(
    app: KubeObject,
    revision: string,
    filters: readonly ResourceFilter[] | undefined,
    prune: boolean,
    operation: Json,
    automated: boolean,
  ): Promise<boolean> {
    const name = app.metadata.name;
    const startedAt = new Date().toISOString();
    const rendered = this.render(revision, (app['spec'] as Json)['source'] as Json);
    if (typeof rendered === 'string') {
      await this.write(app, (status) => ({
        ...status,
        operationState: {
          operation,
          phase: 'Error',
          message: rendered,
          startedAt,
          finishedAt: new Date().toISOString(),
        },
      }));
      return false;
    }
    const selected = (o: KubeObject): boolean =>
      filters === undefined || filters.some((f) => matches(f, o));
    const applied: string[] = [];
    const results: Json[] = [];
    for (const object of rendered.filter(selected)) {
      const tracked = {
        ...object,
        metadata: {
          ...object.metadata,
          annotations: { ...object.metadata.annotations, [TRACKING]: trackingId(name, object) },
        },
      };
      await this.kube.apply(tracked, { fieldManager: 'argocd-controller', force: true });
      applied.push(describe(object));
      results.push({ ...identity(object), status: 'Synced', message: 'configured' });
    }
    const pruned: string[] = [];
    if (prune) {
      const wanted = new Set(rendered.map((o) => trackingId(name, o)));
      const stale = (await this.trackedObjects(name)).filter(
        (o) => !wanted.has(o.metadata.annotations?.[TRACKING] ?? '') && selected(o),
      );
      stale.sort((a, b) => wave(b) - wave(a));
      for (const object of stale) {
        await this.kube.delete(refOf(object), { propagation: Propagation.Background });
        pruned.push(describe(object));
        results.push({ ...identity(object), status: 'Pruned', message: 'pruned' });
      }
    }
    this.syncs.push({ app: name, revision, automated, applied, pruned });
    await this.write(app, (status) => ({
      ...status,
      operationState: {
        operation,
        phase: 'Succeeded',
        message: 'successfully synced (all tasks run)',
        syncResult: { revision, resources: results },
        startedAt,
        finishedAt: new Date().toISOString(),
      },
      sync: { revision, status: filters === undefined ? 'Synced' : 'OutOfSync' },
      resources: this.resources(name, rendered),
    }));
    return true;
  }

  /** The objects an Application tracks, of the kinds SiteForge emits. */
  private async trackedObjects(app: string): Promise<KubeObject[]> {
    const kinds = [
      { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost' },
      { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster' },
      { apiVersion: 'agent.open-cluster-management.io/v1', kind: 'KlusterletAddonConfig' },
      { apiVersion: 'extensions.hive.openshift.io/v1beta1', kind: 'AgentClusterInstall' },
      { apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment' },
      { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'InfraEnv' },
      { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'NMStateConfig' },
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { apiVersion: 'v1', kind: 'Secret' },
      { apiVersion: 'v1', kind: 'Namespace' },
    ];
    const found: KubeObject[] = [];
    for (const gvk of kinds)
      for (const o of (await this.runtime.list(gvk)).items)
        if (o.metadata.annotations?.[TRACKING]?.startsWith(`${app}:`)) found.push(o);
    return found;
  }

  /** status.resources: what the source renders, with whether each is on the hub as rendered. */
  private resources(_app: string, rendered: readonly KubeObject[]): Json[] {
    return rendered.map((o) => ({ ...identity(o), version: o.apiVersion.split('/').pop() }));
  }

  /** The Application with a new status, written with its resourceVersion; read again on conflict. */
  private async write(app: KubeObject, change: (status: Json) => Json): Promise<void> {
    let current = app;
    for (let attempt = 0; attempt < 10; attempt++) {
      const next: Json = { ...current, status: change((current['status'] ?? {}) as Json) };
      // The operation this pass ran is done; one written since is kept for the next pass.
      if (JSON.stringify(current['operation']) === JSON.stringify(app['operation']))
        delete next['operation'];
      try {
        await this.runtime.update(next as unknown as KubeObject);
        return;
      } catch (err) {
        if (!(err instanceof KubeApiError && err.code === KubeApiErrorCode.Conflict)) throw err;
        const fresh = await this.runtime.get(refOf(app));
        if (fresh === undefined) return;
        current = fresh;
      }
    }
    throw new Error(`could not write Application ${app.metadata.name}`);
  }

  /** The objects the plugin renders for a source at a revision, or the error Argo CD shows. */
  private render(revision: string, source: Json): KubeObject[] | string {
    const plugin = (source['plugin'] ?? {}) as Json;
    const result = this.sidecar.generate({
      repoDir: this.checkout(revision),
      appPath: typeof source['path'] === 'string' ? source['path'] : '.',
      pluginName: typeof plugin['name'] === 'string' ? plugin['name'] : 'siteforge-v1',
      parameters: (plugin['parameters'] ?? []) as AppParameter[],
    });
    if (result.error !== undefined || result.manifests === undefined)
      return result.error ?? 'no manifests';
    return result.manifests as unknown as KubeObject[];
  }

  private resolve(revision: string): string {
    const done = spawnSync('git', ['rev-parse', '--verify', `${revision}^{commit}`], {
      cwd: this.repo,
      encoding: 'utf8',
    });
    if (done.status !== 0) throw new Error(`unable to resolve '${revision}' to a commit SHA`);
    return done.stdout.trim();
  }

  private checkout(commit: string): string {
    let dir = this.worktrees.get(commit);
    if (dir !== undefined) return dir;
    dir = mkdtempSync(join(tmpdir(), 'argocd-standin-'));
    const done = spawnSync('git', ['worktree', 'add', '--detach', '--quiet', dir, commit], {
      cwd: this.repo,
      encoding: 'utf8',
    });
    if (done.status !== 0) throw new Error(`git worktree add ${commit}: ${done.stderr}`);
    this.worktrees.set(commit, dir);
    return dir;
  }
}

function group(o: KubeObject): string {
  const slash = o.apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : o.apiVersion.slice(0, slash);
}

/** SyncOperationResource.Compare. */
function matches(f: ResourceFilter, o: KubeObject): boolean {
  return (
    (f.group === '*' || (f.group ?? '') === group(o)) &&
    (f.kind === '*' || f.kind === o.kind) &&
    (f.name === '*' || f.name === o.metadata.name) &&
    (f.namespace === '*' ||
      (f.namespace ?? '') === '' ||
      f.namespace === (o.metadata.namespace ?? ''))
  );
}

function identity(o: KubeObject): Json {
  return {
    group: group(o),
    kind: o.kind,
    namespace: o.metadata.namespace ?? '',
    name: o.metadata.name,
  };
}

function trackingId(app: string, o: KubeObject): string {
  return `${app}:${group(o)}/${o.kind}:${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

function describe(o: KubeObject): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}

function wave(o: KubeObject): number {
  const w = Number(o.metadata.annotations?.['argocd.argoproj.io/sync-wave'] ?? 0);
  return Number.isFinite(w) ? w : 0;
}

function refOf(o: KubeObject): ObjectRef {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata.name,
    ...(o.metadata.namespace !== undefined && { namespace: o.metadata.namespace }),
  };
}
