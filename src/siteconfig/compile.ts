/**
 * The SiteConfig compiler: one validated SiteConfig in, the hub objects of each of its clusters
 * out, as siteconfig-generator would produce them (names, namespaces, labels, annotations, sync
 * waves and field mappings), in a deterministic order. Pure: no I/O, no clock, no environment.
 */
import { quote } from '../shared/errors.js';
import type { AgentClusterInstallSpec } from '../imports/extensions.hive.openshift.io.js';
import type { ExternalSecretSpec } from '../imports/external-secrets.io.js';
import type { BareMetalHostSpec } from '../imports/metal3.io.js';
import type {
  AgentClusterInstall,
  BareMetalHost,
  ClusterDeployment,
  ConfigMap,
  EmittedObject,
  EmittedObjectOf,
  ExternalSecret,
  HostFirmwareSettings,
  InfraEnv,
  KlusterletAddonConfig,
  ManagedCluster,
  Namespace,
  NMStateConfig,
  Secret,
} from './emitted-objects.js';
import { splitConfigMapData } from './extra-manifests/index.js';
import { emptyResources } from './resources.js';
import type {
  ClusterResources,
  ResourceProblem,
  SecretFiles,
  SiteResources,
  TemplateOverride,
} from './resources.js';
import type {
  CredentialsSource,
  NodeNetwork,
  SiteConfig,
  SiteConfigCluster,
  SiteConfigNode,
} from './types.js';

/**
 * A Kubernetes object as plain data: what the pipeline after the compilers handles. The
 * compilers build each object as its EmittedObject type first (emitted-objects.ts).
 */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly [field: string]: unknown;
}

/** The objects generated for one cluster, in apply order. */
export interface CompiledCluster {
  readonly clusterName: string;
  readonly manifests: readonly Manifest[];
}

/** Annotation and label keys the hub controllers read. */
export const Keys = {
  SyncWave: 'argocd.argoproj.io/sync-wave',
  ZtpGenerated: 'ran.openshift.io/ztp-gitops-generated',
  InstallConfigOverrides: 'agent-install.openshift.io/install-config-overrides',
  CpusetDeprecation: 'ran.openshift.io/ztp-warning-field-deprecation-cpuset',
  ExtraManifestPathDeprecation: 'ran.openshift.io/ztp-warning-field-deprecation-extraManifestPath',
  BmacHostname: 'bmac.agent-install.openshift.io/hostname',
  BmacRole: 'bmac.agent-install.openshift.io/role',
  BmacInstallerArgs: 'bmac.agent-install.openshift.io/installer-args',
  BmacIgnitionOverrides: 'bmac.agent-install.openshift.io/ignition-config-overrides',
  BmacNodeLabelPrefix: 'bmac.agent-install.openshift.io.node-label.',
  InspectDisabled: 'inspect.metal3.io',
  InfraEnvLabel: 'infraenvs.agent-install.openshift.io',
  NmstateLabel: 'nmstate-label',
  AcceleratedZtp: 'accelerated-ztp',
  RemoveAgentOnDelete: 'bmac.agent-install.openshift.io/remove-agent-and-node-on-delete',
} as const;

/** Argo CD sync waves per kind: BareMetalHost last, so that prune deletes it first. */
export const SyncWaves: Readonly<Record<string, number>> = {
  Namespace: 0,
  AgentClusterInstall: 1,
  ClusterDeployment: 1,
  NMStateConfig: 1,
  InfraEnv: 1,
  ConfigMap: 1,
  HostFirmwareSettings: 1,
  Secret: 1,
  ExternalSecret: 1,
  ManagedCluster: 2,
  KlusterletAddonConfig: 2,
  BareMetalHost: 3,
};

const NODE_KINDS = new Set(['BareMetalHost', 'NMStateConfig', 'HostFirmwareSettings']);

/** One key of an ExternalSecret: a callback's object literal is checked field by field when typed. */
type ExternalSecretData = NonNullable<ExternalSecretSpec['data']>[number];

/** A deprecation warning siteconfig-generator writes as an annotation on every object of a kind. */
interface DeprecationAnnotation {
  readonly kind: string;
  readonly key: string;
  readonly message: string;
  readonly applies: (cluster: SiteConfigCluster) => boolean;
}

