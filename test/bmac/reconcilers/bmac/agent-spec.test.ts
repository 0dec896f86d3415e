import { describe, expect, it } from 'vitest';
import { Finalizer, Gvk, Label } from '../../../../src/bmac/api.js';
import { BmacError } from '../../../../src/bmac/reconcilers/bmac/index.js';
import type { KubeObject } from '../../../../src/kube/index.js';
import { ISO_URL, MAC, NS, agent, bmh, infraEnv, secret, world } from './fixtures.js';

const A = 'bmac.agent-install.openshift.io';

/** A host booting the ISO already, with `annotations`, and its Agent. */
function paired(
  annotations: Record<string, string>,
  agentOptions: Parameters<typeof agent>[1] = {},
  env = infraEnv(),
) {
  return world(
    {},
    bmh('host-0', {
      finalizers: [Finalizer.Bmac],
      annotations,
      spec: { image: { url: ISO_URL, format: 'live-iso' }, online: true },
    }),
    env,
    agent('agent-0', agentOptions),
  );
}

describe('BMAC pairing', () => {
  it('pairs the Agent whose NIC has the boot MAC, whatever the letter case', async () => {
    const w = world(
      {},
      bmh('host-0', { finalizers: [Finalizer.Bmac], spec: { bootMACAddress: MAC.toUpperCase() } }),
      infraEnv(),
      agent('agent-0'),
      agent('stranger', { mac: '52:54:00:ff:ff:ff' }),
    );
    await w.stable();
    expect(w.agentNamed()?.metadata.labels?.[Label.AgentBmh]).toBe('host-0');
    expect(w.agentNamed()?.spec['approved']).toBe(true);
    expect(w.agentNamed('stranger')?.spec['approved']).toBe(false);
  });

  it('pairs the newest of several Agents with the boot MAC', async () => {
    const w = world(
      {},
      bmh('host-0', { finalizers: [Finalizer.Bmac] }),
      infraEnv(),
      agent('old', { creationTimestamp: '2026-11-20T00:00:00Z' }),
      agent('new', { creationTimestamp: '2026-11-24T00:00:00Z' }),
      agent('older', { creationTimestamp: '2026-11-01T00:00:00Z' }),
    );
    await w.stable();
    expect(w.agentNamed('new')?.spec['approved']).toBe(true);
    expect(w.agentNamed('old')?.spec['approved']).toBe(false);
    expect(w.agentNamed('older')?.spec['approved']).toBe(false);
  });

  it('ignores Agents in other namespaces and NICs without a MAC', async () => {
    const elsewhere = agent('agent-x');
    const w = world(
      {},
      bmh('host-0', { finalizers: [Finalizer.Bmac], spec: { bootMACAddress: '' } }),
      infraEnv(),
      { ...elsewhere, metadata: { ...elsewhere.metadata, namespace: 'other' } },
      agent('agent-0', { mac: '' }),
    );
    await w.stable();
    expect(w.agentNamed()?.spec['approved']).toBe(false);
  });
});

