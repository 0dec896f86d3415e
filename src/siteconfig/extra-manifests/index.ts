/**
 * Extra manifests: the ConfigMap data assisted-service applies at install time, built from
 * the shipped default sets, the user's folders and templates, and split to fit ConfigMaps.
 */
export {
  buildExtraManifests,
  CONFIGMAP_DATA_LIMIT,
  configMapEntryBytes,
  DEFAULT_SET,
  NO_DEFAULT_SET,
  splitConfigMapData,
} from './build.js';
export type { ExtraManifestContext, ExtraManifestProblem, ExtraManifestResult } from './build.js';
export {
  NO_FIELD,
  parseGoTemplate,
  readsMatch,
  TemplateBudget,
  TemplateError,
  TemplateStruct,
} from './go-template.js';
export type { FieldRead, GoTemplate, Pin } from './go-template.js';
