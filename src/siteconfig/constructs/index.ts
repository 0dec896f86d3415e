export { EdgeCluster, EdgeNode, Fleet, Site } from './fleet.js';
export type { SiteProps } from './fleet.js';
export { EmittedKinds } from './kinds.js';
