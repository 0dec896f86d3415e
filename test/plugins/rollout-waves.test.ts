import { describe, expect, it } from 'vitest';
import { planRollout, selects } from '../../src/plugins/rollout/plan.js';
import type { PlanInput } from '../../src/plugins/rollout/plan.js';
import { parseRolloutPolicy } from '../../src/plugins/rollout/policy.js';
import type { SiteChange } from '../../src/plugins/rollout/revision-changes.js';
import type { Finding } from '../../src/siteconfig/index.js';

function change(
  cluster: string,
  labels: Record<string, string> = {},
  more: Partial<SiteChange> = {},
): SiteChange {
  return {
    cluster,
    site: `site-${cluster}`,
    change: 'added',
    impact: 'safe',
    findings: [],
    labels,
    file: `sites/${cluster}.yaml`,
    objects: { added: 9, removed: 0, changed: 0 },
    ...more,
  };
}

function input(sites: SiteChange[], more: Partial<PlanInput> = {}): PlanInput {
  return {
    from: { revision: 'a', commit: 'a'.repeat(40) },
    to: { revision: 'b', commit: 'b'.repeat(40) },
    path: 'sites',
    sites: [...sites].sort((x, y) => (x.cluster < y.cluster ? -1 : 1)),
    fleetSize: 1000,
    includeDangerous: false,
    ...more,
  };
}

const policy = (spec: string) =>
  parseRolloutPolicy(
    'p.yaml',
    `apiVersion: siteforge.io/v1alpha1\nkind: RolloutPolicy\nspec:\n${spec}`,
  );

const danger = (
  cluster: string,
  code: string,
  impact: Finding['impact'],
  renamedTo?: string,
): Finding => ({
  cluster,
  code,
  impact,
  message: code,
  hint: 'h',
  ...(renamedTo ? { renamedTo } : {}),
});

