export { parseRanges, startImageServer } from './image-server.js';
export { ImageSourceError } from './image-source.js';
export type {
  ImageServer,
  ImageServerOptions,
  ImageServerStats,
  PositionalReader,
  SourceBlob,
} from './image-server.js';
export { applyOverlay, overlayOf } from './image-overlay.js';
export type { ImageOverlay, OverlayPart } from './image-overlay.js';
export { imageRef, signImageToken, verifyImageToken } from './image-token.js';
export type { ImageTokenClaims } from './image-token.js';
