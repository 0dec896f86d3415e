// `npm run demo`: a fleet provisioned end to end on this machine (src/sim/demo). This file wires
// the repository's scripts (the local hub, xorriso) into the demo, which runs from build/ (made
// by `npm ci`; rebuilt here when src/ is newer). Ctrl-C stops everything the demo started.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensureXorriso } from './hub/coreos-installer.mjs';
import { startHub, stopHub } from './hub/hub.mjs';
import { repoRoot } from './hub/util.mjs';

/** The newest modification time under `dir` (files ending in `suffix`). */
function newest(dir, suffix) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path, suffix));
    else if (entry.name.endsWith(suffix)) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

const entry = join(repoRoot, 'build', 'src', 'sim', 'demo', 'main.js');
if (
  !existsSync(entry) ||
  newest(join(repoRoot, 'src'), '.ts') > newest(join(repoRoot, 'build', 'src'), '.js')
) {
  process.stderr.write('demo: building (npm run build)…\n');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'inherit' });
}
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2), {
  repoRoot,
  startHub,
  stopHub,
  ensureXorriso,
});
