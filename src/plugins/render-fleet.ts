/**
 * The one generation path shared by every edge (the CLI, the Argo CD plugin): validate input
 * files, compile each valid site as soon as it is checked, and render its objects to YAML.
 */
import { compareIssues, formatIssue } from '../shared/errors.js';
import type { InputIssue } from '../shared/errors.js';
import { defaultLimits, limitCode, limitHint } from '../shared/limits.js';
import type { Limits } from '../shared/limits.js';
import { locate, parseYamlFile } from '../shared/source-yaml.js';
import type { SourceDocument, SourcePos } from '../shared/source-yaml.js';
import { emitYaml } from '../shared/yaml-emit.js';
import { packagedExtraManifests } from './packaged-extra-manifests.js';
import {
  bmcSecretName,
  compileClusterInstance,
  compileSiteConfig,
  loadSiteConfigs,
  NodeTemplateKinds,
  renderClusterInstance,
  renderClusterInstances,
} from '../siteconfig/index.js';
import type { ClusterInstance } from '../siteconfig/cluster-instance/index.js';
import type { SiteResources } from '../siteconfig/resources.js';
import type { CredentialsSource } from '../siteconfig/types.js';
import { locateWarnings } from './conversion-issues.js';
import type { DocumentWarning } from './conversion-issues.js';
import type { Deadline } from './run-budget.js';
import type {
  CompiledCluster,
  Manifest,
  SecretSource,
  SiteConfig,
  SiteFiles,
  SourceFile,
} from '../siteconfig/index.js';

/** The YAML of one cluster's objects, in apply order, with their output file names. */
export interface RenderedCluster {
  readonly clusterName: string;
  readonly documents: readonly { readonly fileName: string; readonly yaml: string }[];
  /** The objects with the SiteConfig entry each came from; only with `withObjects`. */
  readonly objects?: readonly SourcedManifest[];
}

/**
 * What is emitted per cluster: `crs`, the hub objects (AgentClusterInstall, BareMetalHost, ...);
 * `clusterinstance`, a ClusterInstance for the SiteConfig operator plus what it does not render.
 */
export type OutputFormat = 'crs' | 'clusterinstance';

/** Options of renderFleet. */
export interface RenderOptions {
  /** Only check: compile and render nothing. @default false */
  readonly validateOnly?: boolean;
  /** @default "crs" */
  readonly format?: OutputFormat;
  /**
   * Namespace of the operator's template ConfigMaps, for ClusterInstances rendered from
   * SiteConfigs. @default "open-cluster-management"
   */
  readonly templateNamespace?: string;
  /**
   * Keep a cluster only when this returns true (e.g. a rollout wave); `site` is its SiteConfig
   * or ClusterInstance. @default all
   */
  readonly selectCluster?: (
    clusterName: string,
    site: { readonly metadata: { readonly name: string } },
  ) => boolean;
  /** Also return each cluster's objects as data, with their sources (for apply). @default false */
  readonly withObjects?: boolean;
  /** Files the SiteConfigs refer to (crTemplates, BIOS settings, extra manifests). */
  readonly files?: SiteFiles;
  /**
   * The kustomization root of a SiteConfig file, where its relative paths resolve first (see
   * kustomization-root.ts). @default the SiteConfig's folder only
   */
  readonly kustomizationRoot?: (siteConfigFile: string) => string;
  /** Credentials kept outside git, for `fromDirectory`. */
  readonly secrets?: SecretSource;
  /** The default extra-manifest sets. @default the sets shipped in the package */
  readonly defaultExtraManifests?: { readonly files: SiteFiles; readonly dir: string };
  /** Replace the values of Secrets with `<redacted>`, for output people read. @default false */
  readonly redact?: boolean;
  /**
   * The run's limits: nodes per cluster here, the rest passed on to the reader and the compiler.
   * @default defaultLimits
   */
  readonly limits?: Limits;
  /** Checked before each site is compiled, so that a run past its time limit stops. */
  readonly deadline?: Deadline;
}

/** What rendering found. */
export interface RenderResult {
  /** Clusters sorted by name; empty documents when validateOnly. */
  readonly clusters: RenderedCluster[];
  /** SiteConfig and ClusterInstance documents read. */
  readonly siteCount: number;
  /** How many of them are ClusterInstances. */
  readonly clusterInstanceCount: number;
  readonly issues: InputIssue[];
}

