import { describe, expect, it } from 'vitest';
import {
  allInstalled,
  progressBlock,
  progressLine,
  StateRates,
  summaryOf,
  summaryTable,
} from '../../src/sim/demo/demo-report.js';
import type { DemoTotals, ProgressSnapshot, SiteOutcome } from '../../src/sim/demo/demo-report.js';

const outcomes: SiteOutcome[] = [
  { name: 'sno-b', namespace: 'sno-b', state: 'installed', seconds: 125.4, message: '' },
  {
    name: 'sno-a',
    namespace: 'sno-a',
    state: 'booting',
    seconds: 300,
    message: 'Failed to insert virtual media: 500 Internal Server Error',
    hint: 'Check the BMC address and credentials.',
  },
  {
    name: 'held-1',
    namespace: 'held-1',
    state: 'held',
    seconds: 300,
    message: 'The installation is on hold. To unhold set holdInstallation to false',
  },
];
const totals: DemoTotals = {
  sites: 3,
  hosts: 3,
  installed: 1,
  failed: 0,
  held: 1,
  unfinished: 1,
  seconds: 301,
  byState: { installed: 1, booting: 1, held: 1 },
  ended: 'idle',
};

describe('the demo summary', () => {
  it('lists problems first, with their message and hint, then the installed sites', () => {
    expect(summaryTable(outcomes, totals)).toBe(
      [
        'SITE    STATE         TIME  MESSAGE',
        'sno-a   booting      5m00s  Failed to insert virtual media: 500 Internal Server Error',
        '                            hint: Check the BMC address and credentials.',
        'held-1  held         5m00s  The installation is on hold. To unhold set holdInstallation to false',
        'sno-b   installed    2m05s',
        '',
        '1/3 sites installed, 1 held by their SiteConfig, 1 not finished in 5m01s (3 hosts; no site changed state for a while)',
        '',
      ].join('\n'),
    );
  });

  it('writes {sites: [{name, state, seconds, message}], totals}', () => {
    const summary = summaryOf(outcomes, totals);
    expect(summary.sites[0]).toEqual({
      name: 'sno-b',
      namespace: 'sno-b',
      state: 'installed',
      seconds: 125.4,
      message: '',
    });
    expect(summary.sites[1]).toMatchObject({ hint: 'Check the BMC address and credentials.' });
    expect(summary.totals).toBe(totals);
  });

  it('succeeds only when every site installed or is held by its SiteConfig', () => {
    expect(allInstalled(totals)).toBe(false);
    expect(allInstalled({ ...totals, installed: 2, unfinished: 0 })).toBe(true);
    expect(allInstalled({ ...totals, sites: 0, installed: 0, held: 0 })).toBe(false);
  });
});

describe('demo progress', () => {
  const snapshot: ProgressSnapshot = {
    elapsedMs: 95_000,
    sites: 10,
    hosts: 12,
    counts: {
      pending: 2,
      booting: 1,
      discovering: 0,
      validating: 0,
      insufficient: 0,
      installing: 3,
      installed: 4,
      failed: 0,
      held: 0,
    },
    rates: { installed: 2.5, installing: 3 },
    activity: 'provisioning',
  };

  it('prints one plain line for logs: the states with sites and the install rate', () => {
    expect(progressLine(snapshot)).toBe(
      '[ 1m35s] pending 2, booting 1, installing 3, installed 4 of 10 (2.5 installed/min) · provisioning',
    );
  });

  it('draws a bar per state, sized by its share of the sites, with count and rate', () => {
    expect(progressBlock(snapshot, 80)[0]).toBe(
      'SiteForge demo · 1m35s · 10 sites, 12 hosts · provisioning',
    );
    const lines = progressBlock(snapshot, 56);
    expect(lines).toContain(`  Installed    ${'█'.repeat(8)}${'░'.repeat(12)}     4  2.5/min`);
    expect(lines).toContain(`  Pending      ${'█'.repeat(4)}${'░'.repeat(16)}     2`);
    expect(lines.some((l) => l.includes('Held'))).toBe(false);
  });

  it('counts sites entering a state per minute over the last minute', () => {
    const rates = new StateRates();
    for (const at of [1_000, 50_000, 70_000, 80_000]) rates.entered('installed', at);
    // Within the first minute, the rate is over the time elapsed so far.
    expect(rates.perMinute('installed', 30_000, 0)).toBe(2);
    expect(rates.perMinute('installed', 90_000, 0)).toBe(3);
  });
});
