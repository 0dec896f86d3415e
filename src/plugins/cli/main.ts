/**
 * The `siteforge` command: argv in, exit code out. Manifests go to stdout (or a directory);
 * every message goes to stderr. Exit codes: 0 ok, 1 invalid input, 2 usage error.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../../shared/errors.js';
import { siteConfigSchema } from '../../siteconfig/index.js';
import { ExitCode, reportFailure } from '../exit-code.js';
import { fsSecretSource } from '../fs-secret-source.js';
import { fsSiteFiles } from '../fs-site-files.js';
import { kustomizationRoots } from '../kustomization-root.js';
import { readLimits } from '../limit-options.js';
import { planFleet, reportIssues, writeYamlStream } from '../render-fleet.js';
import { RunBudget } from '../run-budget.js';
import type { RenderedCluster } from '../render-fleet.js';
import { replaceOutputDir } from './output-dir.js';
import type { OutputFile } from './output-dir.js';
import { listInputFiles, readInputFiles } from './read-inputs.js';
import type { CliIo } from './cli-io.js';

export type { CliIo } from './cli-io.js';

export { ExitCode };

const USAGE = `Usage: siteforge <command> [options]

Commands:
  generate PATH...   compile SiteConfig files or directories into hub manifests
  validate PATH...   check SiteConfig files and report every problem
  convert PATH...    rewrite SiteConfig files as ClusterInstance files (one per cluster) on
                     stdout, or as DIR/<cluster>.yaml with -o; lists every field not carried over
  schema             print the SiteConfig JSON Schema (for editors)
  diff OLD NEW [PATH...]
                     compare the hub objects of two versions: two paths, or two git revisions
                     (then PATHs select files in the repository); exit 3 on dangerous changes
  argocd generate|discover|parameters
                     the Argo CD config-management plugin (run by argocd-cmp-server in the
                     app directory; options come from the Application, see docs/argocd.md)
  argocd apps [PATH] the Argo CD Applications of a fleet, at most 1,000 sites each, every site
                     kept in its Application from run to run (siteforge argocd apps --help)
  kustomize-plugin FILE
                     the kustomize exec plugin for ran.openshift.io SiteConfig generators
  apply PATH...      server-side apply the objects to a hub, wave by wave (field manager siteforge)
  check PATH...      server-side dry run of every object; rejections reported at FILE:LINE
  bmc info|power|boot-iso|eject --address URL --username-file F --password-file F
                     drive one BMC through Redfish as the controller does (siteforge bmc --help)
  controller         run the BMAC controller on a hub until SIGTERM (siteforge controller --help)
  rollout plan --from REV [--to REV] [REPO]
                     plan the rollout of a change between two git revisions in waves, by the
                     repository's rollout policy (siteforge rollout plan --help)
  rollout run|pause|resume|abort|status
                     drive a rollout plan against a hub in waves with health gates, and
                     steer it (siteforge rollout --help, docs/rollout.md)

Options:
  -o, --output DIR   generate: write one file per object under DIR/<cluster>/ instead of stdout
  --strict           treat warnings as errors
  --secrets-dir DIR  where bmcCredentials/pullSecret fromDirectory credentials are read
                     (default: $SITEFORGE_SECRETS_DIR)
  --redact           generate: print Secrets with their values replaced by <redacted>
  --format FORMAT    generate, apply, check: crs (hub objects, the default) or clusterinstance
                     (ClusterInstances for the SiteConfig operator, with what it does not render)
  --template-namespace NS
                     --format clusterinstance, convert: namespace of the operator's
                     template ConfigMaps (default: open-cluster-management)
  --kubeconfig FILE  apply, check: the hub to use (default: $KUBECONFIG, ~/.kube/config)
  --dry-run=server   apply: let the hub check everything but persist nothing
  --limit NAME=N     raise (or lower) a limit of the run, e.g. --limit file-bytes=64Mi;
                     repeatable; also SITEFORGE_LIMIT_<NAME> (README, "Limits")
  -h, --help         show this help
  -v, --version      print the version

Exit codes: 0 success, 1 invalid input (or rejected by the hub), 2 usage error,
3 dangerous change (diff), sites held out of the waves (rollout plan) or hub unreachable
(apply, check).
`;

interface ParsedArgs {
  command: string | undefined;
  paths: string[];
  output: string | undefined;
  strict: boolean;
  secretsDir: string | undefined;
  redact: boolean;
  format: string | undefined;
  templateNamespace: string | undefined;
  kubeconfig: string | undefined;
  dryRun: boolean;
  /** `--limit NAME=VALUE` flags, in order. */
  limits: string[];
  help: boolean;
  version: boolean;
}

