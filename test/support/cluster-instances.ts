import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceFile } from '../../src/siteconfig/index.js';
import { repoRoot } from './sites.js';

/** The ClusterInstance example files (examples/clusterinstance), as the CLI would read them. */
export function clusterInstanceExampleFiles(): SourceFile[] {
  const dir = join(repoRoot, 'examples', 'clusterinstance');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({
      path: `examples/clusterinstance/${f}`,
      text: readFileSync(join(dir, f), 'utf8'),
    }));
}

/**
 * A minimal valid single-node ClusterInstance with a static IPv4 address. `cluster` lines are
 * added to its spec, `node` lines to its node.
 */
export function snoClusterInstance(
  options: { name?: string; mac?: string; cluster?: string; node?: string } = {},
): string {
  const name = options.name ?? 'ci-1';
  const mac = options.mac ?? '0C:42:A1:00:00:10';
  return `apiVersion: siteconfig.open-cluster-management.io/v1alpha1
kind: ClusterInstance
metadata:
  name: ${name}
  namespace: ${name}
spec:
  clusterName: ${name}
  clusterType: SNO
  baseDomain: edge.example.com
  pullSecretRef:
    name: pull-secret
  clusterImageSetNameRef: openshift-4.19.3
  sshPublicKey: ssh-ed25519 AAAA
  machineNetwork:
    - cidr: 10.16.0.0/24
  clusterNetwork:
    - cidr: 10.128.0.0/14
      hostPrefix: 23
  serviceNetwork:
    - cidr: 172.30.0.0/16
  templateRefs:
    - name: ai-cluster-templates-v1
      namespace: open-cluster-management
${options.cluster ?? ''}  nodes:
    - hostName: ${name}-m0
      role: master
      bmcAddress: redfish-virtualmedia+https://10.16.1.10/redfish/v1/Systems/1
      bmcCredentialsName:
        name: ${name}-m0-bmc
      bootMACAddress: "${mac}"
      templateRefs:
        - name: ai-node-templates-v1
          namespace: open-cluster-management
      nodeNetwork:
        interfaces:
          - name: eno1
            macAddress: "${mac}"
        config:
          interfaces:
            - name: eno1
              type: ethernet
              state: up
              ipv4:
                enabled: true
                address:
                  - ip: 10.16.0.10
                    prefix-length: 24
${options.node ?? ''}`;
}

/** Another node for the ClusterInstance of snoClusterInstance: role, index n, its own MAC. */
export function clusterInstanceNode(n: number, role: 'master' | 'worker' | 'arbiter'): string {
  const host = `ci-1-${role[0]!}${String(n)}`;
  const mac = `0C:42:A1:00:0${String(n)}:${role === 'master' ? '1' : role === 'worker' ? '2' : '3'}0`;
  return `    - hostName: ${host}
      role: ${role}
      bmcAddress: redfish-virtualmedia+https://10.16.1.${String(20 + n)}/redfish/v1/Systems/1
      bmcCredentialsName:
        name: ${host}-bmc
      bootMACAddress: "${mac}"
      templateRefs:
        - name: ai-node-templates-v1
          namespace: open-cluster-management
`;
}
