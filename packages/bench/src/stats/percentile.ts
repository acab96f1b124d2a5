// Percentiles by the nearest-rank method: the reported value is always one that was
// measured (no interpolation between two delays), which is what a reader of "p99 = 40 ms"
// expects. With 10 samples (1 % of 1,000 nodes) p99 is therefore the maximum.

/** The p-th percentile (0 < p <= 100) of the samples by nearest rank; undefined when empty. */
export function percentile(samples: readonly number[], p: number): number | undefined {
  if (!(p > 0 && p <= 100)) throw new Error(`percentile: p must be in (0, 100], got ${p}`);
  if (samples.length === 0) return undefined;
  for (const s of samples) {
    if (!Number.isFinite(s))
      throw new Error(`percentile: samples must be finite numbers, got ${s}`);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(0, rank - 1)];
}

export interface Summary {
  count: number;
  min?: number;
  p50?: number;
  p99?: number;
  max?: number;
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) return { count: 0 };
  return {
    count: samples.length,
    min: Math.min(...samples),
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: Math.max(...samples),
  };
}
