/**
 * The `siteforge` command: argv in, exit code out. Manifests go to stdout (or a directory);
 * every message goes to stderr. Exit codes: 0 ok, 1 invalid input, 2 usage error.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareIssues, formatIssue, SiteForgeError, UsageError } from '../../shared/errors.js';
import type { InputIssue } from '../../shared/errors.js';
import { emitYaml, emitYamlStream } from '../../shared/yaml-emit.js';
import { compileFleet, loadSiteConfigs, siteConfigSchema } from '../../siteconfig/index.js';
import type { CompiledCluster } from '../../siteconfig/index.js';
import { listInputFiles, readInputFiles } from './read-inputs.js';

/** Where the CLI writes; injectable for tests. */
export interface CliIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** Exit codes of the CLI. */
export const ExitCode = { Ok: 0, Invalid: 1, Usage: 2, Internal: 70 } as const;

const USAGE = `Usage: siteforge <command> [options]

Commands:
  generate PATH...   compile SiteConfig files or directories into hub manifests
  validate PATH...   check SiteConfig files and report every problem
  schema             print the SiteConfig JSON Schema (for editors)

Options:
  -o, --output DIR   generate: write one file per object under DIR/<cluster>/ instead of stdout
  --strict           treat warnings as errors
  -h, --help         show this help
  -v, --version      print the version

Exit codes: 0 success, 1 invalid input, 2 usage error.
`;

interface ParsedArgs {
  command: string | undefined;
  paths: string[];
  output: string | undefined;
  strict: boolean;
  help: boolean;
  version: boolean;
}

function parseArgs(argv: readonly string[]): ParsedArgs {
  const args: ParsedArgs = { command: undefined, paths: [], output: undefined, strict: false, help: false, version: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') args.help = true;
    else if (arg === '-v' || arg === '--version') args.version = true;
    else if (arg === '--strict') args.strict = true;
    else if (arg === '-o' || arg === '--output' || arg.startsWith('--output=')) {
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
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'siteforge') return pkg.version ?? '0.0.0';
    }
  }
  return '0.0.0';
}

/** Runs the CLI and returns its exit code. Never throws. */
export function runCli(argv: readonly string[], io: CliIo): number {
  try {
    return run(parseArgs(argv), io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`siteforge: ${err.message}\nRun 'siteforge --help' for usage.\n`);
      return ExitCode.Usage;
    }
    if (err instanceof SiteForgeError) {
      io.stderr(`siteforge: ${err.message}\n`);
      return ExitCode.Invalid;
    }
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(`siteforge: internal error: ${message}\nThis is a bug in SiteForge; please report it with the input that caused it.\n`);
    return ExitCode.Internal;
  }
}

function run(args: ParsedArgs, io: CliIo): number {
  if (args.version) {
    io.stdout(`${packageVersion()}\n`);
    return ExitCode.Ok;
  }
  if (args.help || args.command === undefined) {
    (args.help ? io.stdout : io.stderr)(USAGE);
    return args.help ? ExitCode.Ok : ExitCode.Usage;
  }
  switch (args.command) {
    case 'schema':
      if (args.paths.length > 0) throw new UsageError('schema takes no paths');
      io.stdout(`${JSON.stringify(siteConfigSchema, null, 2)}\n`);
      return ExitCode.Ok;
    case 'generate':
    case 'validate':
      return compile(args, io);
    default:
      throw new UsageError(`unknown command "${args.command}"`);
  }
}

function compile(args: ParsedArgs, io: CliIo): number {
  if (args.paths.length === 0) throw new UsageError(`${String(args.command)} needs at least one file or directory`);
  if (args.output !== undefined && args.command !== 'generate') throw new UsageError('--output only applies to generate');
  const files = listInputFiles(args.paths, io.cwd);
  const { sites, issues } = loadSiteConfigs(readInputFiles(files, io.cwd));
  const failed = reportIssues(issues, args.strict, io);
  if (failed) return ExitCode.Invalid;
  if (sites.length === 0) {
    io.stderr(`siteforge: no SiteConfig found in ${args.paths.join(', ')}\n`);
    return ExitCode.Invalid;
  }
  if (args.command === 'validate') {
    const clusters = sites.reduce((n, site) => n + site.siteConfig.spec.clusters.length, 0);
    io.stderr(`siteforge: ${String(sites.length)} SiteConfig(s), ${String(clusters)} cluster(s): valid\n`);
    return ExitCode.Ok;
  }
  const clusters = compileFleet(sites.map((site) => site.siteConfig));
  if (args.output === undefined) io.stdout(emitYamlStream(clusters.flatMap((cluster) => cluster.manifests)));
  else writeOutputDir(resolve(io.cwd, args.output), clusters);
  return ExitCode.Ok;
}

/** Prints issues to stderr; returns true when the run must fail. */
function reportIssues(issues: readonly InputIssue[], strict: boolean, io: CliIo): boolean {
  const sorted = [...issues].sort(compareIssues);
  const counted = (severity: string): number => sorted.filter((issue) => issue.severity === severity).length;
  const shown = sorted.map((issue) =>
    strict && issue.severity === 'warning' ? { ...issue, severity: 'error' as const } : issue,
  );
  if (shown.length > 0) io.stderr(`${shown.map(formatIssue).join('\n')}\n`);
  const errors = counted('error') + (strict ? counted('warning') : 0);
  if (errors > 0) {
    io.stderr(`siteforge: ${String(errors)} error(s), ${String(strict ? 0 : counted('warning'))} warning(s); nothing was generated\n`);
  }
  return errors > 0;
}

const OUTPUT_MARKER = '.siteforge-output';

/**
 * Writes one file per object under DIR/<cluster>/<kind>_<name>.yaml. The new tree is built
 * beside DIR and swapped in, so a failure never leaves half an output; a DIR that SiteForge
 * did not create is never replaced.
 */
function writeOutputDir(dir: string, clusters: readonly CompiledCluster[]): void {
  if (existsSync(dir) && readdirSync(dir).length > 0 && !existsSync(join(dir, OUTPUT_MARKER))) {
    throw new UsageError(`${dir} exists and was not written by siteforge; choose an empty or new directory`);
  }
  const staging = `${dir}.tmp-${String(process.pid)}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    writeFileSync(join(staging, OUTPUT_MARKER), 'written by siteforge generate; replaced on every run\n');
    for (const { clusterName, manifests } of clusters) {
      mkdirSync(join(staging, clusterName));
      for (const manifest of manifests) {
        const file = `${manifest.kind.toLowerCase()}_${manifest.metadata.name}.yaml`;
        writeFileSync(join(staging, clusterName, file), emitYaml(manifest));
      }
    }
    const previous = `${dir}.old-${String(process.pid)}`;
    if (existsSync(dir)) renameSync(dir, previous);
    renameSync(staging, dir);
    rmSync(previous, { recursive: true, force: true });
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}
