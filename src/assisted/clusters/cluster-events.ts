/**
 * The assisted-service events of each cluster (what `GET /v2/events?cluster_id=` lists), kept in
 * memory with upstream's names and message texts (AS `docs/events.yaml`). The ACI's
 * `debugInfo.eventsURL` points at that endpoint; the agent API serves the list from here.
 */

/** Severities of upstream's events. */
export type EventSeverity = 'info' | 'warning' | 'error' | 'critical';

/** One event, in the wire form of upstream's `event` model. */
export interface AssistedEvent {
  readonly name: string;
  readonly cluster_id: string;
  readonly host_id?: string;
  readonly severity: EventSeverity;
  readonly category: 'user';
  readonly message: string;
  /** RFC 3339. */
  readonly event_time: string;
}

/** Upstream's cluster event texts. */
export const ClusterEventText = {
  registered: () => ({
    name: 'cluster_registration_succeeded',
    message: 'Successfully registered cluster',
  }),
  deregistered: () => ({ name: 'cluster_deregistered', message: 'Deregistered cluster' }),
  statusUpdated: (status: string) => ({
    name: 'cluster_status_updated',
    message: `Updated status of the cluster to ${status}`,
  }),
  prepareStarted: () => ({
    name: 'cluster_prepare_installation_started',
    message: 'Cluster starting to prepare for installation',
  }),
  installCompleted: () => ({
    name: 'cluster_installation_completed',
    message: 'Successfully completed installing cluster',
  }),
  installFailed: (reason: string) => ({
    name: 'cluster_installation_failed',
    message: `Failed installing cluster. Reason: ${reason}`,
  }),
  installCancelled: () => ({
    name: 'cluster_installation_canceled',
    message: 'Canceled cluster installation',
  }),
  installConfigApplied: () => ({
    name: 'install_config_applied',
    message: 'Custom install config was applied to the cluster',
  }),
  roleSuggested: (hostName: string, role: string) => ({
    name: 'host_role_updated',
    message: `Host ${hostName}: calculated role is ${role}`,
  }),
} as const;

/** Events kept per cluster: at most this many, the oldest dropped first. */
export const MAX_EVENTS_PER_CLUSTER = 1000;

/** The in-memory event list of every cluster, by cluster id. */
export class ClusterEventLog {
  private readonly byCluster = new Map<string, AssistedEvent[]>();

  /** Appends an event. */
  record(
    clusterId: string,
    text: { readonly name: string; readonly message: string },
    now: Date,
    options: { readonly severity?: EventSeverity; readonly hostId?: string } = {},
  ): void {
    const list = this.byCluster.get(clusterId) ?? [];
    list.push({
      name: text.name,
      cluster_id: clusterId,
      ...(options.hostId !== undefined && { host_id: options.hostId }),
      severity: options.severity ?? 'info',
      category: 'user',
      message: text.message,
      event_time: now.toISOString(),
    });
    if (list.length > MAX_EVENTS_PER_CLUSTER) list.splice(0, list.length - MAX_EVENTS_PER_CLUSTER);
    this.byCluster.set(clusterId, list);
  }

  /** The cluster's events, oldest first (empty for an unknown cluster). */
  list(clusterId: string, hostId?: string): readonly AssistedEvent[] {
    const all = this.byCluster.get(clusterId) ?? [];
    return hostId === undefined ? [...all] : all.filter((e) => e.host_id === hostId);
  }

  /** Forgets a deleted cluster. */
  forget(clusterId: string): void {
    this.byCluster.delete(clusterId);
  }
}
