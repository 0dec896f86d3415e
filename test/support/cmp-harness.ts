/**
 * A stand-in for argocd-cmp-server, driven by the plugin.yaml users install, reproducing what the
 * real server does with a request (reference/argocd-cdk8s-scale.md §1.2-§1.6):
 *
 * - the repository root is packed as a gzip tarball (without `.git`, as with the recommended
 *   `--plugin-tar-exclude=.git/*`) and unpacked into a fresh `_cmp_server/<uuid>` directory, file
 *   modes reset to 0644 (no `preserveFileMode`);
 * - commands run with cwd = the app path, the sidecar's env plus the build environment
 *   (ARGOCD_APP_*, KUBE_*, ARGOCD_ENV_*, ARGOCD_APP_PARAMETERS, PARAM_*), as user 999 when the
 *   tests run as root;
 * - a named plugin with discovery must match first (its own tarball), then init and generate run
 *   under one 60 s request deadline (minus the server's 100 ms buffer);
 * - stdout is decoded as a YAML or JSON stream: empty and null documents skipped, every object
 *   needs a `kind`, `kind: List` is expanded; a failure reads like Argo CD's CmdError.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from './sites.js';

/** Where the plugin.yaml of this repository lives (the file the image bakes in). */
export const pluginYamlPath = join(repoRoot, 'src', 'plugins', 'argocd', 'plugin.yaml');

/** `{command, args}` of plugin.yaml. */
export interface PluginCommand {
  readonly command: readonly string[];
  readonly args?: readonly string[];
}

/** The fields of a ConfigManagementPlugin that argocd-cmp-server reads (cmpserver/plugin/config.go). */
export interface PluginConfig {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly version?: string;
    readonly init?: PluginCommand;
    readonly generate: PluginCommand;
    readonly discover?: {
      readonly fileName?: string;
      /** `command`/`args` are inlined here (config.go `Find`), unlike generate's. */
      readonly find?: {
        readonly glob?: string;
        readonly command?: readonly string[];
        readonly args?: readonly string[];
      };
    };
    readonly parameters?: { readonly static?: unknown[]; readonly dynamic?: PluginCommand };
    readonly preserveFileMode?: boolean;
    readonly provideGitCreds?: boolean;
  };
}

/** Reads and validates plugin.yaml the way the server does at start-up. */
export function loadPluginConfig(path = pluginYamlPath): PluginConfig {
  const config = parse(readFileSync(path, 'utf8')) as PluginConfig;
  if (config.kind !== 'ConfigManagementPlugin')
    throw new Error(`invalid plugin configuration file. kind should be ConfigManagementPlugin`);
  if (!config.metadata.name) throw new Error('metadata.name should be non-empty');
  if (config.spec.generate.command.length === 0)
    throw new Error('spec.generate command should be non-empty');
  return config;
}

/** The name Applications use and the socket name (config.go Address()). */
export function pluginAddress(config: PluginConfig): { name: string; socket: string } {
  const name = config.spec.version
    ? `${config.metadata.name}-${config.spec.version}`
    : config.metadata.name;
  return { name, socket: `/home/argocd/cmp-server/plugins/${name}.sock` };
}

/** One `spec.source.plugin.parameters[]` entry of an Application. */
export type AppParameter =
  | { readonly name: string; readonly string: string }
  | { readonly name: string; readonly array: readonly string[] }
  | { readonly name: string; readonly map: Readonly<Record<string, string>> };

/** The Application's `spec.source` as far as the plugin sees it. */
export interface CmpRequest {
  /** The repository checkout (its `.git` is never sent). */
  readonly repoDir: string;
  /** `spec.source.path`. */
  readonly appPath: string;
  /** `spec.source.plugin.name`; undefined = discovery among plugins. @default the plugin's address */
  readonly pluginName?: string | null;
  /** `spec.source.plugin.env`. */
  readonly env?: readonly { readonly name: string; readonly value: string }[];
  /** `spec.source.plugin.parameters`. */
  readonly parameters?: readonly AppParameter[];
  /** @default 60_000 */
  readonly deadlineMs?: number;
}

