// `npm run golden:update`: regenerates test/golden/<example>.yaml from examples/sites (and the
// ClusterInstance examples in examples/clusterinstance) with the built CLI, and
// test/golden/<example>.clusterinstance.yaml with --format clusterinstance. Review the diff like
// code before committing it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
const exampleDirs = [join('examples', 'sites'), join('examples', 'clusterinstance')];
const golden = join(root, 'test', 'golden');
mkdirSync(golden, { recursive: true });
const formats = [
  { args: [], suffix: '.yaml' },
  { args: ['--format', 'clusterinstance'], suffix: '.clusterinstance.yaml' },
];
for (const dir of exampleDirs)
  for (const file of readdirSync(join(root, dir))
    .filter((f) => f.endsWith('.yaml'))
    .sort())
    for (const { args, suffix } of formats) {
      const output = execFileSync(
        process.execPath,
        [join(root, 'bin', 'siteforge.js'), 'generate', ...args, join(dir, file)],
        {
          cwd: root,
          encoding: 'utf8',
        },
      );
      const name = `${basename(file, '.yaml')}${suffix}`;
      writeFileSync(join(golden, name), output);
      console.log(`updated test/golden/${name}`);
    }
