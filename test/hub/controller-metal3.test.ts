import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERIC, startSimulatedBmc } from '../../src/bmac/redfish/sim/index.js';
import type { SimulatedBmc } from '../../src/bmac/redfish/sim/index.js';
import type { KubeObject } from '../../src/kube/index.js';
import {
  BMH,
  INFRA_ENV,
  PPI,
  bareMetalHost,
  createBmcSecret,
  createInfraEnv,
  field,
  hubRuntimeClient,
  longIsoUrl,
  releaseNamespace,
  startInProcessController,
  waitFor,
} from '../support/controller-hub.js';
import type { InProcessController } from '../support/controller-hub.js';
import { useNamespace } from '../support/hub.js';

// `siteforge controller --mode metal3` on the real hub, the test playing the Bare Metal Operator
// (it creates the PreprovisioningImage as BMO does) and the assisted service (it says when the
// InfraEnv's image exists): SiteForge serves the InfraEnv's ISO in the PreprovisioningImage's
// status, the BMAC sets the assisted custom deploy, and the BMC is never called.

describe('siteforge controller --mode metal3 on the hub', () => {
  const ns = useNamespace('e2e-metal3');
  const client = hubRuntimeClient();
  const isoUrl = longIsoUrl('https://assisted-image-service.example.com', 'e2e-metal3');
  const credentials = { username: 'admin', password: 'metal3-mode-pw-11a9' };
  let bmc: SimulatedBmc;
  let controller: InProcessController;
  let host: KubeObject;

  const get = (gvk: typeof BMH | typeof PPI | typeof INFRA_ENV, name: string) =>
    client.get({ ...gvk, namespace: ns.name, name });

  beforeAll(async () => {
    bmc = await startSimulatedBmc({ personality: GENERIC, credentials, power: 'Off' });
    await createBmcSecret(client, ns.name, 'bmc', credentials);
    // The image exists, but the assisted service has not said so yet (no ImageCreated).
    await createInfraEnv(client, ns.name, 'site', { isoDownloadURL: isoUrl });
    host = await client.create(
      bareMetalHost(ns.name, 'host-m', {
        infraEnv: 'site',
        address: bmc.address,
        credentialsName: 'bmc',
        bootMACAddress: '52:54:00:3a:00:01',
        spec: { online: true },
      }),
    );
    controller = await startInProcessController({
      mode: 'metal3',
      namespaces: [ns.name],
      ironicUrl: 'https://10.0.0.5',
      ironicAgentImage: 'quay.io/metal3-io/ironic-agent:e2e',
    });
    // What BMO does for a host with spec.image unset: a PreprovisioningImage of its name and
    // labels, owned by it, asking for an ISO.
    await client.create({
      ...PPI,
      metadata: {
        name: 'host-m',
        namespace: ns.name,
        labels: host.metadata.labels ?? {},
        ownerReferences: [
          {
            apiVersion: BMH.apiVersion,
            kind: BMH.kind,
            name: 'host-m',
            uid: String(host.metadata['uid']),
            controller: true,
          },
        ],
      },
      spec: { architecture: 'x86_64', acceptFormats: ['iso'] },
    });
  }, 60_000);

  afterAll(async () => {
    expect(await controller.stop()).toBe(0);
    await bmc.stop();
    await releaseNamespace(client, ns.name);
  }, 30_000);

  it('adds the ironic agent to the InfraEnv and waits for its image to be created', async () => {
    const waiting = await waitFor(
      'the PreprovisioningImage waiting for the image',
      async () => {
        const ppi = await get(PPI, 'host-m');
        const ready = (
          field(ppi, 'status', 'conditions') as Record<string, unknown>[] | undefined
        )?.find((c) => c['type'] === 'Ready');
        return ready?.['reason'] === 'WaitingForInfraEnvImageToBeCreated' ? ppi : undefined;
      },
      { controller },
    );
    expect(field(waiting, 'status', 'conditions')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'Ready',
          status: 'False',
          message: 'Waiting for InfraEnv image to be created',
        }),
        expect.objectContaining({ type: 'Error', status: 'False' }),
      ]),
    );
    expect(field(waiting, 'status', 'imageUrl')).toBeUndefined();
    expect(waiting.metadata['finalizers']).toContain(
      'preprovisioningimage.agent-install.openshift.io/ai-deprovision',
    );
    expect(waiting.metadata.labels).toMatchObject({ 'velero.io/exclude-from-backup': 'true' });

    const infraEnv = await get(INFRA_ENV, 'site');
    const annotations = infraEnv?.metadata.annotations ?? {};
    expect(annotations['infraenv.agent-install.openshift.io/enable-ironic-agent']).toBe('true');
    // The ironic agent's ignition, pointing at the ironic URL given.
    const ignition = annotations['siteforge.io/internal-ignition-config-override'] ?? '';
    expect(ignition).toContain('10.0.0.5');
    expect(ignition).toContain('quay.io/metal3-io/ironic-agent:e2e');

    // Not yet: the BMAC waits for the image before it hands the host to the assisted deploy.
    expect(field(await get(BMH, 'host-m'), 'spec', 'customDeploy')).toBeUndefined();
  });

  it('serves the InfraEnv ISO once ImageCreated, and the BMAC sets the assisted custom deploy', async () => {
    const infraEnv = (await get(INFRA_ENV, 'site'))!;
    await client.updateStatus({
      ...infraEnv,
      status: {
        ...(field(infraEnv, 'status') as Record<string, unknown>),
        conditions: [
          {
            type: 'ImageCreated',
            status: 'True',
            reason: 'InfraEnvAvailable',
            message: 'InfraEnv is available: Image has been created',
            lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          },
        ],
      },
    });

    const ppi = await waitFor(
      'the PreprovisioningImage ready',
      async () => {
        const p = await get(PPI, 'host-m');
        return field(p, 'status', 'imageUrl') === undefined ? undefined : p;
      },
      { controller },
    );
    expect(field(ppi, 'status')).toMatchObject({
      imageUrl: isoUrl,
      format: 'iso',
      architecture: 'x86_64',
    });
    expect(field(ppi, 'status', 'conditions')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'Ready',
          status: 'True',
          reason: 'InfraEnvAvailable',
          message: 'InfraEnv is available: Image has been created',
        }),
        expect.objectContaining({ type: 'Error', status: 'False', reason: 'InfraEnvAvailable' }),
      ]),
    );

    const bmh = await waitFor(
      'the custom deploy method',
      async () => {
        const b = await get(BMH, 'host-m');
        return field(b, 'spec', 'customDeploy', 'method') === undefined ? undefined : b;
      },
      { controller },
    );
    expect(field(bmh, 'spec', 'customDeploy')).toEqual({ method: 'start_assisted_install' });
    expect(bmh.metadata['finalizers']).toContain('bmac.agent-install.openshift.io/deprovision');
    expect(bmh.metadata.labels).toMatchObject({
      'cluster.open-cluster-management.io/backup': 'true',
    });
    // The converged flow leaves the image, inspection and cleaning to BMO.
    expect(field(bmh, 'spec', 'image')).toBeUndefined();
    expect(bmh.metadata.annotations?.['inspect.metal3.io']).toBeUndefined();
  });

  it('never touches the BMC or the host’s status: that is BMO’s', async () => {
    expect(bmc.requestCount).toBe(0);
    expect(bmc.state().power).toBe('Off');
    const bmh = await get(BMH, 'host-m');
    expect(field(bmh, 'status')).toBeUndefined();
    expect(bmh?.metadata['finalizers']).not.toContain('baremetalhost.metal3.io');
    const names = controller.lines.map((l) => l['controller']).filter((c) => c !== undefined);
    expect([...new Set(names)].sort()).toEqual([
      'baremetal-agent-controller',
      'preprovisioningimage',
    ]);
  });

  it('lets the image go when its host is deleted', async () => {
    await client.delete({ ...BMH, namespace: ns.name, name: 'host-m' });
    await waitFor('host-m gone', async () => (await get(BMH, 'host-m')) === undefined, {
      controller,
    });
    // The garbage collector deletes the orphaned image; SiteForge releases its finalizer.
    await waitFor('the image gone', async () => (await get(PPI, 'host-m')) === undefined, {
      controller,
    });
  }, 60_000);
});
