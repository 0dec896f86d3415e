export { parseRanges, startImageServer } from './image-server.js';
export { ImageSourceError } from './image-source.js';
export type { ImageServer, ImageServerOptions, ImageServerStats } from './image-server.js';
export { imageRef, signImageToken, verifyImageToken } from './image-token.js';
export type { ImageTokenClaims } from './image-token.js';
