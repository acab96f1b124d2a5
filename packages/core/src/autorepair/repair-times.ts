// The fleet metrics people ask for (issue 46): time to repair (a node's NotReady to Ready
// again, for nodes a repair of ours was in flight on) and time between failures (per node,
// from the end of its previous repair to the failure that started the next one). Pure: read
// off one transition (the previous persisted state and the decision), so a restarted
// controller measures the same from the annotations.
import type { RepairDecision } from '../health/decision.js';
import { startsRemediation } from '../health/decision.js';
import { isInFlight } from '../health/storm-guard.js';
import type { RepairState } from '../health/state.js';

/** What one transition measured, in ms (absent: it measured nothing). */
export interface RepairTimes {
  /** The node is Ready again after a repair: from when it failed to Ready. */
  toRepairMs?: number;
  /** A repair starts on a node that had one before: from the end of that one to this failure. */
  betweenFailuresMs?: number;
}

/**
 * The times one transition measures. Time to repair: a repair in flight, and the node's
 * NotReady period ends (it is seen Ready); it counts from the earlier of the period's start
 * and the repair's start (a repair for another condition takes a Ready node down itself) to
 * the start of the Ready period. Time between failures: a repair starts, and the node's
 * history has an earlier one; from that one's end to the NotReady that started this (or now,
 * for another condition).
 */
export function repairTimes(
  d: RepairDecision,
  prev: RepairState | undefined,
  now: number,
): RepairTimes {
  const out: RepairTimes = {};
  const next = d.nextState;
  const down = prev?.notReady?.since;
  const rem = prev?.remediation;
  if (
    isInFlight(prev?.phase) &&
    rem !== undefined &&
    down !== undefined &&
    next !== undefined &&
    next.notReady === undefined
  ) {
    const from = Math.min(down, rem.startedAt);
    const ready = next.healthySince ?? now;
    if (ready >= from) out.toRepairMs = ready - from;
  }
  if (startsRemediation(d, prev)) {
    const last = prev?.history?.at(-1)?.endedAt ?? prev?.lastRemediation?.endedAt;
    const failed = next?.notReady?.since ?? now;
    if (last !== undefined && failed >= last) out.betweenFailuresMs = failed - last;
  }
  return out;
}
