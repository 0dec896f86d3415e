// Part of `npm run build`: bundles the fleet dashboard (src/dashboard/web, Preact) with esbuild
// into build/dashboard/ (index.html, app.js, app.css, favicon.svg), the static files
// `siteforge controller --dashboard-bind-address` serves. Nothing is fetched at run time: the
// page loads only these files.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const web = join(root, 'src', 'dashboard', 'web');
const outDir = join(root, 'build', 'dashboard');

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
await build({
  entryPoints: { app: join(web, 'main.tsx') },
  outdir: outDir,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox115', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
});
// The stylesheet is plain CSS; esbuild only minifies it.
await build({
  entryPoints: [join(web, 'app.css')],
  outfile: join(outDir, 'app.css'),
  bundle: true,
  minify: true,
  logLevel: 'warning',
});
for (const name of ['index.html', 'favicon.svg']) copyFileSync(join(web, name), join(outDir, name));
