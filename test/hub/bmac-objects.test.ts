/**
 * Every object the BMAC writes is one the real CRDs accept: the hosts, Agents and Secrets that
 * the unit tests' scenarios end with are applied to the hub as a dry run with strict field
 * validation, so a misspelt field (`installation_disk_id`, `customDeploy`, `image.format`) fails
 * here even though the in-memory FakeCluster takes anything.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BmhAnnotation, Finalizer, Label } from '../../src/bmac/api.js';
import type { KubeObject } from '../../src/kube/index.js';
import { hubClient, useNamespace } from '../support/hub.js';
import { loopbackCert } from '../support/loopback-cert.js';
import {
  FakeSpoke,
  ISO_URL,
  NS,
  agent,
  bmh,
  clusterDeployment,
  infraEnv,
  ppi,
  secret,
  world,
} from '../bmac/reconcilers/bmac/fixtures.js';

const A = 'bmac.agent-install.openshift.io';
let testCa = '';
beforeAll(() => {
  testCa = loopbackCert(mkdtempSync(join(tmpdir(), 'bmac-hub-ca-'))).cert.toString('utf8');
});

/** `object` as a fresh manifest in `namespace`: no server-set metadata, no status. */
function manifest(object: KubeObject, namespace: string): KubeObject {
  const { name, labels, annotations } = object.metadata;
  const rest: Record<string, unknown> = { ...object };
  delete rest['status'];
  return {
    ...(rest as unknown as KubeObject),
    metadata: {
      name,
      namespace,
      ...(labels && { labels }),
      ...(annotations && { annotations }),
    },
  };
}

async function dryRun(objects: readonly KubeObject[], namespace: string): Promise<string[]> {
  const client = hubClient();
  const accepted: string[] = [];
  for (const object of objects) {
    await client.apply(manifest(object, namespace), {
      fieldManager: 'siteforge-bmac',
      dryRun: true,
    });
    accepted.push(`${object.kind} ${object.metadata.name}`);
  }
  return accepted;
}

