/**
 * Finds and reads the input files named on the command line: files as given, directories
 * recursively (`.yaml` and `.yml` only), in a stable sorted order.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../shared/errors.js';
import type { SourceFile } from '../../siteconfig/index.js';
import { UnreadableFileError } from '../run-budget.js';
import type { Deadline, RunBudget } from '../run-budget.js';

const YAML_FILE = /\.ya?ml$/i;

/**
 * Expands paths to the YAML files below them. Throws UsageError for a path that does not exist,
 * and LimitExceededError when the deadline passes while walking a large tree.
 */
export function listInputFiles(
  paths: readonly string[],
  cwd: string,
  deadline?: Deadline,
): string[] {
  const files: string[] = [];
  for (const path of paths) {
    let stats;
    try {
      stats = statSync(resolve(cwd, path));
    } catch {
      throw new UsageError(`${path}: no such file or directory`);
    }
    if (stats.isDirectory()) files.push(...walk(cwd, path, deadline));
    else files.push(path);
  }
  return [...new Set(files)];
}

function resolve(cwd: string, path: string): string {
  return path.startsWith('/') ? path : join(cwd, path);
}

function walk(cwd: string, dir: string, deadline: Deadline | undefined): string[] {
  deadline?.check();
  const found: string[] = [];
  const entries = readdirSync(resolve(cwd, dir), { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue; // .git, editor swap files
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...walk(cwd, path, deadline));
    else if (entry.isFile() && YAML_FILE.test(entry.name)) found.push(path);
  }
  return found;
}

/**
 * Reads the files as UTF-8 text within the run's budget: a file over the size limit, or one
 * that takes the input over its total or document limits, is refused before it is read
 * (LimitExceededError), and so is the next file once the deadline has passed.
 */
export function readInputFiles(
  files: readonly string[],
  cwd: string,
  budget: RunBudget,
  /** How messages and the returned files name a path. @default the path as given */
  name: (path: string) => string = (path) => path,
): SourceFile[] {
  return files.map((path) => {
    try {
      return { path: name(path), text: budget.readYaml(resolve(cwd, path), name(path)) };
    } catch (err) {
      if (!(err instanceof UnreadableFileError)) throw err;
      throw new UsageError(`${name(path)}: cannot read the file (${err.reason})`);
    }
  });
}
