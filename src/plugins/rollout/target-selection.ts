/**
 * Which files of the target revision a plan must load (parse, validate, resolve what their sites
 * read), and which it may leave alone: most of a fleet is untouched by a change, and validating
 * 3,500 sites costs most of a plan's time.
 *
 * A site file that did not change, whose sites read no file of the repository, and that shares
 * no cluster name or MAC address with a changed file, gives at the target revision what it gave
 * at the base revision, which the hub runs: its own validation cannot have changed, and no
 * check across files can fail because of it. Every other file is loaded:
 * - the files that changed;
 * - the files whose sites may read a changed file: their text names a reference field
 *   (`crTemplates`, `biosConfigRef`, `extraManifestPath`, `extraManifests.searchPaths`), and a
 *   path in it may end in the name of a changed file or of a folder above one (a relative path
 *   names the file, or the folder of extra manifests, it reads last), or is only dots (`.`,
 *   `../`), or a kustomization changed (it roots relative paths), or the repository holds a
 *   symbolic link (a link may give a file another name);
 * - the site files that name a cluster or a MAC address a changed file names (a duplicate is an
 *   error across files).
 * The text tests are loose on purpose (a name anywhere in the text counts, YAML quoting aside):
 * a file loaded for nothing costs time, a file wrongly left alone would cost a wrong plan.
 * `--validate-all` loads every file, for a plan that also checks the untouched sites.
 */
import { posix } from 'node:path';
import { KUSTOMIZATION_FILES } from '../../siteconfig/index.js';
import type { SourceFile } from '../../siteconfig/index.js';

/** A file holding a SiteConfig or a ClusterInstance (what the loader reads as a site). */
const SITE_DOCUMENT =
  /\bkind["']?\s*:\s*["']?(?:SiteConfig|ClusterInstance)\b|ran\.openshift\.io\/|siteconfig\.open-cluster-management\.io\//;
/** The fields through which a site reads other files of the repository. */
const REFERENCE_FIELD = /\b(?:crTemplates|biosConfigRef|extraManifestPath|searchPaths)\b/;
/** A path value made only of dots (`.`, `./`, `..`), as a value or a list item. */
const DOTS_ONLY = /(?::|^\s*-)\s*["']?\.{1,2}\/?["']?\s*(?:#.*)?$/m;
/** A cluster name as a value of `clusterName`. */
const CLUSTER_NAME = /\bclusterName["']?\s*:\s*["']?([A-Za-z0-9][A-Za-z0-9.-]*)/g;
/** Something that looks like a MAC address. */
const MAC = /\b[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}\b/g;
/** What a path component is made of, for matching names in a text. */
const PATH_WORD = /[A-Za-z0-9._-]+/g;
const PLAIN_NAME = /^[A-Za-z0-9._-]+$/;

/** The cluster names and MAC addresses a text names. */
function identities(text: string): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(CLUSTER_NAME)) found.add(`name:${m[1]!}`);
  for (const m of text.matchAll(MAC)) found.add(`mac:${m[0].toLowerCase().replaceAll('-', ':')}`);
  return found;
}

/** What the selection is made from. */
export interface TargetFiles {
  /** Every input file of the target revision (YAML below the scope). */
  readonly files: readonly SourceFile[];
  /** Paths (relative to the top of the repository) that differ between the revisions. */
  readonly changed: ReadonlySet<string>;
  /** The target revision holds a symbolic link somewhere. */
  readonly hasLinks: boolean;
}

/** The files to load, and how many clusters the others hold. */
export interface TargetSelection {
  readonly load: readonly SourceFile[];
  /** Clusters (`clusterName` entries) of the site files left alone. */
  readonly otherClusters: number;
}

/** Picks the files of the target revision a plan loads (see the module comment). */
export function selectTargetFiles(target: TargetFiles): TargetSelection {
  const { files, changed } = target;
  /** Names a relative path that reads a changed file may end in. */
  const changedNames = new Set<string>();
  let oddName = false;
  let kustomizationChanged = false;
  for (const path of changed) {
    const parts = path.split('/');
    for (const part of parts) {
      if (PLAIN_NAME.test(part)) changedNames.add(part);
      else oddName = true;
    }
    if (KUSTOMIZATION_FILES.includes(posix.basename(path))) kustomizationChanged = true;
  }
  const readsAnything = target.hasLinks || oddName || kustomizationChanged;
  const wanted = new Set<string>();
  for (const f of files)
    if (changed.has(f.path)) for (const id of identities(f.text)) wanted.add(id);

  const load: SourceFile[] = [];
  let otherClusters = 0;
  for (const f of files) {
    if (changed.has(f.path)) {
      load.push(f);
      continue;
    }
    const isSite = SITE_DOCUMENT.test(f.text);
    if (REFERENCE_FIELD.test(f.text) && (readsAnything || mayName(f.text, changedNames))) {
      load.push(f);
      continue;
    }
    if (isSite && wanted.size > 0 && [...identities(f.text)].some((id) => wanted.has(id))) {
      load.push(f);
      continue;
    }
    if (isSite) otherClusters += [...f.text.matchAll(CLUSTER_NAME)].length;
  }
  return { load, otherClusters };
}

/** True when a path in the text may end in one of the names, or is only dots. */
function mayName(text: string, names: ReadonlySet<string>): boolean {
  if (DOTS_ONLY.test(text)) return true;
  for (const m of text.matchAll(PATH_WORD)) if (names.has(m[0])) return true;
  return false;
}
