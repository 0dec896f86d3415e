import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { hasLocations, locate, parseYamlFile, rawText } from '../../src/shared/source-yaml.js';

/** What the reference library makes of the same text. */
function reference(text: string): unknown[] {
  return parseAllDocuments(text).map((doc) => doc.toJS() as unknown);
}

/** A deep copy without the symbol-keyed location tables. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

const cases: Record<string, string> = {
  'block maps and sequences': 'a: 1\nb:\n  c: two\n  d:\n    - x\n    - y: 1\n      z: 2\n',
  'indentless sequence': 'list:\n- a\n- b\nnext: 3\n',
  'scalars of the core schema':
    'n: null\nt: ~\ne:\nb: true\nB: False\ni: -12\no: 0o17\nh: 0x1F\nf: 1.5\nx: 1e3\ninf: -.inf\nnan: .NaN\nv: 4.16\nmac: 00:11:22:33:44:55\nip6: fd00::1\n',
  'quoted scalars and keys': `"quoted key": 'it''s'\nd: "tab\\tnew\\nline \\u00e9 \\"q\\""\ns: '# not a comment'\n`,
  'comments everywhere':
    '# head\na: 1 # trailing\n  # indented comment\nb: # empty value\nc:\n  # before child\n  - 1 # one\n',
  'literal and folded block scalars':
    'l: |\n  line 1\n    indented\n\n  line 3\nk: |-\n  no newline\nf: >\n  folded\n  text\n\n  para\ng: >-\n  x\n  y\nz: 1\n',
  'several documents': '---\na: 1\n---\n# only a comment\nb: 2\n...\n',
  'documents with an empty one': 'a: 1\n---\n---\nb: 2\n',
  'flow collections (library path)': 'a: [1, "two", {c: d}]\nb: {x: 1}\ne: []\nf: {}\n',
  'anchors and aliases (library path)': 'a: &x {k: v}\nb: *x\n',
  'multi-line plain scalar (library path)': 'a: first\n  second\nb: 1\n',
  'CRLF line ends (library path)': 'a: 1\r\nb:\r\n  - x\r\n',
  'compact nested maps in sequences':
    'nodes:\n  - hostName: a\n    nodeNetwork:\n      interfaces:\n        - name: eno1\n          macAddress: "AA:BB:CC:DD:EE:01"\n  -   hostName: b\n      role: worker\n',
  'urls and colons in values':
    'bmc: redfish-virtualmedia+https://10.0.0.1/redfish/v1/Systems/1\nk8s: a:b\n',
  'empty file': '',
  'only comments': '# nothing here\n',
  'keys that look like other things': 'yes: 1\n"1": one\nnull-ish: ~\n',
};

describe('parseYamlFile', () => {
  for (const [name, text] of Object.entries(cases)) {
    it(`reads ${name} exactly as the yaml library does`, () => {
      const parsed = parseYamlFile('f.yaml', text);
      expect(parsed.errors).toEqual([]);
      expect(parsed.documents.map((d) => plain(d.value))).toEqual(reference(text));
      const unlocated = parseYamlFile('f.yaml', text, { locations: false });
      expect(unlocated.documents.map((d) => plain(d.value))).toEqual(reference(text));
    });
  }

  it('records the line and column of keys and values', () => {
    const text =
      'spec:\n  clusters:\n    - clusterName: sno1\n      nodes:\n        - hostName: node1\n          bootMACAddress: "AA:BB"\n';
    const [doc] = parseYamlFile('site.yaml', text).documents;
    const root = doc!.value;
    expect(locate(root, doc!.pos, ['spec', 'clusters', 0, 'nodes', 0, 'bootMACAddress'])).toEqual({
      line: 6,
      column: 27,
    });
    expect(
      locate(root, doc!.pos, ['spec', 'clusters', 0, 'nodes', 0, 'bootMACAddress'], 'key'),
    ).toEqual({ line: 6, column: 11 });
    expect(locate(root, doc!.pos, ['spec', 'clusters', 0, 'clusterName'])).toEqual({
      line: 3,
      column: 20,
    });
    // A missing field is reported where its nearest parent is.
    expect(locate(root, doc!.pos, ['spec', 'clusters', 0, 'nodes', 0, 'role'])).toEqual({
      line: 5,
      column: 11,
    });
  });

  it('keeps positions on the library path too', () => {
    const text = 'a: [1, 2]\nb:\n  c: {d: 1}\n';
    const [doc] = parseYamlFile('f.yaml', text).documents;
    expect(locate(doc!.value, doc!.pos, ['b', 'c', 'd'])).toEqual({ line: 3, column: 10 });
  });

  it('keeps the source text of scalars that resolved to numbers or booleans', () => {
    const [doc] = parseYamlFile(
      'f.yaml',
      'wwn: 0x5000c500a0b1c2d3\nlabel: true\nflow: [0x10]\n',
    ).documents;
    expect(rawText(doc!.value, 'wwn')).toBe('0x5000c500a0b1c2d3');
    expect(rawText(doc!.value, 'label')).toBe('true');
    expect(rawText((doc!.value as { flow: unknown }).flow, 0)).toBe('0x10');
  });

  it('can skip positions, keeping the values and the source text of non-strings', () => {
    const text = 'a:\n  b: 0x10\n  c: [1]\nlist:\n  - x: true\n';
    const fast = parseYamlFile('f.yaml', text, { locations: false }).documents[0]!.value as {
      a: object;
      list: object[];
    };
    expect(plain(fast)).toEqual(plain(parseYamlFile('f.yaml', text).documents[0]!.value));
    expect(
      hasLocations(parseYamlFile('f.yaml', 'a: 1\n', { locations: false }).documents[0]!.value),
    ).toBe(false);
    expect(rawText(fast.list[0], 'x')).toBe('true');
  });

  it('reports syntax errors with their position and no documents', () => {
    const parsed = parseYamlFile('bad.yaml', 'a: 1\nb: [unclosed\nc: 2\n');
    expect(parsed.errors.length).toBeGreaterThan(0);
    expect(parsed.errors[0]).toMatchObject({
      file: 'bad.yaml',
      code: expect.stringMatching(/^YAML_/) as string,
    });
    expect(parsed.errors[0]!.pos.line).toBeGreaterThanOrEqual(2);
  });

  it('rejects duplicate keys', () => {
    const parsed = parseYamlFile('dup.yaml', 'a: 1\na: 2\n');
    expect(parsed.errors.map((e) => e.code)).toContain('YAML_DUPLICATE_KEY');
    expect(parsed.errors[0]!.pos).toEqual({ line: 2, column: 1 });
  });
});
