// How long in-flight work may still run after a lost Lease before the manager ends the process.
// The elector's leaseExpiresAtMs is the earliest instant a successor could hold the Lease (our
// last renewal's send time plus leaseDuration). A timer set for that instant fires AT it at
// best, and later on a loaded machine: a CI rehearsal with one core burnt saw the exit land on
// the expiry's very millisecond. The exit is therefore due a margin earlier: a quarter of the
// time a term leaves between renewDeadline and leaseDuration, at most 2 s (1.25 s with the
// defaults 15 s / 10 s; 250 ms with the test timings 4 s / 3 s).
import { DEFAULT_LEASE_TIMINGS, type LeaseTimings } from '../leader/lease-decision.js';

export const MAX_TAKEOVER_MARGIN_MS = 2000;

/** The margin before the Lease's expiry by which work must have stopped (or the process exits). */
export function takeoverMarginMs(timings: Partial<LeaseTimings>): number {
  const t = { ...DEFAULT_LEASE_TIMINGS, ...timings };
  return Math.min(MAX_TAKEOVER_MARGIN_MS, (t.leaseDurationMs - t.renewDeadlineMs) / 4);
}

/** How long, from `nowMs`, the stopping work may still take: never negative. */
export function stopBudgetMs(
  leaseExpiresAtMs: number,
  nowMs: number,
  timings: Partial<LeaseTimings>,
): number {
  return Math.max(0, leaseExpiresAtMs - takeoverMarginMs(timings) - nowMs);
}
