import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BmacGvk, Finalizer, Gvk } from '../../../../src/bmac/api.js';
import { BmacError } from '../../../../src/bmac/reconcilers/bmac/index.js';
import type { KubeObject } from '../../../../src/kube/index.js';
import { loopbackCert } from '../../../support/loopback-cert.js';
import {
  FakeSpoke,
  ISO_URL,
  NS,
  agent,
  bmh,
  clusterDeployment,
  infraEnv,
  secret,
  world,
} from './fixtures.js';

const OVERRIDES = 'bmac.agent-install.openshift.io/ignition-config-overrides';
const SPOKE_CREATED = 'bmac.agent-install.openshift.io/spoke-bmh-machine-created';
let pem = '';
let b64 = '';
const caIgnition = () =>
  `{"ignition":{"version":"3.1.0","security":{"tls":{"certificateAuthorities":[{"source":"data:text/plain;charset=utf-8;base64,${b64}"}]}}}}`;

beforeAll(() => {
  pem = loopbackCert(mkdtempSync(join(tmpdir(), 'bmac-ca-'))).cert.toString('utf8');
  b64 = Buffer.from(pem.trim()).toString('base64');
});

function aci(
  spec: Record<string, unknown> = { platformType: 'BareMetal' },
  annotations?: Record<string, string>,
): KubeObject {
  return {
    ...BmacGvk.AgentClusterInstall,
    metadata: { name: 'spoke', namespace: NS, ...(annotations && { annotations }) },
    spec,
  };
}

function masterMachine(): KubeObject {
  return {
    ...BmacGvk.Machine,
    metadata: {
      name: 'spoke-master-0',
      namespace: 'openshift-machine-api',
      labels: { 'machine.openshift.io/cluster-api-machine-type': 'master' },
    },
    spec: {
      providerSpec: {
        value: { image: { checksum: 'sha256:abc', url: 'http://images/rhcos.qcow2' } },
      },
    },
  };
}

/** A day-2 host: its Agent bound to the installed ClusterDeployment `spoke`. */
function day2World(
  options: {
    annotations?: Record<string, string>;
    agentStatus?: Record<string, unknown>;
    installed?: boolean;
    aciObject?: KubeObject;
    configMaps?: Record<string, Record<string, string>>;
    kubeconfigSecret?: boolean;
  } = {},
) {
  const spoke = new FakeSpoke();
  for (const [key, data] of Object.entries(
    options.configMaps ?? {
      'openshift-machine-config-operator/machine-config-server-ca': { 'ca-bundle.crt': `${pem}\n` },
    },
  )) {
    const [namespace, name] = key.split('/') as [string, string];
    spoke.configMaps.set(key, { ...Gvk.ConfigMap, metadata: { name, namespace }, data });
  }
  spoke.machines = [masterMachine()];
  let clients = 0;
  const w = world(
    {
      spokeClients: {
        fromKubeconfig: () => {
          clients++;
          return spoke;
        },
      },
    },
    bmh('host-0', {
      finalizers: [Finalizer.Bmac],
      ...(options.annotations && { annotations: options.annotations }),
      spec: {
        image: { url: ISO_URL, format: 'live-iso' },
        online: true,
        rootDeviceHints: { deviceName: '/dev/sda' },
      },
    }),
    infraEnv(),
    agent('agent-0', {
      spec: { clusterDeploymentName: { namespace: NS, name: 'spoke' } },
      status: { role: 'worker', ...options.agentStatus },
    }),
    clusterDeployment(options.installed ?? true),
    ...(options.kubeconfigSecret === false
      ? []
      : [secret('spoke-admin-kubeconfig', { kubeconfig: 'apiVersion: v1\nkind: Config\n' })]),
    options.aciObject ?? aci(),
  );
  return { w, spoke, clients: () => clients };
}

