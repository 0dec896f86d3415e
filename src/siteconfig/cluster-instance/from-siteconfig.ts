/**
 * What a SiteConfig cluster becomes as a ClusterInstance: the field mapping shared by
 * `siteforge convert` (which writes the ClusterInstance files) and `--format clusterinstance`
 * (which renders them), and the list of fields a ClusterInstance cannot hold, each with why and
 * what to use instead (the upstream siteconfig-converter's warnings, and SiteForge's own
 * extensions). Pure: no I/O.
 */
import { bmcSecretName, compileSiteConfig } from '../compile.js';
import type { Manifest } from '../compile.js';
import { emptyResources } from '../resources.js';
import type { SiteResources } from '../resources.js';
import type { NameRef, SiteConfig, SiteConfigCluster, SiteConfigNode } from '../types.js';
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
    sshPublicKey: site.spec.sshPublicKey,
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
        : dropUndefined({ type: cluster.diskEncryption.type, tang: cluster.diskEncryption.tang }),
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
    spec: dropUndefined(spec),
  };
}

function nodeOf(node: SiteConfigNode, templateNamespace: string): ClusterInstanceNode {
  return dropUndefined({
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

function dropUndefined<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as T;
}

/** True for objects of a compiled SiteConfig cluster that no default template renders. */
export function isRenderedBeside(manifest: Manifest): boolean {
  return !RENDERED_KINDS.has(manifest.kind);
}

// ---------------------------------------------------------------------------------------------
// Fields a ClusterInstance cannot hold

const BIOS_REPLACEMENT =
  'add a HostFirmwareSettings node template (a ConfigMap in templateRefs), or keep the HostFirmwareSettings next to the ClusterInstance (siteforge generate --format clusterinstance emits it)';
const TEMPLATE_REPLACEMENT =
  'put the template in a ConfigMap, as a Go template of the ClusterInstance fields, and list it in templateRefs';
const EXTRA_MANIFESTS_REPLACEMENT =
  'supply ConfigMaps with the exact manifests (e.g. a kustomize configMapGenerator) and list them in extraManifestsRefs; siteforge generate --format clusterinstance emits them from this SiteConfig';
/** Kinds the default templates do not render, so extraAnnotations for them have no object. */
const BESIDE_KINDS = ['Namespace', 'ConfigMap', 'HostFirmwareSettings'];

/**
 * Every field of a SiteConfig that its ClusterInstances cannot carry over, in document order,
 * with the reason and the replacement. Nothing is dropped without an entry here.
 */
export function conversionWarnings(site: SiteConfig): ConversionWarning[] {
  const out: ConversionWarning[] = [];
  const warn = (
    code: string,
    path: (string | number)[],
    reason: string,
    replacement: string,
    rendered: RenderOutcome,
    clusterName?: string,
    field = String(path[path.length - 1]),
  ): void => {
    out.push({
      code,
      path,
      field,
      ...(clusterName === undefined ? {} : { clusterName }),
      reason,
      replacement,
      rendered,
    });
  };
  const spec = site.spec;
  if (spec.sshPrivateKeySecretRef)
    warn(
      'SSH_PRIVATE_KEY',
      ['spec', 'sshPrivateKeySecretRef'],
      'ClusterInstance has no such field, and no generated object ever used it',
      'remove it; nothing reads it',
      'unused',
    );
  if (spec.pullSecret)
    warn(
      'PULL_SECRET_SOURCE',
      ['spec', 'pullSecret'],
      'a ClusterInstance only names the pull secret (pullSecretRef); where its content comes from is a SiteForge extension',
      `create the Secret ${spec.pullSecretRef.name} in each cluster namespace beside the ClusterInstance (siteforge generate --format clusterinstance emits it from this source)`,
      'beside',
    );
  if (spec.biosConfigRef)
    warn(
      'BIOS_CONFIG',
      ['spec', 'biosConfigRef'],
      'ClusterInstance has no BIOS settings',
      BIOS_REPLACEMENT,
      'beside',
    );
  if (spec.crTemplates)
    warn(
      'CR_TEMPLATES',
      ['spec', 'crTemplates'],
      'ClusterInstance renders from template ConfigMaps, not from override files',
      TEMPLATE_REPLACEMENT,
      'lost',
    );
  for (const kind of Object.keys(spec.crAnnotations?.add ?? {}))
    if (BESIDE_KINDS.includes(kind))
      warn(
        'ANNOTATIONS_KIND',
        ['spec', 'crAnnotations', 'add', kind],
        `the default templates render no ${kind}, so extraAnnotations.${kind} annotates nothing`,
        `annotate the ${kind} where it is created (siteforge generate --format clusterinstance still annotates the ${kind} it emits)`,
        'beside',
      );
  spec.clusters.forEach((cluster, c) => {
    clusterWarnings(site, cluster, c, warn);
  });
  return out;
}

type Warn = (
  code: string,
  path: (string | number)[],
  reason: string,
  replacement: string,
  rendered: RenderOutcome,
  clusterName?: string,
  field?: string,
) => void;

function clusterWarnings(
  site: SiteConfig,
  cluster: SiteConfigCluster,
  c: number,
  warn: Warn,
): void {
  const at = ['spec', 'clusters', c];
  const name = cluster.clusterName;
  const w = (
    code: string,
    path: (string | number)[],
    reason: string,
    replacement: string,
    rendered: RenderOutcome,
    field?: string,
  ): void => {
    warn(code, path, reason, replacement, rendered, name, field);
  };
  for (const [field, plural] of [
    ['apiVIP', 'apiVIPs'],
    ['ingressVIP', 'ingressVIPs'],
  ] as const) {
    if (cluster[field] === undefined) continue;
    w(
      'SINGULAR_VIP',
      [...at, field],
      `ClusterInstance has only ${plural}; the AgentClusterInstall gets ${plural} instead of ${field}`,
      `it is written as ${plural}: [${cluster[field]}]; a cluster already installed with ${field} rejects the change, so suppress its AgentClusterInstall or give it a custom template during a live migration`,
      'lost',
    );
  }
  for (const field of ['baseDomain', 'manifestsConfig'] as const)
    if ((cluster as unknown as Record<string, unknown>)[field] !== undefined)
      w(
        'IGNORED_FIELD',
        [...at, field],
        `clusters[].${field} was never used by any generator`,
        field === 'baseDomain' ? 'the site baseDomain is carried over' : 'remove it',
        'unused',
      );
  if (cluster.biosConfigRef)
    w(
      'BIOS_CONFIG',
      [...at, 'biosConfigRef'],
      'ClusterInstance has no BIOS settings',
      BIOS_REPLACEMENT,
      'beside',
    );
  if (cluster.crTemplates)
    w(
      'CR_TEMPLATES',
      [...at, 'crTemplates'],
      'ClusterInstance renders from template ConfigMaps, not from override files',
      TEMPLATE_REPLACEMENT,
      'lost',
    );
  if (cluster.mergeDefaultMachineConfigs !== undefined)
    w(
      'MERGE_MACHINE_CONFIGS',
      [...at, 'mergeDefaultMachineConfigs'],
      'ClusterInstance does not build extra manifests',
      'put the merged MachineConfigs into a ConfigMap listed in extraManifestsRefs (siteforge generate --format clusterinstance emits it)',
      'beside',
    );
  if (cluster.extraManifestPath !== undefined)
    w(
      'EXTRA_MANIFEST_PATH',
      [...at, 'extraManifestPath'],
      'ClusterInstance does not read extra-manifest directories',
      EXTRA_MANIFESTS_REPLACEMENT,
      'beside',
    );
  if (cluster.extraManifests !== undefined)
    w(
      'EXTRA_MANIFESTS',
      [...at, 'extraManifests'],
      'ClusterInstance does not read extra-manifest directories or filters',
      EXTRA_MANIFESTS_REPLACEMENT,
      'beside',
    );
  w(
    'EXTRA_MANIFESTS_CONFIGMAP',
    [...at, 'clusterName'],
    `it is generated from the SiteConfig and the operator does not create it, yet extraManifestsRefs names it`,
    EXTRA_MANIFESTS_REPLACEMENT,
    'beside',
    `the extra-manifests ConfigMap ${name}`,
  );
  if (cluster.siteConfigMap !== undefined)
    w(
      'SITE_CONFIG_MAP',
      [...at, 'siteConfigMap'],
      'ClusterInstance has no site ConfigMap',
      'keep the ConfigMap as a resource of its own next to the ClusterInstance (siteforge generate --format clusterinstance emits it)',
      'beside',
    );
  if (cluster.diskEncryption?.tpm2 !== undefined)
    w(
      'DISK_ENCRYPTION_TPM2',
      [...at, 'diskEncryption', 'tpm2'],
      'ClusterInstance diskEncryption knows Tang servers only',
      'add the TPM2 disk-encryption MachineConfig to an extra-manifests ConfigMap (siteforge generate --format clusterinstance emits it there)',
      'beside',
    );
  for (const key of ['vendor', 'cloud'])
    if (cluster.clusterLabels?.[key] !== undefined && cluster.clusterLabels[key] !== 'auto-detect')
      w(
        'TEMPLATE_LABEL',
        [...at, 'clusterLabels', key],
        `the default ManagedCluster template sets ${key}: auto-detect, and extraLabels never overwrite a template's labels`,
        `use a custom ManagedCluster template to set ${key}, or let ACM detect it`,
        'lost',
      );
  for (const kind of Object.keys(cluster.crAnnotations?.add ?? {}))
    if (BESIDE_KINDS.includes(kind))
      w(
        'ANNOTATIONS_KIND',
        [...at, 'crAnnotations', 'add', kind],
        `the default templates render no ${kind}, so extraAnnotations.${kind} annotates nothing`,
        `annotate the ${kind} where it is created (siteforge generate --format clusterinstance still annotates the ${kind} it emits)`,
        'beside',
      );
  cluster.nodes.forEach((node, n) => {
    nodeWarnings(node, [...at, 'nodes', n], w);
  });
}

function nodeWarnings(
  node: SiteConfigNode,
  at: (string | number)[],
  w: (
    code: string,
    path: (string | number)[],
    reason: string,
    replacement: string,
    rendered: RenderOutcome,
  ) => void,
): void {
  if (node.bmcCredentials)
    w(
      'BMC_CREDENTIALS_SOURCE',
      [...at, 'bmcCredentials'],
      'a ClusterInstance only names the BMC Secret (bmcCredentialsName); where its content comes from is a SiteForge extension',
      `create the Secret ${bmcSecretName(node)} beside the ClusterInstance (siteforge generate --format clusterinstance emits it from this source)`,
      'beside',
    );
  if (node.biosConfigRef)
    w(
      'BIOS_CONFIG',
      [...at, 'biosConfigRef'],
      'ClusterInstance has no BIOS settings',
      BIOS_REPLACEMENT,
      'beside',
    );
  if (node.crTemplates)
    w(
      'CR_TEMPLATES',
      [...at, 'crTemplates'],
      'ClusterInstance renders from template ConfigMaps, not from override files',
      TEMPLATE_REPLACEMENT,
      'lost',
    );
  if (node.diskPartition !== undefined)
    w(
      'DISK_PARTITION',
      [...at, 'diskPartition'],
      'ClusterInstance has no disk partitions',
      "use the node's ignitionConfigOverride to create and mount the partition (siteforge generate --format clusterinstance keeps the partition MachineConfig in the extra-manifests ConfigMap)",
      'beside',
    );
  if (node.userData !== undefined)
    w(
      'USER_DATA',
      [...at, 'userData'],
      'ClusterInstance has no BareMetalHost userData',
      'add userData with a custom BareMetalHost node template',
      'lost',
    );
  if (node.cpuset !== undefined)
    w(
      'CPUSET',
      [...at, 'cpuset'],
      'ClusterInstance has no cpuset (deprecated since 4.15)',
      'set cpuPartitioningMode: AllNodes and the reserved/isolated CPUs in a PerformanceProfile',
      'lost',
    );
  if (node.remove !== undefined)
    w(
      'REMOVE',
      [...at, 'remove'],
      'host removal in one edit is a SiteForge extension of SiteConfig',
      'add extraAnnotations.BareMetalHost {bmac.agent-install.openshift.io/remove-agent-and-node-on-delete: "true"} to the node, sync, then delete the node entry (scale-in)',
      'lost',
    );
  if (node.hardwareProfile !== undefined)
    w(
      'IGNORED_FIELD',
      [...at, 'hardwareProfile'],
      'hardwareProfile was never used by any generator',
      'remove it',
      'unused',
    );
  for (const kind of Object.keys(node.crAnnotations?.add ?? {}))
    if (BESIDE_KINDS.includes(kind))
      w(
        'ANNOTATIONS_KIND',
        [...at, 'crAnnotations', 'add', kind],
        `the default templates render no ${kind}, so extraAnnotations.${kind} annotates nothing`,
        `annotate the ${kind} where it is created (siteforge generate --format clusterinstance still annotates the ${kind} it emits)`,
        'beside',
      );
}
