// Prometheus metrics for the runtime, on a Registry of our own (never prom-client's global
// one), named like controller-runtime's so existing dashboards work.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ControllerMetrics, ReconcileOutcome } from '../controller/controller.js';
import type { WorkQueueMetrics } from '../queue/work-queue.js';

/**
 * Prometheus metrics of the runtime on a registry of its own (never prom-client's global one),
 * named like controller-runtime's so existing dashboards work.
 */
export class RuntimeMetrics implements ControllerMetrics {
  /** The registry the probe server exposes at /metrics. */
  readonly registry: Registry;
  private readonly reconcileTotal: Counter<'controller' | 'result'>;
  private readonly reconcileErrors: Counter<'controller'>;
  private readonly reconcileTime: Histogram<'controller'>;
  private readonly queueDepth: Gauge<'name'>;
  private readonly queueAdds: Counter<'name'>;
  private readonly queueLatency: Histogram<'name'>;
  private readonly queueWork: Histogram<'name'>;
  private readonly queueRetries: Counter<'name'>;
  private readonly relists: Counter<'informer'>;
  private readonly watchErrors: Counter<'informer'>;
  private readonly leader: Gauge<'name'>;

  constructor(registry: Registry = new Registry(), opts: { defaultMetrics?: boolean } = {}) {
    this.registry = registry;
    const registers = [registry];
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
    const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
    this.reconcileTotal = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Reconciliations per controller and result',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Reconciliations that threw',
      labelNames: ['controller'],
      registers,
    });
    this.reconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Reconcile duration',
      labelNames: ['controller'],
      buckets,
      registers,
    });
    this.queueDepth = new Gauge({
      name: 'workqueue_depth',
      help: 'Items waiting in the work queue',
      labelNames: ['name'],
      registers,
    });
    this.queueAdds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Adds to the work queue',
      labelNames: ['name'],
      registers,
    });
    this.queueLatency = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'Time an item waits before a worker takes it',
      labelNames: ['name'],
      buckets,
      registers,
    });
    this.queueWork = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'Time a worker holds an item',
      labelNames: ['name'],
      buckets,
      registers,
    });
    this.queueRetries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Rate-limited requeues',
      labelNames: ['name'],
      registers,
    });
    this.relists = new Counter({
      name: 'noderepair_informer_relists_total',
      help: 'Relists after the first list (410 Gone)',
      labelNames: ['informer'],
      registers,
    });
    this.watchErrors = new Counter({
      name: 'noderepair_informer_watch_errors_total',
      help: 'List/watch errors the informer recovered from',
      labelNames: ['informer'],
      registers,
    });
    this.leader = new Gauge({
      name: 'leader_election_master_status',
      help: '1 while this instance leads',
      labelNames: ['name'],
      registers,
    });
  }

  /**
   * Counts a reconcile by outcome (errors also separately) and observes its duration in seconds.
   */
  reconciled(controller: string, outcome: ReconcileOutcome, seconds: number): void {
    this.reconcileTotal.inc({ controller, result: outcome });
    if (outcome === 'error') this.reconcileErrors.inc({ controller });
    this.reconcileTime.observe({ controller }, seconds);
  }

  /** Work-queue hooks feeding the `workqueue_*` metrics labelled with the queue name. */
  queue(name: string): WorkQueueMetrics<string> {
    return {
      depth: (d) => this.queueDepth.set({ name }, d),
      added: () => this.queueAdds.inc({ name }),
      latency: (_i, ms) => this.queueLatency.observe({ name }, ms / 1000),
      workDuration: (_i, ms) => this.queueWork.observe({ name }, ms / 1000),
      retry: () => this.queueRetries.inc({ name }),
    };
  }

  /** Counts a relist of the informer (after 410 Gone). */
  informerRelisted(informer: string): void {
    this.relists.inc({ informer });
  }
  /** Counts a list or watch error the informer recovered from. */
  informerError(informer: string): void {
    this.watchErrors.inc({ informer });
  }
  /** Sets `leader_election_master_status` for the Lease: 1 while leading, else 0. */
  leaderStatus(name: string, leading: boolean): void {
    this.leader.set({ name }, leading ? 1 : 0);
  }
}
