/**
 * The step outputs validations read, in the agent's wire JSON (snake_case, AS `swagger.yaml`
 * definitions), with parsers that check the shape. `HostRecord.stepResults` keeps each output
 * as `unknown` (parsed JSON, or the raw JSON text); a parser answers `{ok: false}` when the
 * output is not the shape the agent sends, which the validations report as upstream does.
 */

/** `ntp_source`. */
export interface NtpSource {
  readonly source_name?: string;
  /** `synced`, `combined`, `not_combined`, `error`, `variable` or `unreachable`. */
  readonly source_state?: string;
}

/** `ntp_synchronization_response` (step `ntp-synchronizer`). */
export interface NtpSynchronizationResponse {
  readonly ntp_sources?: readonly NtpSource[];
}

/** `l2-connectivity`. */
export interface L2Connectivity {
  readonly outgoing_ip_address?: string;
  readonly outgoing_nic?: string;
  readonly remote_ip_address?: string;
  readonly remote_mac?: string;
  readonly successful?: boolean;
}

/** `l3-connectivity`. */
export interface L3Connectivity {
  readonly average_rtt_ms?: number;
  readonly outgoing_nic?: string;
  readonly packet_loss_percentage?: number;
  readonly remote_ip_address?: string;
  readonly successful?: boolean;
}

/** `mtu-report`. */
export interface MtuReport {
  readonly mtu_successful?: boolean;
  readonly outgoing_nic?: string;
  readonly remote_ip_address?: string;
}

/** `connectivity-remote-host`. */
export interface ConnectivityRemoteHost {
  readonly host_id?: string;
  readonly l2_connectivity?: readonly L2Connectivity[];
  readonly l3_connectivity?: readonly L3Connectivity[];
  readonly mtu_report?: readonly MtuReport[];
}

/** `connectivity-report` (step `connectivity-check`). */
export interface ConnectivityReport {
  readonly remote_hosts?: readonly ConnectivityRemoteHost[];
}

/** One entry of `domain_resolution_response.resolutions`. */
export interface DomainResolution {
  readonly domain_name: string;
  readonly ipv4_addresses?: readonly string[];
  readonly ipv6_addresses?: readonly string[];
  readonly cnames?: readonly string[];
}

/** `domain_resolution_response` (step `domain-resolution`). */
export interface DomainResolutionResponse {
  readonly resolutions: readonly DomainResolution[];
}

/**
 * `disk_speed_check_response` (step `installation-disk-speed-check`), plus the step reply's
 * `exit_code`: upstream keeps both (`disks_info[path].disk_speed{tested, exit_code, speed_ms}`),
 * and a non-zero exit code is what fails the validation. Absent `exit_code` reads as 0.
 */
export interface DiskSpeedCheckResponse {
  readonly path?: string;
  readonly io_sync_duration?: number;
  readonly exit_code?: number;
}

/** `container_image_availability`. */
export interface ContainerImageAvailability {
  readonly name?: string;
  readonly result?: 'success' | 'failure';
  readonly size_bytes?: number;
  readonly time?: number;
  /** MB/s. */
  readonly download_rate?: number;
}

/** `container_image_availability_response` (step `container-image-availability`). */
export interface ContainerImageAvailabilityResponse {
  readonly images: readonly ContainerImageAvailability[];
}

/** One entry of `free_networks_addresses` (step `free-network-addresses`). */
export interface FreeNetworkAddresses {
  readonly network?: string;
  readonly free_addresses?: readonly string[];
}

/** One entry of `verify_vips_response` (step `verify-vips`). */
export interface VerifiedVip {
  readonly vip?: string;
  readonly vip_type?: 'api' | 'ingress';
  readonly verification?: 'unverified' | 'failed' | 'succeeded';
}

/** A parse outcome. */
export type Parsed<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

type Check = (value: unknown, path: string) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const str: Check = (v, p) => (typeof v === 'string' ? undefined : `${p} is not a string`);
const num: Check = (v, p) => (typeof v === 'number' ? undefined : `${p} is not a number`);
const bool: Check = (v, p) => (typeof v === 'boolean' ? undefined : `${p} is not a boolean`);

function list(item: Check): Check {
  return (v, p) => {
    if (!Array.isArray(v)) return `${p} is not an array`;
    for (const [i, element] of (v as unknown[]).entries()) {
      const problem = item(element, `${p}[${String(i)}]`);
      if (problem) return problem;
    }
    return undefined;
  };
}

