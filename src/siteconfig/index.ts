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
export {
  FleetIndex,
  loadSiteConfigs,
  normalizeSiteConfig,
  validateSiteConfig,
} from './validate.js';
export type { LoadedSiteConfig, LoadOptions, LoadResult, SourceFile } from './validate.js';
export {
  compileFleet,
  compileSiteConfig,
  installConfigOverrides,
  Keys,
  SyncWaves,
  waveOf,
} from './compile.js';
export type { CompiledCluster, Manifest } from './compile.js';
