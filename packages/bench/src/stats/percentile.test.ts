import { describe, expect, it } from 'vitest';
import { percentile, summarize } from './percentile.js';

describe('percentile (nearest rank)', () => {
  it('picks measured values, never interpolates', () => {
    const s = [15, 20, 35, 40, 50];
    expect(percentile(s, 30)).toBe(20);
    expect(percentile(s, 40)).toBe(20);
    expect(percentile(s, 50)).toBe(35);
    expect(percentile(s, 100)).toBe(50);
  });

  it('p99 of 100 samples is the 99th smallest; of 10 samples the maximum', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted input
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile([5, 1, 9, 3, 7, 2, 8, 4, 6, 10], 99)).toBe(10);
  });

  it('does not reorder the caller’s array', () => {
    const s = [3, 1, 2];
    percentile(s, 50);
    expect(s).toEqual([3, 1, 2]);
  });

  it('is undefined for no samples and refuses bad input with a clear message', () => {
    expect(percentile([], 50)).toBeUndefined();
    expect(() => percentile([1], 0)).toThrow(/p must be in \(0, 100\], got 0/);
    expect(() => percentile([1], 101)).toThrow(/got 101/);
    expect(() => percentile([1, Number.NaN], 50)).toThrow(/finite numbers, got NaN/);
  });

  it('handles negative delays (an action before its deadline)', () => {
    expect(percentile([-5, 10, 20], 50)).toBe(10);
    expect(summarize([-5, 10, 20])).toEqual({ count: 3, min: -5, p50: 10, p99: 20, max: 20 });
  });

  it('summarizes an empty list as count 0 only', () => {
    expect(summarize([])).toEqual({ count: 0 });
  });
});