describe('BMAC copies the host annotations to the Agent spec', () => {
  it('approves the Agent, labels it with its host and says so in an Event', async () => {
    const w = paired({});
    await w.stable();
    const a = w.agentNamed()!;
    expect(a.spec['approved']).toBe(true);
    expect(a.metadata.labels).toEqual({ [Label.AgentBmh]: 'host-0' });
    expect(w.cluster.events.filter((e) => e.reason === 'AgentApproved')).toEqual([
      {
        object: `BareMetalHost ${NS}/host-0`,
        type: 'Normal',
        reason: 'AgentApproved',
        message: 'Approved Agent agent-0',
      },
    ]);
  });

  it('copies role, hostname, machine config pool, installer args and ignition overrides', async () => {
    const ignition = '{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/x"}]}}';
    const w = paired({
      [`${A}/role`]: 'worker',
      [`${A}/hostname`]: 'edge-1.example.com',
      [`${A}/machine-config-pool`]: 'edge',
      [`${A}/installer-args`]: '["--append-karg","nosmt"]',
      [`${A}/ignition-config-overrides`]: ignition,
    });
    await w.stable();
    expect(w.agentNamed()?.spec).toMatchObject({
      role: 'worker',
      hostname: 'edge-1.example.com',
      machineConfigPool: 'edge',
      installerArgs: '["--append-karg","nosmt"]',
      ignitionConfigOverrides: ignition,
    });
    expect(w.cluster.events.filter((e) => e.type === 'Warning')).toEqual([]);
  });

  it('leaves fields alone whose annotation is absent', async () => {
    const w = paired({}, { spec: { role: 'master', hostname: 'kept' } });
    await w.stable();
    expect(w.agentNamed()?.spec).toMatchObject({ role: 'master', hostname: 'kept' });
  });

  it.each(['--append-karg nosmt', '{"a":1}', '[1,2]'])(
    'copies installer args that are not a JSON string array (%s) but warns in an Event',
    async (args) => {
      const w = paired({ [`${A}/installer-args`]: args });
      await w.stable();
      expect(w.agentNamed()?.spec['installerArgs']).toBe(args);
      expect(w.cluster.events).toContainEqual({
        object: `BareMetalHost ${NS}/host-0`,
        type: 'Warning',
        reason: 'InvalidInstallerArgs',
        message: 'bmac.agent-install.openshift.io/installer-args is not a JSON array of strings',
      });
    },
  );

  it('binds the Agent to the ClusterDeployment of the cluster-reference annotation', async () => {
    const w = paired({ [`${A}/cluster-reference`]: 'clusters/spoke' });
    await w.stable();
    expect(w.agentNamed()?.spec['clusterDeploymentName']).toEqual({
      namespace: 'clusters',
      name: 'spoke',
    });
  });

  it('refuses a cluster-reference when the InfraEnv already has a clusterRef, in an Event', async () => {
    const w = paired(
      { [`${A}/cluster-reference`]: 'clusters/spoke', [`${A}.node-label.zone`]: 'a' },
      {},
      infraEnv({ clusterRef: { namespace: 'clusters', name: 'other' } }),
    );
    await w.stable();
    const a = w.agentNamed()!;
    expect(a.spec['clusterDeploymentName']).toBeUndefined();
    // Steps after the cluster reference wait for it to be fixed; approval before it happened.
    expect(a.spec.nodeLabels).toBeUndefined();
    expect(a.spec['approved']).toBe(true);
    expect(w.cluster.events).toContainEqual({
      object: `BareMetalHost ${NS}/host-0`,
      type: 'Warning',
      reason: 'ClusterReferenceConflict',
      message:
        'bmac.agent-install.openshift.io/cluster-reference is clusters/spoke, but InfraEnv ie already has cluster reference clusters/other: remove one of them',
    });
  });

  it('refuses a cluster-reference that is not namespace/name, in an Event', async () => {
    const w = paired({ [`${A}/cluster-reference`]: 'spoke' });
    await w.stable();
    expect(w.agentNamed()?.spec['clusterDeploymentName']).toBeUndefined();
    expect(w.cluster.events).toContainEqual(
      expect.objectContaining({
        reason: 'InvalidClusterReference',
        message:
          'bmac.agent-install.openshift.io/cluster-reference "spoke" is not <namespace>/<name>',
      }),
    );
  });

  it('unbinds the Agent when the cluster-reference annotation is empty', async () => {
    const w = paired(
      { [`${A}/cluster-reference`]: '' },
      { spec: { clusterDeploymentName: { namespace: 'c', name: 's' } } },
    );
    await w.stable();
    expect(w.agentNamed()?.spec['clusterDeploymentName']).toBeUndefined();
  });

  it('keeps the binding of an empty cluster-reference when the InfraEnv has a clusterRef', async () => {
    const ref = { namespace: 'c', name: 's' };
    const w = paired(
      { [`${A}/cluster-reference`]: '' },
      { spec: { clusterDeploymentName: ref } },
      infraEnv({ clusterRef: ref }),
    );
    await w.stable();
    expect(w.agentNamed()?.spec['clusterDeploymentName']).toEqual(ref);
  });

  it('replaces the node labels with the node-label annotations', async () => {
    const w = paired(
      { [`${A}.node-label.node-role.kubernetes.io/edge`]: '', [`${A}.node-label.zone`]: 'rack-3' },
      { spec: { nodeLabels: { stale: 'x' } } },
    );
    await w.stable();
    expect(w.agentNamed()?.spec.nodeLabels).toEqual({
      'node-role.kubernetes.io/edge': '',
      zone: 'rack-3',
    });
  });

  it('removes node labels when no node-label annotation is left', async () => {
    const w = paired({}, { spec: { nodeLabels: { stale: 'x' } } });
    await w.stable();
    expect(w.agentNamed()?.spec.nodeLabels).toBeUndefined();
  });

  it('adds agent-label annotations as Agent labels and keeps the others', async () => {
    const w = paired(
      { [`${A}.agent-label.site`]: 'paris', [`${A}.agent-label.tier`]: 'edge' },
      { labels: { existing: 'yes', site: 'lyon' } },
    );
    await w.stable();
    expect(w.agentNamed()?.metadata.labels).toEqual({
      existing: 'yes',
      site: 'paris',
      tier: 'edge',
      [Label.AgentBmh]: 'host-0',
    });
  });

  it('points the Agent at the fencing Secret the annotation names', async () => {
    const w = paired({ [`${A}/fencing-credentials-secret-name`]: 'my-fencing' });
    await w.stable();
    expect(w.agentNamed()?.spec['fencingCredentialsSecretRef']).toBe('my-fencing');
    expect(w.cluster.writes.filter((x) => x.includes('Secret'))).toEqual([]);
  });

  it('creates <agent>-fencing-credentials from the BMC address and credentials', async () => {
    const w = paired({ [`${A}/create-fencing-credentials-secret`]: 'true' });
    w.cluster.seed(secret('host-0-bmc', { username: 'admin', password: 's3cret' }));
    await w.stable();
    expect(w.agentNamed()?.spec['fencingCredentialsSecretRef']).toBe('agent-0-fencing-credentials');
    const created = (await w.cluster.getLive({
      ...Gvk.Secret,
      namespace: NS,
      name: 'agent-0-fencing-credentials',
    }))!;
    expect(created.metadata.labels).toEqual({ [Label.Backup]: 'true', [Label.Watch]: 'true' });
    const data = Object.fromEntries(
      Object.entries(created['data'] as Record<string, string>).map(([k, v]) => [
        k,
        Buffer.from(v, 'base64').toString(),
      ]),
    );
    expect(data).toEqual({
      address: 'redfish-virtualmedia://10.0.0.1/redfish/v1/Systems/1',
      username: 'admin',
      password: 's3cret',
      certificateVerification: 'Enabled',
    });
    // Stable: the Secret is written once.
    expect(w.cluster.writes.filter((x) => x.includes('Secret'))).toEqual([
      `create Secret ${NS}/agent-0-fencing-credentials`,
    ]);
  });

  it('refreshes the fencing Secret when the BMC password changes, with verification Disabled as the host says', async () => {
    const w = world(
      {},
      bmh('host-0', {
        finalizers: [Finalizer.Bmac],
        annotations: { [`${A}/create-fencing-credentials-secret`]: 'true' },
        spec: {
          image: { url: ISO_URL, format: 'live-iso' },
          online: true,
          bmc: {
            address: 'idrac-virtualmedia://10.0.0.2/redfish/v1/Systems/System.Embedded.1',
            credentialsName: 'bmc',
            disableCertificateVerification: true,
          },
        },
      }),
      infraEnv(),
      agent(),
      secret('bmc', { username: 'root', password: 'old' }),
    );
    await w.stable();
    // The user changes the password.
    const bmc = w.cluster.peek({ ...Gvk.Secret, namespace: NS, name: 'bmc' })!;
    await w.cluster.asOtherActor((c) =>
      c.update({
        ...bmc,
        data: { ...(bmc['data'] as object), password: Buffer.from('new').toString('base64') },
      }),
    );
    // The BMAC does not watch Secrets: the next event on the host or its Agent brings it in.
    await w.stable();
    const fencing = w.cluster.peek({
      ...Gvk.Secret,
      namespace: NS,
      name: 'agent-0-fencing-credentials',
    })!;
    const data = fencing['data'] as Record<string, string>;
    expect(Buffer.from(data['password']!, 'base64').toString()).toBe('new');
    expect(Buffer.from(data['certificateVerification']!, 'base64').toString()).toBe('Disabled');
    expect(w.cluster.writes.filter((x) => x.includes('fencing'))).toEqual([
      `create Secret ${NS}/agent-0-fencing-credentials`,
      `update Secret ${NS}/agent-0-fencing-credentials`,
    ]);
  });

  it('fails the pass with a clear error when the BMC credentials Secret is missing', async () => {
    const w = paired({ [`${A}/create-fencing-credentials-secret`]: 'true' });
    const error = await w.stable().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(BmacError);
    expect((error as Error).message).toBe(
      'BMC credentials Secret site/host-0-bmc of BareMetalHost host-0 not found',
    );
    // What came before the failing step is written all the same.
    expect(w.agentNamed()?.spec['approved']).toBe(true);
  });
});

