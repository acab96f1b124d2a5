// Burst admission: when many nodes are due at once, one storm-guard pass decides them all
// instead of one pass (and one fresh read, persist and cache wait) per node under the
// admission lock. Pure; the controller's shell is autorepair/burst.ts.
//
// Why one pass equals one-at-a-time admission: the storm guard already gives a verdict to
// every node that wants to start, in a fixed order (unhealthySince, then name), counting
// each admitted node as in flight before the next. Deciding the candidates one by one, each
// with the fleet as the earlier ones left it, the earlier admitted ones are in flight (the
// same count the pass added for them) and no longer want to start, so every later pass
// admits the rest of the same set. The property test (fleet-batch.properties.test.ts)
// checks this for random fleets, policies and arrival orders.
//
// The one case where they can differ: an admitted node whose decision does not put it in
// flight (no step left: it gives up instead). The pass counted it, so it may have held a
// node after it that one-at-a-time admission in some orders would start. We keep the pass's
// answer: CONSERVATIVE (never more repairs than any order of one-at-a-time admission, maybe
// fewer for one pass; the held node's own reconcile decides it again at its recheck).
import { startsRemediation, type RepairDecision } from './decision.js';
import { decideWithVerdict, judge, stormEntry, type FleetMember, type Judged } from './fleet.js';
import type { RepairPolicy } from './policy.js';
import { stormGuard, type LatchState, type StormMemory, type StormReport } from './storm-guard.js';

/** The result of one batch pass. */
export interface FleetBatch {
  /** Self's decision: what decideWithFleet gives it. */
  self: RepairDecision;
  /**
   * The candidates (other than self) the guard admitted and whose decision starts a
   * remediation, by name, in admission order.
   */
  admitted: Map<string, RepairDecision>;
  /** The storm guard's pass (its memory is for the next pass). */
  storm: StormReport;
}

/**
 * Self and the `candidates` (names of other members, e.g. those whose cached decision would
 * start a remediation now) decided in one storm pass over self and `others`.
 */
export function decideBatch(
  self: FleetMember,
  others: readonly FleetMember[],
  candidates: ReadonlySet<string>,
  policy: RepairPolicy,
  now: number,
  memory: StormMemory | undefined,
  latch?: LatchState,
): FleetBatch {
  const me = judge(self, policy, now);
  const entries = [stormEntry(me)];
  const wanting: Judged[] = [];
  for (const m of others) {
    const j = judge(m, policy, now);
    const e = stormEntry(j);
    entries.push(e);
    if (e.wantsToStart && candidates.has(e.name)) wanting.push(j);
  }
  const storm = stormGuard(entries, policy.stormGuard, now, memory, policy.controlPlane, latch);
  const admitted: Array<[string, RepairDecision]> = [];
  for (const j of wanting) {
    if (storm.verdicts.get(j.obs.nodeName)?.admitted !== true) continue;
    const d = decideWithVerdict(j, storm, policy, now);
    // Admitted but not in flight (see the file comment): left out, its slot stays counted.
    if (startsRemediation(d, j.member.state)) admitted.push([j.obs.nodeName, d]);
  }
  // The verdicts are in the guard's admission order.
  const rank = new Map([...storm.verdicts.keys()].map((k, i) => [k, i]));
  admitted.sort((a, b) => (rank.get(a[0]) ?? 0) - (rank.get(b[0]) ?? 0));
  return { self: decideWithVerdict(me, storm, policy, now), admitted: new Map(admitted), storm };
}
