/**
 * The fleet kept from object changes: which objects make a site, totals by state and by wave,
 * sites that appear and go, and updates that touch only the sites they concern.
 */
import { describe, expect, it } from 'vitest';
import { FleetModel } from '../../src/fleet/index.js';
import type { FleetChange, FleetEvent } from '../../src/fleet/index.js';
import type { KubeObject } from '../../src/kube/index.js';
import { SiteScript } from '../support/fleet-objects.js';

const add = (object: KubeObject): FleetEvent => ({ type: 'add', object });
const update = (object: KubeObject): FleetEvent => ({ type: 'update', object });
const del = (object: KubeObject): FleetEvent => ({ type: 'delete', object });

function rollout(
  name: string,
  waves: { name: string; sites: string[] }[],
  phases: Record<string, string> = {},
): KubeObject {
  return {
    apiVersion: 'siteforge.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name, namespace: 'rollouts' },
    spec: { waves },
    status: { waves: Object.entries(phases).map(([n, phase]) => ({ name: n, phase })) },
  };
}

function installedSite(name: string): SiteScript {
  const site = new SiteScript(name)
    .imageCreated()
    .bmhState('provisioned')
    .register()
    .known()
    .approve();
  site
    .cluster('ready', 'Cluster ready to be installed')
    .cluster('installing', 'Installation in progress');
  site.stage('Done').installed();
  return site;
}

