/**
 * What a SiteConfig cluster becomes as a ClusterInstance: the field mapping shared by
 * `siteforge convert` (which writes the ClusterInstance files) and `--format clusterinstance`
 * (which renders them), and the list of fields a ClusterInstance cannot hold, each with why and
 * what to use instead (the upstream siteconfig-converter's warnings, and SiteForge's own
 * extensions). Pure: no I/O.
 */
import { bmcSecretName, compact, compileSiteConfig } from '../compile.js';
import type { Manifest } from '../compile.js';
import { emptyResources } from '../resources.js';
import type { SiteResources } from '../resources.js';
import type { NameRef, SiteConfig, SiteConfigCluster, SiteConfigNode } from '../types.js';
import { survivingDoubleQuotes } from './template-quoting.js';
import { ClusterInstanceApiVersion, ClusterType, DefaultTemplates } from './types.js';
import type {
  ClusterInstance,
  ClusterInstanceNode,
  ClusterInstanceSpec,
  ExtraMetadata,
} from './types.js';

/** Options of the SiteConfig → ClusterInstance mapping. */
export interface ClusterInstanceOptions {
  /**
   * Namespace of the template ConfigMaps in `templateRefs`: where the SiteConfig operator runs
   * (`open-cluster-management` in the ACM docs; some installs use `rhacm` or `siteconfig-operator`).
   * @default "open-cluster-management"
   */
  readonly templateNamespace?: string;
}

/**
 * What `siteforge generate --format clusterinstance` does with a field a ClusterInstance cannot
 * hold: `beside` — an object emitted next to the ClusterInstance carries it (HostFirmwareSettings,
 * extra-manifests ConfigMap, credentials); `lost` — the rendered objects differ; `unused` — no
 * generator ever used it.
 */
export type RenderOutcome = 'beside' | 'lost' | 'unused';

/** A SiteConfig field that a ClusterInstance cannot carry over. */
export interface ConversionWarning {
  /** Stable code; the CLI prints it as `CONVERT_<code>`. */
  readonly code: string;
  /** Path of the field in its SiteConfig document. */
  readonly path: readonly (string | number)[];
  /** The field as written, e.g. `userData`. */
  readonly field: string;
  /** The cluster it belongs to; undefined for site-level fields. */
  readonly clusterName?: string;
  readonly reason: string;
  /** What to use instead. */
  readonly replacement: string;
  readonly rendered: RenderOutcome;
}

/** Kinds whose objects the default templates render; others are emitted beside them. */
const RENDERED_KINDS = new Set([
  'AgentClusterInstall',
  'ClusterDeployment',
  'InfraEnv',
  'NMStateConfig',
  'BareMetalHost',
  'ManagedCluster',
  'KlusterletAddonConfig',
]);

/**
 * The ClusterInstance of each cluster of a SiteConfig, in spec order. `extraManifestsRefs` names
 * the ConfigMaps the SiteConfig compiles to for the cluster with these resources (the extra
 * manifests decide how many there are).
 */
export function clusterInstancesFor(
  site: SiteConfig,
  options: ClusterInstanceOptions = {},
  resources: SiteResources = emptyResources(site),
): ClusterInstance[] {
  const refs = extraManifestRefs(site, resources);
  return site.spec.clusters.map((cluster, index) =>
    clusterInstanceOf(site, cluster, refs[index] ?? [], options),
  );
}

/**
 * The ConfigMaps the AgentClusterInstall of each cluster refers to, read from the compiled
 * objects (suppression and crTemplates aside), so that they follow the compiler wherever it
 * puts the extra manifests.
 */
function extraManifestRefs(site: SiteConfig, resources: SiteResources): NameRef[][] {
  const plain: SiteConfig = {
    ...site,
    spec: {
      ...site.spec,
      crTemplates: undefined,
      clusters: site.spec.clusters.map((c) => ({
        ...c,
        crSuppression: undefined,
        crTemplates: undefined,
      })),
    },
  };
  const untemplated: SiteResources = {
    clusters: resources.clusters.map((c) => ({
      ...c,
      templates: {},
      nodes: c.nodes.map((n) => ({ ...n, templates: {} })),
    })),
  };
  return compileSiteConfig(plain, untemplated).map((compiled) => {
    const aci = compiled.manifests.find((m) => m.kind === 'AgentClusterInstall');
    const spec = (aci?.['spec'] ?? {}) as {
      manifestsConfigMapRef?: NameRef;
      manifestsConfigMapRefs?: readonly NameRef[];
    };
    const list =
      spec.manifestsConfigMapRefs ??
      (spec.manifestsConfigMapRef ? [spec.manifestsConfigMapRef] : []);
    return list.map((ref) => ({ name: ref.name }));
  });
}

