/**
 * The controller's Prometheus metrics, in a Registry of their own per manager (never prom-client's
 * global one, so two managers in one process, as in tests, do not collide). Names follow
 * controller-runtime's, prefixed `siteforge_`.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestVerb } from '../../kube/index.js';

/** What the Redfish reconciler records of each BMC call. */
export interface RedfishMetrics {
  /**
   * Counts one Redfish call.
   * @param vendor the BMC's vendor quirk set, e.g. `dell`, `hpe`, `generic`
   * @param outcome `success`, or what went wrong, e.g. `http_error`, `timeout`, `unreachable`
   */
  redfishCall(vendor: string, outcome: string): void;
}

/** One request the assisted agent API answered (the shape of its `observe` option). */
export interface AgentApiRequestSample {
  /** The swagger operation id (`v2RegisterHost`, …), or `unknown`. */
  readonly operation: string;
  /** The HTTP status sent. */
  readonly status: number;
  readonly durationMs: number;
}

/**
 * Where the assisted gauges read, at each scrape: the status of every host and cluster this
 * process holds records of. A replica that does not act holds none (its records are rebuilt
 * when it starts acting), so its gauges have no series and sums over replicas stay right.
 */
export interface AssistedStatusSource {
  hostStatuses(): Iterable<string>;
  clusterStatuses(): Iterable<string>;
  /** Statuses reported as 0 when no host has them, so that series do not come and go. */
  readonly knownHostStatuses?: readonly string[];
  readonly knownClusterStatuses?: readonly string[];
  /** Whether the records are current (this replica acts); false reports no series. */
  active(): boolean;
}

/** How a reconcile pass ended (the `result` label). */
export type ReconcileOutcome = 'success' | 'requeue_after' | 'error' | 'conflict' | 'aborted';

/** Every metric the runtime keeps. */
export class RuntimeMetrics implements RedfishMetrics {
  readonly registry = new Registry();
  private readonly depth: Gauge<'controller'>;
  private readonly reconciles: Counter<'controller' | 'result'>;
  private readonly errors: Counter<'controller'>;
  private readonly duration: Histogram<'controller'>;
  private readonly restarts: Counter<'kind' | 'reason'>;
  private readonly requests: Counter<'verb' | 'code'>;
  private readonly requestSeconds: Histogram<'verb'>;
  private readonly redfish: Counter<'vendor' | 'outcome'>;
  private readonly leader: Gauge;
  private readonly agentRequests: Counter<'operation' | 'code'>;
  private readonly agentDuration: Histogram<'operation'>;
  private assisted: AssistedStatusSource | undefined;

