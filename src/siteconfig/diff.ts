/**
 * Day-2 safety: compares the hub objects of two versions of a fleet and flags the changes the
 * hub will reject or that destroy something, so CI can gate a merge on them.
 */
import { Keys, waveOf } from './compile.js';
import type { CompiledCluster, Manifest } from './compile.js';

/** How one object changed. */
export interface ObjectChange {
  readonly change: 'added' | 'removed' | 'changed';
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string;
  /** Dotted paths of the fields that differ (changed objects only). */
  readonly fields: readonly string[];
}

/**
 * What a change does to a site that is already installed, from harmless to worst for a
 * rollout: `safe` acts in place; `reinstall`, the hub accepts it but it acts only when the site
 * (or host) is installed again (extra manifests, discovery and network settings); `dangerous`,
 * it deletes or re-provisions something; `rejected`, the hub refuses it.
 */
export type ChangeImpact = 'safe' | 'reinstall' | 'dangerous' | 'rejected';

/** The impacts in rising order of gravity. */
export const CHANGE_IMPACTS: readonly ChangeImpact[] = [
  'safe',
  'reinstall',
  'dangerous',
  'rejected',
];

/** One change of a cluster that is not simply safe, with what it does. */
export interface Finding {
  readonly cluster: string;
  readonly code: string;
  readonly impact: Exclude<ChangeImpact, 'safe'>;
  readonly message: string;
  readonly hint: string;
  /** The cluster that takes this one's hosts (CLUSTER_RENAMED only). */
  readonly renamedTo?: string;
}

/** A change that the hub rejects or that deletes or re-provisions something. */
export interface Danger extends Finding {
  readonly impact: 'dangerous' | 'rejected';
}

/** The changes of one cluster. */
export interface ClusterDiff {
  readonly cluster: string;
  readonly status: 'added' | 'removed' | 'changed';
  readonly changes: readonly ObjectChange[];
}

/** The result of comparing two fleets. */
export interface FleetDiff {
  /** Clusters with at least one change, sorted by name. */
  readonly clusters: readonly ClusterDiff[];
  readonly dangers: readonly Danger[];
  /** Changes the hub takes that act only when the site or host is installed again. */
  readonly installTimeOnly: readonly Finding[];
}

/** The gravest impact among a cluster's findings; `safe` when it has none. */
export function worstImpact(findings: readonly Pick<Finding, 'impact'>[]): ChangeImpact {
  let worst = 0;
  for (const f of findings) worst = Math.max(worst, CHANGE_IMPACTS.indexOf(f.impact));
  return CHANGE_IMPACTS[worst]!;
}

/**
 * Fields of an AgentClusterInstall that the hub rejects changing once the cluster is
 * installed: the VIPs and their singular/plural form, the networks, the agent counts and the
 * extra-manifests references.
 */
const IMMUTABLE_ACI_FIELDS: readonly string[] = [
  'spec.apiVIP',
  'spec.apiVIPs',
  'spec.ingressVIP',
  'spec.ingressVIPs',
  'spec.networking',
  'spec.provisionRequirements',
  'spec.manifestsConfigMapRef',
  'spec.manifestsConfigMapRefs',
];

/**
 * The ClusterDeployment spec fields hive's admission webhook lets change; any other spec field
 * is refused on update ("ClusterDeployment.Spec is immutable except for ...").
 */
const MUTABLE_CD_FIELDS: readonly string[] = [
  'spec.certificateBundles',
  'spec.clusterMetadata',
  'spec.controlPlaneConfig',
  'spec.ingress',
  'spec.installed',
  'spec.preserveOnDelete',
  'spec.clusterPoolRef',
  'spec.powerState',
  'spec.hibernateAfter',
  'spec.installAttemptsLimit',
  'spec.platform.agentBareMetal.agentSelector',
];

/**
 * What an installed site reads only when it is installed: the discovery ISO (InfraEnv), the
 * static network of the install (NMStateConfig), the install settings of the AgentClusterInstall
 * that the hub does not refuse, the install-time annotations the BMAC copies to the Agent, the
 * provisioning fields of a BareMetalHost and its firmware settings. `holdInstallation` is not one
 * of them: it releases an install that has not happened yet.
 */
