import { describe, expect, it } from 'vitest';
import { systemRuntimeClock } from '../../src/bmac/runtime/runtime-clock.js';
import type { KubeObject } from '../../src/kube/index.js';
import {
  ApplicationGvk,
  ArgoCdTarget,
  HELD_BACK_ANNOTATION,
  heldBack,
  sitesParameter,
} from '../../src/rollout/argocd-target.js';
import { DEFAULT_GATE } from '../../src/rollout/rollout-resource.js';
import type { Rollout, SyncStrategy, WaveSpec } from '../../src/rollout/rollout-resource.js';
import { createLogger } from '../../src/shared/logger.js';
import { FakeApiServer } from '../fakes/fake-api-server.js';

const log = createLogger({ level: 'silent' });
const TO = 'b'.repeat(40);

function app(
  name: string,
  options: {
    sites?: string[];
    automated?: boolean;
    path?: string;
    annotations?: Record<string, string>;
  } = {},
): KubeObject {
  return {
    ...ApplicationGvk,
    metadata: {
      name,
      namespace: 'argocd',
      ...(options.annotations && { annotations: options.annotations }),
    },
    spec: {
      project: 'sites',
      destination: { server: 'https://kubernetes.default.svc' },
      source: {
        repoURL: 'https://git.example.com/sites.git',
        targetRevision: 'main',
        path: options.path ?? 'clusters',
        plugin: {
          name: 'siteforge-v1',
          parameters: [
            { name: 'strict', string: 'true' },
            ...(options.sites ? [{ name: 'sites', array: options.sites }] : []),
          ],
        },
      },
      syncPolicy: {
        ...(options.automated && { automated: { prune: true, selfHeal: true } }),
        syncOptions: ['PrunePropagationPolicy=background'],
      },
    },
  };
}

function rollout(waves: WaveSpec[], applications: string[], strategy?: SyncStrategy): Rollout {
  return {
    namespace: 'fleet',
    name: 'r1',
    spec: {
      planVersion: 'siteforge.io/v1alpha1/RolloutPlan',
      from: { revision: 'main~1', commit: 'a'.repeat(40) },
      to: { revision: 'main', commit: TO },
      target: {
        mode: 'ArgoCD',
        argocd: { namespace: 'argocd', applications, ...(strategy && { syncStrategy: strategy }) },
      },
      waves,
      paused: false,
      abort: false,
    },
  };
}

function wave(
  name: string,
  sites: string[],
  added: string[] = sites,
  removed: string[] = [],
): WaveSpec {
  return { name, sites, added, removed, gate: DEFAULT_GATE };
}

function clusterDeployment(name: string): KubeObject {
  return {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterDeployment',
    metadata: { name, namespace: name },
    spec: {},
  };
}

function target(api: FakeApiServer): ArgoCdTarget {
  return new ArgoCdTarget({
    client: api,
    clock: systemRuntimeClock,
    log,
    pollIntervalMs: 5,
    syncTimeoutMs: 5_000,
  });
}

/** The Application without its operation, as Argo CD leaves it once it took the operation. */
function withoutOperation(app: KubeObject): KubeObject {
  const copy: Record<string, unknown> = { ...app };
  delete copy['operation'];
  return copy as unknown as KubeObject;
}

const stored = (api: FakeApiServer, name: string): KubeObject =>
  api.peek({ ...ApplicationGvk, namespace: 'argocd', name })!;

