export {
  INFRAENV_FINALIZER,
  ImageCreatedCondition,
  InfraEnvController,
  NMStateConfigGvk,
  PULL_SECRET_RECHECK_MS,
  RECOVERABLE_ERROR_REQUEUE_MS,
} from './infraenv-controller.js';
export type { InfraEnvControllerProps } from './infraenv-controller.js';
export { labelSelectorMatches } from './label-selector.js';
export type { LabelSelector, LabelSelectorRequirement } from './label-selector.js';
