import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureChromium } from '../../scripts/hub/chromium.mjs';

/**
 * The dashboard tests' peers: Debian's chromium (installed with apt-get when missing, as root)
 * and the page bundled from src/dashboard/web into build/dashboard, so the browser loads the
 * code under test, never a stale bundle.
 */
export default async function setup(): Promise<void> {
  const root = join(import.meta.dirname, '..', '..');
  execFileSync(process.execPath, [join(root, 'scripts', 'bundle-dashboard.js')], {
    cwd: root,
    stdio: 'inherit',
  });
  await ensureChromium();
}
