/**
 * Which Agent belongs to which BareMetalHost (assisted.md §1.2): an Agent whose inventory lists a
 * NIC with the host's boot MAC (compared case-insensitively) in the host's namespace; when several
 * match, the newest registration wins, because it is the agent running now.
 */
import { BmacLabel, Gvk, Label } from '../../api.js';
import type { ObjectReader } from '../../runtime/contract.js';
import { view } from './model.js';
import type { Agent, BareMetalHost, ClusterDeployment } from './model.js';

function hasMac(agent: Agent, mac: string | undefined): boolean {
  if (mac === undefined || mac === '') return false;
  const wanted = mac.toLowerCase();
  return (agent.status?.inventory?.interfaces ?? []).some(
    (nic) =>
      nic.macAddress !== undefined &&
      nic.macAddress !== '' &&
      nic.macAddress.toLowerCase() === wanted,
  );
}

function createdAt(o: { metadata: { creationTimestamp?: string } }): number {
  const t = Date.parse(o.metadata.creationTimestamp ?? '');
  return Number.isNaN(t) ? 0 : t;
}

/** The newest Agent in the host's namespace with a NIC whose MAC is the host's boot MAC. */
export function findAgent(reader: ObjectReader, bmh: BareMetalHost): Agent | undefined {
  const namespace = bmh.metadata.namespace;
  const matches = reader
    .list(Gvk.Agent, namespace === undefined ? {} : { namespace })
    .map((o) => view<Agent>(o))
    .filter((agent) => hasMac(agent, bmh.spec?.bootMACAddress));
  return matches.sort((a, b) => createdAt(b) - createdAt(a))[0];
}

/** The first BareMetalHost in the Agent's namespace whose boot MAC is one of the Agent's. */
export function findBmhByAgent(reader: ObjectReader, agent: Agent): BareMetalHost | undefined {
  const namespace = agent.metadata.namespace;
  return reader
    .list(Gvk.BareMetalHost, namespace === undefined ? {} : { namespace })
    .map((o) => view<BareMetalHost>(o))
    .find((bmh) => hasMac(agent, bmh.spec?.bootMACAddress));
}

/**
 * The Agents bound to a ClusterDeployment that name their BareMetalHost, the newest per host
 * (a host that failed an install and registered again has an older Agent too).
 */
export function agentsOfClusterDeployment(
  reader: ObjectReader,
  cd: ClusterDeployment,
): readonly Agent[] {
  const namespace = cd.metadata.namespace ?? '';
  const newest = new Map<string, Agent>();
  for (const object of reader.list(Gvk.Agent, {
    labels: { [BmacLabel.ClusterDeploymentNamespace]: namespace },
  })) {
    const agent = view<Agent>(object);
    if (agent.spec?.clusterDeploymentName?.name !== cd.metadata.name) continue;
    const bmhName = agent.metadata.labels?.[Label.AgentBmh];
    if (bmhName === undefined) continue;
    const seen = newest.get(bmhName);
    if (seen === undefined || createdAt(agent) > createdAt(seen)) newest.set(bmhName, agent);
  }
  return [...newest.values()];
}
