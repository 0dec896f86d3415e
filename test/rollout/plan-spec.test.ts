import { describe, expect, it } from 'vitest';
import { specFromPlan } from '../../src/rollout/plan-spec.js';

const target = {
  mode: 'ArgoCD',
  argocd: { namespace: 'argocd', applications: ['sites'] },
} as const;

/** A plan as siteforge rollout plan --json writes it. */
function plan(extra: Record<string, unknown> = {}) {
  const site = (name: string, change: string, wave: string | null, held: unknown = null) => ({
    name,
    site: `site-${name}`,
    change,
    impact: 'safe',
    wave,
    held,
    labels: {},
    file: `clusters/${name}.yaml`,
    objects: [],
    findings: [],
  });
  return {
    apiVersion: 'siteforge.io/v1alpha1',
    kind: 'RolloutPlan',
    from: { revision: 'main~3', commit: 'a'.repeat(40) },
    to: { revision: 'main', commit: 'b'.repeat(40) },
    path: 'clusters',
    policy: 'clusters/rollout-policy.yaml',
    includeDangerous: false,
    summary: {},
    waves: [
      {
        name: 'canary',
        type: 'canary',
        action: 'apply',
        sites: ['new-1', 'old-1'],
        gate: { minSucceededPercent: 100, maxFailures: 0, timeoutSeconds: 5400 },
        pacing: { sitesPerHour: 500, maxInFlight: 2 },
        releaseSeconds: 14,
      },
      {
        name: 'removal-1',
        type: 'removal',
        action: 'remove',
        sites: ['gone-1'],
        gate: { minSucceededPercent: 100, maxFailures: 0, timeoutSeconds: 1800 },
        pacing: { sitesPerHour: 100, maxInFlight: 10 },
        releaseSeconds: 36,
      },
    ],
    sites: [
      site('gone-1', 'removed', 'removal-1'),
      site('held-1', 'changed', null, {
        reason: 'REJECTED',
        message: 'spec.apiVIPs cannot change',
      }),
      site('new-1', 'added', 'canary'),
      site('old-1', 'changed', 'canary'),
    ],
    warnings: [],
    ...extra,
  };
}

describe('a rollout plan as a Rollout spec', () => {
  it('keeps the waves, their gates and pacing, and which sites are added and removed', () => {
    const { spec, notes } = specFromPlan('plan.json', plan(), target);
    expect(spec.waves).toEqual([
      {
        name: 'canary',
        sites: ['new-1', 'old-1'],
        added: ['new-1'],
        removed: [],
        gate: { minSucceededPercent: 100, maxFailures: 0, timeoutSeconds: 5400 },
        maxInFlight: 2,
        sitesPerHour: 500,
      },
      {
        name: 'removal-1',
        sites: ['gone-1'],
        added: [],
        removed: ['gone-1'],
        gate: { minSucceededPercent: 100, maxFailures: 0, timeoutSeconds: 1800 },
        maxInFlight: 10,
        sitesPerHour: 100,
      },
    ]);
    expect(spec.from.commit).toBe('a'.repeat(40));
    // Held sites stay out of the rollout; the sources of the others tell Argo CD apps apart.
    expect(notes.held).toEqual([{ name: 'held-1', message: 'spec.apiVIPs cannot change' }]);
    expect(Object.keys(spec.sources ?? {}).sort()).toEqual(['gone-1', 'new-1', 'old-1']);
    expect(spec.sources?.['new-1']).toEqual({
      siteConfig: 'site-new-1',
      file: 'clusters/new-1.yaml',
    });
  });

  it('refuses what is not a plan, and says where a plan is wrong', () => {
    expect(() => specFromPlan('x.json', { waves: [] }, target)).toThrow(
      'expected a RolloutPlan of siteforge.io/v1alpha1',
    );
    const bad = plan({
      waves: [
        { name: 'Canary!', action: 'apply', sites: ['a'], gate: { maxFailures: -1 }, pacing: {} },
      ],
    });
    expect(() => specFromPlan('plan.json', bad, target)).toThrow(
      [
        'plan.json: not a usable rollout plan:',
        '  spec.waves[0].name: "Canary!" is not a valid name',
        '  spec.waves[0].gate.maxFailures: expected a whole number from 0',
      ].join('\n'),
    );
  });
});
