// The pure part of Lease-based leader election (client-go leaderelection): given the Lease
// as last read and when *we* first saw that version of it, decide what to do. Expiry is
// judged on our own clock from when we observed the record change, never on the remote
// renewTime, so clock skew between candidates cannot make a live leader look expired.
import type { KubeLease } from '../../kube/types.js';

export type LeaseAction =
  | { action: 'create' }
  | { action: 'renew' }
  | { action: 'take'; transitions: number }
  | { action: 'wait'; holder: string; expiresInMs: number };

export interface LeaseTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export const DEFAULT_LEASE_TIMINGS: LeaseTimings = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

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
