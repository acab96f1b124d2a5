// The one Clock: sleep resolves after its time, and an abort rejects it with the signal's
// reason and cancels its timer (a stray timer keeps a stopping process alive and fires late).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, systemClock } from './clock.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('systemClock.sleep', () => {
  it('resolves after ms and not before', async () => {
    vi.useFakeTimers();
    let done = false;
    const p = systemClock.sleep(1000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an abort rejects with the reason and leaves no timer', async () => {
    vi.useFakeTimers();
    const ac = new AbortController();
    const p = systemClock.sleep(60_000, ac.signal);
    expect(vi.getTimerCount()).toBe(1);
    ac.abort(new Error('lost the lease'));
    await expect(p).rejects.toThrow('lost the lease');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an already aborted signal rejects at once (an AbortError for a non-Error reason), no timer', async () => {
    vi.useFakeTimers();
    const ac = new AbortController();
    ac.abort('stop');
    await expect(systemClock.sleep(10, ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('ManualClock', () => {
  it('sleep waits for advance; an abort rejects and cancels the timer', async () => {
    const c = new ManualClock(100);
    let done = false;
    const p = c.sleep(50).then(() => (done = true));
    c.advance(49);
    await Promise.resolve();
    expect(done).toBe(false);
    c.advance(1);
    await p;
    expect(c.now()).toBe(150);

    const ac = new AbortController();
    const q = c.sleep(1000, ac.signal);
    expect(c.pending).toBe(1);
    ac.abort(new Error('stop'));
    await expect(q).rejects.toThrow('stop');
    expect(c.pending).toBe(0);
    expect(c.slept).toEqual([50, 1000]);
  });

  it('sleepAdvances: sleep moves time at once and fires the timers that fall due', async () => {
    const c = new ManualClock(0, { sleepAdvances: true });
    const fired: number[] = [];
    c.setTimeout(() => fired.push(c.now()), 300);
    c.setTimeout(() => fired.push(c.now()), 2000);
    await c.sleep(500);
    expect(c.now()).toBe(500);
    expect(fired).toEqual([300]);
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await expect(c.sleep(5000, ac.signal)).rejects.toThrow('stop');
    expect(c.now()).toBe(500); // an aborted sleep does not move time
    expect(c.slept).toEqual([500, 5000]);
  });

  it('setTime: forward fires due timers, backward (a wall-clock step) fires none', () => {
    const c = new ManualClock(1000);
    const fired: number[] = [];
    c.setTimeout(() => fired.push(c.now()), 100);
    c.setTime(900);
    expect(c.now()).toBe(900);
    expect(fired).toEqual([]);
    c.setTime(1200);
    expect(fired).toEqual([1100]);
    expect(c.now()).toBe(1200);
  });
});
