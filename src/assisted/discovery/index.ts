export { signAgentToken, verifyAgentToken } from './agent-token.js';
export type { AgentTokenKey } from './agent-token.js';
export { compressedCpio, cpioArchive } from './cpio.js';
export type { CpioFile } from './cpio.js';
export { DiscoveryImageNotReadyError, ImageServerDiscoveryIsos } from './discovery-isos.js';
export type {
  DiscoveryIsoRequest,
  DiscoveryIsoStore,
  ImageServerDiscoveryIsosOptions,
} from './discovery-isos.js';
export {
  ADDITIONAL_TRUST_BUNDLE_PATH,
  DEFAULT_AGENT_IMAGE,
  DiscoveryIgnitionError,
  HOST_CA_CERT_PATH,
  ImageType,
  STATIC_NETWORK_DIR,
  discoveryIgnition,
  ignitionPayload,
  mergeIgnition,
  parseIgnition,
  staticNetworkRamdisk,
} from './ignition.js';
export type { DiscoveryIgnitionInput, HostStaticNetworkConfig, ProxySettings } from './ignition.js';
export {
  IsoLayoutError,
  bufferAccess,
  fileAccess,
  findIsoFile,
  locateEmbedAreas,
  readIsoFile,
} from './iso9660.js';
export type { EmbedArea, EmbedAreas, IsoFile, RandomAccess } from './iso9660.js';
export {
  DEFAULT_CPU_ARCHITECTURE,
  OsImageNotFoundError,
  compareVersions,
  normaliseCpuArchitecture,
  selectOsImage,
} from './os-images.js';
export type { OsImage } from './os-images.js';
export { RAMDISK_BYTES, RAMDISK_PATH, buildMinimalTemplate } from './minimal-template.js';
export type { MinimalTemplateOptions } from './minimal-template.js';
export { discoveryOverlay, rootfsUrlKernelArgument } from './overlay.js';
export type { DiscoveryIsoContent } from './overlay.js';
