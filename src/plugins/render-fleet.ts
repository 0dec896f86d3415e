/**
 * The one generation path shared by every edge (the CLI, the Argo CD plugin): validate every
 * input file first, then compile and render the valid sites' clusters one at a time, in the
 * order of their names, so that an edge can write each cluster out before it renders the next.
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
  conversionWarnings,
  loadSiteConfigs,
  NodeTemplateKinds,
  renderClusterInstance,
  renderClusterInstances,
} from '../siteconfig/index.js';
import type { ClusterInstance } from '../siteconfig/cluster-instance/index.js';
import type { CredentialsSource } from '../siteconfig/types.js';
import { locateWarnings } from './conversion-issues.js';
import type { DocumentWarning } from './conversion-issues.js';
import type { Deadline } from './run-budget.js';
import type {
  CompiledCluster,
  LoadedClusterInstance,
  LoadedSiteConfig,
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
  /**
   * Checked between sites while they are validated, so that a run past its time limit stops
   * before anything is written; rendering, bounded by the limits already checked, is never
   * stopped half-way through the output.
   */
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
 * A fleet checked in full, whose clusters are compiled and rendered only when asked for, one at
 * a time: what `generate` streams. Every issue, also a cross-document one found in the last
 * file, is known before the first cluster is rendered, so a caller that writes nothing when
 * `issues` has errors never writes half a fleet.
 */
export interface FleetPlan {
  /** SiteConfig and ClusterInstance documents read. */
  readonly siteCount: number;
  /** How many of them are ClusterInstances. */
  readonly clusterInstanceCount: number;
  /** Every issue of the input; rendering adds none. */
  readonly issues: InputIssue[];
  /** The selected clusters of the valid documents, sorted: the order `render` yields them in. */
  readonly clusterNames: readonly string[];
  /**
   * Compiles and renders the clusters in `clusterNames` order. Only the cluster yielded is
   * held (with the other selected clusters of its SiteConfig until they are yielded), so a
   * caller that writes each one out keeps the memory of a fleet flat. Empty documents when
   * validateOnly.
   */
  render(): Generator<RenderedCluster, void, undefined>;
}

/** A valid document whose clusters are rendered later, with those that were selected. */
type PendingSite =
  | {
      readonly kind: 'siteConfig';
      readonly loaded: LoadedSiteConfig;
      readonly selected: readonly string[];
    }
  | { readonly kind: 'clusterInstance'; readonly loaded: LoadedClusterInstance };

/**
 * Validates and renders a fleet, holding its whole output: for apply and check, which need
 * every object at once, and for small inputs. `generate` streams through {@link planFleet}.
 */
export function renderFleet(
  files: readonly SourceFile[],
  options: RenderOptions = {},
): RenderResult {
  const plan = planFleet(files, options);
  return {
    clusters: [...plan.render()],
    siteCount: plan.siteCount,
    clusterInstanceCount: plan.clusterInstanceCount,
    issues: plan.issues,
  };
}

/**
 * Validates every document of a fleet and plans its rendering (see {@link FleetPlan}). What
 * the plan keeps per site is its parsed SiteConfig and the files it refers to, a small part of
 * the site's output; rendering parses nothing again.
 */
