export { parseRedfishAddress } from './address.js';
export type { RedfishEndpoint } from './address.js';
export { bootFromIso, BootStep } from './boot-from-iso.js';
export type { BootFromIsoOptions, BootFromIsoResult, BootProgress } from './boot-from-iso.js';
export { parseErrorBody, RedfishError, RedfishErrorCode } from './errors.js';
export type { RedfishErrorContext, RedfishMessage } from './errors.js';
export {
  BOOT_MODE_JOB,
  BOOT_SETTINGS_FALLBACK,
  DELL_CONFIG_PENDING,
  DELL_IMPORT_RETRIES,
  DELL_VIRTUAL_CD_BOOT,
  DEFAULT_QUIRKS,
  INSERT_FIXES,
  POWER_ON_CONFLICT,
  quirksFor,
  TRANSIENT_ERRORS,
  VENDOR_QUIRKS,
} from './quirks.js';
export type {
  InsertFix,
  InsertPayload,
  TransientErrorRule,
  VendorQuirkRule,
  VendorQuirks,
} from './quirks.js';
export { BootMode, PowerAction, PowerState } from './redfish-client.js';
export type {
  BootOverride,
  BootOverrideRequest,
  MediaSlot,
  RedfishClient,
  RedfishTarget,
  SystemInfo,
} from './redfish-client.js';
export { RedfishHttp } from './redfish-http.js';
export type {
  RedfishAuthMode,
  RedfishCredentials,
  RedfishExchange,
  RedfishHttpOptions,
  RedfishResponse,
} from './redfish-http.js';
export {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  retryDecision,
} from './retry-policy.js';
export type { RetryDecision, RetryPolicy } from './retry-policy.js';
export { UndiciRedfishClient } from './undici-redfish-client.js';
export type { UndiciRedfishClientOptions } from './undici-redfish-client.js';
