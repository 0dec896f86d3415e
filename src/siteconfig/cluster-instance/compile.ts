/**
 * The ClusterInstance compiler: one validated ClusterInstance in, the objects the SiteConfig
 * operator's default assisted-installer templates (`ai-cluster-templates-v1`,
 * `ai-node-templates-v1`) would render for it, for hubs that do not run the operator.
 *
 * Differences from the operator, on purpose (docs/compatibility.md, "ClusterInstance"):
 * - sync waves are `argocd.argoproj.io/sync-wave` annotations with the templates' wave numbers
 *   (the operator reads `siteconfig.open-cluster-management.io/sync-wave`; here Argo CD applies);
 * - the Namespace is emitted too (wave 0): the operator leaves it to the user, Argo CD needs it;
 * - no `siteconfig.open-cluster-management.io/owned-by` label: no operator owns these objects;
 * - every object carries `ran.openshift.io/ztp-gitops-generated`, like every SiteForge object;
 * - an empty `nodeNetwork` gives no NMStateConfig (an empty one breaks installs, Bug 2028510);
 * - `pruneManifests` kinds are left out like `suppressedManifests` ones: Argo CD prunes them.
 * Pure: no I/O, no clock, no environment.
 */
import {
  clusterDeployment,
  compact,
  copyFields,
  installConfigOverrides,
  Keys,
  klusterletAddonConfig,
  nmStateConfig,
  sortManifests,
} from '../compile.js';
import type { CompiledCluster, Manifest } from '../compile.js';
import type {
  AgentClusterInstall,
  BareMetalHost,
  ClusterDeployment,
  EmittedObject,
  InfraEnv,
  KlusterletAddonConfig,
  ManagedCluster,
  Namespace,
  NMStateConfig,
} from '../emitted-objects.js';
import type { AgentClusterInstallSpec } from '../../imports/extensions.hive.openshift.io.js';
import type { BareMetalHostSpec } from '../../imports/metal3.io.js';
import { renderedInDoubleQuotes } from './template-quoting.js';
import { ClusterType } from './types.js';
import type {
  ClusterInstance,
  ClusterInstanceNode,
  ClusterInstanceSpec,
  ExtraMetadata,
} from './types.js';

type ClusterNetworkEntry = NonNullable<
  AgentClusterInstallSpec['networking']['clusterNetwork']
>[number];

/** Label and annotation keys of the default templates that v1 SiteConfig did not write. */
export const ClusterInstanceKeys = {
  /** ACM disaster recovery: BareMetalHosts are restored with the cluster activation data. */
  Backup: 'cluster.open-cluster-management.io/backup',
  /** The operator's own wave annotation, which Argo CD does not read. */
  OperatorSyncWave: 'siteconfig.open-cluster-management.io/sync-wave',
} as const;

/** The waves of the default assisted-installer templates. */
export const ClusterInstanceWaves: Readonly<Record<string, number>> = {
  Namespace: 0,
  AgentClusterInstall: 1,
  ClusterDeployment: 1,
  InfraEnv: 1,
  NMStateConfig: 1,
  ManagedCluster: 2,
  KlusterletAddonConfig: 2,
  BareMetalHost: 3,
};

/** Kinds rendered once per node by the default templates. */
export const NodeTemplateKinds: ReadonlySet<string> = new Set([
  'InfraEnv',
  'NMStateConfig',
  'BareMetalHost',
]);

/** Kinds the default templates render; a SiteConfig's other objects are not theirs. */
export const TemplateKinds: ReadonlySet<string> = new Set([
  ...NodeTemplateKinds,
  'AgentClusterInstall',
  'ClusterDeployment',
  'ManagedCluster',
  'KlusterletAddonConfig',
]);

/** Compiles a ClusterInstance into its Namespace and the objects of the default templates. */
export function compileClusterInstance(ci: ClusterInstance): CompiledCluster {
  return {
    clusterName: ci.spec.clusterName,
    manifests: sortManifests(new ClusterInstanceCompiler(ci.spec).compile()),
  };
}

class ClusterInstanceCompiler {
  private readonly name: string;

  constructor(private readonly spec: ClusterInstanceSpec) {
    this.name = spec.clusterName;
  }

  compile(): Manifest[] {
    const out: Manifest[] = [];
    const add = (manifest: EmittedObject | undefined, node?: ClusterInstanceNode): void => {
      if (manifest && !this.skipped(manifest, node)) out.push(this.decorate(manifest, node));
    };
    add(this.namespace());
    add(this.agentClusterInstall());
    add(this.clusterDeployment());
    add(this.managedCluster());
    add(this.klusterletAddonConfig());
    for (const node of this.spec.nodes) {
      add(this.infraEnv(node), node);
      add(this.nmStateConfig(node), node);
      add(this.bareMetalHost(node), node);
    }
    return out;
  }

