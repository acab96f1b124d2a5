// The escalation ladder's progress rules, in one place for every controller that climbs a
// ladder: core's decideRepair (state in a Node annotation) and @noderepair/capo-remediation
// (state in an OpenStackRemediation's status). Pure and deterministic; `now` is an argument.
// The caller maps whatever it persisted to a LadderIntent, asks `progressLadder`, and
// persists what the verdict says wherever it keeps its state, BEFORE it acts on it.
//
// The rules:
// - One intent per attempt, with a stable action id the caller derives from the attempt's
//   position: never shared by two attempts, the same after a restart.
// - The intent is persisted before the action and its completion (`completedAt`, `result`)
//   after the provider answered. An intent without completion is replayed with the same id;
//   the provider treats a repeated id as the same request, so the action happens at most once.
// - A failed provider call uses up the attempt, `retryBackoffMs` after its completion (so a
//   cloud outage does not race through the ladder).
// - After an accepted action the node has the step's `timeoutMs`, counted from the
//   completion, to be back; after that the attempt has timed out.
// - Back (the caller's judgement: Ready, and for some callers proof of a restart) for
//   `minHealthyPeriodMs`, counted from the later of the Ready transition and the completion,
//   is success.
// - A failed or timed-out attempt is followed by the next attempt of the same step while the
//   step has attempts left, then by the first attempt of the next step; after the last step
//   the ladder is exhausted and the caller gives up.
import type { LadderStep, RemediationStepKind } from './policy.js';
import type { ActionResult } from './state.js';

/** Where on the ladder: the step index and the 1-based attempt within the step. */
export interface LadderPosition {
  /** 0-based index of the step in the ladder. */
  readonly step: number;
  /** 1-based attempt within the step. */
  readonly attempt: number;
}

/**
 * The record of one attempt, as the rules need it. Core's RepairIntent is one; a caller with
 * another store (a CRD status) builds it from there.
 */
export interface LadderIntent {
  /**
   * The attempt's action id: stable per position, so a replay is recognised as the same request.
   */
  readonly actionId: string;
  /** The step's action. */
  readonly action: RemediationStepKind;
  /** 0-based index of the step in the ladder. */
  readonly step: number;
  /** 1-based attempt within the step. */
  readonly attempt: number;
  /** When the intent was persisted, in epoch ms. */
  readonly issuedAt: number;
  /** For Rebuild: the image sent with the action. */
  readonly image?: string;
  /** Set after the provider answered; absent means the action may or may not have happened. */
  readonly completedAt?: number;
  /** The provider's answer: Succeeded (accepted) or Failed; set with completedAt. */
  readonly result?: ActionResult;
  /** The provider's message, if any. */
  readonly message?: string;
}

/** The caller's action-id scheme: stable per position, distinct across positions. */
export type LadderActionIdFor = (at: LadderPosition, step: LadderStep) => string;

/** How the attempt in hand ended, when the verdict moves past it. */
export type LadderAttemptEnd =
  | { readonly result: 'Failed'; readonly message: string | undefined }
  | { readonly result: 'TimedOut'; readonly timeoutMs: number };

/**
 * What progressLadder says to do with the current attempt: replay it, wait (backing off, awaiting
 * Ready, verifying), succeed, go to the next attempt or give up.
 */
export type LadderVerdict =
  /** The intent has no completion: execute it again with the same action id. */
  | { readonly kind: 'Replay'; readonly intent: LadderIntent }
  /** The provider call failed; the next attempt is due at `retryAt`. */
  | { readonly kind: 'BackingOff'; readonly ended: LadderAttemptEnd; readonly retryAt: number }
  /** Not back yet; the attempt times out at `deadline`. The caller forgets any healthySince. */
  | { readonly kind: 'AwaitingReady'; readonly deadline: number; readonly timeoutMs: number }
  /** Back since `healthySince` (persist it); success at `okAt` if it stays so. */
  | { readonly kind: 'Verifying'; readonly healthySince: number; readonly okAt: number }
  /** Back for the minimum healthy period: the repair worked. */
  | { readonly kind: 'Succeeded'; readonly healthySince: number }
  /** The attempt is over; persist `intent` (the next attempt, or the next step) and execute it. */
  | {
      readonly kind: 'Next';
      readonly intent: LadderIntent;
      /** True when `intent` is the first attempt of a later step. */
      readonly escalated: boolean;
      readonly ended: LadderAttemptEnd;
    }
  /** The attempt is over and it was the last one of the last step: give up. */
  | { readonly kind: 'Exhausted'; readonly ended: LadderAttemptEnd };