function parseArgs(argv: readonly string[]): ParsedArgs {
  const args: ParsedArgs = {
    command: undefined,
    paths: [],
    output: undefined,
    strict: false,
    secretsDir: undefined,
    redact: false,
    format: undefined,
    templateNamespace: undefined,
    kubeconfig: undefined,
    dryRun: false,
    limits: [],
    help: false,
    version: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') args.help = true;
    else if (arg === '-v' || arg === '--version') args.version = true;
    else if (arg === '--strict') args.strict = true;
    else if (arg === '--redact') args.redact = true;
    else if (arg === '--secrets-dir' || arg.startsWith('--secrets-dir=')) {
      const value = arg.startsWith('--secrets-dir=')
        ? arg.slice('--secrets-dir='.length)
        : argv[++i];
      if (value === undefined || value === '') throw new UsageError(`${arg} needs a directory`);
      args.secretsDir = value;
    } else if (arg === '--kubeconfig' || arg.startsWith('--kubeconfig=')) {
      const value = arg.startsWith('--kubeconfig=') ? arg.slice('--kubeconfig='.length) : argv[++i];
      if (value === undefined || value === '') throw new UsageError(`${arg} needs a file`);
      args.kubeconfig = value;
    } else if (arg === '--limit' || arg.startsWith('--limit=')) {
      const value = arg.startsWith('--limit=') ? arg.slice('--limit='.length) : argv[++i];
      if (value === undefined || value === '') throw new UsageError(`${arg} needs NAME=VALUE`);
      args.limits.push(value);
    } else if (arg.startsWith('--dry-run')) {
      if (arg !== '--dry-run=server') throw new UsageError(`${arg}: only --dry-run=server exists`);
      args.dryRun = true;
    } else if (arg === '--format' || arg.startsWith('--format=')) {
      const value = arg.startsWith('--format=') ? arg.slice('--format='.length) : argv[++i];
      if (value !== 'crs' && value !== 'clusterinstance')
        throw new UsageError(`${arg} needs crs or clusterinstance`);
      args.format = value;
    } else if (arg === '--template-namespace' || arg.startsWith('--template-namespace=')) {
      const value = arg.startsWith('--template-namespace=')
        ? arg.slice('--template-namespace='.length)
        : argv[++i];
      if (value === undefined || value === '') throw new UsageError(`${arg} needs a namespace`);
      args.templateNamespace = value;
    } else if (arg === '-o' || arg === '--output' || arg.startsWith('--output=')) {
      const value = arg.startsWith('--output=') ? arg.slice('--output='.length) : argv[++i];
      if (value === undefined || value === '') throw new UsageError(`${arg} needs a directory`);
      args.output = value;
    } else if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
    else if (args.command === undefined) args.command = arg;
    else args.paths.push(arg);
  }
  return args;
}

function packageVersion(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'siteforge') return pkg.version ?? '0.0.0';
    }
  }
  return '0.0.0';
}

