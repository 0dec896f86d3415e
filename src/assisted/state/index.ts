/**
 * The assisted core's state machines as data: host and cluster transition tables with the
 * functions that apply an event, the stage rules of install progress, and the next-step plan
 * per host status (assisted.md §4, §5 required sets).
 */
export * from './condition.js';
export * from './validation-sets.js';
export * from './host-stages.js';
export * from './host-status-info.js';
export * from './cluster-counts.js';
export * from './host-facts.js';
export * from './host-transitions.js';
export * from './host-machine.js';
export * from './cluster-machine.js';
export * from './next-steps.js';
