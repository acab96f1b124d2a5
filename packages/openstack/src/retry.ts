// When to try an OpenStack request again, and after how long. Pure: the session and the Nova
// client ask; tests check the numbers. No jitter, so behaviour is reproducible; the
// controller already spreads load because each remediation has its own schedule.

import { backoffDelay as exponentialBackoff } from '@noderepair/core/runtime';

// Retry-After is read the same way by every client of the packages: core's.
export { parseRetryAfter } from '@noderepair/core/runtime';

/**
 * When and how long the session waits before sending a request again; all durations in
 * milliseconds.
 */
export interface RetryPolicy {
  /** Attempts in total for 5xx replies, timeouts and connection errors. */
  readonly maxAttempts: number;
  /** First backoff; doubles on every further failure. */
  readonly baseDelayMs: number;
  /** Upper bound for any single wait, Retry-After included. */
  readonly maxDelayMs: number;
  /** Attempts in total when Nova answers 409 (server busy with another task). */
  readonly conflictAttempts: number;
  /** Wait between 409 retries: Nova's tasks (a reboot, a stop) take seconds. */
  readonly conflictDelayMs: number;
  /** Per-request timeout. */
  readonly timeoutMs: number;
}

/**
 * The policy used unless SessionOptions.retry overrides fields: 5 attempts from 500 ms doubling up
 * to 30 s, 6 attempts 5 s apart on 409, 30 s per request.
 */
export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  conflictAttempts: 6,
  conflictDelayMs: 5_000,
  timeoutMs: 30_000,
};

/** Backoff after the given failed attempt (1-based); the server's Retry-After is honoured up to maxDelayMs. */
export function backoffDelay(p: RetryPolicy, failedAttempt: number, retryAfterMs?: number): number {
  // core's one backoff with this policy's numbers (base doubling to max, no jitter); only the
  // Retry-After rule is the session's own.
  const exp = exponentialBackoff(
    { initialMs: p.baseDelayMs, maxMs: p.maxDelayMs, factor: 2, jitter: 0 },
    failedAttempt - 1,
  );
  return Math.min(p.maxDelayMs, Math.max(exp, retryAfterMs ?? 0));
}

/** Status codes that mean "the service is (temporarily) not able to answer". */
export function isRetriableStatus(status: number): boolean {
  return status === 500 || status === 502 || status === 503 || status === 504;
}
