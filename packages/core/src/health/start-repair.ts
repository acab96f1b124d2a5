// Starting a repair on an admitted unhealthy node: which ladder step first (one higher when
// the node fails again soon after a repair; past guest-only steps when the machine is off),
// then cordon, drain and the first action, the intent persisted before any of them runs.
import { decision, enter, type Judge } from './decide-context.js';
import type { RepairAction, RepairDecision } from './decision.js';
import { clipMessage } from './history.js';
import { ladderIntent } from './ladder.js';
import type { RepairPolicy } from './policy.js';
import { actionIdFor, drainAction, identityOf, remediateAction } from './repair-actions.js';
import type {
  ConditionRuleRef,
  DrainRecord,
  Remediation,
  RepairIntent,
  RepairState,
} from './state.js';
import { formatDuration } from './time.js';

/** The same condition rule (both absent: both the policy's ladder)? Compares every field of the reference. */
function sameRule(a: ConditionRuleRef | undefined, b: ConditionRuleRef | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const ka = Object.keys(a) as (keyof ConditionRuleRef)[];
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/**
 * First ladder step for a new remediation: one higher than last time if the node failed
 * again soon after a repair that climbed the same ladder (`rule`: the new repair's rule; a
 * step of another rule's ladder means nothing in this one, so that starts at its first step).
 */
function firstStep(
  s: RepairState,
  policy: RepairPolicy,
  now: number,
  rule: ConditionRuleRef | undefined,
): { step: number; why: string } {
  const last = s.lastRemediation;
  if (
    last !== undefined &&
    last.result === 'Succeeded' &&
    now - last.endedAt <= policy.flap.escalateWithinMs &&
    sameRule(last.rule, rule)
  ) {
    const step = Math.min(last.step + 1, policy.ladder.length - 1);
    return {
      step,
      why: `unhealthy again ${formatDuration(now - last.endedAt)} after repair ${last.id}: escalating`,
    };
  }
  return { step: 0, why: '' };
}

/**
 * A machine that is powered off (or gone) has no guest to ask: a SoftReboot cannot work
 * (Nova refuses it with 409) and would only burn an attempt and its timeout. Start at the
 * first later step that acts on the machine itself (HardReboot powers it on); a ladder of
 * SoftReboot only keeps its step, which then fails and gives up.
 */
function skipGuestSteps(
  first: { step: number; why: string },
  policy: RepairPolicy,
): { step: number; why: string } {
  const i = policy.ladder.findIndex((st, j) => j >= first.step && st.action !== 'SoftReboot');
  if (i === -1 || i === first.step) return first;
  const skip = 'the machine is powered off, so SoftReboot (which asks the guest) is skipped';
  return { step: i, why: first.why ? `${first.why}; ${skip}` : skip };
}

/**
 * Starts a repair of the node: cordon (unless already cordoned), drain (when enabled), the
 * first action. `ownsCordon`: an earlier repair of ours cordoned the node and gave up, so
 * this one still owns (and in the end undoes) that cordon.
 */
export function startRemediation(j: Judge, s: RepairState, ownsCordon: boolean): RepairDecision {
  const { obs, a, policy, now, dryRun } = j;
  const first = firstStep(s, policy, now, a.rule);
  const { step: stepIndex, why } = a.poweredOff === true ? skipGuestSteps(first, policy) : first;
  const step = policy.ladder[stepIndex];
  if (step === undefined)
    return decision(
      j,
      enter(j, s, 'Failed'),
      [{ type: 'GiveUp', dryRun, reason: 'the policy ladder has no steps' }],
      'no repair configured',
    );
  const id = `${obs.nodeName}/${now}`;
  const alreadyCordoned = obs.cordoned;
  const intent: RepairIntent = {
    ...ladderIntent(step, { step: stepIndex, attempt: 1 }, actionIdFor(id, step, 1), now),
    ...identityOf(obs),
  };
  // The drain is a persisted phase (a dry run drains nothing, so it has none).
  const drain: DrainRecord | undefined =
    policy.drain.enabled && !dryRun ? { startedAt: now } : undefined;
  const rem: Remediation = {
    id,
    startedAt: now,
    cause: a.cause.kind,
    step: stepIndex,
    attempt: 1,
    cordoned: !alreadyCordoned || ownsCordon,
    intent,
    ...(drain !== undefined ? { drain } : {}),
    ...(a.cause.message !== '' ? { causeMessage: clipMessage(a.cause.message) } : {}),
    // A rule with its own ladder: this repair climbs it to the end (condition-rules.ts).
    ...(a.rule !== undefined ? { rule: a.rule } : {}),
  };
  const reason = `${a.cause.kind}: ${a.detail}${why ? `; ${why}` : ''}`;
  const actions: RepairAction[] = [];
  if (!alreadyCordoned) actions.push({ type: 'Cordon', dryRun, reason });
  if (policy.drain.enabled)
    actions.push(drainAction(rem, drain ?? { startedAt: now }, policy, dryRun, reason, now));
  actions.push(remediateAction(intent, false, dryRun, reason));
  const next = enter(j, s, 'Remediating', {
    remediation: rem,
    ...(a.newTrigger !== undefined ? { handledTrigger: a.newTrigger } : {}),
  });
  return decision(
    j,
    next,
    actions,
    `starting repair ${id} with ${step.action} (step ${stepIndex + 1} of ${policy.ladder.length}): ${reason}`,
  );
}
