import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Builds src/ into build/ once per test run, so the tests that spawn the real `siteforge`
 * binary run the code under test, never a stale build.
 */
export default function setup(): void {
  const root = join(import.meta.dirname, '..', '..');
  execFileSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
}
