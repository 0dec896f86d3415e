// Ensures the binaries of the loopback hub (kube-apiserver, kube-controller-manager, etcd) exist
// in a versioned cache:
//   ${SITEFORGE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/siteforge}/<component>-<version>/<binary>
//
// The Kubernetes binaries are compiled from the Go module proxy: a generated wrapper module requires
// k8s.io/kubernetes and pins each staging module (which kubernetes' own go.mod replaces with
// ./staging/...) to the matching published v0.x.y. No Kubernetes source enters this repo.
// etcd comes from Debian's etcd-server package when possible, else is compiled the same way.
//
// CLI: node scripts/hub/build.mjs   -> progress on stderr, a JSON summary on stdout.
// Env: SITEFORGE_KUBE_VERSION, SITEFORGE_ETCD_VERSION (source build), SITEFORGE_ETCD_FROM=auto|apt|go.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubError, cacheRoot, isMain, lastLine, log, run, runCli } from './util.mjs';

export const KUBE_VERSION = process.env.SITEFORGE_KUBE_VERSION || 'v1.34.4';
// Used only when Debian's etcd is not available; v3.6.4 is the etcd client kubernetes v1.34.4 uses.
export const ETCD_VERSION = process.env.SITEFORGE_ETCD_VERSION || 'v3.6.4';

const DEBIAN_ETCD = '/usr/bin/etcd';
const PROGRESS_EVERY_MS = 15_000;

/** kube-apiserver from the module proxy; returns { path, version, source }. */
export function ensureKubeApiserver({ version = KUBE_VERSION } = {}) {
  return ensureKubeComponent('kube-apiserver', version);
}

/**
 * kube-controller-manager from the same module and pins. The hub runs it only for the
 * controllers that finish what the API server starts (namespace deletion, garbage collection,
 * service-account tokens); without it a deleted namespace stays Terminating forever.
 */
export function ensureKubeControllerManager({ version = KUBE_VERSION } = {}) {
  return ensureKubeComponent('kube-controller-manager', version);
}

/** One binary of k8s.io/kubernetes/cmd/<component>; the Go build cache is shared between them. */
async function ensureKubeComponent(component, version) {
  const m = /^v1\.(\d+)\.(\d+)$/.exec(version);
  if (!m) throw new HubError(`SITEFORGE_KUBE_VERSION must look like v1.34.4, got ${version}`);
  const stagingVersion = `v0.${m[1]}.${m[2]}`;
  const vpkg = (name) => [
    `k8s.io/component-base/version.${name}`,
    `k8s.io/client-go/pkg/version.${name}`,
  ];
  const vars = {
    gitVersion: version,
    gitMajor: '1',
    gitMinor: m[1],
    gitTreeState: 'archive', // what upstream's hack/lib/version.sh says for a build without git
    buildDate: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
  const ldflags = Object.entries(vars).flatMap(([k, v]) => vpkg(k).map((p) => `-X ${p}=${v}`));
  return goBuildFromProxy({
    component,
    module: 'k8s.io/kubernetes',
    version,
    pkg: `k8s.io/kubernetes/cmd/${component}`,
    // Every staging module, whether or not kubernetes requires it directly.
    pinned: (mod, target, required) =>
      (target.startsWith('./staging/') || required) && stagingVersion,
    ldflags,
    expectVersionOutput: `Kubernetes ${version}`,
  });
}

/** etcd: Debian's etcd-server if installed or installable, else built from the module proxy. */
export async function ensureEtcd({ from = process.env.SITEFORGE_ETCD_FROM || 'auto' } = {}) {
  if (!['auto', 'apt', 'go'].includes(from))
    throw new HubError(`SITEFORGE_ETCD_FROM must be auto, apt or go, got ${from}`);
  if (from !== 'go') {
    const found = (await debianEtcd()) ?? (await installDebianEtcd(from === 'apt'));
    if (found) return found;
    log('Debian etcd-server unavailable; building etcd from the Go module proxy');
  }
  return goBuildFromProxy({
    component: 'etcd',
    module: 'go.etcd.io/etcd/server/v3',
    version: ETCD_VERSION,
    pkg: 'go.etcd.io/etcd/server/v3', // the module root is etcd's main package
    // server/go.mod replaces api, client/pkg, client/v3 and pkg with ../ paths; they share its version.
    pinned: (mod, target, required) => required && ETCD_VERSION,
    ldflags: [`-X go.etcd.io/etcd/api/v3/version.GitSHA=${ETCD_VERSION}`],
    expectVersionOutput: `etcd Version: ${ETCD_VERSION.slice(1)}`,
  });
}

export async function ensureHubBinaries() {
  const kubeApiserver = await ensureKubeApiserver();
  const kubeControllerManager = await ensureKubeControllerManager();
  const etcd = await ensureEtcd();
  const summary = { kubeApiserver, kubeControllerManager, etcd };
  mkdirSync(cacheRoot(), { recursive: true });
  writeFileSync(join(cacheRoot(), 'hub-binaries.json'), JSON.stringify(summary, null, 2) + '\n');
  return summary;
}

async function debianEtcd() {
  if (!existsSync(DEBIAN_ETCD)) return undefined;
  const { stdout } = await run(DEBIAN_ETCD, ['--version']);
  const v = /etcd Version:\s*(\S+)/.exec(stdout)?.[1];
  if (!v) throw new HubError(`${DEBIAN_ETCD} --version printed no version`);
  return { path: DEBIAN_ETCD, version: `v${v}`, source: 'debian etcd-server' };
}

async function installDebianEtcd(required) {
  const canApt = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canApt) {
    if (required)
      throw new HubError('SITEFORGE_ETCD_FROM=apt but apt-get is unavailable or not root');
    return undefined;
  }
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => run('apt-get', ['install', '-y', '-q', 'etcd-server'], { env });
  log('installing etcd-server with apt-get');
  try {
    await install();
  } catch {
    // Usually a missing or stale package list; refresh it once and retry.
    try {
      log('apt-get install failed; running apt-get update and retrying');
      await run('apt-get', ['update', '-q'], { env });
      await install();
    } catch (err) {
      if (required) throw err;
      log(`apt-get install etcd-server failed: ${err.message}`);
      return undefined;
    }
  }
  return debianEtcd();
}

