// Shared helpers for the loopback hub scripts (build.mjs, hub.mjs, sushy.mjs).
// Plain Node ESM so it runs without a TypeScript build.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** An expected failure: CLIs print its message on one line, without a stack. */
export class HubError extends Error {}

/** Progress goes to stderr so stdout stays usable for machine-readable output. */
export function log(msg) {
  process.stderr.write(`[hub] ${msg}\n`);
}

/** Root of the binary cache: $SITEFORGE_CACHE_DIR or ${XDG_CACHE_HOME:-$HOME/.cache}/siteforge. */
export function cacheRoot() {
  if (process.env.SITEFORGE_CACHE_DIR) return resolve(process.env.SITEFORGE_CACHE_DIR);
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'siteforge');
}

/** True when the module with this import.meta.url is the script node was started with. */
export function isMain(metaUrl) {
  return Boolean(process.argv[1]) && metaUrl === pathToFileURL(resolve(process.argv[1])).href;
}

/** Runs a CLI entry point; HubError (and any other error) ends the process with one line. */
export function runCli(name, main) {
  main().then(
    (code) => process.exit(code ?? 0),
    (err) => {
      const msg = err instanceof HubError ? err.message : String(err?.message ?? err);
      process.stderr.write(`${name}: error: ${msg.trim().replace(/\s*\n\s*/g, ' | ')}\n`);
      process.exit(1);
    },
  );
}

/**
 * Runs a command to completion and captures its output.
 * Rejects with a HubError naming the command and its last stderr line when it fails.
 * `onStderrLine` sees stderr line by line (used for build progress).
 */
export function run(cmd, args, { env, cwd, input, onStderrLine, timeoutMs } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      env: env ? { ...process.env, ...env } : process.env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      if (!onStderrLine) return;
      const lines = (partial + d).split('\n');
      partial = lines.pop();
      lines.forEach(onStderrLine);
    });
    if (input !== undefined) child.stdin.end(input);
    const timer = timeoutMs && setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(
        new HubError(
          `cannot run ${cmd}: ${err.code === 'ENOENT' ? 'not found on PATH' : err.message}`,
        ),
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolvePromise({ stdout, stderr });
      const last = lastLine(stderr) || lastLine(stdout);
      const why = signal ? `killed by ${signal}` : `exit ${code}`;
      const err = new HubError(
        `${cmd} ${args.slice(0, 3).join(' ')} failed (${why})${last ? `: ${last}` : ''}`,
      );
      err.stdout = stdout;
      err.stderr = stderr;
      reject(err);
    });
  });
}

export function lastLine(text) {
  return (
    String(text)
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .pop() ?? ''
  );
}

/** Asks the kernel for `n` distinct free TCP ports on 127.0.0.1 (all held open until all are known). */
export async function freePorts(n) {
  const servers = [];
  try {
    for (let i = 0; i < n; i++) {
      const srv = createServer();
      servers.push(srv);
      await new Promise((ok, fail) => srv.once('error', fail).listen(0, '127.0.0.1', ok));
    }
    return servers.map((s) => s.address().port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
  }
}

/**
 * Polls `check` until it returns a truthy value or `timeoutMs` passes.
 * `failIf` is polled too and may return a reason string to give up early (e.g. the process died).
 */
export async function waitFor(what, check, { timeoutMs = 60_000, intervalMs = 250, failIf } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastErr;
  for (;;) {
    const reason = failIf?.();
    if (reason) throw new HubError(`${what}: ${reason}`);
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() >= deadline) {
      const detail = lastErr ? ` (last error: ${lastErr.message})` : '';
      throw new HubError(`${what}: not ready after ${Math.round(timeoutMs / 1000)} s${detail}`);
    }
    await sleep(intervalMs);
  }
}

export function pidAlive(pid) {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie still answers kill(0); treat it as gone.
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

/** argv[0] of a live process, or undefined; used so we never signal a recycled pid. */
export function pidExe(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
  } catch {
    return undefined;
  }
}

/** Resident set size in KiB from /proc/<pid>/status, or undefined. */
export function rssKiB(pid) {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * SIGTERM, wait up to termMs, then SIGKILL and wait up to killMs.
 * With `exe`, only signals the pid while its argv[0] is still that binary.
 */
export async function stopPid(pid, { exe, termMs = 10_000, killMs = 5_000 } = {}) {
  if (!pidAlive(pid)) return 'gone';
  if (exe && pidExe(pid) !== exe) return 'not ours';
  const signal = (sig) => {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  };
  const gone = async (ms) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (!pidAlive(pid)) return true;
      await sleep(100);
    }
    return !pidAlive(pid);
  };
  signal('SIGTERM');
  if (await gone(termMs)) return 'terminated';
  signal('SIGKILL');
  if (await gone(killMs)) return 'killed';
  throw new HubError(`pid ${pid} survived SIGKILL for ${killMs} ms`);
}

/** Last `n` non-empty lines of a log file, for error messages. */
export function tailFile(path, n = 5) {
  if (!existsSync(path)) return '';
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .slice(-n)
    .join('\n');
}

// --- TLS material via the openssl CLI (node:crypto cannot create X.509 certificates) ---

async function openssl(args, cwd) {
  return run('openssl', args, { cwd });
}

/** A self-signed CA: <dir>/<name>.crt and <name>.key (EC P-256, quick to generate). */
export async function createCA(dir, name = 'ca', cn = 'siteforge-hub-ca') {
  await openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '3650',
      '-subj',
      `/CN=${cn}`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
    ],
    dir,
  );
  return { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
}

/**
 * A leaf certificate signed by the CA in `dir`.
 * usage 'server' adds subjectAltName entries; 'client' puts `org` into O= (Kubernetes group).
 */
export async function issueCert(dir, name, { cn, org, sans = [], usage, ca = 'ca' }) {
  const subj = `${org ? `/O=${org}` : ''}/CN=${cn}`;
  const ext = [
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    `extendedKeyUsage=${usage === 'client' ? 'clientAuth' : 'serverAuth'}`,
  ];
  if (sans.length) ext.push(`subjectAltName=${sans.join(',')}`);
  writeFileSync(join(dir, `${name}.ext`), ext.join('\n') + '\n');
  await openssl(
    [
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      subj,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
    ],
    dir,
  );
  await openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.crt`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-days',
      '3650',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    ],
    dir,
  );
  return { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
}
