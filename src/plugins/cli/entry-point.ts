/**
 * What `bin/siteforge.js` runs. kustomize starts `siteforge kustomize-plugin FILE` once per
 * SiteConfig, so that command goes through the plugin's bundle (kustomize-bundle.ts) when the
 * build made one; every other command, and the plugin without a bundle, goes through runCli,
 * which is only loaded then.
 */
import { loadKustomizeBundle } from '../argocd/kustomize-bundle.js';
import type { KustomizeBundleExports } from '../argocd/kustomize-bundle.js';
import type { CliIo } from './cli-io.js';

/** Runs the `siteforge` command and returns its exit code. Never throws. */
export async function runSiteforge(argv: readonly string[], io: CliIo): Promise<number> {
  // Exactly `kustomize-plugin FILE`, as kustomize calls it; anything else (options, a missing
  // FILE) gets runCli's usage handling.
  if (argv.length === 2 && argv[0] === 'kustomize-plugin' && !argv[1]!.startsWith('-')) {
    const bundle = bundledPlugin(io);
    if (bundle)
      return bundle.runKustomizePlugin(argv.slice(1), { ...io, env: io.env ?? process.env });
  }
  const { runCli } = await import('./main.js');
  return runCli(argv, io);
}

function bundledPlugin(io: CliIo): KustomizeBundleExports | undefined {
  try {
    return loadKustomizeBundle()?.exports;
  } catch (err) {
    // A damaged build: say so, and still do the work the slower way.
    io.stderr(
      `siteforge: the kustomize plugin bundle did not load (${err instanceof Error ? err.message : String(err)}); running without it. Rebuild with npm run build.\n`,
    );
    return undefined;
  }
}
