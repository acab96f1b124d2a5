// The repair state machine: (observation, persisted state, policy, now) -> next state and
// actions, each with its reason. Pure and deterministic: the same inputs always give the
// same decision, and `now` is an argument (the clock is never read here).
//
// Phases (see docs/health.md for the diagram):
//   Healthy -> Suspect (signal inside its timeout) -> Unhealthy (timeout passed, storm guard
//   holds it) -> Remediating (intent recorded, action running) -> Verifying (action done,
//   waiting for Ready + the minimum healthy period) -> Healthy, or the next attempt / step,
//   or Failed when the ladder is exhausted. Waiting: the node is shutting down.
//
// decideRepair below is the whole judgement as a short sequence of rules, each in its own
// file: idle.ts (healthy / suspect / unhealthy, storm hold, out of Failed), start-repair.ts
// (first step, cordon, drain, first action), follow-repair.ts (a repair in progress: the
// Replace edge, the ladder's verdict), drain-phase.ts, advance.ts (next attempt, escalation,
// giving up). How a repair climbs the ladder is ladder.ts's progressLadder, shared with the
// Cluster API remediation controller. The Node is parsed once (observation.ts); every rule
// reads that, never the raw snapshot.
import { assessObserved, type Assessment } from './assess.js';
import { policyForRule, ruleInForce } from './condition-rules.js';
import { decision, type Judge } from './decide-context.js';
import type { DecideContext, RepairDecision } from './decision.js';
import { withFlapMemory } from './episodes.js';
import { followRepair } from './follow-repair.js';
import { afterGivingUp, judgeIdle } from './idle.js';
import type { HealthObservation } from './node.js';
import { observeNode, type NodeObservation } from './observation.js';
import type { RepairPolicy } from './policy.js';
import { initialRepairState, type RepairState } from './state.js';
import { nowMillis } from './time.js';

export type { DecideContext, RepairAction, RepairDecision } from './decision.js';
export {
  DECIDE_AGAIN_AFTER_OUTCOME_MS,
  recordDrain,
  recordFence,
  recordOutcome,
  type ActionOutcome,
  type DrainReport,
} from './record.js';
export { actionIdFor } from './repair-actions.js';

/**
 * Decides what to do about one node now: the next state to persist and the actions to run,
 * each with its reason. `ctx.storm` is the storm guard's verdict for the node (fleet.ts).
 */
export function decideRepair(
  input: HealthObservation,
  persisted: RepairState | undefined,
  policy: RepairPolicy,
  nowInput: Date | number,
  ctx: DecideContext = {},
): RepairDecision {
  const now = nowMillis(nowInput);
  const obs = observeNode(input);
  const a = assessObserved(obs, persisted, policy, now);
  // The ladder of the condition rule in force (condition-rules.ts); fleet.ts does the same.
  const byRule = policyForRule(policy, ruleInForce(persisted, a.rule));
  return decideObserved(obs, a, persisted, byRule, now, ctx);
}

/**
 * decideRepair on a node already parsed and assessed: `a` is assessObserved(obs, persisted,
 * policy, now). A fleet pass (fleet.ts) assesses every node for the storm guard anyway; it
 * hands that assessment here instead of parsing and assessing the node a second time. An
 * absent state assesses exactly as initialRepairState (no episodes, no open period, no
 * trigger handled, nothing in flight), so `persisted` is passed to the assessment as it is.
 */
export function decideObserved(
  obs: NodeObservation,
  a: Assessment,
  persisted: RepairState | undefined,
  policy: RepairPolicy,
  now: number,
  ctx: DecideContext = {},
): RepairDecision {
  const prev = persisted ?? initialRepairState(now);
  const j: Judge = {
    obs,
    a,
    prev,
    policy,
    now,
    dryRun: policy.dryRun,
    ...(ctx.stormPause !== undefined ? { stormPause: ctx.stormPause } : {}),
  };

  // The Node is gone: nothing left to repair, and nowhere to keep a state.
  if (a.signal === 'gone') {
    return decision(
      j,
      undefined,
      [{ type: 'Forget', reason: a.detail, dryRun: j.dryRun }],
      `${a.detail}: nothing left to repair or annotate`,
    );
  }
  const s = withFlapMemory(prev, a);
  // Cluster API's paused / skip-remediation annotations: not judged (the flap memory goes on).
  if (a.signal === 'paused') return decision(j, s, [], `not judged: ${a.detail}`);
  // A repair in progress: its ladder decides, whatever the node looks like now.
  const rem = s.remediation;
  if (rem !== undefined && (s.phase === 'Remediating' || s.phase === 'Verifying'))
    return followRepair(j, s, rem);
  // Gave up earlier: only a healthy period or a new manual trigger gets out of Failed.
  if (s.phase === 'Failed' && a.newTrigger === undefined) return afterGivingUp(j, s);
  // Otherwise judge the node as it is now; an unhealthy one admitted starts a repair.
  return judgeIdle(j, s, ctx.storm);
}
