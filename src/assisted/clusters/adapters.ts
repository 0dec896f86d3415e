/**
 * The cluster side's ports on the real services of the assisted core: the cluster state machine
 * of src/assisted/state, the cluster validations of src/assisted/validations, the HostService
 * of src/assisted/hosts; and the other way round, the ClusterDirectory the HostService reads
 * clusters from. The composition root wires these; tests use fakes of the ports.
 */
import type { HostService } from '../hosts/host-service.js';
import type { ClusterDirectory } from '../hosts/ports.js';
import type { ClusterRecord } from '../model.js';
import { applyClusterEvent } from '../state/index.js';
import { validateCluster } from '../validations/index.js';
import type { ClusterInstallations } from './cluster-installations.js';
import type { ClusterMachine, ClusterValidator, HostDirectory } from './ports.js';

/** The state tables' cluster machine: a refused event leaves the cluster as it is. */
export const stateTableClusterMachine: ClusterMachine = {
  apply(cluster, event, context) {
    const result = applyClusterEvent(cluster, event, {
      now: context.now,
      validations: context.validationsInfo,
      hosts: context.hosts,
      ignoredValidations: cluster.ignoredClusterValidations,
      // What upstream waits for from the spoke's installer controller; here the installer
      // backend's credentials stand for it.
      kubeconfigUploaded: context.installerOutputReady,
    });
    if (!result.ok || (!result.changed && result.lastPreparation === undefined)) return cluster;
    const next: ClusterRecord = {
      ...cluster,
      status: result.status,
      statusInfo: result.statusInfo,
      ...(result.statusChanged && { statusUpdatedAt: context.now.toISOString() }),
      ...(result.installStartedAt !== undefined && { installStartedAt: result.installStartedAt }),
      ...(result.installCompletedAt !== undefined && {
        installCompletedAt: result.installCompletedAt,
      }),
      ...(result.lastPreparation !== undefined && { lastPreparation: result.lastPreparation }),
    };
    return next;
  },
};

/** The cluster validations of src/assisted/validations. */
export const assistedClusterValidator: ClusterValidator = {
  validate: (cluster, hosts, now) => validateCluster(cluster, hosts, { now }),
};

/** The reason upstream gives a cancelled installation. */
const CANCELLED = 'Installation was cancelled by user';

/** The HostService as the cluster side's HostDirectory. */
export function hostServiceDirectory(
  service: Pick<HostService, 'hostsOfCluster' | 'get' | 'apply' | 'assignRole' | 'refresh'>,
): HostDirectory {
  return {
    hostsOf: (clusterId) => service.hostsOfCluster(clusterId),
    apply(hostId, event, now) {
      switch (event.type) {
        case 'SuggestRole':
          return Promise.resolve(service.assignRole(hostId, { suggestedRole: event.role }));
        case 'AssignRole':
          return Promise.resolve(service.assignRole(hostId, { role: event.role }));
        case 'SetBootstrap':
          return Promise.resolve(service.assignRole(hostId, { bootstrap: event.bootstrap }));
        case 'PrepareForInstallation':
          service.apply(hostId, { type: 'PrepareForInstallation' }, now);
          break;
        case 'Install':
          service.apply(hostId, { type: 'InstallHost' }, now);
          break;
        case 'CancelPreparation':
        case 'CancelInstallation':
          service.apply(hostId, { type: 'CancelInstallation', reason: CANCELLED }, now);
          break;
        case 'ClusterFailed':
          // The host machine moves a host of a failed cluster to error on refresh.
          service.refresh(hostId, now);
          break;
      }
      return Promise.resolve(service.get(hostId));
    },
  };
}

/** Statuses in which a cluster takes new hosts (upstream AcceptRegistration). */
const ACCEPTING = ['insufficient', 'ready', 'pending-for-input', 'adding-hosts'];

/** The clusters this process orchestrates, as the HostService reads them. */
export function clusterDirectoryOf(installations: ClusterInstallations): ClusterDirectory {
  return {
    byId: (id) => installations.record(id),
    byDeployment: (namespace, name) => installations.byDeployment(namespace, name),
    registrationRefusal(cluster) {
      if (ACCEPTING.includes(cluster.status)) return undefined;
      return cluster.status === 'installed'
        ? 'Cannot add hosts to an existing cluster using the original Discovery ISO.'
        : `Host can register only in one of the following states: [${ACCEPTING.join(' ')}]`;
    },
  };
}
