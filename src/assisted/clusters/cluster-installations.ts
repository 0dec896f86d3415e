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

  set(installation: ClusterInstallation): void {
    this.byId.set(installation.record.id, installation);
  }

  delete(clusterId: string): void {
    this.byId.delete(clusterId);
  }
}
