// `npm run docs:rules`: rewrites the rule table of docs/compatibility.md from the rule registry
// (src/siteconfig/rules/) with the built sources. test/siteconfig/rules/registry.test.ts fails
// while the committed page differs from what this writes.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
const build = join(root, 'build', 'src', 'siteconfig', 'rules');
const { rules } = await import(pathToFileURL(join(build, 'index.js')).href);
const { withRuleTable } = await import(pathToFileURL(join(build, 'table.js')).href);
const page = join(root, 'docs', 'compatibility.md');
const before = readFileSync(page, 'utf8');
const after = withRuleTable(before, rules);
if (after === before) {
  console.log('docs/compatibility.md: the rule table is up to date');
} else {
  writeFileSync(page, after);
  console.log(`docs/compatibility.md: rule table rewritten (${String(rules.length)} rules)`);
}