/**
 * siteconfig-generator's deprecation annotations, word for word and on the same objects (every
 * ConfigMap of the cluster, the v2 site ConfigMap included), so that a hub moving from it sees
 * no change to its live objects. SiteForge's own advice is the warning on stderr.
 */
const DEPRECATION_ANNOTATIONS: readonly DeprecationAnnotation[] = [
  {
    kind: 'AgentClusterInstall',
    key: Keys.CpusetDeprecation,
    message:
      'cpuset will be deprecated after OCP 4.15, please use cpuPartitioningMode for OCP versions >= 4.14',
    applies: (cluster) => cluster.nodes.some((node) => (node.cpuset ?? '') !== ''),
  },
  {
    kind: 'ConfigMap',
    key: Keys.ExtraManifestPathDeprecation,
    message:
      'extraManifestPath will be deprecated after OCP 4.15, please use ExtraManifests.SearchPaths for OCP versions >= 4.14',
    applies: (cluster) => (cluster.extraManifestPath ?? '') !== '',
  },
];

/** Compiles every cluster of a SiteConfig. */
export function compileSiteConfig(
  site: SiteConfig,
  resources: SiteResources = emptyResources(site),
  onProblem: (problem: ResourceProblem) => void = () => undefined,
): CompiledCluster[] {
  return site.spec.clusters.map((cluster, index) => ({
    clusterName: cluster.clusterName,
    manifests: sortManifests(
      new ClusterCompiler(site, cluster, resources.clusters[index]!, onProblem).compile(),
    ),
  }));
}

