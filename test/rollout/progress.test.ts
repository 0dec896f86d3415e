import { describe, expect, it } from 'vitest';
import { SiteCondition, step } from '../../src/rollout/progress.js';
import type { Observe, SiteObservation } from '../../src/rollout/progress.js';
import {
  DEFAULT_GATE,
  readRolloutSpec,
  RolloutPhase,
  WavePhase,
} from '../../src/rollout/rollout-resource.js';
import type { RolloutSpec, RolloutStatus, WaveSpec } from '../../src/rollout/rollout-resource.js';

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;

function wave(name: string, sites: string[], extra: Partial<WaveSpec> = {}): WaveSpec {
  return { name, sites, added: sites, removed: [], gate: DEFAULT_GATE, ...extra };
}

function spec(waves: WaveSpec[], extra: Partial<RolloutSpec> = {}): RolloutSpec {
  return {
    planVersion: 'v1',
    from: { revision: 'main~1', commit: 'a'.repeat(40) },
    to: { revision: 'main', commit: 'b'.repeat(40) },
    target: { mode: 'Apply', apply: { path: '.' } },
    maxInFlight: 100,
    waves,
    paused: false,
    abort: false,
    ...extra,
  };
}

/** A scripted hub: each site's observation, absent until set. */
class Hub {
  readonly sites = new Map<string, SiteObservation>();
  set(condition: SiteCondition, ...names: string[]): void {
    for (const n of names) this.sites.set(n, { condition, state: condition });
  }
  fail(name: string, message: string): void {
    this.sites.set(name, {
      condition: SiteCondition.Failed,
      state: 'failed',
      problem: {
        object: `AgentClusterInstall ${name}/${name}`,
        condition: 'Failed',
        reason: 'InstallationFailed',
        message,
      },
    });
  }
  readonly observe: Observe = (site, removal) =>
    this.sites.get(site) ??
    (removal
      ? { condition: SiteCondition.Removing, state: 'removing' }
      : { condition: SiteCondition.Absent, state: 'absent' });
}

/** Runs steps, as a runner would, collecting the releases. */
class Run {
  status: RolloutStatus | undefined;
  released: string[] = [];
  now = T0;
  constructor(
    readonly spec: RolloutSpec,
    readonly hub: Hub,
  ) {}
  tick(ms = 0): RolloutStatus {
    this.now += ms;
    const result = step(this.spec, this.status, this.hub.observe, this.now);
    if (result.release) {
      const { wave, from, to } = result.release;
      this.released.push(...this.spec.waves[wave]!.sites.slice(from, to));
    }
    this.status = result.status;
    return result.status;
  }
}

