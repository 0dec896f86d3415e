/**
 * The kinds the fleet status is derived from, and SiteForge's Rollout (issue 14): the waves
 * of a rollout name the sites (cluster names) they provision.
 */
import type { GroupVersionKind } from '../kube/index.js';

/** The hub kinds a site's status reads. */
export const SiteKind = {
  BareMetalHost: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost' },
  Agent: { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'Agent' },
  AgentClusterInstall: {
    apiVersion: 'extensions.hive.openshift.io/v1beta1',
    kind: 'AgentClusterInstall',
  },
  ClusterDeployment: { apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment' },
  InfraEnv: { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'InfraEnv' },
} as const satisfies Record<string, GroupVersionKind>;

/** SiteForge's Rollout: `spec.waves[]: {name, sites[]}`, `status.waves[]: {name, phase}`. */
export const RolloutKind = {
  apiVersion: 'siteforge.io/v1alpha1',
  kind: 'Rollout',
} as const satisfies GroupVersionKind;

/** Every kind a FleetModel takes. */
export const FLEET_KINDS: readonly GroupVersionKind[] = [...Object.values(SiteKind), RolloutKind];
