/**
 * `siteforge convert`: SiteConfig v1/v2 text in, one ClusterInstance YAML text per cluster out.
 * The SiteConfig must be valid first. The ClusterInstance data is the same mapping that
 * `--format clusterinstance` renders (from-siteconfig.ts); the `yaml` library's Document API
 * then carries the comments (and quoting) of every field that maps 1:1 from the SiteConfig into
 * the new file. Every field a ClusterInstance cannot hold is listed, positioned, with the reason
 * and the replacement; none is dropped silently. Pure: no I/O.
 */
import { Document, isMap, isScalar, isSeq, LineCounter, parseAllDocuments } from 'yaml';
import type { Node as YamlNode, Pair, YAMLMap } from 'yaml';
import type { InputIssue } from '../../shared/errors.js';
import type { Limits } from '../../shared/limits.js';
import type { SecretSource } from '../resources.js';
import type { SiteFiles } from '../site-files.js';
import type { SiteConfig } from '../types.js';
import { loadSiteConfigs } from '../load.js';
import type { SourceFile } from '../load.js';
import { clusterInstancesFor, conversionWarnings } from './from-siteconfig.js';
import { hasLineBreak } from './template-quoting.js';
import type { ClusterInstanceOptions, ConversionWarning } from './from-siteconfig.js';
import type { ClusterInstance } from './types.js';

type Path = readonly (string | number)[];

/** Options of convertSiteConfigs. */
export interface ConvertOptions extends ClusterInstanceOptions {
  /** Files the SiteConfigs refer to, so that crTemplates and BIOS files are checked. @default none */
  readonly files?: SiteFiles;
  /** Where the SiteConfigs' relative paths resolve first (LoadOptions). @default none */
  readonly kustomizationRoot?: (siteConfigFile: string) => string;
  /** The run's limits, passed to loadSiteConfigs. @default defaultLimits */
  readonly limits?: Limits;
}

/** One converted cluster. */
export interface ConvertedFile {
  /** `<clusterName>.yaml`. */
  readonly name: string;
  readonly clusterName: string;
  readonly text: string;
}

/** A conversion warning with its place in the input. */
export interface PositionedWarning extends ConversionWarning {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** What converting a set of files gives. */
export interface ConvertResult {
  /** Sorted by cluster name; empty when the input has errors. */
  readonly files: ConvertedFile[];
  /** In input order; empty when the input has errors. */
  readonly warnings: PositionedWarning[];
  /** Validation issues of the SiteConfigs (errors stop the conversion). */
  readonly issues: InputIssue[];
  readonly siteCount: number;
}

/**
 * Conversion names credentials Secrets and never reads them: a `fromDirectory` source is not
 * looked up, so converting needs no secrets directory.
 */
const UNREAD_SECRETS: SecretSource = {
  readDirectory: () => ({
    username: 'unread',
    password: 'unread',
    '.dockerconfigjson': '{"auths":{}}',
  }),
};

/** Converts the SiteConfigs of `sources` into ClusterInstance files. */
export function convertSiteConfigs(
  sources: readonly SourceFile[],
  options: ConvertOptions = {},
): ConvertResult {
  const { sites, issues } = loadSiteConfigs(sources, {
    ...(options.files ? { files: options.files } : {}),
    ...(options.kustomizationRoot ? { kustomizationRoot: options.kustomizationRoot } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    secrets: UNREAD_SECRETS,
    // ClusterInstances beside the SiteConfigs are already what convert writes: the operator's.
    clusterInstanceRenderer: 'operator',
  });
  if (issues.some((issue) => issue.severity === 'error'))
    return { files: [], warnings: [], issues, siteCount: sites.length };
  const texts = new Map(sources.map((s) => [s.path, s.text]));
  const parsed = new Map<string, { docs: Document.Parsed[]; lines: LineCounter }>();
  const files: ConvertedFile[] = [];
  const warnings: PositionedWarning[] = [];
  for (const { file, documentIndex, siteConfig, resources } of sites) {
    let source = parsed.get(file);
    if (!source) {
      const lines = new LineCounter();
      source = {
        docs: parseAllDocuments(texts.get(file) ?? '', { lineCounter: lines }) as Document.Parsed[],
        lines,
      };
      parsed.set(file, source);
    }
    const doc = source.docs[documentIndex]!;
    clusterInstancesFor(siteConfig, options, resources).forEach((ci, index) => {
      files.push({
        name: `${ci.spec.clusterName}.yaml`,
        clusterName: ci.spec.clusterName,
        text: convertedText(doc, siteConfig, index, ci, file),
      });
    });
    for (const warning of conversionWarnings(siteConfig)) {
      const pos = source.lines.linePos(offsetOf(doc, warning.path));
      warnings.push({ ...warning, file, line: pos.line, column: pos.col });
    }
  }
  files.sort((a, b) =>
    a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0,
  );
  return { files, warnings, issues, siteCount: sites.length };
}

/** The start of the field at `path` (its key), or of its nearest ancestor that exists. */
function offsetOf(doc: Document.Parsed, path: Path): number {
  let node: unknown = doc.contents;
  let offset = (doc.contents as YamlNode | null)?.range?.[0] ?? 0;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = findPair(node, segment);
      if (!pair) break;
      offset = (pair.key as YamlNode).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment] as YamlNode | undefined;
      if (!item) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else break;
  }
  return offset;
}

