import { describe, expect, it } from 'vitest';
import { decideLease, leaseFingerprint, validateLeaseTimings } from './lease-decision.js';

const lease = (holder: string | null, transitions = 2, durationS = 15) => ({
  metadata: { name: 'l', namespace: 'n', resourceVersion: '1' },
  spec: {
    holderIdentity: holder,
    leaseDurationSeconds: durationS,
    renewTime: '2026-01-01T00:00:00.000000Z',
    leaseTransitions: transitions,
  },
});

describe('decideLease', () => {
  it('creates a missing lease, renews our own, takes an empty one', () => {
    expect(decideLease(undefined, 'me', 0, 0, 15_000)).toEqual({ action: 'create' });
    expect(decideLease(lease('me'), 'me', 0, 100_000, 15_000)).toEqual({ action: 'renew' });
    expect(decideLease(lease(''), 'me', 0, 0, 15_000)).toEqual({ action: 'take', transitions: 3 });
    expect(decideLease(lease(null), 'me', 0, 0, 15_000)).toEqual({
      action: 'take',
      transitions: 3,
    });
  });

  it("waits for another holder's lease to expire on our own clock", () => {
    expect(decideLease(lease('other'), 'me', 1000, 15_999, 15_000)).toEqual({
      action: 'wait',
      holder: 'other',
      expiresInMs: 1,
    });
    expect(decideLease(lease('other'), 'me', 1000, 16_000, 15_000)).toEqual({
      action: 'take',
      transitions: 3,
    });
    expect(decideLease(lease('other', 0, 1), 'me', 1000, 2000, 15_000)).toEqual({
      action: 'take',
      transitions: 1,
    });
  });

  it('fingerprints change on renew', () => {
    const a = lease('x');
    const b = { ...a, spec: { ...a.spec, renewTime: '2026-01-01T00:00:02.000000Z' } };
    expect(leaseFingerprint(a)).not.toBe(leaseFingerprint(b));
  });

  it('validates timings like client-go', () => {
    expect(
      validateLeaseTimings({
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
      }),
    ).toBeTruthy();
    expect(() =>
      validateLeaseTimings({
        leaseDurationMs: 10_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
      }),
    ).toThrow(/must be greater than renewDeadline/);
    expect(() =>
      validateLeaseTimings({
        leaseDurationMs: 15_000,
        renewDeadlineMs: 2_000,
        retryPeriodMs: 2_000,
      }),
    ).toThrow(/1.2 x retryPeriod/);
  });
});