/** Compiles several SiteConfigs; clusters come sorted by name, objects by wave, kind and name. */
export function compileFleet(sites: readonly SiteConfig[]): CompiledCluster[] {
  return sites
    .flatMap((site) => compileSiteConfig(site))
    .sort((a, b) => compareText(a.clusterName, b.clusterName));
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The sync wave of a generated object. */
export function waveOf(manifest: Manifest): number {
  return Number(manifest.metadata.annotations?.[Keys.SyncWave] ?? 0);
}

/** Sorts one cluster's objects in apply order: wave, kind, namespace, name. */
export function sortManifests(manifests: Manifest[]): Manifest[] {
  return manifests.sort(
    (a, b) =>
      waveOf(a) - waveOf(b) ||
      compareText(a.kind, b.kind) ||
      compareText(a.metadata.namespace ?? '', b.metadata.namespace ?? '') ||
      compareText(a.metadata.name, b.metadata.name),
  );
}

/**
 * Merges `networkType` (and `cpuPartitioningMode: AllNodes`) into the user's install-config
 * overrides: `networking` first, then the user's keys in their order.
 */
export function installConfigOverrides(cluster: SiteConfigCluster): string {
  const user = cluster.installConfigOverrides
    ? (JSON.parse(cluster.installConfigOverrides) as Record<string, unknown>)
    : {};
  const userNetworking = user['networking'];
  const networking = {
    ...(userNetworking !== null && typeof userNetworking === 'object' ? userNetworking : {}),
    networkType: cluster.networkType ?? 'OVNKubernetes',
  };
  const merged: Record<string, unknown> = { networking };
  for (const [key, value] of Object.entries(user)) if (key !== 'networking') merged[key] = value;
  if (cluster.cpuPartitioningMode === 'AllNodes') merged['cpuPartitioningMode'] = 'AllNodes';
  return JSON.stringify(merged);
}

class ClusterCompiler {
  private readonly name: string;
  private readonly masters: number;
  private readonly workers: number;
  private chunks: readonly Readonly<Record<string, string>>[] | undefined;
  private deprecations: readonly DeprecationAnnotation[] | undefined;

  constructor(
    private readonly site: SiteConfig,
    private readonly cluster: SiteConfigCluster,
    private readonly resources: ClusterResources,
    private readonly onProblem: (problem: ResourceProblem) => void,
  ) {
    this.name = cluster.clusterName;
    this.masters = cluster.nodes.filter((node) => (node.role ?? 'master') === 'master').length;
    // Single-node clusters keep workerAgents at 0 so that adding workers later (SNO expansion)
    // does not mutate the immutable AgentClusterInstall.
    this.workers = this.masters === 1 ? 0 : cluster.nodes.length - this.masters;
  }

  compile(): Manifest[] {
    const out: Manifest[] = [];
    /** Adds the default object of a kind, or its crTemplate override, unless suppressed. */
    const add = <Kind extends EmittedObject['kind']>(
      kind: Kind,
      build: () => EmittedObjectOf<Kind> | undefined,
      node?: SiteConfigNode,
      nodeIndex = 0,
    ): void => {
      if (this.suppressed(kind, node)) return;
      const templates = node
        ? this.resources.nodes[nodeIndex]!.templates
        : this.resources.templates;
      const override = templates[kind];
      const manifest = override ? this.applyOverride(override, build(), node) : build();
      if (manifest) out.push(this.decorate(manifest, node));
    };
    add('Namespace', () => this.namespace());
    add('AgentClusterInstall', () => this.agentClusterInstall());
    add('ClusterDeployment', () => this.clusterDeployment());
    add('InfraEnv', () => this.infraEnv());
    add('ConfigMap', () => this.extraManifestsConfigMap());
    for (const overflow of this.extraManifestOverflow())
      out.push(this.decorate(overflow, undefined));
    add('ManagedCluster', () => this.managedCluster());
    add('KlusterletAddonConfig', () => this.klusterletAddonConfig());
    for (const manifest of [...this.pullSecret(), ...this.siteConfigMap()]) {
      out.push(this.decorate(manifest, undefined));
    }
    this.cluster.nodes.forEach((node, index) => {
      add('NMStateConfig', () => this.nmStateConfig(node), node, index);
      add('HostFirmwareSettings', () => this.hostFirmwareSettings(index), node, index);
      add('BareMetalHost', () => this.bareMetalHost(node), node, index);
      const credentials = this.bmcCredentials(node, index);
      if (credentials && !this.suppressed('BareMetalHost', node)) {
        out.push(this.decorate(credentials, node));
      }
    });
    return out;
  }

  /**
   * Replaces a default object with its crTemplate. Where siteconfig-generator silently ignored
   * an override with another name or namespace, or panicked on a missing sync wave, this
   * reports the problem and keeps the default.
   */
  private applyOverride(
    override: TemplateOverride,
    fallback: Manifest | undefined,
    node: SiteConfigNode | undefined,
  ): Manifest | undefined {
    const expectedName = node ? node.hostName : this.name;
    const clusterScoped = override.kind === 'Namespace' || override.kind === 'ManagedCluster';
    const expectedNamespace = clusterScoped ? undefined : this.name;
    const metadata = (override.manifest['metadata'] ?? {}) as {
      name?: unknown;
      namespace?: unknown;
      annotations?: Record<string, unknown>;
    };
    const problems: string[] = [];
    if (metadata.name !== expectedName) {
      problems.push(`metadata.name is ${quote(metadata.name)}, expected ${quote(expectedName)}`);
    }
    if (metadata.namespace !== expectedNamespace) {
      const expected =
        expectedNamespace === undefined ? 'none (cluster-scoped)' : quote(expectedNamespace);
      problems.push(`metadata.namespace is ${quote(metadata.namespace)}, expected ${expected}`);
    }
    const wave = String(SyncWaves[override.kind] ?? 0);
    if (metadata.annotations?.[Keys.SyncWave] !== wave) {
      problems.push(`it must carry the annotation ${Keys.SyncWave}: ${quote(wave)}`);
    }
    if (problems.length > 0) {
      this.onProblem({
        path: override.path,
        code: 'TEMPLATE_MISMATCH',
        message: `crTemplate ${override.file} cannot replace the ${override.kind}: ${problems.join('; ')}`,
        hint: 'a crTemplate keeps the name, namespace and sync wave of the object it replaces; use "{{ .Cluster.ClusterName }}" and "{{ .Node.HostName }}" placeholders',
      });
      return fallback;
    }
    const manifest = override.manifest as unknown as Manifest;
    if (override.kind === 'ConfigMap' && fallback) {
      // The extra manifests are merged into a ConfigMap override (OCPBUGS-7092).
      const data = {
        ...(fallback['data'] as Record<string, string>),
        ...(manifest['data'] as Record<string, string> | undefined),
      };
      return { ...manifest, data };
    }
    return manifest;
  }

  /** The Secret or ExternalSecret holding credentials from a CredentialsSource. */
  private credentialsObject(
    name: string,
    source: CredentialsSource,
    files: SecretFiles | undefined,
    keys: readonly { key: string; property: string }[],
    type: string,
  ): Secret | ExternalSecret | undefined {
    if (source.externalSecret) {
      const external = source.externalSecret;
      return {
        apiVersion: external.apiVersion ?? 'external-secrets.io/v1',
        kind: 'ExternalSecret',
        metadata: { name, namespace: this.name },
        spec: {
          refreshInterval: external.refreshInterval ?? '1h',
          secretStoreRef: {
            name: external.storeRef.name,
            kind: external.storeRef.kind ?? 'ClusterSecretStore',
          },
          target: { name, creationPolicy: 'Owner', template: { type } },
          data: keys.map(({ key, property }): ExternalSecretData => ({
            secretKey: key,
            remoteRef: { key: external.key, property },
          })),
        },
      };
    }
    if (!files) return undefined;
    const data: Record<string, string> = {};
    for (const { key } of keys)
      data[key] = Buffer.from(files[key] ?? '', 'utf8').toString('base64');
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: this.name },
      type,
      data,
    };
  }

  private bmcCredentials(node: SiteConfigNode, index: number): Secret | ExternalSecret | undefined {
    if (!node.bmcCredentials) return undefined;
    return this.credentialsObject(
      bmcSecretName(node),
      node.bmcCredentials,
      this.resources.nodes[index]!.bmcCredentials,
      [
        { key: 'username', property: 'username' },
        { key: 'password', property: 'password' },
      ],
      'Opaque',
    );
  }

  private pullSecret(): (Secret | ExternalSecret)[] {
    const source = this.site.spec.pullSecret;
    if (!source) return [];
    const secret = this.credentialsObject(
      this.site.spec.pullSecretRef.name,
      source,
      this.resources.pullSecret,
      [{ key: '.dockerconfigjson', property: '.dockerconfigjson' }],
      'kubernetes.io/dockerconfigjson',
    );
    return secret ? [secret] : [];
  }

  /** v2 only: the optional ConfigMap of site data, namespace `ztp-site` by default. */
  private siteConfigMap(): ConfigMap[] {
    const map = this.cluster.siteConfigMap;
    if (
      this.site.apiVersion !== 'ran.openshift.io/v2' ||
      !map?.data ||
      Object.keys(map.data).length === 0
    )
      return [];
    return [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: map.name !== undefined && map.name !== '' ? map.name : `ztp-site-${this.name}`,
          namespace: map.namespace ?? 'ztp-site',
          annotations: { [Keys.SyncWave]: '2' },
        },
        data: { ...map.data },
      },
    ];
  }

  /** HostFirmwareSettings of a node whose biosConfigRef resolved (node > cluster > site). */
  private hostFirmwareSettings(index: number): HostFirmwareSettings | undefined {
    const settings = this.resources.nodes[index]!.biosSettings;
    if (!settings) return undefined;
    const node = this.cluster.nodes[index]!;
    return {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'HostFirmwareSettings',
      metadata: { name: node.hostName, namespace: this.name },
      spec: { settings: { ...settings } },
    };
  }

  /** crSuppression: the cluster list covers cluster kinds, the node list covers node kinds. */
  private suppressed(kind: string, node: SiteConfigNode | undefined): boolean {
    const list = NODE_KINDS.has(kind) ? node?.crSuppression : this.cluster.crSuppression;
    return list?.includes(kind) ?? false;
  }

  /**
   * Adds the generated marker, the sync wave and `crAnnotations.add`: the first level (node,
   * cluster, site) with an entry for the kind wins, and it only adds keys that are missing.
   */
  private decorate(manifest: Manifest, node: SiteConfigNode | undefined): Manifest {
    const annotations: Record<string, string> = {
      ...manifest.metadata.annotations,
      [Keys.SyncWave]:
        manifest.metadata.annotations?.[Keys.SyncWave] ?? String(SyncWaves[manifest.kind] ?? 0),
      [Keys.ZtpGenerated]: '{}',
    };
    for (const warning of this.deprecationWarnings())
      if (warning.kind === manifest.kind) annotations[warning.key] = warning.message;
    const levels = NODE_KINDS.has(manifest.kind)
      ? [node, this.cluster, this.site.spec]
      : [this.cluster, this.site.spec];
    const extra = levels
      .map((level) => level?.crAnnotations?.add?.[manifest.kind])
      .find((entry) => entry !== undefined);
    for (const [key, value] of Object.entries(extra ?? {}))
      if (!(key in annotations)) annotations[key] = value;
    return { ...manifest, metadata: { ...manifest.metadata, annotations } };
  }

  /** The deprecation annotations that apply to this cluster, worked out once. */
  private deprecationWarnings(): readonly DeprecationAnnotation[] {
    this.deprecations ??= DEPRECATION_ANNOTATIONS.filter((warning) =>
      warning.applies(this.cluster),
    );
    return this.deprecations;
  }

  private namespace(): Namespace {
    return {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: this.name, labels: { name: this.name } },
    };
  }

  private manifestRefs(): Pick<
    AgentClusterInstallSpec,
    'manifestsConfigMapRef' | 'manifestsConfigMapRefs'
  > {
    const aztp = this.cluster.clusterLabels?.[Keys.AcceleratedZtp];
    const refs = this.extraManifestChunks().map((_, i) => ({ name: this.chunkName(i) }));
    if (aztp === 'full' || aztp === 'partial') refs.push({ name: `${this.name}-aztp` });
    if (this.site.apiVersion === 'ran.openshift.io/v1' && refs.length === 1) {
      return { manifestsConfigMapRef: { name: this.name } };
    }
    return { manifestsConfigMapRefs: refs };
  }

  private agentClusterInstall(): AgentClusterInstall {
    const { cluster, site } = this;
    const annotations: Record<string, string> = {
      [Keys.InstallConfigOverrides]: installConfigOverrides(cluster),
    };
    const networking = compact<AgentClusterInstallSpec['networking']>({
      clusterNetwork: cluster.clusterNetwork?.map((n) =>
        compact({ cidr: n.cidr, hostPrefix: n.hostPrefix }),
      ),
      machineNetwork: cluster.machineNetwork?.map((n) => ({ cidr: n.cidr })),
      serviceNetwork: cluster.serviceNetwork,
    });
    return {
      apiVersion: 'extensions.hive.openshift.io/v1beta1',
      kind: 'AgentClusterInstall',
      metadata: { name: this.name, namespace: this.name, annotations },
      spec: compact({
        clusterDeploymentRef: { name: this.name },
        holdInstallation: cluster.holdInstallation === true ? true : undefined,
        // Validation requires a ClusterImageSet on the cluster or the site.
        imageSetRef: {
          name: (cluster.clusterImageSetNameRef ?? site.spec.clusterImageSetNameRef)!,
        },
        apiVIP: cluster.apiVIP,
        ingressVIP: cluster.ingressVIP,
        apiVIPs: cluster.apiVIPs,
        ingressVIPs: cluster.ingressVIPs,
        networking: Object.keys(networking).length > 0 ? networking : undefined,
        provisionRequirements: { controlPlaneAgents: this.masters, workerAgents: this.workers },
        proxy: this.proxy(),
        sshPublicKey: site.spec.sshPublicKey,
        ...this.manifestRefs(),
      }),
    };
  }

  private proxy(): AgentClusterInstallSpec['proxy'] {
    const proxy: NonNullable<AgentClusterInstallSpec['proxy']> = copyFields(this.cluster.proxy);
    return Object.keys(proxy).length > 0 ? proxy : undefined;
  }

  private clusterDeployment(): ClusterDeployment {
    return clusterDeployment(this.name, this.site.spec.baseDomain, this.site.spec.pullSecretRef);
  }

  private infraEnv(): InfraEnv {
    const { cluster, site } = this;
    return {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'InfraEnv',
      metadata: { name: this.name, namespace: this.name },
      spec: compact({
        clusterRef: { name: this.name, namespace: this.name },
        sshAuthorizedKey: site.spec.sshPublicKey,
        proxy: this.proxy(),
        pullSecretRef: { name: site.spec.pullSecretRef.name },
        ignitionConfigOverride: cluster.ignitionConfigOverride,
        nmStateConfigLabelSelector: { matchLabels: { [Keys.NmstateLabel]: this.name } },
        additionalNTPSources: cluster.additionalNTPSources,
      }),
    };
  }

  private extraManifestsConfigMap(): ConfigMap {
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: this.name, namespace: this.name },
      // Kept by identity: clusters with the same extra manifests share one (frozen) object,
      // which the YAML writer renders once.
      data: this.extraManifestChunks()[0]!,
    };
  }

  /**
   * The extra manifests split to fit ConfigMaps (1 MiB each); where siteconfig-generator
   * failed at apply time, the later chunks become `<cluster>-extra-manifests-<n>`, all
   * referenced from the AgentClusterInstall.
   */
  private extraManifestChunks(): readonly Readonly<Record<string, string>>[] {
    this.chunks ??= chunksOf(this.resources.extraManifests);
    return this.chunks;
  }

  private chunkName(index: number): string {
    return index === 0 ? this.name : `${this.name}-extra-manifests-${String(index)}`;
  }

  /** The ConfigMaps of the extra manifests beyond the first. */
  private extraManifestOverflow(): ConfigMap[] {
    return this.extraManifestChunks()
      .slice(1)
      .map((data, i) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: this.chunkName(i + 1), namespace: this.name },
        data,
      }));
  }

  private managedCluster(): ManagedCluster {
    const labels: Record<string, string> = { ...this.cluster.clusterLabels };
    labels['vendor'] ??= 'auto-detect';
    labels['cloud'] ??= 'auto-detect';
    return {
      apiVersion: 'cluster.open-cluster-management.io/v1',
      kind: 'ManagedCluster',
      metadata: { name: this.name, labels },
      spec: { hubAcceptsClient: true },
    };
  }

  private klusterletAddonConfig(): KlusterletAddonConfig {
    return klusterletAddonConfig(this.name);
  }

  /** Emitted only when the node has network settings: an empty NMStateConfig breaks installs. */
  private nmStateConfig(node: SiteConfigNode): NMStateConfig | undefined {
    return nmStateConfig(
      node.nodeNetwork,
      { name: node.hostName, namespace: this.name },
      this.name,
    );
  }

  private bareMetalHost(node: SiteConfigNode): BareMetalHost {
    const annotations: Record<string, string> = {
      [Keys.BmacHostname]: node.hostName,
      [Keys.BmacRole]: node.role ?? 'master',
    };
    if (node.ironicInspect === 'disabled') annotations[Keys.InspectDisabled] = 'disabled';
    if (node.remove === true) {
      // Applied once more with the removal annotation, then deleted by Argo CD as a hook: BMAC
      // sees the deletion with the annotation and removes the Agent and the Node.
      annotations[Keys.RemoveAgentOnDelete] = 'true';
      annotations['argocd.argoproj.io/hook'] = 'PostSync';
      annotations['argocd.argoproj.io/hook-delete-policy'] = 'HookSucceeded';
    }
    if (node.installerArgs !== undefined) annotations[Keys.BmacInstallerArgs] = node.installerArgs;
    if (node.ignitionConfigOverride !== undefined)
      annotations[Keys.BmacIgnitionOverrides] = node.ignitionConfigOverride;
    for (const [key, value] of Object.entries(node.nodeLabels ?? {})) {
      annotations[`${Keys.BmacNodeLabelPrefix}${key}`] = value;
    }
    const hints: NonNullable<BareMetalHostSpec['rootDeviceHints']> = copyFields(
      node.rootDeviceHints,
    );
    return {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata: {
        name: node.hostName,
        namespace: this.name,
        labels: { [Keys.InfraEnvLabel]: this.name },
        annotations,
      },
      spec: compact({
        bootMode: node.bootMode ?? 'UEFI',
        bmc: {
          address: node.bmcAddress,
          disableCertificateVerification: true,
          credentialsName: bmcSecretName(node),
        },
        bootMACAddress: node.bootMACAddress,
        automatedCleaningMode: node.automatedCleaningMode ?? 'disabled',
        online: true,
        rootDeviceHints: Object.keys(hints).length > 0 ? hints : undefined,
        userData: node.userData,
      }),
    };
  }
}

