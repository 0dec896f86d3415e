/**
 * The host and cluster validations of the assisted core (issue 12): the same ids, categories,
 * statuses, messages and thresholds as assisted-service. Pure functions over the records;
 * the state machines decide statuses from these results.
 */
export * from './ids.js';
export * from './format.js';
export * from './hardware.js';
export * from './step-results.js';
export * from './network.js';
export * from './host-validations.js';
export * from './cluster-validations.js';
export * from './ignored.js';