/** Runs the CLI and returns its exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    if (argv[0] === 'bmc') {
      // Its own options; loaded on demand so other commands never load undici.
      const { runBmcCommand } = await import('./bmc-command.js');
      return await runBmcCommand(argv.slice(1), io);
    }
    if (argv[0] === 'argocd' && argv[1] === 'apps') {
      // A command for people, with options; the other argocd commands are the plugin's.
      const { runArgoCdAppsCommand } = await import('./argocd-apps-command.js');
      return await runArgoCdAppsCommand(argv.slice(2), io);
    }
    if (argv[0] === 'rollout') {
      // `rollout plan` reads git objects; the other rollout commands drive a hub and load
      // client-node. Each has its own options and is loaded on demand.
      if (argv[1] === 'plan') {
        const { runRolloutPlanCommand } = await import('./rollout-plan-command.js');
        return await runRolloutPlanCommand(argv.slice(2), io);
      }
      const { runRolloutCommand } = await import('./rollout-run-command.js');
      return await runRolloutCommand(argv.slice(1), io);
    }
    if (argv[0] === 'controller') {
      // Its own options; loaded on demand, as the controller loads client-node and pino.
      const { runControllerCommand } = await import('./controller-command.js');
      return await runControllerCommand(argv.slice(1), io);
    }
    return await run(parseArgs(argv), io);
  } catch (err) {
    return reportFailure(err, io, "Run 'siteforge --help' for usage.");
  }
}

/** The run's budget: limits from the environment, then from `--limit` flags. */
function budgetOf(args: ParsedArgs, io: CliIo): RunBudget {
  return new RunBudget(readLimits(io.env ?? process.env, args.limits), io.now);
}

/** The `fromDirectory` credentials of `--secrets-dir` or `SITEFORGE_SECRETS_DIR`, if any. */
function secretsOf(
  args: ParsedArgs,
  io: CliIo,
  budget: RunBudget,
): { secrets?: ReturnType<typeof fsSecretSource> } {
  const dir = args.secretsDir ?? (io.env ?? process.env)['SITEFORGE_SECRETS_DIR'];
  return dir ? { secrets: fsSecretSource(resolve(io.cwd, dir), budget) } : {};
}

function run(args: ParsedArgs, io: CliIo): number | Promise<number> {
  if (args.version) {
    io.stdout(`${packageVersion()}\n`);
    return ExitCode.Ok;
  }
  if (args.help || args.command === undefined) {
    (args.help ? io.stdout : io.stderr)(USAGE);
    return args.help ? ExitCode.Ok : ExitCode.Usage;
  }
  if ((args.kubeconfig !== undefined || args.dryRun) && !['apply', 'check'].includes(args.command))
    throw new UsageError('--kubeconfig and --dry-run only apply to apply and check');
  if (args.limits.length > 0 && ['schema', 'argocd', 'kustomize-plugin'].includes(args.command))
    throw new UsageError(
      `${args.command} takes no --limit; the plugins read SITEFORGE_LIMIT_<NAME> from their environment`,
    );
  switch (args.command) {
    case 'schema':
      if (args.paths.length > 0) throw new UsageError('schema takes no paths');
      io.stdout(`${JSON.stringify(siteConfigSchema, null, 2)}\n`);
      return ExitCode.Ok;
    case 'generate':
    case 'validate':
      return compile(args, io);
    // The commands below load their modules on demand: kustomize starts a process per
    // SiteConfig, and diff alone needs simple-git.
    case 'convert':
      if (args.format !== undefined || args.redact)
        throw new UsageError('convert takes no --format or --redact');
      return import('./convert-command.js').then(({ runConvert }) =>
        runConvert(args, io, budgetOf(args, io)),
      );
    case 'diff': {
      const budget = budgetOf(args, io);
      return import('./diff.js').then(({ runDiff }) =>
        runDiff(args.paths, io, { budget, ...secretsOf(args, io, budget) }),
      );
    }
    case 'argocd':
    case 'kustomize-plugin': {
      // Their options come from the environment (Argo CD) or the generator file (kustomize).
      if (args.output !== undefined || args.strict)
        throw new UsageError(`${args.command} takes no options`);
      const pluginIo = { ...io, env: io.env ?? process.env };
      return args.command === 'argocd'
        ? import('../argocd/cmp.js').then(({ runArgoCdCommand }) =>
            runArgoCdCommand(args.paths, pluginIo),
          )
        : import('../argocd/kustomize-plugin.js').then(({ runKustomizePlugin }) =>
            runKustomizePlugin(args.paths, pluginIo),
          );
    }
    case 'apply':
    case 'check':
      return kube(args.command, args, io);
    default:
      throw new UsageError(`unknown command "${args.command}"`);
  }
}

