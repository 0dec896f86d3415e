/**
 * The kustomize drop-in's fast start. kustomize starts SiteForge once per SiteConfig, so every
 * millisecond of start-up is paid per site. `npm run build` (scripts/bundle-kustomize-plugin.js)
 * bundles the code path of `siteforge kustomize-plugin` into one CommonJS file beside this
 * module, runs it once on a sample site and keeps V8's code cache of it: loaded from here, a
 * start reads two files instead of resolving some fifty modules and compiles (almost) nothing.
 *
 * Node 22 has `module.enableCompileCache()`, Node 20 (our floor) has not; `vm.Script` with
 * `cachedData` works on both, and needs no writable directory at run time (the image is
 * read-only). The cache is named after a build id written into the bundle's first line, so a
 * cache never meets another bundle; V8 itself rejects a cache from another Node version, and
 * then the bundle compiles as usual.
 */
import type { Script } from 'node:vm';
import type { runKustomizePlugin } from './kustomize-plugin.js';

// Built-ins taken as CommonJS: importing `node:fs` as an ES module builds its whole export
// facade (streams included), a few per cent of a start.
const { existsSync, readFileSync } = process.getBuiltinModule('node:fs');
const { createRequire } = process.getBuiltinModule('node:module');
const path = process.getBuiltinModule('node:path');
const { fileURLToPath } = process.getBuiltinModule('node:url');
const vm = process.getBuiltinModule('node:vm');

/** File name of the bundle, in the directory of this module. */
export const KUSTOMIZE_BUNDLE_FILE = 'kustomize-plugin.bundle.cjs';

/** First line of the bundle: `// siteforge-bundle <build id>`. */
export const BUNDLE_ID_PREFIX = '// siteforge-bundle ';

/** File name of the V8 code cache that belongs to the bundle with this build id. */
export function codeCacheFile(buildId: string): string {
  return `kustomize-plugin.bundle.${buildId}.v8-cache`;
}

/** What the bundle exports. */
export interface KustomizeBundleExports {
  readonly runKustomizePlugin: typeof runKustomizePlugin;
}

/** A loaded bundle, with its script (the build makes the code cache from it). */
export interface LoadedKustomizeBundle {
  readonly exports: KustomizeBundleExports;
  readonly script: Script;
  readonly buildId: string;
  /** `undefined` when there was no cache to offer, else whether V8 refused it. */
  readonly cacheRejected: boolean | undefined;
}

/** The directory that holds the bundle: the one of this module, once compiled to build/. */
export const bundleDir = path.dirname(fileURLToPath(import.meta.url));

/**
 * Loads and runs the bundle in `dir`, with its code cache when there is one; undefined when
 * there is no bundle (a checkout that was compiled by `tsc` alone, or the tests, which run src/).
 */
export function loadKustomizeBundle(dir: string = bundleDir): LoadedKustomizeBundle | undefined {
  const file = path.join(dir, KUSTOMIZE_BUNDLE_FILE);
  if (!existsSync(file)) return undefined;
  const source = readFileSync(file, 'utf8');
  const firstLine = source.slice(0, source.indexOf('\n'));
  const buildId = firstLine.startsWith(BUNDLE_ID_PREFIX)
    ? firstLine.slice(BUNDLE_ID_PREFIX.length)
    : '';
  const cacheFile = path.join(dir, codeCacheFile(buildId));
  const cachedData = buildId !== '' && existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
  // The CommonJS wrapper, as node's own loader writes it.
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    { filename: file, ...(cachedData ? { cachedData } : {}) },
  );
  const module = { exports: {} as KustomizeBundleExports };
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: unknown,
    filename: string,
    dirname: string,
  ) => void;
  wrapper(module.exports, createRequire(file), module, file, dir);
  return {
    exports: module.exports,
    script,
    buildId,
    cacheRejected: cachedData ? script.cachedDataRejected === true : undefined,
  };
}
