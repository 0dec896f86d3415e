export {
  DELETION_RECHECK_MS,
  ImageCondition,
  ImageConditionReason,
  ImageFormat,
  PreprovisioningImageController,
  PreprovisioningImageError,
} from './preprovisioning-image-controller.js';
export type {
  AddressFamilies,
  BackendInfraEnv,
  InfraEnvBackend,
  IronicEndpoints,
  PreprovisioningImageControllerProps,
} from './preprovisioning-image-controller.js';
export { ironicAgentIgnition } from './ironic-ignition.js';
export type { IronicAgentIgnitionProps } from './ironic-ignition.js';
export { ConditionStatus, findCondition, setCondition } from './conditions.js';
export type { Condition, ConditionUpdate } from './conditions.js';
