/**
 * What wakes a BareMetalHost besides its own changes (assisted.md §1.2): its Agent, its InfraEnv
 * once the ISO exists, an installed ClusterDeployment (day-2 steps), and its PreprovisioningImage.
 */
import { Gvk, Label } from '../../api.js';
import type { KubeObject } from '../../../kube/index.js';
import type { ObjectReader, Request, Watch } from '../../runtime/contract.js';
import { imageVerdict } from './bmh.js';
import { view } from './model.js';
import type { Agent, BareMetalHost, ClusterDeployment, InfraEnv } from './model.js';
import { agentsOfClusterDeployment, findBmhByAgent } from './pairing.js';

function request(namespace: string | undefined, name: string): Request {
  return namespace === undefined ? { name } : { namespace, name };
}

/** The host of an Agent: the one its label names, else the one with its MAC. */
export function agentToBmh(agent: Agent, reader: ObjectReader): readonly Request[] {
  const named = agent.metadata.labels?.[Label.AgentBmh];
  if (named !== undefined) return [request(agent.metadata.namespace, named)];
  const bmh = findBmhByAgent(reader, agent);
  return bmh === undefined ? [] : [request(bmh.metadata.namespace, bmh.metadata.name)];
}

/**
 * The hosts labelled with an InfraEnv that has an ISO, except those already booting it: nothing
 * changed for them. (The time is not needed: a host in the cool-down is queued and requeues.)
 */
export function infraEnvToBmhs(object: KubeObject, reader: ObjectReader): readonly Request[] {
  const infraEnv = view<InfraEnv>(object);
  if ((infraEnv.status?.isoDownloadURL ?? '') === '') return [];
  const namespace = infraEnv.metadata.namespace;
  const name = infraEnv.metadata.name.toLowerCase();
  return reader
    .list(Gvk.BareMetalHost, namespace === undefined ? {} : { namespace })
    .map((o) => view<BareMetalHost>(o))
    .filter((bmh) => bmh.metadata.labels?.[Label.InfraEnv]?.toLowerCase() === name)
    .filter((bmh) => imageVerdict(bmh, infraEnv, Number.NEGATIVE_INFINITY).kind !== 'in-sync')
    .map((bmh) => request(bmh.metadata.namespace, bmh.metadata.name));
}

/** The hosts of an installed ClusterDeployment's Agents. */
export function clusterDeploymentToBmhs(
  object: KubeObject,
  reader: ObjectReader,
): readonly Request[] {
  const cd = view<ClusterDeployment>(object);
  if (cd.spec?.installed !== true) return [];
  return agentsOfClusterDeployment(reader, cd).flatMap((agent) => agentToBmh(agent, reader));
}

/** The BMAC's watches. */
export const bmacWatches: readonly Watch[] = [
  { gvk: Gvk.Agent, map: (object, reader) => agentToBmh(view<Agent>(object), reader) },
  { gvk: Gvk.InfraEnv, map: infraEnvToBmhs },
  { gvk: Gvk.ClusterDeployment, map: clusterDeploymentToBmhs },
  // A PreprovisioningImage has the name of its host.
  {
    gvk: Gvk.PreprovisioningImage,
    map: (object) => [request(object.metadata.namespace, object.metadata.name)],
  },
];