/** One master: a single-node cluster (workers may join later); otherwise highly available. */
function clusterTypeOf(cluster: SiteConfigCluster): ClusterType {
  const masters = cluster.nodes.filter((n) => (n.role ?? 'master') === 'master').length;
  return masters === 1 ? ClusterType.SNO : ClusterType.HighlyAvailable;
}

/** Per kind, the first level (cluster, then site) with an entry wins, as crAnnotations did. */
function mergedAnnotations(
  site: SiteConfig,
  cluster: SiteConfigCluster,
): ExtraMetadata | undefined {
  const merged = { ...site.spec.crAnnotations?.add, ...cluster.crAnnotations?.add };
  return Object.keys(merged).length > 0 ? merged : undefined;
}

function nonEmpty<T>(list: readonly T[] | undefined): readonly T[] | undefined {
  return list && list.length > 0 ? list : undefined;
}

function clusterInstanceOf(
  site: SiteConfig,
  cluster: SiteConfigCluster,
  refs: readonly NameRef[],
  options: ClusterInstanceOptions,
): ClusterInstance {
  const namespace = options.templateNamespace ?? DefaultTemplates.namespace;
  const singular = (value: string | undefined): string[] | undefined =>
    value === undefined ? undefined : [value];
  const spec: ClusterInstanceSpec = {
    clusterName: cluster.clusterName,
    clusterType: clusterTypeOf(cluster),
    baseDomain: site.spec.baseDomain,
    pullSecretRef: { name: site.spec.pullSecretRef.name },
    clusterImageSetNameRef:
      cluster.clusterImageSetNameRef ?? site.spec.clusterImageSetNameRef ?? '',
    // The operator's templates fold its lines into one; written so that each key keeps its line.
    sshPublicKey:
      site.spec.sshPublicKey === undefined
        ? undefined
        : survivingDoubleQuotes(site.spec.sshPublicKey),
    networkType: cluster.networkType,
    cpuPartitioningMode: cluster.cpuPartitioningMode,
    holdInstallation: cluster.holdInstallation,
    installConfigOverrides: cluster.installConfigOverrides,
    apiVIPs: cluster.apiVIPs ?? singular(cluster.apiVIP),
    ingressVIPs: cluster.ingressVIPs ?? singular(cluster.ingressVIP),
    machineNetwork: cluster.machineNetwork?.map((n) => ({ cidr: n.cidr })),
    clusterNetwork: cluster.clusterNetwork?.map((n) =>
      n.hostPrefix === undefined ? { cidr: n.cidr } : { cidr: n.cidr, hostPrefix: n.hostPrefix },
    ),
    serviceNetwork: cluster.serviceNetwork?.map((cidr) => ({ cidr })),
    additionalNTPSources: cluster.additionalNTPSources,
    ignitionConfigOverride: cluster.ignitionConfigOverride,
    proxy: cluster.proxy,
    diskEncryption:
      cluster.diskEncryption === undefined
        ? undefined
        : compact({ type: cluster.diskEncryption.type, tang: cluster.diskEncryption.tang }),
    extraLabels: cluster.clusterLabels ? { ManagedCluster: cluster.clusterLabels } : undefined,
    extraAnnotations: mergedAnnotations(site, cluster),
    suppressedManifests: nonEmpty(cluster.crSuppression),
    extraManifestsRefs: nonEmpty(refs),
    templateRefs: [{ name: DefaultTemplates.cluster, namespace }],
    nodes: cluster.nodes.map((node) => nodeOf(node, namespace)),
  };
  return {
    apiVersion: ClusterInstanceApiVersion,
    kind: 'ClusterInstance',
    metadata: { name: cluster.clusterName, namespace: cluster.clusterName },
    spec: compact(spec),
  };
}

