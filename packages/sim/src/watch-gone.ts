// The informer's watch expiring (410 Gone: the apiserver compacted the resourceVersion it
// watches from), drawn from the seed on a stream of its own so the faults drawn before it
// existed stay exactly as they were: 0-2 per run, half of them inside a watch-lag window when
// the run has one (deliveries in flight are then lost), each relisting after a list round trip
// of 0.1-3 s (informer-cache.ts: replaced from the list, as the runtime's Reflector does).
import { Prng } from './prng.js';
import type { Fault, ScheduleShape } from './schedule.js';

const MIN = 60_000;

/** The watch expiries of a run (unsorted), given the faults drawn before. */
export function drawWatchExpiries(
  seed: number,
  shape: ScheduleShape,
  drawn: readonly Fault[],
): Fault[] {
  const r = new Prng(seed ^ 0x6a09e667);
  const T = shape.minutes * MIN;
  const lag = drawn.find((f): f is Extract<Fault, { kind: 'watch-lag' }> => f.kind === 'watch-lag');
  const out: Fault[] = [];
  for (let i = r.int(0, 2); i > 0; i--) {
    const at =
      lag !== undefined && r.chance(0.5) ? r.int(lag.at, lag.until) : r.int(0, Math.floor(T * 0.9));
    out.push({ at, kind: 'watch-expired', listMs: r.int(100, 3000) });
  }
  return out;
}
