// When has a freshly started controller finished its initial sync? Each implementation has
// its own notion of "synced" (ours: /readyz; the Cluster API manager's readyz only covers its
// webhook server), so the common yardstick is the process's own CPU: the initial sync is
// over at the start of the first window of `windowMs` in which it used less than
// `maxFraction` of one core. Pure: works on (time, cumulative CPU seconds) samples.

export interface CpuSample {
  /** ms since the process was started */
  tMs: number;
  /** cumulative user + system CPU seconds */
  cpuSeconds: number;
}

/** The sample at which the process settled, or undefined if it never did. */
export function settledAt(
  samples: readonly CpuSample[],
  windowMs: number,
  maxFraction: number,
): CpuSample | undefined {
  let j = 0;
  for (let i = 0; i < samples.length; i++) {
    const start = samples[i] as CpuSample;
    while (j < samples.length && (samples[j] as CpuSample).tMs - start.tMs < windowMs) j++;
    if (j >= samples.length) return undefined;
    const end = samples[j] as CpuSample;
    const used = end.cpuSeconds - start.cpuSeconds;
    if (used <= (maxFraction * (end.tMs - start.tMs)) / 1000) return start;
  }
  return undefined;
}
