/**
 * The sites a change between two revisions of a sites repository adds, changes and removes,
 * each classified with the day-2 rules of `siteforge diff` (src/siteconfig/diff.ts).
 *
 * Both revisions are read from git objects (git-revision.ts). At the target revision, every
 * file a change may affect is loaded and validated, as Argo CD's generation validates the sites
 * of a folder (one invalid site, or a name or MAC used twice, fails them all): the changed files,
 * the files whose sites may read a changed file, and those sharing a name or MAC with a changed
 * one (target-selection.ts; every file with `validateAll`). What each loaded site reads
 * (crTemplates, BIOS files, extra-manifest folders, the kustomization that roots its paths) is
 * recorded while it loads. Only the sites whose files, or files they read, differ between the
 * revisions are compiled, at both revisions, and compared: a fleet of thousands of sites with a
 * few changed costs the validation of the few, not two compilations of the fleet.
 */
import { posix } from 'node:path';
import type { InputIssue } from '../../shared/errors.js';
import {
  compileClusterInstance,
  compileSiteConfig,
  diffFleets,
  KUSTOMIZATION_FILES,
  loadSiteConfigs,
  worstImpact,
} from '../../siteconfig/index.js';
import type {
  ChangeImpact,
  CompiledCluster,
  Finding,
  LoadedClusterInstance,
  LoadedSiteConfig,
  SourceFile,
} from '../../siteconfig/index.js';
import { UsageError } from '../../shared/errors.js';
import { changedPaths } from '../git-revision.js';
import type { GitRepository, GitTree } from '../git-revision.js';
import { kustomizationRoots } from '../kustomization-root.js';
import { packagedExtraManifests } from '../packaged-extra-manifests.js';
import { STAND_IN_SECRETS } from '../stand-in-secrets.js';
import { selectTargetFiles } from './target-selection.js';
import type { RunBudget } from '../run-budget.js';

/** One revision as the user named it and as git resolved it. */
export interface Revision {
  readonly revision: string;
  readonly commit: string;
}

/** How one site (cluster) changes between the revisions. */
export interface SiteChange {
  /** The cluster name: what the hub, Argo CD's `sites` parameter and a dashboard know it by. */
  readonly cluster: string;
  /** The `metadata.name` of its SiteConfig or ClusterInstance. */
  readonly site: string;
  readonly change: 'added' | 'changed' | 'removed';
  /** The gravest impact among its findings. */
  readonly impact: ChangeImpact;
  readonly findings: readonly Finding[];
  /** Its ManagedCluster's labels (at the target revision; at the base one when removed). */
  readonly labels: Readonly<Record<string, string>>;
  /** Its site file, relative to the top of the repository. */
  readonly file: string;
  /** Objects added, removed and changed. */
  readonly objects: { readonly added: number; readonly removed: number; readonly changed: number };
}

/** What changed between two revisions. */
export interface RevisionChanges {
  readonly from: Revision;
  readonly to: Revision;
  /** Sites with a change, sorted by cluster name. */
  readonly sites: readonly SiteChange[];
  /** Clusters at the target revision. */
  readonly fleetSize: number;
  /** Files read and compared. */
  readonly stats: { readonly changedFiles: number; readonly comparedSites: number };
}

/** The target or base revision is invalid: its issues, named `<revision>:<file>`. */
export interface InvalidRevision {
  readonly invalid: Revision;
  readonly issues: readonly InputIssue[];
}

/** A loaded SiteConfig or ClusterInstance document. */
type LoadedDocument =
  | { readonly kind: 'siteConfig'; readonly loaded: LoadedSiteConfig }
  | { readonly kind: 'clusterInstance'; readonly loaded: LoadedClusterInstance };

/** The documents of one revision, and every issue found loading them. */
interface LoadedRevision {
  readonly documents: LoadedDocument[];
  readonly issues: InputIssue[];
}

/** Options of revisionChanges. */
export interface ChangeOptions {
  /**
   * Validate every site of the target revision, not only those a change may affect
   * (target-selection.ts). @default false
   */
  readonly validateAll?: boolean;
}

/** Two revisions of a repository, resolved and listed. */
export interface OpenedRevisions {
  readonly from: Revision;
  readonly to: Revision;
  readonly fromTree: GitTree;
  readonly toTree: GitTree;
  /** The folder of the site files, relative to the top of the repository. */
  readonly scope: string;
}

/**
 * Resolves and lists two revisions.
 * @throws UsageError for a revision that names no commit, or a scope that is no folder at the
 *   target revision
 */
