// `npm run golden:update`: regenerates test/golden/<example>.yaml from examples/sites with the
// built CLI. Review the diff like code before committing it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
const examples = join(root, 'examples', 'sites');
const golden = join(root, 'test', 'golden');
mkdirSync(golden, { recursive: true });
for (const file of readdirSync(examples)
  .filter((f) => f.endsWith('.yaml'))
  .sort()) {
  const output = execFileSync(
    process.execPath,
    [join(root, 'bin', 'siteforge.js'), 'generate', join('examples', 'sites', file)],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  writeFileSync(join(golden, file), output);
  console.log(`updated test/golden/${basename(file)}`);
}
