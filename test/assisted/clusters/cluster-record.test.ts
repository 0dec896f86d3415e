import { describe, expect, it } from 'vitest';
import {
  clusterInstallationOf,
  clusterSpecFields,
  persistedStateOf,
} from '../../../src/assisted/clusters/cluster-record.js';
import type { ClusterInstallation } from '../../../src/assisted/clusters/cluster-record.js';
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

describe('the state an AgentClusterInstall keeps for a restart', () => {
  const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 12, minutes)).toISOString();
  const installation = (status: string, minutes: number): ClusterInstallation => {
    const made = clusterInstallationOf(cd, aci(undefined), '4.18', true, undefined, new Date(0));
    return {
      ...made,
      record: { ...made.record, status: status as never, statusUpdatedAt: at(minutes) },
    };
  };

  it('is not rewritten for a status move whose time no timeout counts from', () => {
    const insufficient = persistedStateOf(installation('insufficient', 0));
    expect(persistedStateOf(installation('ready', 5), insufficient)).toBe(insufficient);
  });

  it('records when preparing and finalizing began, which their timeouts count from', () => {
    const ready = persistedStateOf(installation('ready', 0));
    const preparing = persistedStateOf(installation('preparing-for-installation', 5), ready);
    expect(JSON.parse(preparing)).toMatchObject({ statusUpdatedAt: at(5) });
    const finalizing = persistedStateOf(installation('finalizing', 9), preparing);
    expect(JSON.parse(finalizing)).toMatchObject({ statusUpdatedAt: at(9) });
  });

  it('is rewritten whole when anything else changed', () => {
    const ready = persistedStateOf(installation('ready', 0));
    const failed = installation('ready', 7);
    const next = persistedStateOf(
      {
        ...failed,
        record: { ...failed.record, lastPreparation: { status: 'failed', reason: 'x' } },
      },
      ready,
    );
    expect(JSON.parse(next)).toMatchObject({
      statusUpdatedAt: at(7),
      lastPreparation: { status: 'failed', reason: 'x' },
    });
    expect(persistedStateOf(installation('ready', 7), 'not JSON')).not.toBe('not JSON');
  });
});
