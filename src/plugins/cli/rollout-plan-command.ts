/**
 * `siteforge rollout plan --from REV [--to REV] [REPO] [--policy FILE] [--json]
 * [--include-dangerous] [--limit NAME=VALUE]`: the sites a change between two revisions of a
 * sites repository adds, changes and removes, classified and grouped into waves by the rollout
 * policy (docs/rollout.md).
 *
 * Exit codes: 0 planned, every touched site in a wave; 1 invalid input (a site at either
 * revision, the policy, a limit); 2 usage (options, a revision that names no commit, a folder
 * outside any repository); 3 planned, but some sites are held out of the waves (listed).
 */
import { posix, resolve } from 'node:path';
import { SiteForgeError, UsageError } from '../../shared/errors.js';
import { ExitCode, reportFailure } from '../exit-code.js';
import { GitRepository } from '../git-revision.js';
import { readLimits } from '../limit-options.js';
import { reportIssues } from '../render-fleet.js';
import { RunBudget, UnreadableFileError } from '../run-budget.js';
import { formatPlan } from '../rollout/format-plan.js';
import { planRollout } from '../rollout/plan.js';
import { DEFAULT_POLICY_FILE, parseRolloutPolicy, RolloutPolicyError } from '../rollout/policy.js';
import type { RolloutPolicy } from '../rollout/policy.js';
import { openRevisions, revisionChanges } from '../rollout/revision-changes.js';
import type { OpenedRevisions } from '../rollout/revision-changes.js';
import type { CliIo } from './cli-io.js';

const USAGE = `Usage: siteforge rollout plan --from REV [--to REV] [REPO] [options]

Plans the rollout of a change to a sites repository: the sites added, changed and removed
between two git revisions (read from git objects, no checkout), each classified as siteforge
diff does (safe, install-time only, rejected by the hub, dangerous), grouped into waves by the
rollout policy. REPO is the folder of the site files in a git work tree (default: the current
folder); the policy is REPO/${DEFAULT_POLICY_FILE} at the target revision.

Options:
  --from REV            the revision the hub runs now (a branch, tag or commit)
  --to REV              the revision to roll out (default: HEAD)
  --policy FILE         read the policy from FILE on disk instead
  --json                print the plan as JSON (the contract of siteforge rollout run)
  --include-dangerous   put dangerous changes (renamed clusters or hosts, hosts dropped without
                        remove: true) in the waves instead of holding them; changes the hub
                        rejects are always held
  --validate-all        also validate the sites the change cannot affect (by default the plan
                        validates the changed sites and those that read a changed file or share
                        a name or MAC with one; the others are as valid as at --from)
  --limit NAME=N        raise a limit of the run (README, "Limits"); also SITEFORGE_LIMIT_<NAME>
  -h, --help            show this help

Exit codes: 0 planned, 1 invalid input, 2 usage error, 3 planned with sites held out of the waves.
`;

interface PlanArgs {
  from: string | undefined;
  to: string;
  repo: string;
  policy: string | undefined;
  json: boolean;
  includeDangerous: boolean;
  validateAll: boolean;
  limits: string[];
}

/** Runs `siteforge rollout plan ...` (argv after `plan`). Never throws. */
export async function runRolloutPlanCommand(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    if (argv.includes('-h') || argv.includes('--help')) {
      io.stdout(USAGE);
      return ExitCode.Ok;
    }
    return await plan(parsePlanArgs(argv), io);
  } catch (err) {
    if (err instanceof RolloutPolicyError) {
      io.stderr(reportIssues(err.issues, false).text);
      io.stderr('siteforge: the rollout policy is invalid; nothing was planned\n');
      return ExitCode.Invalid;
    }
    return reportFailure(err, io, "Run 'siteforge rollout plan --help' for usage.");
  }
}

function parsePlanArgs(argv: readonly string[]): PlanArgs {
  const args: PlanArgs = {
    from: undefined,
    to: 'HEAD',
    repo: '.',
    policy: undefined,
    json: false,
    includeDangerous: false,
    validateAll: false,
    limits: [],
  };
  let repo: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (name: string): string => {
      const v = arg.startsWith(`${name}=`) ? arg.slice(name.length + 1) : argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${name} needs a value`);
      return v;
    };
    const is = (name: string): boolean => arg === name || arg.startsWith(`${name}=`);
    if (is('--from')) args.from = value('--from');
    else if (is('--to')) args.to = value('--to');
    else if (is('--policy')) args.policy = value('--policy');
    else if (is('--limit')) args.limits.push(value('--limit'));
    else if (arg === '--json') args.json = true;
    else if (arg === '--include-dangerous') args.includeDangerous = true;
    else if (arg === '--validate-all') args.validateAll = true;
    else if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
    else if (repo === undefined) repo = arg;
    else throw new UsageError(`rollout plan takes one REPO folder; ${arg} is one too many`);
  }
  if (args.from === undefined)
    throw new UsageError('rollout plan needs --from REV (the revision the hub runs now)');
  if (repo !== undefined) args.repo = repo;
  return args;
}

async function plan(args: PlanArgs, io: CliIo): Promise<number> {
  const budget = new RunBudget(readLimits(io.env ?? process.env, args.limits), io.now);
  const repository = await GitRepository.open(resolve(io.cwd, args.repo));
  const opened = await openRevisions(
    repository,
    { from: args.from!, to: args.to },
    repository.scope,
    budget,
  );
  const policy = readPolicy(args, io, opened, budget);
  const changes = revisionChanges(opened, budget, { validateAll: args.validateAll });
  if ('invalid' in changes) {
    const errors = changes.issues.filter((i) => i.severity === 'error');
    io.stderr(reportIssues(errors, false).text);
    io.stderr(
      `siteforge: ${String(errors.length)} error(s) in the sites at ${changes.invalid.revision}; nothing was planned\n`,
    );
    return ExitCode.Invalid;
  }
  const result = planRollout(
    {
      from: changes.from,
      to: changes.to,
      path: opened.scope,
      sites: changes.sites,
      fleetSize: changes.fleetSize,
      includeDangerous: args.includeDangerous,
    },
    policy,
  );
  io.stdout(args.json ? `${JSON.stringify(result, null, 2)}\n` : formatPlan(result));
  return result.summary.held > 0 ? ExitCode.Dangerous : ExitCode.Ok;
}

/**
 * The policy: `--policy FILE` from disk, else `rollout-policy.yaml` in the folder of the site
 * files at the target revision.
 */
function readPolicy(
  args: PlanArgs,
  io: CliIo,
  opened: OpenedRevisions,
  budget: RunBudget,
): RolloutPolicy {
  if (args.policy !== undefined) {
    let text: string;
    try {
      text = budget.readText(resolve(io.cwd, args.policy), args.policy);
    } catch (err) {
      if (!(err instanceof UnreadableFileError)) throw err;
      throw new UsageError(`--policy ${args.policy}: cannot read the file (${err.reason})`);
    }
    return parseRolloutPolicy(args.policy, text, budget.limits);
  }
  const path = posix.join(opened.scope, DEFAULT_POLICY_FILE);
  const text = opened.toTree.siteFiles(budget).readText(path);
  if (text === undefined)
    throw new SiteForgeError(
      'ROLLOUT_POLICY_MISSING',
      `${opened.toTree.name(path)}: no rollout policy; a plan needs one\n  hint: commit ${path} (docs/rollout.md; the smallest is "apiVersion: siteforge.io/v1alpha1\\nkind: RolloutPolicy\\nspec: {}", every default), or name one with --policy FILE`,
    );
  return parseRolloutPolicy(opened.toTree.name(path), text, budget.limits);
}
