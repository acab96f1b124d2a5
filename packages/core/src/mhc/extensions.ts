// noderepair EXTENSIONS to MachineHealthCheck semantics. Cluster API has no memory: a new
// lastTransitionTime restarts the clock, so a node that flaps NotReady for 4 minutes every
// 5 minutes is never remediated, and a machine repaired yesterday starts from scratch. These
// functions add that memory on top of evaluateTarget's verdict, kept apart so that the CAPI
// behaviour above stays exact and the extensions are opt-in and named as such.
import { getCondition } from '../health/node.js';
import { formatDuration, nowMillis, toMillis } from '../health/time.js';
import type { MhcPolicy } from './spec.js';
import type { MhcTarget } from './target.js';
import type { TargetEvaluation } from './judge.js';
import type { MhcUnhealthyReason } from './messages.js';

/** A target verdict that may carry the extension's own reason. */
export type ExtendedTargetEvaluation = Omit<TargetEvaluation, 'reason'> & {
  reason?: MhcUnhealthyReason | 'Flapping';
};

export interface FlapMemoryExtension {
  /** Episodes (distinct lastTransitionTimes into an unhealthy status) that make a target unhealthy. */
  episodes: number;
  windowMs: number;
}

export interface FlapMemoryResult {
  evaluation: ExtendedTargetEvaluation;
  /** Episode start times to persist for next time (e.g. in an annotation on the Machine). */
  history: number[];
  flapping: boolean;
}

/**
 * Extension: remembers the start of each unhealthy episode of the MHC's node conditions and,
 * when `episodes` of them fall within `windowMs`, marks the target unhealthy at once while
 * an unhealthy condition is present (reason 'Flapping', which is ours, not CAPI's).
 */
export function applyFlapMemoryExtension(
  evaluation: TargetEvaluation,
  target: MhcTarget,
  policy: MhcPolicy,
  history: readonly number[],
  ext: FlapMemoryExtension,
  nowInput: Date | number,
): FlapMemoryResult {
  const now = nowMillis(nowInput);
  const kept = history.filter((t) => t > now - ext.windowMs);
  let present = false;
  for (const c of policy.unhealthyNodeConditions) {
    const cond = getCondition(target.node, c.type);
    if (cond === undefined || cond.status !== c.status) continue;
    present = true;
    const start = toMillis(cond.lastTransitionTime);
    if (start !== undefined && start > now - ext.windowMs && !kept.includes(start))
      kept.push(start);
  }
  kept.sort((a, b) => a - b);
  const flapping = present && kept.length >= ext.episodes;
  if (!flapping || evaluation.needsRemediation) return { evaluation, history: kept, flapping };
  return {
    evaluation: {
      machine: evaluation.machine,
      needsRemediation: true,
      reason: 'Flapping',
      message: `Health check failed (noderepair extension): ${kept.length} unhealthy episodes within ${formatDuration(ext.windowMs)}`,
      nextCheckMs: 0,
    },
    history: kept,
    flapping,
  };
}

export interface EscalationExtension {
  /** Ladder of remediation kinds, cheapest first (e.g. the names of remediation templates). */
  ladder: readonly string[];
  /** A remediation that follows a previous one within this time starts one rung higher. */
  escalateWithinMs: number;
}

/**
 * Extension: which rung of the ladder the next remediation of a machine should use, given
 * when its previous remediations ended (oldest first). Never goes down while the failures
 * keep coming within the window; resets to the first rung after a quiet period.
 */
export function escalationStepExtension(
  previousEndTimes: readonly number[],
  ext: EscalationExtension,
  nowInput: Date | number,
): { step: number; kind: string | undefined } {
  const now = nowMillis(nowInput);
  let step = 0;
  let last: number | undefined;
  for (const end of [...previousEndTimes].sort((a, b) => a - b)) {
    step = last !== undefined && end - last <= ext.escalateWithinMs ? step + 1 : 0;
    last = end;
  }
  const next = last !== undefined && now - last <= ext.escalateWithinMs ? step + 1 : 0;
  const clamped = Math.min(next, Math.max(0, ext.ladder.length - 1));
  return { step: clamped, kind: ext.ladder[clamped] };
}
