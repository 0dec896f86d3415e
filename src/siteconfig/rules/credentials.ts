/**
 * Credentials read from a directory (`fromDirectory`), checked when the site's files are read
 * (resources.ts); listed here with their notes.
 */
import { defineRule } from './rule.js';
import type { Rule } from './rule.js';

const RESOURCES = 'resources.ts';

export const CREDENTIAL_EMPTY = defineRule({
  code: 'CREDENTIAL_EMPTY',
  severity: 'error',
  upstream: 'no such field upstream',
  why: 'a `fromDirectory` credential file that is empty (after its trailing newline) gives a Secret the BMC or registry refuses',
  reportedBy: RESOURCES,
});

export const CREDENTIAL_NOT_UTF8 = defineRule({
  code: 'CREDENTIAL_NOT_UTF8',
  severity: 'error',
  upstream: 'no such field upstream',
  why: 'a `fromDirectory` credential file whose bytes are not UTF-8 would reach the Secret altered (they used to be replaced with U+FFFD silently)',
  reportedBy: RESOURCES,
});

export const PULL_SECRET_INVALID = defineRule({
  code: 'PULL_SECRET_INVALID',
  severity: 'error',
  upstream: 'no such field upstream',
  why: 'a `fromDirectory` pull secret whose `.dockerconfigjson` is not JSON with an `auths` map is refused by the hub',
  reportedBy: RESOURCES,
});

export const SECRET_DIRECTORY_NOT_FOUND = defineRule({
  code: 'SECRET_DIRECTORY_NOT_FOUND',
  severity: 'error',
  upstream: 'no such field upstream',
  why: "SiteForge's own `fromDirectory`: without the directory there is no Secret to emit",
  reportedBy: RESOURCES,
});

export const SECRET_DIRECTORY_INVALID = defineRule({
  code: 'SECRET_DIRECTORY_INVALID',
  severity: 'error',
  upstream: 'no such field upstream',
  why: "SiteForge's own `fromDirectory`: a name that leaves the secrets directory is refused",
  reportedBy: RESOURCES,
});

export const SECRET_KEY_MISSING = defineRule({
  code: 'SECRET_KEY_MISSING',
  severity: 'error',
  upstream: 'no such field upstream',
  why: "SiteForge's own `fromDirectory`: the Secret would lack a key the BareMetalHost or the pull needs",
  reportedBy: RESOURCES,
});

/** The rules of this topic, for the registry. */
export const credentialRules: readonly Rule[] = [
  SECRET_DIRECTORY_NOT_FOUND,
  SECRET_DIRECTORY_INVALID,
  SECRET_KEY_MISSING,
  CREDENTIAL_EMPTY,
  CREDENTIAL_NOT_UTF8,
  PULL_SECRET_INVALID,
];
