/**
 * Simulated edge sites provisioned by `siteforge controller` (redfish mode, assisted core,
 * simulated installer) on the test run's hub: SiteConfigs compiled by the real compiler, the
 * BareMetalHosts pointed at simulated BMCs, and every host booting only because its BMC was
 * told to. Its agent reads the ISO through the BMC's image URL, takes its settings and static
 * network from the ISO's ignition, registers and installs; every agent API exchange is checked
 * against docs/openapi/assisted-agent-api.yaml. Faults show as a user would see them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSiteConfig, waveOf } from '../../src/siteconfig/index.js';
import type { KubeObject } from '../../src/kube/index.js';
import { startSimFleet } from '../../src/sim/sim-fleet.js';
import type { SimFleet } from '../../src/sim/sim-fleet.js';
import { hostsOfManifests } from '../../src/sim/site-hosts.js';
import { faultsFor, parseFaultRule } from '../../src/sim/faults.js';
import {
  bmcSecretObject,
  clusterImageSetObject,
  fleetReferences,
  pointAtSimulatedBmcs,
  pullSecretObject,
} from '../../src/sim/fleet-objects.js';
import { AgentApiConformance } from '../assisted/agent-api/openapi.js';
import {
  ACI,
  CLUSTER_DEPLOYMENT,
  assistedEnvironment,
  conditionOf,
  conditionsText,
  startAssistedController,
  uniqueName,
  updateWith,
} from '../support/assisted-hub.js';
import type { AssistedEnvironment } from '../support/assisted-hub.js';
import { AGENT, BMH, field, hubRuntimeClient, waitFor } from '../support/controller-hub.js';
import type { InProcessController } from '../support/controller-hub.js';
import { loadText } from '../support/sites.js';

const client = hubRuntimeClient();
const good = uniqueName('simok');
const small = uniqueName('simsmall');
const wired = uniqueName('simmac');
const dead = uniqueName('simdead');

/** A single-node SiteConfig with a static address and a by-path root device hint. */
function snoText(name: string, octet: number): string {
  const mac = `0c:42:a1:00:${octet.toString(16).padStart(2, '0')}:01`;
  return `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: site-${name}
  namespace: ${name}
spec:
  baseDomain: sim.example.com
  pullSecretRef:
    name: assisted-deployment-pull-secret
  clusterImageSetNameRef: openshift-4.18.12
  sshPublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTestsOnly000000000000000000000 test@example.com'
  clusters:
    - clusterName: ${name}
      machineNetwork:
        - cidr: 10.77.${String(octet)}.0/24
      nodes:
        - hostName: ${name}-node
          role: master
          bmcAddress: idrac-virtualmedia+https://10.77.${String(octet)}.2/redfish/v1/Systems/System.Embedded.1
          bmcCredentialsName:
            name: ${name}-bmc
          bootMACAddress: '${mac}'
          rootDeviceHints:
            deviceName: /dev/disk/by-path/pci-0000:01:00.0-scsi-0:2:0:0
          nodeNetwork:
            interfaces:
              - name: eno1
                macAddress: '${mac}'
            config:
              interfaces:
                - name: eno1
                  type: ethernet
                  state: up
                  ipv4:
                    enabled: true
                    dhcp: false
                    address:
                      - ip: 10.77.${String(octet)}.20
                        prefix-length: 24
              routes:
                config:
                  - destination: 0.0.0.0/0
                    next-hop-interface: eno1
                    next-hop-address: 10.77.${String(octet)}.1
`;
}

function compile(text: string): KubeObject[] {
  const { sites, issues } = loadText(text);
  const errors = issues.filter((i) => i.severity === 'error');
  if (errors.length > 0 || sites[0] === undefined)
    throw new Error(`invalid test SiteConfig: ${JSON.stringify(errors)}`);
  return compileSiteConfig(sites[0].siteConfig, sites[0].resources).flatMap(
    (c) => c.manifests as unknown as KubeObject[],
  );
}