  constructor() {
    const registers = [this.registry];
    this.depth = new Gauge({
      name: 'siteforge_workqueue_depth',
      help: 'Keys waiting for a worker, per controller.',
      labelNames: ['controller'],
      registers,
    });
    this.reconciles = new Counter({
      name: 'siteforge_reconcile_total',
      help: 'Reconcile passes, per controller and result.',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.errors = new Counter({
      name: 'siteforge_reconcile_errors_total',
      help: 'Reconcile passes that failed (conflicts excluded), per controller.',
      labelNames: ['controller'],
      registers,
    });
    this.duration = new Histogram({
      name: 'siteforge_reconcile_duration_seconds',
      help: 'Time of one reconcile pass, per controller.',
      labelNames: ['controller'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.restarts = new Counter({
      name: 'siteforge_informer_restarts_total',
      help: 'Watches restarted after they broke, per kind and reason (error, gone, closed).',
      labelNames: ['kind', 'reason'],
      registers,
    });
    this.requests = new Counter({
      name: 'siteforge_api_requests_total',
      help: 'Requests to the Kubernetes API server, per verb, resource and HTTP status (or unreachable).',
      labelNames: ['verb', 'resource', 'code'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'siteforge_api_request_duration_seconds',
      help: 'Time from sending a request to the Kubernetes API server to its answer, per verb.',
      labelNames: ['verb'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.redfish = new Counter({
      name: 'siteforge_redfish_calls_total',
      help: 'Calls to BMCs over Redfish, per vendor and outcome.',
      labelNames: ['vendor', 'outcome'],
      registers,
    });
    this.leader = new Gauge({
      name: 'siteforge_leader',
      help: '1 while this process holds the leader lease, else 0.',
      registers,
    });
    this.agentRequests = new Counter({
      name: 'siteforge_agent_api_requests_total',
      help: 'Requests the assisted agent API answered, per swagger operation and HTTP status.',
      labelNames: ['operation', 'code'],
      registers,
    });
    this.agentDuration = new Histogram({
      name: 'siteforge_agent_api_request_duration_seconds',
      help: 'Time to answer one assisted agent API request, per swagger operation.',
      labelNames: ['operation'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    // Counted when scraped: one pass over the records (3,500 hosts take well under a ms).
    const hosts = new Gauge<'status'>({
      name: 'siteforge_assisted_hosts',
      help: 'Hosts of the assisted core, per status (on the acting replica only).',
      labelNames: ['status'],
      registers,
      collect: () => {
        const source = this.assisted;
        const statuses = source?.active() ? source.hostStatuses() : undefined;
        countInto(hosts, statuses, source?.knownHostStatuses);
      },
    });
    const clusters = new Gauge<'status'>({
      name: 'siteforge_assisted_clusters',
      help: 'Clusters of the assisted core, per status (on the acting replica only).',
      labelNames: ['status'],
      registers,
      collect: () => {
        const source = this.assisted;
        const statuses = source?.active() ? source.clusterStatuses() : undefined;
        countInto(clusters, statuses, source?.knownClusterStatuses);
      },
    });
  }

  /** Sets the work queue depth of `controller`. */
  queueDepth(controller: string, depth: number): void {
    this.depth.set({ controller }, depth);
  }

  /** Records one reconcile pass. */
  reconcile(controller: string, outcome: ReconcileOutcome, seconds: number): void {
    this.reconciles.inc({ controller, result: outcome });
    if (outcome === 'error') this.errors.inc({ controller });
    this.duration.observe({ controller }, seconds);
  }

  /** Counts one informer restart. */
  informerRestart(kind: string, reason: string): void {
    this.restarts.inc({ kind, reason });
  }

  /** Counts one API request (a RequestObserver). */
  apiRequest(
    verb: RequestVerb,
    status: number | 'unreachable',
    resource?: string,
    seconds?: number,
  ): void {
    this.requests.inc({ verb, code: String(status), ...(resource !== undefined && { resource }) });
    if (seconds !== undefined) this.requestSeconds.observe({ verb }, seconds);
  }

  redfishCall(vendor: string, outcome: string): void {
    this.redfish.inc({ vendor, outcome });
  }

  /** Records whether this process leads. */
  leading(leader: boolean): void {
    this.leader.set(leader ? 1 : 0);
  }

  /** Records one answered agent API request. */
  agentApiRequest(sample: AgentApiRequestSample): void {
    const { operation } = sample;
    this.agentRequests.inc({ operation, code: String(sample.status) });
    this.agentDuration.observe({ operation }, sample.durationMs / 1000);
  }

  /** Makes the assisted gauges read `source` at each scrape (one source; the last one wins). */
  assistedStatuses(source: AssistedStatusSource): void {
    this.assisted = source;
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The Content-Type of `text()`. */
  get contentType(): string {
    return this.registry.contentType;
  }
}

/**
 * Sets `gauge` to the count of each status (known ones at least 0), dropping the series of
 * statuses gone; no series at all when there are no current records (`statuses` undefined).
 */
function countInto(
  gauge: Gauge<'status'>,
  statuses: Iterable<string> | undefined,
  known: readonly string[] | undefined,
): void {
  gauge.reset();
  if (statuses === undefined) return;
  const counts = new Map<string, number>((known ?? []).map((status) => [status, 0]));
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  for (const [status, count] of counts) gauge.set({ status }, count);
}