function findPair(map: YAMLMap, key: string | number): Pair | undefined {
  return map.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === String(key));
}

/** The node at `path`, with the pair and map holding it when its parent is a map. */
function nodeAt(
  doc: Document,
  path: Path,
): { pair?: Pair; parent?: YAMLMap; node: unknown } | undefined {
  let node: unknown = doc.contents;
  let pair: Pair | undefined;
  let parent: YAMLMap | undefined;
  for (const segment of path) {
    if (isMap(node)) {
      parent = node;
      pair = findPair(node, segment);
      if (!pair) return undefined;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      pair = undefined;
      parent = undefined;
      node = node.items[segment];
      if (node === undefined) return undefined;
    } else return undefined;
  }
  return pair && parent ? { pair, parent, node } : { node };
}

/** The YAML of one cluster's ClusterInstance, with the SiteConfig's comments grafted on. */
function convertedText(
  source: Document.Parsed,
  site: SiteConfig,
  clusterIndex: number,
  ci: ClusterInstance,
  file: string,
): string {
  // YAML 1.1 quoting, so that Go readers do not take "10:00" or "on" for numbers or booleans.
  const out = new Document(ci, { version: '1.1' });
  for (const [from, to] of commentMapping(site, clusterIndex, ci)) {
    const src = nodeAt(source, from);
    const dst = nodeAt(out, to);
    if (!src || !dst) continue;
    graftPair(src, dst);
    // A comment above the first entry of a map is the map's; here it belongs to that entry.
    const parent = src.parent;
    if (parent && parent.items[0] === src.pair && parent.commentBefore && dst.pair) {
      const key = dst.pair.key as Commented;
      key.commentBefore ??= parent.commentBefore;
    }
  }
  const ssh = nodeAt(out, ['spec', 'sshPublicKey']);
  if (ssh?.pair && hasLineBreak(ci.spec.sshPublicKey ?? '')) {
    const key = ssh.pair.key as Commented;
    const why =
      " An empty line after each key: the operator's templates fold a single line break into a space.";
    key.commentBefore = key.commentBefore ? `${key.commentBefore}\n${why}` : why;
  }
  const header = [
    ` ClusterInstance ${ci.spec.clusterName}, converted by siteforge convert from ${file}`,
  ];
  const original = (source.contents as YAMLMap | null)?.items[0]?.key as YamlNode | undefined;
  const lead = source.commentBefore ?? original?.commentBefore;
  if (lead) header.push('', lead);
  out.commentBefore = header.join('\n');
  return out.toString({ lineWidth: 0 });
}

/**
 * Source and target paths of the fields that map 1:1 (same value, maybe another name). Their
 * comments follow them, and so does everything below them with the same key or index.
 */
