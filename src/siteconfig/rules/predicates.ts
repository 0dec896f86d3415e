/**
 * Small predicates shared by the validator: name syntax, MACs, BMC URLs, JSON fields.
 */
import { quote } from '../../shared/errors.js';

/** RFC 1123 label: a namespace name. */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** RFC 1123 subdomain: a host or object name. */
export const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A colon-separated 48-bit MAC address. */
export const MAC = /^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/;
const LABEL_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;

/** True for a valid RFC 1123 subdomain of at most 253 characters. */
export function isDnsSubdomain(name: string): boolean {
  return name.length <= 253 && DNS_SUBDOMAIN.test(name);
}

/** Why a Kubernetes label key is invalid, or undefined when it is valid. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && !isDnsSubdomain(prefix))
    return `prefix ${quote(prefix)} is not a DNS subdomain`;
  if (name.length === 0 || name.length > 63) return 'the name part must have 1 to 63 characters';
  if (!LABEL_NAME.test(name))
    return 'the name part must be alphanumeric, "-", "_" or ".", starting and ending alphanumeric';
  return undefined;
}

/**
 * Why a Kubernetes annotation key is invalid, or undefined when it is valid. The API server
 * checks annotation keys like label keys, after lower-casing them.
 */
export function annotationKeyProblem(key: string): string | undefined {
  return labelKeyProblem(key.toLowerCase());
}

/** The most bytes (keys and values together) the API server takes in one object's annotations. */
export const ANNOTATIONS_TOTAL_LIMIT = 256 * 1024;

/** The bytes the API server counts for a set of annotations: every key and value, in UTF-8. */
export function annotationsBytes(annotations: Readonly<Record<string, unknown>>): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(annotations))
    bytes += Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.byteLength(value) : 0);
  return bytes;
}

/** Why a name is no Kubernetes object name (RFC 1123 subdomain), or undefined when it is one. */
export function objectNameProblem(name: string): string | undefined {
  if (name.length > 253) return `it has ${String(name.length)} characters; at most 253 are allowed`;
  if (!DNS_SUBDOMAIN.test(name))
    return 'use lowercase letters, digits, "-" and ".", starting and ending with a letter or digit';
  return undefined;
}

/** Why a name is no namespace name (RFC 1123 label), or undefined when it is one. */
export function namespaceNameProblem(name: string): string | undefined {
  if (name.length > 63) return `it has ${String(name.length)} characters; at most 63 are allowed`;
  if (!DNS_LABEL.test(name))
    return 'use lowercase letters, digits and "-", starting and ending with a letter or digit';
  return undefined;
}

/** A DNS domain: labels of 1 to 63 letters, digits and "-" (not at either end), joined by dots. */
const DOMAIN =
  /^[A-Za-z0-9](?:[-A-Za-z0-9]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*$/;

/**
 * Why a base domain is no DNS domain, or undefined when it is one: dot-separated labels of
 * letters, digits and "-" (not at either end), each at most 63 characters, 253 in all.
 */
export function baseDomainProblem(domain: string): string | undefined {
  if (domain.length <= 253 && DOMAIN.test(domain)) return undefined;
  if (domain.length > 253)
    return `it has ${String(domain.length)} characters; at most 253 are allowed`;
  const labels = domain.split('.');
  if (labels.some((label) => label.length > 63))
    return 'a label between dots has more than 63 characters';
  if (!labels.every((label) => /^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$/.test(label)))
    return 'use letters, digits and "-" between dots, each part starting and ending with a letter or digit';
  return undefined;
}

/** Why a Kubernetes label value is invalid, or undefined when it is valid. */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63) return 'it has more than 63 characters';
  if (!LABEL_NAME.test(value))
    return 'it must be alphanumeric, "-", "_" or ".", starting and ending alphanumeric';
  return undefined;
}

export { BMC_SCHEMES, parseBmcAddress } from '../../shared/bmc-address.js';
export type { BmcAddress } from '../../shared/bmc-address.js';

/** Parses a JSON field; returns the value, or the parser's complaint. */
export function parseJsonField(text: string): { value: unknown } | { problem: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { problem: err instanceof Error ? err.message : String(err) };
  }
}

/** The closest candidate to `word` by edit distance, if it is close enough to be a typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}
