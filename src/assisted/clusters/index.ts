/**
 * Install orchestration of the assisted core: the ClusterDeployments controller (ACI conditions,
 * install trigger, roles, preparation, credentials, finalizers), the install-config builder, the
 * clusters' events, and the adapters that wire it to the state tables, validations and hosts.
 */
export * from './adapters.js';
export * from './cluster-deployments-controller.js';
export * from './cluster-events.js';
export * from './cluster-installations.js';
export * from './cluster-record.js';
export * from './conditions.js';
export * from './credentials.js';
export * from './deletion.js';
export * from './install-config.js';
export * from './kinds.js';
export * from './ports.js';
export * from './progress.js';
export * from './roles.js';
