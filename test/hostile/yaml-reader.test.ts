/**
 * Attacks on SiteForge's YAML reader: files anyone with push access to a sites repo writes, read
 * by a repo-server sidecar that many teams share. Each must end in a positioned error, quickly
 * and in little memory, never in a hang, an out-of-memory kill or a stack overflow (exit 70).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultLimits } from '../../src/shared/limits.js';
import { parseYamlFile } from '../../src/shared/source-yaml.js';
import { repoRoot } from '../support/sites.js';

/**
 * The billion laughs: nine anchored lists, each of nine aliases of the one before, so the last
 * stands for 9^9 (387 million) strings in a few hundred bytes.
 */
function billionLaughs(indent = ''): string {
  let text = `${indent}l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n`;
  for (let level = 1; level <= 8; level++) {
    const aliases = Array.from({ length: 9 }, () => `*l${String(level - 1)}`).join(', ');
    text += `${indent}l${String(level)}: &l${String(level)} [${aliases}]\n`;
  }
  return text;
}

/** `depth` maps, each the only value of the one above it, written in block style. */
function blockNesting(depth: number): string {
  let text = '';
  for (let level = 0; level < depth; level++) text += `${' '.repeat(level)}k:\n`;
  return text;
}

const siteConfigHead =
  'apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nmetadata:\n  name: bomb\n  namespace: bomb\nspec:\n';

describe('alias bombs', () => {
  it('refuses a billion laughs at the alias that goes over the limit, without expanding it', () => {
    const parsed = parseYamlFile('bomb.yaml', billionLaughs());
    expect(parsed.documents).toEqual([]);
    // l1, l2 and l3 expand to 9, 90 and 819 dereferences; the first *l3 in l4 adds 820 more.
    expect(parsed.errors).toEqual([
      {
        file: 'bomb.yaml',
        pos: { line: 5, column: 10 },
        code: 'LIMIT_ALIASES',
        message:
          'aliases expand to more than 1000 alias dereferences in this document (the aliases limit); an alias bomb?',
        hint: expect.stringContaining(
          'raise it with --limit aliases=N or SITEFORGE_LIMIT_ALIASES=N',
        ) as string,
      },
    ]);
  });

  it('refuses few aliases of one large anchored value, by the nodes they copy', () => {
    const big = Array.from({ length: 1_000 }, (_, i) => `n${String(i)}`).join(', ');
    const copies = Array.from({ length: 200 }, () => '*big').join(', ');
    // Each *big copies 1,001 nodes: the 100th goes over 100,000.
    const parsed = parseYamlFile('copies.yaml', `big: &big [${big}]\ncopies: [${copies}]\n`);
    expect(parsed.documents).toEqual([]);
    expect(parsed.errors).toMatchObject([
      { code: 'LIMIT_ALIASED_NODES', pos: { line: 2, column: 10 + 6 * 99 } },
    ]);
  });

  it('enforces the limits it is given, and reads a document within them', () => {
    const text = 'a: &a {x: 1}\nb: *a\nc: *a\nd: *a\n';
    const tight = { ...defaultLimits, aliases: 2 };
    expect(parseYamlFile('f.yaml', text, { limits: tight }).errors).toMatchObject([
      { code: 'LIMIT_ALIASES', pos: { line: 4, column: 4 } },
    ]);
    expect(JSON.parse(JSON.stringify(parseYamlFile('f.yaml', text).documents[0]!.value))).toEqual({
      a: { x: 1 },
      b: { x: 1 },
      c: { x: 1 },
      d: { x: 1 },
    });
  });

  it('refuses an alias of the collection that contains it', () => {
    expect(parseYamlFile('loop.yaml', 'a: &a\n  b: *a\n').errors).toMatchObject([
      { code: 'YAML_BAD_ALIAS', pos: { line: 2, column: 6 } },
    ]);
  });

  it('counts the dereferences of merge keys too', () => {
    let text = 'base: &base {x: 1}\n';
    for (let i = 0; i < 1_001; i++) text += `m${String(i)}: {<<: *base}\n`;
    expect(parseYamlFile('merges.yaml', text).errors).toMatchObject([
      { code: 'LIMIT_ALIASES', pos: { line: 1_002, column: 13 } },
    ]);
  });
});

