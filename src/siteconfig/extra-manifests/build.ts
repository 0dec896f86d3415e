/**
 * The extra-manifests ConfigMap data of one cluster: the manifests assisted-service applies at
 * install time (day 0), built from the shipped default set, the user's folders, `.tmpl`
 * templates and the cluster's cpuset / diskPartition / diskEncryption fields.
 *
 * Pure: files come through the SiteFiles port. Everything that does not depend on the cluster
 * (directory listings, file parsing, template parsing, the composition of a set of folders,
 * workload manifests per cpuset, merges) is computed once per SiteFiles object and reused for
 * every cluster that names the same folders. A template rendering is reused for every cluster
 * whose rendering would read the same field values (go-template.ts records them), so a fleet
 * renders each distinct diskEncryption or partition layout once. Clusters that add nothing of
 * their own all get the same frozen `data` object.
 *
 * Decisions (siteconfig-generator's behaviour, §4 of the reference notes, unless said):
 * - Sources. With `extraManifests.searchPaths`, those folders in order and a later file of the
 *   same name wins; the default set is not used (`searchPaths: []` means no extra manifests).
 *   Otherwise the cluster's default set (`extraManifests.defaultSet`, default `default`;
 *   `none` for no defaults), then the `extraManifestPath` files; a user file that has the name
 *   of a predefined file, or of a key a predefined template or the workload folder produces,
 *   is an error (EXTRA_MANIFEST_CLASH; upstream: "Pre-defined extra-manifest cannot be over
 *   written"). Any two surviving sources producing one key is that error too.
 * - Folders. A relative folder is looked up against the kustomization root (`root`), where
 *   siteconfig-generator under kustomize finds it, then against the SiteConfig's folder; the first
 *   that is a folder is read, and a missing one is reported with every path tried.
 * - Files. Sub-folders and dot-files are skipped (a `workload/` folder feeds cpuset). Every
 *   other file is a manifest: YAML, several documents allowed (assisted-service splits them,
 *   MGMT-15715; upstream silently kept only the first). Each document must be a Kubernetes
 *   object (apiVersion, kind, metadata.name), gets `ran.openshift.io/ztp-gitops-generated:
 *   '{}'` and is re-emitted with emitYaml (sorted keys: deterministic, comments dropped).
 *   Empty files (blank or comments only) are skipped with a warning (upstream: silently, after
 *   crashing on them before OCPBUGS-39149); an empty file in a later search path thus removes
 *   an earlier file of that name.
 * - `.tmpl` files (also in `extraManifestPath`, where upstream passed them through unrendered)
 *   render once per node role present, in role order, with `{Role, Data: <cluster>}`; the key
 *   is `<role>-<name without .tmpl>`; blank output is dropped. Rendered output follows the
 *   file rules above. Templated outputs are never merged.
 * - cpuset (single-node clusters only): per node, the `workload/` folder of the last source
 *   that has one (`crio.conf`, `kubelet.conf` with `$cpuset`; `03-workload-partitioning.yaml`
 *   with `$crio`, `$k8s` base64 and `$mcp` = role) gives key
 *   `03-<role>-workload-partitioning.yaml`. No `workload/` folder: a warning, not silence.
 * - Filter, after workload partitioning and before the merge. Names are ConfigMap keys; a
 *   template's own file name (`disk-encryption.yaml.tmpl`) stands for all of its outputs, and
 *   `<role>-<name>` of a template is valid even when it rendered nothing for this cluster
 *   (upstream rejected it as unknown). An unknown name is an error listing the valid names.
 * - mergeDefaultMachineConfigs: the single-document MachineConfigs of the predefined statics
 *   (the default set; with searchPaths, the searchPaths statics, which stand in for it) that
 *   survived the filter merge per role into `predefined-extra-manifests-<role>.yaml`; see
 *   machine-config-merge.ts for the rules and the conflict warnings.
 * - diskPartition and diskEncryption are rendered by templates of the default set
 *   (`image-registry-partition-mc.yaml.tmpl`, `disk-encryption.yaml.tmpl`), so searchPaths
 *   users keep them as editable files, as upstream. Their fields are checked here
 *   (cluster-checks.ts); when a cluster sets them but no surviving manifest came from a template
 *   reading them, a warning says the setting has no effect.
 * - Problems: paths are relative to the cluster. Field errors (cpuset, diskPartition,
 *   diskEncryption) stop template rendering and workload partitioning for that cluster, so
 *   one mistake is not reported three times.
 */
import { quote } from '../../shared/errors.js';
import { posix } from 'node:path';
import { parseYamlFile } from '../../shared/source-yaml.js';
import { limitCode, limitHint } from '../../shared/limits.js';
import { emitYaml } from '../../shared/yaml-emit.js';
import { describeTried, firstFound, SITE_PATH_HINT, sitePathCandidates } from '../site-files.js';
import type { DirEntry, SiteFiles, SitePathCandidate } from '../site-files.js';
import type { ExtraManifests, SiteConfig, SiteConfigCluster } from '../types.js';
import { checkExtraManifestFields, masterCount } from './cluster-checks.js';
import { parseGoTemplate, readsMatch, TemplateBudget, TemplateError } from './go-template.js';
import type { FieldRead, GoTemplate, TemplateStruct } from './go-template.js';
import { mergeMachineConfigs } from './machine-config-merge.js';
import { templateData } from './template-data.js';

