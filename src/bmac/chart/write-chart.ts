/**
 * `npm run chart`: writes charts/siteforge-controller from renderControllerChart, removing
 * template files it no longer generates.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderControllerChart } from './controller-chart.js';

/** The repository root, from build/src/bmac/chart or src/bmac/chart. */
function repoRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const up = here.includes(join('build', 'src')) ? ['..', '..', '..', '..'] : ['..', '..', '..'];
  return join(here, ...up);
}

/** Writes the chart under `root` and returns the paths written. */
export function writeControllerChart(root: string = repoRoot()): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const dir = join(root, 'charts', 'siteforge-controller');
  const files = renderControllerChart({ version: pkg.version });
  rmSync(join(dir, 'templates'), { recursive: true, force: true });
  for (const [path, text] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return [...files.keys()].map((p) => join('charts', 'siteforge-controller', p));
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  for (const path of writeControllerChart()) process.stdout.write(`${path}\n`);