const CHUNKS = new WeakMap<object, readonly Readonly<Record<string, string>>[]>();

/**
 * ConfigMap chunks of extra-manifest data, computed once per data object: clusters that share
 * the default set share one object, which keeps its identity (and so its rendered YAML).
 */
function chunksOf(
  data: Readonly<Record<string, string>>,
): readonly Readonly<Record<string, string>>[] {
  let chunks = CHUNKS.get(data);
  if (!chunks) {
    const split = splitConfigMapData(data);
    chunks = split.length === 1 ? [data] : split.map((chunk) => Object.freeze(chunk));
    CHUNKS.set(data, chunks);
  }
  return chunks;
}

/** The ClusterDeployment of a cluster: its install is the AgentClusterInstall of that name. */
export function clusterDeployment(
  name: string,
  baseDomain: string,
  pullSecretRef: { readonly name: string },
): ClusterDeployment {
  return {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterDeployment',
    metadata: { name, namespace: name },
    spec: {
      baseDomain,
      clusterInstallRef: {
        group: 'extensions.hive.openshift.io',
        kind: 'AgentClusterInstall',
        name,
        version: 'v1beta1',
      },
      clusterName: name,
      platform: {
        agentBareMetal: { agentSelector: { matchLabels: { 'cluster-name': name } } },
      },
      pullSecretRef: { name: pullSecretRef.name },
    },
  };
}