const INSTALL_TIME_FIELDS: Readonly<Record<string, readonly string[]>> = {
  InfraEnv: ['spec'],
  NMStateConfig: ['spec'],
  HostFirmwareSettings: ['spec'],
  AgentClusterInstall: ['spec', `metadata.annotations.${Keys.InstallConfigOverrides}`],
  BareMetalHost: [
    'spec.bootMACAddress',
    'spec.bootMode',
    'spec.rootDeviceHints',
    'spec.firmware',
    'spec.raid',
    'spec.image',
    'spec.userData',
    'spec.networkData',
    'spec.customDeploy',
    `metadata.annotations.${Keys.BmacHostname}`,
    `metadata.annotations.${Keys.BmacRole}`,
    `metadata.annotations.${Keys.BmacInstallerArgs}`,
    `metadata.annotations.${Keys.BmacIgnitionOverrides}`,
    `metadata.annotations.${Keys.BmacNodeLabelPrefix}`,
  ],
};

/** Fields an install-time rule leaves alone, though they lie below one of its prefixes. */
const NOT_INSTALL_TIME: readonly string[] = ['spec.holdInstallation', ...IMMUTABLE_ACI_FIELDS];

const under = (field: string, prefixes: readonly string[]): boolean =>
  prefixes.some((p) => field === p || field.startsWith(p.endsWith('.') ? p : `${p}.`));

function objectKey(m: Manifest): string {
  return `${m.kind}/${m.metadata.namespace ?? ''}/${m.metadata.name}`;
}

/** Dotted paths below which `a` and `b` differ (whole arrays count as one field). */
function changedFields(a: unknown, b: unknown, path: string, out: string[]): void {
  if (a === b) return;
  const isMap = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isMap(a) && isMap(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      changedFields(a[key], b[key], path === '' ? key : `${path}.${key}`, out);
    }
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(path);
}

/** Boot MACs of a cluster's hosts, to recognise a renamed cluster or host. */
function bootMacs(manifests: readonly Manifest[]): Map<string, string> {
  const macs = new Map<string, string>();
  for (const m of manifests) {
    if (m.kind !== 'BareMetalHost') continue;
    const mac = (m['spec'] as { bootMACAddress?: string } | undefined)?.bootMACAddress;
    if (mac) macs.set(mac.toLowerCase(), m.metadata.name);
  }
  return macs;
}

function isPlannedRemoval(m: Manifest): boolean {
  return m.metadata.annotations?.[Keys.RemoveAgentOnDelete] === 'true';
}

