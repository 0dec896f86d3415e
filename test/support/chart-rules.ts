/**
 * The rules of the controller chart's ClusterRole as committed
 * (charts/siteforge-controller/templates/clusterrole.yaml), for FakeCluster: reconciler unit
 * tests run with exactly the permissions the chart grants.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { PolicyRule } from '../../src/bmac/permissions.js';

const CLUSTER_ROLE = join(
  import.meta.dirname,
  '..',
  '..',
  'charts',
  'siteforge-controller',
  'templates',
  'clusterrole.yaml',
);

let cached: PolicyRule[] | undefined;

/** The ClusterRole's rules (read once). */
export function chartRules(): PolicyRule[] {
  cached ??= (parse(readFileSync(CLUSTER_ROLE, 'utf8')) as { rules: PolicyRule[] }).rules.map(
    (r) => ({ apiGroups: r.apiGroups, resources: r.resources, verbs: r.verbs }),
  );
  return cached;
}