export {
  CONFIGMAP_DATA_LIMIT,
  configMapEntryBytes,
  splitConfigMapData,
} from './split-config-map.js';

/** What buildExtraManifests needs to know about one cluster. */
export interface ExtraManifestContext {
  /** The SiteConfig, validated and normalized (labels as strings). */
  readonly site: SiteConfig;
  /** Index of the cluster in `site.spec.clusters`. */
  readonly clusterIndex: number;
  /** Path of the SiteConfig file; relative folders resolve against its directory after `root`. */
  readonly siteFile: string;
  /**
   * The kustomization root: relative folders resolve against it first, as siteconfig-generator
   * resolves them, then against the SiteConfig's folder. @default the SiteConfig's folder only
   */
  readonly root?: string;
  /** The user's files. */
  readonly files: SiteFiles;
  /** The shipped default sets: `dir` holds one folder per set (`default`, ...). */
  readonly defaults: { readonly files: SiteFiles; readonly dir: string };
  /**
   * What template renderings may cost; pass one budget for every cluster of a run.
   * @default a budget of its own, with defaultLimits
   */
  readonly budget?: TemplateBudget;
}

/** A problem found while building, at a path relative to the cluster object. */
export interface ExtraManifestProblem {
  /** E.g. `['extraManifests', 'searchPaths', 0]` or `['nodes', 0, 'diskPartition']`. */
  readonly path: readonly (string | number)[];
  readonly severity: 'error' | 'warning';
  /** SCREAMING_SNAKE code, e.g. EXTRA_MANIFEST_CLASH. */
  readonly code: string;
  /** May name a manifest file and a line in it (`x/y.yaml:3:1: not valid YAML: ...`). */
  readonly message: string;
  readonly hint: string;
}

/** The extra-manifests ConfigMap data of a cluster and what went wrong building it. */
export interface ExtraManifestResult {
  /** ConfigMap data: file name → manifest YAML text, keys sorted. */
  readonly data: Readonly<Record<string, string>>;
  readonly problems: readonly ExtraManifestProblem[];
  /** The user's folders the data was read from (with their workload/), as resolved. */
  readonly folders: readonly string[];
}

/** The default set a cluster gets when it names none. */
export const DEFAULT_SET = 'default';
/** The `defaultSet` value that selects no default manifests at all. */
export const NO_DEFAULT_SET = 'none';

const ZTP_ANNOTATION = 'ran.openshift.io/ztp-gitops-generated';
const WORKLOAD_DIR = 'workload';
const WORKLOAD_MANIFEST = '03-workload-partitioning.yaml';
const WORKLOAD_CRIO = 'crio.conf';
const WORKLOAD_KUBELET = 'kubelet.conf';
const ROLES = ['master', 'worker'] as const;
/** Workload and merge caches keep at most this many entries per composition. */
const RENDER_CACHE_LIMIT = 4096;
/** Renderings kept per template and role (a fleet rarely has more distinct inputs). */
const MEMO_LIMIT = 64;
const NO_PROBLEMS: readonly ExtraManifestProblem[] = Object.freeze([]);
const NO_FOLDERS: readonly string[] = Object.freeze([]);

type Path = readonly (string | number)[];
type Obj = Readonly<Record<string, unknown>>;

/** `extraManifests.defaultSet`, read without relying on the field being in the types yet. */
function defaultSetOf(field: ExtraManifests | undefined): string | undefined {
  const value = (field as { readonly defaultSet?: unknown } | undefined)?.defaultSet;
  return typeof value === 'string' ? value : undefined;
}

// ---------------------------------------------------------------------------------------------
// Files, parsed once per SiteFiles object

/** A file as read and parsed, independent of any cluster. */
type LoadedFile =
  | { readonly kind: 'manifest'; readonly text: string; readonly docs: readonly Obj[] }
  | { readonly kind: 'empty' }
  | { readonly kind: 'template'; readonly template: GoTemplate }
  | { readonly kind: 'unreadable' }
  | {
      readonly kind: 'invalid';
      readonly code: string;
      readonly message: string;
      readonly hint: string;
    };

let nextCacheId = 0;

class FileCache {
  /** Distinguishes caches in composition keys. */
  readonly id = nextCacheId++;
  private readonly listings = new Map<string, readonly DirEntry[] | undefined>();
  private readonly loaded = new Map<string, LoadedFile>();
  /** Source-set key → composition, for the clusters that name the same folders. */
  readonly compositions = new Map<string, Composition>();
  /** Extra-manifest settings of a cluster → its composition and the problems of its sources. */
  readonly resolved = new Map<string, Resolved>();

  constructor(readonly files: SiteFiles) {}

  list(dir: string): readonly DirEntry[] | undefined {
    if (!this.listings.has(dir)) this.listings.set(dir, this.files.listDir(dir));
    return this.listings.get(dir);
  }

  load(path: string): LoadedFile {
    let file = this.loaded.get(path);
    if (!file) {
      file = loadFile(path, this.files.readText(path));
      this.loaded.set(path, file);
    }
    return file;
  }
}

/** A cluster's composition, the problems of its sources and the user folders they read. */
interface Resolved {
  readonly comp: Composition;
  readonly problems: readonly ExtraManifestProblem[];
  readonly folders: readonly string[];
}

/** One cache per SiteFiles object: a run (one loader call) reads each file once. */
const fileCaches = new WeakMap<SiteFiles, FileCache>();

