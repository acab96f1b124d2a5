import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ManualClock } from '../clock.js';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialRateLimiter,
  MaxOfRateLimiter,
} from './rate-limiter.js';

describe('ItemExponentialRateLimiter', () => {
  it('doubles per item from 5 ms and caps at 1000 s', () => {
    const l = new ItemExponentialRateLimiter();
    expect([1, 2, 3, 4].map(() => l.when('a'))).toEqual([5, 10, 20, 40]);
    expect(l.when('b')).toBe(5);
    expect(l.numRequeues('a')).toBe(4);
    for (let i = 0; i < 2000; i++) l.when('a');
    expect(l.when('a')).toBe(1_000_000);
    l.forget('a');
    expect(l.numRequeues('a')).toBe(0);
    expect(l.when('a')).toBe(5);
  });

  it('is monotone and bounded for any failure count', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3000 }), (n) => {
        const l = new ItemExponentialRateLimiter();
        let prev = 0;
        for (let i = 0; i < n; i++) {
          const d = l.when('x');
          if (d < prev || d > 1_000_000 || !Number.isFinite(d)) return false;
          prev = d;
        }
        return true;
      }),
    );
  });
});

describe('BucketRateLimiter', () => {
  it('allows a burst of 100 then spaces items 100 ms apart at 10 qps', () => {
    const clock = new ManualClock();
    const l = new BucketRateLimiter(10, 100, clock);
    for (let i = 0; i < 100; i++) expect(l.when(`k${i}`)).toBe(0);
    expect(l.when('x')).toBeCloseTo(100);
    expect(l.when('y')).toBeCloseTo(200);
    clock.advance(1000); // refills 10 tokens, 2 already owed
    expect(l.when('z')).toBe(0);
  });

  it('rejects nonsense parameters with a clear message', () => {
    expect(() => new BucketRateLimiter(0, 1)).toThrow(/qps must be > 0/);
  });
});

describe('MaxOfRateLimiter', () => {
  it('takes the slower answer and forgets in all', () => {
    const clock = new ManualClock();
    const l = new MaxOfRateLimiter(
      new ItemExponentialRateLimiter<string>(5, 1000),
      new BucketRateLimiter<string>(10, 1, clock),
    );
    expect(l.when('a')).toBe(5); // bucket has 1 token
    expect(l.when('a')).toBeCloseTo(100); // bucket owes a token; exponential says 10
    expect(l.numRequeues('a')).toBe(2);
    l.forget('a');
    expect(l.numRequeues('a')).toBe(0);
  });

  it('default limiter starts at 5 ms per item', () => {
    expect(defaultControllerRateLimiter(new ManualClock()).when('a')).toBe(5);
  });
});
