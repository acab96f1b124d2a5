import { describe, expect, it } from 'vitest';
import { stopBudgetMs, takeoverMarginMs } from './takeover.js';

describe('the stop budget after a lost Lease', () => {
  it('ends a margin BEFORE the earliest takeover, not at it', () => {
    // The test timings of lost-lease.int.test.ts: the term ends 3 s after the last renewal,
    // a successor may hold the Lease 4 s after it; the exit is due 250 ms before that.
    const t = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 };
    expect(takeoverMarginMs(t)).toBe(250);
    expect(stopBudgetMs(10_000, 9_000, t)).toBe(750);
  });

  it('uses the defaults for timings not given, and caps the margin at 2 s', () => {
    expect(takeoverMarginMs({})).toBe(1250); // (15 s - 10 s) / 4
    expect(takeoverMarginMs({ leaseDurationMs: 60_000, renewDeadlineMs: 10_000 })).toBe(2000);
  });

  it('is never negative, however late the term ended', () => {
    expect(stopBudgetMs(10_000, 10_500, {})).toBe(0);
  });
});