/** What progressLadder needs about the current attempt and the node. */
export interface LadderProgressInput {
  /** The steps, in order, as the policy has them now. */
  readonly ladder: readonly LadderStep[];
  /** The current attempt (the last intent persisted). */
  readonly intent: LadderIntent;
  /** The caller's judgement that the node is back after the action (at least Ready=True). */
  readonly nodeBack: boolean;
  /** When the node's Ready condition last changed, if known. */
  readonly readySinceMs?: number | undefined;
  /** From an earlier Verifying verdict for this attempt, as persisted by the caller. */
  readonly healthySince?: number | undefined;
  /** How long the node must stay back before the repair counts as a success, in ms. */
  readonly minHealthyPeriodMs: number;
  /** How long after a failed provider call the next attempt is due, in ms. */
  readonly retryBackoffMs: number;
  /** The caller's action-id scheme, for the next attempt's intent. */
  readonly actionIdFor: LadderActionIdFor;
  /** The clock, in epoch ms. */
  readonly now: number;
}

/** The position after `at`: the next attempt of the step, else the next step; undefined when used up. */
export function nextLadderPosition(
  ladder: readonly LadderStep[],
  at: LadderPosition,
): LadderPosition | undefined {
  const step = ladder[at.step];
  if (step !== undefined && at.attempt < step.attempts)
    return { step: at.step, attempt: at.attempt + 1 };
  if (at.step + 1 < ladder.length) return { step: at.step + 1, attempt: 1 };
  return undefined;
}

/** The intent for the attempt at `at` of `step`, issued `now` (persist it before acting). */
export function ladderIntent(
  step: LadderStep,
  at: LadderPosition,
  actionId: string,
  now: number,
): LadderIntent {
  return {
    actionId,
    action: step.action,
    step: at.step,
    attempt: at.attempt,
    issuedAt: now,
    ...(step.image !== undefined ? { image: step.image } : {}),
  };
}

/** Moves past the attempt at `from`, which ended as `ended`: the next intent, or exhausted. */
export function advanceLadder(
  ladder: readonly LadderStep[],
  from: LadderPosition,
  ended: LadderAttemptEnd,
  actionIdFor: LadderActionIdFor,
  now: number,
): Extract<LadderVerdict, { kind: 'Next' | 'Exhausted' }> {
  const at = nextLadderPosition(ladder, from);
  const step = at === undefined ? undefined : ladder[at.step];
  if (at === undefined || step === undefined) return { kind: 'Exhausted', ended };
  return {
    kind: 'Next',
    intent: ladderIntent(step, at, actionIdFor(at, step), now),
    escalated: at.step > from.step,
    ended,
  };
}

/** The rules above applied to the current attempt. */
export function progressLadder(input: LadderProgressInput): LadderVerdict {
  const { ladder, intent, now } = input;
  if (intent.completedAt === undefined) return { kind: 'Replay', intent };
  const completedAt = intent.completedAt;
  if (intent.result === 'Failed') {
    const ended: LadderAttemptEnd = { result: 'Failed', message: intent.message };
    const retryAt = completedAt + input.retryBackoffMs;
    if (now < retryAt) return { kind: 'BackingOff', ended, retryAt };
    return advanceLadder(ladder, intent, ended, input.actionIdFor, now);
  }
  if (input.nodeBack) {
    const healthySince = input.healthySince ?? Math.max(input.readySinceMs ?? now, completedAt);
    const okAt = healthySince + input.minHealthyPeriodMs;
    return now >= okAt
      ? { kind: 'Succeeded', healthySince }
      : { kind: 'Verifying', healthySince, okAt };
  }
  // A step the ladder no longer has (the policy changed mid-repair) gives no time at all.
  const timeoutMs = ladder[intent.step]?.timeoutMs ?? 0;
  const deadline = completedAt + timeoutMs;
  if (now < deadline) return { kind: 'AwaitingReady', deadline, timeoutMs };
  return advanceLadder(ladder, intent, { result: 'TimedOut', timeoutMs }, input.actionIdFor, now);
}
