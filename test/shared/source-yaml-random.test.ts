import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { parseYamlFile } from '../../src/shared/source-yaml.js';
import { emitYaml } from '../../src/shared/yaml-emit.js';

/** Small deterministic PRNG (mulberry32), so a failure can be replayed from its seed. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'eno1',
  'true',
  'no',
  '~',
  '10.0.0.1',
  'fd00::1',
  '0x1F',
  '1e3',
  '4.18',
  'a: b',
  '# x',
  "it's",
  'say "hi"',
  '',
  ' pad',
  'x #y',
  '- dash',
  '[1]',
  '{}',
  '*ref',
  '&anc',
  '!tag',
  'é✓',
  'multi\nline\n',
  'tab\there',
  '@at',
  '%pct',
  'null',
  '00:11:22:33:44:55',
  'http://h:1/p',
  '-1',
  '.5',
  'key:',
];

function randomValue(next: () => number, depth: number): unknown {
  const r = next();
  if (depth > 3 || r < 0.45) {
    const s = next();
    if (s < 0.6) return WORDS[Math.floor(next() * WORDS.length)];
    if (s < 0.75) return Math.floor(next() * 2000) - 1000;
    if (s < 0.85) return next() < 0.5;
    if (s < 0.9) return null;
    return Math.round(next() * 1000) / 8;
  }
  if (r < 0.7)
    return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  const obj: Record<string, unknown> = {};
  for (let i = Math.floor(next() * 5); i > 0; i--)
    obj[`${WORDS[Math.floor(next() * 6)]!.replace(/[^a-z0-9]/g, '')}k${String(i)}`] = randomValue(
      next,
      depth + 1,
    );
  return obj;
}

/** Writes block YAML by hand with varying indentation, indentless sequences and comments. */
function handWritten(value: unknown, next: () => number, indent: number, step: number): string {
  const pad = ' '.repeat(indent);
  const comment = (): string => (next() < 0.2 ? ' # note' : '');
  const scalar = (v: unknown): string => {
    if (typeof v !== 'string') return String(v);
    const style = next();
    if (style < 0.3 && /^[a-z][a-z0-9.]*$/.test(v) && !['true', 'no', 'null'].includes(v)) return v;
    if (style < 0.6 && !v.includes('\n') && !v.includes('\t')) return `'${v.replace(/'/g, "''")}'`;
    return JSON.stringify(v);
  };
  if (Array.isArray(value)) {
    if (value.length === 0) return `${pad}[]\n`;
    return value
      .map((item) => {
        if (
          item !== null &&
          typeof item === 'object' &&
          !(Array.isArray(item) && item.length === 0) &&
          Object.keys(item as object).length > 0
        ) {
          return `${pad}-${comment()}\n${handWritten(item, next, indent + step, step)}`;
        }
        return `${pad}- ${item !== null && typeof item === 'object' ? (Array.isArray(item) ? '[]' : '{}') : scalar(item)}${comment()}\n`;
      })
      .join('');
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return `${pad}{}\n`;
    return entries
      .map(([k, v]) => {
        if (v !== null && typeof v === 'object' && Object.keys(v as object).length > 0) {
          const indentless = Array.isArray(v) && next() < 0.5;
          return `${pad}${k}:${comment()}\n${handWritten(v, next, indentless ? indent : indent + step, step)}`;
        }
        const text =
          v !== null && typeof v === 'object' ? (Array.isArray(v) ? '[]' : '{}') : scalar(v);
        return `${pad}${k}: ${text}${comment()}\n`;
      })
      .join('');
  }
  return `${pad}${scalar(value)}\n`;
}

function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

describe('parseYamlFile on random documents', () => {
  it('agrees with the yaml library on 400 random block documents in three writing styles', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const next = rng(seed);
      const value = { root: randomValue(next, 0), list: [randomValue(next, 1)] };
      const texts = [
        emitYaml(value),
        stringify(value),
        handWritten(value, next, 0, next() < 0.5 ? 2 : 4),
      ];
      for (const text of texts) {
        const expected = parseAllDocuments(text).map((d) => d.toJS() as unknown);
        const parsed = parseYamlFile('random.yaml', text, { locations: seed % 2 === 0 });
        expect(parsed.errors, `seed ${String(seed)}\n${text}`).toEqual([]);
        expect(
          parsed.documents.map((d) => plain(d.value)),
          `seed ${String(seed)}\n${text}`,
        ).toEqual(expected);
      }
    }
  });
});
