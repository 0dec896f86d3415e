/**
 * `mergeDefaultMachineConfigs`: folds the predefined MachineConfigs of one role into a single
 * `predefined-extra-manifests-<role>` MachineConfig, as siteconfig-generator does with the
 * Machine Config Operator's MergeMachineConfigs (fewer MachineConfigs means fewer rendered
 * configs and reboots on day 2).
 *
 * Merge rules (Ignition 3 config merging, in MachineConfig name order like the MCO):
 * - `storage.files`, `directories`, `links` by `path`; `disks`, `filesystems` by `device`;
 *   `luks`, `raid` by `name`; `systemd.units` by `name` (their `dropins` by `name`);
 *   `passwd.users` and `groups` by `name`. An entry whose key is new is appended; an entry
 *   with a known key is merged field by field, the later MachineConfig winning. When both set
 *   a field to different values that is reported (MACHINE_CONFIG_MERGE_CONFLICT).
 * - `kernelArguments` and `extensions` are concatenated in order without exact duplicates;
 *   `fips` is true when any is; `kernelType` is the last one set (a different earlier value
 *   is a conflict).
 * - The result uses Ignition 3.2.0. Only MachineConfigs on Ignition 3.0.0–3.2.0 whose spec
 *   holds nothing but `config`, `kernelArguments`, `extensions`, `fips` and `kernelType` are
 *   merged; any other is kept as it is and reported (MACHINE_CONFIG_NOT_MERGED).
 */
import { quote } from '../../shared/errors.js';

/** The MachineConfig pool label. */
export const ROLE_LABEL = 'machineconfiguration.openshift.io/role';
const ZTP_ANNOTATION = 'ran.openshift.io/ztp-gitops-generated';
const MERGEABLE_VERSIONS = new Set(['3.0.0', '3.1.0', '3.2.0']);
const SPEC_KEYS = new Set(['config', 'kernelArguments', 'extensions', 'fips', 'kernelType']);
const CONFIG_KEYS = new Set(['ignition', 'storage', 'systemd', 'passwd']);

type Obj = Readonly<Record<string, unknown>>;

/** One predefined MachineConfig offered to the merge. */
export interface MergeCandidate {
  /** The ConfigMap key (file name) it came from. */
  readonly key: string;
  readonly manifest: Obj;
}

/** Something the merge wants the user to know. */
export interface MergeNotice {
  readonly code: 'MACHINE_CONFIG_MERGE_CONFLICT' | 'MACHINE_CONFIG_NOT_MERGED';
  readonly message: string;
  readonly hint: string;
}

/** The merged MachineConfigs by role, and the keys they replace. */
export interface MergeResult {
  /** Role → the merged MachineConfig. */
  readonly merged: ReadonlyMap<string, Obj>;
  /** Keys of the MachineConfigs that went into a merged one. */
  readonly replaced: readonly string[];
  readonly notices: readonly MergeNotice[];
}

function isObj(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Why a MachineConfig cannot be merged, or its role when it can. */
function mergeability(manifest: Obj): { role: string } | { reason: string } {
  const metadata = isObj(manifest['metadata']) ? manifest['metadata'] : {};
  const labels = isObj(metadata['labels']) ? metadata['labels'] : {};
  const role = labels[ROLE_LABEL];
  if (typeof role !== 'string' || role === '') return { reason: `it has no ${ROLE_LABEL} label` };
  const spec = isObj(manifest['spec']) ? manifest['spec'] : {};
  const extra = Object.keys(spec).filter((k) => !SPEC_KEYS.has(k));
  if (extra.length > 0)
    return { reason: `its spec sets ${extra.join(', ')}, which the merge does not carry` };
  const config = spec['config'] === undefined ? {} : spec['config'];
  if (!isObj(config)) return { reason: 'spec.config is not an object' };
  const extraConfig = Object.keys(config).filter((k) => !CONFIG_KEYS.has(k));
  if (extraConfig.length > 0)
    return {
      reason: `its Ignition config sets ${extraConfig.join(', ')}, which Ignition 3.2.0 lacks`,
    };
  const ignition = isObj(config['ignition']) ? config['ignition'] : {};
  const version = ignition['version'];
  if (version !== undefined && (typeof version !== 'string' || !MERGEABLE_VERSIONS.has(version)))
    return { reason: `it uses Ignition ${quote(version)}; only 3.0.0–3.2.0 are merged` };
  if (Object.keys(ignition).some((k) => k !== 'version'))
    return { reason: 'its ignition section merges or replaces remote configs' };
  return { role };
}

/** Keyed lists of an Ignition config and the field that identifies their entries. */
const KEYED_LISTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  storage: {
    files: 'path',
    directories: 'path',
    links: 'path',
    disks: 'device',
    filesystems: 'device',
    luks: 'name',
    raid: 'name',
  },
  systemd: { units: 'name' },
  passwd: { users: 'name', groups: 'name' },
};

class Merger {
  readonly notices: MergeNotice[] = [];
  /** section → list → key → [entry, source key] */
  private readonly lists = new Map<
    string,
    Map<string, Map<string, { entry: Obj; from: string }>>
  >();
  private readonly kernelArguments: string[] = [];
  private readonly extensions: string[] = [];
  private fips = false;
  private kernelType: { value: string; from: string } | undefined;

