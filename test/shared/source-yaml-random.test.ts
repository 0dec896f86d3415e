import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { parseYamlFile } from '../../src/shared/source-yaml.js';
import { emitYaml } from '../../src/shared/yaml-emit.js';
import { rng } from '../support/random.js';

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
  // White space to String#trim and \s, not to YAML: kept in values, keys and block scalars.
  'compact-1\u00a0',
  '09\u00a0',
  '\u3000lead',
  'mid\u2003dle',
  '\ufeffbom',
  'tail\u200a',
  '\u2000',
  'x\u00a0#y',
  'k:\u00a0v',
  '1\u202f',
];

/** Endings for keys, so that keys too carry the Unicode spaces. */
const KEY_ENDS = ['', '', '', '\u00a0', '\u3000', '\u2009', '\ufeff'];

function pick<T>(next: () => number, list: readonly T[]): T {
  return list[Math.floor(next() * list.length)]!;
}

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
    obj[
      `${WORDS[Math.floor(next() * 6)]!.replace(/[^a-z0-9]/g, '')}k${String(i)}${pick(next, KEY_ENDS)}`
    ] = randomValue(next, depth + 1);
  return obj;
}

/**
 * Writes block YAML by hand with varying indentation, indentless sequences and comments. When
 * `wild`, some of what it writes is not YAML (a string written plain that cannot be, a comment
 * glued to a scalar): the reader must then refuse it as the library does.
 */
function handWritten(
  value: unknown,
  next: () => number,
  indent: number,
  step: number,
  wild = true,
): string {
  const pad = ' '.repeat(indent);
  const comment = (afterScalar = false): string => {
    const r = next();
    return r < 0.15 ? ' # note' : r < 0.25 && wild && afterScalar ? '# glued' : '';
  };
  const scalar = (v: unknown): string => {
    if (typeof v !== 'string') return String(v);
    const style = next();
    if (style < 0.3 && (wild ? !/[\n\t]/.test(v) && !v.startsWith(' ') : /^[a-z]+$/.test(v)))
      return v;
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
          return `${pad}-${comment()}\n${handWritten(item, next, indent + step, step, wild)}`;
        }
        return `${pad}- ${item !== null && typeof item === 'object' ? (Array.isArray(item) ? '[]' : '{}') : scalar(item)}${comment(true)}\n`;
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
          return `${pad}${k}:${comment()}\n${handWritten(v, next, indentless ? indent : indent + step, step, wild)}`;
        }
        const text =
          v !== null && typeof v === 'object' ? (Array.isArray(v) ? '[]' : '{}') : scalar(v);
        return `${pad}${k}: ${text}${comment(true)}\n`;
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

/**
 * Maps that share keys, anchored, and maps that merge them with `<<: *a` or `<<: [*a, *b]`
 * (or a map written in place) before, between or after their own keys.
 */
function mergeDocument(next: () => number): string {
  const keys = ['role', 'name', 'bootMode', 'k\u00a0', 'labels'];
  const randomMap = (): Record<string, unknown> => {
    const map: Record<string, unknown> = {};
    for (let i = 1 + Math.floor(next() * 3); i > 0; i--)
      map[pick(next, keys)] = randomValue(next, 3);
    return map;
  };
  const anchors = 1 + Math.floor(next() * 3);
  let text = '';
  for (let a = 0; a < anchors; a++)
    text += `base${String(a)}: &b${String(a)}\n${handWritten(randomMap(), next, 2, 2, false)}`;
  text += 'objects:\n';
  for (let o = Math.floor(next() * 4); o >= 0; o--) {
    const sources = Array.from({ length: 1 + Math.floor(next() * 3) }, () =>
      next() < 0.8 ? `*b${String(Math.floor(next() * anchors))}` : '{name: inline, k: 1}',
    );
    const merge =
      sources.length === 1 && next() < 0.5
        ? `<<: ${sources[0]!}\n`
        : `<<: [${sources.join(', ')}]\n`;
    // Each own key with the lines of its value, and the merge key between two of them.
    const entries = Object.entries(randomMap()).map(([k, v]) =>
      handWritten({ [k]: v }, next, 0, 2, false),
    );
    entries.splice(Math.floor(next() * (entries.length + 1)), 0, merge);
    const lines = entries.join('').split(/(?<=\n)/);
    text += lines.map((line, i) => `${i === 0 ? '  - ' : '    '}${line}`).join('');
  }
  return text;
}

/**
 * What the yaml library makes of `text`: the values, or undefined when it refuses the text
 * (a syntax error, or a merge of something that is not a map, which it throws in toJS()).
 */
function libraryRead(text: string, merge: boolean): unknown[] | undefined {
  const docs = parseAllDocuments(text, { merge });
  if (docs.some((d) => d.errors.length > 0)) return undefined;
  try {
    return docs.map((d) => d.toJS() as unknown);
  } catch {
    return undefined;
  }
}

/** Asserts that both readers refuse `text`, or that both read the same values from it. */
function expectAgreement(text: string, merge: boolean, locations: boolean, context: string): void {
  const expected = libraryRead(text, merge);
  const parsed = parseYamlFile('random.yaml', text, { locations });
  if (expected === undefined) {
    expect(parsed.errors, `refused by the library: ${context}`).not.toEqual([]);
    return;
  }
  expect(parsed.errors, context).toEqual([]);
  expect(
    parsed.documents.map((d) => plain(d.value)),
    context,
  ).toEqual(expected);
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
      for (const [style, text] of texts.entries()) {
        const context = `seed ${String(seed)}\n${text}`;
        // The emitters write YAML; only the hand-writer may write what must be refused.
        if (style < 2) expect(libraryRead(text, false), context).toBeDefined();
        expectAgreement(text, false, seed % 2 === 0, context);
      }
    }
  });

  it('merges merge keys as the yaml library does with merge keys on, in 300 random documents', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const text = mergeDocument(rng(seed));
      expectAgreement(text, true, seed % 2 === 0, `seed ${String(seed)}\n${text}`);
    }
  });
});
