import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ProviderUnavailableBackoff } from '../autorepair/executor.js';
import { Backoff, backoffDelay, DEFAULT_WATCH_BACKOFF, type BackoffPolicy } from './backoff.js';
import { ManualClock, sleep, withTimeout } from './clock.js';

describe('backoff', () => {
  it('doubles from 800 ms, jitter adds up to 100%, capped at 30 s', () => {
    expect(backoffDelay(DEFAULT_WATCH_BACKOFF, 0, 0)).toBe(800);
    expect(backoffDelay(DEFAULT_WATCH_BACKOFF, 1, 0)).toBe(1600);
    expect(backoffDelay(DEFAULT_WATCH_BACKOFF, 1, 0.5)).toBe(2400);
    expect(backoffDelay(DEFAULT_WATCH_BACKOFF, 10, 0.9)).toBe(30_000);
  });

  it('stays within [base, min(max, 2*base)] for any attempt and random', () => {
    fc.assert(
      fc.property(fc.nat(100), fc.double({ min: 0, max: 0.999999, noNaN: true }), (n, r) => {
        const d = backoffDelay(DEFAULT_WATCH_BACKOFF, n, r);
        const base = Math.min(30_000, 800 * 2 ** n);
        return d >= base && d <= Math.min(30_000, 2 * base);
      }),
    );
  });

  const schedule = (p: BackoffPolicy, n: number) =>
    Array.from({ length: n }, (_, i) => backoffDelay(p, i));
  const noJitter = (initialMs: number, maxMs: number, factor = 2): BackoffPolicy => ({
    initialMs,
    maxMs,
    factor,
    jitter: 0,
  });

  it("gives each caller's schedule from its own numbers", () => {
    // The work queue's per-item limiter: 5 ms doubling to 1000 s.
    expect(schedule(noJitter(5, 1_000_000), 4)).toEqual([5, 10, 20, 40]);
    // Drain eviction retries: 1 s doubling to 30 s.
    expect(schedule(noJitter(1000, 30_000), 7)).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
    // The OpenStack session (attempt = failed attempts - 1): 500 ms doubling to 30 s.
    expect(schedule(noJitter(500, 30_000), 8)).toEqual([
      500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
    // An unavailable provider without Retry-After: 5 s doubling to 5 min.
    expect(schedule(ProviderUnavailableBackoff, 8)).toEqual([
      5000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000,
    ]);
    expect(schedule(noJitter(100, 10_000, 3), 5)).toEqual([100, 300, 900, 2700, 8100]);
  });

  it('holds the cap past float overflow and starts at initialMs for attempt <= 0', () => {
    expect(backoffDelay(noJitter(5, 1_000_000), 1024)).toBe(1_000_000);
    expect(backoffDelay(noJitter(5, 1_000_000), 5000)).toBe(1_000_000);
    expect(backoffDelay(noJitter(500, 30_000), -1)).toBe(500);
  });

  it('adds no jitter without a random number, and at most jitter * base with one', () => {
    expect(backoffDelay(DEFAULT_WATCH_BACKOFF, 2)).toBe(3200);
    const half = { ...DEFAULT_WATCH_BACKOFF, jitter: 0.5 };
    fc.assert(
      fc.property(fc.nat(5), fc.double({ min: 0, max: 0.999999, noNaN: true }), (n, r) => {
        const base = 800 * 2 ** n;
        const d = backoffDelay(half, n, r);
        return d >= base && d < base * 1.5;
      }),
    );
  });

  it('Backoff resets its streak', () => {
    const b = new Backoff(DEFAULT_WATCH_BACKOFF, () => 0);
    expect([b.next(), b.next(), b.next()]).toEqual([800, 1600, 3200]);
    b.reset();
    expect(b.next()).toBe(800);
  });
});

describe('ManualClock and sleep', () => {
  it('fires timers in time order and sleep rejects on abort', async () => {
    const c = new ManualClock(1000);
    const order: number[] = [];
    c.setTimeout(() => order.push(2), 20);
    c.setTimeout(() => order.push(1), 10);
    const cancel = c.setTimeout(() => order.push(3), 15);
    cancel();
    c.advance(25);
    expect(order).toEqual([1, 2]);
    expect(c.now()).toBe(1025);
    const ac = new AbortController();
    const p = sleep(c, 100, ac.signal);
    ac.abort();
    await expect(p).rejects.toThrow();
    expect(c.pending).toBe(0);
  });
});

describe('withTimeout', () => {
  it('resolves with the value and cancels its timer, or says timeout', async () => {
    const c = new ManualClock();
    await expect(withTimeout(c, Promise.resolve(7), 100)).resolves.toBe(7);
    expect(c.pending).toBe(0);
    const slow = withTimeout(c, new Promise(() => {}), 100);
    c.advance(100);
    await expect(slow).resolves.toBe('timeout');
  });
});
