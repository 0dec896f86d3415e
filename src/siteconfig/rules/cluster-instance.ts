/**
 * ClusterInstance: the rules of the ClusterInstance API itself and of the default templates
 * SiteForge renders, reported by cluster-instance/validate.ts after the SiteConfig cluster checks
 * it runs on the same fields. "upstream" here is the SiteConfig operator.
 */
import { defineRule } from './rule.js';
import type { Rule } from './rule.js';

const VALIDATOR = 'cluster-instance/validate.ts';

export const NAMESPACE_MISMATCH = defineRule({
  code: 'NAMESPACE_MISMATCH',
  severity: 'error',
  upstream: 'the SiteConfig operator takes it',
  why: 'the default templates create the cluster objects in the namespace named after the cluster, and read the pull secret and BMC secrets there',
  reportedBy: VALIDATOR,
});

export const CLUSTER_TYPE_UNSUPPORTED = defineRule({
  code: 'CLUSTER_TYPE_UNSUPPORTED',
  severity: 'error',
  upstream: 'the SiteConfig operator installs HostedControlPlane clusters with other templates',
  why: 'not an assisted-installer install: SiteForge renders the assisted-installer templates',
  reportedBy: VALIDATOR,
});

export const CLUSTER_TYPE_MISMATCH = defineRule({
  code: 'CLUSTER_TYPE_MISMATCH',
  severity: 'error',
  upstream: "the SiteConfig operator's admission webhook refuses it",
  why: 'as the operator: `clusterType` against the node roles (SNO = 1 control-plane node; HighlyAvailable not 1; HighlyAvailableArbiter 2+ control-plane nodes and an arbiter; arbiters only there)',
  reportedBy: VALIDATOR,
});

export const SSH_KEYS_JOINED = defineRule({
  code: 'SSH_KEYS_JOINED',
  severity: 'warning',
  upstream: 'the SiteConfig operator renders keys on two lines as one line',
  why: 'SiteForge renders the same; hosts authorize only the first key, and the install goes on',
  reportedBy: VALIDATOR,
});

export const CLUSTERINSTANCE_FIELD_IGNORED = defineRule({
  code: 'CLUSTERINSTANCE_FIELD_IGNORED',
  severity: 'warning',
  upstream: 'the SiteConfig operator carries out `reinstall` and any `templateRefs`',
  why: 'with `--format crs` SiteForge renders the default templates once, so the field has no effect; `--format clusterinstance` hands it to the operator without a warning',
  reportedBy: VALIDATOR,
});

/** The rules of this topic, for the registry. */
export const clusterInstanceRules: readonly Rule[] = [
  NAMESPACE_MISMATCH,
  CLUSTER_TYPE_UNSUPPORTED,
  CLUSTER_TYPE_MISMATCH,
  SSH_KEYS_JOINED,
  CLUSTERINSTANCE_FIELD_IGNORED,
];
