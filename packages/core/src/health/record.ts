// Recording what the shell reports back (an action's outcome, a fence, a drain pass) on the
// repair state, between two decisions. Pure; each returns `state` itself when the report does
// not apply (another attempt, already recorded), so a stale or repeated report writes nothing.
import type { ActionResult, DrainRecord, FenceRecord, RepairState } from './state.js';
import { nowMillis } from './time.js';

/** Result of executing a Remediate action, reported back by the shell. */
export interface ActionOutcome {
  /** The Remediate action's `actionId`; an outcome for any other id is ignored (stale report). */
  actionId: string;
  /**
   * Succeeded: the provider accepted the action; Failed: it rejected it. A provider outage is
   * no outcome: nothing is recorded and the intent stays open.
   */
  result: ActionResult;
  /** When the action completed (a Date or epoch ms); Verifying's deadlines count from it. */
  at: Date | number;
  /** The provider's message about the outcome, kept on the intent. */
  message?: string;
}

/**
 * How long after an action's outcome is recorded the node is decided again: the controller's
 * requeue and the simulator's next pass (one constant, so the simulator prints the follow-up
 * decision when the controller makes it). Verifying's deadlines run from the outcome's time;
 * the decision sets the pace after.
 */
export const DECIDE_AGAIN_AFTER_OUTCOME_MS = 1000;

/** Records an action's completion in the state (after the action ran, before the next decide). */
export function recordOutcome(state: RepairState, outcome: ActionOutcome): RepairState {
  const rem = state.remediation;
  const intent = rem?.intent;
  if (
    rem === undefined ||
    intent === undefined ||
    intent.actionId !== outcome.actionId ||
    intent.completedAt !== undefined
  )
    return state;
  const at = nowMillis(outcome.at);
  return {
    ...state,
    phase: 'Verifying',
    since: at,
    remediation: {
      ...rem,
      intent: {
        ...intent,
        completedAt: at,
        result: outcome.result,
        ...(outcome.message !== undefined ? { message: outcome.message } : {}),
      },
    },
  };
}

/**
 * Records that the machine was found fenced (and whether we added the out-of-service taint),
 * so the question is not asked again and the repair later removes only a taint it added.
 */
export function recordFence(state: RepairState, fence: FenceRecord): RepairState {
  const rem = state.remediation;
  if (rem === undefined || rem.fenced !== undefined || rem.intent?.actionId !== fence.actionId)
    return state;
  return { ...state, remediation: { ...rem, fenced: fence } };
}

/** What a drain pass reported: progress, or the end of the drain. */
export interface DrainReport {
  /** The Drain action's `remediationId`; a report for another remediation is ignored. */
  remediationId: string;
  /** When this pass last had an eviction accepted (epoch ms); absent when it evicted nothing. */
  lastEvictedAt?: number;
  /**
   * Set when the drain is over: when (epoch ms) and how (Drained, TimedOut, NodeGone, Failed).
   * Absent while pods are left and the drain goes on in a later pass.
   */
  ended?: { at: number; outcome: NonNullable<DrainRecord['outcome']> };
}

/**
 * Records a drain pass's report on the state (pure). Returns `state` itself when it does not
 * apply (another remediation, the drain already over, nothing new), so nothing is written.
 */
export function recordDrain(state: RepairState, report: DrainReport): RepairState {
  const rem = state.remediation;
  const drain = rem?.drain;
  if (rem === undefined || drain === undefined || drain.endedAt !== undefined) return state;
  if (rem.id !== report.remediationId) return state;
  const lastEvictedAt = report.lastEvictedAt ?? drain.lastEvictedAt;
  if (report.ended === undefined && lastEvictedAt === drain.lastEvictedAt) return state;
  const next: DrainRecord = {
    ...drain,
    ...(lastEvictedAt !== undefined ? { lastEvictedAt } : {}),
    ...(report.ended !== undefined
      ? { endedAt: report.ended.at, outcome: report.ended.outcome }
      : {}),
  };
  return { ...state, remediation: { ...rem, drain: next } };
}
