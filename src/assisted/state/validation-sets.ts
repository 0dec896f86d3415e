/**
 * Which validations the state machines require, and how one validation counts (assisted.md §5.2,
 * §5.3). Sets mirror the `stateswitch.And(If(…))` groups of upstream
 * `internal/host/statemachine.go`, `internal/host/pool_host_statemachine.go` and
 * `internal/cluster/statemachine.go`; the ignore rules mirror `internal/common/validations.go`
 * and the two `refresh_status_preprocessor.go` files.
 */
import type { ValidationResult, ValidationsInfo } from '../model.js';
import { OPERATORS } from '../validations/ids.js';
import { isIgnored } from '../validations/ignored.js';

/** Operator requirement validations the host and cluster machines both require (same ids). */
const OPERATOR_REQUIREMENTS = OPERATORS.map((operator) => operator.validationId);

/** Host validation sets of the bound host machine (upstream `statemachine.go`). */
export const HostValidationSets = {
  /** `hasValidInventory`. */
  validInventory: ['has-inventory', 'inventory-not-fully-truncated'],
  /** `hasMinRequiredHardware`: failing → `insufficient` with the hardware message. */
  minHardware: [
    'has-min-valid-disks',
    'has-min-cpu-cores',
    'has-min-memory',
    'compatible-with-cluster-platform',
    'disk-encryption-requirements-satisfied',
  ],
  /** `requiredInputFieldsExist`: failing → `pending-for-input`. */
  requiredInput: ['machine-cidr-defined'],
  /**
   * `isSufficientForInstall`: failing → `insufficient`. Not here on purpose (as upstream):
   * `ntp-synced`, `mtu-valid`, `release-domain-name-resolved-correctly` (commented out upstream,
   * MGMT-15213), `connected` and `media-connected` (judged on their own).
   */
  sufficientForInstall: [
    'has-memory-for-role',
    'has-cpu-cores-for-role',
    'belongs-to-machine-cidr',
    'hostname-unique',
    'hostname-valid',
    'ignition-downloadable',
    'belongs-to-majority-group',
    'sufficient-network-latency-requirement-for-role',
    'sufficient-packet-loss-requirement-for-role',
    'has-default-route',
    'api-domain-name-resolved-correctly',
    'api-int-domain-name-resolved-correctly',
    'apps-domain-name-resolved-correctly',
    'dns-wildcard-not-configured',
    'valid-platform-network-settings',
    'sufficient-installation-disk-speed',
    'non-overlapping-subnets',
    'compatible-agent',
    'time-synced-between-host-and-service',
    'no-skip-installation-disk',
    'no-skip-missing-disk',
    'no-ip-collisions-in-network',
    'no-iscsi-nic-belongs-to-machine-cidr',
    ...OPERATOR_REQUIREMENTS,
  ],
  /** Judged apart in the "pending input" / "not ready" / "ready" rows. */
  vsphereDiskUuid: ['vsphere-disk-uuid-enabled'],
  /** Unbound hosts (`pool_host_statemachine.go`): `hasMinRequiredHardware ∧ hostname-valid`. */
  sufficientToBeBound: [
    'has-min-valid-disks',
    'has-min-cpu-cores',
    'has-min-memory',
    'hostname-valid',
  ],
} as const satisfies Record<string, readonly string[]>;

/** Cluster validation sets (upstream `internal/cluster/statemachine.go`). */
export const ClusterValidationSets = {
  /** `pendingConditions`: failing → `pending-for-input`. */
  pendingInput: [
    'machine-cidr-defined',
    'cluster-cidr-defined',
    'service-cidr-defined',
    'dns-domain-defined',
    'pull-secret-set',
  ],
  /** `vipsDefinedConditions`: also → `pending-for-input` (non-DHCP VIP allocation). */
  vipsDefined: ['ingress-vips-defined', 'api-vips-defined'],
  /** `requiredForInstall`: failing → `insufficient`. */
  requiredForInstall: [
    'machine-cidr-equals-to-calculated-cidr',
    'api-vips-valid',
    'ingress-vips-valid',
    'all-hosts-are-ready-to-install',
    'sufficient-masters-count',
    'network-prefix-valid',
    'no-cidrs-overlapping',
    'ntp-server-configured',
    'network-type-valid',
    'custom-manifests-requirements-satisfied',
    'networks-same-address-families',
    ...OPERATOR_REQUIREMENTS,
  ],
} as const satisfies Record<string, readonly string[]>;

function find(info: ValidationsInfo, id: string): ValidationResult | undefined {
  for (const results of Object.values(info)) {
    const found = results.find((r) => r.id === id);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Whether a host validation counts as passing. Upstream counts `success`,
 * `success-suppress-output` and `disabled`; a suppressed success is left out of
 * `validationsInfo`, so an id the caller did not report counts as passing too. An ignored
 * validation passes whatever its status (upstream forces its condition true).
 */
export function hostValidationPasses(
  info: ValidationsInfo,
  id: string,
  ignored: readonly string[],
): boolean {
  const result = find(info, id);
  if (result === undefined) return true;
  if (isIgnored(id, ignored, 'host')) return true;
  return (
    result.status === 'success' ||
    result.status === 'success-suppress-output' ||
    result.status === 'disabled'
  );
}

/**
 * Whether a cluster validation counts as passing: upstream counts only `success` and
 * `disabled`. An id the caller did not report counts as passing (the caller only reports what
 * applies to the cluster).
 */
export function clusterValidationPasses(
  info: ValidationsInfo,
  id: string,
  ignored: readonly string[],
): boolean {
  const result = find(info, id);
  if (result === undefined) return true;
  if (isIgnored(id, ignored, 'cluster')) return true;
  return result.status === 'success' || result.status === 'disabled';
}

/**
 * `$FAILING_VALIDATIONS` of a status info: the messages of every validation whose status is
 * `failure` (ignored ones included, as upstream), sorted, joined with ` ; `
 * (upstream `transition.go` replaceMacros).
 */
export function failingValidationMessages(info: ValidationsInfo): string {
  const messages: string[] = [];
  for (const results of Object.values(info)) {
    for (const r of results) if (r.status === 'failure') messages.push(r.message);
  }
  return messages.sort(compareBytes).join(' ; ');
}

/** Go's `sort.Strings` order: UTF-8 byte order, which is code point order (not the locale's). */
function compareBytes(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i]! - y[i]!;
  }
  return x.length - y.length;
}
