/**
 * How Go's YAML readers type a plain (unquoted) scalar.
 *
 * The API server, kubectl and Argo CD read manifests with sigs.k8s.io/yaml, built on yaml.v2: a
 * YAML 1.1 resolver, where `yes`, `on`, `0X1F`, `+0x1F`, `0x_1F` and `1_000` are not strings.
 * siteconfig-generator reads with yaml.v3, which keeps YAML 1.1's numbers but not its booleans.
 * The `yaml` npm package (YAML 1.2) agrees with neither, so a writer that checks only against it
 * leaves strings unquoted that Kubernetes reads as numbers or booleans.
 *
 * This is a port of the two resolvers (`resolve()` in yaml.v2 2.4 and yaml.v3 3.0, and the
 * strconv and time.Parse rules they rely on); test/shared/go-yaml-reading.test.ts checks it
 * against the Go code itself.
 */

/**
 * What a Go reader turns a plain scalar into. `'timestamp'` is text that yaml.v2 and yaml.v3
 * resolve as `!!timestamp` (they still give it to `interface{}` as a string, but decode it into
 * a `time.Time` field as a time); `'merge'` is `<<`, which merges a map when it is a key.
 */
export type GoYamlReading = 'string' | 'bool' | 'int' | 'float' | 'null' | 'timestamp' | 'merge';

/**
 * How yaml.v2 (so sigs.k8s.io/yaml, the API server, kubectl, Argo CD) or yaml.v3 reads `plain`
 * when it is written without quotes: `'string'` only when every one of them reads it back as
 * this very string. The readers never disagree on a non-string kind; where one of them alone
 * reads a non-string (`yes` is a bool to yaml.v2, `0o+7` an int to yaml.v3), that kind is the
 * answer.
 *
 * Pure and cheap: most text is settled by its first character. A validation rule can use it to
 * flag input that Go tooling would read differently, e.g. a label value `du: yes`, which our
 * YAML 1.2 reader keeps as text while kubectl and the API server read a boolean.
 */
export function goYaml11Reading(plain: string): GoYamlReading {
  if (plain === '') return 'null';
  const first = plain.charCodeAt(0);
  const isDigit = first >= 0x30 && first <= 0x39;
  const isSign = first === 0x2b || first === 0x2d; // + -
  if (!isDigit && !isSign && first !== 0x2e && !MAP_HINT.has(first)) {
    return plain === '<<' ? 'merge' : 'string';
  }
  const mapped = RESOLVE_MAP.get(plain);
  if (mapped !== undefined) return mapped;
  if (first === 0x2e) return isGoDotFloat(plain) ? 'float' : 'string'; // .
  if (!isDigit && !isSign) return 'string';
  return numberReading(plain);
}

/** First characters of the words in RESOLVE_MAP (yaml.v2's resolve table, 'M'). */
const MAP_HINT = new Set(Array.from('yYnNtTfFoO~', (c) => c.charCodeAt(0)));

/** The words yaml.v2 (and, for null, true, false and the floats, yaml.v3) look up by name. */
const RESOLVE_MAP = new Map<string, GoYamlReading>([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON'].map((w) => [w, 'bool'] as const),
  ...['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF'].map((w) => [w, 'bool'] as const),
  ...['true', 'True', 'TRUE', 'false', 'False', 'FALSE'].map((w) => [w, 'bool'] as const),
  ...['~', 'null', 'Null', 'NULL'].map((w) => [w, 'null'] as const),
  ...['.nan', '.NaN', '.NAN'].map((w) => [w, 'float'] as const),
  ...['', '+', '-'].flatMap((s) => ['.inf', '.Inf', '.INF'].map((w) => [s + w, 'float'] as const)),
]);

/**
 * Text starting with a digit or sign: a timestamp, then (underscores dropped) an integer in Go
 * syntax, a YAML-style float, or the `0b`/`0o` forms that the resolvers retry by hand.
 */
function numberReading(text: string): GoYamlReading {
  // Most such text (addresses, versions, CIDRs) has a character no number or time can have;
  // the emitter asks about every distinct string of a fleet, so settle those at once.
  if (!NUMBER_OR_TIME_ALPHABET.test(text)) return 'string';
  if (text.charCodeAt(4) === 0x2d && isGoTimestamp(text)) return 'timestamp'; // YYYY-
  const plain = text.includes('_') ? text.replace(/_/g, '') : text;
  if (fitsGoInt(plain)) return 'int';
  if (YAML_STYLE_FLOAT.test(plain) && Number.isFinite(Number(plain))) return 'float';
  // yaml.v2 and v3 retry `0b` with strconv.ParseInt(rest, 2), which takes a sign after the
  // prefix (`0b+1`, `0b-1`); yaml.v3 does the same for `0o` (`0o+7`).
  const negative = plain.startsWith('-');
  const prefix = plain.slice(negative ? 1 : 0, negative ? 3 : 2);
  const base = prefix === '0b' ? 2 : prefix === '0o' ? 8 : undefined;
  if (base === undefined) return 'string';
  let rest = plain.slice(negative ? 3 : 2);
  let sign = negative ? '-' : '';
  if (!negative && (rest.startsWith('+') || rest.startsWith('-'))) {
    sign = rest.charAt(0);
    rest = rest.slice(1);
  }
  return fitsGoInt(rest, base, sign) ? 'int' : 'string';
}