/**
 * Validates and renders a fleet. A fleet of thousands of sites costs little more memory than
 * its output, because each site is compiled and rendered right after it is checked.
 */
export function renderFleet(
  files: readonly SourceFile[],
  options: RenderOptions = {},
): RenderResult {
  const clusters: RenderedCluster[] = [];
  let siteCount = 0;
  let clusterInstanceCount = 0;
  const lost: DocumentWarning[] = [];
  /** A SiteConfig's clusters in the requested format, noting what ClusterInstances lose. */
  const compiledSite = (
    site: SiteConfig,
    resources: SiteResources,
    at: { readonly file: string; readonly documentIndex: number },
  ): ReturnType<typeof compileSiteConfig> => {
    if (options.format !== 'clusterinstance') return compileSiteConfig(site, resources);
    const rendered = renderClusterInstances(site, resources, {
      ...(options.templateNamespace ? { templateNamespace: options.templateNamespace } : {}),
    });
    for (const warning of rendered.warnings) lost.push({ ...at, warning });
    return rendered.clusters;
  };
  const limits = options.limits ?? defaultLimits;
  const overLimit = new NodeLimit(files, limits);
  const { issues } = loadSiteConfigs(files, {
    ...(options.files ? { files: options.files } : {}),
    ...(options.kustomizationRoot ? { kustomizationRoot: options.kustomizationRoot } : {}),
    ...(options.secrets ? { secrets: options.secrets } : {}),
    defaultExtraManifests: options.defaultExtraManifests ?? packagedExtraManifests(),
    limits,
    clusterInstanceRenderer: options.format === 'clusterinstance' ? 'operator' : 'siteforge',
    onClusterInstance: ({ clusterInstance, file, documentIndex }) => {
      options.deadline?.check();
      siteCount++;
      clusterInstanceCount++;
      const name = clusterInstance.spec.clusterName;
      if (
        overLimit.exceeded(clusterInstance.spec.nodes.length, {
          file,
          documentIndex,
          path: ['spec', 'nodes'],
        })
      )
        return;
      if (!(options.selectCluster?.(name, clusterInstance) ?? true)) return;
      const compiled =
        options.format === 'clusterinstance'
          ? renderClusterInstance(clusterInstance)
          : compileClusterInstance(clusterInstance);
      clusters.push({
        clusterName: name,
        documents: options.validateOnly ? [] : renderDocuments(compiled.manifests, options),
        ...(options.withObjects && {
          objects: compiled.manifests.map((manifest) => ({
            manifest,
            source: { file, documentIndex, path: clusterInstancePath(clusterInstance, manifest) },
          })),
        }),
      });
    },
    onSite: ({ siteConfig, resources, file, documentIndex }) => {
      options.deadline?.check();
      siteCount++;
      const tooLarge = siteConfig.spec.clusters.map((c, i) =>
        overLimit.exceeded(c.nodes.length, {
          file,
          documentIndex,
          path: ['spec', 'clusters', i, 'nodes'],
        }),
      );
      if (tooLarge.includes(true)) return;
      const wanted = (name: string): boolean => options.selectCluster?.(name, siteConfig) ?? true;
      if (options.validateOnly) {
        for (const c of siteConfig.spec.clusters)
          if (wanted(c.clusterName)) clusters.push({ clusterName: c.clusterName, documents: [] });
        return;
      }
      for (const cluster of compiledSite(siteConfig, resources, { file, documentIndex })) {
        if (!wanted(cluster.clusterName)) continue;
        clusters.push({
          clusterName: cluster.clusterName,
          documents: cluster.manifests
            .map((m) => (options.redact ? redactSecret(m) : m))
            .map((m) => ({
              fileName: `${m.kind.toLowerCase()}_${m.metadata.name}.yaml`,
              yaml: emitYaml(m),
            })),
          ...(options.withObjects && {
            objects: withSources(cluster, siteConfig, { file, documentIndex }),
          }),
        });
      }
    },
  });
  clusters.sort((a, b) =>
    a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0,
  );
  const all = [...issues, ...overLimit.issues];
  return {
    clusters,
    siteCount,
    clusterInstanceCount,
    issues: lost.length > 0 ? [...all, ...locateWarnings(files, lost, limits)] : all,
  };
}

