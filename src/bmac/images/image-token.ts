/**
 * Short image URLs for BMCs. A token is `<ref>.<expiry>.<mac>`: a 16-character reference to a
 * registered ISO source, its expiry in base-36 seconds, and a truncated HMAC-SHA256 of both, so
 * `https://host/images/<token>.iso` stays under ~90 characters with no query string, whatever
 * the real source URL looks like (iDRAC fails on ~300-character URLs, Supermicro X12 on `?`
 * and `=`; reference/redfish.md §2).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** What a valid token says. */
export interface ImageTokenClaims {
  /** The registered source's reference (see {@link imageRef}). */
  readonly ref: string;
  /** Expiry, seconds since the epoch. */
  readonly expiresAt: number;
}

const MAC_BYTES = 16;
const TOKEN = /^([a-z2-7]{16})\.([0-9a-z]{1,10})\.([A-Za-z0-9_-]{22})$/;

/** The stable 16-character reference of a source URL (base32 of its SHA-256). */
export function imageRef(sourceUrl: string): string {
  return base32(createHash('sha256').update(sourceUrl).digest()).slice(0, 16);
}

/** Signs a token for `ref` that expires at `expiresAt` (seconds). */
export function signImageToken(claims: ImageTokenClaims, key: Buffer): string {
  const body = `${claims.ref}.${Math.floor(claims.expiresAt).toString(36)}`;
  return `${body}.${mac(body, key)}`;
}

/**
 * Checks a token's shape, signature and expiry.
 * @returns the claims, or why the token is refused
 */
export function verifyImageToken(
  token: string,
  key: Buffer,
  nowSeconds: number,
): ImageTokenClaims | { readonly refused: 'malformed' | 'signature' | 'expired' } {
  const match = TOKEN.exec(token);
  if (!match) return { refused: 'malformed' };
  const body = `${match[1]!}.${match[2]!}`;
  const expected = Buffer.from(mac(body, key));
  const given = Buffer.from(match[3]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return { refused: 'signature' };
  const expiresAt = parseInt(match[2]!, 36);
  if (expiresAt <= nowSeconds) return { refused: 'expired' };
  return { ref: match[1]!, expiresAt };
}

function mac(body: string, key: Buffer): string {
  return createHmac('sha256', key)
    .update(body)
    .digest()
    .subarray(0, MAC_BYTES)
    .toString('base64url');
}

function base32(bytes: Buffer): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31]!;
      bits -= 5;
    }
  }
  return out;
}
