import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { emitYaml, emitYamlStream } from '../../src/shared/yaml-emit.js';

const tricky = [
  '',
  ' ',
  'plain',
  'with space',
  'trailing ',
  ' leading',
  'yes',
  'no',
  'on',
  'off',
  'Y',
  'null',
  '~',
  'true',
  'False',
  '1',
  '-1',
  '+1',
  '0o17',
  '0x1F',
  '1e3',
  '1_000',
  '.5',
  '.inf',
  '-.inf',
  '.nan',
  '4.16',
  '1.2.3',
  '00:11:22:33:44:55',
  'aa:bb:cc:dd:ee:ff',
  '1:20',
  '2001-12-14',
  'fd00::1',
  'http://example.com:8080/x',
  'a: b',
  'a:',
  'a #b',
  '#c',
  '- item',
  '-',
  '?',
  '[x]',
  '{x}',
  '&a',
  '*a',
  '!tag',
  '|',
  '>',
  '%',
  '@x',
  '`x',
  '"q"',
  "'q'",
  'back\\slash',
  'tab\tinside',
  'line1\nline2',
  'line1\nline2\n',
  'line1\n\nline3\n\n',
  '\nleading newline',
  '  indented\nblock',
  'a\n  \nb',
  'ctrl\u0001char',
  'del\u007f',
  'é unicode ✓',
  '\u2028',
  'carriage\r\nreturn',
  '{"networking":{"networkType":"OVNKubernetes"}}',
  '0b101',
  '=',
  'a,b',
  '*',
];

describe('emitYaml', () => {
  it('writes every tricky string so that it reads back unchanged', () => {
    for (const text of tricky) {
      const doc = { [text || 'empty']: text, list: [text, { k: text }] };
      expect(parse(emitYaml(doc)), JSON.stringify(text)).toEqual(doc);
    }
  });

  it('writes nested maps and sequences, numbers, booleans and empty collections', () => {
    const value = {
      kind: 'Thing',
      spec: {
        list: [{ a: 1, b: [true, false, null] }, [1, 2], 'x', {}, []],
        empty: {},
        none: [],
        float: 1.5,
        negative: -3,
        deep: { deeper: { deepest: 'ok' } },
      },
    };
    expect(parse(emitYaml(value))).toEqual(value);
  });

  it('sorts map keys so equal data gives equal bytes', () => {
    expect(emitYaml({ b: 1, a: { d: 1, c: 2 } })).toBe('a:\n  c: 2\n  d: 1\nb: 1\n');
  });

  it('uses literal blocks for multi-line text', () => {
    expect(emitYaml({ data: { 'x.yaml': 'kind: A\nmetadata: {}\n' } })).toBe(
      'data:\n  x.yaml: |\n    kind: A\n    metadata: {}\n',
    );
  });

  it('quotes strings that Go YAML 1.1 readers (the API server, kubectl, Argo CD) read as numbers', () => {
    const texts = ['0X1F', '+0x1F', '0xFF_FF', '0x_1F', '+0o17', '+0b101', '+_1', '1e3_', '0b+1'];
    expect(emitYaml(texts)).toBe(texts.map((t) => `- '${t}'\n`).join(''));
  });

  it('quotes text whose first line starts with a tab, which Go refuses as a literal block', () => {
    expect(emitYaml({ a: '\tindented\nnext' })).toBe('a: "\\tindented\\nnext"\n');
  });

  it('indents a literal block at the top of a document, as libyaml-based readers require', () => {
    expect(emitYaml('line1\nline2\n')).toBe('|\n  line1\n  line2\n');
  });

  it('quotes `...` where it would end the document', () => {
    expect(emitYaml({ '... x': '...' })).toBe("'... x': '...'\n");
  });

  it('writes a --- separated stream', () => {
    const stream = emitYamlStream([{ a: 1 }, { b: [1] }]);
    expect(parseAllDocuments(stream).map((d) => d.toJS() as unknown)).toEqual([
      { a: 1 },
      { b: [1] },
    ]);
  });
});
