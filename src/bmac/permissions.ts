/**
 * What each controller does to which resource: the one list the Helm chart's ClusterRole is
 * generated from (charts/siteforge-controller, `npm run chart`) and that reconciler unit tests
 * enforce (FakeCluster with rules), so a reconciler that starts using a verb fails its tests
 * until the verb is listed here and the chart is regenerated.
 *
 * Reads through the informers' cache need `list` and `watch`; `ObjectWriter.getLive` needs
 * `get`; `update` is `update` of the resource, `updateStatus` is `update` of `<resource>/status`.
 */
import type { GroupVersionKind } from '../kube/index.js';
import { BmacGvk, Gvk } from './api.js';

/** An RBAC PolicyRule (rbac.authorization.k8s.io/v1), as the ClusterRole carries it. */
export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/** The API verbs SiteForge uses. */
export const Verb = {
  Get: 'get',
  List: 'list',
  Watch: 'watch',
  Create: 'create',
  Update: 'update',
  Patch: 'patch',
  Delete: 'delete',
} as const;
export type Verb = (typeof Verb)[keyof typeof Verb];

/** Plural resource names of the kinds in Gvk. */
const RESOURCES: Readonly<Record<string, string>> = {
  BareMetalHost: 'baremetalhosts',
  PreprovisioningImage: 'preprovisioningimages',
  InfraEnv: 'infraenvs',
  Agent: 'agents',
  ClusterDeployment: 'clusterdeployments',
  Secret: 'secrets',
  ConfigMap: 'configmaps',
  Event: 'events',
  Lease: 'leases',
  Deployment: 'deployments',
  AgentClusterInstall: 'agentclusterinstalls',
  NMStateConfig: 'nmstateconfigs',
  ClusterImageSet: 'clusterimagesets',
  AgentServiceConfig: 'agentserviceconfigs',
};

/** The API group and plural resource of a kind, e.g. `metal3.io`, `baremetalhosts`. */
export function resourceOf(gvk: GroupVersionKind): { group: string; resource: string } {
  const slash = gvk.apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : gvk.apiVersion.slice(0, slash);
  return { group, resource: RESOURCES[gvk.kind] ?? `${gvk.kind.toLowerCase()}s` };
}

const CACHED = [Verb.List, Verb.Watch] as const;

function rule(gvk: GroupVersionKind, verbs: readonly Verb[], subresource?: string): PolicyRule {
  const { group, resource } = resourceOf(gvk);
  return {
    apiGroups: [group],
    resources: [subresource === undefined ? resource : `${resource}/${subresource}`],
    verbs,
  };
}

