// A controller: sources (informers) -> predicates -> mapped keys -> rate-limited queue ->
// N workers calling the Reconciler. Errors requeue with backoff, requeueAfter schedules a
// later look, and every key is reconciled at least every maxResyncInterval.
import type { InformerHandlers } from '../reflector/informer.js';
import { systemClock, type CancelTimer, type Clock } from '../clock.js';
import { errorFields, silentLogger, type RuntimeLogger } from '../logger.js';
import type { RateLimiter } from '../queue/rate-limiter.js';
import { WorkQueue, type WorkQueueMetrics } from '../queue/work-queue.js';
import { requestForObject, requestForOwner, type RequestMapper } from './mappers.js';
import { passes, type Predicate } from './predicates.js';
import { requestFromKey, requestKey, type Reconciler } from './reconciler.js';

/** How one reconcile ended, as the `outcome` label of the reconcile metrics. */
export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after';

/** Hooks through which a controller reports metrics; the Manager passes its RuntimeMetrics. */
export interface ControllerMetrics {
  /** Called after each reconcile with its outcome and duration in seconds. */
  reconciled?(controller: string, outcome: ReconcileOutcome, seconds: number): void;
  /** Metrics hooks for the controller's work queue, by controller name. */
  queue?(controller: string): WorkQueueMetrics<string>;
}

/** Options of a Controller. */
export interface ControllerOptions {
  /** Controller name, for logs, metrics and the queue; required. */
  name: string;
  /** Called for each queued key; a throw requeues the key with backoff. */
  reconcile: Reconciler;
  /** parallel workers; one key is still never reconciled twice at once. Default 1. */
  concurrency?: number;
  /**
   * Backoff of failed and requeued keys; default the controller-runtime limiter (exponential per
   * key, 10 qps overall).
   */
  rateLimiter?: RateLimiter<string>;
  /** every key of the primary informer is re-queued this often (controller-runtime SyncPeriod); 0 = off. */
  maxResyncIntervalMs?: number;
  /** Time source for resyncs and delayed requeues; default the system clock. */
  clock?: Clock;
  /** Logger; each reconcile logs with `controller` and `key` fields. Default silent. */
  logger?: RuntimeLogger;
  /** Metrics hooks; none by default. */
  metrics?: ControllerMetrics;
}

/** What a controller needs from an informer (an Informer satisfies it). */
export interface EventSource<U> {
  /** Registers event handlers; returns a function that removes them. */
  addHandlers(h: InformerHandlers<U>): () => void;
  /** Resolves once the initial list is in the cache; rejects if the signal aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void>;
  /** The objects currently in the cache (used for periodic resyncs). */
  list(): U[];
}

interface Source {
  // The cached type is erased here: mappers and predicates are typed at the call site.
  informer: EventSource<unknown>;
  map: RequestMapper<unknown>;
  predicates: Predicate<unknown>[];
}

/**
 * Reconciles keys from its sources through a rate-limited queue, like a controller-runtime
 * controller: errors requeue with backoff, one key is never reconciled twice at once.
 */
export class Controller {
  /** Controller name, from the options. */
  readonly name: string;
  /** The queue of request keys; exposed for tests and metrics. */
  readonly queue: WorkQueue<string>;
  private readonly sources: Source[] = [];
  private primary: EventSource<unknown> | undefined;
  private readonly clock: Clock;
  private readonly log: RuntimeLogger;
  private started = false;

  constructor(private readonly opts: ControllerOptions) {
    if (!opts.name) throw new TypeError('controller: name is required');
    const concurrency = opts.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new RangeError(
        `controller ${opts.name}: concurrency must be a positive integer (got ${concurrency})`,
      );
    this.name = opts.name;
    this.clock = opts.clock ?? systemClock;
    this.log = (opts.logger ?? silentLogger).child({ controller: opts.name });
    this.queue = new WorkQueue<string>({
      name: opts.name,
      clock: this.clock,
      ...(opts.rateLimiter ? { rateLimiter: opts.rateLimiter } : {}),
      ...(opts.metrics?.queue ? { metrics: opts.metrics.queue(opts.name) } : {}),
    });
  }

  /** The primary resource: each of its objects is reconciled under its own key. */
  for<U>(informer: EventSource<U>, predicates: Predicate<U>[] = []): this {
    this.primary = informer as EventSource<unknown>;
    return this.watch(informer, requestForObject as RequestMapper<U>, predicates);
  }