/**
 * The nodes-per-cluster limit: a cluster over it is reported at its `nodes` list and not
 * compiled (compiling multiplies every node by its objects and templates).
 */
class NodeLimit {
  readonly issues: InputIssue[] = [];
  private locator: SourceLocator | undefined;

  constructor(
    private readonly files: readonly SourceFile[],
    private readonly limits: Limits,
  ) {}

  /** True (and an issue) when `nodes` is over the limit. */
  exceeded(nodes: number, source: ManifestSource): boolean {
    const limit = this.limits.nodesPerCluster;
    if (nodes <= limit) return false;
    this.locator ??= new SourceLocator(this.files, this.limits);
    const { line, column } = this.locator.locate(source);
    this.issues.push({
      severity: 'error',
      code: limitCode('nodesPerCluster'),
      message: `the cluster lists ${String(nodes)} nodes, over the limit of ${String(limit)}`,
      hint: limitHint('nodesPerCluster'),
      file: source.file,
      line,
      column,
      path: `/${source.path.join('/')}`,
    });
    return true;
  }
}

/** The entry of a ClusterInstance an object came from: its node for per-node objects. */
function clusterInstancePath(ci: ClusterInstance, manifest: Manifest): (string | number)[] {
  const index = NodeTemplateKinds.has(manifest.kind)
    ? ci.spec.nodes.findIndex((n) => (n.hostRef?.name ?? n.hostName) === manifest.metadata.name)
    : -1;
  return index >= 0 ? ['spec', 'nodes', index] : ['spec'];
}

/** One cluster's objects as YAML documents with their output file names. */
function renderDocuments(
  manifests: readonly Manifest[],
  options: RenderOptions,
): RenderedCluster['documents'] {
  return manifests
    .map((m) => (options.redact ? redactSecret(m) : m))
    .map((m) => ({
      fileName: `${m.kind.toLowerCase()}_${m.metadata.name}.yaml`,
      yaml: emitYaml(m),
    }));
}

/** A Secret with every value replaced by `<redacted>`; other objects unchanged. */
export function redactSecret(manifest: Manifest): Manifest {
  if (manifest.kind !== 'Secret') return manifest;
  const redacted = (values: unknown): Record<string, string> =>
    Object.fromEntries(Object.keys(values ?? {}).map((key) => [key, '<redacted>']));
  return {
    ...manifest,
    ...(manifest['data'] === undefined ? {} : { data: redacted(manifest['data']) }),
    ...(manifest['stringData'] === undefined
      ? {}
      : { stringData: redacted(manifest['stringData']) }),
  };
}

/** The clusters as one `---`-separated YAML stream. */
export function toYamlStream(clusters: readonly RenderedCluster[]): string {
  const stream: string[] = [];
  writeYamlStream(clusters, (text) => stream.push(text));
  return stream.join('');
}

/**
 * Writes the clusters as one `---`-separated YAML stream, one cluster per call: a fleet's
 * output is never held twice (as one joined string and its encoded copy).
 */
export function writeYamlStream(
  clusters: readonly RenderedCluster[],
  write: (text: string) => void,
): void {
  for (const cluster of clusters) {
    write(cluster.documents.map((doc) => `---\n${doc.yaml}`).join(''));
  }
}

/** How issues were judged. */
export interface IssueReport {
  /** Issues formatted for stderr, sorted by file and position; empty when there are none. */
  readonly text: string;
  readonly errors: number;
  readonly warnings: number;
}

/** Formats issues for stderr; with `strict`, warnings count (and print) as errors. */
export function reportIssues(issues: readonly InputIssue[], strict: boolean): IssueReport {
  const shown = [...issues]
    .sort(compareIssues)
    .map((issue) =>
      strict && issue.severity === 'warning' ? { ...issue, severity: 'error' as const } : issue,
    );
  const errors = shown.filter((issue) => issue.severity === 'error').length;
  const warnings = shown.filter((issue) => issue.severity === 'warning').length;
  return {
    text: shown.length > 0 ? `${shown.map(formatIssue).join('\n')}\n` : '',
    errors,
    warnings,
  };
}

/**
 * Where an object came from: the SiteConfig entry that produced it, so that a problem the hub
 * finds can be reported at FILE:LINE like a validation issue.
 */