export async function openRevisions(
  repository: GitRepository,
  revisions: { readonly from: string; readonly to: string },
  scope: string,
  budget: RunBudget,
): Promise<OpenedRevisions> {
  const [fromCommit, toCommit] = await Promise.all([
    repository.commitOf(revisions.from),
    repository.commitOf(revisions.to),
  ]);
  const [fromTree, toTree] = await Promise.all([
    repository.tree(fromCommit, revisions.from, budget),
    repository.tree(toCommit, revisions.to, budget),
  ]);
  if (!toTree.isFolder(scope))
    throw new UsageError(
      `${scope} is not a folder at ${revisions.to}; give the folder of the site files`,
    );
  return {
    from: { revision: revisions.from, commit: fromCommit },
    to: { revision: revisions.to, commit: toCommit },
    fromTree,
    toTree,
    scope,
  };
}

/** Compares the sites below the scope (a folder, relative to the top of the repository) at two revisions. */
export function revisionChanges(
  opened: OpenedRevisions,
  budget: RunBudget,
  options: ChangeOptions = {},
): RevisionChanges | InvalidRevision {
  const { from, to, fromTree, toTree, scope } = opened;
  const changed = changedPaths(fromTree, toTree);

  // The target revision: the files a change may affect (or every file), validated, with what
  // each site reads recorded.
  const inputs = toTree.readInputs(toTree.yamlFilesUnder(scope), budget);
  const selection = options.validateAll
    ? { load: inputs, otherClusters: 0 }
    : selectTargetFiles({ files: inputs, changed, hasLinks: toTree.hasLinks() });
  const target = loadRevision(toTree, selection.load, scope, budget);
  if (target.issues.some((i) => i.severity === 'error'))
    return { invalid: to, issues: target.issues };
  const toFiles = toTree.siteFiles(budget);
  const touched = new TouchedFiles(
    changed,
    fromTree,
    toTree,
    (path) => toFiles.identity?.(path) ?? path,
  );
  const toDocuments = target.documents.filter((d) => touched.affects(d));
  const allClusters = new Set(target.documents.flatMap(clusterNames));

  // The base revision: the files of the touched sites, and the files that changed or went away.
  const fromYaml = new Set(fromTree.yamlFilesUnder(scope));
  const fromInputs = new Set([...fromYaml].filter((p) => changed.has(p)));
  for (const d of toDocuments) if (fromYaml.has(d.loaded.file)) fromInputs.add(d.loaded.file);
  const base = loadRevision(
    fromTree,
    fromTree.readInputs([...fromInputs].sort(), budget),
    scope,
    budget,
  );
  if (base.issues.some((i) => i.severity === 'error'))
    return { invalid: from, issues: base.issues };

  const wanted = new Set(toDocuments.flatMap(clusterNames));
  const after = compileDocuments(toDocuments, budget, (name) => wanted.has(name));
  const before = compileDocuments(
    base.documents,
    budget,
    (name) => wanted.has(name) || !allClusters.has(name),
  );
  budget.check();
  const diff = diffFleets(before.clusters, after.clusters);
  const findings = new Map<string, Finding[]>();
  for (const f of [...diff.dangers, ...diff.installTimeOnly]) {
    const list = findings.get(f.cluster) ?? [];
    list.push(f);
    findings.set(f.cluster, list);
  }
  const sites = diff.clusters.map((c): SiteChange => {
    const source = c.status === 'removed' ? before : after;
    const own = findings.get(c.cluster) ?? [];
    const count = (kind: 'added' | 'removed' | 'changed'): number =>
      c.changes.filter((x) => x.change === kind).length;
    return {
      cluster: c.cluster,
      site: source.sites.get(c.cluster) ?? c.cluster,
      change: c.status,
      impact: worstImpact(own),
      findings: own,
      labels: managedClusterLabels(source.clusters.find((x) => x.clusterName === c.cluster)),
      file: source.files.get(c.cluster) ?? '',
      objects: { added: count('added'), removed: count('removed'), changed: count('changed') },
    };
  });
  return {
    from,
    to,
    sites,
    fleetSize: allClusters.size + selection.otherClusters,
    stats: { changedFiles: changed.size, comparedSites: wanted.size },
  };
}

/** Loads input files of one revision with what their sites refer to read from the same revision. */
function loadRevision(
  tree: GitTree,
  files: readonly SourceFile[],
  scope: string,
  budget: RunBudget,
): LoadedRevision {
  const documents: LoadedDocument[] = [];
  const { issues } = loadSiteConfigs(files, {
    files: tree.siteFiles(budget),
    kustomizationRoot: kustomizationRoots({
      base: '/',
      fallback: scope,
      top: scope,
      holds: (dir, name) => tree.entry(posix.join(dir, name)) !== undefined,
    }),
    secrets: STAND_IN_SECRETS,
    defaultExtraManifests: packagedExtraManifests(),
    limits: budget.limits,
    onSite: (loaded) => {
      budget.check();
      documents.push({ kind: 'siteConfig', loaded });
    },
    onClusterInstance: (loaded) => {
      budget.check();
      documents.push({ kind: 'clusterInstance', loaded });
    },
  });
  return { documents, issues: issues.map((i) => ({ ...i, file: tree.name(i.file) })) };
}

