/**
 * `siteforge convert PATH... [-o DIR]`: rewrites SiteConfig v1/v2 files as ClusterInstance files,
 * one per cluster. Without -o the files go to stdout as one YAML stream; with -o each is written
 * as DIR/<clusterName>.yaml, the directory replaced as a whole. Every field a ClusterInstance
 * cannot hold is reported on stderr as a positioned warning with its replacement.
 */
import { resolve } from 'node:path';
import { UsageError } from '../../shared/errors.js';
import { convertSiteConfigs } from '../../siteconfig/index.js';
import { conversionIssue } from '../conversion-issues.js';
import { ExitCode } from '../exit-code.js';
import { fsSiteFiles } from '../fs-site-files.js';
import { kustomizationRoots } from '../kustomization-root.js';
import { reportIssues } from '../render-fleet.js';
import { replaceOutputDir } from './output-dir.js';
import type { RunBudget } from '../run-budget.js';
import { listInputFiles, readInputFiles } from './read-inputs.js';

/** What convert reads from the command line. */
export interface ConvertArgs {
  readonly paths: readonly string[];
  readonly output: string | undefined;
  readonly strict: boolean;
  readonly templateNamespace: string | undefined;
}

/** Where convert writes. */
export interface ConvertIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** Runs `siteforge convert`; returns the exit code. */
export function runConvert(args: ConvertArgs, io: ConvertIo, budget: RunBudget): number {
  if (args.paths.length === 0) throw new UsageError('convert needs at least one file or directory');
  const sources = readInputFiles(listInputFiles(args.paths, io.cwd, budget), io.cwd, budget);
  const result = convertSiteConfigs(sources, {
    files: fsSiteFiles('/', io.cwd, budget),
    kustomizationRoot: kustomizationRoots({ base: io.cwd, fallback: '.' }),
    limits: budget.limits,
    ...(args.templateNamespace ? { templateNamespace: args.templateNamespace } : {}),
  });
  const report = reportIssues(
    [...result.issues, ...result.warnings.map(conversionIssue)],
    args.strict,
  );
  if (report.text !== '') io.stderr(report.text);
  if (report.errors > 0) {
    io.stderr(
      `siteforge: ${String(report.errors)} error(s), ${String(report.warnings)} warning(s); nothing was converted\n`,
    );
    return ExitCode.Invalid;
  }
  if (result.siteCount === 0) {
    io.stderr(`siteforge: no SiteConfig found in ${args.paths.join(', ')}\n`);
    return ExitCode.Invalid;
  }
  const summary = `${String(result.files.length)} ClusterInstance(s) from ${String(result.siteCount)} SiteConfig(s); ${String(result.warnings.length)} field(s) not carried over`;
  if (args.output !== undefined) {
    const dir = resolve(io.cwd, args.output);
    replaceOutputDir(
      dir,
      result.files.map((f) => ({ path: f.name, text: f.text })),
      'convert',
    );
    io.stderr(`siteforge: wrote ${summary} to ${dir}\n`);
  } else {
    io.stdout(result.files.map((f) => `---\n${f.text}`).join(''));
    io.stderr(`siteforge: ${summary}\n`);
  }
  return ExitCode.Ok;
}
