/**
 * What the simulated-fleet hub tests (test/sim/*-hub.test.ts) share: single-node SiteConfigs
 * compiled by the real compiler, applied to the test run's hub with their BareMetalHosts
 * pointed at simulated BMCs (as the demo applies them), the status a user reads of a site (the
 * fleet model the demo and the dashboard show), and an account of a stuck site for failures.
 */
import { FleetModel, SiteKind } from '../../src/fleet/index.js';
import type { SiteStatus } from '../../src/fleet/index.js';
import type { KubeObject, RuntimeKubeClient } from '../../src/kube/index.js';
import { compileSiteConfig, waveOf } from '../../src/siteconfig/index.js';
import {
  bmcSecretObject,
  clusterImageSetObject,
  fleetReferences,
  pointAtSimulatedBmcs,
  pullSecretObject,
} from '../../src/sim/fleet-objects.js';
import type { SimFleet } from '../../src/sim/sim-fleet.js';
import { ACI, CLUSTER_DEPLOYMENT, conditionsText, updateWith } from './assisted-hub.js';
import { AGENT, BMH, field } from './controller-hub.js';
import { loadText } from './sites.js';

/**
 * A single-node SiteConfig (cluster and namespace `name`) with a static address on
 * 10.77.`octet`.0/24 and a by-path root device hint.
 */
export function snoSiteText(name: string, octet: number): string {
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

/** The hub objects of SiteConfig texts, in sync-wave order. */
export function compileSites(texts: readonly string[]): KubeObject[] {
  return texts
    .flatMap((text) => {
      const { sites, issues } = loadText(text);
      const errors = issues.filter((i) => i.severity === 'error');
      if (errors.length > 0 || sites[0] === undefined)
        throw new Error(`invalid test SiteConfig: ${JSON.stringify(errors)}`);
      return compileSiteConfig(sites[0].siteConfig, sites[0].resources).flatMap(
        (c) => c.manifests as unknown as KubeObject[],
      );
    })
    .sort((a, b) => waveOf(a) - waveOf(b));
}

/**
 * Creates `compiled` on the hub with every BareMetalHost pointed at its simulated BMC, and
 * what a hub administrator provides beside them (ClusterImageSets, pull secrets, the BMC
 * credentials Secrets with the simulators' passwords).
 */
export async function applySimulatedSites(
  client: RuntimeKubeClient,
  compiled: readonly KubeObject[],
  fleet: SimFleet,
): Promise<void> {
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
}

/** Deletes the sites' namespaces, clearing the finalizers no controller will clear any more. */
export async function removeSimulatedSites(
  client: RuntimeKubeClient,
  namespaces: readonly string[],
): Promise<void> {
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
}

/** The site of `namespace` as the demo's table and the dashboard show it (src/fleet). */
export async function siteStatusOf(
  client: RuntimeKubeClient,
  namespace: string,
): Promise<SiteStatus | undefined> {
  const model = new FleetModel();
  for (const gvk of Object.values(SiteKind))
    for (const object of (await client.list(gvk, { namespace })).items)
      model.apply({ type: 'add', object });
  model.flush();
  return [...model.sites()].find((s) => s.namespace === namespace);
}

/** What a user would look at when a site is stuck, and what its simulated host did. */
export async function simulatedSiteAccount(
  client: RuntimeKubeClient,
  namespace: string,
  fleet: SimFleet,
): Promise<string> {
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
  const status = await siteStatusOf(client, namespace);
  lines.push(`site ${String(status?.state)} ${JSON.stringify(status?.problem)}`);
  for (const sim of fleet.hosts.filter((h) => h.spec.cluster === namespace)) {
    lines.push(`sim ${sim.spec.name} ${sim.phase} ${sim.detail ?? ''}`);
    lines.push(
      ...sim.bmc.events.map((e) => `  ${new Date(e.at).toISOString()} ${e.kind} ${e.detail}`),
    );
  }
  return lines.join('\n');
}
