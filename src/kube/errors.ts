/**
 * Errors of the Kubernetes adapter. client-node's `ApiException` prints the whole response, with
 * its headers; these keep only what the Status object says, so they are safe to print and log.
 */
import { SiteForgeError } from '../shared/errors.js';

/** One cause of a failed request, as the API server's Status lists it. */
export interface KubeStatusCause {
  /** Machine-readable kind of problem, e.g. `FieldValueInvalid`, `FieldManagerConflict`. */
  readonly reason?: string;
  readonly message?: string;
  /** Path of the offending field, e.g. `spec.imageSetRef.name`. */
  readonly field?: string;
}

/** The `details` of a failed request's Status. */
export interface KubeStatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly causes: readonly KubeStatusCause[];
}

/** Stable codes of KubeApiError, by HTTP status. */
export const KubeApiErrorCode = {
  Unauthorized: 'KUBE_UNAUTHORIZED',
  Forbidden: 'KUBE_FORBIDDEN',
  NotFound: 'KUBE_NOT_FOUND',
  Conflict: 'KUBE_CONFLICT',
  Gone: 'KUBE_GONE',
  Invalid: 'KUBE_INVALID',
  /** The server does not serve the kind at all (its CRD is missing), as opposed to NotFound. */
  KindUnknown: 'KUBE_KIND_UNKNOWN',
  Http: 'KUBE_HTTP',
} as const;
export type KubeApiErrorCode = (typeof KubeApiErrorCode)[keyof typeof KubeApiErrorCode];

const CODE_BY_STATUS: Readonly<Record<number, KubeApiErrorCode>> = {
  401: KubeApiErrorCode.Unauthorized,
  403: KubeApiErrorCode.Forbidden,
  404: KubeApiErrorCode.NotFound,
  409: KubeApiErrorCode.Conflict,
  410: KubeApiErrorCode.Gone,
  422: KubeApiErrorCode.Invalid,
};

/** The API server answered a request with an error status. */
export class KubeApiError extends SiteForgeError {
  declare readonly code: KubeApiErrorCode;

  constructor(
    /** HTTP status, e.g. 422. */
    readonly status: number,
    /** The Status `reason`, e.g. `Invalid`, `Conflict`, `NotFound`. */
    readonly reason: string,
    message: string,
    readonly details: KubeStatusDetails = { causes: [] },
    /** @default derived from `status` */
    code: KubeApiErrorCode = CODE_BY_STATUS[status] ?? KubeApiErrorCode.Http,
  ) {
    super(code, message);
  }
}

/**
 * The API server could not be reached or used at all: no usable kubeconfig, connection refused,
 * TLS failure, or no answer in time.
 */
export class KubeUnreachableError extends SiteForgeError {
  declare readonly code: 'KUBE_UNREACHABLE';

  constructor(
    message: string,
    /** The server URL of the kubeconfig, when one was read. */
    readonly server?: string,
  ) {
    super('KUBE_UNREACHABLE', message);
  }
}
