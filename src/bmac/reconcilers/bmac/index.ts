export { BMAC_NAME, createBmacController } from './controller.js';
export type { BmacOptions } from './pass.js';
export { KubeSpokeClient, kubeSpokeClientFactory } from './spoke.js';
export type { SpokeClient, SpokeClientFactory } from './spoke.js';
export { BmacError } from './errors.js';
