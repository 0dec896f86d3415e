/**
 * Files a site refers to for its objects: crTemplates (objects that replace a generated one) and
 * BIOS settings files. They are read and checked with the site's files (resources.ts) and when
 * the site is compiled (compile.ts); listed here with their notes.
 */
import { defineRule } from './rule.js';
import type { Rule } from './rule.js';

const RESOURCES = 'resources.ts';

export const TEMPLATE_NOT_FOUND = defineRule({
  code: 'TEMPLATE_NOT_FOUND',
  severity: 'error',
  upstream: 'refuses an unreadable crTemplate',
  why: 'as upstream',
  reportedBy: RESOURCES,
});

export const TEMPLATE_WRONG_KIND = defineRule({
  code: 'TEMPLATE_WRONG_KIND',
  severity: 'error',
  upstream: 'refuses a crTemplate of another kind',
  why: 'as upstream',
  reportedBy: RESOURCES,
});

export const TEMPLATE_MISMATCH = defineRule({
  code: 'TEMPLATE_MISMATCH',
  severity: 'error',
  upstream:
    'refuses a crTemplate with another sync wave; ignores one with another name or namespace',
  why: 'an object under another name or namespace is one the hub never connects to the cluster',
  reportedBy: 'compile.ts',
});

export const TEMPLATE_PLACEHOLDER = defineRule({
  code: 'TEMPLATE_PLACEHOLDER',
  severity: 'error',
  upstream: 'replaces only whole-value placeholders that name a field',
  why: 'any other placeholder would reach the hub as literal `{{ }}` text',
  reportedBy: RESOURCES,
});

export const BIOS_FILE_NOT_FOUND = defineRule({
  code: 'BIOS_FILE_NOT_FOUND',
  severity: 'error',
  upstream: 'refuses an unreadable `biosConfigRef.filePath`',
  why: 'as upstream',
  reportedBy: RESOURCES,
});

export const BIOS_FILE_INVALID = defineRule({
  code: 'BIOS_FILE_INVALID',
  severity: 'error',
  upstream: 'refuses a BIOS file that is no map of settings',
  why: 'as upstream; the HostFirmwareSettings take one value per setting',
  reportedBy: RESOURCES,
});

/** The rules of this topic, for the registry. */
export const templateRules: readonly Rule[] = [
  TEMPLATE_NOT_FOUND,
  TEMPLATE_WRONG_KIND,
  TEMPLATE_MISMATCH,
  TEMPLATE_PLACEHOLDER,
  BIOS_FILE_NOT_FOUND,
  BIOS_FILE_INVALID,
];
