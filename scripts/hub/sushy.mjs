// sushy-tools' Redfish emulator (fake driver, no libvirt) on 127.0.0.1 for BMC integration tests.
// It lives in a project-local virtualenv, <repo>/.cache/sushy-venv, installed from PyPI on first use.
//
// API:  const bmc = await startSushy({ port, auth: { username, password }, tls: true, systems });
//       bmc.url -> 'https://127.0.0.1:PORT', bmc.ca -> CA file to trust when tls; await bmc.stop();
// CLI:  node scripts/hub/sushy.mjs install
//       node scripts/hub/sushy.mjs run [--port N] [--tls] [--auth user:pass]   (Ctrl-C stops it)
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  HubError,
  createCA,
  freePorts,
  isMain,
  issueCert,
  log,
  repoRoot,
  run,
  runCli,
  stopPid,
  tailFile,
  waitFor,
} from './util.mjs';

export const SUSHY_TOOLS_VERSION = '2.2.0'; // python_requires >= 3.10
// Its dependency closure as resolved with Python 3.11, pinned so every machine gets the same set.
const CONSTRAINTS = [
  'bcrypt==5.0.0',
  'blinker==1.9.0',
  'certifi==2026.10.18',
  'charset-normalizer==3.5.2',
  'click==8.5.1',
  'Flask==3.1.3',
  'idna==3.20',
  'itsdangerous==2.2.0',
  'Jinja2==3.1.6',
  'MarkupSafe==3.0.4',
  'pbr==7.1.3',
  'requests==2.34.2',
  'tenacity==9.2.1',
  'urllib3==2.8.0',
  'WebOb==1.8.11',
  'Werkzeug==3.1.9',
];
export const sushyVenv = resolve(
  process.env.SITEFORGE_SUSHY_VENV || join(repoRoot, '.cache/sushy-venv'),
);

/** Creates or reuses the virtualenv; returns the path of its sushy-emulator script. */
export async function ensureSushy() {
  const exe = join(sushyVenv, 'bin/sushy-emulator');
  const marker = join(sushyVenv, '.siteforge-pins');
  const pins = [`sushy-tools==${SUSHY_TOOLS_VERSION}`, ...CONSTRAINTS].join('\n') + '\n';
  if (existsSync(exe) && existsSync(marker) && readFileSync(marker, 'utf8') === pins) return exe;

  const python = process.env.SITEFORGE_PYTHON || 'python3';
  const { stdout } = await run(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])']);
  const [major, minor] = stdout.trim().split('.').map(Number);
  if (major !== 3 || minor < 10)
    throw new HubError(
      `sushy-tools ${SUSHY_TOOLS_VERSION} needs Python >= 3.10, ${python} is ${stdout.trim()}`,
    );

  log(`creating ${sushyVenv} with sushy-tools ${SUSHY_TOOLS_VERSION} (Python ${stdout.trim()})`);
  // The marker is written last, so a half-made venv is never taken for a good one.
  rmSync(sushyVenv, { recursive: true, force: true });
  await run(python, ['-m', 'venv', sushyVenv]);
  const constraints = join(sushyVenv, 'constraints.txt');
  writeFileSync(constraints, CONSTRAINTS.join('\n') + '\n');
  const pip = join(sushyVenv, 'bin/pip');
  await run(pip, [
    'install',
    '-q',
    '--disable-pip-version-check',
    `sushy-tools==${SUSHY_TOOLS_VERSION}`,
    '-c',
    constraints,
  ]);
  if (!existsSync(exe)) throw new HubError(`pip installed sushy-tools but ${exe} is missing`);
  writeFileSync(marker, pins);
  return exe;
}

/**
 * Starts sushy-emulator with the fake driver on 127.0.0.1 and waits until GET /redfish/v1/ is 200.
 * @param {object} [o]
 * @param {number} [o.port] default: a free port
 * @param {{username: string, password: string}} [o.auth] enables HTTP Basic auth (bcrypt htpasswd)
 * @param {boolean} [o.tls] serve HTTPS with a certificate from a fresh CA (returned as `ca`)
 * @param {object[]} [o.systems] SUSHY_EMULATOR_FAKE_SYSTEMS entries ({uuid, name, power_state, nics})
 * @param {object} [o.extraConfig] any other config keys, written as Python literals
 * @returns {Promise<{url: string, port: number, pid: number, dir: string, ca?: string, stop(): Promise<void>}>}
 */
