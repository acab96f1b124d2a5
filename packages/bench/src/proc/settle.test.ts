import { describe, expect, it } from 'vitest';
import { settledAt, type CpuSample } from './settle.js';

const series = (perSecond: number[]): CpuSample[] => {
  let cpu = 0;
  return [
    { tMs: 0, cpuSeconds: 0 },
    ...perSecond.map((c, i) => ({ tMs: (i + 1) * 1000, cpuSeconds: (cpu += c) })),
  ];
};

describe('settledAt', () => {
  it('is the start of the first quiet window', () => {
    // Busy for 3 s (a full core), then 1 % of a core.
    const s = series([1, 1, 1, 0.01, 0.01, 0.01, 0.01]);
    expect(settledAt(s, 3000, 0.05)).toEqual({ tMs: 3000, cpuSeconds: 3 });
  });

  it('does not settle on a short pause inside the sync', () => {
    const s = series([1, 0, 1, 1, 0, 0, 0, 0]);
    expect(settledAt(s, 3000, 0.05)?.tMs).toBe(4000);
  });

  it('is undefined while the process is still busy or there are too few samples', () => {
    expect(settledAt(series([1, 1, 1, 1]), 3000, 0.05)).toBeUndefined();
    expect(settledAt(series([0]), 3000, 0.05)).toBeUndefined();
  });

  it('accepts steady background work below the threshold', () => {
    const s = series([0.8, 0.04, 0.04, 0.04, 0.04]);
    expect(settledAt(s, 3000, 0.05)?.tMs).toBe(1000);
  });
});