describe('BMAC day 2: the spoke Machine Config Server CA', () => {
  it("writes an ignition override trusting the spoke's MCS CA, which reaches the Agent", async () => {
    const { w } = day2World();
    await w.stable();
    expect(w.host().metadata.annotations?.[OVERRIDES]).toBe(caIgnition());
    expect(w.agentNamed()?.spec['ignitionConfigOverrides']).toBe(caIgnition());
  });

  it("merges the CA into the user's own ignition override, the user's values winning", async () => {
    const user =
      '{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,hi"}}]}}';
    const { w } = day2World({ annotations: { [OVERRIDES]: user } });
    await w.stable();
    expect(JSON.parse(w.host().metadata.annotations?.[OVERRIDES] ?? '')).toEqual({
      ignition: {
        version: '3.2.0',
        security: {
          tls: {
            certificateAuthorities: [{ source: `data:text/plain;charset=utf-8;base64,${b64}` }],
          },
        },
      },
      storage: { files: [{ path: '/etc/motd', contents: { source: 'data:,hi' } }] },
    });
  });

  it('keeps an override that already carries the CA', async () => {
    const mine = `{"ignition":{"version":"3.2.0","security":{"tls":{"certificateAuthorities":[{"source":"data:text/plain;charset=utf-8;base64,${b64}"}]}}}}`;
    const { w } = day2World({ annotations: { [OVERRIDES]: mine } });
    await w.stable();
    expect(w.host().metadata.annotations?.[OVERRIDES]).toBe(mine);
  });

  it('falls back to kube-system/root-ca on clusters older than 4.19', async () => {
    const { w } = day2World({ configMaps: { 'kube-system/root-ca': { 'ca.crt': pem } } });
    await w.stable();
    expect(w.host().metadata.annotations?.[OVERRIDES]).toBe(caIgnition());
  });

  it('falls back to openshift-config/kube-root-ca.crt on hosted clusters', async () => {
    const { w } = day2World({
      configMaps: { 'openshift-config/kube-root-ca.crt': { 'ca.crt': pem } },
    });
    await w.stable();
    expect(w.host().metadata.annotations?.[OVERRIDES]).toBe(caIgnition());
  });

  it('fails with a clear error on a CA ConfigMap that holds no certificate', async () => {
    const { w } = day2World({
      configMaps: {
        'openshift-machine-config-operator/machine-config-server-ca': {
          'ca-bundle.crt': 'not a cert',
        },
      },
    });
    const error = await w.stable().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(BmacError);
    expect((error as Error).message).toBe(
      'ConfigMap openshift-machine-config-operator/machine-config-server-ca contains invalid CA certificate data',
    );
  });

  it('refuses to merge into an override that is not JSON, in an Event', async () => {
    const { w } = day2World({ annotations: { [OVERRIDES]: 'ignition: yes' } });
    await w.stable();
    expect(w.host().metadata.annotations?.[OVERRIDES]).toBe('ignition: yes');
    expect(w.cluster.events).toContainEqual(
      expect.objectContaining({
        type: 'Warning',
        reason: 'InvalidIgnitionConfigOverrides',
        message:
          "bmac.agent-install.openshift.io/ignition-config-overrides is not a JSON ignition config: cannot add the spoke's Machine Config Server CA",
      }),
    );
  });

  it('does not touch the spoke before its ClusterDeployment is installed', async () => {
    const { w, clients, spoke } = day2World({
      installed: false,
      agentStatus: { debugInfo: { state: 'installing' } },
    });
    await w.stable();
    expect(clients()).toBe(0);
    expect(spoke.applied).toEqual([]);
    expect(w.host().metadata.annotations?.[OVERRIDES]).toBeUndefined();
  });

  // Only workers join on day 2: a single-node cluster's host installed with its cluster, and
  // its spoke API need not resolve from the hub (it never did in the fleet simulation).
  it('leaves a control-plane host of an installed cluster alone, never calling its spoke', async () => {
    const { w, clients, spoke } = day2World({
      agentStatus: { role: 'master', debugInfo: { state: 'installed' } },
    });
    await w.stable();
    expect(clients()).toBe(0);
    expect(spoke.applied).toEqual([]);
    expect(w.host().metadata.annotations?.[OVERRIDES]).toBeUndefined();
  });
});

