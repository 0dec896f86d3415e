/**
 * SecretSource over a directory tree, e.g. a Kubernetes Secret mounted into the Argo CD plugin
 * sidecar or a directory given with `--secrets-dir`: `fromDirectory: du-sno-1-bmc` reads every
 * file of DIR/du-sno-1-bmc as one key. Only a named sub-directory is ever read: never DIR
 * itself (`.`), a path below a sub-directory, or anything outside. Kubernetes' own `..data`
 * links are skipped; the key files it links to are followed. Nothing read here is ever logged.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SECRET_DIRECTORY_NAME } from '../siteconfig/index.js';
import type { RawSecretFiles, SecretSource } from '../siteconfig/index.js';
import { UnreadableFileError } from './run-budget.js';
import type { RunBudget } from './run-budget.js';

/**
 * A SecretSource reading named sub-directories of `dir`.
 * @param budget the run's budget, which bounds every key file read; @default none
 */
export function fsSecretSource(dir: string, budget?: RunBudget): SecretSource {
  // With a budget, each directory is read (and counted) once per run, however many sites name it.
  const read = new Map<string, RawSecretFiles | undefined>();
  return {
    readDirectory: (name): RawSecretFiles | undefined => {
      if (!SECRET_DIRECTORY_NAME.test(name)) return undefined;
      if (read.has(name)) return read.get(name);
      const files = readFiles(dir, name, budget);
      if (budget) read.set(name, files);
      return files;
    },
  };
}

/** The key files of DIR/NAME, or undefined when there is no such directory. */
function readFiles(
  dir: string,
  name: string,
  budget: RunBudget | undefined,
): RawSecretFiles | undefined {
  const path = join(dir, name);
  let entries: string[];
  try {
    entries = readdirSync(path);
  } catch {
    return undefined;
  }
  const files: Record<string, Uint8Array> = {};
  for (const entry of entries) {
    if (entry.startsWith('..')) continue;
    const file = join(path, entry);
    if (!isFile(file)) continue;
    try {
      // Bytes, not text: the compiler refuses content that is not UTF-8.
      files[entry] = budget ? budget.readBytes(file, file) : readFileSync(file);
    } catch (err) {
      if (budget && !(err instanceof UnreadableFileError)) throw err; // over a limit
      // A key that vanished while reading (a Secret update) is reported as missing.
    }
  }
  return files;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false; // vanished
  }
}
