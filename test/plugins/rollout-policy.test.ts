import { describe, expect, it } from 'vitest';
import {
  DEFAULTS,
  parseRolloutPolicy,
  RolloutPolicyError,
} from '../../src/plugins/rollout/policy.js';
import type { RolloutPolicy } from '../../src/plugins/rollout/policy.js';

const HEAD = 'apiVersion: siteforge.io/v1alpha1\nkind: RolloutPolicy\n';

/** The issues of an invalid policy, as `line:column CODE`. */
function problems(text: string): string[] {
  try {
    parseRolloutPolicy('policy.yaml', text);
  } catch (err) {
    if (!(err instanceof RolloutPolicyError)) throw err;
    return err.issues
      .map((i) => `${String(i.line)}:${String(i.column)} ${i.code}`)
      .sort(byPosition);
  }
  throw new Error('the policy was accepted');
}

function messages(text: string): string[] {
  try {
    parseRolloutPolicy('policy.yaml', text);
  } catch (err) {
    if (!(err instanceof RolloutPolicyError)) throw err;
    return err.issues.map((i) => `${i.message} (hint: ${i.hint ?? ''})`);
  }
  throw new Error('the policy was accepted');
}

describe('rollout policy', () => {
  it('fills every default from an empty spec: one wave rule for every site, the hub pace', () => {
    const policy: RolloutPolicy = parseRolloutPolicy('p.yaml', `${HEAD}spec: {}\n`);
    expect(policy.canary).toBeUndefined();
    expect(policy.waves).toEqual([
      {
        name: 'sites',
        groupBy: [],
        order: [],
        maxSites: 500,
        gate: DEFAULTS.gate,
        pacing: DEFAULTS.pacing,
      },
    ]);
    expect(policy.pacing).toEqual({ sitesPerHour: 500, maxInFlight: 500 });
    expect(policy.gate).toEqual({ minSucceededPercent: 95, maxFailures: 5, timeoutSeconds: 10800 });
    expect(policy.removals).toMatchObject({ placement: 'last', maxFleetShare: 10, maxSites: 500 });
    expect(policy.source).toBe('p.yaml');
  });

  it('reads percentages, fractions and durations, and lets waves override the spec', () => {
    const policy = parseRolloutPolicy(
      'p.yaml',
      `${HEAD}spec:
  maxSitesPerWave: 100
  gate: {minInstalled: 0.9, timeout: 1h30m}
  pacing: {sitesPerHour: 120}
  canary:
    selector: {matchExpressions: [{key: canary, operator: Exists}]}
  waves:
    - name: east
      sites: ['east-*', '!east-lab-*']
      maxSites: 50
      gate: {maxFailures: 0}
    - name: rest
      groupBy: [region, rack]
      order: [us-west]
`,
    );
    expect(policy.gate).toEqual({ minSucceededPercent: 90, maxFailures: 5, timeoutSeconds: 5400 });
    expect(policy.canary!.gate).toEqual({
      minSucceededPercent: 100,
      maxFailures: 0,
      timeoutSeconds: 5400,
    });
    expect(policy.canary!.maxSites).toBe(100);
    expect(policy.waves[0]).toMatchObject({
      name: 'east',
      maxSites: 50,
      gate: { minSucceededPercent: 90, maxFailures: 0, timeoutSeconds: 5400 },
      pacing: { sitesPerHour: 120, maxInFlight: 500 },
    });
    expect(policy.waves[1]).toMatchObject({
      groupBy: ['region', 'rack'],
      order: ['us-west'],
      maxSites: 100,
    });
    expect(policy.waves[1]!.match).toBeUndefined();
  });

  it('points at every problem at once, with what was expected', () => {
    const text = `${HEAD}spec:
  maxSitesPerWave: 0
  gate:
    minInstalled: 120%
    maxFailure: 3
    timeout: 3 hours
  pacing: {sitesPerHour: fast}
  canary: {}
  waves:
    - name: canary
      sites: ['[a-']
    - name: all
    - name: all
      selector: {matchLabels: {}}
      order: [x]
  removals: {placement: first}
`;
    expect(problems(text)).toEqual([
      '4:20 POLICY_VALUE',
      '6:19 POLICY_VALUE',
      '7:5 POLICY_UNKNOWN_FIELD',
      '8:14 POLICY_VALUE',
      '9:26 POLICY_VALUE',
      '10:11 POLICY_CANARY_EMPTY',
      '12:13 POLICY_WAVE_NAME',
      '13:15 POLICY_SITE_PATTERN',
      '14:7 POLICY_WAVE_UNREACHABLE',
      '15:13 POLICY_WAVE_NAME',
      '16:17 POLICY_SELECTOR_EMPTY',
      '17:14 POLICY_VALUE',
      '18:25 POLICY_VALUE',
    ]);
    const said = messages(text).join('\n');
    expect(said).toContain(
      'spec.gate.minInstalled must be a whole percentage from 0% to 100%, not "120%"',
    );
    expect(said).toContain(
      'unknown field "maxFailure" in spec.gate (hint: did you mean maxFailures?',
    );
    expect(said).toContain('wave name "canary" is reserved');
    expect(said).toContain('wave name "all" is also the name of spec.waves[1]');
    expect(said).toContain('order needs groupBy');
  });

  it('refuses what is not a policy: another kind, two documents, broken YAML, a list', () => {
    expect(problems('apiVersion: v1\nkind: ConfigMap\nspec: {}\n')).toEqual([
      '1:13 POLICY_API_VERSION',
      '2:7 POLICY_KIND',
    ]);
    expect(problems(`${HEAD}spec: {}\n---\n${HEAD}spec: {}\n`)).toEqual(['5:1 POLICY_DOCUMENTS']);
    expect(problems('')).toEqual(['1:1 POLICY_DOCUMENTS']);
    expect(problems(`${HEAD}spec: [\n`)[0]).toMatch(/^\d+:\d+ /);
    expect(problems('- a\n- b\n')).toEqual(['1:1 POLICY_TYPE']);
    expect(problems(HEAD)).toEqual(['1:1 POLICY_SPEC']);
  });
});

function byPosition(a: string, b: string): number {
  const [la, ca] = a.split(' ')[0]!.split(':').map(Number) as [number, number];
  const [lb, cb] = b.split(' ')[0]!.split(':').map(Number) as [number, number];
  return la - lb || ca - cb;
}
