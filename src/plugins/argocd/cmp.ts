/**
 * The Argo CD config-management plugin (CMP v2 sidecar): the `generate`, `discover` and
 * `parameters` commands that plugin.yaml names. argocd-cmp-server runs them with the app
 * directory as cwd, inside an unpacked copy of the repository, with the build environment of
 * the Application (ARGOCD_APP_*, ARGOCD_ENV_*, PARAM_*).
 *
 * The contract users rely on: stdout holds the whole YAML stream or nothing at all. Any invalid
 * site, bad parameter or empty selection fails the generation with a non-zero exit and
 * `file:line:column` messages on stderr (Argo CD shows them in the Application's conditions),
 * so a half-rendered fleet is never synced and prune never deletes the sites that failed.
 * Every site is checked before the first byte is written; then the clusters are streamed one
 * at a time, so the sidecar's memory does not grow with the fleet.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { SiteForgeError, UsageError } from '../../shared/errors.js';
import { LimitExceededError } from '../../shared/limits.js';
import { SECRET_DIRECTORY_NAME } from '../../siteconfig/index.js';
import type { SourceFile } from '../../siteconfig/index.js';
import { listInputFiles, readInputFiles } from '../cli/read-inputs.js';
import { ExitCode, reportFailure } from '../exit-code.js';
import { fsSecretSource } from '../fs-secret-source.js';
import { fsSiteFiles } from '../fs-site-files.js';
import { kustomizationRoots } from '../kustomization-root.js';
import type { SecretSource } from '../../siteconfig/index.js';
import { readLimits } from '../limit-options.js';
import { planFleet, renderFleet, reportIssues, writeYamlStream } from '../render-fleet.js';
import { RunBudget } from '../run-budget.js';
import { OutputFormat, readCmpOptions, siteSelection } from './parameters.js';
import type { BuildEnv } from './parameters.js';

/** What a plugin command sees of the world; injectable for tests. */
export interface PluginIo {
  /** The app directory. */
  readonly cwd: string;
  readonly env: BuildEnv;
  readonly stdout: (text: string) => void;
  /** Resolves when stdout has taken what was written (see CliIo). @default never waits */
  readonly stdoutDrained?: () => Promise<void> | undefined;
  readonly stderr: (text: string) => void;
  /** The clock of the run's time limit, in milliseconds. @default performance.now */
  readonly now?: () => number;
}

/**
 * The budget of one plugin command. Its limits come from the sidecar's environment
 * (`SITEFORGE_LIMIT_<NAME>`) only: Applications reach the plugin through `ARGOCD_ENV_*` and
 * parameters, and neither can name these variables, so no Application can raise a limit.
 */
export function pluginBudget(io: Pick<PluginIo, 'env' | 'now'>): RunBudget {
  return new RunBudget(readLimits(io.env), io.now);
}

/** A file in the app directory that claims it for SiteForge, even before it holds any site. */
export const MARKER_FILE = '.siteforge';

const COMMANDS = ['generate', 'discover', 'parameters'] as const;

/** Runs `siteforge argocd <command>`; returns the exit code. Never throws. */
export async function runArgoCdCommand(args: readonly string[], io: PluginIo): Promise<number> {
  const [command, ...rest] = args;
  try {
    if (rest.length > 0 || !COMMANDS.includes(command as (typeof COMMANDS)[number]))
      throw new UsageError(`usage: siteforge argocd ${COMMANDS.join('|')} (no arguments)`);
    const budget = pluginBudget(io);
    switch (command as (typeof COMMANDS)[number]) {
      case 'generate':
        return await generate(io, budget);
      case 'discover':
        return discover(io, budget);
      case 'parameters':
        return announceParameters(io, budget);
    }
  } catch (err) {
    return reportPluginFailure(err, io);
  }
}

/** Prints why a plugin command failed, as Argo CD will show it; returns the exit code. */
export function reportPluginFailure(err: unknown, io: Pick<PluginIo, 'stderr'>): number {
  return reportFailure(err, io, "See docs/argocd.md for the plugin's parameters.");
}

/**
 * The app's YAML files, read recursively, named relative to the repository root (the app path
 * is ARGOCD_APP_SOURCE_PATH), so messages point where the user edits.
 */
export function readAppFiles(io: Pick<PluginIo, 'cwd' | 'env'>, budget: RunBudget): SourceFile[] {
  const appPath = io.env['ARGOCD_APP_SOURCE_PATH'] ?? '';
  const files = listInputFiles(['.'], io.cwd, budget);
  return readInputFiles(files, io.cwd, budget, (path) => repoRelative(appPath, path));
}