function commentMapping(
  site: SiteConfig,
  clusterIndex: number,
  ci: ClusterInstance,
): [Path, Path][] {
  const cluster = site.spec.clusters[clusterIndex]!;
  const at = ['spec', 'clusters', clusterIndex];
  const pairs: [Path, Path][] = [];
  for (const field of ['baseDomain', 'pullSecretRef', 'sshPublicKey'])
    pairs.push([
      ['spec', field],
      ['spec', field],
    ]);
  if (cluster.clusterImageSetNameRef === undefined)
    pairs.push([
      ['spec', 'clusterImageSetNameRef'],
      ['spec', 'clusterImageSetNameRef'],
    ]);
  for (const kind of Object.keys(site.spec.crAnnotations?.add ?? {}))
    if (cluster.crAnnotations?.add?.[kind] === undefined)
      pairs.push([
        ['spec', 'crAnnotations', 'add', kind],
        ['spec', 'extraAnnotations', kind],
      ]);
  for (const field of [
    'clusterName',
    'clusterImageSetNameRef',
    'networkType',
    'cpuPartitioningMode',
    'holdInstallation',
    'installConfigOverrides',
    'apiVIPs',
    'ingressVIPs',
    'machineNetwork',
    'clusterNetwork',
    'serviceNetwork',
    'additionalNTPSources',
    'ignitionConfigOverride',
    'proxy',
    'diskEncryption',
    'nodes',
  ])
    pairs.push([
      [...at, field],
      ['spec', field],
    ]);
  if (cluster.apiVIPs === undefined)
    pairs.push([
      [...at, 'apiVIP'],
      ['spec', 'apiVIPs'],
    ]);
  if (cluster.ingressVIPs === undefined)
    pairs.push([
      [...at, 'ingressVIP'],
      ['spec', 'ingressVIPs'],
    ]);
  pairs.push([
    [...at, 'clusterLabels'],
    ['spec', 'extraLabels', 'ManagedCluster'],
  ]);
  for (const kind of Object.keys(cluster.crAnnotations?.add ?? {}))
    pairs.push([
      [...at, 'crAnnotations', 'add', kind],
      ['spec', 'extraAnnotations', kind],
    ]);
  pairs.push([
    [...at, 'crSuppression'],
    ['spec', 'suppressedManifests'],
  ]);
  ci.spec.nodes.forEach((_, n) => {
    const node = [...at, 'nodes', n];
    pairs.push([
      [...node, 'crAnnotations', 'add'],
      ['spec', 'nodes', n, 'extraAnnotations'],
    ]);
    pairs.push([
      [...node, 'crSuppression'],
      ['spec', 'nodes', n, 'suppressedManifests'],
    ]);
  });
  return pairs;
}

interface Commented {
  commentBefore?: string | null;
  comment?: string | null;
  spaceBefore?: boolean;
}

/** Copies the comments of a field (its key and its value) onto the field it became. */
function graftPair(src: { pair?: Pair; node: unknown }, dst: { pair?: Pair; node: unknown }): void {
  if (src.pair && dst.pair) copyComments(src.pair.key as Commented, dst.pair.key as Commented);
  graftNode(src.node, dst.node);
}

function copyComments(from: Commented | null | undefined, to: Commented | null | undefined): void {
  if (!from || !to) return;
  if (from.commentBefore) to.commentBefore = from.commentBefore;
  if (from.comment) to.comment = from.comment;
  if (from.spaceBefore) to.spaceBefore = true;
}

/** Comments of a value and, below it, of the entries with the same key or index. */
function graftNode(src: unknown, dst: unknown): void {
  if (isScalar(src) && isMap(dst) && dst.items.length === 1) {
    // A string that became an object (serviceNetwork: "cidr" → {cidr}): comments go to its value.
    copyComments(src, dst);
    return;
  }
  copyComments(src as Commented, dst as Commented);
  if (isScalar(src) && isScalar(dst)) {
    // Keep the quoting the user chose; where they wrote it plain, the library decides.
    if (typeof src.value === 'string' && src.value === dst.value && src.type !== 'PLAIN')
      dst.type = src.type;
  } else if (isMap(src) && isMap(dst)) {
    for (const pair of src.items) {
      if (!isScalar(pair.key)) continue;
      const target = findPair(dst, String(pair.key.value));
      if (target) graftPair({ pair, node: pair.value }, { pair: target, node: target.value });
    }
  } else if (isSeq(src) && isSeq(dst)) {
    src.items.forEach((item, index) => {
      if (index < dst.items.length) graftNode(item, dst.items[index]);
    });
  }
}