  /** Objects this controller creates, mapped to their controlling owner of ownerKind. */
  owns<U>(
    informer: EventSource<U>,
    owner: { kind: string; apiGroup?: string; clusterScopedOwner?: boolean },
    predicates: Predicate<U>[] = [],
  ): this {
    return this.watch(informer, requestForOwner(owner) as RequestMapper<U>, predicates);
  }

  /** Any related objects, mapped to keys by the given function. */
  watch<U>(informer: EventSource<U>, map: RequestMapper<U>, predicates: Predicate<U>[] = []): this {
    if (this.started) throw new Error(`controller ${this.name}: add watches before start()`);
    this.sources.push({
      informer: informer as EventSource<unknown>,
      map: map as RequestMapper<unknown>,
      predicates: predicates as Predicate<unknown>[],
    });
    return this;
  }

  private enqueue(map: RequestMapper<unknown>, obj: unknown): void {
    for (const r of map(obj)) this.queue.add(requestKey(r));
  }

  /**
   * Registers handlers, waits for every source to sync, runs workers until the signal
   * aborts, then lets in-flight reconciles finish. Informers must be running (the Manager
   * runs them).
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error(`controller ${this.name} already started`);
    this.started = true;
    const unregister = this.sources.map((s) =>
      s.informer.addHandlers({
        onAdd: (o) => {
          if (passes(s.predicates, { type: 'create', obj: o })) this.enqueue(s.map, o);
        },
        onUpdate: (a, b) => {
          if (!passes(s.predicates, { type: 'update', old: a, obj: b })) return;
          // Both sides: a label change can move an object from one owner/key to another.
          this.enqueue(s.map, a);
          this.enqueue(s.map, b);
        },
        onDelete: (o) => {
          if (passes(s.predicates, { type: 'delete', obj: o })) this.enqueue(s.map, o);
        },
      }),
    );
    let cancelResync: CancelTimer = () => {};
    try {
      await Promise.all(this.sources.map((s) => s.informer.waitForSync(signal)));
      this.log.info({ workers: this.opts.concurrency ?? 1 }, 'caches synced; starting workers');
      const interval = this.opts.maxResyncIntervalMs ?? 0;
      if (interval > 0 && this.primary) {
        const primary = this.primary;
        const tick = () => {
          for (const o of primary.list()) this.enqueue(requestForObject, o);
          cancelResync = this.clock.setTimeout(tick, interval);
        };
        cancelResync = this.clock.setTimeout(tick, interval);
      }
      const stopQueue = () => this.queue.shutdown();
      signal.addEventListener('abort', stopQueue, { once: true });
      const workers = Array.from({ length: this.opts.concurrency ?? 1 }, () => this.worker(signal));
      await Promise.all(workers);
      signal.removeEventListener('abort', stopQueue);
    } catch (e) {
      if (!signal.aborted) throw e;
    } finally {
      cancelResync();
      for (const u of unregister) u();
      this.queue.shutdown();
    }
  }

  private async worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      if (signal.aborted) {
        this.queue.done(key);
        return;
      }
      await this.process(key, signal);
    }
  }

  private async process(key: string, signal: AbortSignal): Promise<void> {
    const req = requestFromKey(key);
    const log = this.log.child({ key });
    const started = this.clock.now();
    let outcome: ReconcileOutcome = 'success';
    try {
      const res = await this.opts.reconcile(req, {
        signal,
        log,
        retries: this.queue.numRequeues(key),
      });
      if (res?.requeueAfter !== undefined && res.requeueAfter > 0) {
        outcome = 'requeue_after';
        this.queue.forget(key);
        this.queue.addAfter(key, res.requeueAfter);
      } else if (res?.requeue) {
        outcome = 'requeue';
        this.queue.addRateLimited(key);
      } else {
        this.queue.forget(key);
      }
    } catch (e) {
      outcome = 'error';
      if (!signal.aborted) {
        log.error(
          { ...errorFields(e), retries: this.queue.numRequeues(key) },
          'reconcile failed; requeueing with backoff',
        );
        this.queue.addRateLimited(key);
      }
    } finally {
      this.queue.done(key);
      this.opts.metrics?.reconciled?.(this.name, outcome, (this.clock.now() - started) / 1000);
    }
  }
}