export interface ManifestSource {
  readonly file: string;
  /** 0-based index of the SiteConfig document in its file. */
  readonly documentIndex: number;
  /**
   * Path of the entry in the document: the cluster, the node for per-node objects, the
   * `externalSecret` (or its `apiVersion`) for ExternalSecrets.
   */
  readonly path: readonly (string | number)[];
  /** Point at the key of the entry rather than at its value. @default "value" */
  readonly at?: 'key' | 'value';
}

/** A generated object and its source. */
export interface SourcedManifest {
  readonly manifest: Manifest;
  readonly source: ManifestSource;
}

/** Kinds generated once per node, named after the node's hostName. */
const NODE_KINDS = new Set(['BareMetalHost', 'NMStateConfig', 'HostFirmwareSettings']);

function withSources(
  compiled: CompiledCluster,
  site: SiteConfig,
  doc: { readonly file: string; readonly documentIndex: number },
): SourcedManifest[] {
  const clusterIndex = site.spec.clusters.findIndex((c) => c.clusterName === compiled.clusterName);
  const cluster = site.spec.clusters[clusterIndex];
  return compiled.manifests.map((manifest) => {
    const path: (string | number)[] = ['spec', 'clusters', Math.max(clusterIndex, 0)];
    const credentials = manifest.kind === 'Secret' || manifest.kind === 'ExternalSecret';
    if (credentials && manifest.metadata.name === site.spec.pullSecretRef.name) {
      const from = externalSecretSource(manifest, site.spec.pullSecret, ['spec', 'pullSecret']);
      if (from) return { manifest, source: { ...doc, ...from } };
    }
    const nodeIndex =
      cluster?.nodes.findIndex((node) =>
        credentials
          ? bmcSecretName(node) === manifest.metadata.name
          : NODE_KINDS.has(manifest.kind) && node.hostName === manifest.metadata.name,
      ) ?? -1;
    const clusterPath = [...path];
    const node = nodeIndex >= 0 ? cluster?.nodes[nodeIndex] : undefined;
    if (nodeIndex >= 0) {
      path.push('nodes', nodeIndex);
      const from = externalSecretSource(manifest, node?.bmcCredentials, [
        ...path,
        'bmcCredentials',
      ]);
      if (from) return { manifest, source: { ...doc, ...from } };
    }
    // An object a crTemplate replaced comes from that template: node, then cluster, then site.
    const templated = [
      { owner: node, at: path },
      { owner: cluster, at: clusterPath },
      { owner: site.spec, at: ['spec'] },
    ].find(({ owner }) => owner?.crTemplates?.[manifest.kind] !== undefined);
    if (templated) {
      const at = [...templated.at, 'crTemplates', manifest.kind];
      return { manifest, source: { ...doc, path: at } };
    }
    return { manifest, source: { ...doc, path } };
  });
}

/**
 * An ExternalSecret comes from an `externalSecret` entry: its `apiVersion` line when the entry
 * sets one (the hub may not serve it), else the entry's key.
 */
function externalSecretSource(
  manifest: Manifest,
  credentials: CredentialsSource | undefined,
  at: readonly (string | number)[],
): Pick<ManifestSource, 'path' | 'at'> | undefined {
  const external = credentials?.externalSecret;
  if (manifest.kind !== 'ExternalSecret' || !external) return undefined;
  const path = [...at, 'externalSecret'];
  return external.apiVersion === undefined
    ? { path, at: 'key' }
    : { path: [...path, 'apiVersion'], at: 'key' };
}

/**
 * Finds the file position of sources. Rendering parses without positions (it is faster); the
 * files are parsed again with positions only when there is something to report.
 */
export class SourceLocator {
  private readonly texts: ReadonlyMap<string, string>;
  private readonly parsed = new Map<string, SourceDocument[]>();

  constructor(
    files: readonly SourceFile[],
    private readonly limits: Limits = defaultLimits,
  ) {
    this.texts = new Map(files.map((f) => [f.path, f.text]));
  }

  /** 1-based line and column of the source entry (of its document when the path is not found). */
  locate(source: ManifestSource): SourcePos {
    let documents = this.parsed.get(source.file);
    if (!documents) {
      documents = parseYamlFile(source.file, this.texts.get(source.file) ?? '', {
        limits: this.limits,
      }).documents;
      this.parsed.set(source.file, documents);
    }
    const doc = documents[source.documentIndex];
    return doc ? locate(doc.value, doc.pos, source.path, source.at) : { line: 1, column: 1 };
  }
}
