// coreos-installer (crates.io), the real peer that reads back what SiteForge embeds in discovery
// ISOs (`iso ignition show`, `iso kargs show`), and xorriso, which the tests use to build a small
// ISO in the layout coreos-installer expects. Installed once into the binary cache:
//   <cache>/coreos-installer/bin/coreos-installer   (cargo install --locked)
//
// API:  const exe = await ensureCoreosInstaller();   // path of the binary
// CLI:  node scripts/hub/coreos-installer.mjs install
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HubError, cacheRoot, isMain, log, run, runCli } from './util.mjs';

export const COREOS_INSTALLER_VERSION = '0.27.0';
/** Debian packages the build links against, and xorriso for the test ISO. */
const BUILD_PACKAGES = ['libzstd-dev', 'libssl-dev', 'liblzma-dev', 'pkg-config'];
const TOOL_PACKAGES = { xorriso: 'xorriso' };

export const coreosInstallerRoot = join(cacheRoot(), 'coreos-installer');

/** Returns the path of coreos-installer, building it with cargo first when it is missing. */
export async function ensureCoreosInstaller() {
  await ensureXorriso();
  const exe = join(coreosInstallerRoot, 'bin', 'coreos-installer');
  if (existsSync(exe)) return exe;
  await run('cargo', ['--version']).catch(() => {
    throw new HubError('coreos-installer is built with cargo, which is not installed');
  });
  await ensureDebianPackages(BUILD_PACKAGES.filter((p) => !dpkgInstalled(p)));
  log(
    `building coreos-installer ${COREOS_INSTALLER_VERSION} into ${coreosInstallerRoot} (a few minutes)`,
  );
  await run(
    'cargo',
    [
      'install',
      'coreos-installer',
      '--version',
      COREOS_INSTALLER_VERSION,
      '--locked',
      '--root',
      coreosInstallerRoot,
    ],
    { timeoutMs: 60 * 60_000 },
  );
  if (!existsSync(exe)) throw new HubError(`cargo install finished but ${exe} is missing`);
  return exe;
}

/** Returns the path of xorriso, installing the Debian package when it is missing. */
export async function ensureXorriso() {
  const found = await which('xorriso');
  if (found) return found;
  await ensureDebianPackages([TOOL_PACKAGES.xorriso]);
  const installed = await which('xorriso');
  if (!installed) throw new HubError('xorriso is still missing after apt-get install');
  return installed;
}

async function which(name) {
  try {
    const { stdout } = await run('sh', ['-c', `command -v ${name}`]);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

let dpkgStatus;
function dpkgInstalled(pkg) {
  dpkgStatus ??= (() => {
    try {
      return readFileSync('/var/lib/dpkg/status', 'utf8');
    } catch {
      return '';
    }
  })();
  return new RegExp(`^Package: ${pkg}\\n(?:[^\\n]+\\n)*?Status: install ok installed`, 'm').test(
    dpkgStatus,
  );
}

/** apt-get install, with `apt-get update` first when the plain install fails. */
export async function ensureDebianPackages(packages) {
  if (packages.length === 0) return;
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const install = () =>
    run(
      sudo[0] ?? 'apt-get',
      [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'install', '-y', '-q', ...packages],
      {
        env: { DEBIAN_FRONTEND: 'noninteractive' },
      },
    );
  log(`installing ${packages.join(' ')} with apt-get`);
  try {
    await install();
  } catch {
    await run(
      sudo[0] ?? 'apt-get',
      [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'update', '-q'],
      {
        env: { DEBIAN_FRONTEND: 'noninteractive' },
      },
    );
    await install();
  }
}

if (isMain(import.meta.url)) {
  runCli('coreos-installer', async () => {
    const [command] = process.argv.slice(2);
    if (command !== 'install') throw new HubError('usage: coreos-installer.mjs install');
    process.stdout.write(`${await ensureCoreosInstaller()}\n`);
    return 0;
  });
}
