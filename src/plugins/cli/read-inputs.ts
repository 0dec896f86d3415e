/**
 * Finds and reads the input files named on the command line: files as given, directories
 * recursively (`.yaml` and `.yml` only), in a stable sorted order.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../shared/errors.js';
import type { SourceFile } from '../../siteconfig/index.js';

const YAML_FILE = /\.ya?ml$/i;

/** Expands paths to the YAML files below them. Throws UsageError for a path that does not exist. */
export function listInputFiles(paths: readonly string[], cwd: string): string[] {
  const files: string[] = [];
  for (const path of paths) {
    let stats;
    try {
      stats = statSync(resolve(cwd, path));
    } catch {
      throw new UsageError(`${path}: no such file or directory`);
    }
    if (stats.isDirectory()) files.push(...walk(cwd, path));
    else files.push(path);
  }
  return [...new Set(files)];
}

function resolve(cwd: string, path: string): string {
  return path.startsWith('/') ? path : join(cwd, path);
}

function walk(cwd: string, dir: string): string[] {
  const found: string[] = [];
  const entries = readdirSync(resolve(cwd, dir), { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue; // .git, editor swap files
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...walk(cwd, path));
    else if (entry.isFile() && YAML_FILE.test(entry.name)) found.push(path);
  }
  return found;
}

/** Reads the files as UTF-8 text. */
export function readInputFiles(files: readonly string[], cwd: string): SourceFile[] {
  return files.map((path) => {
    try {
      return { path, text: readFileSync(resolve(cwd, path), 'utf8') };
    } catch (err) {
      const reason = err instanceof Error && 'code' in err ? String(err.code) : 'unreadable';
      throw new UsageError(`${path}: cannot read the file (${reason})`);
    }
  });
}
