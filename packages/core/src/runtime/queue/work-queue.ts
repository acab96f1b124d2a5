// A rate-limited work queue with client-go semantics:
//  - an item waiting in the queue is stored once however often it is added (dedupe);
//  - an item being processed is never handed out again until done() (per-key serialisation);
//  - an item added while being processed is re-queued on done() (dirty-while-processing);
//  - addAfter / addRateLimited delay an add; forget ends a failure streak;
//  - shutdown wakes idle getters, shutdownWithDrain also waits for in-flight items, and a
//    shutdown during that wait ends it (client-go's ShutDown after ShutDownWithDrain).
import { systemClock, type CancelTimer, type Clock } from '../clock.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';

/** Observability hooks (the manager wires them to Prometheus). Times are in ms. */
export interface WorkQueueMetrics<K = string> {
  /** Called with the number of items waiting after each change. */
  depth?(depth: number): void;
  /** Called when an item not yet waiting is added (duplicates are not counted). */
  added?(item: K): void;
  /** how long the item waited in the queue before a worker took it. */
  latency?(item: K, waitedMs: number): void;
  /** how long the worker held it. */
  workDuration?(item: K, workMs: number): void;
  /** Called when an item is re-added through the rate limiter (a failure or requeue). */
  retry?(item: K): void;
}

/** Options of a WorkQueue; all optional. */
export interface WorkQueueOptions<K = string> {
  /** Name for metrics and logs; default `queue`. */
  name?: string;
  /** Time source of delayed adds; default the system clock. */
  clock?: Clock;
  /**
   * Delays of addRateLimited; default the controller-runtime limiter (exponential per item, 10 qps
   * overall).
   */
  rateLimiter?: RateLimiter<K>;
  /** Observability hooks; none by default. */
  metrics?: WorkQueueMetrics<K>;
}

/**
 * A rate-limited work queue with client-go semantics: an item waits at most once however often it
 * is added, and is never handed out again while a worker holds it.
 */
export class WorkQueue<K = string> {
  /** Queue name, from the options. */
  readonly name: string;
  private readonly clock: Clock;
  private readonly limiter: RateLimiter<K>;
  private readonly metrics: WorkQueueMetrics<K>;
  private items: K[] = [];
  private head = 0;
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly enqueuedAt = new Map<K, number>();
  private readonly startedAt = new Map<K, number>();
  private readonly waiting = new Map<K, { at: number; cancel: CancelTimer }>();
  private getters: ((item: K | undefined) => void)[] = [];
  private drained: (() => void)[] = [];
  private down = false;

  constructor(opts: WorkQueueOptions<K> = {}) {
    this.name = opts.name ?? 'queue';
    this.clock = opts.clock ?? systemClock;
    this.limiter = opts.rateLimiter ?? defaultControllerRateLimiter<K>(this.clock);
    this.metrics = opts.metrics ?? {};
  }

  /** Items waiting to be handed out (not counting in-flight or delayed ones). */
  len(): number {
    return this.items.length - this.head;
  }

  /** True once shutdown() was called; adds are ignored from then on. */
  get shuttingDown(): boolean {
    return this.down;
  }

  /**
   * Queues the item unless it is already waiting; an item being processed is queued again when
   * done() is called for it. Ignored after shutdown.
   */
  add(item: K): void {
    if (this.down || this.dirty.has(item)) return;
    this.metrics.added?.(item);
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.push(item);
  }

  private push(item: K): void {
    this.enqueuedAt.set(item, this.clock.now());
    const getter = this.getters.shift();
    if (getter) {
      this.take(item);
      getter(item);
      return;
    }
    this.items.push(item);
    this.metrics.depth?.(this.len());
  }

  /** Adds the item after ms; of several pending delays for one item the earliest wins. */
  addAfter(item: K, ms: number): void {
    if (this.down) return;
    if (!(ms > 0)) return this.add(item);
    const at = this.clock.now() + ms;
    const prev = this.waiting.get(item);
    if (prev && prev.at <= at) return;
    prev?.cancel();
    const cancel = this.clock.setTimeout(() => {
      this.waiting.delete(item);
      this.add(item);
    }, ms);
    this.waiting.set(item, { at, cancel });
  }

  /** Re-adds after the rate limiter's delay: the path for failed items. */
  addRateLimited(item: K): void {
    if (this.down) return;
    this.metrics.retry?.(item);
    this.addAfter(item, this.limiter.when(item));
  }

  /** Ends the item's failure streak in the rate limiter; call it after a success. */
  forget(item: K): void {
    this.limiter.forget(item);
  }

  /** How many times the item went through addRateLimited since it was last forgotten. */
  numRequeues(item: K): number {
    return this.limiter.numRequeues(item);
  }

  private take(item: K): void {
    this.dirty.delete(item);
    this.processing.add(item);
    const now = this.clock.now();
    this.metrics.latency?.(item, now - (this.enqueuedAt.get(item) ?? now));
    this.enqueuedAt.delete(item);
    this.startedAt.set(item, now);
  }

  /**
   * The next item; waits while the queue is empty. Resolves undefined once the queue is
   * shut down and empty — the signal for a worker to exit.
   */
  get(): Promise<K | undefined> {
    if (this.len() > 0) {
      const item = this.items[this.head] as K;
      this.items[this.head] = undefined as K;
      this.head++;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      this.take(item);
      this.metrics.depth?.(this.len());
      return Promise.resolve(item);
    }
    if (this.down) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Marks the item finished; if it was added meanwhile, it goes back in the queue. */
  done(item: K): void {
    if (!this.processing.delete(item)) return;
    const started = this.startedAt.get(item);
    this.startedAt.delete(item);
    if (started !== undefined) this.metrics.workDuration?.(item, this.clock.now() - started);
    if (this.dirty.has(item)) this.push(item);
    if (this.processing.size === 0) for (const d of this.drained.splice(0)) d();
  }

  /**
   * Stops accepting items, drops pending delays, and releases idle getters. Also ends the wait of
   * every shutdownWithDrain() in progress, at once, whatever is still in flight: client-go's
   * ShutDown() sets drain = false and wakes ShutDownWithDrain(), which then returns without
   * waiting ("safe to call ShutDown after having called ShutDownWithDrain, as to force the queue
   * shut down to terminate immediately"), so a second SIGTERM is not held by a stuck worker.
   */
  shutdown(): void {
    for (const d of this.drained.splice(0)) d();
    this.stop();
  }

  private stop(): void {
    if (this.down) return;
    this.down = true;
    for (const w of this.waiting.values()) w.cancel();
    this.waiting.clear();
    for (const g of this.getters.splice(0)) g(undefined);
  }

  /**
   * Shuts down like shutdown() and waits until every in-flight item is done(), or until shutdown()
   * is called (as client-go's ShutDownWithDrain; a later call waits again).
   */
  shutdownWithDrain(): Promise<void> {
    this.stop();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }
}
