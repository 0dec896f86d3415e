/**
 * The fleet: every site's status, kept up to date from a stream of object changes (informer
 * events) with work proportional to what changed. An event marks the sites its object belongs
 * to, before and after the change; `flush()` derives those sites again (siteStatus) and tells
 * listeners which changed. Totals by state and per rollout wave are counted as sites change,
 * never by walking the fleet.
 *
 * Membership follows the references ZTP objects carry: a ClusterDeployment is its own site; an
 * AgentClusterInstall belongs to its `clusterDeploymentRef`; an InfraEnv to its `clusterRef`; an
 * Agent to its `clusterDeploymentName`, else to its InfraEnv's site; a BareMetalHost to its
 * InfraEnv's site (label `infraenvs.agent-install.openshift.io`), else to the BMAC's
 * `cluster-reference` annotation. Objects of an unbound InfraEnv belong to no site.
 */
import type { KubeObject } from '../kube/index.js';
import { keyOf, list, str } from './read.js';
import { SiteKind, RolloutKind } from './kinds.js';
import { SITE_STATES } from './site-state.js';
import type { SiteState } from './site-state.js';
import { infraEnvLabel, siteStatus } from './site-status.js';
import type { SiteObjects, SiteStatus } from './site-status.js';

/** An object change, as the runtime's informers tell it. */
export interface FleetEvent {
  readonly type: 'add' | 'update' | 'resync' | 'delete';
  readonly object: KubeObject;
}

/** Counts by state. */
export type StateCounts = Readonly<Record<SiteState, number>>;

/** The fleet at a glance. */
export interface FleetTotals {
  readonly sites: number;
  readonly byState: StateCounts;
  /** Sites with a problem (any state). */
  readonly withProblem: number;
}

/** A site's place in a rollout. */
export interface WavePlacement {
  /** `namespace/name` of the Rollout. */
  readonly rollout: string;
  readonly wave: string;
  /** The wave's position in the rollout, from 0. */
  readonly index: number;
  /** `status.waves[].phase` of the wave, when the rollout reports one. */
  readonly phase?: string;
}

/** One wave of a rollout with its sites' counts; `rollout` undefined for sites in no wave. */
export interface WaveSummary {
  readonly rollout?: string;
  readonly wave: string;
  readonly index: number;
  readonly phase?: string;
  readonly sites: number;
  readonly byState: StateCounts;
}

/** What one flush changed. */
export interface FleetChange {
  /** Sites whose status changed or that appeared. */
  readonly changed: readonly SiteStatus[];
  /** Keys of sites that are gone. */
  readonly removed: readonly string[];
  /** Keys of sites whose wave placement changed (their status may be unchanged). */
  readonly moved: readonly string[];
}

type SiteKindName =
  'BareMetalHost' | 'Agent' | 'AgentClusterInstall' | 'ClusterDeployment' | 'InfraEnv';

interface Members {
  clusterDeployment?: string;
  agentClusterInstall?: string;
  readonly infraEnvs: Set<string>;
  readonly agents: Set<string>;
  readonly bareMetalHosts: Set<string>;
}

interface Rollout {
  readonly key: string;
  readonly waves: readonly { readonly name: string; readonly sites: readonly string[] }[];
  readonly phases: ReadonlyMap<string, string>;
}

const NO_WAVE = '';

function emptyCounts(): Record<SiteState, number> {
  return Object.fromEntries(SITE_STATES.map((s) => [s, 0])) as Record<SiteState, number>;
}

function kindName(object: KubeObject): SiteKindName | 'Rollout' | undefined {
  for (const [name, gvk] of Object.entries(SiteKind))
    if (object.kind === gvk.kind && object.apiVersion === gvk.apiVersion)
      return name as SiteKindName;
  if (object.kind === RolloutKind.kind && object.apiVersion === RolloutKind.apiVersion)
    return 'Rollout';
  return undefined;
}

