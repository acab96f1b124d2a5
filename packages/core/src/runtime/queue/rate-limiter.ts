// Work-queue rate limiters, as in client-go's workqueue: when(item) says how long to wait
// before the item may be processed again; forget(item) ends its failure streak.
import { backoffDelay } from '../backoff.js';
import { systemClock, type Clock } from '../clock.js';

/**
 * Decides how long an item waits before it may be processed again (client-go workqueue semantics).
 */
export interface RateLimiter<K = string> {
  /** Records one more requeue of the item and returns its delay in milliseconds. */
  when(item: K): number;
  /**
   * Ends the item's failure streak (after a success), so its next delay starts from the base again.
   */
  forget(item: K): void;
  /** How many times the item was requeued since it was last forgotten. */
  numRequeues(item: K): number;
}

/** base * 2^failures, capped: 5 ms, 10 ms, 20 ms ... 1000 s by default. */
export class ItemExponentialRateLimiter<K = string> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();
  constructor(
    /** Delay in milliseconds after an item's first failure; doubles with each further failure. */
    readonly baseMs = 5,
    /** Upper bound of the delay in milliseconds. */
    readonly maxMs = 1_000_000,
  ) {}
  /** Delay for this failure: `baseMs * 2^failures`, at most `maxMs` milliseconds. */
  when(item: K): number {
    const n = this.failures.get(item) ?? 0;
    this.failures.set(item, n + 1);
    // 2^n overflows to Infinity past n=1023; the cap keeps it finite.
    return backoffDelay({ initialMs: this.baseMs, maxMs: this.maxMs, factor: 2, jitter: 0 }, n);
  }
  /** Resets the item's failure count. */
  forget(item: K): void {
    this.failures.delete(item);
  }
  /** Failures of the item since it was last forgotten. */
  numRequeues(item: K): number {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * Overall token bucket (golang.org/x/time/rate semantics): each when() reserves one token;
 * once the burst is spent, reservations queue up at 1/qps intervals. Not per item.
 */
export class BucketRateLimiter<K = string> implements RateLimiter<K> {
  private tokens: number;
  private last: number;
  constructor(
    /** Tokens added per second once the burst is spent; must be positive. */
    readonly qps = 10,
    /** Size of the bucket: how many items pass without delay; at least 1. */
    readonly burst = 100,
    private readonly clock: Clock = systemClock,
  ) {
    if (!(qps > 0) || !(burst >= 1))
      throw new RangeError(
        `BucketRateLimiter: qps must be > 0 and burst >= 1 (got ${qps}, ${burst})`,
      );
    this.tokens = burst;
    this.last = clock.now();
  }
  /**
   * Reserves one token and returns the wait in milliseconds until it is available (0 while the
   * burst lasts).
   */
  when(_item: K): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }
  /** No-op: the bucket has no per-item state. */
  forget(_item: K): void {}
  /** Always 0: the bucket does not count per item. */
  numRequeues(_item: K): number {
    return 0;
  }
}

/** The slowest of several limiters wins (client-go MaxOfRateLimiter). */
export class MaxOfRateLimiter<K = string> implements RateLimiter<K> {
  private readonly limiters: RateLimiter<K>[];
  constructor(...limiters: RateLimiter<K>[]) {
    if (limiters.length === 0) throw new RangeError('MaxOfRateLimiter needs at least one limiter');
    this.limiters = limiters;
  }
  /** Asks every limiter (each records the requeue) and returns the longest delay. */
  when(item: K): number {
    // Every limiter must see the event (to count failures/spend tokens), not just the max.
    return this.limiters.map((l) => l.when(item)).reduce((a, b) => Math.max(a, b));
  }
  /** Forgets the item in every limiter. */
  forget(item: K): void {
    for (const l of this.limiters) l.forget(item);
  }
  /** The largest requeue count any limiter reports. */
  numRequeues(item: K): number {
    return this.limiters.map((l) => l.numRequeues(item)).reduce((a, b) => Math.max(a, b));
  }
}

/** controller-runtime's default: per-item exponential 5 ms..1000 s, max-of bucket 10 qps / 100. */
export function defaultControllerRateLimiter<K = string>(
  clock: Clock = systemClock,
): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ItemExponentialRateLimiter<K>(5, 1_000_000),
    new BucketRateLimiter<K>(10, 100, clock),
  );
}
