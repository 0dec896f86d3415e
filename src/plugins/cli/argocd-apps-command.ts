/**
 * `siteforge argocd apps [PATH] [options]`: the Argo CD Applications that render the fleet in
 * PATH with the siteforge plugin, at most 1,000 sites each, as a YAML stream on stdout (or
 * written to a file with -o). Sites keep their Application from one run to the next when the
 * previous Applications are given (src/plugins/argocd/applications.ts).
 *
 * Exit codes: 0 written; 1 invalid input (a site, the previous file, a limit); 2 usage.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { SiteForgeError, UsageError } from '../../shared/errors.js';
import { emitYamlStream } from '../../shared/yaml-emit.js';
import {
  application,
  assignSites,
  checkApplications,
  DEFAULT_MAX_SITES,
  PreviousApplicationsError,
  readPreviousApplications,
} from '../argocd/applications.js';
import type { ApplicationsOptions, AppAssignment } from '../argocd/applications.js';
import { ExitCode, reportFailure } from '../exit-code.js';
import { fsSiteFiles } from '../fs-site-files.js';
import { GitRepository } from '../git-revision.js';
import { kustomizationRoots } from '../kustomization-root.js';
import { readLimits } from '../limit-options.js';
import { planFleet, reportIssues } from '../render-fleet.js';
import { RunBudget, UnreadableFileError } from '../run-budget.js';
import { STAND_IN_SECRETS } from '../stand-in-secrets.js';
import { listInputFiles, readInputFiles } from './read-inputs.js';
import type { CliIo } from './cli-io.js';

const USAGE = `Usage: siteforge argocd apps [PATH] [options]

Writes the Argo CD Applications that render the sites in PATH (a folder of site files, default
the current folder) with the siteforge plugin, at most 1,000 sites each (the hub's figure per
Application), as one YAML stream on stdout. A site stays in its Application from one run to the
next when the Applications written last time are given: moving a site would make Argo CD prune
(deprovision) it and install it again. Keep the output in git and pass it back with -o or
--previous.

Options:
  -o, --output FILE       write FILE instead of stdout, replacing it whole; the Applications
                          already in it are the previous ones
  --previous FILE         the Applications written last time (when not given with -o)
  --repo-url URL          the repository Argo CD reads (default: the URL of git remote origin)
  --revision REV          the Applications' targetRevision (default: HEAD)
  --path DIR              PATH as the repository names it (default: PATH's place in its git work
                          tree)
  --name-prefix NAME      Applications are NAME-001, NAME-002, ... (default: sites)
  --max-sites N           sites per Application, at most (default: ${String(DEFAULT_MAX_SITES)})
  --namespace NS          namespace of the Applications (default: argocd; OpenShift GitOps:
                          openshift-gitops)
  --project NAME          their AppProject (default: siteforge-sites)
  --destination-server URL
                          the hub's API server as Argo CD knows it
                          (default: https://kubernetes.default.svc)
  --plugin NAME           the plugin as Applications name it (default: siteforge-v1)
  --sync automated|manual automated (default): Argo CD syncs every change, with prune and
                          self-heal; manual: only when asked (siteforge rollout run's operation
                          strategy)
  --limit NAME=N          raise a limit of the run (README, "Limits")
  -h, --help              show this help

Exit codes: 0 written, 1 invalid input, 2 usage error.
`;

interface AppsArgs {
  path: string | undefined;
  output: string | undefined;
  previous: string | undefined;
  repoURL: string | undefined;
  revision: string;
  repoPath: string | undefined;
  prefix: string;
  maxSites: number;
  namespace: string;
  project: string;
  destinationServer: string;
  plugin: string;
  sync: 'automated' | 'manual';
  limits: string[];
}

/** A lower-case DNS label, as Application names and their prefix must be. */
const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,51}[a-z0-9])?$/;