/**
 * Builds `pkg` from `module@version` through a generated wrapper module in the cache dir.
 * `pinned(mod, target, required)` returns the version to pin for each local-path replace
 * directive of the module's go.mod (those are ignored in a dependency, so without a pin Go
 * would look for the nonexistent v0.0.0), or false to leave that module alone.
 */
async function goBuildFromProxy({
  component,
  module,
  version,
  pkg,
  pinned,
  ldflags,
  expectVersionOutput,
}) {
  const dir = join(cacheRoot(), `${component}-${version}`);
  const bin = join(dir, component);
  const infoFile = join(dir, 'build-info.json');
  if (existsSync(bin) && existsSync(infoFile)) {
    const { seconds } = JSON.parse(readFileSync(infoFile, 'utf8'));
    return { path: bin, version, source: `built from ${module}@${version}`, buildSeconds: seconds };
  }
  mkdirSync(dir, { recursive: true });
  const goVersion = await goToolVersion();
  // GOTOOLCHAIN=local: never fetch another toolchain; -mod=mod lets go fill go.sum itself.
  const env = { GOFLAGS: '-mod=mod -buildvcs=false', GOTOOLCHAIN: 'local', CGO_ENABLED: '0' };

  log(
    `${component} ${version}: resolving ${module}@${version} on the Go module proxy (${goVersion})`,
  );
  // On failure `go mod download -json` still prints its JSON, with the reason in .Error.
  const { stdout } = await run('go', ['mod', 'download', '-json', `${module}@${version}`], {
    env,
    cwd: tmpdir(),
  }).catch((err) => ({ stdout: err.stdout || JSON.stringify({ Error: err.message }) }));
  const info = JSON.parse(stdout);
  if (info.Error) throw new HubError(`cannot download ${module}@${version}: ${info.Error}`);
  const gomod = parseGoMod(readFileSync(info.GoMod, 'utf8'));

  const pins = gomod.localReplaces
    .map(({ mod, target }) => [mod, pinned(mod, target, gomod.required.has(mod))])
    .filter(([, v]) => v);
  const wrapperDir = join(dir, 'wrapper');
  mkdirSync(wrapperDir, { recursive: true });
  writeFileSync(
    join(wrapperDir, 'go.mod'),
    [
      '// Generated by scripts/hub/build.mjs: builds one binary of a published module. Do not edit.',
      `module siteforge.local/build/${component}`,
      '',
      `go ${gomod.go}`, // keeps the upstream language version and so its default GODEBUG settings
      ...gomod.godebug.map((l) => `godebug ${l}`),
      '',
      `require ${module} ${version}`,
      '',
      'replace (',
      ...pins.map(([mod, v]) => `\t${mod} => ${mod} ${v}`),
      ')',
      '',
    ].join('\n'),
  );
  log(
    `${component} ${version}: wrapper module ${wrapperDir} pins ${pins.length} modules; go build ${pkg}`,
  );

  // Leftovers of an interrupted build (never renamed into place) are just garbage.
  for (const f of readdirSync(dir))
    if (f.startsWith(`.${component}.tmp-`)) rmSync(join(dir, f), { force: true });
  const tmpBin = join(dir, `.${component}.tmp-${process.pid}`);
  const started = Date.now();
  let compiled = 0;
  let downloads = 0;
  let lastPkg = '';
  const ticker = setInterval(() => {
    const s = Math.round((Date.now() - started) / 1000);
    log(
      `${component} ${version}: building… ${s} s, ${downloads} modules downloaded, ${compiled} packages (${lastPkg})`,
    );
  }, PROGRESS_EVERY_MS);
  try {
    await run(
      'go',
      [
        'build',
        '-v',
        '-trimpath',
        '-ldflags',
        ['-s', '-w', ...ldflags].join(' '),
        '-o',
        tmpBin,
        pkg,
      ],
      {
        env,
        cwd: wrapperDir,
        onStderrLine: (line) => {
          if (line.startsWith('go: downloading')) downloads++;
          else if (/^[\w.-]+(\/[\w.@~+-]+)*$/.test(line)) {
            // `go build -v` names each package as it compiles it
            compiled++;
            lastPkg = line;
          }
        },
      },
    );
  } catch (err) {
    rmSync(tmpBin, { force: true });
    writeFileSync(join(dir, 'build.log'), err.stderr ?? err.message);
    const why = lastLine(
      err.stderr
        ?.split('\n')
        .filter((l) => !l.startsWith('go: downloading'))
        .join('\n') ?? '',
    );
    throw new HubError(
      `go build of ${component} ${version} failed: ${why || err.message} (log: ${join(dir, 'build.log')})`,
    );
  } finally {
    clearInterval(ticker);
  }
  const seconds = Math.round((Date.now() - started) / 100) / 10;

  const out = await run(tmpBin, ['--version']).catch((err) => ({ stdout: err.message }));
  if (!out.stdout.includes(expectVersionOutput)) {
    rmSync(tmpBin, { force: true });
    throw new HubError(
      `${component} --version printed "${lastLine(out.stdout)}", expected "${expectVersionOutput}"`,
    );
  }
  chmodSync(tmpBin, 0o755);
  renameSync(tmpBin, bin); // atomic: readers see either no binary or a complete one
  writeFileSync(
    infoFile,
    JSON.stringify(
      {
        component,
        module,
        version,
        pkg,
        go: goVersion,
        seconds,
        builtAt: new Date().toISOString(),
      },
      null,
      2,
    ) + '\n',
  );
  log(`${component} ${version}: built in ${seconds} s -> ${bin}`);
  return { path: bin, version, source: `built from ${module}@${version}`, buildSeconds: seconds };
}

