import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Backoff, backoffDelay, DEFAULT_WATCH_BACKOFF } from './backoff.js';
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
