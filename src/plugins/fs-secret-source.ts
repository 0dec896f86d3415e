/**
 * SecretSource over a directory tree, e.g. a Kubernetes Secret mounted into the Argo CD plugin
 * sidecar or a directory given with `--secrets-dir`: `fromDirectory: du-sno-1-bmc` reads every
 * file of DIR/du-sno-1-bmc as one key. Kubernetes' own `..data` links are skipped; the key files
 * it links to are followed. Nothing read here is ever logged.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RawSecretFiles, SecretSource } from '../siteconfig/index.js';

/** A SecretSource reading sub-directories of `dir`. */
export function fsSecretSource(dir: string): SecretSource {
  return {
    readDirectory: (name): RawSecretFiles | undefined => {
      if (name.split('/').some((part) => part === '..' || part === '')) return undefined;
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
        try {
          const file = join(path, entry);
          // Bytes, not text: the compiler refuses content that is not UTF-8.
          if (statSync(file).isFile()) files[entry] = readFileSync(file);
        } catch {
          // A key that vanished while reading (a Secret update) is reported as missing.
        }
      }
      return files;
    },
  };
}
