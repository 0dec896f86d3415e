/**
 * `siteforge rollout run|pause|resume|abort|status`: drives a rollout plan against a hub and
 * steers it. The state lives in the hub (a Rollout object), so every subcommand can run from
 * any machine with the kubeconfig, and `run` picks up a rollout where a crashed runner left it.
 * Progress goes to stderr as lines a person reads; `status` prints to stdout (or JSON).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { systemRuntimeClock } from '../../bmac/runtime/runtime-clock.js';
import {
  ClientNodeKubeClient,
  ClientNodeLeaseClient,
  ClientNodeRuntimeKubeClient,
} from '../../kube/index.js';
import { ArgoCdTarget } from '../../rollout/argocd-target.js';
import { specFromPlan } from '../../rollout/plan-spec.js';
import { initialStatus, step } from '../../rollout/progress.js';
import {
  isFinished,
  RolloutPhase,
  SyncStrategy,
  TargetMode,
  WavePhase,
} from '../../rollout/rollout-resource.js';
import type {
  Rollout,
  RolloutSpec,
  RolloutStatus,
  Target,
} from '../../rollout/rollout-resource.js';
import { isConflict, RolloutStore } from '../../rollout/rollout-store.js';
import { canonical, RolloutHeldError, runRollout } from '../../rollout/runner.js';
import { HubSiteObserver } from '../../rollout/site-observer.js';
import type { RolloutTarget } from '../../rollout/target.js';
import { SiteForgeError, UsageError } from '../../shared/errors.js';
import { createLogger } from '../../shared/logger.js';
import { ExitCode, reportFailure } from '../exit-code.js';
import { fsSecretSource } from '../fs-secret-source.js';
import { readLimits } from '../limit-options.js';
import { ApplyTarget } from '../rollout-apply-target.js';
import type { CliIo } from './cli-io.js';
import { reportHubFailure } from './hub-failure.js';

const USAGE = `Usage: siteforge rollout <command> [options]

Commands:
  plan --from REV [--to REV] [REPO]
                     plan the rollout of a change between two git revisions of the sites
                     repository (siteforge rollout plan --help); --json writes PLAN.json
  run PLAN.json --name NAME --target argocd|apply [options]
                     create the Rollout NAME on the hub from a plan (siteforge rollout plan
                     --json) and drive it until it succeeds, a gate fails or it is aborted
  run --name NAME    drive an existing Rollout (after a crash, on another machine)
  pause NAME         release no more sites (released sites carry on)
  resume NAME        release again; after a failed gate, give the wave another try
  abort NAME         end the rollout: nothing more is released, nothing is deleted
  status NAME        waves, counts and failures (--json: the Rollout's status)

Options:
  --kubeconfig FILE       the hub (default: $KUBECONFIG, ~/.kube/config)
  -n, --namespace NS      namespace of the Rollout and its Lease (default: default)
  --target argocd|apply   run: argocd writes the fleet's Applications (sites selection, sync
                          operations); apply applies the sites' objects as siteforge apply
  --argocd-namespace NS   argocd: namespace of the Applications (default: argocd)
  --app NAME              argocd: an Application of the fleet; repeatable (default: every
                          Application in --argocd-namespace that uses the siteforge plugin)
  --sync-strategy operation|selection
                          argocd: operation (Applications without automated sync: each wave
                          is a sync operation of its sites) or selection (automated sync: only
                          additions are gated); default: operation unless an Application
                          syncs automatically
  --repo DIR              apply: a folder in the sites' git repository (default: .)
  --path DIR              apply: folder of the site files in the repository (default: the
                          plan's path, else the repository root)
  --secrets-dir DIR       apply: fromDirectory credentials (default: $SITEFORGE_SECRETS_DIR)
  --poll-interval SECONDS how often the runner looks at the sites (default 10)
  --lease-duration SECONDS
                          how long a dead runner keeps the rollout (default 15)
  --json                  status: print the Rollout (spec and status) as JSON
  -h, --help              show this help

Exit codes: 0 succeeded (status: found), 1 gate failed, aborted or invalid, 2 usage error,
3 hub unreachable, 4 another runner drives the rollout.
`;

/** Another runner holds the rollout. */
const HELD = 4;

