// Debian's chromium, the real browser the dashboard tests drive through playwright-core (never
// a browser downloaded by `playwright install`). Installed with apt-get when missing, as root
// (or with sudo -n), as etcd and xorriso are.
//
// API:  const exe = await ensureChromium();   // /usr/bin/chromium
// CLI:  node scripts/hub/chromium.mjs install
import { existsSync } from 'node:fs';
import { ensureDebianPackages } from './coreos-installer.mjs';
import { HubError, isMain, runCli } from './util.mjs';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * The flags every test browser starts with: headless, no sandbox (tests run as root in
 * containers), and nothing that reaches the network on its own.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Returns the path of Debian's chromium, installing the package when it is missing. */
export async function ensureChromium() {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  await ensureDebianPackages(['chromium']);
  if (!existsSync(CHROMIUM_PATH))
    throw new HubError(`${CHROMIUM_PATH} is still missing after apt-get install chromium`);
  return CHROMIUM_PATH;
}

if (isMain(import.meta.url)) {
  runCli('chromium', async () => {
    const [command] = process.argv.slice(2);
    if (command !== 'install') throw new HubError('usage: chromium.mjs install');
    process.stdout.write(`${await ensureChromium()}\n`);
    return 0;
  });
}