describe('rollout waves', () => {
  it('groups by label values in the given order, sites without the label last, each split evenly', () => {
    const sites = [
      ...Array.from({ length: 7 }, (_, i) => change(`e${String(i)}`, { region: 'east' })),
      ...Array.from({ length: 3 }, (_, i) => change(`w${String(i)}`, { region: 'west' })),
      change('n0'),
      change('s0', { region: 'South_Pole.1'.toLowerCase() }),
    ];
    const plan = planRollout(
      input(sites),
      policy(
        '  maxSitesPerWave: 3\n  waves:\n    - name: r\n      groupBy: [region]\n      order: [west]\n',
      ),
    );
    expect(plan.waves.map((w) => [w.name, w.sites])).toEqual([
      ['r-west', ['w0', 'w1', 'w2']],
      ['r-east-1', ['e0', 'e1', 'e2']],
      ['r-east-2', ['e3', 'e4']],
      ['r-east-3', ['e5', 'e6']],
      ['r-south-pole-1', ['s0']],
      ['r-none', ['n0']],
    ]);
    expect(plan.summary).toMatchObject({ planned: 12, held: 0, waves: 6 });
    // The same input gives the same plan.
    expect(
      JSON.stringify(
        planRollout(
          input(sites),
          policy(
            '  maxSitesPerWave: 3\n  waves:\n    - name: r\n      groupBy: [region]\n      order: [west]\n',
          ),
        ),
      ),
    ).toBe(JSON.stringify(plan));
  });

  it('takes canaries by name or label up to maxSites, then the first wave rule that selects a site; holds the rest', () => {
    const sites = [
      change('lab-1', { canary: 'true' }),
      change('lab-2', { canary: 'true' }),
      change('lab-3', { canary: 'true' }),
      change('du-1', { tier: 'gold' }),
      change('du-2', { tier: 'silver' }),
      change('cu-1'),
    ];
    const plan = planRollout(
      input(sites),
      policy(`  canary:
    sites: [du-2]
    selector: {matchLabels: {canary: "true"}}
    maxSites: 2
  waves:
    - name: gold
      selector: {matchExpressions: [{key: tier, operator: In, values: [gold]}]}
    - name: labs
      sites: ['lab-*']
`),
    );
    expect(plan.waves.map((w) => [w.name, w.type, w.sites])).toEqual([
      ['canary', 'canary', ['du-2', 'lab-1']],
      ['gold', 'rollout', ['du-1']],
      ['labs', 'rollout', ['lab-2', 'lab-3']],
    ]);
    const cu = plan.sites.find((s) => s.name === 'cu-1')!;
    expect(cu).toMatchObject({ wave: null, held: { reason: 'UNSELECTED' } });
    expect(plan.summary.held).toBe(1);
  });

  it('holds rejected always and dangerous unless included, and keeps a rename whole', () => {
    const sites = [
      change(
        'vip',
        {},
        {
          change: 'changed',
          impact: 'rejected',
          findings: [danger('vip', 'IMMUTABLE_FIELD_CHANGED', 'rejected')],
        },
      ),
      change(
        'host',
        {},
        {
          change: 'changed',
          impact: 'dangerous',
          findings: [danger('host', 'HOST_RENAMED', 'dangerous')],
        },
      ),
      change(
        'old',
        {},
        {
          change: 'removed',
          impact: 'dangerous',
          findings: [danger('old', 'CLUSTER_RENAMED', 'dangerous', 'new')],
        },
      ),
      change('new'),
      change(
        'ok',
        {},
        {
          change: 'changed',
          impact: 'reinstall',
          findings: [danger('ok', 'INSTALL_TIME_ONLY', 'reinstall')],
        },
      ),
    ];
    const held = planRollout(input(sites), policy('  {}\n'));
    const reasons = Object.fromEntries(held.sites.map((s) => [s.name, s.held?.reason ?? s.wave]));
    expect(reasons).toEqual({
      vip: 'REJECTED',
      host: 'DANGEROUS',
      old: 'DANGEROUS',
      new: 'DANGEROUS',
      ok: 'sites',
    });
    const included = planRollout(input(sites, { includeDangerous: true }), policy('  {}\n'));
    expect(included.waves.map((w) => [w.name, w.action, w.sites])).toEqual([
      ['sites', 'apply', ['host', 'ok']],
      ['removals', 'remove', ['old']],
      ['renamed', 'apply', ['new']],
    ]);
    expect(included.sites.find((s) => s.name === 'vip')!.held!.reason).toBe('REJECTED');
    // When removals are held, a rename is held as a whole.
    const noRemovals = planRollout(
      input(sites, { includeDangerous: true }),
      policy('  removals: {placement: hold}\n'),
    );
    expect(
      noRemovals.sites.filter((s) => s.held?.reason === 'REMOVAL_HELD').map((s) => s.name),
    ).toEqual(['new', 'old']);
  });

  it('paces each wave: release time from the sites per hour', () => {
    const sites = Array.from({ length: 50 }, (_, i) => change(`s${String(i).padStart(2, '0')}`));
    const plan = planRollout(
      input(sites),
      policy('  pacing: {sitesPerHour: 40, maxInFlight: 10}\n'),
    );
    expect(plan.waves).toHaveLength(1);
    expect(plan.waves[0]!.pacing).toEqual({ sitesPerHour: 40, maxInFlight: 10 });
    expect(plan.waves[0]!.releaseSeconds).toBe(4500);
    expect(plan.summary.releaseSeconds).toBe(4500);
  });

  it('reads label selectors as Kubernetes does', () => {
    const sel = (expr: string) => policy(`  canary: {selector: ${expr}}\n`).canary!.match.selector!;
    const labels = { region: 'east', rack: 'r1' };
    expect(selects(sel('{matchLabels: {region: east}}'), labels)).toBe(true);
    expect(selects(sel('{matchLabels: {region: east, rack: r2}}'), labels)).toBe(false);
    expect(
      selects(sel('{matchExpressions: [{key: rack, operator: NotIn, values: [r2]}]}'), labels),
    ).toBe(true);
    expect(
      selects(sel('{matchExpressions: [{key: tier, operator: NotIn, values: [x]}]}'), labels),
    ).toBe(true);
    expect(selects(sel('{matchExpressions: [{key: tier, operator: DoesNotExist}]}'), labels)).toBe(
      true,
    );
    expect(selects(sel('{matchExpressions: [{key: tier, operator: Exists}]}'), labels)).toBe(false);
    expect(
      selects(sel('{matchExpressions: [{key: region, operator: In, values: [west]}]}'), labels),
    ).toBe(false);
  });
});