/**
 * Credentials for `fromDirectory`, scoped by Argo CD tenancy: Kubernetes Secrets mounted into
 * the sidecar under SITEFORGE_SECRETS_DIR/<project>/<name>, where <project> is the
 * Application's AppProject (ARGOCD_APP_PROJECT_NAME, set by the repo-server from
 * `spec.project`). An Application reads the credentials of its own project and no other; the
 * platform team decides what each project gets by where it mounts each Secret. Applications
 * cannot move the directory: SITEFORGE_SECRETS_DIR is the sidecar's own environment, and the
 * ARGOCD_ENV_ variables they control have another prefix. Without a usable project name (Argo
 * CD before 3.0) no credentials are read at all.
 */
export function secretsOption(
  io: Pick<PluginIo, 'env'>,
  budget?: RunBudget,
): { secrets?: SecretSource } {
  const dir = io.env['SITEFORGE_SECRETS_DIR'];
  if (!dir) return {};
  const project = io.env['ARGOCD_APP_PROJECT_NAME'] ?? '';
  if (!SECRET_DIRECTORY_NAME.test(project)) return { secrets: NO_PROJECT };
  return { secrets: fsSecretSource(join(dir, project), budget) };
}

/** Refuses every `fromDirectory` when the Application's project is unknown. */
const NO_PROJECT: SecretSource = {
  readDirectory: () => {
    throw new SiteForgeError(
      'SECRETS_PROJECT_UNKNOWN',
      "fromDirectory credentials are scoped by the Application's project, and ARGOCD_APP_PROJECT_NAME is not set (Argo CD 3.0 or later sets it); no credentials were read and nothing was generated",
    );
  },
};

/**
 * The root of the repository copy: the app directory minus ARGOCD_APP_SOURCE_PATH. The files a
 * SiteConfig refers to (crTemplates, BIOS settings) are read below it and nowhere else.
 */
export function repositoryRoot(io: Pick<PluginIo, 'cwd' | 'env'>): string {
  const segments = posix
    .normalize(io.env['ARGOCD_APP_SOURCE_PATH'] ?? '.')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return io.cwd;
  return resolve(io.cwd, ...segments.map(() => '..'));
}

/**
 * Where a SiteConfig's relative paths resolve first: the nearest folder of the app holding a
 * kustomization (where kustomize would run siteconfig-generator), else the app path itself.
 */
function appKustomizationRoots(io: Pick<PluginIo, 'cwd' | 'env'>): (siteFile: string) => string {
  const app = repoRelative(io.env['ARGOCD_APP_SOURCE_PATH'] ?? '', '.');
  return kustomizationRoots({ base: repositoryRoot(io), fallback: app, top: app });
}

/** `path` (relative to the app directory) as seen from the repository root. */
export function repoRelative(appPath: string, path: string): string {
  return posix.normalize(posix.join(appPath.replace(/^\/+/, ''), path));
}

async function generate(io: PluginIo, budget: RunBudget): Promise<number> {
  const options = readCmpOptions(io.env);
  const selection = siteSelection(options.sites);
  const files = readAppFiles(io, budget);
  const plan = planFleet(files, {
    format: options.format,
    files: fsSiteFiles(repositoryRoot(io), undefined, budget),
    kustomizationRoot: appKustomizationRoots(io),
    ...secretsOption(io, budget),
    limits: budget.limits,
    deadline: budget,
    selectCluster: (clusterName, site) => selection.select(clusterName, site.metadata.name),
  });
  const { siteCount } = plan;
  const report = reportIssues(plan.issues, options.strict);
  if (report.text !== '') io.stderr(report.text);
  const where = io.env['ARGOCD_APP_SOURCE_PATH'] ?? '.';
  if (report.errors > 0)
    return refuse(io, `${String(report.errors)} error(s), ${String(report.warnings)} warning(s)`);
  if (siteCount === 0) return refuse(io, `no SiteConfig found in ${where}`);
  const unmatched = selection.unmatched();
  for (const pattern of unmatched)
    io.stderr(
      `siteforge: ${options.strict ? 'error' : 'warning'}: sites pattern "${pattern}" matches no site\n`,
    );
  if (options.strict && unmatched.length > 0)
    return refuse(io, `${String(unmatched.length)} sites pattern(s) matched no site (strict)`);
  if (plan.clusterNames.length === 0)
    return refuse(
      io,
      `the sites parameter selects none of the ${String(siteCount)} site(s) in ${where}; an empty output would let Argo CD prune every site`,
    );
  const written = await writeYamlStream(plan.render(), {
    write: io.stdout,
    ...(io.stdoutDrained ? { drained: io.stdoutDrained } : {}),
  });
  io.stderr(
    `siteforge: ${String(written.objects)} object(s) for ${String(written.clusters)} cluster(s) from ${String(siteCount)} SiteConfig(s) in ${where}\n`,
  );
  return ExitCode.Ok;
}

