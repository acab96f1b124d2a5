// A remediation is in progress (Remediating or Verifying): its ladder decides. In order:
// the edge after an accepted Replace (delete the Node once fenced), a node shutting down
// (wait), the drain phase, then the ladder's verdict on the current attempt (ladder.ts
// progressLadder): re-issue, back off, wait for Ready (asking for the fence meanwhile),
// verify the healthy period, succeed, or move on to the next attempt or step.
import { applyAdvance, historyEntry } from './advance.js';
import { decision, enter, isHealthyNow, notHealthy, type Judge } from './decide-context.js';
import type { RepairDecision } from './decision.js';
import { drainPhase, replayDueAt, replayIntent } from './drain-phase.js';
import { heldTimeoutReason, judgeTimeoutEvidence, type TimeoutEvidence } from './fresh-evidence.js';
import { appendHistory } from './history.js';
import { advanceLadder, ladderIntent, progressLadder, type LadderVerdict } from './ladder.js';
import { canPowerOn, judgePowerBeforeAction, type PowerGate } from './power-before-action.js';
import { decideAfterReplace, isAcceptedReplace } from './replace.js';
import { actionIdFor, fenceAction, undoAction } from './repair-actions.js';
import type { Remediation, RepairIntent, RepairState } from './state.js';
import type { StormPause } from './storm-guard.js';
import { formatDuration, iso } from './time.js';

/** The next decision for a node whose remediation `rem` is in progress. */
export function followRepair(j: Judge, before: RepairState, rem: Remediation): RepairDecision {
  const { a, policy } = j;
  // A manual trigger during a repair is taken as handled by it (not a second repair).
  const s = a.newTrigger !== undefined ? { ...before, handledTrigger: a.newTrigger } : before;
  const replaced = afterReplace(j, s, rem);
  if (replaced !== undefined) return replaced;
  if (a.signal === 'waiting') {
    return decision(
      j,
      s,
      [],
      `${a.detail} (remediation ${rem.id} paused until it finishes)`,
      policy.stormGuard.recheckIntervalMs,
    );
  }
  const current = currentIntent(j, rem);
  return drainPhase(j, s, rem, current) ?? followLadder(j, s, rem, current);
}

/**
 * After an accepted Replace the machine is going away: a Ready node is no success and a
 * node shutting down is the Replace taking effect, so neither pauses the Node's deletion
 * (a shutting-down node still never gets a next action: its timeout waits, as in
 * followRepair). Undefined when the intent is no accepted Replace, or the node is shutting
 * down and the Node is not to be deleted yet.
 */
function afterReplace(j: Judge, s: RepairState, rem: Remediation): RepairDecision | undefined {
  const { a, policy, now, dryRun } = j;
  const intent = rem.intent;
  if (!isAcceptedReplace(intent)) return undefined;
  const r = decideAfterReplace({
    rem,
    intent,
    timeoutMs: policy.ladder[intent.step]?.timeoutMs ?? 0,
    recheckIntervalMs: policy.stormGuard.recheckIntervalMs,
    dryRun,
    now,
  });
  if (r.kind !== 'DeleteNode' && a.signal === 'waiting') return undefined;
  if (r.kind === 'DeleteNode')
    return decision(
      j,
      enter(j, notHealthy(s), 'Verifying'),
      [r.action],
      r.reason,
      r.requeueAfterMs,
    );
  const v = advanceLadder(
    policy.ladder,
    intent,
    { result: 'TimedOut', timeoutMs: r.timeoutMs },
    (at, st) => actionIdFor(rem.id, st, at.attempt),
    now,
  );
  return applyAdvance(
    j,
    notHealthy(s),
    rem,
    v,
    `the machine was not known fenced ${formatDuration(r.timeoutMs)} after ${intent.action} attempt ${rem.attempt}: the Node is not deleted`,
  );
}

/**
 * The attempt in hand. Remediating/Verifying always has an intent; should a hand-edited
 * state lack one, count the step's time from the repair's start.
 */
function currentIntent(j: Judge, rem: Remediation): RepairIntent {
  return (
    rem.intent ?? {
      actionId: '',
      action: j.policy.ladder[rem.step]?.action ?? 'SoftReboot',
      step: rem.step,
      attempt: rem.attempt,
      issuedAt: rem.startedAt,
      completedAt: rem.startedAt,
    }
  );
}