describe('rollout progress', () => {
  it('releases the canary first and the next wave only once the canary is installed', () => {
    const hub = new Hub();
    const run = new Run(spec([wave('canary', ['c1']), wave('w1', ['a', 'b'])]), hub);
    expect(run.tick().phase).toBe(RolloutPhase.Progressing);
    expect(run.released).toEqual(['c1']);
    hub.set(SiteCondition.Progressing, 'c1');
    run.tick(MIN);
    expect(run.released).toEqual(['c1']);
    hub.set(SiteCondition.Installed, 'c1');
    const s = run.tick(MIN);
    expect(run.released).toEqual(['c1', 'a', 'b']);
    expect(s.waves.map((w) => w.phase)).toEqual([WavePhase.Passed, WavePhase.Progressing]);
    hub.set(SiteCondition.Installed, 'a', 'b');
    expect(run.tick(MIN).phase).toBe(RolloutPhase.Succeeded);
  });

  it('keeps no more sites in flight than maxInFlight, across waves', () => {
    const hub = new Hub();
    const sites = ['s1', 's2', 's3', 's4', 's5'];
    const run = new Run(
      spec(
        [
          wave('w1', sites, { gate: { ...DEFAULT_GATE, minSucceededPercent: 40 } }),
          wave('w2', ['t1', 't2']),
        ],
        {
          maxInFlight: 2,
        },
      ),
      hub,
    );
    run.tick();
    expect(run.released).toEqual(['s1', 's2']);
    hub.set(SiteCondition.Installed, 's1');
    run.tick(MIN);
    expect(run.released).toEqual(['s1', 's2', 's3']);
    hub.set(SiteCondition.Installed, 's2', 's3');
    run.tick(MIN);
    expect(run.released).toEqual(['s1', 's2', 's3', 's4', 's5']);
    // 3 of 5 installed passes the 40 % gate, but s4 and s5 still fill the two slots.
    const s = run.tick(MIN);
    expect(s.waves[0]!.phase).toBe(WavePhase.Passed);
    expect(run.released).toHaveLength(5);
    hub.set(SiteCondition.Installed, 's4');
    run.tick(MIN);
    expect(run.released).toEqual(['s1', 's2', 's3', 's4', 's5', 't1']);
  });

  it('paces releases at sitesPerHour, with up to five minutes of burst', () => {
    const hub = new Hub();
    const sites = Array.from({ length: 30 }, (_, i) => `s${String(i)}`);
    // 120 per hour: one every 30 s, bursts of 10.
    const run = new Run(spec([wave('w1', sites)], { pacing: { sitesPerHour: 120 } }), hub);
    run.tick();
    expect(run.released).toHaveLength(10);
    run.tick(60_000);
    expect(run.released).toHaveLength(12);
    run.tick(15_000);
    expect(run.released).toHaveLength(12);
    run.tick(15_000);
    expect(run.released).toHaveLength(13);
    // An hour later the bucket holds no more than its burst.
    run.tick(3_600_000);
    expect(run.released).toHaveLength(23);
  });

  it('takes the burst of a wave when the plan gives one', () => {
    const sites = Array.from({ length: 10 }, (_, i) => `s${String(i)}`);
    const run = new Run(
      spec([wave('w1', sites, { burst: 3 })], { pacing: { sitesPerHour: 3600 } }),
      new Hub(),
    );
    run.tick();
    expect(run.released).toHaveLength(3);
    run.tick(2_000);
    expect(run.released).toHaveLength(5);
    run.tick(60_000);
    expect(run.released).toHaveLength(8);
  });

  it('stops at a canary that fails, quoting the condition message', () => {
    const hub = new Hub();
    const run = new Run(spec([wave('canary', ['c1', 'c2']), wave('w1', ['a'])]), hub);
    run.tick();
    hub.set(SiteCondition.Installed, 'c1');
    hub.fail('c2', 'The installation failed: Host sno-c2: failed to write image to disk');
    const s = run.tick(MIN);
    expect(s.phase).toBe(RolloutPhase.Failed);
    expect(s.waves[0]!.phase).toBe(WavePhase.Failed);
    expect(s.waves[1]!.phase).toBe(WavePhase.Pending);
    expect(s.waves[0]!.failures).toEqual([
      {
        site: 'c2',
        state: 'failed',
        object: 'AgentClusterInstall c2/c2',
        condition: 'Failed',
        reason: 'InstallationFailed',
        message: 'The installation failed: Host sno-c2: failed to write image to disk',
      },
    ]);
    expect(s.message).toContain('too many failures');
    expect(run.released).toEqual(['c1', 'c2']);
    // Finished: later steps change nothing and release nothing.
    expect(run.tick(MIN)).toEqual(s);
  });

  it('passes a wave with tolerated failures and fails early when the percent is out of reach', () => {
    const hub = new Hub();
    const gate = { minSucceededPercent: 50, maxFailures: 2, timeoutSeconds: 3600 };
    const run = new Run(spec([wave('w1', ['a', 'b', 'c', 'd'], { gate })]), hub);
    run.tick();
    hub.fail('a', 'x');
    hub.set(SiteCondition.Installed, 'b', 'c');
    expect(run.tick(MIN).phase).toBe(RolloutPhase.Succeeded);

    const hub2 = new Hub();
    const run2 = new Run(
      spec([
        wave('w1', ['a', 'b', 'c', 'd'], {
          gate: { ...gate, minSucceededPercent: 100, maxFailures: 1 },
        }),
      ]),
      hub2,
    );
    run2.tick();
    hub2.fail('a', 'x');
    const s = run2.tick(MIN);
    expect(s.phase).toBe(RolloutPhase.Failed);
    expect(s.waves[0]!.message).toContain('too few sites left');
  });

  it('fails a gate that times out, listing the sites that kept it from passing', () => {
    const hub = new Hub();
    const gate = { minSucceededPercent: 100, maxFailures: 0, timeoutSeconds: 1800 };
    const run = new Run(spec([wave('w1', ['a', 'b'], { gate })]), hub);
    run.tick();
    hub.set(SiteCondition.Installed, 'a');
    hub.sites.set('b', {
      condition: SiteCondition.Stuck,
      state: 'insufficient',
      problem: {
        object: 'Agent b/1234',
        condition: 'Validated',
        reason: 'ValidationsFailing',
        message:
          "The agent's validations are failing: Host couldn't synchronize with any NTP server",
      },
    });
    expect(run.tick(29 * MIN).phase).toBe(RolloutPhase.Progressing);
    const s = run.tick(MIN);
    expect(s.phase).toBe(RolloutPhase.Failed);
    expect(s.waves[0]!.message).toContain('timed out after 30m');
    expect(s.waves[0]!.failures).toEqual([
      {
        site: 'b',
        state: 'insufficient',
        object: 'Agent b/1234',
        condition: 'Validated',
        reason: 'ValidationsFailing',
        message:
          "The agent's validations are failing: Host couldn't synchronize with any NTP server",
      },
    ]);
  });

  it('releases nothing while paused, and carries on when resumed', () => {
    const hub = new Hub();
    const s0 = spec([wave('w1', ['a', 'b', 'c'])], { maxInFlight: 1 });
    const run = new Run(s0, hub);
    run.tick();
    hub.set(SiteCondition.Installed, 'a');
    const paused = new Run({ ...s0, paused: true }, hub);
    paused.status = run.status;
    const s = paused.tick(MIN);
    expect(s.phase).toBe(RolloutPhase.Paused);
    expect(paused.released).toEqual([]);
    expect(s.waves[0]!.installed).toBe(1);
    run.status = s;
    run.tick(MIN);
    expect(run.released).toEqual(['a', 'b']);
  });

  it('aborts: the wave under way is aborted and nothing more is released', () => {
    const hub = new Hub();
    const s0 = spec([wave('w1', ['a', 'b']), wave('w2', ['c'])], { maxInFlight: 1 });
    const run = new Run(s0, hub);
    run.tick();
    const aborted = new Run({ ...s0, abort: true }, hub);
    aborted.status = run.status;
    const s = aborted.tick(MIN);
    expect(s.phase).toBe(RolloutPhase.Aborted);
    expect(s.waves.map((w) => w.phase)).toEqual([WavePhase.Aborted, WavePhase.Pending]);
    hub.set(SiteCondition.Installed, 'a');
    expect(aborted.tick(MIN)).toEqual(s);
    expect(aborted.released).toEqual([]);
  });

  it('counts a removal as done once the site is gone from the hub', () => {
    const hub = new Hub();
    const run = new Run(
      spec([wave('remove', ['old1', 'old2'], { added: [], removed: ['old1', 'old2'] })]),
      hub,
    );
    run.tick();
    expect(run.released).toEqual(['old1', 'old2']);
    hub.set(SiteCondition.Removed, 'old1');
    expect(run.tick(MIN).waves[0]!.inProgress).toBe(1);
    hub.set(SiteCondition.Removed, 'old2');
    expect(run.tick(MIN).phase).toBe(RolloutPhase.Succeeded);
  });

  it('passes empty waves at once', () => {
    const run = new Run(spec([wave('empty', []), wave('w1', ['a'])]), new Hub());
    run.tick();
    expect(run.status!.waves[0]!.phase).toBe(WavePhase.Passed);
    expect(run.released).toEqual(['a']);
  });
});

describe('Rollout spec', () => {
  it('lists every problem of a hand-edited spec', () => {
    const raw = {
      planVersion: 'v1',
      from: { revision: 'a', commit: 'a' },
      to: { revision: 'b', commit: 'b' },
      target: { mode: 'Apply' },
      maxInFlight: 0,
      waves: [
        { name: 'w1', sites: ['a', 'B_ad'], gate: { minSucceededPercent: 120 } },
        { name: 'w1', sites: ['a'], removed: ['zzz'] },
      ],
    };
    expect(() => readRolloutSpec('ns/r', raw)).toThrow(
      [
        'Rollout ns/r is invalid:',
        '  spec.maxInFlight: expected a whole number from 1',
        '  spec.waves[0].sites[1]: expected a cluster name',
        '  spec.waves[0].gate.minSucceededPercent: expected a whole number from 0 to 100',
        '  spec.waves[1].sites: a is also in wave w1',
        "  spec.waves[1].removed: zzz is not one of the wave's sites",
        '  spec.waves: two waves are named w1',
      ].join('\n'),
    );
  });
});
