import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { goYaml11Reading } from '../../src/shared/go-yaml-reading.js';
import { hasLocations, locate, parseYamlFile, rawText } from '../../src/shared/source-yaml.js';

/** What the reference library makes of the same text (merge keys merged, as in yaml.v3). */
function reference(text: string): unknown[] {
  return parseAllDocuments(text, { merge: true }).map((doc) => doc.toJS() as unknown);
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

/** Characters that String#trim and `\s` take for white space and YAML does not. */
const unicodeSpaces = [
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u2005',
  '\u200a',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
];

describe('parseYamlFile keeps what YAML keeps', () => {
  const hex = (c: string): string => c.charCodeAt(0).toString(16);

  it('keeps Unicode spaces at the end of a value, with LF and with CRLF line ends', () => {
    for (const c of unicodeSpaces) {
      const text = `clusterName: compact-1${c}\nport: 09${c}\n`;
      const expected = { clusterName: `compact-1${c}`, port: `09${c}` };
      for (const variant of [text, text.replace(/\n/g, '\r\n')]) {
        const [doc] = parseYamlFile('site.yaml', variant).documents;
        expect(plain(doc!.value), `U+${hex(c)}`).toEqual(expected);
      }
      expect(reference(text)).toEqual([expected]);
    }
  });

  it('keeps Unicode spaces at the end of keys and in block scalars', () => {
    for (const c of unicodeSpaces) {
      const text = `key${c}: v\nlit: |\n  x${c}\n  ${c}\n`;
      expect(plain(parseYamlFile('f.yaml', text).documents[0]!.value), `U+${hex(c)}`).toEqual({
        [`key${c}`]: 'v',
        lit: `x${c}\n${c}\n`,
      });
      expect(reference(text)).toEqual([{ [`key${c}`]: 'v', lit: `x${c}\n${c}\n` }]);
    }
  });

  it('refuses a Unicode space less indented than its block scalar, as text outside it', () => {
    for (const c of unicodeSpaces) {
      const parsed = parseYamlFile('f.yaml', `lit: |\n  x\n ${c}\nb: 1\n`);
      expect(parsed.errors, `U+${hex(c)}`).toMatchObject([
        { code: 'YAML_BAD_INDENT', pos: { line: 3, column: 1 } },
        { code: 'YAML_MISSING_CHAR' },
      ]);
    }
  });

  it('refuses a comment glued to a quoted scalar or to a block scalar header', () => {
    const glued: [string, number][] = [
      ['a: "x"# c\n', 7],
      ["a: 'x'# c\n", 7],
      ['- "x"#c\n', 6],
      ['a: |#c\n  x\n', 5],
      ['a: >-#c\n  x\n', 6],
    ];
    for (const [text, column] of glued) {
      const parsed = parseYamlFile('f.yaml', text);
      expect(parsed.documents, text).toEqual([]);
      expect(parsed.errors, text).toMatchObject([
        { code: 'YAML_MISSING_CHAR', pos: { line: 1, column } },
      ]);
    }
  });
});

describe('parseYamlFile merges merge keys as yaml.v3 does', () => {
  const nodes = [
    'defaults: &defaults',
    '  role: worker',
    '  bootMode: UEFI',
    '  rootDevice: /dev/sda',
    'secure: &secure',
    '  bootMode: UEFISecureBoot',
    '  ironicInspect: disabled',
    'nodes:',
    '  - hostName: n1',
    '    <<: *defaults',
    '  - <<: [*secure, *defaults]',
    '    hostName: n2',
    '    rootDevice: /dev/nvme0n1',
    '',
  ].join('\n');

  it('lets explicit keys win, wherever written, then earlier sources over later ones', () => {
    const [doc] = parseYamlFile('site.yaml', nodes).documents;
    const value = plain(doc!.value) as { nodes: unknown[] };
    expect(value.nodes).toEqual([
      { hostName: 'n1', role: 'worker', bootMode: 'UEFI', rootDevice: '/dev/sda' },
      {
        hostName: 'n2',
        bootMode: 'UEFISecureBoot',
        ironicInspect: 'disabled',
        role: 'worker',
        rootDevice: '/dev/nvme0n1',
      },
    ]);
    expect([value]).toEqual(reference(nodes));
  });

  it('points a merged key at where its value is written', () => {
    const [doc] = parseYamlFile('site.yaml', nodes).documents;
    expect(locate(doc!.value, doc!.pos, ['nodes', 1, 'role'])).toEqual({ line: 2, column: 9 });
    expect(locate(doc!.value, doc!.pos, ['nodes', 1, 'rootDevice'])).toEqual({
      line: 13,
      column: 17,
    });
  });

  it('merges the merges of a merged map, and a map written in place', () => {
    const text = 'a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nc:\n  <<: [{z: 3}, *b]\n  x: 0\n';
    expect(plain(parseYamlFile('f.yaml', text).documents[0]!.value)).toEqual(reference(text)[0]);
    expect(reference(text)[0]).toMatchObject({ c: { x: 0, y: 2, z: 3 } });
  });

  it('reads a quoted "<<" as an ordinary key', () => {
    const text = 'a: &a {x: 1}\nb:\n  "<<": *a\n';
    expect(plain(parseYamlFile('f.yaml', text).documents[0]!.value)).toEqual({
      a: { x: 1 },
      b: { '<<': { x: 1 } },
    });
  });

  it('refuses a merge of something that is not a map', () => {
    for (const [text, column] of [
      ['a: &a [1]\nb:\n  <<: *a\n', 7],
      ['b:\n  <<: [{x: 1}, 2]\n', 16],
      ['b:\n  <<: text\n', 7],
    ] as const) {
      expect(parseYamlFile('f.yaml', text).errors, text).toMatchObject([
        { code: 'YAML_BAD_MERGE', pos: { column } },
      ]);
    }
  });
});

describe('parseYamlFile notes the YAML 1.1 look-alikes it reads as strings', () => {
  /** The look-alikes of the first document, as key, role, text and Go's reading. */
  function noted(text: string): unknown[] {
    const doc = parseYamlFile('f.yaml', text).documents[0]!;
    return doc.lookalikes.map(({ container, key, role, text: t, reading }) => ({
      at: (container as Record<string | number, unknown>)[key] === undefined ? 'gone' : key,
      role,
      text: t,
      reading,
    }));
  }

  const text = [
    'labels:',
    '  env: yes',
    '  on: x',
    '  quoted: "no"',
    "  single: 'off'",
    '  count: 1_000',
    '  hex: 0X1F',
    '  real: true',
    '  day: 2024-01-02',
    '  name: nothing-special',
    'list:',
    '  - N',
    '  -',
    '    Off',
    '',
  ].join('\n');
  const expected = [
    { at: 'env', role: 'value', text: 'yes', reading: 'bool' },
    { at: 'on', role: 'key', text: 'on', reading: 'bool' },
    { at: 'count', role: 'value', text: '1_000', reading: 'int' },
    { at: 'hex', role: 'value', text: '0X1F', reading: 'int' },
    { at: 0, role: 'value', text: 'N', reading: 'bool' },
    { at: 1, role: 'value', text: 'Off', reading: 'bool' },
  ];

  it('notes plain yes, on, 1_000 and 0X1F, not quoted ones, real booleans or dates', () => {
    expect(noted(text)).toEqual(expected);
  });

  it('notes the same on the library path (CRLF line ends), where tags also count as quotes', () => {
    expect(noted(text.replace(/\n/g, '\r\n'))).toEqual(expected);
    expect(noted('a: !!str yes\nb: ! on\nc: [y]\n')).toEqual([
      { at: 0, role: 'value', text: 'y', reading: 'bool' },
    ]);
  });

  it('notes a merged look-alike where it lands, and not once an explicit key replaces it', () => {
    const merged = 'base: &b\n  env: yes\n  tier: on\nlabels:\n  <<: *b\n  env: "yes"\n';
    const doc = parseYamlFile('f.yaml', merged).documents[0]!;
    const labels = (doc.value as { labels: object }).labels;
    expect(
      doc.lookalikes.map(({ container, key, text: t }) => [container === labels, key, t]),
    ).toEqual([
      [false, 'env', 'yes'],
      [false, 'tier', 'on'],
      [true, 'tier', 'on'],
    ]);
  });

  it('notes exactly the plain strings that goYaml11Reading reads as booleans or numbers', () => {
    const words = [
      '+0x1F',
      '-0b1',
      '.5',
      '-.5e3',
      '1.2.3',
      '10.16.0.10',
      '0:1',
      '00:1a:2b:3c:4d:5e',
    ];
    words.push(
      '1_000.5',
      '+1',
      '0777',
      'No',
      'nope',
      'O',
      'OFF',
      'y',
      'Yes',
      'on-site',
      '2024-1-2',
    );
    for (const word of words) {
      const value = (parseYamlFile('f.yaml', `v: ${word}\n`).documents[0]!.value as { v: unknown })
        .v;
      if (typeof value !== 'string') continue; // YAML 1.2 reads a number too: nothing to note
      const go = goYaml11Reading(word);
      const expected = ['bool', 'int', 'float', 'null'].includes(go) ? [go] : [];
      expect(
        noted(`v: ${word}\n`).map((entry) => (entry as { reading: string }).reading),
        word,
      ).toEqual(expected);
    }
  });

  it('notes nothing in a file without look-alikes', () => {
    expect(parseYamlFile('f.yaml', 'a: 1\nb: text\n').documents[0]!.lookalikes).toEqual([]);
  });
});