interface Args {
  command: string | undefined;
  positional: string[];
  kubeconfig?: string;
  namespace: string;
  name?: string;
  target?: 'argocd' | 'apply';
  argocdNamespace: string;
  apps: string[];
  syncStrategy?: SyncStrategy;
  repo: string;
  path?: string;
  secretsDir?: string;
  pollSeconds: number;
  leaseSeconds: number;
  json: boolean;
  help: boolean;
}

function parse(argv: readonly string[]): Args {
  const args: Args = {
    command: undefined,
    positional: [],
    namespace: 'default',
    argocdNamespace: 'argocd',
    apps: [],
    repo: '.',
    pollSeconds: 10,
    leaseSeconds: 15,
    json: false,
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      const v = arg.startsWith('--') && eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${flag} needs a value`);
      return v;
    };
    const seconds = (): number => {
      const v = Number(value());
      if (!Number.isFinite(v) || v <= 0)
        throw new UsageError(`${flag} needs a number of seconds above 0`);
      return v;
    };
    switch (flag) {
      case '-h':
      case '--help':
        args.help = true;
        break;
      case '--json':
        args.json = true;
        break;
      case '--kubeconfig':
        args.kubeconfig = value();
        break;
      case '-n':
      case '--namespace':
        args.namespace = value();
        break;
      case '--name':
        args.name = value();
        break;
      case '--target': {
        const v = value();
        if (v !== 'argocd' && v !== 'apply') throw new UsageError('--target needs argocd or apply');
        args.target = v;
        break;
      }
      case '--argocd-namespace':
        args.argocdNamespace = value();
        break;
      case '--app':
        args.apps.push(value());
        break;
      case '--sync-strategy': {
        const v = value();
        if (v !== 'operation' && v !== 'selection')
          throw new UsageError('--sync-strategy needs operation or selection');
        args.syncStrategy = v === 'operation' ? SyncStrategy.Operation : SyncStrategy.Selection;
        break;
      }
      case '--repo':
        args.repo = value();
        break;
      case '--path':
        args.path = value();
        break;
      case '--secrets-dir':
        args.secretsDir = value();
        break;
      case '--poll-interval':
        args.pollSeconds = seconds();
        break;
      case '--lease-duration': {
        args.leaseSeconds = seconds();
        if (!Number.isInteger(args.leaseSeconds) || args.leaseSeconds < 3)
          throw new UsageError('--lease-duration needs whole seconds, at least 3');
        break;
      }
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
        if (args.command === undefined) args.command = arg;
        else args.positional.push(arg);
    }
  }
  return args;
}

/** Hub clients of one command. */
interface Hub {
  readonly runtime: ClientNodeRuntimeKubeClient;
  readonly store: RolloutStore;
}

function connect(args: Args): Hub {
  const runtime = ClientNodeRuntimeKubeClient.fromKubeconfig(args.kubeconfig);
  return { runtime, store: new RolloutStore(runtime) };
}

/** Runs `siteforge rollout ...`; returns the exit code. */
export async function runRolloutCommand(argv: readonly string[], io: CliIo): Promise<number> {
  let args: Args;
  try {
    args = parse(argv);
  } catch (err) {
    return reportFailure(err, io, USAGE_HINT);
  }
  if (args.help || args.command === undefined) {
    (args.help ? io.stdout : io.stderr)(USAGE);
    return args.help ? ExitCode.Ok : ExitCode.Usage;
  }
  try {
    switch (args.command) {
      case 'run':
        return await run(args, io);
      case 'pause':
      case 'resume':
      case 'abort':
        return await steer(args.command, args, io);
      case 'status':
        return await status(args, io);
      default:
        throw new UsageError(`unknown rollout command "${args.command}"`);
    }
  } catch (err) {
    const hubFailure = reportHubFailure(err, io);
    if (hubFailure !== undefined) return hubFailure;
    if (err instanceof RolloutHeldError) {
      io.stderr(`siteforge: ${err.message}\n`);
      return HELD;
    }
    if (err instanceof SiteForgeError) return reportFailure(err, io, USAGE_HINT);
    throw err;
  }
}

/** What a usage error ends with: this command's own help, not the whole CLI's. */
const USAGE_HINT = "Run 'siteforge rollout --help' for usage.";

function nameOf(args: Args): string {
  const name = args.name ?? args.positional[0];
  if (name === undefined)
    throw new UsageError(`rollout ${String(args.command)} needs the name of a Rollout`);
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) || name.length > 200)
    throw new UsageError(
      `${JSON.stringify(name.slice(0, 80))} is not a valid Rollout name (lower-case letters, digits, '-', '.')`,
    );
  return name;
}

async function run(args: Args, io: CliIo): Promise<number> {
  const planFile = args.name === undefined ? undefined : args.positional[0];
  if (args.name === undefined)
    throw new UsageError(
      'rollout run needs --name NAME (and the plan file, to create the Rollout)',
    );
  const name = nameOf(args);
  if (args.positional.length > 1) throw new UsageError('rollout run takes one plan file');
  // The plan is read and checked before anything talks to the hub.
  const plan = planFile === undefined ? undefined : readPlan(planFile, args, io);
  const hub = connect(args);
  let rollout = await hub.store.get(args.namespace, name);
  if (planFile !== undefined) {
    const { spec, notes } = await specFromFile(planFile, plan, args, hub);
    if (notes.held.length > 0)
      io.stderr(
        `note: the plan holds ${String(notes.held.length)} site(s) out of its waves; this rollout does not touch them: ${notes.held
          .slice(0, 10)
          .map((h) => `${h.name} (${h.message})`)
          .join('; ')}${notes.held.length > 10 ? '; ...' : ''}\n`,
      );
    if (rollout === undefined) {
      rollout = await hub.store.create({ namespace: args.namespace, name, spec });
      io.stderr(
        `rollout ${args.namespace}/${name}: created from ${planFile} (${describePlan(spec)})\n`,
      );
    } else if (!samePlan(rollout.spec, spec)) {
      throw new UsageError(
        `Rollout ${args.namespace}/${name} exists with another plan; give the new plan another --name, or run without a plan file to drive the existing one`,
      );
    } else {
      io.stderr(`rollout ${args.namespace}/${name}: exists with this plan; resuming it\n`);
    }
  } else if (rollout === undefined) {
    throw new UsageError(
      `there is no Rollout ${args.namespace}/${name}; give the plan file to create it`,
    );
  }
  if (isFinished(rollout.status?.phase ?? RolloutPhase.Pending)) {
    io.stderr(`rollout ${args.namespace}/${name}: already ${String(rollout.status?.phase)}\n`);
    printReport(rollout, io.stderr);
    return rollout.status?.phase === RolloutPhase.Succeeded ? ExitCode.Ok : ExitCode.Invalid;
  }

  const log = createLogger({ level: (io.env ?? process.env)['SITEFORGE_LOG_LEVEL'] ?? 'error' });
  const target = targetOf(rollout.spec, args, io, hub, log);
  const identity = `${hostname()}_${String(process.pid)}_${randomBytes(4).toString('hex')}`;
  const stop = new AbortController();
  const onSignal = (): void => {
    stop.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // The runtime's timers do not keep a process alive (a controller has its servers for that);
  // the runner's waits must.
  const keepAlive = setInterval(() => undefined, 60_000);
  io.stderr(`rollout ${args.namespace}/${name}: waiting for its lease (runner ${identity})\n`);
  try {
    const outcome = await runRollout({
      namespace: args.namespace,
      name,
      store: hub.store,
      leases: ClientNodeLeaseClient.fromKubeconfig(args.kubeconfig, { requestTimeoutMs: 5_000 }),
      target,
      observer: new HubSiteObserver({ client: hub.runtime, clock: systemRuntimeClock, log }),
      identity,
      clock: systemRuntimeClock,
      log,
      pollIntervalMs: args.pollSeconds * 1000,
      lease: {
        leaseDurationMs: args.leaseSeconds * 1000,
        renewDeadlineMs: Math.round(args.leaseSeconds * 1000 * (2 / 3)),
        retryPeriodMs: Math.max(500, Math.round((args.leaseSeconds * 1000) / 7.5)),
      },
      signal: stop.signal,
      onPrepared: (p) => {
        if (p.syncStrategy !== undefined)
          io.stderr(`rollout ${args.namespace}/${name}: Argo CD sync strategy ${p.syncStrategy}\n`);
        for (const note of p.notes) io.stderr(`note: ${note}\n`);
      },
      onStatus: (r, previous) => {
        printProgress(r, previous, io.stderr);
      },
    });
    if (outcome.kind === 'stopped') {
      io.stderr(
        `rollout ${args.namespace}/${name}: runner stopped; siteforge rollout run --name ${name} resumes it\n`,
      );
      return ExitCode.Invalid;
    }
    printReport(outcome.rollout, io.stderr);
    return outcome.rollout.status?.phase === RolloutPhase.Succeeded
      ? ExitCode.Ok
      : ExitCode.Invalid;
  } finally {
    clearInterval(keepAlive);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

/**
 * The plan file as JSON, checked as a plan (with a stand-in target: the real one may need the
 * hub); usage errors for a file that is missing, too large or not JSON (at its line and column).
 */
function readPlan(file: string, args: Args, io: CliIo): unknown {
  const path = resolve(io.cwd, file);
  let text: string;
  try {
    if (statSync(path).size > 64 * 1024 * 1024)
      throw new UsageError(`${file}: over 64 MiB; not a plan`);
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(
      `${file}: cannot read the plan (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new UsageError(
      `${jsonErrorPlace(file, text, message)}: not JSON (${message.replace(/\s+/g, ' ')}); write it with siteforge rollout plan --json`,
    );
  }
  if (args.target === undefined)
    throw new UsageError('rollout run needs --target argocd or --target apply');
  specFromPlan(file, json, { mode: TargetMode.Apply, apply: { path: '.' } });
  return json;
}

/**
 * `file:line:column` of a JSON syntax error: from the position JSON.parse names, else from a
 * YAML parse of the same text (JSON is YAML), else the file alone.
 */
function jsonErrorPlace(file: string, text: string, message: string): string {
  const position = /at position (\d+)/.exec(message);
  let offset: number | undefined = position ? Number(position[1]) : undefined;
  // The YAML parse is bounded: past 8 MiB, the file alone is named.
  if (offset === undefined && text.length <= 8 * 1024 * 1024)
    offset = parseDocument(text).errors[0]?.pos[0];
  if (offset === undefined) return file;
  const before = text.slice(0, offset).split('\n');
  return `${file}:${String(before.length)}:${String(before[before.length - 1]!.length + 1)}`;
}

/** The spec of a plan (read by readPlan), with the target chosen on the command line. */
async function specFromFile(
  file: string,
  json: unknown,
  args: Args,
  hub: Hub,
): Promise<ReturnType<typeof specFromPlan>> {
  let target: Target;
  if (args.target === 'apply') {
    const planPath =
      typeof json === 'object' &&
      json !== null &&
      typeof (json as Record<string, unknown>)['path'] === 'string'
        ? ((json as Record<string, unknown>)['path'] as string)
        : undefined;
    target = { mode: TargetMode.Apply, apply: { path: args.path ?? planPath ?? '.' } };
  } else {
    const applications =
      args.apps.length > 0
        ? args.apps
        : await ArgoCdTarget.fleetApplications(hub.runtime, args.argocdNamespace);
    if (applications.length === 0)
      throw new UsageError(
        `no Application in namespace ${args.argocdNamespace} uses the siteforge plugin; name them with --app, or use --target apply`,
      );
    target = {
      mode: TargetMode.ArgoCd,
      argocd: {
        namespace: args.argocdNamespace,
        applications,
        ...(args.syncStrategy !== undefined && { syncStrategy: args.syncStrategy }),
      },
    };
  }
  return specFromPlan(file, json, target);
}

function targetOf(
  spec: RolloutSpec,
  args: Args,
  io: CliIo,
  hub: Hub,
  log: ReturnType<typeof createLogger>,
): RolloutTarget {
  if (spec.target.mode === TargetMode.ArgoCd)
    return new ArgoCdTarget({ client: hub.runtime, clock: systemRuntimeClock, log });
  const client = ClientNodeKubeClient.fromKubeconfig(
    args.kubeconfig === undefined ? {} : { kubeconfig: args.kubeconfig },
  );
  const env = io.env ?? process.env;
  const secretsDir = args.secretsDir ?? env['SITEFORGE_SECRETS_DIR'];
  return new ApplyTarget({
    client,
    repository: resolve(io.cwd, args.repo),
    limits: readLimits(env),
    ...(secretsDir !== undefined && {
      secrets: (_root: string, budget) => fsSecretSource(resolve(io.cwd, secretsDir), budget),
    }),
    log,
  });
}

/** Whether two specs are the same plan (the operator's switches aside). */
function samePlan(a: RolloutSpec, b: RolloutSpec): boolean {
  const plan = (s: RolloutSpec): string => canonical({ ...s, paused: false, abort: false });
  return plan(a) === plan(b);
}

function describePlan(spec: RolloutSpec): string {
  const sites = spec.waves.reduce((n, w) => n + w.sites.length, 0);
  return `${String(spec.waves.length)} wave(s), ${String(sites)} site(s), ${spec.from.revision} → ${spec.to.revision}, target ${spec.target.mode}`;
}

/** pause, resume, abort: a change of the Rollout, written with its resourceVersion. */
async function steer(
  command: 'pause' | 'resume' | 'abort',
  args: Args,
  io: CliIo,
): Promise<number> {
  const name = nameOf(args);
  const hub = connect(args);
  for (let attempt = 0; attempt < 10; attempt++) {
    const rollout = await hub.store.get(args.namespace, name);
    if (rollout === undefined)
      throw new UsageError(`there is no Rollout ${args.namespace}/${name}`);
    const phase = rollout.status?.phase ?? RolloutPhase.Pending;
    try {
      if (command === 'pause') {
        if (isFinished(phase))
          throw new UsageError(`rollout ${name} is ${phase}; there is nothing to pause`);
        if (!rollout.spec.paused)
          await hub.store.updateSpec(rollout, { ...rollout.spec, paused: true });
        io.stderr(
          `rollout ${args.namespace}/${name}: paused; no more sites are released (released sites carry on)\n`,
        );
        return ExitCode.Ok;
      }
      if (command === 'abort') {
        if (isFinished(phase)) throw new UsageError(`rollout ${name} is ${phase} already`);
        let updated = rollout;
        if (!rollout.spec.abort)
          updated = await hub.store.updateSpec(rollout, { ...rollout.spec, abort: true });
        // A runner finishes the abort at its next step; without one, this does.
        const aborted = step(
          updated.spec,
          updated.status ?? initialStatus(updated.spec),
          () => {
            throw new Error('an abort observes no site');
          },
          Date.now(),
        ).status;
        await hub.store.updateStatus(updated, aborted).catch((err: unknown) => {
          if (!isConflict(err)) throw err;
        });
        io.stderr(
          `rollout ${args.namespace}/${name}: aborted; nothing more is released. Released sites were not touched${rollout.spec.target.mode === TargetMode.ArgoCd ? '; sites never released stay held back in the Applications' : ''}\n`,
        );
        return ExitCode.Ok;
      }
      // resume
      if (phase === RolloutPhase.Aborted || phase === RolloutPhase.Succeeded)
        throw new UsageError(`rollout ${name} is ${phase}; it cannot resume (plan a new rollout)`);
      let updated = rollout;
      if (rollout.spec.paused)
        updated = await hub.store.updateSpec(rollout, { ...rollout.spec, paused: false });
      if (phase === RolloutPhase.Failed && updated.status) {
        await hub.store.updateStatus(updated, retryGate(updated.status, new Date().toISOString()));
        io.stderr(
          `rollout ${args.namespace}/${name}: the failed wave gets another try (its gate timeout starts again); start a runner: siteforge rollout run --name ${name}\n`,
        );
      } else io.stderr(`rollout ${args.namespace}/${name}: resumed\n`);
      return ExitCode.Ok;
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
  throw new SiteForgeError(
    'ROLLOUT_BUSY',
    `rollout ${name} kept changing while it was being updated; try again`,
  );
}

/** The status of a failed rollout with its failed wave under way again. */
function retryGate(status: RolloutStatus, now: string): RolloutStatus {
  const waves = status.waves.map((w, i) =>
    i !== status.currentWave || w.phase !== WavePhase.Failed
      ? w
      : {
          ...withoutFinish(w),
          phase: WavePhase.Progressing,
          releasedAllAt: now,
          message: 'gate retried',
        },
  );
  return {
    ...withoutFinish(status),
    phase: RolloutPhase.Progressing,
    message: 'gate retried',
    waves,
  };
}

/** A copy without `finishedAt`. */
function withoutFinish<T extends { readonly finishedAt?: string }>(value: T): T {
  const copy: Record<string, unknown> = { ...value };
  delete copy['finishedAt'];
  return copy as T;
}

async function status(args: Args, io: CliIo): Promise<number> {
  const name = nameOf(args);
  const rollout = await connect(args).store.get(args.namespace, name);
  if (rollout === undefined) throw new UsageError(`there is no Rollout ${args.namespace}/${name}`);
  if (args.json) {
    io.stdout(
      `${JSON.stringify({ spec: rollout.spec, status: rollout.status ?? null }, null, 2)}\n`,
    );
    return ExitCode.Ok;
  }
  io.stdout(formatStatus(rollout));
  return ExitCode.Ok;
}

/** The table of `siteforge rollout status`. */
export function formatStatus(rollout: Rollout): string {
  const s = rollout.status ?? initialStatus(rollout.spec);
  const lines = [
    `Rollout ${rollout.namespace}/${rollout.name}: ${s.phase}${rollout.spec.paused && s.phase !== RolloutPhase.Paused ? ' (pause requested)' : ''}`,
    `  ${rollout.spec.from.revision} (${rollout.spec.from.commit.slice(0, 12)}) → ${rollout.spec.to.revision} (${rollout.spec.to.commit.slice(0, 12)}), target ${rollout.spec.target.mode}${s.syncStrategy ? ` (${s.syncStrategy})` : ''}, max in flight ${rollout.spec.maxInFlight === undefined ? 'per wave' : String(rollout.spec.maxInFlight)}${rollout.spec.pacing ? `, ${String(rollout.spec.pacing.sitesPerHour)} sites/h` : ''}`,
  ];
  if (s.message) lines.push(`  ${s.message}`);
  const rows = [['WAVE', 'PHASE', 'SITES', 'RELEASED', 'INSTALLED', 'FAILED', 'IN PROGRESS']];
  rollout.spec.waves.forEach((w, i) => {
    const ws = s.waves[i];
    rows.push([
      w.name,
      ws?.phase ?? WavePhase.Pending,
      String(w.sites.length),
      String(ws?.released ?? 0),
      String(ws?.installed ?? 0),
      String(ws?.failed ?? 0),
      String(ws?.inProgress ?? 0),
    ]);
  });
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows)
    lines.push(
      r
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join('  ')
        .trimEnd(),
    );
  for (const ws of s.waves) for (const f of ws.failures) lines.push(`  ${failureLine(ws.name, f)}`);
  return `${lines.join('\n')}\n`;
}

function failureLine(wave: string, f: RolloutStatus['waves'][number]['failures'][number]): string {
  const where = [f.object, f.condition, f.reason]
    .filter((x) => x !== undefined && x !== '')
    .join(' ');
  const line = `wave ${wave}: site ${f.site} (${f.state})${where ? `: ${where}` : ''}${f.message ? `: ${f.message}` : ''}`;
  return f.hint ? `${line}\n    hint: ${f.hint}` : line;
}

/** Lines for what changed between two statuses. */
function printProgress(
  rollout: Rollout,
  previous: RolloutStatus | undefined,
  out: (t: string) => void,
): void {
  const s = rollout.status;
  if (!s) return;
  const key = `${rollout.namespace}/${rollout.name}`;
  s.waves.forEach((ws, i) => {
    const before = previous?.waves[i];
    const total = rollout.spec.waves[i]?.sites.length ?? 0;
    if (ws.released !== (before?.released ?? 0))
      out(`wave ${ws.name}: released ${String(ws.released)}/${String(total)}\n`);
    if (
      ws.phase !== before?.phase &&
      ws.phase !== WavePhase.Pending &&
      ws.phase !== WavePhase.Progressing
    )
      out(`wave ${ws.name}: ${ws.phase.toLowerCase()}${ws.message ? ` (${ws.message})` : ''}\n`);
    else if (
      ws.phase === WavePhase.Progressing &&
      (ws.installed !== before?.installed || ws.failed !== before.failed)
    )
      out(
        `wave ${ws.name}: ${String(ws.installed)}/${String(total)} installed, ${String(ws.failed)} failed, ${String(ws.inProgress)} in progress\n`,
      );
  });
  if (s.phase !== previous?.phase) out(`rollout ${key}: ${s.phase}\n`);
}

/** The closing report of a run: the outcome, and every failure with its condition message. */
function printReport(rollout: Rollout, out: (t: string) => void): void {
  const s = rollout.status;
  if (!s) return;
  out(`rollout ${rollout.namespace}/${rollout.name}: ${s.phase}: ${s.message ?? ''}\n`);
  for (const ws of s.waves) for (const f of ws.failures) out(`  ${failureLine(ws.name, f)}\n`);
  if (s.phase === RolloutPhase.Failed)
    out(
      `  hint: fix or reinstall the failed sites, then siteforge rollout resume ${rollout.name} (and run again); or siteforge rollout abort ${rollout.name}\n`,
    );
}
