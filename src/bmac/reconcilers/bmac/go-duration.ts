/** Go's time.ParseDuration, for the drain-timeout annotation users write as they would for Go. */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Milliseconds of a Go duration such as `90s`, `1h30m`, `1.5h`, `-2m`.
 * @throws Error with Go's message when `text` is not one
 */
export function parseGoDuration(text: string): number {
  const invalid = new Error(`time: invalid duration ${JSON.stringify(text)}`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest.startsWith('-')) sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid;
  let total = 0;
  const part = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
  while (rest !== '') {
    const m = part.exec(rest);
    if (m === null) {
      if (/^(\d+\.?\d*|\.\d+)/.test(rest))
        throw new Error(`time: missing unit in duration ${JSON.stringify(text)}`);
      throw invalid;
    }
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}
