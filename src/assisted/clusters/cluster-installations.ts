/**
 * The clusters this process orchestrates, by cluster id (the ClusterDeployment's uid): the
 * in-memory side of the records persisted in each AgentClusterInstall. The agent API and the
 * host service read clusters from here.
 */
import type { ClusterRecord } from '../model.js';
import type { ClusterInstallation } from './cluster-record.js';

/** Clusters by id. */
export class ClusterInstallations {
  private readonly byId = new Map<string, ClusterInstallation>();
  /** Cluster ids by `namespace/name` of their ClusterDeployment (looked up per agent request). */
  private readonly idByDeployment = new Map<string, string>();

  /** The installation of a cluster, if known. */
  get(clusterId: string): ClusterInstallation | undefined {
    return this.byId.get(clusterId);
  }

  /** The record of a cluster, if known. */
  record(clusterId: string): ClusterRecord | undefined {
    return this.byId.get(clusterId)?.record;
  }

  /** Every known cluster's record. */
  records(): ClusterRecord[] {
    return [...this.byId.values()].map((i) => i.record);
  }

  /** The record of the cluster of ClusterDeployment `namespace/name`, if known. */
  byDeployment(namespace: string, name: string): ClusterRecord | undefined {
    const id = this.idByDeployment.get(`${namespace}/${name}`);
    return id === undefined ? undefined : this.record(id);
  }

  set(installation: ClusterInstallation): void {
    const { id, namespace, clusterDeploymentName } = installation.record;
    this.byId.set(id, installation);
    this.idByDeployment.set(`${namespace}/${clusterDeploymentName}`, id);
  }

  delete(clusterId: string): void {
    const record = this.record(clusterId);
    this.byId.delete(clusterId);
    if (record === undefined) return;
    const key = `${record.namespace}/${record.clusterDeploymentName}`;
    if (this.idByDeployment.get(key) === clusterId) this.idByDeployment.delete(key);
  }
}