export function planFleet(files: readonly SourceFile[], options: RenderOptions = {}): FleetPlan {
  const pending: { readonly clusterName: string; readonly site: PendingSite }[] = [];
  let siteCount = 0;
  let clusterInstanceCount = 0;
  const lost: DocumentWarning[] = [];
  const limits = options.limits ?? defaultLimits;
  const overLimit = new NodeLimit(files, limits);
  const { issues } = loadSiteConfigs(files, {
    ...(options.files ? { files: options.files } : {}),
    ...(options.kustomizationRoot ? { kustomizationRoot: options.kustomizationRoot } : {}),
    ...(options.secrets ? { secrets: options.secrets } : {}),
    defaultExtraManifests: options.defaultExtraManifests ?? packagedExtraManifests(),
    limits,
    clusterInstanceRenderer: options.format === 'clusterinstance' ? 'operator' : 'siteforge',
    onClusterInstance: (loaded) => {
      options.deadline?.check();
      siteCount++;
      clusterInstanceCount++;
      const { clusterInstance, file, documentIndex } = loaded;
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
      pending.push({ clusterName: name, site: { kind: 'clusterInstance', loaded } });
    },
    onSite: (loaded) => {
      options.deadline?.check();
      siteCount++;
      const { siteConfig, file, documentIndex } = loaded;
      const tooLarge = siteConfig.spec.clusters.map((c, i) =>
        overLimit.exceeded(c.nodes.length, {
          file,
          documentIndex,
          path: ['spec', 'clusters', i, 'nodes'],
        }),
      );
      if (tooLarge.includes(true)) return;
      // What a ClusterInstance cannot carry is known from the SiteConfig alone: reported now,
      // with every other issue, and not when the cluster is rendered.
      if (options.format === 'clusterinstance' && !options.validateOnly)
        for (const warning of conversionWarnings(siteConfig))
          if (warning.rendered === 'lost') lost.push({ file, documentIndex, warning });
      const selected = siteConfig.spec.clusters
        .map((c) => c.clusterName)
        .filter((name) => options.selectCluster?.(name, siteConfig) ?? true);
      const site: PendingSite = { kind: 'siteConfig', loaded, selected };
      for (const clusterName of selected) pending.push({ clusterName, site });
    },
  });
  // Stable: the order of the input among equal names, as before streaming.
  pending.sort((a, b) =>
    a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0,
  );
  const all = [...issues, ...overLimit.issues];
  return {
    siteCount,
    clusterInstanceCount,
    issues: lost.length > 0 ? [...all, ...locateWarnings(files, lost, limits)] : all,
    clusterNames: pending.map((p) => p.clusterName),
    *render() {
      /** Selected clusters of SiteConfigs with several, compiled and not yet yielded. */
      const waiting = new Map<LoadedSiteConfig, Map<string, CompiledCluster>>();
      for (const { clusterName, site } of pending) {
        if (options.validateOnly) yield { clusterName, documents: [] };
        else if (site.kind === 'clusterInstance') yield renderedInstance(site.loaded, options);
        else {
          let compiled = waiting.get(site.loaded);
          if (!compiled) {
            const wanted = new Set(site.selected);
            compiled = new Map(
              compiledSite(site.loaded, options)
                .filter((c) => wanted.has(c.clusterName))
                .map((c) => [c.clusterName, c]),
            );
            waiting.set(site.loaded, compiled);
          }
          const cluster = compiled.get(clusterName);
          compiled.delete(clusterName);
          if (compiled.size === 0) waiting.delete(site.loaded);
          if (!cluster) throw new Error(`internal: ${clusterName} was not compiled`);
          yield {
            clusterName,
            documents: renderDocuments(cluster.manifests, options),
            ...(options.withObjects && {
              objects: withSources(cluster, site.loaded.siteConfig, {
                file: site.loaded.file,
                documentIndex: site.loaded.documentIndex,
              }),
            }),
          };
        }
      }
    },
  };
}

/** A SiteConfig's clusters in the requested format. */
function compiledSite(
  { siteConfig, resources }: LoadedSiteConfig,
  options: RenderOptions,
): CompiledCluster[] {
  if (options.format !== 'clusterinstance') return compileSiteConfig(siteConfig, resources);
  // Its warnings were reported by planFleet.
  return renderClusterInstances(siteConfig, resources, {
    ...(options.templateNamespace ? { templateNamespace: options.templateNamespace } : {}),
  }).clusters;
}

/** A ClusterInstance given as input, rendered in the requested format. */
function renderedInstance(
  { clusterInstance, file, documentIndex }: LoadedClusterInstance,
  options: RenderOptions,
): RenderedCluster {
  const compiled =
    options.format === 'clusterinstance'
      ? renderClusterInstance(clusterInstance)
      : compileClusterInstance(clusterInstance);
  return {
    clusterName: clusterInstance.spec.clusterName,
    documents: renderDocuments(compiled.manifests, options),
    ...(options.withObjects && {
      objects: compiled.manifests.map((manifest) => ({
        manifest,
        source: { file, documentIndex, path: clusterInstancePath(clusterInstance, manifest) },
      })),
    }),
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

/** One cluster's part of the `---`-separated YAML stream. */
export function clusterYaml(cluster: RenderedCluster): string {
  return cluster.documents.map((doc) => `---\n${doc.yaml}`).join('');
}

/** The clusters as one `---`-separated YAML stream. */
export function toYamlStream(clusters: Iterable<RenderedCluster>): string {
  const stream: string[] = [];
  for (const cluster of clusters) stream.push(clusterYaml(cluster));
  return stream.join('');
}

/** Where a YAML stream goes, one cluster per `write`. */
export interface StreamSink {
  readonly write: (text: string) => void;
  /**
   * Resolves when the reader has taken what was written (a pipe's `drain`), so that a slow
   * reader holds back rendering instead of the output piling up in memory; undefined when
   * there is no need to wait. @default no waiting
   */
  readonly drained?: () => Promise<void> | undefined;
}

/** What was written. */
export interface StreamCount {
  readonly clusters: number;
  readonly objects: number;
}

/**
 * Writes the clusters as one `---`-separated YAML stream, each as soon as it is rendered
 * (`clusters` may be a {@link FleetPlan}'s `render()`), waiting for the sink to drain
 * between clusters.
 */
export async function writeYamlStream(
  clusters: Iterable<RenderedCluster>,
  sink: StreamSink,
): Promise<StreamCount> {
  let count = 0;
  let objects = 0;
  for (const cluster of clusters) {
    sink.write(clusterYaml(cluster));
    count++;
    objects += cluster.documents.length;
    const drained = sink.drained?.();
    if (drained) await drained;
  }
  return { clusters: count, objects };
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
