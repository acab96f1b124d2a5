// Shrinking a failing seed: its fault schedule with faults dropped one at a time while the
// same invariant still fails, to a short schedule a developer can read and replay
// (`SCHEDULE=<file>`: the CLI runs it instead of the seed's draw). Each try is a whole run,
// so a schedule of n faults costs up to n runs per pass; passes repeat until none drops a fault.
import type { Violation } from './invariants.js';
import { checkAll } from './invariants.js';
import { runSim, type RunOptions } from './run.js';
import type { Fault } from './schedule.js';

/** A shrunk schedule: what to replay, and what it breaks. */
export interface Shrunk {
  seed: number;
  invariant: string;
  /** Faults of the seed's schedule, and of the shrunk one. */
  from: number;
  faults: Fault[];
  /** The violations the shrunk schedule's run shows (of `invariant`). */
  violations: Violation[];
  runs: number;
}

/** The replay file: the options a run needs besides the seed's draw. */
export interface ScheduleFile {
  seed: number;
  nodes: number;
  minutes: number;
  invariant: string;
  faults: Fault[];
}

/**
 * Shrinks `opts`' schedule (the seed's draw, or `opts.faults`) for the first invariant its run
 * violates (or `invariant`). Undefined when the run violates nothing.
 */
export async function shrink(
  opts: RunOptions,
  invariant?: string,
  maxRuns = 500,
): Promise<Shrunk | undefined> {
  const failing = async (faults: readonly Fault[] | undefined) => {
    const r = await runSim({ ...opts, ...(faults !== undefined ? { faults } : {}) });
    return { r, v: checkAll(r.history.entries, r.policy) };
  };
  const first = await failing(opts.faults);
  const inv = invariant ?? first.v[0]?.invariant;
  let v = first.v.filter((x) => x.invariant === inv);
  if (inv === undefined || v.length === 0) return undefined;
  let faults = [...first.r.faults];
  const from = faults.length;
  let runs = 1;
  for (let dropped = true; dropped && runs < maxRuns; ) {
    dropped = false;
    for (let i = faults.length - 1; i >= 0 && runs < maxRuns; i--) {
      const fewer = faults.filter((_, j) => j !== i);
      const t = await failing(fewer);
      runs++;
      const still = t.v.filter((x) => x.invariant === inv);
      if (still.length === 0) continue;
      faults = fewer;
      v = still;
      dropped = true;
    }
  }
  return { seed: opts.seed, invariant: inv, from, faults, violations: v, runs };
}
