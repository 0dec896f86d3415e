/**
 * `siteforge diff OLD NEW [PATH...]`: compiles two versions of a fleet and reports, per
 * cluster, the objects added, removed and changed, and the changes the hub will reject or that
 * are dangerous (exit code 3, so CI can gate on it). OLD and NEW are two paths, or two git
 * revisions of the repository around the working directory; a revision is checked out into a
 * temporary worktree, so files the SiteConfigs refer to are read at that revision too.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { simpleGit } from 'simple-git';
import { UsageError } from '../../shared/errors.js';
import { compileSiteConfig, diffFleets, loadSiteConfigs } from '../../siteconfig/index.js';
import type { CompiledCluster, FleetDiff, SecretSource } from '../../siteconfig/index.js';
import { ExitCode } from '../exit-code.js';
import { fsSiteFiles } from '../fs-site-files.js';
import { kustomizationRoots } from '../kustomization-root.js';
import { packagedExtraManifests } from '../packaged-extra-manifests.js';
import { reportIssues } from '../render-fleet.js';
import type { RunBudget } from '../run-budget.js';
import { listInputFiles, readInputFiles } from './read-inputs.js';
import type { CliIo } from './cli-io.js';

/** What both sides are compiled with. */
export interface DiffOptions {
  /** The run's limits and deadline, shared by both sides. */
  readonly budget: RunBudget;
  /** Credentials for `fromDirectory` (`--secrets-dir`, `SITEFORGE_SECRETS_DIR`). @default none */
  readonly secrets?: SecretSource;
}

/** One side of the comparison, compiled, or the text of its problems. */
type Side = { clusters: CompiledCluster[] } | { problems: string };

function compileSide(
  paths: readonly string[],
  cwd: string,
  label: (file: string) => string,
  options: DiffOptions,
): Side {
  const clusters: CompiledCluster[] = [];
  const { budget } = options;
  const files = readInputFiles(listInputFiles(paths, cwd, budget), cwd, budget);
  const { issues } = loadSiteConfigs(files, {
    files: fsSiteFiles('/', cwd, budget),
    kustomizationRoot: kustomizationRoots({ base: cwd, fallback: '.' }),
    ...(options.secrets ? { secrets: options.secrets } : {}),
    defaultExtraManifests: packagedExtraManifests(),
    limits: budget.limits,
    onSite: ({ siteConfig, resources }) => {
      budget.check();
      clusters.push(...compileSiteConfig(siteConfig, resources));
    },
  });
  const report = reportIssues(
    issues.map((i) => ({ ...i, file: label(i.file) })),
    false,
  );
  return report.errors > 0 ? { problems: report.text } : { clusters };
}

/** Compiles PATHs as they are at a git revision, in a temporary worktree. */
async function compileRevision(
  cwd: string,
  revision: string,
  paths: readonly string[],
  options: DiffOptions,
): Promise<Side> {
  const git = simpleGit(cwd);
  const top = (await git.revparse(['--show-toplevel'])).trim();
  const worktree = mkdtempSync(join(tmpdir(), 'siteforge-diff-'));
  try {
    await git.raw(['worktree', 'add', '--detach', '--quiet', worktree, revision]);
    // PATHs are given relative to the working directory, which lies inside the repository.
    const inTree = (paths.length > 0 ? paths : ['.']).map(
      (p) => relative(top, resolve(cwd, p)) || '.',
    );
    const missing = inTree.filter((p) => !existsSync(join(worktree, p)));
    if (missing.length > 0)
      return { problems: `siteforge: ${missing.join(', ')} does not exist at ${revision}\n` };
    return compileSide(inTree, worktree, (file) => `${revision}:${file}`, options);
  } finally {
    await git.raw(['worktree', 'remove', '--force', worktree]).catch(() => undefined);
    rmSync(worktree, { recursive: true, force: true });
  }
}

async function isRevision(cwd: string, revision: string): Promise<boolean> {
  try {
    await simpleGit(cwd).raw(['rev-parse', '--verify', '--quiet', `${revision}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/** Formats the report printed on stdout. */
export function formatDiff(diff: FleetDiff): string {
  const lines: string[] = [];
  const sign = { added: '+', removed: '-', changed: '~' } as const;
  for (const cluster of diff.clusters) {
    lines.push(`cluster ${cluster.cluster} (${cluster.status})`);
    for (const c of cluster.changes) {
      const id = `${c.kind} ${c.namespace === undefined ? '' : `${c.namespace}/`}${c.name}`;
      lines.push(
        `  ${sign[c.change]} ${id}${c.fields.length > 0 ? `: ${c.fields.join(', ')}` : ''}`,
      );
    }
  }
  for (const danger of diff.dangers) {
    lines.push(
      `danger ${danger.code} (cluster ${danger.cluster}): ${danger.message}`,
      `  hint: ${danger.hint}`,
    );
  }
  for (const note of diff.installTimeOnly) {
    lines.push(
      `note ${note.code} (cluster ${note.cluster}): ${note.message}`,
      `  hint: ${note.hint}`,
    );
  }
  const installTime = diff.installTimeOnly.length;
  lines.push(
    `${String(diff.clusters.length)} cluster(s) changed, ${String(diff.dangers.length)} dangerous change(s)${installTime > 0 ? `, ${String(installTime)} install-time-only change(s)` : ''}`,
  );
  return `${lines.join('\n')}\n`;
}

/** Runs `siteforge diff`. */
export async function runDiff(
  args: readonly string[],
  io: CliIo,
  options: DiffOptions,
): Promise<number> {
  const [before, after, ...paths] = args;
  if (before === undefined || after === undefined)
    throw new UsageError('diff needs OLD and NEW (two paths or two git revisions)');
  const sides: Side[] = [];
  for (const side of [before, after]) {
    // Each side is a path when it exists (and no PATHs follow), else a revision.
    if (paths.length === 0 && existsSync(resolve(io.cwd, side))) {
      sides.push(compileSide([side], io.cwd, (file) => file, options));
    } else if (await isRevision(io.cwd, side)) {
      sides.push(await compileRevision(io.cwd, side, paths, options));
    } else {
      throw new UsageError(`${side} is neither an existing path nor a git revision`);
    }
  }
  const [old, next] = sides as [Side, Side];
  if ('problems' in old || 'problems' in next) {
    for (const side of [old, next]) if ('problems' in side) io.stderr(side.problems);
    io.stderr('siteforge: the input is invalid; nothing was compared\n');
    return ExitCode.Invalid;
  }
  const diff = diffFleets(old.clusters, next.clusters);
  io.stdout(formatDiff(diff));
  return diff.dangers.length > 0 ? ExitCode.Dangerous : ExitCode.Ok;
}