function object(fields: Readonly<Record<string, Check>>, required: readonly string[] = []): Check {
  return (v, p) => {
    if (!isObject(v)) return `${p} is not an object`;
    for (const name of required) {
      if (v[name] === undefined || v[name] === null) return `${p}.${name} is missing`;
    }
    for (const [name, check] of Object.entries(fields)) {
      const field = v[name];
      if (field === undefined || field === null) continue;
      const problem = check(field, `${p}.${name}`);
      if (problem) return problem;
    }
    return undefined;
  };
}

function hasNull(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return (value as unknown[]).some(hasNull);
  if (isObject(value)) return Object.values(value).some(hasNull);
  return false;
}

/**
 * Go's encoding/json writes nil slices as `null`; drop null fields so optional fields read as
 * absent (the value is copied only when it holds a null).
 */
function dropNulls(value: unknown): unknown {
  return hasNull(value) ? withoutNulls(value) : value;
}

function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return (value as unknown[]).map(withoutNulls);
  if (isObject(value)) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, withoutNulls(v)]),
    );
  }
  return value;
}

/** Parsed outputs by raw output: a host's results are read by many validations of many hosts. */
const MAX_CACHED_TEXTS = 4096;

function parser<T>(check: Check, what: string): (raw: unknown) => Parsed<T> {
  const byObject = new WeakMap<object, Parsed<T>>();
  const byText = new Map<string, Parsed<T>>();
  return (raw) => {
    if (typeof raw === 'object' && raw !== null) {
      const cached = byObject.get(raw);
      if (cached) return cached;
      const parsed = parse(raw);
      byObject.set(raw, parsed);
      return parsed;
    }
    if (typeof raw === 'string') {
      const cached = byText.get(raw);
      if (cached) return cached;
      const parsed = parse(raw);
      if (byText.size >= MAX_CACHED_TEXTS) byText.clear();
      byText.set(raw, parsed);
      return parsed;
    }
    return parse(raw);
  };

  function parse(raw: unknown): Parsed<T> {
    let value = raw;
    if (typeof raw === 'string') {
      try {
        value = JSON.parse(raw) as unknown;
      } catch {
        return { ok: false, error: `${what} is not JSON` };
      }
    }
    const problem = check(value, what);
    return problem ? { ok: false, error: problem } : { ok: true, value: dropNulls(value) as T };
  }
}

const strings = list(str);

/** Parses an `ntp-synchronizer` output. */
export const parseNtpSynchronizationResponse = parser<NtpSynchronizationResponse>(
  object({ ntp_sources: list(object({ source_name: str, source_state: str })) }),
  'ntp_synchronization_response',
);

/** Parses a `connectivity-check` output. */
export const parseConnectivityReport = parser<ConnectivityReport>(
  object({
    remote_hosts: list(
      object({
        host_id: str,
        l2_connectivity: list(
          object({
            outgoing_ip_address: str,
            outgoing_nic: str,
            remote_ip_address: str,
            remote_mac: str,
            successful: bool,
          }),
        ),
        l3_connectivity: list(
          object({
            average_rtt_ms: num,
            outgoing_nic: str,
            packet_loss_percentage: num,
            remote_ip_address: str,
            successful: bool,
          }),
        ),
        mtu_report: list(
          object({ mtu_successful: bool, outgoing_nic: str, remote_ip_address: str }),
        ),
      }),
    ),
  }),
  'connectivity_report',
);

/** Parses a `domain-resolution` output. */
export const parseDomainResolutionResponse = parser<DomainResolutionResponse>(
  object(
    {
      resolutions: list(
        object(
          { domain_name: str, ipv4_addresses: strings, ipv6_addresses: strings, cnames: strings },
          ['domain_name'],
        ),
      ),
    },
    ['resolutions'],
  ),
  'domain_resolution_response',
);

/** Parses an `installation-disk-speed-check` output (with the reply's `exit_code`). */
export const parseDiskSpeedCheckResponse = parser<DiskSpeedCheckResponse>(
  object({ path: str, io_sync_duration: num, exit_code: num }),
  'disk_speed_check_response',
);

/** Parses a `container-image-availability` output. */
export const parseContainerImageAvailabilityResponse = parser<ContainerImageAvailabilityResponse>(
  object(
    {
      images: list(
        object({ name: str, result: str, size_bytes: num, time: num, download_rate: num }),
      ),
    },
    ['images'],
  ),
  'container_image_availability_response',
);

/** Parses a `free-network-addresses` output. */
export const parseFreeNetworksAddresses = parser<readonly FreeNetworkAddresses[]>(
  list(object({ network: str, free_addresses: strings })),
  'free_networks_addresses',
);

/** Parses a `verify-vips` output. */
export const parseVerifyVipsResponse = parser<readonly VerifiedVip[]>(
  list(object({ vip: str, vip_type: str, verification: str })),
  'verify_vips_response',
);