/** What one command did. */
export interface CommandRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** The outcome of a GenerateManifest request. */
export interface GenerateResult {
  /** Whether Argo CD would have found the plugin for this app (named + discovery). */
  readonly matched: boolean;
  readonly generate?: CommandRun;
  /** The manifests as the repo-server receives them; undefined on error. */
  readonly manifests?: Record<string, unknown>[];
  /** The error as Argo CD would put it in the Application's conditions. */
  readonly error?: string;
  readonly durationMs: number;
  /** Files the commands left in the unpacked copy, relative to its root (none expected). */
  readonly leftovers: string[];
}

/** The uid/gid the sidecar runs as (`runAsUser: 999`). */
export const SIDECAR_UID = 999;
/** Whether the harness can switch to the sidecar's user (it needs root). */
export const canRunAsSidecarUser = process.getuid?.() === 0;

/** A sidecar: its own workdir (its /tmp) with `siteforge` on PATH, as in the image. */
export class CmpSidecar {
  readonly config: PluginConfig;
  private readonly workdir: string;
  private readonly binDir: string;

  /**
   * @param containerEnv the sidecar container's own environment (the Deployment's `env`),
   *   which argocd-cmp-server passes on to the plugin commands.
   */
  constructor(
    configPath = pluginYamlPath,
    private readonly containerEnv: Readonly<Record<string, string>> = {},
  ) {
    this.config = loadPluginConfig(configPath);
    this.workdir = mkdtempSync(join(tmpdir(), 'siteforge-cmp-'));
    chmodSync(this.workdir, 0o755);
    this.binDir = join(this.workdir, 'bin');
    mkdirSync(this.binDir);
    symlinkSync(join(repoRoot, 'bin', 'siteforge.js'), join(this.binDir, 'siteforge'));
  }

  /** Removes the sidecar's workdir. */
  close(): void {
    rmSync(this.workdir, { recursive: true, force: true });
  }

  /** MatchRepository + GenerateManifest, as the repo-server drives them. */
  generate(request: CmpRequest): GenerateResult {
    const start = Date.now();
    const deadline = start + (request.deadlineMs ?? 60_000) - 100;
    const address = pluginAddress(this.config).name;
    const named = request.pluginName !== null;
    const notFound = (error: string): GenerateResult => ({
      matched: false,
      error,
      durationMs: Date.now() - start,
      leftovers: [],
    });
    if (named && (request.pluginName ?? address) !== address)
      return notFound(
        `could not find cmp-server plugin with name "${String(request.pluginName)}" supporting the given repository`,
      );
    // A named plugin without discovery is used directly; otherwise discovery must match.
    if ((this.config.spec.discover || !named) && !this.matchRepository(request, deadline))
      return notFound(
        named
          ? `could not find cmp-server plugin with name "${address}" supporting the given repository`
          : 'could not find plugin supporting the given repository',
      );
    return this.withAppCopy(request, (appDir, root) => {
      const env = { ...this.sidecarEnv(), ...buildEnv(request) };
      const before = listTree(root);
      const fail = (run: CommandRun): GenerateResult => ({
        matched: true,
        generate: run,
        error: cmdError(run),
        durationMs: Date.now() - start,
        leftovers: diffTree(before, listTree(root)),
      });
      if (this.config.spec.init) {
        const init = this.run(this.config.spec.init, appDir, env, deadline);
        if (init.status !== 0) return fail(init);
      }
      const run = this.run(this.config.spec.generate, appDir, env, deadline);
      const leftovers = diffTree(before, listTree(root));
      if (run.status !== 0) return fail(run);
      try {
        return {
          matched: true,
          generate: run,
          manifests: decodeManifests(run.stdout),
          durationMs: Date.now() - start,
          leftovers,
        };
      } catch (err) {
        return {
          matched: true,
          generate: run,
          error: `failed to convert CMP manifests to unstructured objects: ${(err as Error).message}`,
          durationMs: Date.now() - start,
          leftovers,
        };
      }
    });
  }