async function goToolVersion() {
  const { stdout } = await run('go', ['env', 'GOVERSION']).catch(() => {
    throw new HubError(
      'the go command is not on PATH; Go >= 1.24 is needed to build kube-apiserver',
    );
  });
  return stdout.trim();
}

/** The parts of a go.mod this script needs: go version, godebug lines, requires, local-path replaces. */
export function parseGoMod(text) {
  const result = { go: undefined, godebug: [], required: new Set(), localReplaces: [] };
  let block;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (!line) continue;
    if (block && line === ')') {
      block = undefined;
      continue;
    }
    const open = /^(require|replace|godebug|exclude|retract|tool|ignore)\s*\($/.exec(line);
    if (open) {
      block = open[1];
      continue;
    }
    let verb = block;
    let rest = line;
    if (!block) {
      const m = /^(\w+)\s+(.*)$/.exec(line);
      if (!m) continue;
      [, verb, rest] = m;
    }
    if (verb === 'go') result.go = rest;
    else if (verb === 'godebug') result.godebug.push(rest);
    else if (verb === 'require') result.required.add(rest.split(/\s+/)[0]);
    else if (verb === 'replace') {
      const r = /^(\S+)(?:\s+\S+)?\s+=>\s+(\S+)\s*$/.exec(rest); // a target without version is a path
      if (r && /^\.\.?\//.test(r[2])) result.localReplaces.push({ mod: r[1], target: r[2] });
    }
  }
  if (!result.go) throw new HubError('module go.mod has no go directive');
  return result;
}

if (isMain(import.meta.url)) {
  runCli('build.mjs', async () => {
    const summary = await ensureHubBinaries();
    process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  });
}
