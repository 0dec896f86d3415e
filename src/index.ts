export * from './siteconfig/index.js';
export * from './siteconfig/constructs/index.js';
export { formatIssue, SiteConfigError, SiteForgeError } from './shared/errors.js';
export type { InputIssue, Severity } from './shared/errors.js';
