export * from './siteconfig/index.js';
export * from './siteconfig/constructs/index.js';
export { formatIssue, SiteConfigError, SiteForgeError } from './shared/errors.js';
export type { InputIssue, Severity } from './shared/errors.js';
// The fleet status model (docs/dashboard.md): pure, and its feeder from a hub.
export * from './fleet/index.js';
export { FleetWatcher } from './fleet/fleet-watcher.js';
export type { FleetWatcherOptions } from './fleet/fleet-watcher.js';