/** The ladder's verdict on the current attempt, applied to the state. */
function followLadder(
  j: Judge,
  s: RepairState,
  rem: Remediation,
  current: RepairIntent,
): RepairDecision {
  const { a, policy, now, dryRun } = j;
  const step = policy.ladder[rem.step];
  // A refused attempt held on the power state (the machine stopped on request, or the provider
  // could not say: power-before-action.ts) whose node is back now (someone started it): the
  // ladder judges it as an accepted one, so a node back is verified, not rebooted.
  const judged: RepairIntent =
    current.result === 'Failed' && current.silentAsks !== undefined && isHealthyNow(j)
      ? { ...current, result: 'Succeeded' }
      : current;
  const v = progressLadder({
    ladder: policy.ladder,
    intent: judged,
    nodeBack: isHealthyNow(j),
    readySinceMs: j.obs.ready?.transitionAt,
    healthySince: s.healthySince,
    minHealthyPeriodMs: policy.minHealthyPeriodMs,
    retryBackoffMs: policy.retryBackoffMs,
    actionIdFor: (at, st) => actionIdFor(rem.id, st, at.attempt),
    now,
  });
  switch (v.kind) {
    case 'Replay': {
      // An action that can power the machine on is re-issued (once its backoff is over) only
      // on a power state asked now: someone may have stopped the machine since it was first
      // sent (power-before-action.ts).
      if (canPowerOn(current.action) && now >= replayDueAt(rem, current)) {
        const g = judgePowerBeforeAction(
          j.obs,
          current,
          `re-issuing ${current.action} ${current.actionId}`,
          current.replayedAt ?? current.issuedAt,
          policy,
          now,
        );
        if (g.kind === 'Hold')
          return heldForPower(
            j,
            s,
            rem,
            'Remediating',
            `intent ${current.actionId} has no completion, not re-issued`,
            g,
          );
      }
      return replayIntent(j, s, rem, current);
    }
    case 'BackingOff':
      return decision(
        j,
        enter(j, s, 'Verifying'),
        [],
        `${current.action} failed (${current.message ?? 'no message'}); next attempt after backoff`,
        v.retryAt - now,
      );
    case 'Succeeded': {
      const next: RepairState = {
        v: s.v,
        phase: 'Healthy',
        since: now,
        episodes: [], // a verified repair clears the flap memory; lastRemediation and history keep the past
        lastRemediation: {
          id: rem.id,
          endedAt: now,
          step: rem.step,
          result: 'Succeeded',
          ...(rem.rule !== undefined ? { rule: rem.rule } : {}),
        },
        history: appendHistory(
          s.history,
          historyEntry(rem, { action: current.action, result: 'Succeeded' }, now),
        ),
        ...(s.handledTrigger !== undefined ? { handledTrigger: s.handledTrigger } : {}),
      };
      return decision(
        j,
        next,
        undoAction(
          rem,
          dryRun,
          `Ready for ${formatDuration(now - v.healthySince)} after ${step?.action ?? 'repair'}: repair succeeded`,
        ),
        `repair ${rem.id} succeeded: Ready for at least ${formatDuration(policy.minHealthyPeriodMs)}`,
      );
    }
    case 'Verifying':
      return decision(
        j,
        enter(j, { ...s, healthySince: v.healthySince }, 'Verifying'),
        [],
        `Ready since ${iso(v.healthySince)}; counting as repaired after ${formatDuration(policy.minHealthyPeriodMs)}`,
        v.okAt - now,
      );
    case 'AwaitingReady': {
      const fence = fenceAction(rem, current, dryRun);
      return decision(
        j,
        enter(j, notHealthy(s), 'Verifying'),
        fence,
        `waiting for the node to become Ready after ${step?.action ?? 'repair'} (until ${iso(v.deadline)}): ${a.detail}`,
        // While the fence is unconfirmed, ask again at the recheck pace.
        fence.length > 0
          ? Math.min(v.deadline - now, policy.stormGuard.recheckIntervalMs)
          : v.deadline - now,
      );
    }
    case 'Next':
    case 'Exhausted': {
      // A provider's failure is evidence: the attempt ends. Unless the machine was stopped on
      // request meanwhile (a SoftReboot of a stopped server is refused): the power state,
      // asked now, decides first (power-before-action.ts), so a refusal is no failed attempt
      // leading to a HardReboot that would power it on.
      if (v.ended.result === 'Failed') {
        const failed = `${current.action} attempt ${rem.attempt} failed: ${v.ended.message ?? 'provider reported failure'}`;
        const g = judgePowerBeforeAction(
          j.obs,
          current,
          v.kind === 'Next' ? `moving on to ${v.intent.action}` : 'giving up',
          current.completedAt ?? now,
          policy,
          now,
        );
        if (g.kind === 'Hold') return heldForPower(j, notHealthy(s), rem, 'Verifying', failed, g);
        const nextF = g.poweredOff === true ? pastGuestSteps(j, rem, v) : v;
        return applyAdvance(j, s, rem, nextF, `${failed}${nextF !== v ? `; ${SOFT_SKIPPED}` : ''}`);
      }
      // A timeout ends the attempt only on fresh evidence (fresh-evidence.ts); without it the
      // repair waits, storm or not (so the storm guard cannot change this decision, and a
      // reconcile decides it alone: the provider is asked once).
      const e = judgeTimeoutEvidence(j.obs, current, policy, now);
      if (e.kind === 'Hold') return awaitingEvidence(j, s, rem, current, v.ended.timeoutMs, e);
      // Evidence judged on a status the storm may have made stale waits: a machine that runs
      // and whose node is silent may only have lost its link, with the whole zone.
      if (j.stormPause !== undefined)
        return pausedByStorm(j, s, rem, current, v.ended.timeoutMs, j.stormPause);
      const next = e.poweredOff === true ? pastGuestSteps(j, rem, v) : v;
      // An action that can power the machine on goes out only on a power state asked now: the
      // machine may have been stopped on request since the last answer (power-before-action.ts).
      if (next.kind === 'Next' && canPowerOn(next.intent.action)) {
        const g = judgePowerBeforeAction(
          j.obs,
          current,
          next.intent.action,
          current.completedAt ?? now,
          policy,
          now,
        );
        if (g.kind === 'Hold')
          return heldForPower(
            j,
            notHealthy(s),
            rem,
            'Verifying',
            `not Ready ${formatDuration(v.ended.timeoutMs)} after ${current.action} attempt ${rem.attempt}, ${e.evidence}`,
            g,
          );
      }
      return applyAdvance(
        j,
        notHealthy(s),
        rem,
        next,
        `not Ready ${formatDuration(v.ended.timeoutMs)} after ${step?.action ?? 'repair'} attempt ${rem.attempt}: ${a.detail}; ${e.evidence}${
          next !== v ? `; ${SOFT_SKIPPED}` : ''
        }`,
      );
    }
  }
}