describe('objects the BMAC writes, on the real CRDs', () => {
  const ns = useNamespace('bmac-objects');

  it('non-converged: the host with its live-iso image, hardware details, detached; the Agent with every copied field; the fencing Secret', async () => {
    const w = world(
      {},
      bmh('host-0', {
        annotations: {
          [`${A}/role`]: 'worker',
          [`${A}/hostname`]: 'edge-1',
          [`${A}/machine-config-pool`]: 'edge',
          [`${A}/installer-args`]: '["--append-karg","nosmt"]',
          [`${A}/ignition-config-overrides`]: '{"ignition":{"version":"3.2.0"}}',
          [`${A}/cluster-reference`]: `${NS}/spoke`,
          [`${A}.node-label.zone`]: 'a',
          [`${A}.agent-label.site`]: 'paris',
          [`${A}/create-fencing-credentials-secret`]: 'true',
        },
        finalizers: [Finalizer.Bmac],
        spec: {
          image: { url: ISO_URL, format: 'live-iso' },
          online: true,
          rootDeviceHints: { deviceName: '/dev/sda', rotational: false, minSizeGigabytes: 100 },
        },
      }),
      infraEnv(),
      agent('agent-0', {
        status: { progress: { currentStage: 'Done' } },
        inventory: {
          disks: [
            {
              id: '/dev/disk/by-id/wwn-1',
              path: '/dev/sda',
              sizeBytes: 480e9,
              driveType: 'SSD',
              installationEligibility: { eligible: true },
            },
          ],
        },
      }),
      secret('host-0-bmc', { username: 'admin', password: 'x' }),
    );
    await w.stable();
    const host = w.host();
    expect(host.spec.image).toEqual({ url: ISO_URL, format: 'live-iso' });
    expect(host.metadata.annotations?.[BmhAnnotation.Detached]).toBeDefined();
    expect(host.metadata.annotations?.[BmhAnnotation.HardwareDetails]).toBeDefined();
    expect(host.metadata.finalizers).toEqual([Finalizer.Bmac]);
    const agentObject = w.agentNamed()!;
    expect(agentObject.spec).toMatchObject({
      installation_disk_id: '/dev/disk/by-id/wwn-1',
      approved: true,
    });
    const fencing = (await w.cluster.getLive({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: NS,
      name: 'agent-0-fencing-credentials',
    }))!;
    expect(await dryRun([host, agentObject, fencing], ns.name)).toEqual([
      'BareMetalHost host-0',
      'Agent agent-0',
      'Secret agent-0-fencing-credentials',
    ]);
  });

  it('converged: the host with customDeploy and the delete-delay detached value; unbound: customDeploy cleared', async () => {
    const w = world(
      { converged: true },
      bmh('host-0', {
        annotations: { [`${A}/remove-agent-and-node-on-delete`]: 'true' },
        status: { provisioning: { state: 'available' } },
      }),
      infraEnv(),
      ppi(),
      agent(),
    );
    await w.stable();
    expect(w.host().spec.customDeploy).toEqual({ method: 'start_assisted_install' });
    expect(await dryRun([w.host()], ns.name)).toEqual(['BareMetalHost host-0']);

    await w.cluster.asOtherActor((c) =>
      c.updateStatus({ ...w.host(), status: { provisioning: { state: 'provisioned' } } }),
    );
    await w.stable();
    expect(w.host().metadata.annotations?.[BmhAnnotation.Detached]).toBe(
      '{"deleteAction":"delay"}',
    );
    expect(await dryRun([w.host()], ns.name)).toEqual(['BareMetalHost host-0']);

    const a = w.agentNamed()!;
    await w.cluster.asOtherActor((c) =>
      c.updateStatus({
        ...a,
        status: {
          ...(a['status'] as object),
          conditions: [{ type: 'Bound', status: 'False', reason: 'UnbindingPendingUserAction' }],
        },
      }),
    );
    await w.stable();
    expect(w.host().spec.customDeploy).toBeUndefined();
    expect(await dryRun([w.host()], ns.name)).toEqual(['BareMetalHost host-0']);
  });

  it("day 2: the host's ignition override with the spoke CA and the spoke BareMetalHost", async () => {
    const spoke = new FakeSpoke();
    spoke.configMaps.set('kube-system/root-ca', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'root-ca', namespace: 'kube-system' },
      data: { 'ca.crt': testCa },
    });
    spoke.machines = [
      {
        apiVersion: 'machine.openshift.io/v1beta1',
        kind: 'Machine',
        metadata: {
          name: 'm0',
          labels: { 'machine.openshift.io/cluster-api-machine-type': 'master' },
        },
        spec: { providerSpec: { value: { image: { checksum: 'c', url: 'u' } } } },
      },
    ];
    const w = world(
      { spokeClients: { fromKubeconfig: () => spoke } },
      bmh('host-0', {
        finalizers: [Finalizer.Bmac],
        spec: { image: { url: ISO_URL, format: 'live-iso' } },
      }),
      infraEnv(),
      agent('agent-0', {
        spec: { clusterDeploymentName: { namespace: NS, name: 'spoke' } },
        status: { role: 'worker', debugInfo: { state: 'installing' } },
      }),
      clusterDeployment(true),
      secret('spoke-admin-kubeconfig', { kubeconfig: 'x' }),
      {
        apiVersion: 'extensions.hive.openshift.io/v1beta1',
        kind: 'AgentClusterInstall',
        metadata: { name: 'spoke', namespace: NS },
        spec: { platformType: 'BareMetal' },
      },
    );
    await w.stable();
    const spokeHost = spoke.applied.find((o) => o.kind === 'BareMetalHost')!;
    expect(spokeHost.metadata.labels?.[Label.InfraEnv]).toBeUndefined();
    expect(await dryRun([w.host(), w.agentNamed()!, spokeHost], ns.name)).toEqual([
      'BareMetalHost host-0',
      'Agent agent-0',
      'BareMetalHost host-0',
    ]);
  });
});