/** Compares two compiled fleets. */
export function diffFleets(
  before: readonly CompiledCluster[],
  after: readonly CompiledCluster[],
): FleetDiff {
  const oldByName = new Map(before.map((c) => [c.clusterName, c]));
  const newByName = new Map(after.map((c) => [c.clusterName, c]));
  const clusters: ClusterDiff[] = [];
  const dangers: Danger[] = [];
  const installTimeOnly: Finding[] = [];
  const names = [...new Set([...oldByName.keys(), ...newByName.keys()])].sort();
  const removedClusters = names.filter((n) => !newByName.has(n));
  const addedClusters = names.filter((n) => !oldByName.has(n));

  for (const name of names) {
    const old = oldByName.get(name)?.manifests ?? [];
    const next = newByName.get(name)?.manifests ?? [];
    const oldMap = new Map(old.map((m) => [objectKey(m), m]));
    const newMap = new Map(next.map((m) => [objectKey(m), m]));
    const changes: ObjectChange[] = [];
    for (const key of [...new Set([...oldMap.keys(), ...newMap.keys()])].sort()) {
      const a = oldMap.get(key);
      const b = newMap.get(key);
      const m = (b ?? a)!;
      const id = { kind: m.kind, namespace: m.metadata.namespace, name: m.metadata.name };
      if (!a) changes.push({ change: 'added', ...id, fields: [] });
      else if (!b) changes.push({ change: 'removed', ...id, fields: [] });
      else {
        const fields: string[] = [];
        changedFields(a, b, '', fields);
        if (fields.length > 0) changes.push({ change: 'changed', ...id, fields });
      }
    }
    if (changes.length === 0) continue;
    const status = !oldByName.has(name) ? 'added' : !newByName.has(name) ? 'removed' : 'changed';
    clusters.push({ cluster: name, status, changes });
    if (status === 'changed') {
      dangers.push(...clusterDangers(name, old, next, changes));
      installTimeOnly.push(...installTimeChanges(name, old, next, changes));
    }
  }

  // A removed and an added cluster that share hosts is a rename: delete, then install anew.
  const renamed = new Set<string>();
  for (const gone of removedClusters) {
    const goneMacs = bootMacs(oldByName.get(gone)!.manifests);
    const successor = addedClusters.find((n) =>
      [...bootMacs(newByName.get(n)!.manifests).keys()].some((mac) => goneMacs.has(mac)),
    );
    if (successor) {
      renamed.add(gone);
      dangers.push({
        cluster: gone,
        code: 'CLUSTER_RENAMED',
        impact: 'dangerous',
        renamedTo: successor,
        message: `cluster ${gone} is renamed to ${successor}: the hub deletes ${gone}, deprovisioning its hosts, and installs ${successor} from scratch`,
        hint: 'keep clusterName stable; a cluster name is its identity on the hub',
      });
    }
  }
  for (const gone of removedClusters) {
    if (renamed.has(gone)) continue;
    dangers.push({
      cluster: gone,
      code: 'CLUSTER_DELETED',
      impact: 'dangerous',
      message: `cluster ${gone} is removed: Argo CD prune deletes it from the hub and deprovisions its hosts`,
      hint: 'make sure this is a planned decommission',
    });
  }
  for (const added of newByName.values()) dangers.push(...waveDangers(added));
  return { clusters, dangers, installTimeOnly };
}

function clusterDangers(
  cluster: string,
  old: readonly Manifest[],
  next: readonly Manifest[],
  changes: readonly ObjectChange[],
): Danger[] {
  const dangers: Danger[] = [];
  for (const change of changes) {
    if (change.kind === 'AgentClusterInstall' && change.change === 'changed') {
      const immutable = change.fields.filter((f) =>
        IMMUTABLE_ACI_FIELDS.some((p) => f === p || f.startsWith(`${p}.`)),
      );
      if (immutable.length > 0) {
        dangers.push({
          cluster,
          code: 'IMMUTABLE_FIELD_CHANGED',
          impact: 'rejected',
          message: `AgentClusterInstall ${cluster}: ${immutable.join(', ')} changed; the hub rejects this once the cluster is installed`,
          hint: 'revert the change, or reinstall the cluster on purpose (delete it, then add it again)',
        });
      }
    }
    if (change.kind === 'ClusterDeployment' && change.change === 'changed') {
      const immutable = change.fields.filter(
        (f) => under(f, ['spec']) && !under(f, MUTABLE_CD_FIELDS),
      );
      if (immutable.length > 0) {
        dangers.push({
          cluster,
          code: 'IMMUTABLE_FIELD_CHANGED',
          impact: 'rejected',
          message: `ClusterDeployment ${cluster}: ${immutable.join(', ')} changed; hive's admission webhook rejects this (ClusterDeployment.Spec is immutable except for a few fields)`,
          hint: 'revert the change, or reinstall the cluster on purpose (delete it, then add it again)',
        });
      }
    }
  }
  // A host that leaves and another that arrives with the same boot MAC is a rename.
  const oldMacs = bootMacs(old);
  const newMacs = bootMacs(next);
  for (const [mac, oldName] of oldMacs) {
    const newName = newMacs.get(mac);
    if (newName !== undefined && newName !== oldName) {
      dangers.push({
        cluster,
        code: 'HOST_RENAMED',
        impact: 'dangerous',
        message: `host ${oldName} is renamed to ${newName}: its BareMetalHost is deleted and the host provisioned again`,
        hint: 'keep hostName stable, or remove the host with remove: true first',
      });
    }
  }
  for (const change of changes) {
    if (change.kind !== 'BareMetalHost' || change.change !== 'removed') continue;
    const removed = old.find((m) => m.kind === 'BareMetalHost' && m.metadata.name === change.name)!;
    const mac = (
      removed['spec'] as { bootMACAddress?: string } | undefined
    )?.bootMACAddress?.toLowerCase();
    if (mac !== undefined && newMacs.has(mac)) continue; // reported as a rename
    if (!isPlannedRemoval(removed)) {
      dangers.push({
        cluster,
        code: 'HOST_DELETED_WITHOUT_REMOVAL',
        impact: 'dangerous',
        message: `host ${change.name} is dropped without remove: true: its agent and Node stay in the cluster, NotReady`,
        hint: 'set remove: true on the node and sync first; delete the node entry once the host is gone',
      });
    }
  }
  return dangers;
}

