/**
 * Extra manifests: the filter and the deprecated extraManifestPath, checked with the SiteConfig;
 * the checks that need the manifest files (templates, merges, the names the filter lists) run
 * when the site is compiled (extra-manifests/) and are listed here with their notes.
 */
import { DEPRECATED_FIELD, IGNORED_FIELD } from './cluster.js';
import { defineRule } from './rule.js';
import type { ClusterCheck, Rule } from './rule.js';

export const FILTER_INVALID = defineRule({
  code: 'FILTER_INVALID',
  severity: 'error',
  upstream: 'refuses entries in the list the mode does not use',
  why: 'the list would have no effect: the files it names are kept, or dropped, anyway',
});

export const FILTER_EMPTY_LIST_UNUSED = defineRule({
  code: 'FILTER_INVALID',
  on: 'an empty list',
  severity: 'warning',
  upstream: 'takes an empty list of the unused mode',
  why: 'an empty list changes nothing',
});

const BUILD = 'extra-manifests/build.ts';

export const FILTER_UNKNOWN_FILE = defineRule({
  code: 'FILTER_UNKNOWN_FILE',
  severity: 'error',
  upstream: 'refuses',
  why: 'as upstream',
  reportedBy: BUILD,
});

export const EXTRA_MANIFEST_NOT_FOUND = defineRule({
  code: 'EXTRA_MANIFEST_NOT_FOUND',
  severity: 'error',
  upstream: 'refuses',
  why: 'as upstream',
  reportedBy: BUILD,
});

export const EXTRA_MANIFEST_UNREADABLE = defineRule({
  code: 'EXTRA_MANIFEST_UNREADABLE',
  severity: 'error',
  upstream: 'refuses',
  why: 'as upstream',
  reportedBy: BUILD,
});

export const TEMPLATE_INVALID = defineRule({
  code: 'TEMPLATE_INVALID',
  severity: 'error',
  upstream: 'refuses',
  why: 'as upstream',
  reportedBy: BUILD,
});

export const TEMPLATE_EXECUTION_FAILED = defineRule({
  code: 'TEMPLATE_EXECUTION_FAILED',
  severity: 'error',
  upstream: 'refuses',
  why: 'as upstream',
  reportedBy: BUILD,
});

export const MACHINE_CONFIG_MERGE_CONFLICT = defineRule({
  code: 'MACHINE_CONFIG_MERGE_CONFLICT',
  severity: 'warning',
  upstream: 'merges the predefined MachineConfigs with MCO `MergeMachineConfigs`',
  why: 'SiteForge merges the same way (the later file wins) and says which field two files set differently',
  reportedBy: 'extra-manifests/machine-config-merge.ts',
});

export const MACHINE_CONFIG_NOT_MERGED = defineRule({
  code: 'MACHINE_CONFIG_NOT_MERGED',
  severity: 'warning',
  upstream: 'merges every predefined MachineConfig of a role',
  why: 'a MachineConfig the merge cannot carry (another Ignition version, `osImageURL`, no role label) is kept as it is, and applies all the same',
  reportedBy: 'extra-manifests/machine-config-merge.ts',
});

export const EXTRA_MANIFEST_INVALID = defineRule({
  code: 'EXTRA_MANIFEST_INVALID',
  severity: 'error',
  upstream: 'refuses a file that is no YAML',
  why: 'as upstream',
  reportedBy: BUILD,
});

export const TEMPLATE_OUTPUT_INVALID = defineRule({
  code: 'TEMPLATE_OUTPUT_INVALID',
  severity: 'error',
  upstream: 'refuses rendered output that is no YAML',
  why: 'as upstream',
  reportedBy: BUILD,
});

export const EXTRA_MANIFEST_TOO_LARGE = defineRule({
  code: 'EXTRA_MANIFEST_TOO_LARGE',
  severity: 'error',
  upstream: 'takes it',
  why: 'no ConfigMap holds more than 1 MiB: the hub refuses it',
  reportedBy: 'load.ts',
});

export const EXTRA_MANIFEST_DIR_EMPTY = defineRule({
  code: 'EXTRA_MANIFEST_DIR_EMPTY',
  severity: 'warning',
  upstream: 'takes it',
  why: 'nothing is missing from the objects; the path may be a mistake',
  reportedBy: BUILD,
});

export const EXTRA_MANIFEST_EMPTY = defineRule({
  code: 'EXTRA_MANIFEST_EMPTY',
  severity: 'warning',
  upstream: 'takes it',
  why: 'an empty file adds nothing (and removes the predefined manifest of its name)',
  reportedBy: BUILD,
});

export const EXTRA_MANIFEST_FIELD_UNUSED = defineRule({
  code: 'EXTRA_MANIFEST_FIELD_UNUSED',
  severity: 'warning',
  upstream: 'takes it',
  why: 'no extra manifest of the cluster is rendered from the field, so it has no effect',
  reportedBy: BUILD,
});