const compiled = [
  compile(snoText(good, 11)),
  compile(snoText(small, 12)),
  compile(snoText(wired, 13)),
  compile(snoText(dead, 14)),
]
  .flat()
  .sort((a, b) => waveOf(a) - waveOf(b));
const rules = [`${small}=too-small`, `${wired}=wrong-mac`, `${dead}=never-boots`].map(
  parseFaultRule,
);
const specs = hostsOfManifests(compiled, (host) => faultsFor(rules, host));
const namespaces = [good, small, wired, dead];
const conformance = new AgentApiConformance();
let env: AssistedEnvironment | undefined;
let controller: InProcessController | undefined;
let fleet: SimFleet;

beforeAll(async () => {
  env = await assistedEnvironment();
  fleet = await startSimFleet({
    hosts: specs,
    // The reboot takes long enough for the controller to eject the ISO when the host reports
    // Rebooting, as on real servers; a host that reboots before then boots the ISO again.
    timings: { stageMs: 300, pollMs: 500, postMs: 300, rebootMs: 20_000 },
    onExchange: conformance.check,
  });
  const objects = pointAtSimulatedBmcs(compiled, fleet.bmcs);
  const refs = fleetReferences(objects);
  for (const name of refs.imageSets)
    if (
      (await client.get({ apiVersion: 'hive.openshift.io/v1', kind: 'ClusterImageSet', name })) ===
      undefined
    )
      await client.create(clusterImageSetObject(name));
  for (const object of objects) {
    await client.create(object);
    if (object.kind !== 'Namespace') continue;
    const namespace = object.metadata.name;
    for (const name of refs.pullSecrets.get(namespace) ?? [])
      await client.create(pullSecretObject(namespace, name));
    for (const bmc of fleet.bmcs) {
      const secret = refs.bmcSecrets.get(bmc.key);
      if (bmc.key.startsWith(`${namespace}/`) && secret !== undefined)
        await client.create(bmcSecretObject(namespace, secret, bmc));
    }
  }
  controller = await startAssistedController(env, namespaces);
}, 180_000);

afterAll(async () => {
  await controller?.stop();
  await (fleet as SimFleet | undefined)?.stop();
  for (const namespace of namespaces) {
    for (const gvk of [AGENT, ACI, CLUSTER_DEPLOYMENT]) {
      for (const item of (await client.list(gvk, { namespace })).items) {
        const ref = { ...gvk, namespace, name: item.metadata.name };
        await client.delete(ref);
        await updateWith(client, ref, (live) => ({
          ...live,
          metadata: { ...live.metadata, finalizers: [] },
        }));
      }
    }
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace });
  }
  await env?.close();
}, 120_000);

const host = (name: string) => fleet.hosts.find((h) => h.spec.cluster === name)!;

/** What a user would look at when a site is stuck, and what its simulated host did. */
async function siteState(namespace: string): Promise<string> {
  const aci = await client.get({ ...ACI, namespace, name: namespace });
  const bmh = (await client.list(BMH, { namespace })).items[0];
  const lines = [
    `ACI ${JSON.stringify(field(aci, 'status', 'debugInfo'))}`,
    ...Object.entries(conditionsText(aci)).map(([t, c]) => `  ${t}: ${c}`),
    `BMH ${JSON.stringify(field(bmh, 'status', 'provisioning'))} ${String(field(bmh, 'status', 'operationalStatus'))} ${String(field(bmh, 'status', 'errorMessage'))}`,
  ];
  for (const agent of (await client.list(AGENT, { namespace })).items)
    lines.push(
      `Agent ${agent.metadata.name} ${JSON.stringify(field(agent, 'status', 'debugInfo'))} ${JSON.stringify(field(agent, 'status', 'progress'))}`,
      ...Object.entries(conditionsText(agent)).map(([t, c]) => `  ${t}: ${c}`),
    );
  const sim = host(namespace);
  lines.push(`sim ${sim.phase} ${sim.detail ?? ''}`);
  lines.push(
    ...sim.bmc.events.map((e) => `  ${new Date(e.at).toISOString()} ${e.kind} ${e.detail}`),
  );
  return lines.join('\n');
}

