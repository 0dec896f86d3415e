// Regenerates test/golden/extra-manifests/*.yaml, the reviewed extra-manifest ConfigMap data of
// the scenarios in test/siteconfig/extra-manifests.test.ts: runs that test file with
// SITEFORGE_GOLDEN_UPDATE=1, which makes its golden() checks write instead of compare.
// Review the diff like code before committing it.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
execFileSync(
  process.execPath,
  [
    join(root, 'node_modules', 'vitest', 'vitest.mjs'),
    'run',
    'test/siteconfig/extra-manifests.test.ts',
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, SITEFORGE_GOLDEN_UPDATE: '1' } },
);
console.log('updated test/golden/extra-manifests/');
