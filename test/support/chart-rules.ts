/**
 * The rules of the controller chart's ClusterRole, for FakeCluster: reconciler unit tests run
 * with exactly the permissions the chart grants.
 */
import { clusterRoleRules } from '../../src/bmac/permissions.js';
import type { PolicyRule } from '../../src/bmac/permissions.js';

export function chartRules(): PolicyRule[] {
  return clusterRoleRules();
}
