export {
  INFRAENV_FINALIZER,
  ImageCreatedCondition,
  InfraEnvController,
  NMStateConfigGvk,
  RECOVERABLE_ERROR_REQUEUE_MS,
} from './infraenv-controller.js';
export type { InfraEnvControllerProps } from './infraenv-controller.js';
export { labelSelectorMatches } from './label-selector.js';
export type { LabelSelector, LabelSelectorRequirement } from './label-selector.js';
