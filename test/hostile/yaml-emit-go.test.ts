import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { emitYaml, emitYamlStream } from '../../src/shared/yaml-emit.js';
import { GO_READERS, goYamlReader, readWithGo } from '../support/go-yaml-reader.js';
import { randomStrings, rng } from '../support/random.js';
import { YAML11_FORMS } from '../support/yaml11-forms.js';

/**
 * What SiteForge writes is read by the API server, kubectl and Argo CD (sigs.k8s.io/yaml, which
 * is yaml.v2: YAML 1.1) and by siteconfig-generator (yaml.v3), not only by the `yaml` package we
 * test with. Every string must come back from each of them as the same string.
 */

/** One reader that did not give back what was written. */
interface Misread {
  readonly reader: string;
  readonly wrote: unknown;
  readonly yaml: string;
  readonly read: unknown;
}

/** Each text as a whole document, and as a value, a sequence item and a key inside maps. */
function documentsFor(text: string): unknown[] {
  return [text, { value: text, list: [text, { k: text }], keyed: { [text]: text } }];
}

function readWithYamlPackage(yaml: string): unknown {
  try {
    return { value: parse(yaml) as unknown };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

describe('emitted YAML read by Go YAML 1.1 readers (sigs.k8s.io/yaml, yaml.v2, yaml.v3) and `yaml`', () => {
  let bin: string;
  beforeAll(() => {
    bin = goYamlReader();
  }, 300_000);

  /** Emits every document and reads it back with all four readers. */
  function misreads(documents: readonly unknown[]): { count: number; first: Misread[] } {
    const yamls = documents.map((doc) => emitYaml(doc));
    const go = readWithGo(bin, yamls);
    const found: Misread[] = [];
    documents.forEach((wrote, i) => {
      const yaml = yamls[i] ?? '';
      const readings: [string, unknown][] = [
        ['yaml', readWithYamlPackage(yaml)],
        ...GO_READERS.map((reader): [string, unknown] => [reader, go[i]?.[reader]]),
      ];
      for (const [reader, read] of readings)
        if (!isDeepStrictEqual(read, { value: wrote })) found.push({ reader, wrote, yaml, read });
    });
    return { count: found.length, first: found.slice(0, 8) };
  }

  const none = { count: 0, first: [] };

  it('writes the hex, octal and binary look-alikes of issue 9 so that Kubernetes reads strings', () => {
    const texts = ['0X1F', '+0x1F', '0xFF_FF', '0x_1F', '+0o17', '+0b101'];
    expect(misreads(texts.flatMap(documentsFor))).toEqual(none);
  });

  it('writes every YAML 1.1 resolver form (ints in bases 2/8/10/16/60, floats, booleans, null, timestamps, <<, =) as a string', () => {
    expect(misreads(YAML11_FORMS.flatMap(documentsFor))).toEqual(none);
  });

  it('writes multi-line text that Go reads back: leading tabs, spaces, blank lines, carriage returns', () => {
    const texts = [
      '\tstarts with a tab\nsecond',
      '\t\n',
      'first\n\tsecond starts with a tab',
      'a\n\t\nb',
      'trailing newline\n',
      'two trailing newlines\n\n',
      'three\n\n\n',
      '\n',
      '\n\nafter blank lines',
      ' leading space\nsecond',
      'a\n  \nb',
      'trailing spaces  \nsecond  ',
      'crlf\r\nline',
      'cr\ronly',
      'a\n...\nb',
      'a\n---\nb',
      '...\n',
      'a\n# not a comment\n',
      '- a\n- b\n',
      'key: value\nlist:\n  - x\n',
      'nel\u0085line',
      'ls\u2028ps\u2029end',
      'nbsp\u00a0\nideographic\u3000\n',
      '😀\n\u00e9\n',
      '0x1F\nyes\n',
    ];
    expect(misreads(texts.flatMap(documentsFor))).toEqual(none);
  });

  it('writes 4,000 random tricky strings that every reader reads back (seed 6)', () => {
    const alphabet = [
      ...Array.from('+-019_:.eExX#|>!&*%@`{}[],?\'"\\~='),
      ...['0x', '0o', '0b', '0X', '0O', '0B', '.inf', '.NaN', '1e3', '1_000', '2001-12-14'],
      ...['y', 'n', 'on', 'Off', 'yes', 'NO', 'true', 'null', '<<', '...', '---', 'a', 'word'],
      ...[' ', '  ', '\t', '\n', '\n\n', '\r', '- ', ': ', ' #', '? '],
      ...['\u00a0', '\u3000', '\u2000', '\u2003', '\u200a', '\ufeff', '\u0085', '\u2028'],
      ...['\u0001', '\u007f', '\ufffe', '\u00e9', '\u4e2d', '😀'],
    ];
    const texts = randomStrings(rng(6), alphabet, 4_000, 8);
    expect(misreads(texts.flatMap(documentsFor))).toEqual(none);
  });

  it('writes keys past the 1,024-character limit of implicit keys so that they can be read', () => {
    const keys = [
      'a'.repeat(1023),
      'a'.repeat(1024),
      '0x1F'.repeat(500),
      'é'.repeat(2000),
      '\t'.repeat(600),
    ];
    const values = ['v', 'two\nlines\n', { nested: ['x', { k: 'y' }] }, ['item'], {}, []];
    const documents = keys.flatMap((key) =>
      values.map((value) => ({ outer: { [key]: value }, list: [{ [key]: value }] })),
    );
    expect(misreads(documents)).toEqual(none);
  });

  it('keeps ordinary strings plain, as the golden files show them', () => {
    const ordinary = {
      name: 'du-sno-1',
      version: 'openshift-4.18.12',
      cidr: '10.16.231.0/24',
      ipv6: 'fd00::1',
      mac: 'aa:bb:cc:dd:ee:ff',
      url: 'http://example.com:8080/x',
      words: 'ssh-ed25519 AAAA admin@example.com',
      yesish: 'Yes-please',
      hexish: '0xcafe-beef',
    };
    expect(emitYaml(ordinary)).toBe(
      Object.entries(ordinary)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => `${k}: ${v}\n`)
        .join(''),
    );
  });

  it('writes the golden outputs so that every Go reader reads the objects `yaml` reads', () => {
    const golden = join(import.meta.dirname, '..', 'golden');
    const files = readdirSync(golden).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(0);
    const objects = files.flatMap((file) =>
      parseAllDocuments(readFileSync(join(golden, file), 'utf8')).map((d) => d.toJS() as unknown),
    );
    // The emitter wrote these files: writing their objects again gives the same bytes.
    for (const file of files) {
      const text = readFileSync(join(golden, file), 'utf8');
      const docs = parseAllDocuments(text).map((d) => d.toJS() as unknown);
      expect(emitYamlStream(docs), file).toBe(text);
    }
    expect(misreads(objects)).toEqual(none);
  });
});