function refuse(io: PluginIo, why: string): number {
  io.stderr(`siteforge: ${why}; nothing was generated\n`);
  return ExitCode.Invalid;
}

/** A SiteConfig (ran.openshift.io v1/v2) or a ClusterInstance, both of which SiteForge renders. */
const SITE_FILES = [
  {
    apiVersion: /^apiVersion:[ \t]*["']?ran\.openshift\.io\/v[12]["']?[ \t]*(?:#.*)?$/m,
    kind: /^kind:[ \t]*["']?SiteConfig["']?[ \t]*(?:#.*)?$/m,
  },
  {
    apiVersion:
      /^apiVersion:[ \t]*["']?siteconfig\.open-cluster-management\.io\/v1alpha1["']?[ \t]*(?:#.*)?$/m,
    kind: /^kind:[ \t]*["']?ClusterInstance["']?[ \t]*(?:#.*)?$/m,
  },
];

/**
 * Argo CD's discovery: prints why the app is SiteForge's (a match needs exit 0 and a non-empty
 * stdout) or nothing. Claims the app for the marker file or a file that holds a SiteConfig or a
 * ClusterInstance, and
 * reads no more than it must: the first match ends the search.
 */
function discover(io: PluginIo, budget: RunBudget): number {
  const appPath = io.env['ARGOCD_APP_SOURCE_PATH'] ?? '';
  if (existsSync(join(io.cwd, MARKER_FILE))) {
    io.stdout(`${repoRelative(appPath, MARKER_FILE)}\n`);
    return ExitCode.Ok;
  }
  for (const path of listInputFiles(['.'], io.cwd, budget)) {
    budget.check();
    // A file over the size limit claims nothing here; generate reports it.
    if (statSync(join(io.cwd, path)).size > budget.limits.fileBytes) continue;
    const text = readFileSync(join(io.cwd, path), 'utf8');
    if (SITE_FILES.some((site) => site.kind.test(text) && site.apiVersion.test(text))) {
      io.stdout(`${repoRelative(appPath, path)}\n`);
      return ExitCode.Ok;
    }
  }
  return ExitCode.Ok;
}

/** One entry of Argo CD's parameters announcement (ParameterAnnouncement in repository.proto). */
export interface ParameterAnnouncement {
  readonly name: string;
  readonly title: string;
  readonly tooltip: string;
  readonly required: boolean;
  readonly itemType: 'string';
  readonly collectionType: 'string' | 'array';
  readonly string?: string;
  readonly array?: readonly string[];
}

/**
 * The dynamic parameters announcement: the plugin's parameters, with the clusters found in the
 * app as the value shown for `sites`. Never fails on invalid sites (the Parameters tab should
 * still open); their problems go to stderr and generation reports them.
 */
function announceParameters(io: PluginIo, budget: RunBudget): number {
  let names: string[] = [];
  try {
    const { clusters, issues } = renderFleet(readAppFiles(io, budget), {
      validateOnly: true,
      files: fsSiteFiles(repositoryRoot(io), undefined, budget),
      kustomizationRoot: appKustomizationRoots(io),
      ...secretsOption(io, budget),
      limits: budget.limits,
      deadline: budget,
    });
    const report = reportIssues(issues, false);
    if (report.errors > 0) io.stderr(report.text);
    names = clusters.map((c) => c.clusterName);
  } catch (err) {
    // Over a limit: the tab still opens, without sites; generate reports the same error.
    if (!(err instanceof LimitExceededError)) throw err;
    reportFailure(err, io, '');
  }
  const announcement: ParameterAnnouncement[] = [
    {
      name: 'format',
      title: 'Output format',
      tooltip:
        'crs: the hub objects (AgentClusterInstall, ClusterDeployment, BareMetalHost, ...). clusterinstance: a ClusterInstance per cluster for the SiteConfig operator, with its Namespace, credentials and extra-manifests ConfigMaps.',
      required: false,
      itemType: 'string',
      collectionType: 'string',
      string: OutputFormat.Crs,
    },
    {
      name: 'sites',
      title: `Sites (${String(names.length)} found)`,
      tooltip:
        'Clusters to sync, by cluster or SiteConfig name; globs (*, ?, [a-z], {a,b}) and !exclusions allowed. Unset = every site. The value shown lists every valid site found; saving it pins that list.',
      required: false,
      itemType: 'string',
      collectionType: 'array',
      array: names,
    },
    {
      name: 'strict',
      title: 'Strict',
      tooltip: 'true: warnings, and sites patterns that match nothing, fail the generation.',
      required: false,
      itemType: 'string',
      collectionType: 'string',
      string: 'false',
    },
  ];
  io.stdout(`${JSON.stringify(announcement)}\n`);
  return ExitCode.Ok;
}
