// `node scripts/extra-manifests-encode.js [--check]`
//
// In the shipped extra-manifest sets (extra-manifests/<set>/), every file a MachineConfig
// writes to the node is shown in clear as a comment block of `# | ` lines right above its
// Ignition `source:` line, and the data URL below it is the base64 of exactly that text (one
// trailing newline added). Edit the comment, run this script to re-encode, review both.
// With --check nothing is written; stale data URLs are listed and the exit code is 1.
// (test/siteconfig/extra-manifests.test.ts checks the same invariant.)
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const setsDir = join(root, 'extra-manifests');
const check = process.argv.includes('--check');
const SOURCE = /^(\s*)source: data:text\/plain;charset=utf-8;base64,(\S*)$/;

function yamlFiles(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return yamlFiles(path);
      return /\.ya?ml(\.tmpl)?$/.test(name) ? [path] : [];
    });
}

/** Re-encodes every commented data URL of a file; returns the new text. */
function encode(text) {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const match = SOURCE.exec(lines[i]);
    if (!match) continue;
    const indent = match[1];
    const block = [];
    for (let j = i - 1; j >= 0; j--) {
      const line = lines[j];
      if (line === `${indent}# |`) block.unshift('');
      else if (line.startsWith(`${indent}# | `)) block.unshift(line.slice(indent.length + 4));
      else break;
    }
    if (block.length === 0) continue;
    const encoded = Buffer.from(`${block.join('\n')}\n`, 'utf8').toString('base64');
    lines[i] = `${indent}source: data:text/plain;charset=utf-8;base64,${encoded}`;
  }
  return lines.join('\n');
}

let stale = 0;
for (const file of yamlFiles(setsDir)) {
  const text = readFileSync(file, 'utf8');
  const encoded = encode(text);
  if (encoded === text) continue;
  stale++;
  if (check) console.log(`stale data URL in ${relative(root, file)}`);
  else {
    writeFileSync(file, encoded);
    console.log(`re-encoded ${relative(root, file)}`);
  }
}
if (check && stale > 0) process.exit(1);
