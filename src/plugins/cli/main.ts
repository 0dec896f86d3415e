/**
 * The `siteforge` command: argv in, exit code out. Manifests go to stdout (or a directory);
 * every message goes to stderr. Exit codes: 0 ok, 1 invalid input, 2 usage error.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareIssues, formatIssue, SiteForgeError, UsageError } from '../../shared/errors.js';
import type { InputIssue } from '../../shared/errors.js';
import { emitYaml } from '../../shared/yaml-emit.js';
import { compileSiteConfig, loadSiteConfigs, siteConfigSchema } from '../../siteconfig/index.js';
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
  // Compile site by site as each is validated, keeping only YAML text alive: a fleet of
  // thousands of sites then costs little more memory than its output.
  const rendered: RenderedCluster[] = [];
  let siteCount = 0;
  const generate = args.command === 'generate';
  const { issues } = loadSiteConfigs(readInputFiles(files, io.cwd), {
    onSite: (site) => {
      siteCount++;
      if (!generate) {
        rendered.push(...site.siteConfig.spec.clusters.map((c) => ({ clusterName: c.clusterName, documents: [] })));
        return;
      }
      for (const cluster of compileSiteConfig(site.siteConfig)) {
        rendered.push({
          clusterName: cluster.clusterName,
          documents: cluster.manifests.map((m) => ({ fileName: `${m.kind.toLowerCase()}_${m.metadata.name}.yaml`, yaml: emitYaml(m) })),
        });
      }
    },
  });
  const failed = reportIssues(issues, args.strict, io);
  if (failed) return ExitCode.Invalid;
  if (siteCount === 0) {
    io.stderr(`siteforge: no SiteConfig found in ${args.paths.join(', ')}\n`);
    return ExitCode.Invalid;
  }
  if (!generate) {
    io.stderr(`siteforge: ${String(siteCount)} SiteConfig(s), ${String(rendered.length)} cluster(s): valid\n`);
    return ExitCode.Ok;
  }
  rendered.sort((a, b) => (a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0));
  if (args.output !== undefined) {
    writeOutputDir(resolve(io.cwd, args.output), rendered);
    return ExitCode.Ok;
  }
  const stream: string[] = [];
  for (const cluster of rendered) for (const doc of cluster.documents) stream.push('---\n', doc.yaml);
  io.stdout(stream.join(''));
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
/** The YAML of one cluster's objects, in apply order, with their output file names. */
interface RenderedCluster {
  readonly clusterName: string;
  readonly documents: readonly { readonly fileName: string; readonly yaml: string }[];
}

function writeOutputDir(dir: string, clusters: readonly RenderedCluster[]): void {
  if (existsSync(dir) && readdirSync(dir).length > 0 && !existsSync(join(dir, OUTPUT_MARKER))) {
    throw new UsageError(`${dir} exists and was not written by siteforge; choose an empty or new directory`);
  }
  const staging = `${dir}.tmp-${String(process.pid)}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    writeFileSync(join(staging, OUTPUT_MARKER), 'written by siteforge generate; replaced on every run\n');
    for (const { clusterName, documents } of clusters) {
      mkdirSync(join(staging, clusterName));
      for (const { fileName, yaml } of documents) writeFileSync(join(staging, clusterName, fileName), yaml);
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