describe('BMAC installation disk from rootDeviceHints', () => {
  const disk = (id: string, fields: Record<string, unknown>, eligible = true) => ({
    id,
    path: `/dev/${id}`,
    installationEligibility: { eligible },
    ...fields,
  });
  const disks = [
    disk('sda', {
      byPath: '/dev/disk/by-path/pci-0:0:1',
      hctl: '0:0:0:0',
      model: 'PERC H730',
      vendor: 'DELL',
      serial: 'S1',
      sizeBytes: 480e9,
      wwn: '0x5000c500a1',
      driveType: 'SSD',
    }),
    disk('sdb', {
      byPath: '/dev/disk/by-path/pci-0:0:2',
      hctl: '1:0:0:0',
      model: 'ST2000',
      vendor: 'SEAGATE',
      serial: 'S2',
      sizeBytes: 2000e9,
      wwn: '0x5000c500b2',
      driveType: 'HDD',
    }),
    disk('nvme0n1', {
      model: 'Samsung PM9A3',
      vendor: 'Samsung',
      serial: 'S3',
      sizeBytes: 960e9,
      driveType: 'NVME',
    }),
    disk(
      'sdz',
      { model: 'PERC H730', vendor: 'DELL', serial: 'S9', sizeBytes: 4000e9, driveType: 'HDD' },
      false,
    ),
  ];

  async function chosen(
    hints: Record<string, unknown> | undefined,
    inventoryDisks: unknown[] = disks,
  ): Promise<unknown> {
    const host: KubeObject = bmh('host-0', {
      finalizers: [Finalizer.Bmac],
      spec: {
        image: { url: ISO_URL, format: 'live-iso' },
        ...(hints && { rootDeviceHints: hints }),
      },
    });
    const w = world(
      {},
      host,
      infraEnv(),
      agent('agent-0', { inventory: { disks: inventoryDisks } }),
    );
    await w.stable();
    return w.agentNamed()?.spec['installation_disk_id'];
  }

  it.each([
    ['deviceName by path', { deviceName: '/dev/sdb' }, 'sdb'],
    ['deviceName by-path link', { deviceName: '/dev/disk/by-path/pci-0:0:1' }, 'sda'],
    ['hctl', { hctl: '1:0:0:0' }, 'sdb'],
    ['model (substring)', { model: 'PM9A3' }, 'nvme0n1'],
    ['vendor (substring)', { vendor: 'SEAG' }, 'sdb'],
    ['serialNumber', { serialNumber: 'S3' }, 'nvme0n1'],
    ['minSizeGigabytes (10^9 bytes)', { minSizeGigabytes: 900 }, 'sdb'],
    ['wwn', { wwn: '0x5000c500a1' }, 'sda'],
    ['rotational true', { rotational: true }, 'sdb'],
    ['rotational false', { rotational: false }, 'sda'],
    ['every hint together', { vendor: 'DELL', model: 'PERC', minSizeGigabytes: 400 }, 'sda'],
  ])('chooses the disk by %s', async (_, hints, id) => {
    expect(await chosen(hints)).toBe(id);
  });

  it('never chooses a disk the agent found ineligible', async () => {
    expect(await chosen({ serialNumber: 'S9' })).toBe('/dev/not-found-by-hints');
  });

  it('asks for /dev/not-found-by-hints when no disk matches, never "any disk"', async () => {
    expect(await chosen({ model: 'no such model' })).toBe('/dev/not-found-by-hints');
  });

  it('prefers a multipath device among the matching disks', async () => {
    const withMultipath = [
      ...disks,
      disk('dm-0', {
        model: 'PERC H730',
        vendor: 'DELL',
        sizeBytes: 480e9,
        driveType: 'Multipath',
      }),
    ];
    expect(await chosen({ vendor: 'DELL' }, withMultipath)).toBe('dm-0');
  });

  it('leaves the installation disk alone without hints', async () => {
    expect(await chosen(undefined)).toBeUndefined();
  });
});
