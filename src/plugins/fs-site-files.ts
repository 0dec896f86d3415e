/**
 * The file-system implementation of SiteFiles, for the edges (CLI, Argo CD plugin). Reads are
 * confined to `root` (the repository or app directory): a SiteConfig cannot make the compiler
 * read /etc/shadow or a neighbour's secrets through `../../`.
 */
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { DirEntry, SiteFiles } from '../siteconfig/index.js';

/** SiteFiles over the directory tree below `root`; `cwd` resolves relative input paths. */
export function fsSiteFiles(root: string, cwd: string = root): SiteFiles {
  const realRoot = realpathSync(root);
  const inside = (path: string): string | undefined => {
    let real: string;
    try {
      real = realpathSync(isAbsolute(path) ? path : resolve(cwd, path));
    } catch {
      return undefined;
    }
    const rel = relative(realRoot, real);
    return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
      ? real
      : undefined;
  };
  return {
    identity: inside,
    readText: (path) => {
      const real = inside(path);
      if (real === undefined) return undefined;
      try {
        return readFileSync(real, 'utf8');
      } catch {
        return undefined;
      }
    },
    listDir: (path): DirEntry[] | undefined => {
      const real = inside(path);
      if (real === undefined) return undefined;
      try {
        return readdirSync(real, { withFileTypes: true })
          .map((entry) => ({ name: entry.name, isDirectory: entry.isDirectory() }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      } catch {
        return undefined;
      }
    },
  };
}