function nodeOf(node: SiteConfigNode, templateNamespace: string): ClusterInstanceNode {
  return compact({
    hostName: node.hostName,
    role: node.role,
    bmcAddress: node.bmcAddress,
    bmcCredentialsName: { name: bmcSecretName(node) },
    bootMACAddress: node.bootMACAddress,
    bootMode: node.bootMode,
    automatedCleaningMode: node.automatedCleaningMode,
    rootDeviceHints: node.rootDeviceHints,
    ironicInspect: node.ironicInspect === 'disabled' ? 'disabled' : undefined,
    installerArgs: node.installerArgs,
    ignitionConfigOverride: node.ignitionConfigOverride,
    nodeLabels: node.nodeLabels,
    nodeNetwork: node.nodeNetwork,
    extraAnnotations: node.crAnnotations?.add,
    suppressedManifests: nonEmpty(node.crSuppression),
    templateRefs: [{ name: DefaultTemplates.node, namespace: templateNamespace }],
  });
}

/** True for objects of a compiled SiteConfig cluster that no default template renders. */
export function isRenderedBeside(manifest: Manifest): boolean {
  return !RENDERED_KINDS.has(manifest.kind);
}

// ---------------------------------------------------------------------------------------------
// Fields a ClusterInstance cannot hold

/** What is said of one such field: its path, field and cluster are filled in where it is found. */
type Dropped = Omit<ConversionWarning, 'path' | 'field' | 'clusterName'> & {
  /** Path below the field, when a part of it is what cannot be carried over. */
  readonly below?: readonly string[];
  /** How the field is named in the warning. @default - its key */
  readonly field?: string;
};

/** The dropped fields of one level, in document order: a fixed text, or one that needs the owner. */
type DroppedFields<T> = { readonly [K in keyof T]?: DroppedRule<T> };
type DroppedRule<T> = Dropped | ((owner: T) => Dropped | undefined);

const BIOS_CONFIG: Dropped = {
  code: 'BIOS_CONFIG',
  reason: 'ClusterInstance has no BIOS settings',
  replacement:
    'add a HostFirmwareSettings node template (a ConfigMap in templateRefs), or keep the HostFirmwareSettings next to the ClusterInstance (siteforge generate --format clusterinstance emits it)',
  rendered: 'beside',
};
const CR_TEMPLATES: Dropped = {
  code: 'CR_TEMPLATES',
  reason: 'ClusterInstance renders from template ConfigMaps, not from override files',
  replacement:
    'put the template in a ConfigMap, as a Go template of the ClusterInstance fields, and list it in templateRefs',
  rendered: 'lost',
};
const EXTRA_MANIFESTS_REPLACEMENT =
  'supply ConfigMaps with the exact manifests (e.g. a kustomize configMapGenerator) and list them in extraManifestsRefs; siteforge generate --format clusterinstance emits them from this SiteConfig';
const IGNORED = (field: string, replacement: string): Dropped => ({
  code: 'IGNORED_FIELD',
  reason: `${field} was never used by any generator`,
  replacement,
  rendered: 'unused',
});
const SINGULAR_VIP =
  (field: 'apiVIP' | 'ingressVIP') =>
  (cluster: SiteConfigCluster): Dropped => {
    const plural = `${field}s`;
    return {
      code: 'SINGULAR_VIP',
      reason: `ClusterInstance has only ${plural}; the AgentClusterInstall gets ${plural} instead of ${field}`,
      replacement: `it is written as ${plural}: [${String(cluster[field])}]; a cluster already installed with ${field} rejects the change, so suppress its AgentClusterInstall or give it a custom template during a live migration`,
      rendered: 'lost',
    };
  };

const SITE_FIELDS: DroppedFields<SiteConfig['spec']> = {
  sshPrivateKeySecretRef: {
    code: 'SSH_PRIVATE_KEY',
    reason: 'ClusterInstance has no such field, and no generated object ever used it',
    replacement: 'remove it; nothing reads it',
    rendered: 'unused',
  },
  pullSecret: (spec) => ({
    code: 'PULL_SECRET_SOURCE',
    reason:
      'a ClusterInstance only names the pull secret (pullSecretRef); where its content comes from is a SiteForge extension',
    replacement: `create the Secret ${spec.pullSecretRef.name} in each cluster namespace beside the ClusterInstance (siteforge generate --format clusterinstance emits it from this source)`,
    rendered: 'beside',
  }),
  biosConfigRef: BIOS_CONFIG,
  crTemplates: CR_TEMPLATES,
};

