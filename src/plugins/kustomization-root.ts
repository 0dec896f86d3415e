/**
 * Where the relative paths of a SiteConfig (crTemplates, biosConfigRef, extraManifestPath,
 * extraManifests.searchPaths) resolve first: the kustomization root. siteconfig-generator runs
 * as a kustomize exec plugin, and kustomize starts it in the folder of the kustomization that
 * lists the SiteConfig (its loader root), so upstream repositories name paths from there. The
 * compiler then tries the SiteConfig's own folder (src/siteconfig/site-files.ts).
 */
import { existsSync } from 'node:fs';
import { posix, resolve } from 'node:path';
import { KUSTOMIZATION_FILES } from '../siteconfig/index.js';

/** Where to look for the kustomization of a SiteConfig. */
export interface KustomizationRootOptions {
  /** The folder on disk that the SiteConfig paths are relative to (the CLI's cwd, a repository). */
  readonly base: string;
  /** The folder (in the terms of the SiteConfig paths) used when no folder holds a kustomization. */
  readonly fallback: string;
  /**
   * The highest folder searched (an Argo CD app path: kustomize never looks above it).
   * @default the top of the git repository (the folder holding `.git`), else the file-system root
   */
  readonly top?: string;
  /**
   * Whether folder `dir` (in the terms of the SiteConfig paths) holds an entry `name`.
   * @default a look at the file system below `base`
   */
  readonly holds?: (dir: string, name: string) => boolean;
}

/**
 * Finds, for a SiteConfig file, the nearest folder at or above its own that holds a
 * kustomization, in the terms of the SiteConfig paths. Answers once per folder.
 */
export function kustomizationRoots(
  options: KustomizationRootOptions,
): (siteFile: string) => string {
  const top = options.top === undefined ? undefined : posix.normalize(options.top);
  const found = new Map<string, string>();
  const holds =
    options.holds ??
    ((dir: string, name: string): boolean => existsSync(resolve(options.base, dir, name)));
  return (siteFile) => {
    const start = posix.dirname(posix.normalize(siteFile));
    let root = found.get(start);
    if (root !== undefined) return root;
    root = posix.normalize(options.fallback);
    for (let dir = start; ;) {
      if (KUSTOMIZATION_FILES.some((name) => holds(dir, name))) {
        root = dir;
        break;
      }
      if (dir === top || (top === undefined && holds(dir, '.git'))) break;
      const up =
        dir === '.' || posix.basename(dir) === '..' ? posix.join(dir, '..') : posix.dirname(dir);
      if (resolve(options.base, up) === resolve(options.base, dir)) break; // the file-system root
      dir = up;
    }
    found.set(start, root);
    return root;
  };
}
