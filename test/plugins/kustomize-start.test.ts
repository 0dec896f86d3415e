/**
 * kustomize starts `siteforge kustomize-plugin FILE` once per SiteConfig, so what one start
 * loads is paid per site. These tests run the built command (bin/siteforge.js over build/, as
 * `npm ci` leaves it) and check that a start loads the plugin's bundle and its code cache, and
 * nothing of the rest of the CLI. How long a start takes is measured by `npm run bench`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BUNDLE_ID_PREFIX,
  codeCacheFile,
  KUSTOMIZE_BUNDLE_FILE,
  loadKustomizeBundle,
} from '../../src/plugins/argocd/kustomize-bundle.js';
import { runKustomizePlugin } from '../../src/plugins/argocd/kustomize-plugin.js';
import { runSiteforge } from '../../src/plugins/cli/entry-point.js';
import { repoRoot, snoSite } from '../support/sites.js';

const bin = join(repoRoot, 'bin', 'siteforge.js');
const builtDir = join(repoRoot, 'build', 'src', 'plugins', 'argocd');

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-kstart-'));
  temps.push(dir);
  return dir;
}

/** A kustomization root with one SiteConfig generator, and kustomize's copy of it. */
function kustomizationRoot(site: string): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'kustomization.yaml'), 'generators:\n  - site.yaml\n');
  writeFileSync(join(dir, 'site.yaml'), site);
  writeFileSync(join(dir, 'kust-plugin-config-1'), site);
  return dir;
}

/**
 * Runs the built command as kustomize does, with a preload that reports every module the
 * process loads (ES modules through a loader hook, CommonJS ones from require's cache).
 */
function startAsKustomize(dir: string) {
  const recorder = join(tempDir(), 'record-modules.mjs');
  const hook = `export async function load(url, context, next) { process.stderr.write('MODULE ' + url + '\\n'); return next(url, context); }`;
  writeFileSync(
    recorder,
    `import { createRequire, register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
const cache = createRequire(import.meta.url).cache;
process.on('exit', () => { for (const file of Object.keys(cache)) process.stderr.write('MODULE ' + file + '\\n'); });
`,
  );
  const result = spawnSync(
    process.execPath,
    ['--import', recorder, bin, 'kustomize-plugin', 'kust-plugin-config-1'],
    { cwd: dir, encoding: 'utf8', timeout: 60_000 },
  );
  const modules = result.stderr
    .split('\n')
    .filter((line) => line.startsWith('MODULE '))
    .map((line) => line.slice('MODULE '.length).replace(/^file:\/\//, ''))
    .filter((path) => path.startsWith(repoRoot))
    .map((path) => path.slice(repoRoot.length + 1));
  const messages = result.stderr
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('MODULE '));
  return { status: result.status, stdout: result.stdout, messages, modules };
}

describe('one kustomize exec of siteforge', () => {
  it('loads the bundled plugin and nothing of the rest of the CLI or its libraries', () => {
    const dir = kustomizationRoot(snoSite({ name: 'quick' }));
    const { status, stdout, messages, modules } = startAsKustomize(dir);
    expect(messages).toEqual([]);
    expect(status).toBe(0);
    expect(stdout).toContain('kind: AgentClusterInstall');
    const ours = modules.filter((path) => !path.startsWith('node_modules/'));
    expect(ours.sort()).toEqual([
      'bin/siteforge.js',
      'build/src/plugins/argocd/kustomize-bundle.js',
      'build/src/plugins/cli/entry-point.js',
    ]);
    const libraries = new Set(
      modules
        .filter((path) => path.startsWith('node_modules/'))
        .map((path) =>
          path
            .split('/')
            .slice(1, path.startsWith('node_modules/@') ? 3 : 2)
            .join('/'),
        ),
    );
    // ajv's string-length helper is what the precompiled schema validator calls at run time.
    expect([...libraries]).toEqual(['ajv']);
  });

  it('writes what the unbundled plugin writes, errors at the user file and line included', () => {
    const good = kustomizationRoot(snoSite({ name: 'same' }));
    const bad = kustomizationRoot(
      `# a comment kustomize drops\n${snoSite({ name: 'bad', node: '          bootMode: BIOS\n' })}`,
    );
    for (const dir of [good, bad]) {
      const bundled = startAsKustomize(dir);
      let stdout = '';
      let stderr = '';
      const status = runKustomizePlugin(['kust-plugin-config-1'], {
        cwd: dir,
        env: {},
        stdout: (text) => (stdout += text),
        stderr: (text) => (stderr += text),
      });
      expect(bundled.status).toBe(status);
      expect(bundled.stdout).toBe(stdout);
      expect(bundled.messages.join('\n')).toBe(stderr.trimEnd());
    }
  });

  it('finds the code cache the build made for this very bundle, and V8 takes it', () => {
    const bundle = loadKustomizeBundle(builtDir);
    expect(bundle?.buildId).toMatch(/^[0-9a-f-]{36}$/);
    expect(bundle?.cacheRejected).toBe(false);
  });
});

describe('without a usable bundle', () => {
  it('runs the plugin through the CLI when the build made no bundle (tests run src/)', async () => {
    const dir = kustomizationRoot(snoSite({ name: 'plain' }));
    let stdout = '';
    const status = await runSiteforge(['kustomize-plugin', 'kust-plugin-config-1'], {
      cwd: dir,
      stdout: (text) => (stdout += text),
      stderr: () => undefined,
    });
    expect(status).toBe(0);
    expect(stdout).toContain('kind: BareMetalHost');
  });

  it('never uses a code cache made for another build of the bundle', () => {
    // Inside the package, where the bundle finds its libraries.
    const dir = mkdtempSync(join(repoRoot, 'build', 'kustomize-start-test-'));
    temps.push(dir);
    const source = readFileSync(join(builtDir, KUSTOMIZE_BUNDLE_FILE), 'utf8');
    const otherId = '00000000-0000-0000-0000-000000000000';
    writeFileSync(join(dir, KUSTOMIZE_BUNDLE_FILE), source);
    writeFileSync(join(dir, codeCacheFile(otherId)), 'not for this bundle');
    const bundle = loadKustomizeBundle(dir);
    expect(bundle?.buildId).not.toBe(otherId);
    expect(bundle?.cacheRejected).toBeUndefined();
    expect(source.startsWith(BUNDLE_ID_PREFIX)).toBe(true);
  });
});
