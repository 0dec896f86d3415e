import { beforeAll, describe, expect, it } from 'vitest';
import { type GoYamlReading, goYaml11Reading } from '../../src/shared/go-yaml-reading.js';
import { goYamlReader, readWithGo, resolveWithGo } from '../support/go-yaml-reader.js';
import { randomStrings, rng } from '../support/random.js';
import { YAML11_FORMS } from '../support/yaml11-forms.js';

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
