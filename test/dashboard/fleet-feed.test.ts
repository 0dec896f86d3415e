/**
 * The feed between the informers and the pages: changes batched into one update per tick with
 * the rows of the sites that changed (never the fleet), removals, the "still listing" flag.
 */
import { describe, expect, it } from 'vitest';
import { FleetFeed } from '../../src/dashboard/fleet-feed.js';
import type { FleetUpdate } from '../../src/dashboard/api.js';
import { ManualClock } from '../fakes/manual-clock.js';
import { SiteScript } from '../support/fleet-objects.js';

function fleet(count: number): { feed: FleetFeed; clock: ManualClock; sites: SiteScript[] } {
  const clock = new ManualClock();
  const feed = new FleetFeed({ clock, intervalMs: 500, synced: false });
  const sites = Array.from({ length: count }, (_, i) => new SiteScript(`s-${String(i)}`));
  for (const site of sites)
    for (const object of site.objects()) feed.apply({ type: 'add', object });
  return { feed, clock, sites };
}

describe('FleetFeed', () => {
  it('starts pages from a snapshot of every site, sorted, saying whether the hub is listed whole', () => {
    const { feed } = fleet(3);
    const snapshot = feed.snapshot();
    expect(snapshot.synced).toBe(false);
    expect(snapshot.sites.map((s) => [s.key, s.state])).toEqual([
      ['s-0/s-0', 'pending'],
      ['s-1/s-1', 'pending'],
      ['s-2/s-2', 'pending'],
    ]);
    expect(snapshot.totals).toMatchObject({ sites: 3, byState: { pending: 3 } });
  });

  it('sends one update per tick with the rows of the sites that changed', async () => {
    const { feed, clock, sites } = fleet(20);
    feed.snapshot();
    const updates: FleetUpdate[] = [];
    feed.subscribe((u) => updates.push(u));
    const site = sites[4]!;
    site.imageCreated().bmhState('registering').bmhState('available').bmhState('provisioning');
    for (const object of site.objects()) feed.apply({ type: 'update', object });
    feed.apply({ type: 'update', object: site.bareMetalHost() });
    expect(updates).toEqual([]);
    await clock.advance(500);
    expect(updates).toHaveLength(1);
    expect(updates[0]?.changed.map((r) => [r.key, r.state])).toEqual([['s-4/s-4', 'booting']]);
    expect(updates[0]?.totals.byState).toMatchObject({ pending: 19, booting: 1 });
    // Nothing changed since: no update.
    await clock.advance(5000);
    expect(updates).toHaveLength(1);
  });

  it('tells pages of removed sites and of the end of the first listing', async () => {
    const { feed, clock, sites } = fleet(2);
    feed.snapshot();
    const updates: FleetUpdate[] = [];
    feed.subscribe((u) => updates.push(u));
    for (const object of sites[1]!.objects()) feed.apply({ type: 'delete', object });
    feed.setSynced(true);
    await clock.advance(500);
    expect(updates).toEqual([
      expect.objectContaining({ synced: true, changed: [], removed: ['s-1/s-1'] }),
    ]);
    expect(feed.snapshot()).toMatchObject({ synced: true, totals: { sites: 1 } });
  });

  it('answers one site in full, or nothing for a site that is not there', () => {
    const { feed } = fleet(1);
    expect(feed.site('s-0/s-0')?.status.timeline.map((t) => t.step)).toEqual([
      'image',
      'bmc-boot',
      'discovery',
      'validations',
      'install',
      'done',
    ]);
    expect(feed.site('nope/nope')).toBeUndefined();
  });
});
