export {
  createRedfishHostController,
  IMAGE_WRITTEN_AFTER,
  pairedAgent,
  REBOOTED_STAGES,
} from './redfish-host-controller.js';
export type {
  RedfishHostController,
  RedfishHostControllerOptions,
} from './redfish-host-controller.js';
export { BmcOperations } from './bmc-operations.js';
export type {
  BmcOperationsOptions,
  FinishedOperation,
  OperationOutcome,
} from './bmc-operations.js';
export { ErrorType, OperationalStatus, ProvisioningState, readStatus } from './bmh-status.js';
export type { BmhImage, BmhStatus, OperationMetric } from './bmh-status.js';
export { imageUrlsOf, isShortUrlOf, undiciRedfishClients } from './ports.js';
export type {
  ImageUrls,
  RedfishCallMetric,
  RedfishCallOutcome,
  RedfishClientFactory,
  RedfishClientRequest,
} from './ports.js';
export {
  BOOT_PROGRESS_ANNOTATION,
  imageKey,
  recordedStep,
  resumeAt,
  writeStep,
} from './boot-checkpoint.js';