  /** The discovery probe (MatchRepository): its own copy of the repository. */
  matchRepository(request: CmpRequest, deadline = Date.now() + 60_000): boolean {
    const discover = this.config.spec.discover;
    if (!discover) return false;
    return this.withAppCopy(request, (appDir) => {
      if (discover.fileName !== undefined)
        return readdirSync(appDir).some((f) => globRegExp(discover.fileName!).test(f));
      if (discover.find?.glob !== undefined) {
        const re = globRegExp(discover.find.glob);
        return listTree(appDir).some((f) => re.test(f));
      }
      if (discover.find?.command) {
        const env = { ...this.sidecarEnv(), ...buildEnv(request) };
        const find = { command: discover.find.command, args: discover.find.args ?? [] };
        const run = this.run(find, appDir, env, deadline);
        return run.status === 0 && run.stdout.trim() !== '';
      }
      return false;
    });
  }

  /** GetParametersAnnouncement: the dynamic part (with the reduced env), then the static one. */
  announceParameters(request: CmpRequest): { run?: CommandRun; announcement: unknown[] } {
    const spec = this.config.spec.parameters;
    const statics = spec?.static ?? [];
    if (!spec?.dynamic) return { announcement: statics };
    return this.withAppCopy(request, (appDir) => {
      const full = buildEnv(request);
      const reduced = Object.fromEntries(
        [
          'ARGOCD_APP_NAME',
          'ARGOCD_APP_REVISION',
          'ARGOCD_APP_SOURCE_REPO_URL',
          'ARGOCD_APP_SOURCE_PATH',
          'ARGOCD_APP_SOURCE_TARGET_REVISION',
        ].map((k) => [k, full[k] ?? '']),
      );
      const run = this.run(
        spec.dynamic!,
        appDir,
        { ...this.sidecarEnv(), ...reduced },
        Date.now() + 60_000,
      );
      if (run.status !== 0) throw new Error(cmdError(run));
      const dynamic = JSON.parse(run.stdout) as unknown[];
      return { run, announcement: [...dynamic, ...statics] };
    });
  }

  /** Runs `{command, args}` of plugin.yaml like plugin.go runCommand (no shell). */
  run(cmd: PluginCommand, cwd: string, env: Record<string, string>, deadline: number): CommandRun {
    const argv = [...cmd.command, ...(cmd.args ?? [])];
    const timeout = Math.max(1, deadline - Date.now());
    const result = spawnSync(argv[0]!, argv.slice(1), {
      cwd,
      env,
      encoding: 'utf8',
      timeout,
      killSignal: 'SIGTERM',
      maxBuffer: 100 * 1024 * 1024, // ARGOCD_GRPC_MAX_SIZE_MB
      ...(canRunAsSidecarUser ? { uid: SIDECAR_UID, gid: SIDECAR_UID } : {}),
    });
    const timedOut = (result.error as { code?: string } | undefined)?.code === 'ETIMEDOUT';
    if (result.error && !timedOut) throw result.error;
    return {
      status: timedOut ? null : result.status,
      stdout: result.stdout,
      stderr: timedOut ? `${result.stderr}\ncontext deadline exceeded` : result.stderr,
      timedOut,
    };
  }

