/**
 * What `siteforge rollout` does to which resource: the rules of the runner's ClusterRole
 * (docs/rollout.md, "Permissions"), tested by running the runner with exactly these rights.
 */
import type { PolicyRule } from '../bmac/permissions.js';

const READ = ['get', 'list', 'watch'];

/** The runner and the steering commands, either target. */
export const ROLLOUT_RULES: readonly PolicyRule[] = [
  {
    apiGroups: ['siteforge.io'],
    resources: ['rollouts'],
    verbs: ['get', 'list', 'create', 'update'],
  },
  { apiGroups: ['siteforge.io'], resources: ['rollouts/status'], verbs: ['update'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
  // The fleet status model.
  { apiGroups: ['hive.openshift.io'], resources: ['clusterdeployments'], verbs: READ },
  { apiGroups: ['extensions.hive.openshift.io'], resources: ['agentclusterinstalls'], verbs: READ },
  { apiGroups: ['agent-install.openshift.io'], resources: ['agents', 'infraenvs'], verbs: READ },
  { apiGroups: ['metal3.io'], resources: ['baremetalhosts'], verbs: READ },
];

/** The Argo CD target: the fleet's Applications. */
export const ROLLOUT_ARGOCD_RULES: readonly PolicyRule[] = [
  { apiGroups: ['argoproj.io'], resources: ['applications'], verbs: ['get', 'list', 'update'] },
];

/** The apply target: what `siteforge apply` writes, and deletes for removals. */
export const ROLLOUT_APPLY_RULES: readonly PolicyRule[] = [
  {
    apiGroups: [''],
    resources: ['namespaces', 'secrets', 'configmaps'],
    verbs: ['get', 'create', 'patch', 'delete'],
  },
  {
    apiGroups: [
      'hive.openshift.io',
      'extensions.hive.openshift.io',
      'agent-install.openshift.io',
      'metal3.io',
      'cluster.open-cluster-management.io',
      'agent.open-cluster-management.io',
      'external-secrets.io',
    ],
    resources: [
      'clusterdeployments',
      'agentclusterinstalls',
      'infraenvs',
      'nmstateconfigs',
      'baremetalhosts',
      'hostfirmwaresettings',
      'managedclusters',
      'klusterletaddonconfigs',
      'externalsecrets',
    ],
    verbs: ['get', 'create', 'patch', 'delete'],
  },
];