export const EXTRA_MANIFEST_SET_IGNORED = defineRule({
  code: 'EXTRA_MANIFEST_SET_IGNORED',
  severity: 'warning',
  upstream: 'no such field upstream',
  why: "SiteForge's own field `defaultSet`: `searchPaths` replace the default set, so it has no effect",
  reportedBy: BUILD,
});

export const WORKLOAD_PARTITIONING_UNAVAILABLE = defineRule({
  code: 'WORKLOAD_PARTITIONING_UNAVAILABLE',
  severity: 'warning',
  upstream: 'renders `cpuset` from the workload folder of its bundled set',
  why: 'without a workload folder `cpuset` has no effect; the install goes on',
  reportedBy: BUILD,
});

export const EXTRA_MANIFEST_CLASH = defineRule({
  code: 'EXTRA_MANIFEST_CLASH',
  severity: 'error',
  upstream: 'refuses a user file named like a predefined one',
  why: 'two files of one cluster giving one ConfigMap key are kept an error (see the note below)',
  reportedBy: BUILD,
});

export const EXTRA_MANIFEST_SET_UNKNOWN = defineRule({
  code: 'EXTRA_MANIFEST_SET_UNKNOWN',
  severity: 'error',
  upstream: 'no such field upstream',
  why: "SiteForge's own field `defaultSet`: a set that does not exist gives no manifests",
  reportedBy: BUILD,
});

export const WORKLOAD_PARTITIONING_INVALID = defineRule({
  code: 'WORKLOAD_PARTITIONING_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'the rendered MachineConfig breaks CRI-O: the node does not come up',
  reportedBy: BUILD,
});

/** The rules of this topic, for the registry. */
export const extraManifestRules: readonly Rule[] = [
  FILTER_INVALID,
  FILTER_EMPTY_LIST_UNUSED,
  FILTER_UNKNOWN_FILE,
  EXTRA_MANIFEST_NOT_FOUND,
  EXTRA_MANIFEST_UNREADABLE,
  TEMPLATE_INVALID,
  TEMPLATE_EXECUTION_FAILED,
  MACHINE_CONFIG_MERGE_CONFLICT,
  EXTRA_MANIFEST_CLASH,
  EXTRA_MANIFEST_SET_UNKNOWN,
  WORKLOAD_PARTITIONING_INVALID,
  MACHINE_CONFIG_NOT_MERGED,
  EXTRA_MANIFEST_INVALID,
  TEMPLATE_OUTPUT_INVALID,
  EXTRA_MANIFEST_TOO_LARGE,
  EXTRA_MANIFEST_DIR_EMPTY,
  EXTRA_MANIFEST_EMPTY,
  EXTRA_MANIFEST_FIELD_UNUSED,
  EXTRA_MANIFEST_SET_IGNORED,
  WORKLOAD_PARTITIONING_UNAVAILABLE,
];

/** The filter's list for the mode it does not use. */
export const filterCheck: ClusterCheck = {
  scope: 'cluster',
  name: 'extra-manifests filter',
  rules: [FILTER_INVALID, FILTER_EMPTY_LIST_UNUSED],
  check(c) {
    const filter = c.cluster.extraManifests?.filter;
    if (!filter || !c.sound('extraManifests', 'filter')) return;
    const mode = filter.inclusionDefault ?? 'include';
    const wrong = mode === 'include' ? 'include' : 'exclude';
    if (filter[wrong] === undefined) return;
    // siteconfig-generator refuses entries in the wrong list and takes an empty one.
    c.report(
      filter[wrong].length > 0 ? FILTER_INVALID : FILTER_EMPTY_LIST_UNUSED,
      [...c.at, 'extraManifests', 'filter', wrong],
      `filter.${wrong} has no effect when inclusionDefault is ${mode}`,
      mode === 'include'
        ? 'list files to drop under exclude, or set inclusionDefault: exclude'
        : 'list files to keep under include, or set inclusionDefault: include',
      'key',
    );
  },
};

/** extraManifestPath: deprecated, and ignored beside extraManifests.searchPaths. */
export const extraManifestPathCheck: ClusterCheck = {
  scope: 'cluster',
  name: 'extraManifestPath',
  rules: [DEPRECATED_FIELD, IGNORED_FIELD],
  check(c) {
    if (c.cluster.extraManifestPath === undefined) return;
    c.report(
      DEPRECATED_FIELD,
      [...c.at, 'extraManifestPath'],
      'extraManifestPath is deprecated since 4.14',
      'use extraManifests.searchPaths',
      'key',
    );
    if (c.cluster.extraManifests?.searchPaths !== undefined)
      c.report(
        IGNORED_FIELD,
        [...c.at, 'extraManifestPath'],
        'extraManifestPath is ignored because extraManifests.searchPaths is set',
        'move the directory into searchPaths',
        'key',
      );
  },
};