export async function startSushy({
  port,
  auth,
  tls = false,
  systems,
  extraConfig = {},
  readyTimeoutMs = 30_000,
} = {}) {
  const exe = await ensureSushy();
  return startVenvServer({
    name: 'sushy-emulator',
    exe,
    port,
    tls,
    readyTimeoutMs,
    headers: auth && {
      authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`,
    },
    async args({ dir, port: listenPort, cert }) {
      const config = {
        SUSHY_EMULATOR_LISTEN_IP: '127.0.0.1', // the default '' listens on every interface
        SUSHY_EMULATOR_LISTEN_PORT: listenPort,
        SUSHY_EMULATOR_FAKE_DRIVER: true,
        SUSHY_EMULATOR_STATE_DIR: join(dir, 'state'), // default /tmp/sushy-emulator is shared and persists
        ...(systems && { SUSHY_EMULATOR_FAKE_SYSTEMS: systems }),
        ...(cert && { SUSHY_EMULATOR_SSL_CERT: cert.cert, SUSHY_EMULATOR_SSL_KEY: cert.key }),
        ...extraConfig,
      };
      if (auth) {
        config.SUSHY_EMULATOR_AUTH_FILE = join(dir, 'htpasswd');
        writeFileSync(
          config.SUSHY_EMULATOR_AUTH_FILE,
          `${auth.username}:${await bcryptHash(auth.password)}\n`,
        );
      }
      const configFile = join(dir, 'emulator.conf');
      writeFileSync(
        configFile,
        Object.entries(config)
          .map(([k, v]) => `${k} = ${toPython(v)}\n`)
          .join(''),
      );
      return ['--config', configFile];
    },
  });
}

/**
 * Runs a Redfish server of the venv on 127.0.0.1 in a fresh temp dir, with a certificate from a
 * fresh CA when `tls`, its output in `<dir>/<name>.log`, and waits until GET /redfish/v1/ is 200.
 * It never outlives the process that started it; stop() ends it and removes the dir.
 * @param {object} o
 * @param {string} o.name for messages and the log file
 * @param {string} o.exe
 * @param {(s: {dir: string, port: number, cert?: {cert: string, key: string}}) => Promise<string[]> | string[]} o.args
 *   its arguments; may write files into `dir` first
 * @param {number} [o.port] default: a free port
 * @param {boolean} [o.tls]
 * @param {Record<string, string>} [o.headers] for the readiness probe (credentials)
 * @param {NodeJS.ProcessEnv} [o.env]
 */
export async function startVenvServer({
  name,
  exe,
  args,
  port,
  tls = false,
  headers = {},
  env = process.env,
  readyTimeoutMs = 30_000,
}) {
  port ??= (await freePorts(1))[0];
  const dir = mkdtempSync(join(tmpdir(), `siteforge-${name}-`));
  let ca;
  let argv;
  try {
    let cert;
    if (tls) {
      ca = (await createCA(dir, 'ca', `siteforge-${name}-ca`)).cert;
      cert = await issueCert(dir, 'server', {
        cn: '127.0.0.1',
        usage: 'server',
        sans: ['IP:127.0.0.1', 'DNS:localhost'],
      });
    }
    argv = await args({ dir, port, cert });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const logFile = join(dir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(exe, argv, { cwd: dir, stdio: ['ignore', fd, fd], env });
  closeSync(fd);
  let exit;
  child.on('exit', (code, signal) => (exit = signal ?? `exit ${code}`));
  child.on('error', (err) => (exit = err.message));
  // Never outlive the test process that started it, even if it forgets stop().
  const killOnExit = () => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);

  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    // Once it has exited, its pid may belong to another process: signal only a live child.
    if (exit === undefined) await stopPid(child.pid, { termMs: 5_000 });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      `${name} ${url}/redfish/v1/`,
      () => getStatus(`${url}/redfish/v1/`, { headers, ca }).then((s) => s === 200),
      {
        timeoutMs: readyTimeoutMs,
        failIf: () =>
          exit && `${name} stopped (${exit}); ${logFile} ends with: ${tailFile(logFile, 3)}`,
      },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, port, pid: child.pid, dir, ca, log: logFile, stop };
}

/** bcrypt hash from the venv's own bcrypt module; cost 4 keeps each authenticated request fast. */
async function bcryptHash(password) {
  const py = join(sushyVenv, 'bin/python');
  const code =
    'import bcrypt,sys; print(bcrypt.hashpw(sys.stdin.buffer.read(), bcrypt.gensalt(4)).decode())';
  const { stdout } = await run(py, ['-c', code], { input: password });
  return stdout.trim();
}

function getStatus(url, { headers, ca }) {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((ok, fail) => {
    const req = request(url, { headers, ca: ca && readFileSync(ca), timeout: 2_000 }, (res) => {
      res.resume();
      ok(res.statusCode);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', fail);
    req.end();
  });
}

/** JSON-like value -> Python literal (the config file is exec'd as Python by Flask). */
export function toPython(v) {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'None';
  if (typeof v === 'string') return JSON.stringify(v); // JSON string escapes are valid in Python
  if (Array.isArray(v)) return `[${v.map(toPython).join(', ')}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${JSON.stringify(k)}: ${toPython(x)}`)
    .join(', ')}}`;
}

if (isMain(import.meta.url)) {
  runCli('sushy.mjs', async () => {
    const args = process.argv.slice(2);
    const opt = (name) => {
      const i = args.indexOf(name);
      return i >= 0 ? args[i + 1] : undefined;
    };
    if (args[0] === 'install') {
      process.stdout.write(`${await ensureSushy()}\n`);
      return 0;
    }
    if (args[0] !== 'run')
      throw new HubError(
        'usage: node scripts/hub/sushy.mjs install | run [--port N] [--tls] [--auth user:pass]',
      );
    const authArg = opt('--auth');
    const [username, ...rest] = authArg?.split(':') ?? [];
    const bmc = await startSushy({
      port: opt('--port') ? Number(opt('--port')) : undefined,
      tls: args.includes('--tls'),
      auth: authArg ? { username, password: rest.join(':') } : undefined,
    });
    log(
      `sushy-emulator ready: ${bmc.url}/redfish/v1/${bmc.ca ? ` (CA ${bmc.ca})` : ''}; Ctrl-C stops it`,
    );
    await new Promise((done) => ['SIGINT', 'SIGTERM'].forEach((s) => process.once(s, done)));
    await bmc.stop();
    return 0;
  });
}