/** The extra-manifests ConfigMaps an AgentClusterInstall names. */
function extraManifestMaps(manifests: readonly Manifest[]): Set<string> {
  const names = new Set<string>();
  for (const m of manifests) {
    if (m.kind !== 'AgentClusterInstall') continue;
    const spec = m['spec'] as
      | {
          manifestsConfigMapRef?: { name?: string };
          manifestsConfigMapRefs?: readonly { name?: string }[];
        }
      | undefined;
    const refs = [spec?.manifestsConfigMapRef, ...(spec?.manifestsConfigMapRefs ?? [])];
    for (const ref of refs) if (ref?.name) names.add(`${m.metadata.namespace ?? ''}/${ref.name}`);
  }
  return names;
}

/**
 * Changes of objects an installed site reads only when it is installed (INSTALL_TIME_FIELDS, and
 * the content of its extra-manifests ConfigMaps): one finding per object. The hub takes them; a
 * running site goes on with what it was installed with.
 */
function installTimeChanges(
  cluster: string,
  old: readonly Manifest[],
  next: readonly Manifest[],
  changes: readonly ObjectChange[],
): Finding[] {
  const extraManifests = new Set([...extraManifestMaps(old), ...extraManifestMaps(next)]);
  const findings: Finding[] = [];
  for (const change of changes) {
    if (change.change !== 'changed') continue;
    const isExtraManifests =
      change.kind === 'ConfigMap' && extraManifests.has(`${change.namespace ?? ''}/${change.name}`);
    const prefixes = isExtraManifests ? ['data', 'binaryData'] : INSTALL_TIME_FIELDS[change.kind];
    if (prefixes === undefined) continue;
    const fields = change.fields.filter(
      (f) =>
        under(f, prefixes) &&
        !(change.kind === 'AgentClusterInstall' && under(f, NOT_INSTALL_TIME)),
    );
    if (fields.length === 0) continue;
    const what = isExtraManifests ? 'extra manifests ConfigMap' : change.kind;
    findings.push({
      cluster,
      code: 'INSTALL_TIME_ONLY',
      impact: 'reinstall',
      message: `${what} ${change.name}: ${fields.join(', ')} changed; the hub takes it, but an installed ${change.kind === 'BareMetalHost' || change.kind === 'HostFirmwareSettings' ? 'host' : 'cluster'} keeps what it was installed with until it is installed again`,
      hint: 'it reaches sites installed from now on; reinstall a running site on purpose to apply it there',
    });
  }
  return findings;
}

/** A BareMetalHost must come after its Namespace, InfraEnv and NMStateConfig, so prune deletes it first. */
function waveDangers(cluster: CompiledCluster): Danger[] {
  const dangers: Danger[] = [];
  const before = cluster.manifests.filter((m) =>
    ['Namespace', 'InfraEnv', 'NMStateConfig'].includes(m.kind),
  );
  for (const bmh of cluster.manifests.filter((m) => m.kind === 'BareMetalHost')) {
    const blocking = before.filter((m) => waveOf(m) >= waveOf(bmh));
    if (blocking.length > 0) {
      dangers.push({
        cluster: cluster.clusterName,
        code: 'BMH_WAVE_ORDER',
        impact: 'dangerous',
        message: `BareMetalHost ${bmh.metadata.name} (wave ${String(waveOf(bmh))}) is not after ${blocking.map((m) => `${m.kind} ${m.metadata.name} (wave ${String(waveOf(m))})`).join(', ')}`,
        hint: 'on prune the host must be deleted before the objects its deprovisioning needs; keep the BareMetalHost in a later sync wave',
      });
    }
  }
  return dangers;
}
