import { beforeAll, describe, expect, it } from 'vitest';
import { type GoYamlReading, goYaml11Reading } from '../../src/shared/go-yaml-reading.js';
import { goYamlReader, readWithGo, resolveWithGo } from '../support/go-yaml-reader.js';
import { randomStrings, rng } from '../support/random.js';

/** Every resolver form of YAML 1.1 and its Go spellings, and near misses of each. */
export const YAML11_FORMS: readonly string[] = [
  // booleans and null, with case variants that are not in the tables
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'yES', 'n', 'N', 'no', 'No', 'NO', 'nO'],
  ...['on', 'On', 'ON', 'oN', 'off', 'Off', 'OFF', 'oFF', 'true', 'True', 'TRUE', 'tRUE'],
  ...['false', 'False', 'FALSE', 'fALSE', '~', 'null', 'Null', 'NULL', 'nULL', ''],
  // integers: signs, bases, prefixes in either case, underscores anywhere
  ...['0', '00', '-0', '+0', '17', '017', '08', '0_8', '09', '1_000', '1__0', '1_', '_1', '+_1'],
  ...['0x1F', '0X1F', '+0x1F', '-0x1F', '0xFF_FF', '0x_1F', '0x', '0x_', '0xG', '0x1F_'],
  ...['0o17', '0O17', '+0o17', '-0o17', '0o18', '0o+7', '0o-7', '-0o+7', '0o'],
  ...['0b101', '0B101', '+0b101', '-0b101', '0b_1', '0b102', '0b+1', '0b-1', '-0b-1', '0b'],
  ...['9223372036854775807', '9223372036854775808', '-9223372036854775808', '-9223372036854775809'],
  ...['18446744073709551615', '18446744073709551616', '+9223372036854775808'],
  ...['0xFFFFFFFFFFFFFFFF', '0x1FFFFFFFFFFFFFFFF', '-0x8000000000000000', '-0x8000000000000001'],
  // base 60 (YAML 1.1; Go reads these as strings)
  ...['1:20', '190:20:30', '-1:20', '+1:20:30.5', '1:60'],
  // floats
  ...['1.0', '1.', '.5', '+.5', '-.5', '1e3', '1E3', '1e+3', '1e-3', '-1.5e+3', '1_000.5'],
  ...['685.230_15e+03', '685_230.15', '1e3_', '1.5e_3', '1e400', '-1e400', '1e-400', '.5e400'],
  ...['.5_0', '._5', '.5_', '.5e3_3', '.5e_3', '.e5', '.', '..', '.5.', '1.2.3', '0x1p-2'],
  ...['.inf', '.Inf', '.INF', '+.inf', '-.Inf', '+.INF', '.iNF', '.nan', '.NaN', '.NAN', '.nAN'],
  ...['inf', 'Inf', '-inf', 'NaN', 'nan', 'Infinity', '+Infinity'],
  // timestamps
  ...['2001-12-14', '2001-1-2', '2001-12-14t21:59:43.10-05:00', '2001-12-14T21:59:43Z'],
  ...['2001-12-14 21:59:43.10', '2001-12-14  2:59:43', '2001-12-14 21:59:43.10 -5', '2002-02-29'],
  ...['2000-02-29', '2001-13-01', '2001-12-32', '2001-12-14T24:00:00Z', '2001-12-14T23:59:60Z'],
  ...['2001-12-14T21:59:43+25:00', '2001-12-14T21:59:43+24:60', '2001-12-14T1:2:3,5Z', '20011-1-1'],
  // other YAML 1.1 keys and indicators
  ...['<<', '=', '!', '!!str', '-', '+', '+ 1', '- 1'],
];

/** What the Go resolvers say, combined as goYaml11Reading answers: a non-string kind wins. */
function expectedReading(go: { v2: string; v3: string }): GoYamlReading | 'disagree' {
  const kinds = [go.v2, go.v3].filter((k) => k !== 'syntax' && k !== 'str');
  if (kinds.length === 2 && kinds[0] !== kinds[1]) return 'disagree';
  return (kinds[0] ?? 'string') as GoYamlReading;
}

