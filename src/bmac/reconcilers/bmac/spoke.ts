/**
 * The port to a spoke cluster (an installed cluster the hub added hosts to), through the admin
 * kubeconfig in the ClusterDeployment's `<cd>-admin-kubeconfig` Secret: what the day-2 steps
 * and the node drain of a deleted host need, and an implementation on any KubeClient.
 */
import { BmacGvk, Gvk } from '../../api.js';
import type { KubeClient, KubeObject } from '../../../kube/index.js';

/** What the BMAC does on a spoke cluster. */
export interface SpokeClient {
  /** A ConfigMap, or undefined when it does not exist. */
  getConfigMap(namespace: string, name: string): Promise<KubeObject | undefined>;
  /** Machines (openshift-machine-api) with every one of `labels`. */
  listMachines(labels: Readonly<Record<string, string>>): Promise<readonly KubeObject[]>;
  /** Creates `object` (a BareMetalHost or Machine), or updates it to these fields. */
  createOrUpdate(object: KubeObject): Promise<void>;
  /**
   * Cordons the node and evicts its pods (not DaemonSets'), trying for at most `timeoutMs`.
   * @returns `drained` when no pod is left, `pending` when some still are
   */
  drainNode(name: string, options: { readonly timeoutMs: number }): Promise<'drained' | 'pending'>;
}

/** Makes a SpokeClient from the text of a kubeconfig. */
export interface SpokeClientFactory {
  fromKubeconfig(kubeconfig: string): SpokeClient;
}

const FIELD_MANAGER = 'siteforge-bmac';

/** SpokeClient on a KubeClient (server-side apply; pods deleted rather than evicted). */
export class KubeSpokeClient implements SpokeClient {
  constructor(private readonly kube: KubeClient) {}

  getConfigMap(namespace: string, name: string): Promise<KubeObject | undefined> {
    return this.kube.get({ ...Gvk.ConfigMap, namespace, name });
  }

  listMachines(labels: Readonly<Record<string, string>>): Promise<readonly KubeObject[]> {
    const labelSelector = Object.entries(labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    return this.kube.list(BmacGvk.Machine, { namespace: 'openshift-machine-api', labelSelector });
  }

  async createOrUpdate(object: KubeObject): Promise<void> {
    await this.kube.apply(object, { fieldManager: FIELD_MANAGER, force: true });
  }

  async drainNode(name: string): Promise<'drained' | 'pending'> {
    await this.kube.apply(
      { ...BmacGvk.Node, metadata: { name }, spec: { unschedulable: true } },
      { fieldManager: FIELD_MANAGER, force: true },
    );
    const pods = (await this.kube.list({ apiVersion: 'v1', kind: 'Pod' })).filter((pod) => {
      const spec = pod['spec'] as { nodeName?: string } | undefined;
      const owners = (pod.metadata['ownerReferences'] as { kind?: string }[] | undefined) ?? [];
      const mirror = pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined;
      return spec?.nodeName === name && !mirror && !owners.some((o) => o.kind === 'DaemonSet');
    });
    for (const pod of pods)
      await this.kube.delete({
        apiVersion: 'v1',
        kind: 'Pod',
        name: pod.metadata.name,
        ...(pod.metadata.namespace !== undefined && { namespace: pod.metadata.namespace }),
      });
    return pods.length === 0 ? 'drained' : 'pending';
  }
}

/** A SpokeClientFactory making KubeSpokeClients with `clientFor` (e.g. ClientNodeKubeClient). */
export function kubeSpokeClientFactory(
  clientFor: (kubeconfig: string) => KubeClient,
): SpokeClientFactory {
  return { fromKubeconfig: (kubeconfig) => new KubeSpokeClient(clientFor(kubeconfig)) };
}
