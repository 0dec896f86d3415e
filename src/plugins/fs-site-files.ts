/**
 * The file-system implementation of SiteFiles, for the edges (CLI, Argo CD plugin). Reads are
 * confined to `root` (the repository or app directory): a SiteConfig cannot make the compiler
 * read /etc/shadow or a neighbour's secrets through `../../`. With a budget, the files count
 * against the run's input limits like the input files themselves (a crTemplate cannot name a
 * 1 GB file in the repository).
 */
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { DirEntry, SiteFiles } from '../siteconfig/index.js';
import { UnreadableFileError } from './run-budget.js';
import type { RunBudget } from './run-budget.js';

/**
 * SiteFiles over the directory tree below `root`; `cwd` resolves relative input paths.
 * @param budget the run's budget; without it files are read whole (for tests and the API)
 */
export function fsSiteFiles(root: string, cwd: string = root, budget?: RunBudget): SiteFiles {
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
  // With a budget, each file is read (and counted) once per run, however many sites name it.
  const read = new Map<string, string | undefined>();
  return {
    identity: inside,
    readText: (path) => {
      const real = inside(path);
      if (real === undefined) return undefined;
      if (read.has(real)) return read.get(real);
      let text: string | undefined;
      try {
        text = budget ? budget.readText(real, path) : readFileSync(real, 'utf8');
      } catch (err) {
        if (budget && !(err instanceof UnreadableFileError)) throw err; // over a limit
        text = undefined;
      }
      if (budget) read.set(real, text);
      return text;
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