describe('Argo CD target', () => {
  it("holds back the new sites not released yet, keeping the user's own patterns", async () => {
    const api = new FakeApiServer().seed(
      app('sites', { automated: true, sites: ['du-*', '!du-lab-*'] }),
      clusterDeployment('du-2'),
    );
    const r = rollout(
      [wave('canary', ['du-1']), wave('w1', ['du-2', 'du-3', 'du-4'], ['du-2', 'du-3', 'du-4'])],
      ['sites'],
    );
    const t = target(api);
    const prepared = await t.prepare(r, new Set(['du-1']));
    expect(prepared.syncStrategy).toBe('Selection');
    // du-2 is on the hub already: excluding it would make Argo CD prune it.
    expect(sitesParameter(stored(api, 'sites'))).toEqual(['du-*', '!du-lab-*', '!du-3', '!du-4']);
    expect(heldBack(stored(api, 'sites'))).toEqual(['du-3', 'du-4']);
    expect(prepared.notes.join('\n')).toContain(
      '1 site(s) the plan adds are on the hub already and are not held back',
    );

    await t.release(r, { wave: 1, sites: ['du-3'], removals: [] });
    expect(sitesParameter(stored(api, 'sites'))).toEqual(['du-*', '!du-lab-*', '!du-4']);
    await t.release(r, { wave: 1, sites: ['du-4'], removals: [] });
    const last = stored(api, 'sites');
    expect(sitesParameter(last)).toEqual(['du-*', '!du-lab-*']);
    expect(last.metadata.annotations?.[HELD_BACK_ANNOTATION]).toBeUndefined();
    // The other parameters are left as they were.
    expect(
      (last['spec'] as { source: { plugin: { parameters: unknown[] } } }).source.plugin
        .parameters[0],
    ).toEqual({
      name: 'strict',
      string: 'true',
    });
  });

  it('keeps sites an earlier rollout held back, and releases those this one deals with', async () => {
    const api = new FakeApiServer().seed(
      app('sites', {
        automated: true,
        sites: ['!old-a', '!old-b'],
        annotations: { [HELD_BACK_ANNOTATION]: '["old-a","old-b"]' },
      }),
    );
    const t = target(api);
    const r = rollout([wave('w1', ['old-b', 'new-1'])], ['sites']);
    await t.prepare(r, new Set());
    expect(sitesParameter(stored(api, 'sites'))).toEqual(['!new-1', '!old-a', '!old-b']);
    await t.release(r, { wave: 0, sites: ['old-b', 'new-1'], removals: [] });
    expect(sitesParameter(stored(api, 'sites'))).toEqual(['!old-a']);
  });

  it('refuses the Operation strategy with Applications that sync automatically', async () => {
    const api = new FakeApiServer().seed(app('sites', { automated: true }));
    await expect(
      target(api).prepare(rollout([wave('w1', ['a'])], ['sites'], 'Operation'), new Set()),
    ).rejects.toThrow('Application(s) sites sync automatically');
  });

  it('syncs each release as an operation limited to its sites, and waits for its outcome', async () => {
    const api = new FakeApiServer().seed(app('sites'));
    const t = target(api);
    const r = rollout([wave('w1', ['s1', 's2'], ['s1'], [])], ['sites']);
    expect((await t.prepare(r, new Set())).syncStrategy).toBe('Operation');
    const ref = { ...ApplicationGvk, namespace: 'argocd', name: 'sites' };
    // Argo CD: runs the operation it finds and records its outcome.
    const argo = setInterval(() => {
      const current = api.peek(ref)!;
      const operation = current['operation'];
      if (operation === undefined) return;
      api.modify(ref, (o) => {
        const rest = withoutOperation(o);
        return {
          ...rest,
          status: {
            operationState: {
              operation,
              phase: 'Succeeded',
              message: 'successfully synced (all tasks run)',
            },
          },
        };
      });
    }, 5);
    try {
      await t.release(r, { wave: 0, sites: ['s1', 's2'], removals: [] });
    } finally {
      clearInterval(argo);
    }
    const state = (
      stored(api, 'sites')['status'] as { operationState: { operation: Record<string, unknown> } }
    ).operationState;
    expect(state.operation).toEqual({
      initiatedBy: { username: 'siteforge-rollout' },
      info: [{ name: 'rollout', value: 'fleet/r1: s1..s2 (2)' }],
      sync: {
        revision: TO,
        prune: true,
        syncOptions: ['PrunePropagationPolicy=background'],
        resources: [
          { group: '', kind: 'Namespace', name: 's1' },
          { group: 'cluster.open-cluster-management.io', kind: 'ManagedCluster', name: 's1' },
          { group: '*', kind: '*', name: '*', namespace: 's1' },
          { group: '', kind: 'Namespace', name: 's2' },
          { group: 'cluster.open-cluster-management.io', kind: 'ManagedCluster', name: 's2' },
          { group: '*', kind: '*', name: '*', namespace: 's2' },
        ],
      },
    });
  });

  it('reports a failed sync with the resources Argo CD names', async () => {
    const api = new FakeApiServer().seed(app('sites'));
    const t = target(api);
    const r = rollout([wave('w1', ['s1'])], ['sites']);
    await t.prepare(r, new Set());
    const ref = { ...ApplicationGvk, namespace: 'argocd', name: 'sites' };
    const argo = setInterval(() => {
      const operation = api.peek(ref)!['operation'];
      if (operation === undefined) return;
      api.modify(ref, (o) => {
        const rest = withoutOperation(o);
        return {
          ...rest,
          status: {
            operationState: {
              operation,
              phase: 'Failed',
              message: 'one or more objects failed to apply',
              syncResult: {
                resources: [
                  {
                    group: 'extensions.hive.openshift.io',
                    kind: 'AgentClusterInstall',
                    namespace: 's1',
                    name: 's1',
                    status: 'SyncFailed',
                    message: 'admission webhook denied the request',
                  },
                ],
              },
            },
          },
        };
      });
    }, 5);
    try {
      await expect(t.release(r, { wave: 0, sites: ['s1'], removals: [] })).rejects.toThrow(
        'ended Failed: one or more objects failed to apply\n  AgentClusterInstall s1/s1: admission webhook denied the request',
      );
    } finally {
      clearInterval(argo);
    }
  });

  it('gives each site the Application of its folder, and refuses a site two Applications render', async () => {
    const api = new FakeApiServer().seed(
      app('east', { path: 'clusters/east' }),
      app('west', { path: 'clusters/west' }),
    );
    const r: Rollout = {
      ...rollout([wave('w1', ['e1', 'w1'])], ['east', 'west']),
    };
    const withSources: Rollout = {
      ...r,
      spec: {
        ...r.spec,
        sources: { e1: { file: 'clusters/east/e1.yaml' }, w1: { file: 'clusters/west/w1.yaml' } },
      },
    };
    const t = target(api);
    await t.prepare(withSources, new Set());
    expect(sitesParameter(stored(api, 'east'))).toEqual(['!e1']);
    expect(sitesParameter(stored(api, 'west'))).toEqual(['!w1']);
    await expect(target(api).prepare(r, new Set())).rejects.toThrow(
      'site e1: rendered by east and west; give each Application its own folder or sites patterns',
    );
  });
});
