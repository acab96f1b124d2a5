import { describe, expect, it } from 'vitest';
import { backoffDelay, defaultRetryPolicy, isRetriableStatus, parseRetryAfter } from './retry.js';

describe('retry policy', () => {
  it('doubles the delay up to the maximum', () => {
    const p = { ...defaultRetryPolicy, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffDelay(p, a))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('honours a longer Retry-After, capped at the maximum', () => {
    const p = { ...defaultRetryPolicy, baseDelayMs: 100, maxDelayMs: 10_000 };
    expect(backoffDelay(p, 1, 3000)).toBe(3000);
    expect(backoffDelay(p, 1, 60_000)).toBe(10_000);
    expect(backoffDelay(p, 3, 50)).toBe(400);
  });

  it('parses Retry-After seconds and HTTP dates', () => {
    const now = Date.parse('2026-12-02T12:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Wed, 02 Dec 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 02 Dec 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('retries only outage statuses', () => {
    expect([400, 401, 403, 404, 406, 409, 500, 502, 503, 504].filter(isRetriableStatus)).toEqual([
      500, 502, 503, 504,
    ]);
  });
});