/** Cluster fields some SiteConfigs carry although no generator ever read them. */
interface LegacyClusterFields {
  readonly baseDomain?: unknown;
  readonly manifestsConfig?: unknown;
}

const CLUSTER_FIELDS: DroppedFields<SiteConfigCluster & LegacyClusterFields> = {
  apiVIP: SINGULAR_VIP('apiVIP'),
  ingressVIP: SINGULAR_VIP('ingressVIP'),
  baseDomain: IGNORED('clusters[].baseDomain', 'the site baseDomain is carried over'),
  manifestsConfig: IGNORED('clusters[].manifestsConfig', 'remove it'),
  biosConfigRef: BIOS_CONFIG,
  crTemplates: CR_TEMPLATES,
  mergeDefaultMachineConfigs: {
    code: 'MERGE_MACHINE_CONFIGS',
    reason: 'ClusterInstance does not build extra manifests',
    replacement:
      'put the merged MachineConfigs into a ConfigMap listed in extraManifestsRefs (siteforge generate --format clusterinstance emits it)',
    rendered: 'beside',
  },
  extraManifestPath: {
    code: 'EXTRA_MANIFEST_PATH',
    reason: 'ClusterInstance does not read extra-manifest directories',
    replacement: EXTRA_MANIFESTS_REPLACEMENT,
    rendered: 'beside',
  },
  extraManifests: {
    code: 'EXTRA_MANIFESTS',
    reason: 'ClusterInstance does not read extra-manifest directories or filters',
    replacement: EXTRA_MANIFESTS_REPLACEMENT,
    rendered: 'beside',
  },
  // Every cluster has one: it is generated, and extraManifestsRefs names it.
  clusterName: (cluster) => ({
    code: 'EXTRA_MANIFESTS_CONFIGMAP',
    field: `the extra-manifests ConfigMap ${cluster.clusterName}`,
    reason:
      'it is generated from the SiteConfig and the operator does not create it, yet extraManifestsRefs names it',
    replacement: EXTRA_MANIFESTS_REPLACEMENT,
    rendered: 'beside',
  }),
  siteConfigMap: {
    code: 'SITE_CONFIG_MAP',
    reason: 'ClusterInstance has no site ConfigMap',
    replacement:
      'keep the ConfigMap as a resource of its own next to the ClusterInstance (siteforge generate --format clusterinstance emits it)',
    rendered: 'beside',
  },
  diskEncryption: (cluster) =>
    cluster.diskEncryption?.tpm2 === undefined
      ? undefined
      : {
          code: 'DISK_ENCRYPTION_TPM2',
          below: ['tpm2'],
          reason: 'ClusterInstance diskEncryption knows Tang servers only',
          replacement:
            'add the TPM2 disk-encryption MachineConfig to an extra-manifests ConfigMap (siteforge generate --format clusterinstance emits it there)',
          rendered: 'beside',
        },
};

const NODE_FIELDS: DroppedFields<SiteConfigNode> = {
  bmcCredentials: (node) => ({
    code: 'BMC_CREDENTIALS_SOURCE',
    reason:
      'a ClusterInstance only names the BMC Secret (bmcCredentialsName); where its content comes from is a SiteForge extension',
    replacement: `create the Secret ${bmcSecretName(node)} beside the ClusterInstance (siteforge generate --format clusterinstance emits it from this source)`,
    rendered: 'beside',
  }),
  biosConfigRef: BIOS_CONFIG,
  crTemplates: CR_TEMPLATES,
  diskPartition: {
    code: 'DISK_PARTITION',
    reason: 'ClusterInstance has no disk partitions',
    replacement:
      "use the node's ignitionConfigOverride to create and mount the partition (siteforge generate --format clusterinstance keeps the partition MachineConfig in the extra-manifests ConfigMap)",
    rendered: 'beside',
  },
  userData: {
    code: 'USER_DATA',
    reason: 'ClusterInstance has no BareMetalHost userData',
    replacement: 'add userData with a custom BareMetalHost node template',
    rendered: 'lost',
  },
  cpuset: {
    code: 'CPUSET',
    reason: 'ClusterInstance has no cpuset (deprecated since 4.15)',
    replacement:
      'set cpuPartitioningMode: AllNodes and the reserved/isolated CPUs in a PerformanceProfile',
    rendered: 'lost',
  },
  remove: {
    code: 'REMOVE',
    reason: 'host removal in one edit is a SiteForge extension of SiteConfig',
    replacement:
      'add extraAnnotations.BareMetalHost {bmac.agent-install.openshift.io/remove-agent-and-node-on-delete: "true"} to the node, sync, then delete the node entry (scale-in)',
    rendered: 'lost',
  },
  hardwareProfile: IGNORED('hardwareProfile', 'remove it'),
};