describe('a simulated fleet provisioned by the controller', () => {
  it('installs a single-node site: BMC boot, ISO read by ranges, discovery, install, disk boot', async () => {
    await waitFor(
      `${good} installed`,
      async () => {
        const cd = await client.get({ ...CLUSTER_DEPLOYMENT, namespace: good, name: good });
        return field(cd, 'spec', 'installed') === true;
      },
      { controller, timeoutMs: 150_000 },
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await siteState(good)}`);
    });
    const sim = host(good);
    await waitFor('the host reports done', () => Promise.resolve(sim.phase === 'done'), {
      timeoutMs: 30_000,
    });
    // The BMC booted the ISO; the controller ejected it before the installed host restarted,
    // so the firmware (virtual CD first in its boot order) booted the disk.
    const events = sim.bmc.events.map((e) => `${e.kind} ${e.detail}`);
    const restart = events.indexOf('power restart from host');
    expect(events.slice(0, restart).filter((e) => e.startsWith('boot http'))).not.toEqual([]);
    expect(events.slice(0, restart)).toContain('eject 1');
    expect(events.slice(restart + 1)).toEqual(['boot disk']);
    const agents = (await client.list(AGENT, { namespace: good })).items;
    expect(agents).toHaveLength(1);
    const agent = agents[0]!;
    // The static address came from the ISO's ignition (the NMStateConfig SiteForge compiled).
    const nics = field(agent, 'status', 'inventory', 'interfaces') as { ipV4Addresses: string[] }[];
    expect(nics[0]!.ipV4Addresses).toEqual(['10.77.11.20/24']);
    // The root device hint chose the disk at its by-path.
    expect(field(agent, 'spec', 'installation_disk_id')).toMatch(/^\/dev\/disk\/by-id\/wwn-/);
    expect(conformance.violations).toEqual([]);
  }, 200_000);

  it('keeps a too-small host out of the install with the hardware validation message', async () => {
    const agent = await waitFor(
      'the small host registered',
      async () => (await client.list(AGENT, { namespace: small })).items[0],
      { controller, timeoutMs: 60_000 },
    );
    const validated = await waitFor(
      'the hardware validation fails',
      async () => {
        const live = await client.get({ ...AGENT, namespace: small, name: agent.metadata.name });
        const c = conditionOf(live, 'Validated');
        return c?.status === 'False' && c;
      },
      { controller, timeoutMs: 60_000 },
    );
    expect(validated.message).toMatch(/CPU cores|memory/);
  }, 150_000);

  it('leaves a host with a wrong MAC unpaired with its BareMetalHost, so never approved', async () => {
    const agent = await waitFor(
      'the mis-wired host registered',
      async () => (await client.list(AGENT, { namespace: wired })).items[0],
      { controller, timeoutMs: 60_000 },
    );
    expect(field(agent, 'spec', 'approved')).toBe(false);
  }, 90_000);

  it('shows a host that never boots as provisioned on its BMC, with no Agent', async () => {
    await waitFor(
      'the BMC was told to boot the ISO',
      async () => {
        const bmh = (await client.list(BMH, { namespace: dead })).items[0];
        return field(bmh, 'status', 'provisioning', 'state') === 'provisioned';
      },
      { controller, timeoutMs: 120_000 },
    );
    const sim = host(dead);
    expect(sim.phase).toBe('hung');
    expect(sim.bmc.events.map((e) => e.kind)).toContain('boot');
    expect((await client.list(AGENT, { namespace: dead })).items).toEqual([]);
  }, 150_000);
});
