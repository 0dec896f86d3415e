import { describe, expect, it } from 'vitest';
import { clusterSpecFields } from '../../../src/assisted/clusters/cluster-record.js';
import type {
  AgentClusterInstall,
  ClusterDeployment,
} from '../../../src/assisted/clusters/kinds.js';

const cd: ClusterDeployment = {
  apiVersion: 'hive.openshift.io/v1',
  kind: 'ClusterDeployment',
  metadata: { name: 'site', namespace: 'site', uid: 'cd-uid' },
  spec: { clusterName: 'site', baseDomain: 'example.com' },
};

function aci(networking: Record<string, unknown> | undefined): AgentClusterInstall {
  return {
    apiVersion: 'extensions.hive.openshift.io/v1beta1',
    kind: 'AgentClusterInstall',
    metadata: { name: 'site', namespace: 'site' },
    spec: {
      clusterDeploymentRef: { name: 'site' },
      provisionRequirements: { controlPlaneAgents: 1, workerAgents: 0 },
      ...(networking !== undefined && { networking }),
    },
  };
}

describe('the networks of a cluster', () => {
  it("get assisted-service's defaults when the AgentClusterInstall names none", () => {
    const record = clusterSpecFields(
      cd,
      aci({ machineNetwork: [{ cidr: '10.0.0.0/24' }] }),
      '4.18',
      true,
    );
    expect(record.clusterNetworks).toEqual([{ cidr: '10.128.0.0/14', hostPrefix: 23 }]);
    expect(record.serviceNetworks).toEqual(['172.30.0.0/16']);
    // Machine networks have no default: a single node still has to name its own.
    expect(clusterSpecFields(cd, aci(undefined), '4.18', true).machineNetworks).toEqual([]);
  });

  it('are the ones the AgentClusterInstall names when it names some', () => {
    const record = clusterSpecFields(
      cd,
      aci({
        clusterNetwork: [{ cidr: '10.132.0.0/14', hostPrefix: 24 }],
        serviceNetwork: ['172.31.0.0/16'],
      }),
      '4.18',
      true,
    );
    expect(record.clusterNetworks).toEqual([{ cidr: '10.132.0.0/14', hostPrefix: 24 }]);
    expect(record.serviceNetworks).toEqual(['172.31.0.0/16']);
  });
});
