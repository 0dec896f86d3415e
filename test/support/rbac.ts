import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { hubClient, hubKubeconfig } from './hub.js';

const RBAC = 'rbac.authorization.k8s.io/v1';

/**
 * A ServiceAccount's rights on the test hub: a ClusterRole with `rules` bound to
 * `system:serviceaccount:NAMESPACE:NAME`, and a kubeconfig (the admin's, impersonating it) in
 * `dir`. Returns the kubeconfig and a function that removes the role and its binding.
 */
export async function serviceAccountKubeconfig(
  namespace: string,
  name: string,
  rules: readonly object[],
  dir: string,
): Promise<{ kubeconfig: string; user: string; remove: () => Promise<void> }> {
  const client = hubClient();
  const role = `${namespace}-${name}`;
  await client.apply(
    { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: role }, rules },
    { fieldManager: 'siteforge-test' },
  );
  await client.apply(
    {
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
    { fieldManager: 'siteforge-test' },
  );
  const user = `system:serviceaccount:${namespace}:${name}`;
  const config = parse(readFileSync(hubKubeconfig(), 'utf8')) as {
    users: { user: Record<string, unknown> }[];
  };
  for (const entry of config.users) entry.user['as'] = user;
  const kubeconfig = join(dir, `${role}.kubeconfig`);
  writeFileSync(kubeconfig, stringify(config), { mode: 0o600 });
  return {
    kubeconfig,
    user,
    remove: async () => {
      await client.delete({ apiVersion: RBAC, kind: 'ClusterRoleBinding', name: role });
      await client.delete({ apiVersion: RBAC, kind: 'ClusterRole', name: role });
    },
  };
}