/** Runs `siteforge argocd apps ...` (argv after `apps`). Never throws. */
export async function runArgoCdAppsCommand(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    if (argv.includes('-h') || argv.includes('--help')) {
      io.stdout(USAGE);
      return ExitCode.Ok;
    }
    return await apps(parseAppsArgs(argv), io);
  } catch (err) {
    if (err instanceof PreviousApplicationsError) {
      io.stderr(
        `${err.message}\nsiteforge: the previous Applications are invalid; nothing was written\n`,
      );
      return ExitCode.Invalid;
    }
    return reportFailure(err, io, "Run 'siteforge argocd apps --help' for usage.");
  }
}

function parseAppsArgs(argv: readonly string[]): AppsArgs {
  const args: AppsArgs = {
    path: undefined,
    output: undefined,
    previous: undefined,
    repoURL: undefined,
    revision: 'HEAD',
    repoPath: undefined,
    prefix: 'sites',
    maxSites: DEFAULT_MAX_SITES,
    namespace: 'argocd',
    project: 'siteforge-sites',
    destinationServer: 'https://kubernetes.default.svc',
    plugin: 'siteforge-v1',
    sync: 'automated',
    limits: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const is = (name: string): boolean => arg === name || arg.startsWith(`${name}=`);
    const value = (name: string): string => {
      const v = arg.startsWith(`${name}=`) ? arg.slice(name.length + 1) : argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${name} needs a value`);
      return v;
    };
    if (arg === '-o' || is('--output')) args.output = value(arg === '-o' ? '-o' : '--output');
    else if (is('--previous')) args.previous = value('--previous');
    else if (is('--repo-url')) args.repoURL = value('--repo-url');
    else if (is('--revision')) args.revision = value('--revision');
    else if (is('--path')) args.repoPath = value('--path');
    else if (is('--name-prefix')) args.prefix = value('--name-prefix');
    else if (is('--namespace')) args.namespace = value('--namespace');
    else if (is('--project')) args.project = value('--project');
    else if (is('--destination-server')) args.destinationServer = value('--destination-server');
    else if (is('--plugin')) args.plugin = value('--plugin');
    else if (is('--limit')) args.limits.push(value('--limit'));
    else if (is('--max-sites')) {
      const text = value('--max-sites');
      const n = Number(text);
      if (!/^[0-9]{1,6}$/.test(text) || n < 1)
        throw new UsageError(`--max-sites ${text}: give a whole number from 1 to 999999`);
      args.maxSites = n;
    } else if (is('--sync')) {
      const v = value('--sync');
      if (v !== 'automated' && v !== 'manual')
        throw new UsageError(`--sync ${v}: give automated or manual`);
      args.sync = v;
    } else if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
    else if (args.path === undefined) args.path = arg;
    else throw new UsageError(`argocd apps takes one PATH; ${arg} is one too many`);
  }
  if (!DNS_LABEL.test(args.prefix))
    throw new UsageError(
      `--name-prefix ${args.prefix}: give a lower-case DNS label of at most 53 characters (Applications are named PREFIX-001, ...)`,
    );
  return args;
}

async function apps(args: AppsArgs, io: CliIo): Promise<number> {
  const budget = new RunBudget(readLimits(io.env ?? process.env, args.limits), io.now);
  const path = args.path ?? '.';
  const files = readInputFiles(listInputFiles([path], io.cwd, budget), io.cwd, budget);
  const fleet = planFleet(files, {
    validateOnly: true,
    files: fsSiteFiles('/', io.cwd, budget),
    kustomizationRoot: kustomizationRoots({ base: io.cwd, fallback: path, top: path }),
    secrets: STAND_IN_SECRETS,
    limits: budget.limits,
    deadline: budget,
  });
  const report = reportIssues(
    fleet.issues.filter((i) => i.severity === 'error'),
    false,
  );
  if (report.errors > 0) {
    io.stderr(report.text);
    io.stderr(`siteforge: ${String(report.errors)} error(s); no Application was written\n`);
    return ExitCode.Invalid;
  }
  if (fleet.clusterNames.length === 0) {
    io.stderr(`siteforge: no SiteConfig found in ${path}; no Application was written\n`);
    return ExitCode.Invalid;
  }
  const where = await repositoryPlace(resolve(io.cwd, path), args);
  const options: ApplicationsOptions = {
    prefix: args.prefix,
    namespace: args.namespace,
    project: args.project,
    repoURL: where.repoURL,
    targetRevision: args.revision,
    path: where.path,
    plugin: args.plugin,
    destinationServer: args.destinationServer,
    maxSites: args.maxSites,
    sync: args.sync,
  };
  const previous = readPrevious(args, io, budget);
  const assignment = assignSites(fleet.clusterNames, previous, args.prefix, args.maxSites);
  const objects = assignment.apps.map((app) => application(app, options));
  checkApplications(objects);
  const yaml = emitYamlStream(objects);
  if (args.output === undefined) io.stdout(yaml);
  else replaceFile(resolve(io.cwd, args.output), yaml);
  io.stderr(
    `siteforge: ${String(fleet.clusterNames.length)} site(s) in ${String(assignment.apps.length)} Application(s) of at most ${String(args.maxSites)}; ${String(assignment.added)} site(s) placed, ${String(assignment.removed)} removed, none moved\n`,
  );
  if (args.maxSites > DEFAULT_MAX_SITES)
    io.stderr(
      `siteforge: warning: more than ${String(DEFAULT_MAX_SITES)} sites per Application is beyond what the hub is published to sync in one Application\n`,
    );
  for (const empty of assignment.emptied)
    io.stderr(
      `siteforge: warning: Application ${empty.name} has no site left (its ${String(empty.removed)} site(s) were removed from git) and is not written; the plugin refuses an empty selection, so it cannot prune them: delete it with its resources (argocd app delete ${empty.name} --cascade) to deprovision them, or remove them another way\n`,
    );
  return ExitCode.Ok;
}

/** The previous Applications: `--previous FILE`, else the existing `-o FILE`, else none. */
function readPrevious(args: AppsArgs, io: CliIo, budget: RunBudget): AppAssignment[] {
  const file =
    args.previous ??
    (args.output !== undefined && existsSync(resolve(io.cwd, args.output))
      ? args.output
      : undefined);
  if (file === undefined) return [];
  let text: string;
  try {
    text = budget.readText(resolve(io.cwd, file), file);
  } catch (err) {
    if (!(err instanceof UnreadableFileError)) throw err;
    throw new UsageError(`--previous ${file}: cannot read the file (${err.reason})`);
  }
  return readPreviousApplications(file, text, args.prefix, args.plugin);
}

/** The repository URL and the folder's path in it: from the options, else from git. */
async function repositoryPlace(
  dir: string,
  args: AppsArgs,
): Promise<{ repoURL: string; path: string }> {
  let repository: GitRepository | undefined;
  if (args.repoURL === undefined || args.repoPath === undefined) {
    try {
      repository = await GitRepository.open(dir);
    } catch {
      repository = undefined;
    }
  }
  const repoURL = args.repoURL ?? (await repository?.originUrl());
  if (repoURL === undefined)
    throw new UsageError(
      repository === undefined
        ? 'give --repo-url URL: the folder is not in a git work tree'
        : `give --repo-url URL: the repository at ${repository.top} has no remote named origin (or add one: git remote add origin URL)`,
    );
  const path = args.repoPath ?? repository?.scope;
  if (path === undefined)
    throw new UsageError('give --path DIR: the folder is not in a git work tree');
  if (path.startsWith('/') || path.split('/').includes('..'))
    throw new UsageError(
      `--path ${path}: give a path inside the repository, such as clusters/prod`,
    );
  return { repoURL, path };
}

/** Writes a file whole: beside it first (its folder made if missing), then renamed over it. */
function replaceFile(path: string, text: string): void {
  const temporary = join(
    dirname(path),
    `.${relative(dirname(path), path).split(sep).join('-')}.siteforge-tmp`,
  );
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw new SiteForgeError(
      'OUTPUT_UNWRITABLE',
      `cannot write ${path}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