describe('goYaml11Reading: how Go tooling types an unquoted scalar', () => {
  let bin: string;
  beforeAll(() => {
    bin = goYamlReader();
  }, 300_000);

  function mismatches(plains: readonly string[]): string[] {
    const go = resolveWithGo(bin, plains);
    return plains.flatMap((plain, i) => {
      const want = expectedReading(go[i] ?? { v2: '?', v3: '?' });
      const got = goYaml11Reading(plain);
      return got === want ? [] : [`${JSON.stringify(plain)}: Go ${want}, goYaml11Reading ${got}`];
    });
  }

  it('agrees with yaml.v2 and yaml.v3 on every YAML 1.1 form and its near misses', () => {
    expect(mismatches(YAML11_FORMS.filter((s) => s !== '<<'))).toEqual([]);
  });

  it('agrees with them on 20,000 random number-, date- and word-like strings (seed 9)', () => {
    const alphabet = [
      ...Array.from('0123456789+-_.:eExXoObBaAfFzZtT '),
      ...['0x', '0o', '0b', '0X', '2001-', '12-', '1-', '-14', 'T21:', '59:', '43', 'Z', '+05:00'],
      ...['inf', 'Inf', 'nan', 'NaN', 'y', 'yes', 'no', 'on', 'off', 'true', 'null', '~', '.5'],
    ];
    expect(mismatches(randomStrings(rng(9), alphabet, 20_000, 6))).toEqual([]);
  });

  it('agrees with them on 20,000 random timestamps, integers and floats near their limits (seed 11)', () => {
    const next = rng(11);
    const pick = (options: string): string => options[Math.floor(next() * options.length)] ?? '';
    const upTo = (n: number): number => Math.floor(next() * (n + 1));
    const digits = (n: number, alphabet = '0123456789'): string =>
      Array.from({ length: n }, () => pick(alphabet)).join('');
    const oneOf = (...options: string[]): string => options[upTo(options.length - 1)] ?? '';
    const generators = [
      () =>
        `${digits(4)}-${digits(1 + upTo(1))}-${digits(1 + upTo(1))}` +
        oneOf('', 'T', 't', ' ', '  ') +
        `${digits(1 + upTo(1))}:${digits(2)}:${digits(2)}` +
        oneOf('', '.5', ',123', '.') +
        oneOf('', 'Z', `+0${digits(1)}:${digits(2)}`, `-2${digits(1)}:6${digits(1)}`, ' Z'),
      () => `${digits(4)}-${digits(1 + upTo(1))}-${digits(1 + upTo(1))}`,
      () =>
        oneOf('', '+', '-') +
        oneOf('', '0x', '0X', '0o', '0b', '0') +
        oneOf('', '_') +
        digits(1 + upTo(24), '0123456789abcdefABCDEF_'),
      () =>
        oneOf('', '+', '-') +
        digits(upTo(19)) +
        oneOf('', '.') +
        digits(upTo(2)) +
        oneOf('', 'e', 'E', 'e+', 'e-') +
        digits(upTo(3)),
    ];
    const plains = Array.from({ length: 20_000 }, () => generators[upTo(3)]?.() ?? '');
    expect(mismatches(plains)).toEqual([]);
  });

  it('reads `<<` as a merge key, as yaml.v3 (siteconfig-generator) does', () => {
    expect(goYaml11Reading('<<')).toBe('merge');
    const [read] = readWithGo(bin, ['base: &b {a: 1}\nmerged:\n  <<: *b\n  c: 2\n']);
    expect(read?.['gopkg.in/yaml.v3']).toEqual({
      value: { base: { a: 1 }, merged: { a: 1, c: 2 } },
    });
  });

  it('flags the input words that Go reads as booleans while YAML 1.2 reads strings', () => {
    expect(['y', 'n', 'yes', 'no', 'on', 'off', 'Off'].map(goYaml11Reading)).toEqual(
      Array(7).fill('bool'),
    );
    expect(['compact-1', 'eno1', 'fd00::1', '10.0.0.1', 'Yes-please'].map(goYaml11Reading)).toEqual(
      Array(5).fill('string'),
    );
  });
});