function cacheOf(files: SiteFiles): FileCache {
  let cache = fileCaches.get(files);
  if (!cache) fileCaches.set(files, (cache = new FileCache(files)));
  return cache;
}

function isObj(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function loadFile(path: string, text: string | undefined): LoadedFile {
  if (text === undefined) return { kind: 'unreadable' };
  if (path.endsWith('.tmpl')) {
    if (text.trim() === '') return { kind: 'empty' };
    try {
      return { kind: 'template', template: parseGoTemplate(posix.basename(path), text) };
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      return {
        kind: 'invalid',
        code: 'TEMPLATE_INVALID',
        message: `${path}:${String(err.line)}: ${err.detail}`,
        hint: 'extra-manifest templates are Go text/template: fields, variables, if/else/range/with and the functions and or not eq ne lt le gt ge len index print printf println',
      };
    }
  }
  return parseManifests(path, text, 'EXTRA_MANIFEST_INVALID');
}

/**
 * Parses manifest text: every non-empty document must be a Kubernetes object; each is
 * annotated and re-emitted. `label` names the text in messages.
 */
function parseManifests(label: string, text: string, code: string): LoadedFile {
  const parsed = parseYamlFile(label, text, { locations: false });
  const syntax = parsed.errors[0];
  if (syntax) {
    return {
      kind: 'invalid',
      code,
      message: `${label}:${String(syntax.pos.line)}:${String(syntax.pos.column)}: not valid YAML: ${syntax.message}`,
      hint: 'an extra manifest is a YAML Kubernetes object (several separated by ---); fix the file, or rename it to start with a dot to leave it out',
    };
  }
  const docs: Obj[] = [];
  for (const document of parsed.documents) {
    const value = document.value;
    if (value === null || value === undefined) continue;
    const missing = !isObj(value)
      ? `it is a ${Array.isArray(value) ? 'list' : typeof value}, not a map`
      : typeof value['apiVersion'] !== 'string'
        ? 'it has no apiVersion'
        : typeof value['kind'] !== 'string'
          ? 'it has no kind'
          : !isObj(value['metadata']) || typeof value['metadata']['name'] !== 'string'
            ? 'it has no metadata.name'
            : undefined;
    if (missing !== undefined) {
      return {
        kind: 'invalid',
        code,
        message: `${label}:${String(document.pos.line)}:${String(document.pos.column)}: not a Kubernetes object: ${missing}`,
        hint: 'an extra manifest holds Kubernetes objects with apiVersion, kind and metadata.name',
      };
    }
    docs.push(annotate(value as Obj));
  }
  if (docs.length === 0) return { kind: 'empty' };
  return { kind: 'manifest', docs, text: docs.map((doc) => emitYaml(doc)).join('---\n') };
}

function annotate(doc: Obj): Obj {
  const metadata = doc['metadata'] as Obj;
  const annotations = isObj(metadata['annotations']) ? metadata['annotations'] : {};
  return {
    ...doc,
    metadata: { ...metadata, annotations: { ...annotations, [ZTP_ANNOTATION]: '{}' } },
  };
}

// ---------------------------------------------------------------------------------------------
// Composition: the files of a set of source folders, independent of any cluster

type SourceKind = 'default' | 'search' | 'user';

interface Source {
  readonly kind: SourceKind;
  /** The folder, as resolved; the first candidate when none exists. */
  readonly dir: string;
  readonly at: Path;
  readonly cache: FileCache;
  /** A user folder none of whose candidates exists: the path as written and where it was looked for. */
  readonly missing?: { readonly ref: string; readonly tried: readonly SitePathCandidate[] };
}

interface StaticEntry {
  readonly name: string;
  readonly path: string;
  readonly mergeable: boolean;
  readonly docs: readonly Obj[];
  readonly text: string;
}

interface TemplateEntry {
  readonly name: string;
  /** The key without the role prefix: the file name without `.tmpl`. */
  readonly base: string;
  readonly path: string;
  readonly at: Path;
  readonly template: GoTemplate;
}

interface WorkloadFiles {
  readonly manifest: string;
  readonly crio: string;
  readonly kubelet: string;
}

type Rendered =
  | { readonly ok: true; readonly text: string | undefined }
  | { readonly ok: false; readonly message: string };

interface Composition {
  readonly statics: readonly StaticEntry[];
  /** The statics' ConfigMap data, keys sorted. */
  readonly staticData: Readonly<Record<string, string>>;
  readonly templates: readonly TemplateEntry[];
  readonly problems: readonly ExtraManifestProblem[];
  readonly workload?: {
    readonly dir: string;
    readonly at: Path;
    readonly files: WorkloadFiles | ExtraManifestProblem;
  };
  /** Template path + role → renderings, each valid for the clusters that read the same values. */
  readonly memo: Map<string, MemoEntry[]>;
  readonly workloadTexts: Map<string, Rendered>;
  readonly merges: Map<string, MergeOutcome>;
}

/** What rendering one template for one role gave. */
type RenderOutcome =
  | { readonly kind: 'blank' }
  | { readonly kind: 'manifest'; readonly text: string }
  | { readonly kind: 'failed'; readonly problem: ExtraManifestProblem };

interface MemoEntry {
  readonly reads: readonly FieldRead[];
  readonly outcome: RenderOutcome;
}

interface MergeOutcome {
  readonly replaced: readonly string[];
  readonly added: Readonly<Record<string, string>>;
  readonly problems: readonly ExtraManifestProblem[];
}

function problem(
  path: Path,
  severity: 'error' | 'warning',
  code: string,
  message: string,
  hint: string,
): ExtraManifestProblem {
  return { path, severity, code, message, hint };
}

/** The sources of a cluster and the key under which their composition is cached. */
function sourcesOf(
  ctx: ExtraManifestContext,
  cluster: SiteConfigCluster,
  caches: { user: FileCache; defaults: FileCache },
  problems: ExtraManifestProblem[],
): Source[] {
  const field = cluster.extraManifests;
  const defaultSet = defaultSetOf(field);
  const setAt: Path = ['extraManifests', 'defaultSet'];
  if (field?.searchPaths !== undefined) {
    if (defaultSet !== undefined)
      problems.push(
        problem(
          setAt,
          'warning',
          'EXTRA_MANIFEST_SET_IGNORED',
          `defaultSet ${quote(defaultSet)} is ignored: extraManifests.searchPaths replaces the default set`,
          'remove defaultSet, or copy the manifests you want from the default set into a search path',
        ),
      );
    return field.searchPaths.map((path, i) =>
      userSource(ctx, 'search', path, ['extraManifests', 'searchPaths', i], caches.user),
    );
  }
  const sources: Source[] = [];
  const set = defaultSet ?? DEFAULT_SET;
  if (set !== NO_DEFAULT_SET) {
    const sets = caches.defaults.list(ctx.defaults.dir);
    const available = (sets ?? [])
      .filter((e) => e.isDirectory && !e.name.startsWith('.'))
      .map((e) => e.name);
    if (!sets) {
      problems.push(
        problem(
          setAt,
          'error',
          'EXTRA_MANIFEST_NOT_FOUND',
          `the default extra manifests folder ${ctx.defaults.dir} is missing`,
          'reinstall SiteForge; the default sets ship in its extra-manifests folder',
        ),
      );
    } else if (!available.includes(set)) {
      problems.push(
        problem(
          setAt,
          'error',
          'EXTRA_MANIFEST_SET_UNKNOWN',
          `there is no default extra-manifest set ${quote(set)}; the sets are ${[...available, NO_DEFAULT_SET].join(', ')}`,
          `name one of them, or ${quote(NO_DEFAULT_SET)} for no default manifests`,
        ),
      );
    } else {
      sources.push({
        kind: 'default',
        dir: posix.join(ctx.defaults.dir, set),
        at: setAt,
        cache: caches.defaults,
      });
    }
  }
  if (cluster.extraManifestPath !== undefined) {
    sources.push(
      userSource(ctx, 'user', cluster.extraManifestPath, ['extraManifestPath'], caches.user),
    );
  }
  return sources;
}

/** A folder the user names, at the first of its candidate paths that is a folder. */
function userSource(
  ctx: ExtraManifestContext,
  kind: 'search' | 'user',
  ref: string,
  at: Path,
  cache: FileCache,
): Source {
  const tried = sitePathCandidates(ctx.siteFile, ref, ctx.root);
  const found = firstFound(tried, (dir) => cache.list(dir));
  return found
    ? { kind, dir: found.path, at, cache }
    : { kind, dir: tried[0]!.path, at, cache, missing: { ref, tried } };
}

function describeSource(source: Source): string {
  switch (source.kind) {
    case 'default':
      return 'default extra-manifest set';
    case 'search':
      return `extraManifests.searchPaths[${String(source.at[2])}]`;
    case 'user':
      return 'extraManifestPath';
  }
}

/** The key a workload manifest file gets for a role: `03-<role>-workload-partitioning.yaml`. */
function workloadKey(role: string): string {
  return WORKLOAD_KEYS.get(role) ?? WORKLOAD_MANIFEST.replace('-', `-${role}-`);
}
const WORKLOAD_KEYS = new Map<string, string>(
  ROLES.map((role) => [role, WORKLOAD_MANIFEST.replace('-', `-${role}-`)]),
);

function compose(sources: readonly Source[]): Composition {
  const problems: ExtraManifestProblem[] = [];
  interface Candidate {
    readonly name: string;
    readonly path: string;
    readonly source: Source;
    readonly hides?: string;
  }
  const byName = new Map<string, Candidate>();
  let workload: { dir: string; at: Path; source: Source } | undefined;

  for (const source of sources) {
    const listing = source.missing ? undefined : source.cache.list(source.dir);
    if (!listing) {
      const tried = source.missing?.tried ?? [{ path: source.dir, base: '' }];
      const file = tried.find((c) => source.cache.files.readText(c.path) !== undefined);
      problems.push(
        problem(
          source.at,
          'error',
          'EXTRA_MANIFEST_NOT_FOUND',
          file
            ? `${describeSource(source)} ${file.path} is a file, not a folder`
            : source.missing
              ? `${describeSource(source)} ${source.missing.ref} does not exist: ${describeTried(tried)}`
              : `${describeSource(source)} ${source.dir} does not exist`,
          file ? 'name a folder of manifests' : SITE_PATH_HINT,
        ),
      );
      continue;
    }
    const files = listing.filter((e) => !e.name.startsWith('.') && !e.isDirectory);
    if (files.length === 0 && !listing.some((e) => e.isDirectory && e.name === WORKLOAD_DIR)) {
      problems.push(
        problem(
          source.at,
          'warning',
          'EXTRA_MANIFEST_DIR_EMPTY',
          `${describeSource(source)} ${source.dir} holds no manifests`,
          'add manifests to it or remove the path',
        ),
      );
    }
    if (source.kind !== 'user' && listing.some((e) => e.isDirectory && e.name === WORKLOAD_DIR)) {
      workload = { dir: posix.join(source.dir, WORKLOAD_DIR), at: source.at, source };
    }
    for (const entry of files) {
      const path = posix.join(source.dir, entry.name);
      const known = byName.get(entry.name);
      if (source.kind === 'user' && known) {
        problems.push(
          problem(
            source.at,
            'error',
            'EXTRA_MANIFEST_CLASH',
            `${path} has the name of the predefined extra manifest ${known.path}; predefined extra manifests cannot be overwritten`,
            'rename your file, or switch to extraManifests.searchPaths with a copy of the default set that holds your version',
          ),
        );
        continue;
      }
      byName.set(entry.name, {
        name: entry.name,
        path,
        source,
        ...(known ? { hides: known.path } : {}),
      });
    }
  }

  const statics: StaticEntry[] = [];
  const templates: TemplateEntry[] = [];
  // Which file produces which key, to report two producers of one key. Predefined sources are
  // processed first, so a user file is the one reported.
  const producers = new Map<string, { by: string; predefined: boolean }>();
  const claim = (key: string, by: string, at: Path, predefined: boolean): boolean => {
    const other = producers.get(key);
    if (other !== undefined) {
      problems.push(
        !predefined && other.predefined
          ? problem(
              at,
              'error',
              'EXTRA_MANIFEST_CLASH',
              `${by} produces the ConfigMap key ${key}, like the predefined ${other.by}; predefined extra manifests cannot be overwritten`,
              'rename your file, or switch to extraManifests.searchPaths with a copy of the default set that holds your version',
            )
          : problem(
              at,
              'error',
              'EXTRA_MANIFEST_CLASH',
              `${by} and ${other.by} both produce the ConfigMap key ${key}`,
              'rename one of the files',
            ),
      );
      return false;
    }
    producers.set(key, { by, predefined });
    return true;
  };
  if (workload) {
    for (const role of ROLES)
      producers.set(workloadKey(role), {
        by: `${workload.dir}/${WORKLOAD_MANIFEST}`,
        predefined: true,
      });
  }
  const ordered = [...byName.values()].sort((a, b) => {
    const ua = a.source.kind === 'user' ? 1 : 0;
    const ub = b.source.kind === 'user' ? 1 : 0;
    return ua - ub || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  });
  for (const candidate of ordered) {
    const { name, source, path } = candidate;
    const loaded = source.cache.load(path);
    const predefined = source.kind !== 'user';
    switch (loaded.kind) {
      case 'unreadable':
        problems.push(
          problem(
            source.at,
            'error',
            'EXTRA_MANIFEST_UNREADABLE',
            `${path} is listed in ${source.dir} but cannot be read`,
            'check the file permissions, or whether it is a broken link',
          ),
        );
        break;
      case 'invalid':
        problems.push(problem(source.at, 'error', loaded.code, loaded.message, loaded.hint));
        break;
      case 'empty':
        problems.push(
          problem(
            source.at,
            'warning',
            'EXTRA_MANIFEST_EMPTY',
            candidate.hides
              ? `${path} is empty: it removes ${candidate.hides} and adds nothing`
              : `${path} is empty and is skipped`,
            candidate.hides
              ? 'to drop a manifest, prefer extraManifests.filter.exclude'
              : 'add the manifest, or delete the file',
          ),
        );
        break;
      case 'template': {
        const base = name.slice(0, -'.tmpl'.length);
        if (ROLES.every((role) => claim(`${role}-${base}`, path, source.at, predefined)))
          templates.push({ name, base, path, at: source.at, template: loaded.template });
        break;
      }
      case 'manifest':
        if (claim(name, path, source.at, predefined))
          statics.push({ name, path, mergeable: predefined, docs: loaded.docs, text: loaded.text });
        break;
    }
  }
  statics.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  templates.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const staticData: Record<string, string> = {};
  for (const entry of statics) staticData[entry.name] = entry.text;
  // Handed out as is to every cluster that adds nothing of its own.
  Object.freeze(staticData);
  return {
    statics,
    staticData,
    templates,
    problems,
    ...(workload
      ? {
          workload: {
            dir: workload.dir,
            at: workload.at,
            files: readWorkload(workload.dir, workload.at, workload.source),
          },
        }
      : {}),
    memo: new Map(),
    workloadTexts: new Map(),
    merges: new Map(),
  };
}

function readWorkload(dir: string, at: Path, source: Source): WorkloadFiles | ExtraManifestProblem {
  const read = (name: string): string | undefined =>
    source.cache.files.readText(posix.join(dir, name));
  const manifest = read(WORKLOAD_MANIFEST);
  const crio = read(WORKLOAD_CRIO);
  const kubelet = read(WORKLOAD_KUBELET);
  if (manifest === undefined || crio === undefined || kubelet === undefined) {
    const missing = [WORKLOAD_MANIFEST, WORKLOAD_CRIO, WORKLOAD_KUBELET].filter(
      (n) => read(n) === undefined,
    );
    return problem(
      at,
      'error',
      'WORKLOAD_PARTITIONING_INVALID',
      `the workload folder ${dir} lacks ${missing.join(', ')}`,
      `a workload folder holds ${WORKLOAD_MANIFEST} ($crio, $k8s, $mcp), ${WORKLOAD_CRIO} and ${WORKLOAD_KUBELET} ($cpuset)`,
    );
  }
  return { manifest, crio, kubelet };
}

function composition(sources: readonly Source[], cache: FileCache): Composition {
  const key = JSON.stringify(
    sources.map((s) => [s.kind, s.cache.id, s.dir, s.at, s.missing?.tried.map((c) => c.path)]),
  );
  let found = cache.compositions.get(key);
  if (!found) {
    found = compose(sources);
    cache.compositions.set(key, found);
  }
  return found;
}

/**
 * The composition of a cluster's sources, looked up by the fields that choose them, so that a
 * fleet of clusters with the same settings resolves paths and folders once.
 */
function resolved(ctx: ExtraManifestContext, cluster: SiteConfigCluster): Resolved {
  const user = cacheOf(ctx.files);
  const defaults = cacheOf(ctx.defaults.files);
  const field = cluster.extraManifests;
  const set = defaultSetOf(field);
  // Most clusters name no folders: their key is only the default set.
  const key =
    field?.searchPaths === undefined && cluster.extraManifestPath === undefined
      ? `${String(defaults.id)}\0${ctx.defaults.dir}\0${set ?? ''}`
      : JSON.stringify([
          defaults.id,
          ctx.defaults.dir,
          set ?? '',
          field?.searchPaths ?? null,
          cluster.extraManifestPath ?? null,
          posix.dirname(ctx.siteFile),
          ctx.root ?? null,
        ]);
  let found = user.resolved.get(key);
  if (!found) {
    const problems: ExtraManifestProblem[] = [];
    const sources = sourcesOf(ctx, cluster, { user, defaults }, problems);
    const comp = composition(sources, user);
    problems.push(...comp.problems);
    // A search path's workload/ folder feeds cpuset; extraManifestPath has none (see compose).
    const folders = sources
      .filter((s) => s.kind !== 'default' && !s.missing)
      .flatMap((s) => (s.kind === 'search' ? [s.dir, posix.join(s.dir, WORKLOAD_DIR)] : [s.dir]));
    found = {
      comp,
      problems: problems.length > 0 ? problems : NO_PROBLEMS,
      folders: folders.length > 0 ? folders : NO_FOLDERS,
    };
    user.resolved.set(key, found);
  }
  return found;
}

function remember<T>(map: Map<string, T>, key: string, compute: () => T): T {
  let value = map.get(key);
  if (value === undefined) {
    value = compute();
    if (map.size < RENDER_CACHE_LIMIT) map.set(key, value);
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Per cluster

/** Builds the extra-manifests ConfigMap data of one cluster. */
export function buildExtraManifests(ctx: ExtraManifestContext): ExtraManifestResult {
  const budget = ctx.budget ?? new TemplateBudget();
  const cluster = ctx.site.spec.clusters[ctx.clusterIndex];
  if (!cluster) throw new RangeError(`SiteConfig has no cluster ${String(ctx.clusterIndex)}`);
  const { comp, problems: sourceProblems, folders } = resolved(ctx, cluster);
  const fieldProblems = checkExtraManifestFields(cluster);
  const problems: ExtraManifestProblem[] =
    sourceProblems.length + fieldProblems.length === 0 ? [] : [...sourceProblems, ...fieldProblems];
  const fieldErrors = fieldProblems.some((p) => p.severity === 'error');
  const roles = ROLES.filter((role) =>
    cluster.nodes.some((node) => (node.role ?? 'master') === role),
  );

  /** Keys this cluster adds to the composition's statics. */
  const own: Record<string, string> = {};
  /** Rendered keys → the template that produced them. */
  const fromTemplate = new Map<string, TemplateEntry>();
  let templateFailed = false;
  if (!fieldErrors && comp.templates.length > 0) {
    const dataFor = templateData(cluster);
    for (const entry of comp.templates) {
      for (const role of roles) {
        const outcome = renderTemplate(comp, entry, role, dataFor(role), budget);
        if (outcome.kind === 'failed') {
          templateFailed = true;
          problems.push(outcome.problem);
        } else if (outcome.kind === 'manifest') {
          const key = `${role}-${entry.base}`;
          own[key] = outcome.text;
          fromTemplate.set(key, entry);
        }
      }
    }
  }
  if (!fieldErrors) workloadPartitioning(cluster, comp, own, problems);

  const filter = cluster.extraManifests?.filter;
  const merge = cluster.mergeDefaultMachineConfigs === true;
  const check = !fieldErrors && !templateFailed;
  const ownKeys = Object.keys(own);
  if (!filter && !merge) {
    // The common case: the shared statics, plus this cluster's outputs in key order.
    const data = ownKeys.length === 0 ? comp.staticData : withSorted(comp.staticData, own, ownKeys);
    if (check) unusedFields(cluster, data, fromTemplate, problems);
    return { data, problems, folders };
  }
  let data: Record<string, string> = { ...comp.staticData, ...own };
  if (filter) data = applyFilter(filter, comp, roles, data, problems);
  if (merge) data = mergePredefined(comp, data, problems);
  if (check) unusedFields(cluster, data, fromTemplate, problems);
  const sorted: Record<string, string> = {};
  for (const key of Object.keys(data).sort()) sorted[key] = data[key]!;
  return { data: sorted, problems, folders };
}

/** `base` (keys sorted) and `extra` in one object with sorted keys; `extra` wins on a tie. */
function withSorted(
  base: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>>,
  extraKeys: string[],
): Record<string, string> {
  extraKeys.sort();
  const out: Record<string, string> = {};
  let k = 0;
  for (const key of Object.keys(base)) {
    while (k < extraKeys.length && extraKeys[k]! < key) {
      const add = extraKeys[k++]!;
      out[add] = extra[add]!;
    }
    if (extraKeys[k] === key) k++;
    out[key] = Object.hasOwn(extra, key) ? extra[key]! : base[key]!;
  }
  for (; k < extraKeys.length; k++) out[extraKeys[k]!] = extra[extraKeys[k]!]!;
  return out;
}

/** Warns about diskEncryption and diskPartition settings that no surviving manifest carries. */
function unusedFields(
  cluster: SiteConfigCluster,
  data: Readonly<Record<string, string>>,
  fromTemplate: ReadonlyMap<string, TemplateEntry>,
  problems: ExtraManifestProblem[],
): void {
  const type = cluster.diskEncryption?.type ?? 'none';
  const n = cluster.nodes.findIndex((node) => (node.diskPartition ?? []).length > 0);
  if (type === 'none' && n < 0) return;
  const reads = (field: string): boolean =>
    Object.keys(data).some((key) => fromTemplate.get(key)?.template.fieldNames.has(field));
  if (type !== 'none' && !reads('diskencryption'))
    problems.push(
      problem(
        ['diskEncryption', 'type'],
        'warning',
        'EXTRA_MANIFEST_FIELD_UNUSED',
        `diskEncryption type ${type} has no effect: no extra manifest of this cluster is rendered from it`,
        'keep disk-encryption.yaml.tmpl of the default set in your extra-manifest folders, and do not filter its output out',
      ),
    );
  if (n >= 0 && !reads('diskpartition'))
    problems.push(
      problem(
        ['nodes', n, 'diskPartition'],
        'warning',
        'EXTRA_MANIFEST_FIELD_UNUSED',
        'diskPartition has no effect: no extra manifest of this cluster is rendered from it',
        'keep image-registry-partition-mc.yaml.tmpl of the default set in your extra-manifest folders, and do not filter its output out',
      ),
    );
}

/**
 * Renders a template for a role, reusing an earlier rendering when this cluster reads the same
 * values (most clusters of a fleet render the same blanks and the same manifests).
 */
function renderTemplate(
  comp: Composition,
  entry: TemplateEntry,
  role: string,
  root: TemplateStruct,
  budget: TemplateBudget,
): RenderOutcome {
  const memoKey = `${entry.path}\n${role}`;
  const memo = comp.memo.get(memoKey);
  if (memo) for (const known of memo) if (readsMatch(root, known.reads)) return known.outcome;
  let rendering: { readonly output: string; readonly reads: readonly FieldRead[] | undefined };
  try {
    rendering = entry.template.executeTracked(root, budget);
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    return {
      kind: 'failed',
      problem: problem(
        entry.at,
        'error',
        err.limit ? limitCode(err.limit) : 'TEMPLATE_EXECUTION_FAILED',
        `${entry.path}:${String(err.line)}: rendering for role ${role}: ${err.detail}`,
        err.limit
          ? limitHint(err.limit)
          : 'templates see {{ .Role }} and the cluster as {{ .Data }}, with Go field names (.Data.ClusterName, .Data.Nodes, .Data.DiskEncryption.Type)',
      ),
    };
  }
  let outcome: RenderOutcome = { kind: 'blank' };
  if (rendering.output.trim() !== '') {
    const rendered = renderedManifest(
      `${entry.path} (rendered for role ${role})`,
      rendering.output,
    );
    if (!rendered.ok) {
      outcome = {
        kind: 'failed',
        problem: problem(
          entry.at,
          'error',
          'TEMPLATE_OUTPUT_INVALID',
          rendered.message,
          'line numbers count lines of the rendered output; check indentation around {{ }} actions and the - trim markers',
        ),
      };
    } else if (rendered.text !== undefined) outcome = { kind: 'manifest', text: rendered.text };
  }
  if (rendering.reads) {
    const list = memo ?? [];
    if (list.length < MEMO_LIMIT) list.push({ reads: rendering.reads, outcome });
    comp.memo.set(memoKey, list);
  }
  return outcome;
}

function renderedManifest(label: string, text: string): Rendered {
  const loaded = parseManifests(label, text, 'TEMPLATE_OUTPUT_INVALID');
  switch (loaded.kind) {
    case 'manifest':
      return { ok: true, text: loaded.text };
    case 'empty':
      return { ok: true, text: undefined };
    case 'invalid':
      return { ok: false, message: loaded.message };
    case 'template':
    case 'unreadable':
      return { ok: false, message: `${label}: unexpected output` };
  }
}

function workloadPartitioning(
  cluster: SiteConfigCluster,
  comp: Composition,
  data: Record<string, string>,
  problems: ExtraManifestProblem[],
): void {
  if (masterCount(cluster) !== 1) return;
  cluster.nodes.forEach((node, n) => {
    const cpuset = node.cpuset;
    if (cpuset === undefined || cpuset === '') return;
    const workload = comp.workload;
    if (!workload) {
      problems.push(
        problem(
          ['nodes', n, 'cpuset'],
          'warning',
          'WORKLOAD_PARTITIONING_UNAVAILABLE',
          'cpuset has no effect: no extra-manifest folder of this cluster has a workload/ folder',
          'copy the workload/ folder of the default set into a search path, or use cpuPartitioningMode: AllNodes',
        ),
      );
      return;
    }
    if (!('manifest' in workload.files)) {
      problems.push(workload.files);
      return;
    }
    const files = workload.files;
    const role = node.role ?? 'master';
    const key = workloadKey(role);
    const rendered = remember(comp.workloadTexts, `${role}\n${cpuset}`, () => {
      const base64 = (text: string): string =>
        Buffer.from(text.replaceAll('$cpuset', cpuset), 'utf8').toString('base64');
      const text = files.manifest
        .replaceAll('$crio', base64(files.crio))
        .replaceAll('$k8s', base64(files.kubelet))
        .replaceAll('$mcp', role);
      return renderedManifest(`${workload.dir}/${WORKLOAD_MANIFEST} (for role ${role})`, text);
    });
    if (!rendered.ok || rendered.text === undefined) {
      problems.push(
        problem(
          workload.at,
          'error',
          'WORKLOAD_PARTITIONING_INVALID',
          rendered.ok ? `${workload.dir}/${WORKLOAD_MANIFEST} is empty` : rendered.message,
          `${WORKLOAD_MANIFEST} is a MachineConfig with $crio, $k8s and $mcp placeholders`,
        ),
      );
      return;
    }
    data[key] = rendered.text;
  });
}

function applyFilter(
  filter: NonNullable<ExtraManifests['filter']>,
  comp: Composition,
  roles: readonly string[],
  data: Record<string, string>,
  problems: ExtraManifestProblem[],
): Record<string, string> {
  const mode = filter.inclusionDefault ?? 'include';
  const listName = mode === 'include' ? 'exclude' : 'include';
  const wrong = mode === 'include' ? 'include' : 'exclude';
  if ((filter[wrong] ?? []).length > 0) {
    problems.push(
      problem(
        ['extraManifests', 'filter', wrong],
        'error',
        'FILTER_INVALID',
        `filter.${wrong} cannot be used when inclusionDefault is ${mode}`,
        mode === 'include'
          ? 'list files to drop under exclude, or set inclusionDefault: exclude'
          : 'list files to keep under include, or set inclusionDefault: include',
      ),
    );
  }
  const byTemplateName = new Map(comp.templates.map((t) => [t.name, t]));
  const templateKeys = new Set(
    comp.templates.flatMap((t) => roles.map((role) => `${role}-${t.base}`)),
  );
  const chosen = new Set<string>();
  (filter[listName] ?? []).forEach((name, i) => {
    const template = byTemplateName.get(name);
    if (Object.hasOwn(data, name)) chosen.add(name);
    else if (template) for (const role of roles) chosen.add(`${role}-${template.base}`);
    else if (!templateKeys.has(name)) {
      const valid = [
        ...new Set([...Object.keys(data), ...templateKeys, ...byTemplateName.keys()]),
      ].sort();
      problems.push(
        problem(
          ['extraManifests', 'filter', listName, i],
          'error',
          'FILTER_UNKNOWN_FILE',
          `filter.${listName} names ${quote(name)}, which is no extra manifest of this cluster; valid names are: ${valid.join(', ')}`,
          'names are ConfigMap keys: file names, <role>-<name> for rendered templates, or a .tmpl file name for all of its outputs',
        ),
      );
    }
  });
  const out: Record<string, string> = {};
  for (const key of Object.keys(data))
    if (chosen.has(key) === (mode === 'exclude')) out[key] = data[key]!;
  return out;
}

function mergePredefined(
  comp: Composition,
  data: Record<string, string>,
  problems: ExtraManifestProblem[],
): Record<string, string> {
  const candidates = comp.statics.filter(
    (s) =>
      s.mergeable &&
      s.docs.length === 1 &&
      s.docs[0]!['kind'] === 'MachineConfig' &&
      Object.hasOwn(data, s.name),
  );
  if (candidates.length === 0) return data;
  const outcome = remember(comp.merges, candidates.map((c) => c.name).join('\n'), () => {
    const result = mergeMachineConfigs(
      candidates.map((c) => ({ key: c.name, manifest: c.docs[0]! })),
    );
    const added: Record<string, string> = {};
    for (const [role, manifest] of result.merged)
      added[`predefined-extra-manifests-${role}.yaml`] = emitYaml(manifest);
    return {
      replaced: result.replaced,
      added,
      problems: result.notices.map((n) =>
        problem(['mergeDefaultMachineConfigs'], 'warning', n.code, n.message, n.hint),
      ),
    };
  });
  problems.push(...outcome.problems);
  const replaced = new Set(outcome.replaced);
  const out: Record<string, string> = {};
  for (const key of Object.keys(data)) if (!replaced.has(key)) out[key] = data[key]!;
  for (const [key, text] of Object.entries(outcome.added)) {
    if (Object.hasOwn(out, key)) {
      problems.push(
        problem(
          ['mergeDefaultMachineConfigs'],
          'error',
          'EXTRA_MANIFEST_CLASH',
          `the merged MachineConfigs go to ${key}, which another extra manifest already is`,
          'rename that file, or turn mergeDefaultMachineConfigs off',
        ),
      );
      continue;
    }
    out[key] = text;
  }
  return out;
}
