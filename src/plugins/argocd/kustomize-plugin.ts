/**
 * The drop-in path for today's ZTP repositories: SiteForge as the kustomize exec plugin of
 * `ran.openshift.io/v1` and `/v2` SiteConfig generators, so a `kustomization.yaml` that lists
 * SiteConfig files under `generators:` keeps working while it migrates to the Argo CD plugin.
 *
 * kustomize runs `SiteConfig <temp file>` (see src/plugins/argocd/kustomize/SiteConfig) with the
 * kustomization root as cwd, once per SiteConfig. The temp file holds kustomize's re-serialised
 * copy (comments dropped, lines moved), so SiteForge finds the SiteConfig in the file the
 * kustomization names and validates that one: messages then point at the user's own file and
 * line, not at /tmp/kust-plugin-config-NNN.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { join, posix, resolve, sep } from 'node:path';
import { SiteForgeError, UsageError } from '../../shared/errors.js';
import { parseYamlFile } from '../../shared/source-yaml.js';
import { KUSTOMIZATION_FILES } from '../../siteconfig/index.js';
import type { SourceFile } from '../../siteconfig/index.js';
import { ExitCode } from '../exit-code.js';
import { renderFleet, reportIssues, toYamlStream } from '../render-fleet.js';
import { fsSiteFiles } from '../fs-site-files.js';
import { reportPluginFailure, repoRelative, repositoryRoot } from './cmp.js';
import type { PluginIo } from './cmp.js';

/** Runs `siteforge kustomize-plugin FILE`; returns the exit code. Never throws. */
export function runKustomizePlugin(args: readonly string[], io: PluginIo): number {
  try {
    if (args.length !== 1 || args[0] === '')
      throw new UsageError('usage: siteforge kustomize-plugin FILE (kustomize passes FILE)');
    return generate(args[0]!, io);
  } catch (err) {
    return reportPluginFailure(err, io);
  }
}

function generate(configPath: string, io: PluginIo): number {
  const configText = readConfig(resolve(io.cwd, configPath));
  const config = firstDocument(configPath, configText);
  const name = siteConfigName(config);
  const here = kustomizationInRepository(io);
  const source = findInKustomization(io, here.dir, config, name) ?? {
    path: configPath,
    text: configText,
  };
  const { clusters, issues } = renderFleet([source], {
    files: fsSiteFiles(here.root),
    // kustomize runs us in the kustomization root, where siteconfig-generator resolves paths.
    kustomizationRoot: () => here.dir,
    selectCluster: (_, site) => site.metadata.name === name,
  });
  const report = reportIssues(issues, false);
  if (report.text !== '') io.stderr(report.text);
  if (report.errors > 0) {
    io.stderr(
      `siteforge: ${String(report.errors)} error(s) in SiteConfig ${name}; nothing was generated\n`,
    );
    return ExitCode.Invalid;
  }
  io.stdout(toYamlStream(clusters));
  return ExitCode.Ok;
}

function readConfig(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`${path}: cannot read the generator config kustomize passed`);
  }
}

function siteConfigName(config: unknown): string {
  const { kind, metadata } = (config ?? {}) as { kind?: unknown; metadata?: { name?: unknown } };
  if (kind !== 'SiteConfig')
    throw new SiteForgeError(
      'NOT_A_SITECONFIG',
      `the generator config is a ${typeof kind === 'string' ? kind : 'document without kind'}; this plugin generates from SiteConfig only`,
    );
  if (typeof metadata?.name !== 'string' || metadata.name === '')
    throw new SiteForgeError(
      'NOT_A_SITECONFIG',
      'the SiteConfig generator config has no metadata.name',
    );
  return metadata.name;
}

/**
 * The generator file of the kustomization that holds this very SiteConfig (same content, as
 * kustomize read it), named relative to the repository root; undefined when none does.
 */
function findInKustomization(
  io: PluginIo,
  dir: string,
  config: unknown,
  name: string,
): SourceFile | undefined {
  const root = io.cwd;
  const kustomization = KUSTOMIZATION_FILES.map((f) => join(root, f)).find((f) => existsSync(f));
  if (!kustomization) return undefined;
  const { generators } = (firstDocument(kustomization, readFileSync(kustomization, 'utf8')) ??
    {}) as { generators?: unknown };
  if (!Array.isArray(generators)) return undefined;
  const wanted = withoutKustomizeAnnotations(plainData(config));
  for (const entry of generators) {
    if (typeof entry !== 'string' || entry.includes('://')) continue;
    const path = join(root, entry);
    if (!existsSync(path) || !statSync(path).isFile()) continue;
    const text = readFileSync(path, 'utf8');
    if (!text.includes(name)) continue; // cheap filter before parsing
    const same = parseYamlFile(path, text, { locations: false }).documents.some((doc) =>
      isDeepStrictEqual(withoutKustomizeAnnotations(plainData(doc.value)), wanted),
    );
    if (same) return { path: posix.join(dir, entry), text };
  }
  return undefined;
}

/**
 * Where kustomize runs us: the repository root on disk, and the kustomization's folder (the cwd)
 * relative to it. Argo CD builds the Application's path (ARGOCD_APP_SOURCE_PATH), but kustomize
 * starts an exec plugin in the folder of the kustomization that lists the generator, which may
 * be one the app's kustomization includes (`resources: [4.18]`): the cwd is then below the app
 * path, and the repository root is the folder above the app path's last match in the cwd.
 */
function kustomizationInRepository(io: PluginIo): { root: string; dir: string } {
  const app = posix
    .normalize(io.env['ARGOCD_APP_SOURCE_PATH'] ?? '.')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  const cwd = resolve(io.cwd)
    .split(sep)
    .filter((s) => s !== '');
  if (app.length > 0 && !app.includes('..')) {
    for (let end = cwd.length; end >= app.length; end--) {
      if (app.every((segment, i) => cwd[end - app.length + i] === segment))
        return {
          root: resolve(sep, ...cwd.slice(0, end - app.length)),
          dir: posix.join(...app, ...cwd.slice(end)),
        };
    }
  }
  return { root: repositoryRoot(io), dir: repoRelative(app.join('/'), '.') };
}

/**
 * The first document of a YAML file as plain data, through the compiler's own parser (its fast
 * path for block-style YAML, the `yaml` library otherwise): loading the library costs more than
 * the whole generation of a small site, and kustomize starts this plugin once per SiteConfig.
 */
function firstDocument(path: string, text: string): unknown {
  return parseYamlFile(path, text, { locations: false }).documents[0]?.value;
}

/**
 * The value without the source positions the library path of the parser attaches (as symbol
 * keys), so that two parses of the same data compare equal wherever their lines are.
 */
function plainData(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}

/** The document without the bookkeeping annotations kustomize may add to generator configs. */
function withoutKustomizeAnnotations(doc: unknown): unknown {
  const metadata = (doc as { metadata?: { annotations?: Record<string, unknown> } } | null)
    ?.metadata;
  if (!metadata?.annotations) return doc;
  const annotations = Object.fromEntries(
    Object.entries(metadata.annotations).filter(
      ([key]) => !/^(internal\.)?config\.kubernetes\.io\/|^kustomize\.config\.k8s\.io\//.test(key),
    ),
  );
  const rest: Record<string, unknown> = { ...metadata };
  if (Object.keys(annotations).length > 0) rest['annotations'] = annotations;
  else delete rest['annotations'];
  return { ...(doc as object), metadata: rest };
}
