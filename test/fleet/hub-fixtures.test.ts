/**
 * The fleet status of objects captured from a real hub run (test/hub/fleet-status.test.ts with
 * SITEFORGE_FLEET_FIXTURES=1): single-node sites as `siteforge controller` left them at each
 * milestone, so the model is checked on exactly what the controller writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FleetModel } from '../../src/fleet/index.js';
import type { SiteStatus } from '../../src/fleet/index.js';
import type { KubeObject } from '../../src/kube/index.js';

function fixture(name: string): SiteStatus {
  const objects = JSON.parse(
    readFileSync(join(import.meta.dirname, '..', 'fixtures', 'fleet', `${name}.json`), 'utf8'),
  ) as KubeObject[];
  const model = new FleetModel();
  model.applyAll(objects.map((object) => ({ type: 'add' as const, object })));
  model.flush();
  expect(model.size).toBe(1);
  return [...model.sites()][0]!;
}

function conditionMessage(name: string, kind: string, type: string): string {
  const objects = JSON.parse(
    readFileSync(join(import.meta.dirname, '..', 'fixtures', 'fleet', `${name}.json`), 'utf8'),
  ) as KubeObject[];
  const object = objects.find((o) => o.kind === kind);
  const conditions = (object?.['status'] as { conditions?: { type: string; message: string }[] })
    .conditions;
  return conditions?.find((c) => c.type === type)?.message ?? '';
}

describe('sites captured from a hub run', () => {
  it('a BareMetalHost whose BMC Secret lacks the username: pending, with BMO error words', () => {
    const s = fixture('sno-bmc-secret');
    expect(s.state).toBe('pending');
    expect(s.problem).toMatchObject({
      severity: 'error',
      source: { kind: 'BareMetalHost' },
      reason: 'registration error',
    });
    expect(s.problem?.message).toMatch(/username/);
    expect(s.hostViews[0]?.bareMetalHost?.operationalStatus).toBe('error');
  });

  it('a host waiting for approval: validating, with the RequirementsMet warning', () => {
    const s = fixture('sno-validating');
    expect(s.state).toBe('validating');
    expect(s.hosts).toEqual({ expected: 1, registered: 1, installed: 0 });
    expect(s.problem).toMatchObject({ severity: 'warning', reason: 'AgentIsNotApproved' });
  });

  it('a host with too few cores: insufficient, with the Validated message as written', () => {
    const s = fixture('sno-insufficient');
    expect(s.state).toBe('insufficient');
    expect(s.problem?.message).toBe(conditionMessage('sno-insufficient', 'Agent', 'Validated'));
    expect(s.problem?.message).toMatch(/^The agent's validations are failing: .*CPU cores/);
  });

  it('a host writing its image: installing at that stage and percent', () => {
    const s = fixture('sno-installing');
    expect(s).toMatchObject({ state: 'installing', stage: 'Writing image to disk' });
    expect(s.percent).toBeGreaterThan(0);
    const install = s.timeline.find((t) => t.step === 'install');
    expect(install?.stages?.map((x) => x.status).slice(0, 5)).toEqual([
      'done',
      'done',
      'done',
      'active',
      'pending',
    ]);
    expect(s.problem).toBeUndefined();
  });

  it('an installed site: installed, 100 percent, every step done', () => {
    const s = fixture('sno-installed');
    expect(s).toMatchObject({ state: 'installed', percent: 100, hosts: { installed: 1 } });
    expect(s.timeline.every((t) => t.status === 'done')).toBe(true);
    expect(s.finishedAt).toBeDefined();
  });
});