/** The permissions of each part of the controller process. */
export const Permissions = {
  /**
   * The Bare Metal Agent Controller (assisted.md §1). Spoke objects (Nodes, Machines, the MCS
   * CA ConfigMap) are read and written with the spoke's admin kubeconfig, not these rules.
   */
  bmac: [
    rule(Gvk.BareMetalHost, [...CACHED, Verb.Update]),
    // Spec and labels; deleted on converged remove-agent-and-node-on-delete.
    rule(Gvk.Agent, [...CACHED, Verb.Update, Verb.Delete]),
    rule(Gvk.InfraEnv, CACHED),
    rule(Gvk.ClusterDeployment, CACHED),
    rule(Gvk.PreprovisioningImage, CACHED),
    // Day 2: the platform of the spoke, read live.
    rule(BmacGvk.AgentClusterInstall, [Verb.Get]),
    // BMC credentials and admin kubeconfigs read live; the fencing credentials Secret written.
    rule(Gvk.Secret, [Verb.Get, Verb.Create, Verb.Update]),
  ],
  /** The PreprovisioningImage controller (assisted.md §2). */
  preprovisioningImage: [
    rule(Gvk.PreprovisioningImage, [...CACHED, Verb.Update]),
    rule(Gvk.PreprovisioningImage, [Verb.Update], 'status'),
    // The enable-ironic-agent annotation.
    rule(Gvk.InfraEnv, [...CACHED, Verb.Update]),
    // The internal ignition override, read live and applied server-side
    // (src/bmac/infraenv-backend.ts) until the assisted core keeps InfraEnv records.
    rule(Gvk.InfraEnv, [Verb.Get, Verb.Patch]),
    // The reboot annotation.
    rule(Gvk.BareMetalHost, [...CACHED, Verb.Update]),
  ],
  /** SiteForge's own Redfish host provisioner (redfish mode). */
  redfishHost: [
    rule(Gvk.BareMetalHost, [...CACHED, Verb.Update]),
    // The boot checkpoint annotation is written on a live read, between BMC requests.
    rule(Gvk.BareMetalHost, [Verb.Get]),
    rule(Gvk.BareMetalHost, [Verb.Update], 'status'),
    // An Agent's changes wake its host.
    rule(Gvk.Agent, CACHED),
    // BMC credentials: cached when labelled agent-install.openshift.io/watch, else read live
    // and labelled (src/bmac/watched-secrets.ts).
    rule(Gvk.Secret, [Verb.Get, Verb.List, Verb.Watch, Verb.Update]),
  ],
  /**
   * The assisted core (assisted.md §3-§8): InfraEnv images, the Agents the agent API registers,
   * and the install orchestration of AgentClusterInstalls and ClusterDeployments.
   */
  assisted: [
    // isoDownloadURL, bootArtifacts and ImageCreated; the finalizer; read live before an ISO.
    rule(Gvk.InfraEnv, [Verb.Get, ...CACHED, Verb.Update]),
    rule(Gvk.InfraEnv, [Verb.Update], 'status'),
    // Static network configuration of the hosts of an InfraEnv (its nmStateConfigLabelSelector).
    rule(Gvk.NMStateConfig, CACHED),
    // A registered host becomes an Agent; patched by the agent API, deleted on deregistration.
    rule(Gvk.Agent, [...CACHED, Verb.Create, Verb.Update, Verb.Patch, Verb.Delete]),
    rule(Gvk.Agent, [Verb.Update], 'status'),
    // Conditions, progress and the kubeconfig and password references; the finalizer.
    // Deleted by the ClusterDeployment's finalizer.
    rule(BmacGvk.AgentClusterInstall, [...CACHED, Verb.Update, Verb.Delete]),
    rule(BmacGvk.AgentClusterInstall, [Verb.Update], 'status'),
    // The extra manifests an ACI names (manifestsConfigMapRefs), read live: not every ConfigMap
    // of the hub is cached for a few of them.
    rule(Gvk.ConfigMap, [Verb.Get]),
    // spec.installed and spec.clusterMetadata on completion; the finalizer.
    rule(Gvk.ClusterDeployment, [...CACHED, Verb.Update]),
    // The release image of a cluster's imageSetRef.
    rule(Gvk.ClusterImageSet, CACHED),
    // Pull secrets cached when labelled agent-install.openshift.io/watch, else read live and
    // labelled; admin kubeconfig and kubeadmin password written.
    rule(Gvk.Secret, [Verb.Get, Verb.List, Verb.Watch, Verb.Create, Verb.Update]),
    rule(Gvk.Event, [Verb.Create, Verb.Update]),
  ],
  /** The runtime: Events, leader election, and mode detection at start-up. */
  runtime: [
    // A repeated Event is one Event whose count grows: written with update (KubeEventRecorder).
    rule(Gvk.Event, [Verb.Create, Verb.Update]),
    rule(Gvk.Lease, [Verb.Get, Verb.Create, Verb.Update]),
    // --mode auto looks for the Bare Metal Operator's Deployment by name, then by label.
    rule(Gvk.Deployment, [Verb.Get, Verb.List]),
  ],
} as const satisfies Record<string, readonly PolicyRule[]>;

const VERB_ORDER: readonly string[] = Object.values(Verb);

/**
 * Every controller's rules merged into one ClusterRole's: one rule per API group and resource,
 * with the union of the verbs, sorted by group, then resource (verbs in Verb order).
 */
export function clusterRoleRules(
  permissions: Readonly<Record<string, readonly PolicyRule[]>> = Permissions,
): PolicyRule[] {
  const merged = new Map<string, { group: string; resource: string; verbs: Set<string> }>();
  for (const rules of Object.values(permissions))
    for (const r of rules)
      for (const group of r.apiGroups)
        for (const resource of r.resources) {
          const key = `${group}\u0000${resource}`;
          const entry = merged.get(key) ?? { group, resource, verbs: new Set<string>() };
          for (const verb of r.verbs) entry.verbs.add(verb);
          merged.set(key, entry);
        }
  return [...merged.values()]
    .sort((a, b) =>
      a.group === b.group ? a.resource.localeCompare(b.resource) : a.group.localeCompare(b.group),
    )
    .map((e) => ({
      apiGroups: [e.group],
      resources: [e.resource],
      verbs: [...e.verbs].sort((x, y) => VERB_ORDER.indexOf(x) - VERB_ORDER.indexOf(y)),
    }));
}

/** Whether `rules` allow `verb` on `resource` (with `/subresource`) of API group `group`. */
export function allows(
  rules: readonly PolicyRule[],
  group: string,
  resource: string,
  verb: string,
): boolean {
  const any = (list: readonly string[], value: string): boolean =>
    list.includes('*') || list.includes(value);
  return rules.some(
    (r) => any(r.apiGroups, group) && any(r.resources, resource) && any(r.verbs, verb),
  );
}
