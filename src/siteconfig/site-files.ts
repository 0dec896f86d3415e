/**
 * The port through which the pure compiler reads the files a SiteConfig refers to (crTemplates,
 * BIOS settings, extra-manifest directories, credential directories). Edges implement it with
 * the file system; tests implement it with a map. Paths are POSIX paths in the terms of the
 * SiteConfig file paths (relative to the CLI's working directory, or to the repository root in
 * the Argo CD plugins).
 *
 * A relative path written in a SiteConfig is looked up where siteconfig-generator finds it: it
 * runs as a kustomize exec plugin, whose working directory is the kustomization root, so
 * upstream repositories name `site-configs/hw.profile` from `site-configs/site.yaml`. SiteForge
 * resolved such paths against the SiteConfig's folder before; that folder is tried second, so
 * repositories that keep the files next to their SiteConfig keep working.
 */
import { posix } from 'node:path';

/** One entry of a directory listing. */
export interface DirEntry {
  readonly name: string;
  readonly isDirectory: boolean;
}

/** Read-only access to the files next to the SiteConfig files. */
export interface SiteFiles {
  /** The text of a file, or undefined when there is no such file. */
  readText(path: string): string | undefined;
  /** The entries of a directory sorted by name, or undefined when there is no such directory. */
  listDir(path: string): readonly DirEntry[] | undefined;
  /**
   * A key that two paths naming one file share (its real path), or undefined when there is no
   * such file. @default the normalized path
   */
  identity?(path: string): string | undefined;
}

/** A SiteFiles with no files at all: every reference is reported as missing. */
export const NO_FILES: SiteFiles = { readText: () => undefined, listDir: () => undefined };

/** The file names kustomize accepts for a kustomization, in its order. */
export const KUSTOMIZATION_FILES: readonly string[] = [
  'kustomization.yaml',
  'kustomization.yml',
  'Kustomization',
];

/** One place a relative path of a SiteConfig may name, and the base it was resolved against. */
export interface SitePathCandidate {
  readonly path: string;
  /** The base, as messages name it: `the kustomization root, as siteconfig-generator resolves it`. */
  readonly base: string;
}

const ROOT_BASE = 'the kustomization root, as siteconfig-generator resolves it';
const SITE_BASE = "the SiteConfig's folder";

/** The hint of every "file not found" problem: where relative paths are looked up. */
export const SITE_PATH_HINT =
  "relative paths resolve against the kustomization root (the folder of kustomization.yaml; in Argo CD, the Application's path), as siteconfig-generator does, then against the SiteConfig's folder; fix the path or commit the file";

/**
 * The places a path written in a SiteConfig may name, in the order they are tried: against
 * `root` (the kustomization root), then against the SiteConfig's folder. One entry when both
 * give the same path, when the path is absolute, or when there is no root.
 */
export function sitePathCandidates(
  siteConfigFile: string,
  path: string,
  root?: string,
): readonly SitePathCandidate[] {
  if (posix.isAbsolute(path)) return [{ path: posix.normalize(path), base: 'an absolute path' }];
  const beside = posix.join(posix.dirname(siteConfigFile), path);
  if (root === undefined) return [{ path: beside, base: SITE_BASE }];
  const fromRoot = posix.join(root, path);
  return fromRoot === beside
    ? [{ path: beside, base: `the kustomization root, which is the SiteConfig's folder` }]
    : [
        { path: fromRoot, base: ROOT_BASE },
        { path: beside, base: SITE_BASE },
      ];
}

/** The first candidate `read` finds, with what it read; undefined when none is found. */
export function firstFound<T>(
  candidates: readonly SitePathCandidate[],
  read: (path: string) => T | undefined,
): { readonly path: string; readonly value: T } | undefined {
  for (const { path } of candidates) {
    const value = read(path);
    if (value !== undefined) return { path, value };
  }
  return undefined;
}

/** `tried a (base) and b (base)`: what a "not found" message says about where it looked. */
export function describeTried(candidates: readonly SitePathCandidate[]): string {
  return `tried ${candidates.map((c) => `${c.path} (${c.base})`).join(' and ')}`;
}

/** A SiteFiles over an in-memory map of path to text (directories are implied by paths). */
export function filesFromMap(entries: Readonly<Record<string, string>>): SiteFiles {
  const normalized = new Map(Object.entries(entries).map(([k, v]) => [posix.normalize(k), v]));
  return {
    readText: (path) => normalized.get(posix.normalize(path)),
    listDir: (path) => {
      const dir = posix.normalize(path).replace(/\/$/, '');
      const found = new Map<string, boolean>();
      for (const key of normalized.keys()) {
        if (!key.startsWith(`${dir}/`)) continue;
        const rest = key.slice(dir.length + 1);
        const slash = rest.indexOf('/');
        found.set(slash < 0 ? rest : rest.slice(0, slash), slash >= 0);
      }
      if (found.size === 0) return undefined;
      return [...found]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, isDirectory]) => ({ name, isDirectory }));
    },
  };
}