describe('FleetModel', () => {
  it('gathers a site from its objects in any order and counts it by state', () => {
    const model = new FleetModel();
    const site = new SiteScript('s1').imageCreated().bmhState('provisioned').register().known();
    // The BareMetalHost before its InfraEnv: it joins the site once the InfraEnv says which.
    for (const o of [...site.objects()].reverse()) model.apply(add(o));
    const change = model.flush();
    expect(change.changed.map((s) => [s.key, s.state])).toEqual([['s1/s1', 'validating']]);
    expect(model.site('s1/s1')?.hostViews[0]).toMatchObject({
      name: 's1-node0',
      bareMetalHost: { state: 'provisioned' },
      agent: { name: 's1-agent-0' },
    });
    expect(model.totals()).toMatchObject({
      sites: 1,
      byState: { validating: 1, pending: 0 },
      withProblem: 1,
    });
  });

  it('reports only the sites an update touches, and only when their status changes', () => {
    const model = new FleetModel();
    const sites = Array.from({ length: 50 }, (_, i) =>
      new SiteScript(`site-${String(i)}`).imageCreated(),
    );
    for (const site of sites) model.applyAll(site.objects().map(add));
    expect(model.flush().changed).toHaveLength(50);
    expect(model.totals().byState.pending).toBe(50);

    const one = sites[7]!;
    one.bmhState('provisioning');
    model.apply(update(one.bareMetalHost()));
    const change = model.flush();
    expect(change.changed.map((s) => s.key)).toEqual(['site-7/site-7']);
    expect(model.totals().byState).toMatchObject({ pending: 49, booting: 1 });

    // The same object again (a resync): nothing to tell.
    model.apply({ type: 'resync', object: one.bareMetalHost() });
    expect(model.flush()).toEqual({ changed: [], removed: [], moved: [] });
    // A resync of an object the model never saw is taken like an add.
    const late = new SiteScript('late');
    for (const object of late.objects()) model.apply({ type: 'resync', object });
    expect(model.flush().changed.map((s) => s.key)).toEqual(['late/late']);
  });

  it('tells listeners, and removes a site whose objects are all deleted', () => {
    const model = new FleetModel();
    const seen: FleetChange[] = [];
    model.onChange((c) => seen.push(c));
    const site = new SiteScript('gone');
    model.applyAll(site.objects().map(add));
    model.flush();
    for (const o of site.objects()) model.apply(del(o));
    model.flush();
    expect(seen.map((c) => [c.changed.length, c.removed])).toEqual([
      [1, []],
      [0, ['gone/gone']],
    ]);
    expect(model.size).toBe(0);
    expect(model.totals().byState.pending).toBe(0);
  });

  it('keeps the stage times it saw, so the timeline shows every stage', () => {
    const model = new FleetModel();
    const site = new SiteScript('stages')
      .imageCreated()
      .bmhState('provisioned')
      .register()
      .known()
      .approve();
    site
      .cluster('ready', 'Cluster ready to be installed')
      .cluster('installing', 'Installation in progress');
    model.applyAll(site.objects().map(add));
    for (const stage of ['Starting installation', 'Installing', 'Waiting for bootkube'] as const) {
      site.wait(45).stage(stage);
      model.apply(update(site.agent()!));
    }
    model.apply(update(site.agentClusterInstall));
    model.flush();
    const install = model.site('stages/stages')!.timeline.find((t) => t.step === 'install')!;
    expect(install.stages?.slice(0, 4).map((s) => [s.name, s.at])).toEqual([
      ['Starting installation', '2026-05-01T10:00:45Z'],
      ['Installing', '2026-05-01T10:01:30Z'],
      ['Waiting for bootkube', '2026-05-01T10:02:15Z'],
      ['Writing image to disk', undefined],
    ]);
  });

  it('moves BareMetalHosts and Agents with their InfraEnv when it is bound to another cluster', () => {
    const model = new FleetModel();
    const a = new SiteScript('a').imageCreated().bmhState('provisioning');
    model.applyAll(a.objects().map(add));
    model.flush();
    expect(model.site('a/a')?.state).toBe('booting');
    const rebound = {
      ...a.infraEnvObject,
      spec: { clusterRef: { name: 'other', namespace: 'a' } },
    };
    model.apply(update(rebound));
    const change = model.flush();
    expect(change.changed.map((s) => [s.key, s.state]).sort()).toEqual([
      ['a/a', 'pending'],
      ['a/other', 'booting'],
    ]);
    expect(model.site('a/other')?.hostViews.map((h) => h.name)).toEqual(['a-node0']);
  });

  it('places sites in rollout waves by cluster name, with the wave phase, and the rest in no wave', () => {
    const model = new FleetModel();
    const names = ['east-1', 'east-2', 'west-1', 'lab-1'];
    for (const name of names) model.applyAll(new SiteScript(name).objects().map(add));
    model.applyAll(installedSite('west-2').objects().map(add));
    model.apply(
      add(
        rollout(
          'spring',
          [
            { name: 'canary', sites: ['east-1'] },
            { name: 'wave-1', sites: ['east-2', 'west-1', 'west-2', 'not-yet-applied'] },
          ],
          { canary: 'Succeeded', 'wave-1': 'Progressing' },
        ),
      ),
    );
    model.flush();
    expect(model.placement('east-1/east-1')).toEqual({
      rollout: 'rollouts/spring',
      wave: 'canary',
      index: 0,
      phase: 'Succeeded',
    });
    expect(model.placement('lab-1/lab-1')).toBeUndefined();
    expect(
      model
        .waves()
        .map((w) => [w.rollout, w.wave, w.phase, w.sites, w.byState.pending, w.byState.installed]),
    ).toEqual([
      ['rollouts/spring', 'canary', 'Succeeded', 1, 1, 0],
      ['rollouts/spring', 'wave-1', 'Progressing', 3, 2, 1],
      [undefined, 'no wave', undefined, 1, 1, 0],
    ]);

    // The rollout moves a site and a phase: the counts follow, the site is reported as moved.
    model.apply(
      update(
        rollout(
          'spring',
          [
            { name: 'canary', sites: ['east-1', 'lab-1'] },
            { name: 'wave-1', sites: ['east-2', 'west-1', 'west-2'] },
          ],
          { canary: 'Succeeded', 'wave-1': 'Progressing' },
        ),
      ),
    );
    expect(model.flush().moved).toEqual(['lab-1/lab-1']);
    expect(model.waves().map((w) => w.sites)).toEqual([2, 3, 0]);

    model.apply(del(rollout('spring', [])));
    model.flush();
    expect(model.waves()).toEqual([expect.objectContaining({ wave: 'no wave', sites: 5 })]);
  });

  it('keeps totals right over a fleet of 3,500 sites changing one at a time', () => {
    const model = new FleetModel();
    const sites = Array.from({ length: 3500 }, (_, i) =>
      new SiteScript(`sno-${String(i).padStart(4, '0')}`).imageCreated(),
    );
    for (const site of sites) model.applyAll(site.objects().map(add));
    model.flush();
    expect(model.totals()).toMatchObject({ sites: 3500, byState: { pending: 3500 } });
    for (const site of sites.slice(0, 1000)) {
      site.bmhState('provisioning');
      model.apply(update(site.bareMetalHost()));
      expect(model.flush().changed).toHaveLength(1);
    }
    expect(model.totals().byState).toMatchObject({ pending: 2500, booting: 1000 });
    expect(model.waves()[0]).toMatchObject({ wave: 'no wave', sites: 3500 });
  });
});
