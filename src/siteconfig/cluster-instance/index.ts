/**
 * ClusterInstance (`siteconfig.open-cluster-management.io/v1alpha1`) both ways: read and
 * compile ClusterInstance files into the objects of the default assisted-installer templates,
 * render SiteConfigs as ClusterInstances for hubs that run the SiteConfig operator, and convert
 * SiteConfig files into ClusterInstance files.
 */
export type {
  ClusterInstance,
  ClusterInstanceNode,
  ClusterInstanceSpec,
  ExtraMetadata,
  ResourceRef,
  TemplateRef,
} from './types.js';
export { ClusterInstanceApiVersion, ClusterType, DefaultTemplates } from './types.js';
export { clusterInstanceSchema } from './schema.js';
export { isClusterInstanceDocument } from './validate.js';
export type { ClusterInstanceRenderer } from './validate.js';
export {
  ClusterInstanceKeys,
  ClusterInstanceWaves,
  compileClusterInstance,
  NodeTemplateKinds,
  TemplateKinds,
} from './compile.js';
export { clusterInstancesFor, conversionWarnings, isRenderedBeside } from './from-siteconfig.js';
export type {
  ClusterInstanceOptions,
  ConversionWarning,
  RenderOutcome,
} from './from-siteconfig.js';
export { CLUSTER_INSTANCE_WAVE, renderClusterInstance, renderClusterInstances } from './render.js';
export type { RenderedClusterInstances } from './render.js';
export { convertSiteConfigs } from './convert.js';
export type { ConvertedFile, ConvertOptions, ConvertResult, PositionedWarning } from './convert.js';