/**
 * The KlusterletAddonConfig of a cluster: only the policy controller, which ZTP needs for its
 * policies; the other add-ons stay off on far-edge clusters.
 */
export function klusterletAddonConfig(name: string): KlusterletAddonConfig {
  return {
    apiVersion: 'agent.open-cluster-management.io/v1',
    kind: 'KlusterletAddonConfig',
    metadata: { name: name, namespace: name },
    spec: {
      clusterName: name,
      clusterNamespace: name,
      applicationManager: { enabled: false },
      certPolicyController: { enabled: false },
      iamPolicyController: { enabled: false },
      policyController: { enabled: true },
      searchCollector: { enabled: false },
    },
  };
}

/** The BMC credentials Secret of a node: the one it names, or the one SiteForge emits for it. */
export function bmcSecretName(node: SiteConfigNode): string {
  return node.bmcCredentialsName?.name ?? `${node.hostName}-bmc-secret`;
}

/**
 * The NMStateConfig of a node's network, or none when it has neither config nor interfaces.
 * InfraEnvs select it by `label`.
 */
export function nmStateConfig(
  network: NodeNetwork | undefined,
  metadata: { readonly name: string; readonly namespace: string },
  label: string,
): NMStateConfig | undefined {
  const hasConfig = network?.config !== undefined && Object.keys(network.config).length > 0;
  const hasInterfaces = (network?.interfaces?.length ?? 0) > 0;
  if (!hasConfig && !hasInterfaces) return undefined;
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'NMStateConfig',
    metadata: { ...metadata, labels: { [Keys.NmstateLabel]: label } },
    spec: compact({
      config: hasConfig ? network.config : undefined,
      interfaces: hasInterfaces
        ? network?.interfaces?.map((nic) => ({ name: nic.name, macAddress: nic.macAddress }))
        : undefined,
    }),
  };
}

