// One decider for the controller and the simulator. It owns what a pass over the fleet
// remembers (the storm guard's memory, started as a controller starts it, and whether the
// guard was tripped) and the split between deciding a node alone and deciding it with the
// fleet. `noderepair run`'s reconciler and `noderepair simulate` both decide through it, so
// the simulator prints what the controller would do by construction, not by a second copy
// of the same rules. stateAtStart is the other half of a start: the repair state a node
// already carries (in repair, held for a storm, cooling down) when the decider first sees it.
import type { RepairDecision } from './decide.js';
import { decideBatch, type FleetBatch } from './fleet-batch.js';
import { decideAlone, decideWithFleet, type FleetMember } from './fleet.js';
import type { NodeSnapshot } from './node.js';
import type { RepairPolicy } from './policy.js';
import { readStateAnnotation, type RepairState } from './state.js';
import {
  stormMemoryAtStart,
  type LatchState,
  type StormMemory,
  type StormReport,
} from './storm-guard.js';
import { nowMillis } from './time.js';

/**
 * Decides nodes one at a time while remembering, between fleet passes, what the storm guard needs.
 * Made by newFleetDecider; shared by the controller and the simulator.
 */
export interface FleetDecider {
  /** The storm guard's memory after the last fleet pass. */
  readonly memory: StormMemory;
  /** The storm guard was tripped at the last fleet pass: every node then takes the fleet path. */
  readonly tripped: boolean;
  /**
   * The latch as persisted (stormGuard.latch), as the caller last read it: the next fleet
   * passes hold every start while it is set or unreadable. Undefined: not set.
   */
  latch: LatchState | undefined;
  /**
   * The node's decision when the rest of the fleet cannot change it (decideAlone), which
   * needs no lock and no list of the fleet. Undefined: decide it withFleet.
   */
  alone(self: FleetMember, now: Date | number): RepairDecision | undefined;
  /**
   * The node's decision with the storm guard over it and every other node (the controller
   * calls it under its admission lock). Advances the memory and the tripped flag.
   */
  withFleet(
    self: FleetMember,
    others: readonly FleetMember[],
    now: Date | number,
  ): { decision: RepairDecision; storm: StormReport };
  /**
   * withFleet for self plus a burst: the `candidates` (names among `others`) the same pass
   * admits and starts (fleet-batch.ts). Advances the memory and the tripped flag once.
   */
  withFleetBatch(
    self: FleetMember,
    others: readonly FleetMember[],
    candidates: ReadonlySet<string>,
    now: Date | number,
  ): FleetBatch;
  /** alone, else withFleet: for a caller with the fleet at hand (the simulator). */
  decide(
    self: FleetMember,
    others: () => readonly FleetMember[],
    now: Date | number,
  ): { decision: RepairDecision; storm?: StormReport };
}

/**
 * A decider for a controller (or simulation) that starts at `startedAt`. The storm memory
 * starts as stormMemoryAtStart(startedAt): a storm this process did not see may have just
 * lifted, so a node an earlier controller held for a storm waits out the cooldown.
 */
export function newFleetDecider(policy: RepairPolicy, startedAt: Date | number): FleetDecider {
  let memory: StormMemory = stormMemoryAtStart(nowMillis(startedAt));
  let tripped = false;
  let latch: LatchState | undefined;
  // Every fleet pass leaves the storm memory and tripped flag for the next one.
  const remember = <R extends { storm: StormReport }>(r: R): R => {
    memory = r.storm.memory;
    tripped = r.storm.tripped;
    return r;
  };
  const alone = (self: FleetMember, now: Date | number) =>
    tripped ? undefined : decideAlone(self, policy, now);
  const withFleet = (self: FleetMember, others: readonly FleetMember[], now: Date | number) => {
    return remember(decideWithFleet(self, others, policy, nowMillis(now), memory, latch));
  };
  const withFleetBatch = (
    self: FleetMember,
    others: readonly FleetMember[],
    candidates: ReadonlySet<string>,
    now: Date | number,
  ) => {
    return remember(decideBatch(self, others, candidates, policy, nowMillis(now), memory, latch));
  };
  return {
    get memory() {
      return memory;
    },
    get tripped() {
      return tripped;
    },
    get latch() {
      return latch;
    },
    set latch(l: LatchState | undefined) {
      latch = l;
    },
    alone,
    withFleet,
    withFleetBatch,
    decide: (self, others, now) => {
      const decision = alone(self, now);
      return decision !== undefined ? { decision } : withFleet(self, others(), now);
    },
  };
}

/**
 * The repair state a controller started with `policy` finds on a node it sees for the first
 * time: the state annotation an earlier controller left (the annotation store reads the same
 * function), or none in dry-run, whose state lives in memory and starts empty. A record that
 * does not parse is none: the controller starts such a node over (and says so in an event).
 */
export function stateAtStart(
  policy: RepairPolicy,
  node: NodeSnapshot | undefined,
): RepairState | undefined {
  if (policy.dryRun) return undefined;
  const r = readStateAnnotation(node, policy.annotations.state);
  return r._tag === 'Right' ? r.right : undefined;
}
