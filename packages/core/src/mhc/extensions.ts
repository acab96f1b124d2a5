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

/** Settings of applyFlapMemoryExtension (a noderepair extension, not Cluster API behaviour). */
export interface FlapMemoryExtension {
  /** Unhealthy episodes within `windowMs` that make a target unhealthy. */
  episodes: number;
  /** The window the episodes are counted in, in milliseconds. */
  windowMs: number;
}

/**
 * What the caller persists between evaluations (e.g. in an annotation on the Machine). An
 * episode starts when an unhealthy condition appears on a node that was healthy at the last
 * look; flips between unhealthy statuses (Ready Unknown -> False) are the same episode.
 */
export interface MhcFlapMemory {
  /** Start times of the episodes inside the window, oldest first. */
  episodes: number[];
  /** Set while the current episode is open: when it began. */
  unhealthySince?: number;
}

/** What applyFlapMemoryExtension decided. */
export interface FlapMemoryResult {
  /** The verdict: the one given, or unhealthy with reason Flapping. */
  evaluation: ExtendedTargetEvaluation;
  /** The memory to persist for next time. */
  memory: MhcFlapMemory;
  /** The target is in an unhealthy episode and enough episodes fell in the window. */
  flapping: boolean;
}

/**
 * Extension: counts the node's unhealthy episodes and, when `episodes` of them fall within
 * `windowMs`, marks the target unhealthy at once while an unhealthy condition is present
 * (reason 'Flapping', which is ours, not CAPI's). The caller sees snapshots: a healthy period
 * that falls between two looks is not seen, so the count can be lower than the truth, never
 * higher (a new lastTransitionTime alone is not a new episode).
 */
export function applyFlapMemoryExtension(
  evaluation: TargetEvaluation,
  target: MhcTarget,
  policy: MhcPolicy,
  memory: MhcFlapMemory,
  ext: FlapMemoryExtension,
  nowInput: Date | number,
): FlapMemoryResult {
  const now = nowMillis(nowInput);
  const kept = memory.episodes.filter((t) => t > now - ext.windowMs);
  let start: number | undefined;
  for (const c of policy.unhealthyNodeConditions) {
    const cond = getCondition(target.node, c.type);
    if (cond === undefined || cond.status !== c.status) continue;
    const since = toMillis(cond.lastTransitionTime) ?? now;
    start = start === undefined ? since : Math.min(start, since);
  }
  let unhealthySince: number | undefined;
  if (start !== undefined) {
    // Still in the episode seen last time: a changed status or lastTransitionTime adds nothing.
    unhealthySince = memory.unhealthySince ?? start;
    if (memory.unhealthySince === undefined && start > now - ext.windowMs) kept.push(start);
  }
  kept.sort((a, b) => a - b);
  const next: MhcFlapMemory = {
    episodes: kept,
    ...(unhealthySince !== undefined ? { unhealthySince } : {}),
  };
  const flapping = start !== undefined && kept.length >= ext.episodes;
  if (!flapping || evaluation.needsRemediation) return { evaluation, memory: next, flapping };
  return {
    evaluation: {
      machine: evaluation.machine,
      needsRemediation: true,
      reason: 'Flapping',
      message: `Health check failed (noderepair extension): ${kept.length} unhealthy episodes within ${formatDuration(ext.windowMs)}`,
      nextCheckMs: 0,
    },
    memory: next,
    flapping,
  };
}

/** Settings of escalationStepExtension (a noderepair extension, not Cluster API behaviour). */
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