function clusterNames(d: LoadedDocument): string[] {
  return d.kind === 'siteConfig'
    ? d.loaded.siteConfig.spec.clusters.map((c) => c.clusterName)
    : [d.loaded.clusterInstance.spec.clusterName];
}

/** Compiles the clusters `keep` selects, with the file and site name of each. */
function compileDocuments(
  documents: readonly LoadedDocument[],
  budget: RunBudget,
  keep: (cluster: string) => boolean,
): {
  clusters: CompiledCluster[];
  files: Map<string, string>;
  sites: Map<string, string>;
} {
  const clusters: CompiledCluster[] = [];
  const files = new Map<string, string>();
  const sites = new Map<string, string>();
  for (const d of documents) {
    if (!clusterNames(d).some(keep)) continue;
    budget.check();
    const compiled =
      d.kind === 'siteConfig'
        ? compileSiteConfig(d.loaded.siteConfig, d.loaded.resources)
        : [compileClusterInstance(d.loaded.clusterInstance)];
    const siteName =
      d.kind === 'siteConfig'
        ? d.loaded.siteConfig.metadata.name
        : d.loaded.clusterInstance.metadata.name;
    for (const c of compiled) {
      if (!keep(c.clusterName)) continue;
      clusters.push(c);
      files.set(c.clusterName, d.loaded.file);
      sites.set(c.clusterName, siteName);
    }
  }
  return { clusters, files, sites };
}

function managedClusterLabels(cluster: CompiledCluster | undefined): Record<string, string> {
  const mc = cluster?.manifests.find((m) => m.kind === 'ManagedCluster');
  return { ...(mc?.metadata.labels ?? {}) };
}

/**
 * Which loaded documents a set of changed paths may affect: a document whose own file changed,
 * that reads a changed file or a folder with a changed entry, or below a folder whose
 * kustomization changed (it roots the document's relative paths). A file added or removed may
 * also change which of the places a relative path is tried in wins (src/siteconfig/site-files.ts):
 * a document that reads a file of the same name, or a folder of the same name as one above the
 * added or removed file, counts as affected too, and so does every document that reads a file
 * when a symbolic link changed (rarely more than needed, never less).
 */
class TouchedFiles {
  /** Folders holding a changed path, at any depth. */
  private readonly changedFolders = new Set<string>();
  /** Folders whose kustomization file changed. */
  private readonly kustomizations = new Set<string>();
  /** Names of files added or removed, and of the folders above them. */
  private readonly appearedFiles = new Set<string>();
  private readonly appearedFolders = new Set<string>();
  /** A symbolic link changed: where any read path leads may have changed. */
  private linkChanged = false;

  constructor(
    private readonly changed: ReadonlySet<string>,
    from: GitTree,
    to: GitTree,
    /** The real path of a path a site read (links followed), at the target revision. */
    private readonly real: (path: string) => string,
  ) {
    for (const path of changed) {
      const parts = path.split('/');
      for (let i = 1; i < parts.length; i++) this.changedFolders.add(parts.slice(0, i).join('/'));
      this.changedFolders.add('.');
      if (KUSTOMIZATION_FILES.includes(parts[parts.length - 1]!))
        this.kustomizations.add(parts.length === 1 ? '.' : parts.slice(0, -1).join('/'));
      if (from.entry(path)?.mode === '120000' || to.entry(path)?.mode === '120000')
        this.linkChanged = true;
      if (!from.entry(path) || !to.entry(path)) {
        this.appearedFiles.add(parts[parts.length - 1]!);
        for (const folder of parts.slice(0, -1)) this.appearedFolders.add(folder);
      }
    }
  }

  affects(d: LoadedDocument): boolean {
    const file = d.loaded.file;
    if (this.changed.has(file)) return true;
    for (let dir = posix.dirname(file); ; dir = posix.dirname(dir)) {
      if (this.kustomizations.has(dir)) return true;
      if (dir === '.' || dir === '/') break;
    }
    if (d.kind === 'clusterInstance') return false;
    const { files, folders } = d.loaded.reads;
    if (this.linkChanged && files.size + folders.size > 0) return true;
    for (const f of files) {
      const path = this.real(f);
      if (this.changed.has(path) || this.changed.has(f)) return true;
      if (this.appearedFiles.has(posix.basename(f))) return true;
    }
    for (const f of folders) {
      const path = this.real(f);
      if (this.changedFolders.has(path) || this.changedFolders.has(f)) return true;
      if (this.appearedFolders.has(posix.basename(f))) return true;
    }
    return false;
  }
}
