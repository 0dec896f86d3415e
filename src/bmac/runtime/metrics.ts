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
  private readonly redfish: Counter<'vendor' | 'outcome'>;
  private readonly leader: Gauge;

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
  apiRequest(verb: RequestVerb, status: number | 'unreachable', resource?: string): void {
    this.requests.inc({ verb, code: String(status), ...(resource !== undefined && { resource }) });
  }

  redfishCall(vendor: string, outcome: string): void {
    this.redfish.inc({ vendor, outcome });
  }

  /** Records whether this process leads. */
  leading(leader: boolean): void {
    this.leader.set(leader ? 1 : 0);
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