/**
 * Drops keys whose value is undefined, so that absent input stays absent in the output. T comes
 * from where the result goes (`spec: compact({...})`), never from the argument, so that the
 * object literal is checked against it: a misspelt or mis-typed field does not compile.
 */
export function compact<T extends object = never>(record: NoInfer<T>): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (value !== undefined) out[key] = value;
  return out as T;
}

/**
 * `In` where every field it declares, at any depth, is a field of `Out`; a field `Out` lacks
 * becomes `never`, so a value of `In` is not assignable.
 */
export type FieldsWithin<In, Out> = In extends readonly (infer Item)[]
  ? Out extends readonly (infer OutItem)[]
    ? readonly FieldsWithin<Item, OutItem>[]
    : In
  : In extends object
    ? {
        readonly [K in keyof In]: K extends keyof Out
          ? FieldsWithin<In[K], NonNullable<Out[K]>>
          : never;
      }
    : In;

/**
 * A copy of an input map (absent: empty) without its undefined values, for a field of an
 * emitted object that takes it whole. `Out` comes from where the result goes. A spread or a
 * whole copy escapes TypeScript's check of misspelt fields, so this one compiles only when
 * every field the input's type declares, at any depth, is a field of `Out` of a compatible type.
 */
export function copyFields<Out extends object = never, In extends NoInfer<Out> = never>(
  input: FieldsWithin<In, Out> | undefined,
): Out {
  return compact<Out>((input ?? {}) as NoInfer<Out>);
}
