/**
 * The BareMetalHost status as the Bare Metal Operator writes it (metal3-io/baremetal-operator
 * `apis/metal3.io/v1alpha1/baremetalhost_types.go`), so `oc get bmh`, runbooks and the BMAC
 * read a redfish-mode host exactly as they read one BMO manages: the same provisioning states,
 * operational statuses, error types, operation history and counters, spelt the same way.
 */
import type { KubeObject } from '../../../kube/index.js';

/** `status.provisioning.state` values this controller writes (BMO ProvisioningState). */
export const ProvisioningState = {
  None: '',
  Unmanaged: 'unmanaged',
  Registering: 'registering',
  Available: 'available',
  /** BMO's older name of `available`; read, never written. */
  Ready: 'ready',
  Provisioning: 'provisioning',
  Provisioned: 'provisioned',
  Deprovisioning: 'deprovisioning',
  PoweringOffBeforeDelete: 'powering off before delete',
  Deleting: 'deleting',
} as const;
export type ProvisioningState = (typeof ProvisioningState)[keyof typeof ProvisioningState];

/** `status.operationalStatus` values (BMO OperationalStatus). */
export const OperationalStatus = {
  OK: 'OK',
  Discovered: 'discovered',
  Error: 'error',
  Detached: 'detached',
} as const;
export type OperationalStatus = (typeof OperationalStatus)[keyof typeof OperationalStatus];

/**
 * `status.errorType` values used here (BMO ErrorType). BMO's `detach error` is left out: its
 * CRD enum does not admit it, so a failed eject on detach is a `provisioning error`.
 */
export const ErrorType = {
  Registration: 'registration error',
  Provisioning: 'provisioning error',
  PowerManagement: 'power management error',
} as const;
export type ErrorType = (typeof ErrorType)[keyof typeof ErrorType];

/** The Event reason BMO records with each error type (`recordActionFailure`). */
export const ERROR_EVENT_REASON: Readonly<Record<ErrorType, string>> = {
  'registration error': 'RegistrationError',
  'provisioning error': 'ProvisioningError',
  'power management error': 'PowerManagementError',
};

/** `spec.image` / `status.provisioning.image` / `status.lastAttemptedImage`. */
export interface BmhImage {
  readonly url: string;
  readonly checksum?: string;
  readonly checksumType?: string;
  readonly format?: string;
}

/** One `status.operationHistory` entry: RFC 3339 times, `null` when not (yet) set. */
export interface OperationMetric {
  readonly start: string | null;
  readonly end: string | null;
}

/** The operations BMO times in `status.operationHistory`. */
export type Operation = 'register' | 'inspect' | 'provision' | 'deprovision';

/** The status fields this controller reads and writes; the rest of the status is kept as is. */
export interface BmhStatus {
  readonly operationalStatus: OperationalStatus | '';
  readonly errorType?: ErrorType;
  readonly errorMessage: string;
  readonly errorCount: number;
  readonly poweredOn: boolean;
  readonly provisioningFailCount: number;
  readonly lastUpdated?: string;
  readonly lastAttemptedImage?: BmhImage;
  readonly provisioning: {
    readonly state: ProvisioningState;
    readonly ID: string;
    readonly image?: BmhImage;
    readonly bootMode?: string;
  };
  readonly operationHistory: Readonly<Partial<Record<Operation, OperationMetric>>>;
}

/** The state an operation of `status.operationHistory` is timed by (BMO OperationMetricForState). */
export const OPERATION_OF_STATE: Readonly<Partial<Record<ProvisioningState, Operation>>> = {
  registering: 'register',
  provisioning: 'provision',
  deprovisioning: 'deprovision',
};

/** Reads a BareMetalHost's status, filling what BMO's defaults would. */
export function readStatus(bmh: KubeObject): BmhStatus {
  const raw = record(bmh['status']);
  const provisioning = record(raw['provisioning']);
  const history = record(raw['operationHistory']);
  const operationHistory: Partial<Record<Operation, OperationMetric>> = {};
  for (const op of ['register', 'inspect', 'provision', 'deprovision'] as const) {
    const metric = record(history[op]);
    if (Object.keys(metric).length > 0)
      operationHistory[op] = { start: time(metric['start']), end: time(metric['end']) };
  }
  const errorType = raw['errorType'];
  const lastUpdated = raw['lastUpdated'];
  return {
    ...raw,
    operationalStatus: str(raw['operationalStatus']) as OperationalStatus | '',
    ...(isErrorType(errorType) ? { errorType } : { errorType: undefined }),
    errorMessage: str(raw['errorMessage']),
    errorCount: num(raw['errorCount']),
    poweredOn: raw['poweredOn'] === true,
    provisioningFailCount: num(raw['provisioningFailCount']),
    ...(typeof lastUpdated === 'string' ? { lastUpdated } : {}),
    ...(readImage(raw['lastAttemptedImage'])
      ? { lastAttemptedImage: readImage(raw['lastAttemptedImage']) }
      : {}),
    provisioning: {
      ...provisioning,
      state: str(provisioning['state']) as ProvisioningState,
      ID: str(provisioning['ID']),
      ...(readImage(provisioning['image']) ? { image: readImage(provisioning['image']) } : {}),
    },
    operationHistory,
  };
}

/** The image of `spec.image`, or `undefined` when none (or no URL) is set. */
export function readImage(value: unknown): BmhImage | undefined {
  const image = record(value);
  const url = image['url'];
  if (typeof url !== 'string' || url === '') return undefined;
  return { ...image, url };
}

/**
 * The status with the provisioning state moved to `next`, and the operations of both states
 * timed as BMO times them (recordStateEnd / recordStateBegin): an operation starts when its
 * state is entered (unless one is already running) and ends when the state is left.
 */
export function withState(status: BmhStatus, next: ProvisioningState, now: string): BmhStatus {
  const current = status.provisioning.state;
  if (current === next) return status;
  const history = { ...status.operationHistory };
  const ending = OPERATION_OF_STATE[current];
  const ended = ending === undefined ? undefined : history[ending];
  if (ending !== undefined && ended?.start && !ended.end) history[ending] = { ...ended, end: now };
  const beginning = OPERATION_OF_STATE[next];
  const begun = beginning === undefined ? undefined : history[beginning];
  if (beginning !== undefined && (!begun?.start || begun.end))
    history[beginning] = { start: now, end: null };
  return {
    ...status,
    provisioning: { ...status.provisioning, state: next },
    operationHistory: history,
  };
}

/** The status with an error recorded as BMO's setErrorMessage does (count incremented). */
export function withError(status: BmhStatus, type: ErrorType, message: string): BmhStatus {
  return {
    ...status,
    operationalStatus: OperationalStatus.Error,
    errorType: type,
    errorMessage: message,
    errorCount: status.errorCount + 1,
  };
}

/** The status with no error: operational status OK (or `operational`) and the count reset. */
export function withoutError(
  status: BmhStatus,
  operational: OperationalStatus = OperationalStatus.OK,
): BmhStatus {
  return {
    ...status,
    operationalStatus: operational,
    errorType: undefined,
    errorMessage: '',
    errorCount: 0,
  };
}

/** The status as a JSON object for the status subresource (no `undefined` fields). */
export function toStatusObject(status: BmhStatus): Record<string, unknown> {
  return JSON.parse(JSON.stringify(status)) as Record<string, unknown>;
}

function isErrorType(value: unknown): value is ErrorType {
  return Object.values(ErrorType).includes(value as ErrorType);
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function time(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