/**
 * generate and validate. Every site is checked before the first byte is written; then each
 * cluster is rendered and written out before the next, so memory stays flat as the fleet grows.
 */
async function compile(args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.paths.length === 0)
    throw new UsageError(`${String(args.command)} needs at least one file or directory`);
  if (args.output !== undefined && args.command !== 'generate')
    throw new UsageError('--output only applies to generate');
  if (
    (args.format !== undefined || args.templateNamespace !== undefined) &&
    args.command !== 'generate'
  )
    throw new UsageError(
      '--format and --template-namespace only apply to generate, convert, apply and check',
    );
  const budget = budgetOf(args, io);
  const files = readInputFiles(listInputFiles(args.paths, io.cwd, budget), io.cwd, budget);
  const validateOnly = args.command === 'validate';
  const plan = planFleet(files, {
    validateOnly,
    redact: args.redact,
    ...(args.format === 'clusterinstance' ? { format: 'clusterinstance' as const } : {}),
    ...(args.templateNamespace ? { templateNamespace: args.templateNamespace } : {}),
    files: fsSiteFiles('/', io.cwd, budget),
    kustomizationRoot: kustomizationRoots({ base: io.cwd, fallback: '.' }),
    ...secretsOf(args, io, budget),
    limits: budget.limits,
    deadline: budget,
  });
  const { siteCount, clusterInstanceCount } = plan;
  const report = reportIssues(plan.issues, args.strict);
  if (report.text !== '') io.stderr(report.text);
  if (report.errors > 0) {
    io.stderr(
      `siteforge: ${String(report.errors)} error(s), ${String(report.warnings)} warning(s); nothing was generated\n`,
    );
    return ExitCode.Invalid;
  }
  if (siteCount === 0) {
    io.stderr(`siteforge: no SiteConfig found in ${args.paths.join(', ')}\n`);
    return ExitCode.Invalid;
  }
  if (validateOnly) {
    io.stderr(
      `siteforge: ${String(siteCount - clusterInstanceCount)} SiteConfig(s), ${clusterInstanceCount > 0 ? `${String(clusterInstanceCount)} ClusterInstance(s), ` : ''}${String(plan.clusterNames.length)} cluster(s): valid\n`,
    );
  } else if (args.output !== undefined) {
    replaceOutputDir(resolve(io.cwd, args.output), outputFiles(plan.render()), 'generate');
  } else {
    await writeYamlStream(plan.render(), {
      write: io.stdout,
      ...(io.stdoutDrained ? { drained: io.stdoutDrained } : {}),
    });
  }
  return ExitCode.Ok;
}

async function kube(command: 'apply' | 'check', args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.paths.length === 0)
    throw new UsageError(`${command} needs at least one file or directory`);
  if (args.output !== undefined || args.redact)
    throw new UsageError(`${command} takes no --output or --redact`);
  if (args.dryRun && command === 'check') throw new UsageError('check is always a dry run');
  // Loaded on demand: @kubernetes/client-node costs ~0.7 s to import.
  const { runKubeCommand } = await import('./kube-commands.js');
  // The time limit covers reading and compiling, not the hub's answers.
  const budget = budgetOf(args, io);
  return runKubeCommand({ ...args, command }, io, budget, {
    ...(args.format === 'clusterinstance' ? { format: 'clusterinstance' as const } : {}),
    ...(args.templateNamespace ? { templateNamespace: args.templateNamespace } : {}),
    files: fsSiteFiles('/', io.cwd, budget),
    kustomizationRoot: kustomizationRoots({ base: io.cwd, fallback: '.' }),
    ...secretsOf(args, io, budget),
  });
}

/** The files of `generate -o DIR`, DIR/<cluster>/<kind>_<name>.yaml, as the clusters render. */
function* outputFiles(clusters: Iterable<RenderedCluster>): Generator<OutputFile> {
  for (const { clusterName, documents } of clusters)
    for (const { fileName, yaml } of documents)
      yield { path: join(clusterName, fileName), text: yaml };
}
