// Ensures the tools the install tests render with (helm, kustomize) exist in a versioned cache,
// built from the Go module proxy with `go install` (neither module has replace directives):
//   ${SITEFORGE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/siteforge}/<tool>-<version>/<tool>
// A first run takes about two minutes (helm); later runs only check the cache.
//
// CLI: node scripts/tools/ensure-tools.mjs [helm] [kustomize]
//   -> progress on stderr; JSON {"helm": "/path/helm", ...} on stdout; exit 1 with the reason.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Pinned tools; bump the version here and the cache path changes with it. */
export const TOOLS = {
  helm: {
    pkg: 'helm.sh/helm/v3/cmd/helm',
    version: 'v3.19.5',
    ldflags: (v) => `-X helm.sh/helm/v3/internal/version.version=${v}`,
    check: ['version', '--short'],
  },
  kustomize: {
    pkg: 'sigs.k8s.io/kustomize/kustomize/v5',
    version: 'v5.8.1',
    ldflags: (v) => `-X sigs.k8s.io/kustomize/api/provenance.version=${v}`,
    check: ['version'],
  },
};

const LOCK_WAIT_MS = 15 * 60_000;

export function cacheRoot() {
  if (process.env.SITEFORGE_CACHE_DIR) return process.env.SITEFORGE_CACHE_DIR;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'siteforge');
}

/** Path of the tool's binary, building it first when the cache lacks it. */
export function ensureTool(name) {
  const tool = TOOLS[name];
  if (!tool) throw new Error(`unknown tool ${name}; known: ${Object.keys(TOOLS).join(', ')}`);
  const dir = join(cacheRoot(), `${name}-${tool.version}`);
  const bin = join(dir, name);
  if (existsSync(bin)) return bin;
  mkdirSync(cacheRoot(), { recursive: true });
  const lock = `${dir}.lock`;
  if (!acquire(lock, bin)) return bin; // another process built it while we waited
  try {
    const staging = `${dir}.tmp-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    process.stderr.write(`ensure-tools: go install ${tool.pkg}@${tool.version} (first run only)\n`);
    try {
      execFileSync(
        'go',
        ['install', `-ldflags=${tool.ldflags(tool.version)}`, `${tool.pkg}@${tool.version}`],
        {
          stdio: ['ignore', 'inherit', 'inherit'],
          env: {
            ...process.env,
            GOBIN: staging,
            GOFLAGS: '-buildvcs=false',
            GOTOOLCHAIN: 'local',
            CGO_ENABLED: '0',
          },
        },
      );
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      throw new Error(
        `could not build ${name} ${tool.version} from the Go module proxy (${err.code === 'ENOENT' ? 'go is not installed' : err.message})`,
      );
    }
    execFileSync(join(staging, name), tool.check, { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    return bin;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Takes the build lock; returns false when `bin` appeared while waiting for it. */
function acquire(lock, bin) {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      return true;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    if (existsSync(bin)) return false;
    // A lock older than the wait limit belongs to a build that died.
    if (Date.now() - statSync(lock).mtimeMs > LOCK_WAIT_MS)
      rmSync(lock, { recursive: true, force: true });
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(TOOLS);
  try {
    const paths = Object.fromEntries(names.map((n) => [n, ensureTool(n)]));
    process.stdout.write(`${JSON.stringify(paths)}\n`);
  } catch (err) {
    process.stderr.write(`ensure-tools: ${err.message}\n`);
    process.exitCode = 1;
  }
}
