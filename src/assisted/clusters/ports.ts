/**
 * What install orchestration needs from the rest of the assisted core, as small interfaces: the
 * hosts of a cluster and a way to move them (the host service), the cluster state machine, and
 * the cluster validations. The controller is built on these, so its tests run on fakes and the
 * composition root wires the real services in.
 */
import type { ClusterRecord, HostRecord, HostRole, ValidationsInfo } from '../model.js';

/** What the orchestration asks of a host. The host service decides how its state machine moves. */
export type HostEvent =
  /** Refresh the role a host on `auto-assign` would get (pre-install only). */
  | { readonly type: 'SuggestRole'; readonly role: HostRole }
  /** Installation starts: an `auto-assign` host takes its role for good. */
  | { readonly type: 'AssignRole'; readonly role: HostRole }
  | { readonly type: 'SetBootstrap'; readonly bootstrap: boolean }
  /** known → preparing-for-installation (the host runs disk speed and image availability). */
  | { readonly type: 'PrepareForInstallation' }
  /** preparing-successful → installing (the host is told to install). */
  | { readonly type: 'Install' }
  /** The cluster's preparation failed or was cancelled: back to known. */
  | { readonly type: 'CancelPreparation' }
  /** The installation was cancelled (installing*, error → cancelled). */
  | { readonly type: 'CancelInstallation' }
  /** The cluster failed: hosts still installing go to error. */
  | { readonly type: 'ClusterFailed'; readonly reason: string };

/** The hosts of clusters, as the host service keeps them. */
export interface HostDirectory {
  /** Every host bound to the cluster (`HostRecord.clusterId === clusterId`). */
  hostsOf(clusterId: string): readonly HostRecord[];
  /**
   * Applies `event` to the host and persists it (its Agent).
   * @returns the host after the event, or undefined when it does not exist
   */
  apply(hostId: string, event: HostEvent, now: Date): Promise<HostRecord | undefined>;
}

/** What the cluster state machine is told. */
export type ClusterEvent =
  /** Re-evaluate: validations, host statuses and timeouts decide the status. */
  | { readonly type: 'Refresh' }
  /** ready → preparing-for-installation (the install trigger fired). */
  | { readonly type: 'PrepareForInstallation' }
  /** The ignition and credentials were generated: the hosts' preparation decides the rest. */
  | { readonly type: 'PreparationSucceeded' }
  /** Preparation failed (ignition generation): recorded, the next Refresh goes back to ready. */
  | { readonly type: 'PreparationFailed'; readonly reason: string }
  /** Cancel: preparing → ready; installing*, finalizing, error → cancelled. */
  | { readonly type: 'CancelInstallation' };

/** The facts a cluster event is decided on. */
export interface ClusterEventContext {
  readonly hosts: readonly HostRecord[];
  readonly validationsInfo: ValidationsInfo;
  readonly now: Date;
  /** The installer backend has produced the ignition and credentials for this installation. */
  readonly installerOutputReady: boolean;
}

/** The cluster state machine (assisted.md §4.4). */
export interface ClusterMachine {
  /** The cluster after `event`; the same object when nothing changes. */
  apply(cluster: ClusterRecord, event: ClusterEvent, context: ClusterEventContext): ClusterRecord;
}

/** The cluster validations (assisted.md §5.3). */
export interface ClusterValidator {
  validate(cluster: ClusterRecord, hosts: readonly HostRecord[], now: Date): ValidationsInfo;
}
