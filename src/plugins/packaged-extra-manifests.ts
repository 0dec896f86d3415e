/**
 * The default extra-manifest sets shipped in the package's `extra-manifests/` folder, found
 * from this module's location (src/ under vitest, build/src/ when installed). Read once per
 * process: the compiler caches what it reads by the identity of this object.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fsSiteFiles } from './fs-site-files.js';
import type { SiteFiles } from '../siteconfig/index.js';

/** The directory of the siteforge package (the one holding its package.json). */
export function packageRoot(): string {
  for (
    let dir = dirname(fileURLToPath(import.meta.url));
    dir !== dirname(dir);
    dir = dirname(dir)
  ) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'siteforge'
    ) {
      return dir;
    }
  }
  throw new Error('cannot find the siteforge package root');
}

let packaged: { readonly files: SiteFiles; readonly dir: string } | undefined;

/** The shipped default sets, as the compiler's `defaultExtraManifests` option wants them. */
export function packagedExtraManifests(): { readonly files: SiteFiles; readonly dir: string } {
  if (!packaged) {
    const dir = join(packageRoot(), 'extra-manifests');
    packaged = { files: fsSiteFiles(dir), dir };
  }
  return packaged;
}