/**
 * The attempt timed out while the storm guard sees a mass loss of status (StormPause): when a
 * zone loses its link to the control plane every node in it turns Unknown, and one our action
 * did bring back cannot say so. Escalating on that (a second reboot, a Replace that deletes
 * the machine) would act on stale evidence, so the repair waits: no next attempt, no give-up,
 * asked again at the recheck pace; it escalates as before once the storm lifts and the node is
 * still not Ready (as medik8s Self Node Remediation does when most peers cannot reach the API).
 */
function pausedByStorm(
  j: Judge,
  s: RepairState,
  rem: Remediation,
  current: RepairIntent,
  timeoutMs: number,
  pause: StormPause,
): RepairDecision {
  const { policy } = j;
  return decision(
    j,
    enter(j, notHealthy(s), 'Verifying'),
    [],
    `not Ready ${formatDuration(timeoutMs)} after ${current.action} attempt ${rem.attempt}, but ${pause.reason}: ` +
      `the node's status may be stale, so the repair waits (no next attempt, no give-up) until the storm lifts`,
    policy.stormGuard.recheckIntervalMs,
  );
}

/**
 * The attempt timed out, but the node has been silent since the action and the provider could
 * not settle whether its machine runs (fresh-evidence.ts): no fresh evidence, so no next
 * attempt and no give-up, nothing used up; the provider's answer is counted on the intent (the
 * backoff of the next ask) and the repair looks again when it is due.
 */
function awaitingEvidence(
  j: Judge,
  s: RepairState,
  rem: Remediation,
  current: RepairIntent,
  timeoutMs: number,
  e: Extract<TimeoutEvidence, { kind: 'Hold' }>,
): RepairDecision {
  // (A hand-edited state without an intent keeps none: it is asked again at the first backoff.)
  const held =
    e.intent === undefined || rem.intent === undefined
      ? s
      : { ...s, remediation: { ...rem, intent: e.intent } };
  return decision(
    j,
    enter(j, notHealthy(held), 'Verifying'),
    [],
    heldTimeoutReason(current, rem.attempt, timeoutMs, e.detail),
    e.requeueAfterMs,
  );
}

const SOFT_SKIPPED = 'the machine is powered off, so SoftReboot (which asks the guest) is skipped';

/**
 * The power state asked before an action (power-before-action.ts) holds it: nothing is sent,
 * nothing used up; the provider's answer is counted on the intent (the backoff of the next
 * ask) and the repair looks again when it is due.
 */
function heldForPower(
  j: Judge,
  s: RepairState,
  rem: Remediation,
  phase: 'Remediating' | 'Verifying',
  what: string,
  g: Extract<PowerGate, { kind: 'Hold' }>,
): RepairDecision {
  const held =
    g.intent === undefined || rem.intent === undefined
      ? s
      : { ...s, remediation: { ...rem, intent: g.intent } };
  return decision(
    j,
    enter(j, held, phase),
    [],
    `${what}; ${g.detail} (no next attempt, no give-up, no attempt used)`,
    g.requeueAfterMs,
  );
}

/**
 * The machine is off or gone (the provider, asked after the timeout): a next SoftReboot asks a
 * guest that is not there, so the attempt goes on to the first later step that acts on the
 * machine itself, as a repair's first step does (start-repair.ts). `v` unchanged when the next
 * attempt is no SoftReboot or no later step is.
 */
function pastGuestSteps(
  j: Judge,
  rem: Remediation,
  v: Extract<LadderVerdict, { kind: 'Next' | 'Exhausted' }>,
): Extract<LadderVerdict, { kind: 'Next' | 'Exhausted' }> {
  if (v.kind !== 'Next' || v.intent.action !== 'SoftReboot') return v;
  const ladder = j.policy.ladder;
  const i = ladder.findIndex((st, k) => k > v.intent.step && st.action !== 'SoftReboot');
  const step = ladder[i];
  if (step === undefined) return v;
  const at = { step: i, attempt: 1 };
  return {
    kind: 'Next',
    intent: ladderIntent(step, at, actionIdFor(rem.id, step, 1), j.now),
    escalated: true,
    ended: v.ended,
  };
}