  private sidecarEnv(): Record<string, string> {
    return {
      ...this.containerEnv,
      PATH: [this.binDir, dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(
        ':',
      ),
      HOME: this.workdir,
    };
  }

  /** Packs the repository, unpacks it in a fresh dir, runs `fn` in the app dir, cleans up. */
  private withAppCopy<T>(request: CmpRequest, fn: (appDir: string, root: string) => T): T {
    const server = join(this.workdir, '_cmp_server');
    mkdirSync(server, { recursive: true });
    const root = join(server, randomUUID());
    const tarball = `${root}.tgz`;
    mkdirSync(root);
    try {
      const pack = spawnSync('tar', [
        '-czf',
        tarball,
        '--exclude=./.git',
        '-C',
        request.repoDir,
        '.',
      ]);
      if (pack.status !== 0) throw new Error(`tar: ${pack.stderr.toString()}`);
      const unpack = spawnSync('tar', ['-xzf', tarball, '-C', root, '--no-same-owner']);
      if (unpack.status !== 0) throw new Error(`tar: ${unpack.stderr.toString()}`);
      resetModes(root, this.config.spec.preserveFileMode === true);
      const appDir = resolve(root, request.appPath);
      if (relative(root, appDir).startsWith('..'))
        throw new Error('illegal appPath: out of bounds');
      return fn(appDir, root);
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(tarball, { force: true });
    }
  }
}

/** The build environment the repo-server sends (repository.go newEnv + plugin env/params). */
export function buildEnv(request: CmpRequest): Record<string, string> {
  const revision = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
  const env: Record<string, string> = {
    ARGOCD_APP_NAME: 'sites',
    ARGOCD_APP_NAMESPACE: 'sites',
    ARGOCD_APP_PROJECT_NAME: 'siteforge-sites',
    ARGOCD_APP_REVISION: revision,
    ARGOCD_APP_REVISION_SHORT: revision.slice(0, 7),
    ARGOCD_APP_REVISION_SHORT_8: revision.slice(0, 8),
    ARGOCD_APP_SOURCE_REPO_URL: 'https://git.example.com/edge/sites.git',
    ARGOCD_APP_SOURCE_PATH: request.appPath,
    ARGOCD_APP_SOURCE_TARGET_REVISION: 'main',
    KUBE_VERSION: '1.34.4',
    KUBE_API_VERSIONS: 'v1,apps/v1,metal3.io/v1alpha1,hive.openshift.io/v1',
  };
  for (const { name, value } of request.env ?? []) env[`ARGOCD_ENV_${name}`] = value;
  env['ARGOCD_APP_PARAMETERS'] = JSON.stringify(request.parameters ?? null);
  for (const param of request.parameters ?? []) {
    const key = `PARAM_${escapeName(param.name)}`;
    if ('string' in param) env[key] = param.string;
    else if ('array' in param) param.array.forEach((v, i) => (env[`${key}_${String(i)}`] = v));
    else for (const [k, v] of Object.entries(param.map)) env[`${key}_${escapeName(k)}`] = v;
  }
  return env;
}

function escapeName(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}

/** Decodes the plugin's stdout like gitops-engine's SplitYAML (YAML or JSON stream). */
export function decodeManifests(stdout: string): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = [];
  for (const doc of parseAllDocuments(stdout.replace(/\n$/, ''))) {
    if (doc.errors.length > 0) throw new Error(doc.errors[0]!.message);
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value))
      throw new Error('json: cannot unmarshal into Go value of type map[string]interface {}');
    const object = value as Record<string, unknown>;
    if (typeof object['kind'] !== 'string' || object['kind'] === '')
      throw new Error(`Object 'Kind' is missing in '${JSON.stringify(object).slice(0, 200)}'`);
    if (object['kind'] === 'List')
      objects.push(...((object['items'] ?? []) as Record<string, unknown>[]));
    else objects.push(object);
  }
  return objects;
}

function cmdError(run: CommandRun): string {
  if (run.timedOut) return `context deadline exceeded: ${run.stderr.trim()}`;
  return `failed exit status ${String(run.status)}: ${run.stderr.trim()}`;
}

/** Untgz without preserveFileMode: files 0644, directories 0755, owned by the sidecar user. */
function resetModes(dir: string, preserve: boolean): void {
  const walk = (path: string): void => {
    const stats = statSync(path);
    if (canRunAsSidecarUser) chownSync(path, SIDECAR_UID, SIDECAR_UID);
    if (stats.isDirectory()) {
      chmodSync(path, 0o755);
      for (const entry of readdirSync(path)) walk(join(path, entry));
    } else if (!preserve) chmodSync(path, 0o644);
  };
  walk(dir);
}

function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      out.push(relative(dir, full));
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out.sort();
}

function diffTree(before: readonly string[], after: readonly string[]): string[] {
  const known = new Set(before);
  return after.filter((f) => !known.has(f));
}

/** filepath.Match / zglob subset: `*` within a name, `**` across directories, `?`. */
function globRegExp(glob: string): RegExp {
  const body = glob
    .split('**')
    .map((part) =>
      part
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]'),
    )
    .join('.*');
  return new RegExp(`^${body}$`);
}
