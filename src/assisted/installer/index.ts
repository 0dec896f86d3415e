export * from './installer-backend.js';
export * from './openshift-install-backend.js';
export * from './select-backend.js';
export * from './simulated-backend.js';