/** Kinds the default templates do not render, so extraAnnotations for them have no object. */
const BESIDE_KINDS = ['Namespace', 'ConfigMap', 'HostFirmwareSettings'];

/**
 * Every field of a SiteConfig that its ClusterInstances cannot carry over, in document order,
 * with the reason and the replacement. Nothing is dropped without an entry here.
 */
export function conversionWarnings(site: SiteConfig): ConversionWarning[] {
  const out: ConversionWarning[] = [];
  const spec = site.spec;
  droppedFields(spec, SITE_FIELDS, ['spec'], undefined, out);
  annotationWarnings(spec.crAnnotations, ['spec'], undefined, out);
  spec.clusters.forEach((cluster, c) => {
    const at = ['spec', 'clusters', c];
    const name = cluster.clusterName;
    droppedFields(cluster, CLUSTER_FIELDS, at, name, out);
    for (const key of ['vendor', 'cloud'])
      if (
        cluster.clusterLabels?.[key] !== undefined &&
        cluster.clusterLabels[key] !== 'auto-detect'
      )
        out.push({
          code: 'TEMPLATE_LABEL',
          path: [...at, 'clusterLabels', key],
          field: key,
          clusterName: name,
          reason: `the default ManagedCluster template sets ${key}: auto-detect, and extraLabels never overwrite a template's labels`,
          replacement: `use a custom ManagedCluster template to set ${key}, or let ACM detect it`,
          rendered: 'lost',
        });
    annotationWarnings(cluster.crAnnotations, at, name, out);
    cluster.nodes.forEach((node, n) => {
      droppedFields(node, NODE_FIELDS, [...at, 'nodes', n], name, out);
      annotationWarnings(node.crAnnotations, [...at, 'nodes', n], name, out);
    });
  });
  return out;
}

/** Appends a warning for each field of `owner` that `fields` lists and the owner sets. */
function droppedFields<T extends object>(
  owner: T,
  fields: DroppedFields<T>,
  at: readonly (string | number)[],
  clusterName: string | undefined,
  out: ConversionWarning[],
): void {
  for (const [key, rule] of Object.entries<DroppedRule<T> | undefined>(fields)) {
    if ((owner as Record<string, unknown>)[key] == null || rule === undefined) continue;
    const dropped = typeof rule === 'function' ? rule(owner) : rule;
    if (dropped === undefined) continue;
    const { below = [], field, ...said } = dropped;
    const path = [...at, key, ...below];
    out.push({
      ...said,
      path,
      field: field ?? String(path[path.length - 1]),
      ...(clusterName === undefined ? {} : { clusterName }),
    });
  }
}

/** extraAnnotations for kinds the default templates do not render annotate nothing. */
function annotationWarnings(
  annotations: { readonly add?: Readonly<Record<string, unknown>> } | undefined,
  at: readonly (string | number)[],
  clusterName: string | undefined,
  out: ConversionWarning[],
): void {
  for (const kind of Object.keys(annotations?.add ?? {}))
    if (BESIDE_KINDS.includes(kind))
      out.push({
        code: 'ANNOTATIONS_KIND',
        path: [...at, 'crAnnotations', 'add', kind],
        field: kind,
        ...(clusterName === undefined ? {} : { clusterName }),
        reason: `the default templates render no ${kind}, so extraAnnotations.${kind} annotates nothing`,
        replacement: `annotate the ${kind} where it is created (siteforge generate --format clusterinstance still annotates the ${kind} it emits)`,
        rendered: 'beside',
      });
}
