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
import { existsSync, statSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { join, posix, resolve, sep } from 'node:path';
import { SiteForgeError, UsageError } from '../../shared/errors.js';
import { parseYamlFile } from '../../shared/source-yaml.js';
import { KUSTOMIZATION_FILES } from '../../siteconfig/index.js';
import type { SourceFile } from '../../siteconfig/index.js';
import { ExitCode } from '../exit-code.js';
import { renderFleet, reportIssues, toYamlStream } from '../render-fleet.js';
import { fsSiteFiles } from '../fs-site-files.js';
import { UnreadableFileError } from '../run-budget.js';
import type { RunBudget } from '../run-budget.js';
import { pluginBudget, reportPluginFailure, repoRelative, repositoryRoot } from './cmp.js';
import type { PluginIo } from './cmp.js';

/** Runs `siteforge kustomize-plugin FILE`; returns the exit code. Never throws. */
export function runKustomizePlugin(args: readonly string[], io: PluginIo): number {
  try {
    if (args.length !== 1 || args[0] === '')
      throw new UsageError('usage: siteforge kustomize-plugin FILE (kustomize passes FILE)');
    // Limits come from the environment kustomize runs in (SITEFORGE_LIMIT_<NAME>).
    return generate(args[0]!, io, pluginBudget(io));
  } catch (err) {
    return reportPluginFailure(err, io);
  }
}

function generate(configPath: string, io: PluginIo, budget: RunBudget): number {
  const configText = readConfig(resolve(io.cwd, configPath), budget);
  const config = yamlDocuments(configText, configPath, budget)[0];
  const name = siteConfigName(config);
  const here = kustomizationInRepository(io);
  const source = findInKustomization(io, here.dir, config, name, budget) ?? {
    path: configPath,
    text: configText,
  };
  const { clusters, issues } = renderFleet([source], {
    files: fsSiteFiles(here.root, undefined, budget),
    // kustomize runs us in the kustomization root, where siteconfig-generator resolves paths.
    kustomizationRoot: () => here.dir,
    selectCluster: (_, site) => site.metadata.name === name,
    limits: budget.limits,
    deadline: budget,
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

function readConfig(path: string, budget: RunBudget): string {
  try {
    return budget.readYaml(path, path);
  } catch (err) {
    if (!(err instanceof UnreadableFileError)) throw err;
    throw new UsageError(`${path}: cannot read the generator config kustomize passed`);
  }
}

/**
 * The documents of a kustomize file as plain data, read by the compiler's own parser within the
 * run's limits (it is cheaper to load than the `yaml` package, and kustomize starts this plugin
 * once per SiteConfig); a file it refuses (an alias bomb) is an input error, not a crash.
 */
function yamlDocuments(text: string, file: string, budget: RunBudget): unknown[] {
  const parsed = parseYamlFile(file, text, { locations: false, limits: budget.limits });
  const first = parsed.errors[0];
  if (first)
    throw new SiteForgeError(
      first.code,
      `${file}:${String(first.pos.line)}:${String(first.pos.column)}: ${first.message}`,
    );
  return parsed.documents.map((doc) => plainData(doc.value));
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
  budget: RunBudget,
): SourceFile | undefined {
  const root = io.cwd;
  const kustomization = KUSTOMIZATION_FILES.map((f) => join(root, f)).find((f) => existsSync(f));
  if (!kustomization) return undefined;
  const { generators } = (yamlDocuments(
    budget.readYaml(kustomization, kustomization),
    kustomization,
    budget,
  )[0] ?? {}) as { generators?: unknown };
  if (!Array.isArray(generators)) return undefined;
  const wanted = withoutKustomizeAnnotations(config);
  for (const entry of generators) {
    if (typeof entry !== 'string' || entry.includes('://')) continue;
    const path = join(root, entry);
    if (!existsSync(path) || !statSync(path).isFile()) continue;
    const text = budget.readYaml(path, entry);
    if (!text.includes(name)) continue; // cheap filter before parsing
    const same = yamlDocuments(text, entry, budget).some((doc) =>
      isDeepStrictEqual(withoutKustomizeAnnotations(doc), wanted),
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
