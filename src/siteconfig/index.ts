export type {
  BootMode,
  NodeRole,
  SiteConfig,
  SiteConfigApiVersion,
  SiteConfigCluster,
  SiteConfigNode,
  SiteConfigSpec,
} from './types.js';
export { siteConfigSchema } from './schema.js';
export { FleetIndex } from './issue-collector.js';
export { normalizeSiteConfig } from './normalize.js';
export { loadSiteConfigs, validateSiteConfig } from './load.js';
export type {
  LoadedClusterInstance,
  LoadedSiteConfig,
  LoadOptions,
  LoadResult,
  SiteReads,
  SourceFile,
} from './load.js';
export {
  compileFleet,
  compileSiteConfig,
  installConfigOverrides,
  Keys,
  SyncWaves,
  waveOf,
} from './compile.js';
export type { CompiledCluster, Manifest } from './compile.js';
export { filesFromMap, KUSTOMIZATION_FILES, NO_FILES, sitePathCandidates } from './site-files.js';
export type { DirEntry, SiteFiles, SitePathCandidate } from './site-files.js';
export { emptyResources, NO_SECRETS, SECRET_DIRECTORY_NAME } from './resources.js';
export type {
  ClusterResources,
  NodeResources,
  RawSecretFiles,
  SecretFiles,
  SecretSource,
  SiteResources,
} from './resources.js';
export { bmcSecretName } from './compile.js';
export { CHANGE_IMPACTS, diffFleets, worstImpact } from './diff.js';
export type {
  ChangeImpact,
  ClusterDiff,
  Danger,
  Finding,
  FleetDiff,
  ObjectChange,
} from './diff.js';
export * from './cluster-instance/index.js';
