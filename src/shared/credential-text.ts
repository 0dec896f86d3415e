/**
 * The text of a credential file (a BMC password, a pull secret), read the same way wherever a
 * file holds one: `siteforge bmc --password-file` and `fromDirectory` credentials. Editors and
 * `echo` end files with a newline that is no part of the password, so one trailing newline
 * (`\n` or `\r\n`) is dropped, never more; bytes that are not UTF-8 are refused instead of being
 * replaced with U+FFFD, which would silently change the credential.
 */

/** Why a credential file's content cannot be used. */
export type CredentialProblem = 'empty' | 'not-utf8';

/** Drops one trailing `\n` or `\r\n`. */
export function stripTrailingNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** A credential as text: decoded (strictly) and without its trailing newline, or the problem. */
export function credentialText(
  content: Uint8Array | string,
): { readonly value: string } | { readonly problem: CredentialProblem } {
  let text: string;
  if (typeof content === 'string') text = content;
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(content);
    } catch {
      return { problem: 'not-utf8' };
    }
  }
  const value = stripTrailingNewline(text);
  return value === '' ? { problem: 'empty' } : { value };
}