  add(candidate: MergeCandidate): void {
    const spec = (candidate.manifest['spec'] ?? {}) as Obj;
    const config = (spec['config'] ?? {}) as Obj;
    for (const [section, lists] of Object.entries(KEYED_LISTS)) {
      const part = config[section];
      if (!isObj(part)) continue;
      for (const [list, keyField] of Object.entries(lists)) {
        const entries = part[list];
        if (!Array.isArray(entries)) continue;
        for (const entry of entries as unknown[]) {
          if (!isObj(entry)) continue;
          this.addEntry(section, list, keyField, entry, candidate.key);
        }
      }
    }
    for (const argument of asStrings(spec['kernelArguments']))
      if (!this.kernelArguments.includes(argument)) this.kernelArguments.push(argument);
    for (const extension of asStrings(spec['extensions']))
      if (!this.extensions.includes(extension)) this.extensions.push(extension);
    if (spec['fips'] === true) this.fips = true;
    const kernelType = spec['kernelType'];
    if (typeof kernelType === 'string' && kernelType !== '') {
      if (this.kernelType && this.kernelType.value !== kernelType) {
        this.conflict(
          `spec.kernelType is ${quote(this.kernelType.value)} in ${this.kernelType.from} and ${quote(kernelType)} in ${candidate.key}`,
          candidate.key,
        );
      }
      this.kernelType = { value: kernelType, from: candidate.key };
    }
  }

  private addEntry(
    section: string,
    list: string,
    keyField: string,
    entry: Obj,
    from: string,
  ): void {
    let byList = this.lists.get(section);
    if (!byList)
      this.lists.set(
        section,
        (byList = new Map<string, Map<string, { entry: Obj; from: string }>>()),
      );
    let byKey = byList.get(list);
    if (!byKey) byList.set(list, (byKey = new Map<string, { entry: Obj; from: string }>()));
    const key = entry[keyField];
    const id = typeof key === 'string' ? key : JSON.stringify(key);
    const known = byKey.get(id);
    if (!known) {
      byKey.set(id, { entry, from });
      return;
    }
    const merged: Record<string, unknown> = { ...known.entry };
    for (const [field, value] of Object.entries(entry)) {
      const before = merged[field];
      if (field === 'dropins' && Array.isArray(before) && Array.isArray(value)) {
        merged[field] = mergeByName(before as unknown[], value as unknown[]);
        continue;
      }
      if (before !== undefined && JSON.stringify(before) !== JSON.stringify(value)) {
        this.conflict(
          `${section}.${list} ${quote(id)} sets ${field} differently in ${known.from} and ${from}; ${from} wins`,
          from,
        );
      }
      merged[field] = value;
    }
    byKey.set(id, { entry: merged, from });
  }

  private conflict(message: string, from: string): void {
    this.notices.push({
      code: 'MACHINE_CONFIG_MERGE_CONFLICT',
      message: `merging the predefined MachineConfigs: ${message}`,
      hint: `give each file or unit one owner, or leave ${from} out of the merge with extraManifests.filter`,
    });
  }

  result(role: string): Obj {
    const config: Record<string, unknown> = { ignition: { version: '3.2.0' } };
    for (const [section, lists] of this.lists) {
      const part: Record<string, unknown> = {};
      for (const [list, byKey] of lists) part[list] = [...byKey.values()].map((v) => v.entry);
      config[section] = part;
    }
    const spec: Record<string, unknown> = { config };
    if (this.kernelArguments.length > 0) spec['kernelArguments'] = this.kernelArguments;
    if (this.extensions.length > 0) spec['extensions'] = this.extensions;
    if (this.fips) spec['fips'] = true;
    if (this.kernelType) spec['kernelType'] = this.kernelType.value;
    return {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: {
        name: `predefined-extra-manifests-${role}`,
        labels: { [ROLE_LABEL]: role },
        annotations: { [ZTP_ANNOTATION]: '{}' },
      },
      spec,
    };
  }
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function mergeByName(before: readonly unknown[], after: readonly unknown[]): unknown[] {
  const out = [...before];
  for (const item of after) {
    const name = isObj(item) ? item['name'] : undefined;
    const at = out.findIndex((o) => isObj(o) && o['name'] === name);
    if (at >= 0 && isObj(item)) out[at] = { ...(out[at] as Obj), ...item };
    else out.push(item);
  }
  return out;
}

function nameOf(manifest: Obj): string {
  const metadata = manifest['metadata'];
  const name = isObj(metadata) ? metadata['name'] : undefined;
  return typeof name === 'string' ? name : '';
}

/**
 * Merges the candidates per role. Candidates that cannot be merged are left out of the
 * result (and so stay in the ConfigMap as they are), each with a notice.
 */
export function mergeMachineConfigs(candidates: readonly MergeCandidate[]): MergeResult {
  const byRole = new Map<string, MergeCandidate[]>();
  const notices: MergeNotice[] = [];
  for (const candidate of candidates) {
    const verdict = mergeability(candidate.manifest);
    if ('reason' in verdict) {
      notices.push({
        code: 'MACHINE_CONFIG_NOT_MERGED',
        message: `MachineConfig ${candidate.key} is kept as it is: ${verdict.reason}`,
        hint: 'fix the MachineConfig, or leave it out with extraManifests.filter',
      });
      continue;
    }
    const list = byRole.get(verdict.role) ?? [];
    list.push(candidate);
    byRole.set(verdict.role, list);
  }
  const merged = new Map<string, Obj>();
  const replaced: string[] = [];
  for (const role of [...byRole.keys()].sort()) {
    const list = byRole
      .get(role)!
      .slice()
      .sort((a, b) =>
        nameOf(a.manifest) < nameOf(b.manifest)
          ? -1
          : nameOf(a.manifest) > nameOf(b.manifest)
            ? 1
            : 0,
      );
    const merger = new Merger();
    for (const candidate of list) {
      merger.add(candidate);
      replaced.push(candidate.key);
    }
    notices.push(...merger.notices);
    merged.set(role, merger.result(role));
  }
  return { merged, replaced: replaced.sort(), notices };
}
