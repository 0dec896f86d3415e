import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const src = join(root, 'src');

/** Every .ts file below src/, except the generated CRD types. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'imports' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative imports of a module (type-only ones too: they tie the two files as tightly). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = text.matchAll(
    /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)\.js'/g,
  );
  return [...new Set([...found].map((m) => resolve(dirname(file), `${m[1]!}.ts`)))];
}

describe('the module graph', () => {
  const graph = new Map(sourceFiles(src).map((file) => [file, importsOf(file)]));

  it('has no two modules that import each other', () => {
    const pairs: string[] = [];
    for (const [file, imports] of graph)
      for (const target of imports)
        if (file < target && graph.get(target)?.includes(file))
          pairs.push(`${relative(root, file)} <-> ${relative(root, target)}`);
    expect(pairs).toEqual([]);
  });

  it('sees the imports it checks (the scan itself works)', () => {
    const main = graph.get(join(src, 'plugins', 'cli', 'main.ts'));
    expect(main).toContain(join(src, 'plugins', 'cli', 'cli-io.ts'));
  });
});