describe('deep nesting', () => {
  it('refuses block nesting 3,000 deep at the first collection past the limit', () => {
    const parsed = parseYamlFile('deep.yaml', blockNesting(3_000));
    expect(parsed.documents).toEqual([]);
    expect(parsed.errors).toEqual([
      {
        file: 'deep.yaml',
        pos: { line: 257, column: 257 },
        code: 'LIMIT_NESTING_DEPTH',
        message: 'collections nest more than 256 deep (the nestingDepth limit)',
        hint: expect.stringContaining(
          'raise it with --limit nesting-depth=N or SITEFORGE_LIMIT_NESTING_DEPTH=N',
        ) as string,
      },
    ]);
  });

  it('refuses flow nesting a million deep (2 MB of brackets) the same way', () => {
    const parsed = parseYamlFile('deep.yaml', `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}\n`);
    expect(parsed.errors).toMatchObject([
      { code: 'LIMIT_NESTING_DEPTH', pos: { line: 1, column: 257 } },
    ]);
  });

  it('refuses deep block nesting in a file that anchors (read by the library, not the fast path)', () => {
    const parsed = parseYamlFile('deep.yaml', `a: &a 1\n${blockNesting(3_000)}`);
    expect(parsed.errors).toMatchObject([
      { code: 'LIMIT_NESTING_DEPTH', pos: { line: 258, column: 257 } },
    ]);
  });

  it('refuses aliases that nest past the limit once expanded', () => {
    const deep = (depth: number, inner: string): string =>
      `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
    const parsed = parseYamlFile('deep.yaml', `a: &a ${deep(200, 'x')}\nb: ${deep(100, '*a')}\n`);
    expect(parsed.errors).toMatchObject([
      { code: 'LIMIT_NESTING_DEPTH', pos: { line: 2, column: 104 } },
    ]);
  });

  it('keeps the other documents of a block-style file when one is too deep', () => {
    const parsed = parseYamlFile('deep.yaml', `a: 1\n---\n${blockNesting(300)}---\nb: 2\n`);
    expect(parsed.documents.map((d) => JSON.stringify(d.value))).toEqual(['{"a":1}', '{"b":2}']);
    expect(parsed.errors).toMatchObject([{ code: 'LIMIT_NESTING_DEPTH' }]);
  });
});

describe('siteforge validate on hostile files', () => {
  /** Runs the real binary (built by the global setup); a hang would end at the timeout. */
  function validate(
    text: string,
    ...flags: string[]
  ): { status: number | null; stderr: string; file: string } {
    const file = join(mkdtempSync(join(tmpdir(), 'siteforge-hostile-')), 'site.yaml');
    writeFileSync(file, text);
    const result = spawnSync(
      process.execPath,
      [join(repoRoot, 'bin', 'siteforge.js'), 'validate', ...flags, file],
      { encoding: 'utf8', timeout: 20_000 },
    );
    return { status: result.status, stderr: result.stderr, file };
  }

  it('exits 1 with FILE:LINE:COL on a SiteConfig that is an alias bomb', () => {
    const { status, stderr, file } = validate(siteConfigHead + billionLaughs('  '));
    expect(stderr).toContain(`${file}:11:12: error LIMIT_ALIASES: aliases expand to more than`);
    expect(stderr).toContain('--limit aliases=N');
    expect(status).toBe(1);
  });

  it('exits 1 with FILE:LINE:COL on nesting 3,000 deep', () => {
    // Indented 3,000 deep, the file is 4.5 MB: past the file-size limit, which is raised here so
    // that the reader meets the nesting itself.
    const { status, stderr, file } = validate(
      siteConfigHead + blockNesting(3_000),
      '--limit',
      'file-bytes=8Mi',
    );
    expect(stderr).toContain(`${file}:263:257: error LIMIT_NESTING_DEPTH:`);
    expect(status).toBe(1);
  });
});
