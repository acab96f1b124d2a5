// The pure part of Lease-based leader election (client-go leaderelection): given the Lease
// as last read and when *we* first saw that version of it, decide what to do. Expiry is
// judged on our own clock from when we observed the record change, never on the remote
// renewTime, so clock skew between candidates cannot make a live leader look expired.
import type { KubeLease } from '../../kube/types.js';

/**
 * What a candidate should do with the Lease as last read: create it, renew its own, take it over,
 * or wait for it to expire.
 */
export type LeaseAction =
  | { action: 'create' }
  | { action: 'renew' }
  | { action: 'take'; transitions: number }
  | { action: 'wait'; holder: string; expiresInMs: number };

/** Leader-election timings in milliseconds; see validateLeaseTimings for the constraints. */
export interface LeaseTimings {
  /** How long a holder's last renewal keeps others from taking the Lease. */
  leaseDurationMs: number;
  /**
   * How long a leader keeps trying to renew before it gives up the term; less than the lease
   * duration.
   */
  renewDeadlineMs: number;
  /** Interval between acquire or renew attempts. */
  retryPeriodMs: number;
}

/** client-go's defaults: 15 s lease, 10 s renew deadline, 2 s retry period. */
export const DEFAULT_LEASE_TIMINGS: LeaseTimings = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/**
 * Returns the timings if leaseDuration exceeds renewDeadline, renewDeadline exceeds 1.2 times
 * retryPeriod and retryPeriod is positive; otherwise throws a RangeError.
 */
export function validateLeaseTimings(t: LeaseTimings): LeaseTimings {
  if (!(t.leaseDurationMs > t.renewDeadlineMs))
    throw new RangeError(
      `leader election: leaseDuration (${t.leaseDurationMs} ms) must be greater than renewDeadline (${t.renewDeadlineMs} ms)`,
    );
  if (!(t.renewDeadlineMs > t.retryPeriodMs * 1.2))
    throw new RangeError(
      `leader election: renewDeadline (${t.renewDeadlineMs} ms) must exceed 1.2 x retryPeriod (${t.retryPeriodMs} ms)`,
    );
  if (!(t.retryPeriodMs > 0)) throw new RangeError('leader election: retryPeriod must be positive');
  return t;
}

/** A fingerprint of the fields that change when a holder renews or a new one takes over. */
export function leaseFingerprint(lease: KubeLease | undefined): string {
  const s = lease?.spec ?? {};
  return JSON.stringify([
    s.holderIdentity ?? '',
    s.renewTime ?? '',
    s.acquireTime ?? '',
    s.leaseDurationSeconds ?? 0,
    s.leaseTransitions ?? 0,
  ]);
}

/**
 * Decides the next step from the Lease as last read. Expiry is judged on our own clock from when we
 * first saw this version of the Lease (observedAtMs), never from its renewTime, so clock skew
 * cannot make a live leader look expired.
 */
export function decideLease(
  lease: KubeLease | undefined,
  identity: string,
  observedAtMs: number,
  nowMs: number,
  defaultDurationMs: number,
): LeaseAction {
  if (!lease) return { action: 'create' };
  const spec = lease.spec ?? {};
  const holder = spec.holderIdentity ?? '';
  const transitions = spec.leaseTransitions ?? 0;
  if (holder === identity) return { action: 'renew' };
  if (holder === '') return { action: 'take', transitions: transitions + 1 };
  const durationMs = spec.leaseDurationSeconds
    ? spec.leaseDurationSeconds * 1000
    : defaultDurationMs;
  const expiresInMs = observedAtMs + durationMs - nowMs;
  if (expiresInMs <= 0) return { action: 'take', transitions: transitions + 1 };
  return { action: 'wait', holder, expiresInMs };
}
