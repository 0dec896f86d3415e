/**
 * The port through which the pure compiler reads the files a SiteConfig refers to (crTemplates,
 * BIOS settings, extra-manifest directories, credential directories). Edges implement it with
 * the file system; tests implement it with a map. Paths are POSIX paths resolved against the
 * directory of the SiteConfig file, as kustomize resolves them against its root (the usual
 * ZTP layout keeps both in one directory).
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
}

/** A SiteFiles with no files at all: every reference is reported as missing. */
export const NO_FILES: SiteFiles = { readText: () => undefined, listDir: () => undefined };

/** Resolves a path written in a SiteConfig against the directory of that SiteConfig file. */
export function resolveSitePath(siteConfigFile: string, path: string): string {
  if (posix.isAbsolute(path)) return posix.normalize(path);
  return posix.join(posix.dirname(siteConfigFile), path);
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
