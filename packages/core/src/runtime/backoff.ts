// Exponential backoff with jitter (client-go wait.Backoff semantics): a pure step function
// plus a small stateful wrapper that resets after a quiet period of success.
// The one backoff of all packages: the watch reflector, the work queue's per-item limiter,
// the provider-unavailable wait, drain eviction retries and the OpenStack session's retries
// each pass their own numbers; only this function computes a delay from them.

/**
 * Exponential backoff with jitter (client-go wait.Backoff semantics); all times in milliseconds.
 */
export interface BackoffPolicy {
  /** Delay after the first failure. */
  initialMs: number;
  /** Cap on every delay, jitter included. */
  maxMs: number;
  /** Multiplier from one failure's delay to the next. */
  factor: number;
  /** 0 = none; 1.0 = each delay is uniformly in [d, 2d) before the cap. */
  jitter: number;
}

/** client-go reflector defaults: 800 ms doubling to 30 s, jitter 1.0. */
export const DEFAULT_WATCH_BACKOFF: BackoffPolicy = {
  initialMs: 800,
  maxMs: 30_000,
  factor: 2,
  jitter: 1,
};

/**
 * Delay for the n-th consecutive failure (n >= 0): initialMs * factor^n, jittered, capped at
 * maxMs. random in [0,1) is injected (pure); without it no jitter is added.
 */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random = 0): number {
  const base = Math.min(policy.maxMs, policy.initialMs * policy.factor ** Math.max(0, attempt));
  const jittered = base + base * policy.jitter * random;
  return Math.min(policy.maxMs, jittered);
}

/**
 * Stateful exponential backoff: each next() is one more consecutive failure; reset() after a
 * success.
 */
export class Backoff {
  private attempt = 0;
  constructor(
    private readonly policy: BackoffPolicy = DEFAULT_WATCH_BACKOFF,
    private readonly random: () => number = Math.random,
  ) {}
  /** Delay in milliseconds for one more consecutive failure. */
  next(): number {
    return backoffDelay(this.policy, this.attempt++, this.random());
  }
  /** Starts over at the initial delay (after a success). */
  reset(): void {
    this.attempt = 0;
  }
  /** Consecutive failures since the last reset. */
  get failures(): number {
    return this.attempt;
  }
}

/** Retry-After: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number,
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
