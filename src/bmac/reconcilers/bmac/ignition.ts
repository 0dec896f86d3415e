/**
 * The day-2 ignition override that makes a new host trust the spoke's Machine Config Server,
 * and its merge with an override the user wrote (after Ignition's own merge: the user's values
 * win, keyed lists merge entry by entry, other lists are joined).
 */

/** An ignition config (3.1.0) whose only content is one trusted CA bundle, base64 `b64`. */
export function caIgnition(b64: string): string {
  return JSON.stringify({
    ignition: {
      version: '3.1.0',
      security: {
        tls: {
          certificateAuthorities: [{ source: `data:text/plain;charset=utf-8;base64,${b64}` }],
        },
      },
    },
  });
}

/** The fields that identify an entry of an Ignition list (files by path, units by name, ...). */
const LIST_KEYS = ['path', 'name', 'source', 'device', 'label'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function keyOf(entry: unknown): string | undefined {
  if (!isRecord(entry)) return undefined;
  for (const k of LIST_KEYS) if (typeof entry[k] === 'string') return `${k}:${entry[k]}`;
  return undefined;
}

function mergeLists(base: readonly unknown[], over: readonly unknown[]): unknown[] {
  const out = [...base];
  for (const entry of over) {
    const key = keyOf(entry);
    const at =
      key === undefined
        ? out.findIndex((e) => JSON.stringify(e) === JSON.stringify(entry))
        : out.findIndex((e) => keyOf(e) === key);
    if (at < 0) out.push(entry);
    else out[at] = mergeValues(out[at], entry);
  }
  return out;
}

function mergeValues(base: unknown, over: unknown): unknown {
  if (over === undefined || over === null) return base;
  if (isRecord(base) && isRecord(over)) {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(over)) out[k] = mergeValues(base[k], v);
    return out;
  }
  if (Array.isArray(base) && Array.isArray(over)) return mergeLists(base, over);
  return over;
}

/**
 * `overrides` merged over `base`, both ignition JSON texts.
 * @throws SyntaxError when either is not a JSON object
 */
export function mergeIgnition(base: string, overrides: string): string {
  const a: unknown = JSON.parse(base);
  const b: unknown = JSON.parse(overrides);
  if (!isRecord(a) || !isRecord(b)) throw new SyntaxError('an ignition config is a JSON object');
  return JSON.stringify(mergeValues(a, b));
}