  /** suppressedManifests by kind, pruneManifests by apiVersion and kind; node lists add to the cluster's. */
  private skipped(manifest: Manifest, node: ClusterInstanceNode | undefined): boolean {
    const suppressed = [
      ...(this.spec.suppressedManifests ?? []),
      ...(node?.suppressedManifests ?? []),
    ];
    const pruned = [...(this.spec.pruneManifests ?? []), ...(node?.pruneManifests ?? [])];
    return (
      suppressed.includes(manifest.kind) ||
      pruned.some((ref) => ref.kind === manifest.kind && ref.apiVersion === manifest.apiVersion)
    );
  }

  /**
   * The wave, the generated marker, then extraAnnotations and extraLabels: a node's entry for a
   * kind replaces the cluster's entry for it, and neither overwrites a key the template set.
   */
  private decorate(manifest: Manifest, node: ClusterInstanceNode | undefined): Manifest {
    const pick = (level: 'extraAnnotations' | 'extraLabels'): Readonly<Record<string, string>> => {
      const entry = (
        extra: ExtraMetadata | undefined,
      ): Readonly<Record<string, string>> | undefined => extra?.[manifest.kind];
      return (node ? entry(node[level]) : undefined) ?? entry(this.spec[level]) ?? {};
    };
    const annotations: Record<string, string> = {
      ...manifest.metadata.annotations,
      [Keys.SyncWave]: String(ClusterInstanceWaves[manifest.kind] ?? 0),
      [Keys.ZtpGenerated]: '{}',
    };
    for (const [key, value] of Object.entries(pick('extraAnnotations')))
      if (!(key in annotations)) annotations[key] = value;
    const labels: Record<string, string> = { ...manifest.metadata.labels };
    for (const [key, value] of Object.entries(pick('extraLabels')))
      if (!(key in labels)) labels[key] = value;
    return {
      ...manifest,
      metadata: {
        ...manifest.metadata,
        ...(Object.keys(labels).length > 0 ? { labels } : {}),
        annotations,
      },
    };
  }