describe("BMAC day 2: the spoke's BareMetalHost and Machine", () => {
  it('creates them once the host installs, and marks the host', async () => {
    const { w, spoke } = day2World({ agentStatus: { debugInfo: { state: 'installing' } } });
    await w.stable();
    expect(
      spoke.applied.map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`),
    ).toEqual([
      'BareMetalHost openshift-machine-api/host-0',
      'Machine openshift-machine-api/spoke-host-0',
    ]);
    const [spokeHost, machine] = spoke.applied as [KubeObject, KubeObject];
    expect(spokeHost.metadata.annotations?.['inspect.metal3.io']).toBe('disabled');
    expect(
      JSON.parse(spokeHost.metadata.annotations?.['inspect.metal3.io/hardwaredetails'] ?? ''),
    ).toMatchObject({
      hostname: 'worker-0.example.com',
    });
    expect(spokeHost['spec']).toMatchObject({
      bootMACAddress: '52:54:00:aa:bb:01',
      rootDeviceHints: { deviceName: '/dev/sda' },
      bmc: { address: '', credentialsName: '' },
      consumerRef: {
        apiVersion: 'machine.openshift.io/v1beta1',
        kind: 'Machine',
        name: 'spoke-host-0',
        namespace: 'openshift-machine-api',
      },
    });
    expect(machine).toEqual({
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      metadata: {
        name: 'spoke-host-0',
        namespace: 'openshift-machine-api',
        annotations: { 'metal3.io/BareMetalHost': 'openshift-machine-api/host-0' },
        labels: {
          'machine.openshift.io/cluster-api-cluster': 'spoke',
          'machine.openshift.io/cluster-api-machine-role': 'worker',
          'machine.openshift.io/cluster-api-machine-type': 'worker',
        },
      },
      spec: {
        providerSpec: {
          value: {
            apiVersion: 'baremetal.cluster.k8s.io/v1alpha1',
            kind: 'BareMetalMachineProviderSpec',
            image: { checksum: 'sha256:abc', url: 'http://images/rhcos.qcow2' },
          },
        },
      },
    });
    expect(w.host().metadata.annotations?.[SPOKE_CREATED]).toBe('2026-11-25T09:00:00.000Z');
    expect(w.cluster.events).toContainEqual(
      expect.objectContaining({
        reason: 'SpokeHostCreated',
        message:
          'Created BareMetalHost and Machine openshift-machine-api/spoke-host-0 on the spoke cluster',
      }),
    );
  });

  it('waits for the host to start installing', async () => {
    const { w, spoke } = day2World({ agentStatus: { debugInfo: { state: 'known' } } });
    await w.stable();
    expect(spoke.applied).toEqual([]);
    expect(w.host().metadata.annotations?.[SPOKE_CREATED]).toBeUndefined();
  });

  it.each([
    [
      'user-managed networking',
      aci({ platformType: 'None', networking: { userManagedNetworking: true } }),
    ],
    ['a single node', aci({ provisionRequirements: { controlPlaneAgents: 1 } })],
    [
      'bare metal without the MachineAPI capability',
      aci(
        { platformType: 'BareMetal' },
        {
          'agent-install.openshift.io/install-config-overrides':
            '{"capabilities":{"baselineCapabilitySet":"None","additionalEnabledCapabilities":["baremetal"]}}',
        },
      ),
    ],
  ])('creates nothing on a spoke with %s', async (_, aciObject) => {
    const { w, spoke } = day2World({
      aciObject,
      agentStatus: { debugInfo: { state: 'installing' } },
    });
    await w.stable();
    expect(spoke.applied).toEqual([]);
  });

  it('creates nothing when the spoke has no master Machine to copy the image from', async () => {
    const { w, spoke } = day2World({
      agentStatus: { debugInfo: { state: 'installing-in-progress' } },
    });
    spoke.machines = [];
    await w.stable();
    expect(spoke.applied).toEqual([]);
    expect(w.host().metadata.annotations?.[SPOKE_CREATED]).toBeUndefined();
  });

  it('fails with a clear error when the kubeconfig Secret is missing', async () => {
    const { w } = day2World({ kubeconfigSecret: false });
    const error = await w.stable().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(BmacError);
    expect((error as Error).message).toBe('Secret site/spoke-admin-kubeconfig not found');
  });
});
