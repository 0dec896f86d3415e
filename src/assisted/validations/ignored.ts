/**
 * Ignored validations (AgentClusterInstall annotations) and the questions the state machines
 * ask of a `validationsInfo`: did this validation pass, which ones fail (assisted.md §3.3, §5;
 * AS `ctl/clusterdeployments_controller.go`, `internal/common/validations.go`).
 */
import { SiteForgeError } from '../../shared/errors.js';
import type { ValidationResult, ValidationsInfo } from '../model.js';
import {
  ALL_CLUSTER_VALIDATION_IDS,
  ALL_HOST_VALIDATION_IDS,
  NON_IGNORABLE_CLUSTER_VALIDATIONS,
  NON_IGNORABLE_HOST_VALIDATIONS,
} from './ids.js';

/** AgentClusterInstall annotation: cluster validation ids to ignore, comma-separated. */
export const IGNORED_CLUSTER_VALIDATIONS_ANNOTATION =
  'agent-install.openshift.io/ignored-cluster-validations';
/** AgentClusterInstall annotation: host validation ids to ignore, comma-separated. */
export const IGNORED_HOST_VALIDATIONS_ANNOTATION =
  'agent-install.openshift.io/ignored-host-validations';

/** An ignore annotation that cannot be applied; `message` is upstream's text. */
export class IgnoredValidationsError extends SiteForgeError {
  constructor(message: string) {
    super('IGNORED_VALIDATIONS_INVALID', message);
  }
}

/**
 * Parses an ignore annotation's value as upstream does: absent → undefined (no per-cluster
 * override), present but empty → `[]`, else the trimmed comma-separated ids, duplicates
 * dropped. An empty item (`a,,b`) is an error. Upstream reads only the comma form: a JSON array
 * such as `["a"]` is split on commas like any other value (and its ids are then unknown).
 * @param emptyIds `skip` drops empty items instead (the cluster controller, which does not yet
 *   report annotation errors in SpecSynced, reads the rest of the list)
 */
export function parseIgnoredValidations(
  annotationValue: string | undefined,
  emptyIds: 'refuse' | 'skip' = 'refuse',
): string[] | undefined {
  if (annotationValue === undefined) return undefined;
  const value = annotationValue.trim();
  if (value === '') return [];
  const ids: string[] = [];
  for (const raw of value.split(',')) {
    const id = raw.trim();
    if (id === '' && emptyIds === 'skip') continue;
    if (id === '') {
      throw new IgnoredValidationsError(
        `failed to parse comma-separated validation IDs: empty ignored validation ID found in '${value}'`,
      );
    }
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * Problems with an ignore list (`validateIgnoredValidations`): unknown ids and ids that may not
 * be ignored. `all` is always allowed. Empty when the list can be applied.
 */
export function ignoredValidationsProblems(
  ids: readonly string[],
  kind: 'host' | 'cluster',
): string[] {
  const known = kind === 'host' ? ALL_HOST_VALIDATION_IDS : ALL_CLUSTER_VALIDATION_IDS;
  const nonIgnorable =
    kind === 'host' ? NON_IGNORABLE_HOST_VALIDATIONS : NON_IGNORABLE_CLUSTER_VALIDATIONS;
  const problems: string[] = [];
  for (const id of ids) {
    if (id.toLowerCase() === 'all') continue;
    if (!known.has(id)) problems.push(`Validation ID '${id}' is not a known ${kind} validation`);
  }
  if (!ids.includes('all')) {
    const refused = ids.filter((id) => nonIgnorable.includes(id));
    if (refused.length > 0) {
      problems.push(`unable to ignore the following ${kind} validations (${refused.join(',')})`);
    }
  }
  return problems;
}

function kindOf(info: ValidationsInfo): 'host' | 'cluster' {
  return 'hosts-data' in info || 'configuration' in info ? 'cluster' : 'host';
}

/** True when `ignored` silences the validation (`all` silences every ignorable one). */
export function isIgnored(
  id: string,
  ignored: readonly string[],
  kind: 'host' | 'cluster',
): boolean {
  const nonIgnorable =
    kind === 'host' ? NON_IGNORABLE_HOST_VALIDATIONS : NON_IGNORABLE_CLUSTER_VALIDATIONS;
  if (nonIgnorable.includes(id)) return false;
  return ignored.includes('all') || ignored.includes(id);
}

function find(info: ValidationsInfo, id: string): ValidationResult | undefined {
  for (const results of Object.values(info)) {
    const found = results.find((r) => r.id === id);
    if (found) return found;
  }
  return undefined;
}

const PASSING: readonly string[] = ['success', 'success-suppress-output', 'disabled'];

/**
 * Whether a validation counts as passing for the state machines: success, suppressed success,
 * disabled, or ignored (unless it may not be ignored). A validation absent from `info` has not
 * passed. `kind` is read from the info's categories unless given (host ids and cluster ids
 * overlap, and differ in what may be ignored).
 */
export function validationPassed(
  info: ValidationsInfo,
  id: string,
  ignored: readonly string[] = [],
  kind: 'host' | 'cluster' = kindOf(info),
): boolean {
  const result = find(info, id);
  if (!result) return false;
  return PASSING.includes(result.status) || isIgnored(id, ignored, kind);
}

/**
 * Messages of the failing validations, sorted (upstream's `$FAILING_VALIDATIONS`, joined by
 * the caller with ` ; `). Upstream lists ignored failures too: pass no `ignored` for its text.
 */
export function failingMessages(
  info: ValidationsInfo,
  ignored: readonly string[] = [],
  kind: 'host' | 'cluster' = kindOf(info),
): string[] {
  return Object.values(info)
    .flat()
    .filter((r) => r.status === 'failure' && !isIgnored(r.id, ignored, kind))
    .map((r) => r.message)
    .sort();
}

/**
 * Messages the `Validated` condition of an Agent or AgentClusterInstall lists (the caller joins
 * them with `,`): every validation not passing, pending and error included. An Agent leaves
 * out `disabled` ones too (and suppressed ones, which upstream never stores); an
 * AgentClusterInstall only `success`. Categories are taken in name order (upstream's order is
 * a Go map's).
 */
export function conditionMessages(
  info: ValidationsInfo,
  kind: 'host' | 'cluster' = kindOf(info),
): string[] {
  const quiet = kind === 'host' ? ['success', 'success-suppress-output', 'disabled'] : ['success'];
  return Object.keys(info)
    .sort()
    .flatMap((category) => info[category] ?? [])
    .filter((r) => !quiet.includes(r.status))
    .map((r) => r.message);
}
