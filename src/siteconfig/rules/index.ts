/**
 * The rule registry: every rule SiteForge reports on its input, by topic, and the checks that
 * report them in the order they run. validate.ts walks the fleet and runs `checks`;
 * docs/compatibility.md's rule table is rendered from `rules` (`npm run docs:rules`).
 */
import { bmcAddressCheck, bmcRules } from './bmc.js';
import {
  clusterJsonFieldsCheck,
  clusterRules,
  hardwareProfileCheck,
  ignoredClusterFieldsCheck,
  installerArgsCheck,
  nodeIgnitionCheck,
  ntpCheck,
  proxyCheck,
  v2OnlyFieldsCheck,
} from './cluster.js';
import { clusterInstanceRules } from './cluster-instance.js';
import { credentialRules } from './credentials.js';
import { diskPartitionCheck, diskRules, rootDeviceHintsCheck } from './disks.js';
import { extraManifestPathCheck, extraManifestRules, filterCheck } from './extra-manifests.js';
import { clusterLabelsCheck, labelRules, nodeLabelsCheck } from './labels.js';
import { macRules, macsCheck } from './macs.js';
import { clusterNameCheck, hostNameCheck, nameRules } from './names.js';
import { networkRules, networksCheck } from './networks.js';
import { nmstateCheck, nmstateRules } from './nmstate.js';
import {
  clusterReferencesCheck,
  imageSetCheck,
  referenceRules,
  siteFieldsCheck,
} from './references.js';
import type { Check, Rule } from './rule.js';
import { structureRules } from './structure.js';
import { templateRules } from './templates.js';
import { cpusetCheck, removeCheck, topologyAndVipsCheck, topologyRules } from './topology.js';
import { yamlRules } from './yaml.js';

/** Every rule, topic by topic: the rows of docs/compatibility.md's rule table, in order. */
export const rules: readonly Rule[] = [
  ...structureRules,
  ...yamlRules,
  ...nameRules,
  ...referenceRules,
  ...labelRules,
  ...clusterRules,
  ...networkRules,
  ...topologyRules,
  ...macRules,
  ...bmcRules,
  ...nmstateRules,
  ...diskRules,
  ...extraManifestRules,
  ...templateRules,
  ...credentialRules,
  ...clusterInstanceRules,
];

/**
 * The checks in the order they run, which is the order issues are reported in. Site checks
 * before the cluster checks run once before the clusters, those after once after them; the
 * cluster checks run per cluster, and each run of consecutive node checks node by node.
 */
export const checks: readonly Check[] = [
  siteFieldsCheck,
  clusterNameCheck,
  imageSetCheck,
  ignoredClusterFieldsCheck,
  clusterJsonFieldsCheck,
  clusterReferencesCheck,
  clusterLabelsCheck,
  proxyCheck,
  ntpCheck,
  hostNameCheck,
  removeCheck,
  bmcAddressCheck,
  macsCheck,
  nmstateCheck,
  rootDeviceHintsCheck,
  hardwareProfileCheck,
  installerArgsCheck,
  nodeIgnitionCheck,
  nodeLabelsCheck,
  networksCheck,
  topologyAndVipsCheck,
  cpusetCheck,
  diskPartitionCheck,
  filterCheck,
  extraManifestPathCheck,
  v2OnlyFieldsCheck,
];

export type { Check, ClusterCheck, NodeCheck, Rule, SiteCheck } from './rule.js';