function ref(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** The fleet's sites, updated incrementally from object changes. */
export class FleetModel {
  private readonly objects = new Map<SiteKindName, Map<string, KubeObject>>(
    (Object.keys(SiteKind) as SiteKindName[]).map((k) => [k, new Map()]),
  );
  /** The site each object belongs to, by `Kind|namespace/name`. */
  private readonly siteOfObject = new Map<string, string>();
  /** BareMetalHosts and unbound Agents by their InfraEnv (`namespace/name`), as `Kind|key`. */
  private readonly byInfraEnv = new Map<string, Set<string>>();
  private readonly members = new Map<string, Members>();
  private readonly statuses = new Map<string, SiteStatus>();
  private readonly dirty = new Set<string>();
  private readonly stageTimes = new Map<string, Map<string, string>>();
  private readonly rollouts = new Map<string, Rollout>();
  private readonly placements = new Map<string, WavePlacement>();
  private readonly sitesByName = new Map<string, Set<string>>();
  private readonly movedSites = new Set<string>();
  private readonly byState = emptyCounts();
  private problems = 0;
  private readonly waveCounts = new Map<
    string,
    { sites: number; byState: Record<SiteState, number> }
  >();
  private readonly listeners: ((change: FleetChange) => void)[] = [];

  /** Calls `listener` after every flush that changed something. */
  onChange(listener: (change: FleetChange) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Takes one object change; the sites it touches are derived again at the next flush. */
  apply(event: FleetEvent): void {
    const kind = kindName(event.object);
    if (kind === undefined) return;
    if (kind === 'Rollout') {
      this.applyRollout(event);
      return;
    }
    const key = keyOf(event.object);
    const store = this.objects.get(kind)!;
    // A periodic resync repeats the object already held: nothing to derive again.
    if (event.type === 'resync' && store.get(key) === event.object) return;
    if (event.type === 'delete') store.delete(key);
    else store.set(key, event.object);
    if (kind === 'Agent') this.rememberStage(key, event);
    this.place(kind, key);
    if (kind === 'InfraEnv') {
      // Its BareMetalHosts and unbound Agents follow it to its (new) site.
      for (const member of [...(this.byInfraEnv.get(key) ?? [])]) {
        const [memberKind, memberKey] = splitMember(member);
        this.place(memberKind, memberKey);
      }
    }
  }

  /** Applies many changes (an informer's initial list, say). */
  applyAll(events: Iterable<FleetEvent>): void {
    for (const event of events) this.apply(event);
  }

  /**
   * Derives the sites marked since the last flush, updates the totals and tells listeners.
   * @returns what changed
   */
  flush(): FleetChange {
    const changed: SiteStatus[] = [];
    const removed: string[] = [];
    for (const key of this.dirty) {
      const before = this.statuses.get(key);
      const members = this.members.get(key);
      if (members === undefined || isEmpty(members)) {
        this.members.delete(key);
        if (before !== undefined) {
          this.count(before, -1);
          this.statuses.delete(key);
          this.unindexName(key);
          this.placements.delete(key);
          removed.push(key);
        }
        continue;
      }
      const after = siteStatus(this.objectsOf(key, members), (agent) => this.stageTimes.get(agent));
      if (before !== undefined && sameStatus(before, after)) continue;
      if (before !== undefined) this.count(before, -1);
      else {
        this.indexName(key, after.name);
        this.placeSite(key);
      }
      this.statuses.set(key, after);
      this.count(after, 1);
      changed.push(after);
    }
    this.dirty.clear();
    const moved = [...this.movedSites].filter((k) => this.statuses.has(k));
    this.movedSites.clear();
    const change = { changed, removed, moved };
    if (changed.length > 0 || removed.length > 0 || moved.length > 0)
      for (const listener of this.listeners) listener(change);
    return change;
  }

  /** The status of one site (`namespace/name`). */
  site(key: string): SiteStatus | undefined {
    return this.statuses.get(key);
  }

  /** Every site's status, in no particular order. */
  sites(): IterableIterator<SiteStatus> {
    return this.statuses.values();
  }

  /** Number of sites. */
  get size(): number {
    return this.statuses.size;
  }

  /** Totals by state (as of the last flush). */
  totals(): FleetTotals {
    return { sites: this.statuses.size, byState: { ...this.byState }, withProblem: this.problems };
  }

  /** Where a site stands in the rollouts, if a Rollout names it. */
  placement(key: string): WavePlacement | undefined {
    return this.placements.get(key);
  }

  /**
   * Each wave of each Rollout (rollouts by namespace/name, waves in their order) with its
   * sites' counts, then the sites in no wave.
   */
  waves(): WaveSummary[] {
    const out: WaveSummary[] = [];
    for (const rollout of [...this.rollouts.values()].sort((a, b) => a.key.localeCompare(b.key)))
      rollout.waves.forEach((wave, index) => {
        const counts = this.waveCounts.get(waveKey(rollout.key, wave.name));
        const phase = rollout.phases.get(wave.name);
        out.push({
          rollout: rollout.key,
          wave: wave.name,
          index,
          ...(phase !== undefined && { phase }),
          sites: counts?.sites ?? 0,
          byState: { ...(counts?.byState ?? emptyCounts()) },
        });
      });
    const none = this.waveCounts.get(NO_WAVE);
    out.push({
      wave: 'no wave',
      index: out.length,
      sites: none?.sites ?? 0,
      byState: { ...(none?.byState ?? emptyCounts()) },
    });
    return out;
  }

  // ---- membership -----------------------------------------------------------------------------

  private place(kind: SiteKindName, key: string): void {
    const id = `${kind}|${key}`;
    const object = this.objects.get(kind)!.get(key);
    const before = this.siteOfObject.get(id);
    const after = object === undefined ? undefined : this.siteKeyOf(kind, object);
    if (before !== undefined) this.dirty.add(before);
    if (after !== undefined) this.dirty.add(after);
    if (before !== after) {
      if (before !== undefined) this.removeMember(before, kind, key);
      if (after !== undefined) this.addMember(after, kind, key);
      if (after === undefined) this.siteOfObject.delete(id);
      else this.siteOfObject.set(id, after);
    }
    if (kind === 'BareMetalHost' || kind === 'Agent') this.indexInfraEnv(id, object);
  }

  private readonly infraEnvOfMember = new Map<string, string>();

  private indexInfraEnv(id: string, object: KubeObject | undefined): void {
    const before = this.infraEnvOfMember.get(id);
    const label = object === undefined ? undefined : infraEnvLabel(object);
    const after =
      object === undefined || label === undefined
        ? undefined
        : ref(object.metadata.namespace ?? '', label);
    if (before === after) return;
    if (before !== undefined) {
      const set = this.byInfraEnv.get(before);
      set?.delete(id);
      if (set?.size === 0) this.byInfraEnv.delete(before);
    }
    if (after === undefined) this.infraEnvOfMember.delete(id);
    else {
      this.infraEnvOfMember.set(id, after);
      let set = this.byInfraEnv.get(after);
      if (set === undefined) this.byInfraEnv.set(after, (set = new Set()));
      set.add(id);
    }
  }

  private siteKeyOf(kind: SiteKindName, object: KubeObject): string | undefined {
    const namespace = object.metadata.namespace ?? '';
    switch (kind) {
      case 'ClusterDeployment':
        return ref(namespace, object.metadata.name);
      case 'AgentClusterInstall':
        return ref(
          namespace,
          str(object, 'spec', 'clusterDeploymentRef', 'name') ?? object.metadata.name,
        );
      case 'InfraEnv': {
        const name = str(object, 'spec', 'clusterRef', 'name');
        return name === undefined
          ? undefined
          : ref(str(object, 'spec', 'clusterRef', 'namespace') ?? namespace, name);
      }
      case 'Agent': {
        const name = str(object, 'spec', 'clusterDeploymentName', 'name');
        if (name !== undefined)
          return ref(str(object, 'spec', 'clusterDeploymentName', 'namespace') ?? namespace, name);
        return this.siteOfInfraEnv(namespace, infraEnvLabel(object));
      }
      case 'BareMetalHost': {
        const viaInfraEnv = this.siteOfInfraEnv(namespace, infraEnvLabel(object));
        if (viaInfraEnv !== undefined) return viaInfraEnv;
        const reference =
          object.metadata.annotations?.['bmac.agent-install.openshift.io/cluster-reference'];
        return reference !== undefined && /^[^/]+\/[^/]+$/.test(reference) ? reference : undefined;
      }
    }
  }

  private siteOfInfraEnv(namespace: string, name: string | undefined): string | undefined {
    if (name === undefined) return undefined;
    const infraEnv = this.objects.get('InfraEnv')!.get(ref(namespace, name));
    return infraEnv === undefined ? undefined : this.siteKeyOf('InfraEnv', infraEnv);
  }

  private membersOf(site: string): Members {
    let members = this.members.get(site);
    if (members === undefined)
      this.members.set(
        site,
        (members = { infraEnvs: new Set(), agents: new Set(), bareMetalHosts: new Set() }),
      );
    return members;
  }

  private addMember(site: string, kind: SiteKindName, key: string): void {
    const members = this.membersOf(site);
    switch (kind) {
      case 'ClusterDeployment':
        members.clusterDeployment = key;
        break;
      case 'AgentClusterInstall':
        members.agentClusterInstall = key;
        break;
      case 'InfraEnv':
        members.infraEnvs.add(key);
        break;
      case 'Agent':
        members.agents.add(key);
        break;
      case 'BareMetalHost':
        members.bareMetalHosts.add(key);
        break;
    }
  }

  private removeMember(site: string, kind: SiteKindName, key: string): void {
    const members = this.members.get(site);
    if (members === undefined) return;
    switch (kind) {
      case 'ClusterDeployment':
        if (members.clusterDeployment === key) delete members.clusterDeployment;
        break;
      case 'AgentClusterInstall':
        if (members.agentClusterInstall === key) delete members.agentClusterInstall;
        break;
      case 'InfraEnv':
        members.infraEnvs.delete(key);
        break;
      case 'Agent':
        members.agents.delete(key);
        break;
      case 'BareMetalHost':
        members.bareMetalHosts.delete(key);
        break;
    }
  }

  private objectsOf(site: string, members: Members): SiteObjects {
    const get = (kind: SiteKindName, key: string | undefined): KubeObject | undefined =>
      key === undefined ? undefined : this.objects.get(kind)!.get(key);
    const all = (kind: SiteKindName, keys: Set<string>): KubeObject[] =>
      [...keys]
        .sort()
        .map((k) => this.objects.get(kind)!.get(k))
        .filter((o): o is KubeObject => o !== undefined);
    const slash = site.indexOf('/');
    const clusterDeployment = get('ClusterDeployment', members.clusterDeployment);
    const agentClusterInstall = get('AgentClusterInstall', members.agentClusterInstall);
    return {
      namespace: site.slice(0, slash),
      name: site.slice(slash + 1),
      ...(clusterDeployment !== undefined && { clusterDeployment }),
      ...(agentClusterInstall !== undefined && { agentClusterInstall }),
      infraEnvs: all('InfraEnv', members.infraEnvs),
      agents: all('Agent', members.agents),
      bareMetalHosts: all('BareMetalHost', members.bareMetalHosts),
    };
  }

  private rememberStage(key: string, event: FleetEvent): void {
    if (event.type === 'delete') {
      this.stageTimes.delete(key);
      return;
    }
    const stage = str(event.object, 'status', 'progress', 'currentStage');
    const start = str(event.object, 'status', 'progress', 'stageStartTime');
    if (stage === undefined || start === undefined) return;
    let times = this.stageTimes.get(key);
    if (times === undefined) this.stageTimes.set(key, (times = new Map<string, string>()));
    if (!times.has(stage)) times.set(stage, start);
  }

  // ---- counting -------------------------------------------------------------------------------

  private count(status: SiteStatus, delta: 1 | -1): void {
    this.byState[status.state] += delta;
    if (status.problem !== undefined) this.problems += delta;
    const placement = this.placements.get(status.key);
    const counts = this.waveCountsOf(
      placement === undefined ? NO_WAVE : waveKey(placement.rollout, placement.wave),
    );
    counts.sites += delta;
    counts.byState[status.state] += delta;
  }

  private waveCountsOf(key: string): { sites: number; byState: Record<SiteState, number> } {
    let counts = this.waveCounts.get(key);
    if (counts === undefined)
      this.waveCounts.set(key, (counts = { sites: 0, byState: emptyCounts() }));
    return counts;
  }

  // ---- rollouts -------------------------------------------------------------------------------

  private applyRollout(event: FleetEvent): void {
    const key = keyOf(event.object);
    const before = this.rollouts.get(key);
    if (event.type === 'delete') this.rollouts.delete(key);
    else this.rollouts.set(key, readRollout(key, event.object));
    const after = this.rollouts.get(key);
    const names = new Set<string>();
    for (const rollout of [before, after])
      for (const wave of rollout?.waves ?? []) for (const site of wave.sites) names.add(site);
    for (const name of names)
      for (const site of this.sitesByName.get(name) ?? []) this.placeSite(site);
  }

  /** Re-decides a site's wave; counts move with it. */
  private placeSite(key: string): void {
    const status = this.statuses.get(key);
    const name = key.slice(key.indexOf('/') + 1);
    const before = this.placements.get(key);
    const after = this.findPlacement(name);
    if (samePlacement(before, after)) return;
    if (status !== undefined) this.count(status, -1);
    if (after === undefined) this.placements.delete(key);
    else this.placements.set(key, after);
    if (status !== undefined) {
      this.count(status, 1);
      this.movedSites.add(key);
    }
  }

  private findPlacement(name: string): WavePlacement | undefined {
    let found: WavePlacement | undefined;
    for (const rollout of this.rollouts.values())
      rollout.waves.forEach((wave, index) => {
        if (!wave.sites.includes(name)) return;
        if (found !== undefined && found.rollout.localeCompare(rollout.key) <= 0) return;
        const phase = rollout.phases.get(wave.name);
        found = {
          rollout: rollout.key,
          wave: wave.name,
          index,
          ...(phase !== undefined && { phase }),
        };
      });
    return found;
  }

  private indexName(key: string, name: string): void {
    let set = this.sitesByName.get(name);
    if (set === undefined) this.sitesByName.set(name, (set = new Set()));
    set.add(key);
  }

  private unindexName(key: string): void {
    const name = key.slice(key.indexOf('/') + 1);
    const set = this.sitesByName.get(name);
    set?.delete(key);
    if (set?.size === 0) this.sitesByName.delete(name);
  }
}

function waveKey(rollout: string, wave: string): string {
  return `${rollout}\u0000${wave}`;
}

function samePlacement(a: WavePlacement | undefined, b: WavePlacement | undefined): boolean {
  return (
    a?.rollout === b?.rollout &&
    a?.wave === b?.wave &&
    a?.index === b?.index &&
    a?.phase === b?.phase
  );
}

function splitMember(id: string): [SiteKindName, string] {
  const bar = id.indexOf('|');
  return [id.slice(0, bar) as SiteKindName, id.slice(bar + 1)];
}

function isEmpty(members: Members): boolean {
  return (
    members.clusterDeployment === undefined &&
    members.agentClusterInstall === undefined &&
    members.infraEnvs.size === 0 &&
    members.agents.size === 0 &&
    members.bareMetalHosts.size === 0
  );
}

function sameStatus(a: SiteStatus, b: SiteStatus): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A Rollout's waves and phases; malformed entries are skipped. */
function readRollout(key: string, object: KubeObject): Rollout {
  const waves: { name: string; sites: string[] }[] = [];
  for (const wave of list(object, 'spec', 'waves')) {
    const name = str(wave, 'name');
    if (name === undefined) continue;
    const sites = list(wave, 'sites').filter((s): s is string => typeof s === 'string');
    waves.push({ name, sites });
  }
  const phases = new Map<string, string>();
  for (const wave of list(object, 'status', 'waves')) {
    const name = str(wave, 'name');
    const phase = str(wave, 'phase');
    if (name !== undefined && phase !== undefined) phases.set(name, phase);
  }
  return { key, waves, phases };
}