  private namespace(): Namespace {
    return {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: this.name, labels: { name: this.name } },
    };
  }

  /** Agents per role; SNO keeps workerAgents at 0 so that SNO expansion does not mutate it. */
  private agents(): AgentClusterInstallSpec['provisionRequirements'] {
    const count = (role: string): number =>
      this.spec.nodes.filter((n) => (n.role ?? 'master') === role).length;
    return {
      controlPlaneAgents: count('master'),
      workerAgents: this.spec.clusterType === ClusterType.SNO ? 0 : count('worker'),
      arbiterAgents: count('arbiter'),
    };
  }

  private proxy(): AgentClusterInstallSpec['proxy'] {
    const proxy: NonNullable<AgentClusterInstallSpec['proxy']> = copyFields(this.spec.proxy);
    return Object.keys(proxy).length > 0 ? proxy : undefined;
  }

  private agentClusterInstall(): AgentClusterInstall {
    const { spec } = this;
    const refs = spec.extraManifestsRefs ?? [];
    return {
      apiVersion: 'extensions.hive.openshift.io/v1beta1',
      kind: 'AgentClusterInstall',
      metadata: {
        name: this.name,
        namespace: this.name,
        annotations: {
          [Keys.InstallConfigOverrides]: installConfigOverrides({
            clusterName: this.name,
            nodes: [],
            installConfigOverrides: spec.installConfigOverrides,
            networkType: spec.networkType,
            cpuPartitioningMode: spec.cpuPartitioningMode,
          }),
        },
      },
      spec: compact({
        clusterDeploymentRef: { name: this.name },
        holdInstallation: spec.holdInstallation ?? false,
        imageSetRef: { name: spec.clusterImageSetNameRef },
        apiVIPs: nonEmpty(spec.apiVIPs),
        ingressVIPs: nonEmpty(spec.ingressVIPs),
        networking: compact({
          clusterNetwork: nonEmpty(spec.clusterNetwork)?.map((n) =>
            compact<ClusterNetworkEntry>({ cidr: n.cidr, hostPrefix: n.hostPrefix }),
          ),
          machineNetwork: nonEmpty(spec.machineNetwork)?.map((n) => ({ cidr: n.cidr })),
          serviceNetwork: nonEmpty(spec.serviceNetwork)?.map((n) => n.cidr),
        }),
        provisionRequirements: this.agents(),
        proxy: this.proxy(),
        platformType: spec.platformType === '' ? undefined : spec.platformType,
        sshPublicKey: this.sshPublicKey(),
        manifestsConfigMapRefs: refs.length > 0 ? refs.map((r) => ({ name: r.name })) : undefined,
      }),
    };
  }

  /** As the templates write it, inside double quotes: lines fold into one (template-quoting.ts). */
  private sshPublicKey(): string {
    return renderedInDoubleQuotes(this.spec.sshPublicKey ?? '');
  }

  private clusterDeployment(): ClusterDeployment {
    return clusterDeployment(this.name, this.spec.baseDomain, this.spec.pullSecretRef);
  }

  /** The template's labels are vendor and cloud; extraLabels.ManagedCluster adds the rest. */
  private managedCluster(): ManagedCluster {
    return {
      apiVersion: 'cluster.open-cluster-management.io/v1',
      kind: 'ManagedCluster',
      metadata: { name: this.name, labels: { cloud: 'auto-detect', vendor: 'auto-detect' } },
      spec: { hubAcceptsClient: true },
    };
  }

  private klusterletAddonConfig(): KlusterletAddonConfig {
    return klusterletAddonConfig(this.name);
  }

  /** Name and namespace of a node's objects: its hostRef, or hostName in the cluster namespace. */
  private nodeObject(node: ClusterInstanceNode): { name: string; namespace: string } {
    return node.hostRef
      ? { name: node.hostRef.name, namespace: node.hostRef.namespace }
      : { name: node.hostName, namespace: this.name };
  }

  /** The node's architecture, else the cluster's unless that is `multi`. */
  private architecture(node: ClusterInstanceNode): string | undefined {
    if (node.cpuArchitecture !== undefined) return node.cpuArchitecture;
    const cluster = this.spec.cpuArchitecture ?? 'x86_64';
    return cluster === 'multi' ? undefined : cluster;
  }

  /** One InfraEnv per host, selecting that host's NMStateConfig. */
  private infraEnv(node: ClusterInstanceNode): InfraEnv {
    const { spec } = this;
    const object = this.nodeObject(node);
    return {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'InfraEnv',
      metadata: object,
      spec: compact({
        clusterRef: { name: this.name, namespace: this.name },
        sshAuthorizedKey: this.sshPublicKey(),
        proxy: this.proxy(),
        cpuArchitecture: this.architecture(node),
        pullSecretRef: { name: spec.pullSecretRef.name },
        ignitionConfigOverride: spec.ignitionConfigOverride ?? '',
        nmStateConfigLabelSelector: { matchLabels: { [Keys.NmstateLabel]: object.name } },
        additionalNTPSources: nonEmpty(spec.additionalNTPSources),
      }),
    };
  }

  private nmStateConfig(node: ClusterInstanceNode): NMStateConfig | undefined {
    const object = this.nodeObject(node);
    return nmStateConfig(node.nodeNetwork, object, object.name);
  }

  private bareMetalHost(node: ClusterInstanceNode): BareMetalHost {
    const object = this.nodeObject(node);
    const annotations: Record<string, string> = {
      [Keys.InspectDisabled]: node.ironicInspect ?? '',
    };
    for (const [key, value] of Object.entries(node.nodeLabels ?? {}))
      annotations[`${Keys.BmacNodeLabelPrefix}${key}`] = value;
    annotations[Keys.BmacHostname] = node.hostName;
    if (node.installerArgs) annotations[Keys.BmacInstallerArgs] = node.installerArgs;
    if (node.ignitionConfigOverride)
      annotations[Keys.BmacIgnitionOverrides] = node.ignitionConfigOverride;
    annotations[Keys.BmacRole] = node.role ?? 'master';
    const hints: NonNullable<BareMetalHostSpec['rootDeviceHints']> = copyFields(
      node.rootDeviceHints,
    );
    return {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata: {
        ...object,
        labels: {
          [Keys.InfraEnvLabel]: object.name,
          [ClusterInstanceKeys.Backup]: 'cluster-activation',
        },
        annotations,
      },
      spec: compact({
        bootMode: node.bootMode ?? 'UEFI',
        bmc: {
          address: node.bmcAddress,
          disableCertificateVerification: true,
          credentialsName: node.bmcCredentialsName.name,
        },
        bootMACAddress: node.bootMACAddress,
        automatedCleaningMode: node.automatedCleaningMode ?? 'disabled',
        online: true,
        architecture: this.architecture(node),
        rootDeviceHints: Object.keys(hints).length > 0 ? hints : undefined,
      }),
    };
  }
}

function nonEmpty<T>(list: readonly T[] | undefined): readonly T[] | undefined {
  return list && list.length > 0 ? list : undefined;
}