/**
 * Every character that a Go integer (after its underscores are dropped: signs, `0x`/`0o`/`0b`,
 * hex digits), a YAML-style float or a timestamp (`2001-12-14t21:59:43,10 +05:00Z`) can hold.
 */
const NUMBER_OR_TIME_ALPHABET = /^[-+0-9a-fA-FoOxX_.:, tTZ]*$/;

/** yaml.v2/v3's `yamlStyleFloat`: decimal floats only, no `inf`, `nan` or hex. */
const YAML_STYLE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

/**
 * True when strconv.ParseInt or strconv.ParseUint accepts `text` (no underscores). Without
 * `explicitBase` this is Go's base 0: a sign, then `0x`/`0o`/`0b` (either case) or a leading `0`
 * for octal; with it, `sign` is the sign already taken off. A value outside int64 fits only
 * unsigned (ParseUint takes no sign).
 */
function fitsGoInt(text: string, explicitBase?: 2 | 8, sign = ''): boolean {
  let digits = text;
  let base: Base = explicitBase ?? 10;
  if (explicitBase === undefined) {
    if (digits.startsWith('+') || digits.startsWith('-')) {
      sign = digits.charAt(0);
      digits = digits.slice(1);
    }
    if (digits === '') return false;
    if (digits.startsWith('0')) {
      const marker = digits.length >= 3 ? digits[1]?.toLowerCase() : undefined;
      base = marker === 'x' ? 16 : marker === 'b' ? 2 : 8;
      digits = digits.slice(marker === 'x' || marker === 'b' || marker === 'o' ? 2 : 1);
      if (digits === '') return true; // "0"
    }
  }
  const { digits: pattern, prefix } = BASES[base];
  if (!pattern.test(digits)) return false;
  const value = BigInt(`${prefix}${digits}`);
  if (sign === '') return value <= UINT64_MAX;
  return value <= (sign === '-' ? INT64_MAX + 1n : INT64_MAX);
}

type Base = 2 | 8 | 10 | 16;
const BASES: Record<Base, { readonly digits: RegExp; readonly prefix: string }> = {
  2: { digits: /^[01]+$/, prefix: '0b' },
  8: { digits: /^[0-7]+$/, prefix: '0o' },
  10: { digits: /^[0-9]+$/, prefix: '' },
  16: { digits: /^[0-9a-fA-F]+$/, prefix: '0x' },
};

/**
 * strconv.ParseFloat on text that starts with `.` (the resolvers do not drop underscores here):
 * digits with Go's digit-separator rule, an optional exponent, and a finite result.
 */
function isGoDotFloat(text: string): boolean {
  if (!/^\.[0-9_]*[0-9][0-9_]*(?:[eE][-+]?[0-9][0-9_]*)?$/.test(text)) return false;
  if (text.includes('_') && !underscoresSeparateDigits(text)) return false;
  return Number.isFinite(Number(text.replace(/_/g, '')));
}

/** strconv's underscoreOK for decimal text: every `_` sits between two digits. */
function underscoresSeparateDigits(text: string): boolean {
  return !/(?:^|[^0-9])_|_(?:[^0-9]|$)/.test(text);
}

/**
 * yaml.v2/v3's parseTimestamp: text starting `YYYY-` that time.Parse accepts in one of the
 * layouts `2006-1-2T15:4:5.999999999Z07:00` (or with `t`), `2006-1-2 15:4:5.999999999`
 * (one or more spaces) or `2006-1-2`, with time.Parse's range checks.
 */
function isGoTimestamp(text: string): boolean {
  const m = TIMESTAMP.exec(text);
  if (!m) return false;
  const [year, month, day] = [m[1], m[2], m[3]].map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year)) return false;
  const hour = m[4] ?? m[8];
  if (hour === undefined) return true;
  if (Number(hour) > 23 || Number(m[5] ?? m[9]) > 59 || Number(m[6] ?? m[10]) > 59) return false;
  const zone = m[7];
  return (
    zone === undefined ||
    zone === 'Z' ||
    (Number(zone.slice(1, 3)) <= 24 && Number(zone.slice(4)) <= 60)
  );
}

const TIMESTAMP =
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(Z|[-+][0-9]{2}:[0-9]{2})| +([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?)?$/;

function daysIn(month: number, year: number): number {
  if (month !== 2) return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}
