// What every rule of the judgement reads (the parsed node, its assessment, the state before,
// the policy, `now`) in one value, and the two ways a rule answers: a decision, and a state
// entering a phase. Rules get this instead of a row of parameters and callbacks.
import type { Assessment } from './assess.js';
import type { RepairAction, RepairDecision } from './decision.js';
import type { NodeObservation } from './observation.js';
import type { RepairPolicy } from './policy.js';
import type { RepairPhase, RepairState } from './state.js';
import type { StormPause } from './storm-guard.js';

/** The inputs of one decision, shared by every rule (decide.ts builds it once). */
export interface Judge {
  readonly obs: NodeObservation;
  readonly a: Assessment;
  /** The persisted state before this decision (its phase is the decision's previousPhase). */
  readonly prev: RepairState;
  readonly policy: RepairPolicy;
  readonly now: number;
  readonly dryRun: boolean;
  /** A repair in flight in a storm (DecideContext.stormPause): its attempt does not time out. */
  readonly stormPause?: StormPause;
}

/** The decision `j` answers with: `next` to persist (undefined: forget the node), `actions`. */
export function decision(
  j: Judge,
  next: RepairState | undefined,
  actions: RepairAction[],
  reason: string,
  requeueAfterMs?: number,
): RepairDecision {
  return {
    node: j.obs.nodeName,
    at: j.now,
    cause: j.a.cause,
    signal: j.a.signal,
    previousPhase: j.prev.phase,
    phase: next?.phase ?? j.prev.phase,
    nextState: next,
    actions,
    reason,
    // At least 1 ms, whole ms: a requeue of 0 would mean "never" to some queues.
    ...(requeueAfterMs !== undefined
      ? { requeueAfterMs: Math.max(1, Math.ceil(requeueAfterMs)) }
      : {}),
  };
}

/** `s` in `phase`; `since` moves to now only when the phase changes. */
export function enter(
  j: Judge,
  s: RepairState,
  phase: RepairPhase,
  extra: Partial<RepairState> = {},
): RepairState {
  return { ...s, ...extra, phase, since: s.phase === phase ? s.since : j.now };
}

/** `s` without a healthy period: the node is not (or no longer) counted as back. */
export function notHealthy(s: RepairState): RepairState {
  const { healthySince: _dropped, ...rest } = s;
  return rest;
}

/** Ready and nothing else wrong: what "back" means after an action or after giving up. */
export function isHealthyNow(j: Judge): boolean {
  return j.a.signal === 'healthy' && j.a.cause.kind === 'Healthy' && j.obs.ready?.status === 'True';
}
