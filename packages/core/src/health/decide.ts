// The repair state machine: (observation, persisted state, policy, now) -> next state and
// actions, each with its reason. Pure and deterministic: the same inputs always give the
// same decision, and `now` is an argument (the clock is never read here).
//
// Phases (see docs/health.md for the diagram):
//   Healthy -> Suspect (signal inside its timeout) -> Unhealthy (timeout passed, storm guard
//   holds it) -> Remediating (intent recorded, action running) -> Verifying (action done,
//   waiting for Ready + the minimum healthy period) -> Healthy, or the next attempt / step,
//   or Failed when the ladder is exhausted. Waiting: the node is shutting down.
import { assessNode, type Assessment } from './assess.js';
import type { Cause } from './cause.js';
import { getCondition, NodeReady, type HealthObservation } from './node.js';
import type { LadderStep, RemediationStepKind, RepairPolicy } from './policy.js';
import {
  initialRepairState,
  type ActionResult,
  type Remediation,
  type RepairPhase,
  type RepairState,
} from './state.js';
import type { StormVerdict } from './storm-guard.js';
import { formatDuration, iso, nowMillis, toMillis } from './time.js';

interface ActionBase {
  reason: string;
  /** From the policy: the shell reports the action but changes nothing in the cluster. */
  dryRun: boolean;
}

export type RepairAction =
  | (ActionBase & { type: 'Cordon' })
  | (ActionBase & {
      type: 'Drain';
      unreachable: boolean;
      timeoutMs: number;
      outOfServiceAfterMs: number;
    })
  | (ActionBase & {
      type: 'Remediate';
      action: RemediationStepKind;
      /** Stable id; a provider receiving an id it already executed must not act again. */
      actionId: string;
      step: number;
      attempt: number;
      /** True when re-issuing an intent found without completion (e.g. after a restart). */
      replay: boolean;
    })
  | (ActionBase & { type: 'Uncordon'; removeOutOfServiceTaint: boolean })
  | (ActionBase & { type: 'GiveUp' })
  | (ActionBase & { type: 'Forget' });

export interface RepairDecision {
  node: string;
  at: number;
  cause: Cause;
  signal: Assessment['signal'];
  previousPhase: RepairPhase;
  phase: RepairPhase;
  /** undefined when the Node is gone (there is nothing left to annotate). */
  nextState: RepairState | undefined;
  actions: RepairAction[];
  requeueAfterMs?: number;
  reason: string;
}

/** Result of executing a Remediate action, reported back by the shell. */
export interface ActionOutcome {
  actionId: string;
  result: ActionResult;
  at: Date | number;
  message?: string;
}

export interface DecideContext {
  /** The storm guard's verdict for this node; absent means admitted (single-node use). */
  storm?: StormVerdict;
}

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

export function decideRepair(
  obs: HealthObservation,
  persisted: RepairState | undefined,
  policy: RepairPolicy,
  nowInput: Date | number,
  ctx: DecideContext = {},
): RepairDecision {
  const now = nowMillis(nowInput);
  const prev = persisted ?? initialRepairState(now);
  const a = assessNode(obs, prev, policy, now);
  const base = {
    node: obs.nodeName,
    at: now,
    cause: a.cause,
    signal: a.signal,
    previousPhase: prev.phase,
  };
  const dryRun = policy.dryRun;
  const out = (
    next: RepairState | undefined,
    actions: RepairAction[],
    reason: string,
    requeueAfterMs?: number,
  ): RepairDecision => ({
    ...base,
    phase: next?.phase ?? prev.phase,
    nextState: next,
    actions,
    reason,
    ...(requeueAfterMs !== undefined
      ? { requeueAfterMs: Math.max(1, Math.ceil(requeueAfterMs)) }
      : {}),
  });
  const enter = (
    s: RepairState,
    phase: RepairPhase,
    extra: Partial<RepairState> = {},
  ): RepairState => {
    const next: RepairState = { ...s, ...extra, phase, since: s.phase === phase ? s.since : now };
    return next;
  };

  if (a.signal === 'gone') {
    return out(
      undefined,
      [{ type: 'Forget', reason: a.detail, dryRun }],
      `${a.detail}: nothing left to repair or annotate`,
    );
  }
  let s: RepairState = { ...prev, episodes: a.episodes };
  if (a.signal === 'paused') {
    return out(s, [], `not judged: ${a.detail}`);
  }

  const rem = s.remediation;
  const ready = getCondition(obs.node, NodeReady);
  const isHealthyNow =
    a.signal === 'healthy' && a.cause.kind === 'Healthy' && ready?.status === 'True';

  // --- A remediation is in progress -------------------------------------------------------
  if (rem !== undefined && (s.phase === 'Remediating' || s.phase === 'Verifying')) {
    if (a.newTrigger !== undefined) s = { ...s, handledTrigger: a.newTrigger };
    const intent = rem.intent;
    if (a.signal === 'waiting') {
      return out(
        s,
        [],
        `${a.detail} (remediation ${rem.id} paused until it finishes)`,
        policy.stormGuard.recheckIntervalMs,
      );
    }
    if (intent !== undefined && intent.completedAt === undefined) {
      // Found an intent without completion: either the shell is about to run it, or a
      // controller died between recording and completing it. Re-issue the same id; the
      // provider deduplicates, so the action happens at most once.
      const replays = (intent.replays ?? 0) + 1;
      const next = enter(
        { ...s, remediation: { ...rem, intent: { ...intent, replays } } },
        'Remediating',
      );
      return out(
        next,
        [
          {
            type: 'Remediate',
            action: intent.action,
            actionId: intent.actionId,
            step: intent.step,
            attempt: intent.attempt,
            replay: true,
            dryRun,
            reason: `re-issuing in-flight ${intent.action} ${intent.actionId} issued at ${iso(intent.issuedAt)} with no recorded completion`,
          },
        ],
        `intent ${intent.actionId} has no completion: re-issued with the same id`,
        // If the completion is still missing next time, look again at a calm pace.
        policy.stormGuard.recheckIntervalMs,
      );
    }
    const step = policy.ladder[rem.step];
    const completedAt = intent?.completedAt ?? rem.startedAt;
    if (intent?.result === 'Failed') {
      const retryAt = completedAt + policy.retryBackoffMs;
      if (now < retryAt)
        return out(
          enter(s, 'Verifying'),
          [],
          `${intent.action} failed (${intent.message ?? 'no message'}); next attempt after backoff`,
          retryAt - now,
        );
      return nextAttempt(
        s,
        rem,
        policy,
        now,
        out,
        enter,
        `${intent.action} attempt ${rem.attempt} failed: ${intent.message ?? 'provider reported failure'}`,
      );
    }
    if (isHealthyNow) {
      const readySince = Math.max(toMillis(ready?.lastTransitionTime) ?? now, completedAt);
      const healthySince = s.healthySince ?? Math.max(readySince, completedAt);
      const okAt = healthySince + policy.minHealthyPeriodMs;
      if (now >= okAt) {
        const next: RepairState = {
          v: s.v,
          phase: 'Healthy',
          since: now,
          episodes: s.episodes,
          lastRemediation: { id: rem.id, endedAt: now, step: rem.step, result: 'Succeeded' },
          ...(s.handledTrigger !== undefined ? { handledTrigger: s.handledTrigger } : {}),
        };
        return out(
          next,
          rem.cordoned
            ? [
                {
                  type: 'Uncordon',
                  removeOutOfServiceTaint: true,
                  dryRun,
                  reason: `Ready for ${formatDuration(now - healthySince)} after ${step?.action ?? 'repair'}: repair succeeded`,
                },
              ]
            : [],
          `repair ${rem.id} succeeded: Ready for at least ${formatDuration(policy.minHealthyPeriodMs)}`,
        );
      }
      return out(
        enter({ ...s, healthySince }, 'Verifying'),
        [],
        `Ready since ${iso(healthySince)}; counting as repaired after ${formatDuration(policy.minHealthyPeriodMs)}`,
        okAt - now,
      );
    }
    const { healthySince: _dropped, ...notHealthy } = s;
    const deadline = completedAt + (step?.timeoutMs ?? 0);
    if (now < deadline) {
      return out(
        enter(notHealthy, 'Verifying'),
        [],
        `waiting for the node to become Ready after ${step?.action ?? 'repair'} (until ${iso(deadline)}): ${a.detail}`,
        deadline - now,
      );
    }
    return nextAttempt(
      notHealthy,
      rem,
      policy,
      now,
      out,
      enter,
      `not Ready ${formatDuration(step?.timeoutMs ?? 0)} after ${step?.action ?? 'repair'} attempt ${rem.attempt}: ${a.detail}`,
    );
  }

  // --- Gave up earlier: only a healthy period or a new manual trigger gets out of Failed ---
  if (s.phase === 'Failed' && a.newTrigger === undefined) {
    if (isHealthyNow) {
      const healthySince =
        s.healthySince ?? Math.max(toMillis(ready?.lastTransitionTime) ?? now, s.since);
      const okAt = healthySince + policy.minHealthyPeriodMs;
      if (now >= okAt) {
        const { remediation: gaveUp, healthySince: _h, ...rest } = s;
        return out(
          enter(rest, 'Healthy'),
          gaveUp?.cordoned
            ? [
                {
                  type: 'Uncordon',
                  removeOutOfServiceTaint: true,
                  dryRun,
                  reason: 'the node recovered on its own after the repair gave up',
                },
              ]
            : [],
          'recovered after giving up',
        );
      }
      return out(
        { ...s, healthySince },
        [],
        'Ready again after giving up; waiting for the minimum healthy period',
        okAt - now,
      );
    }
    const { healthySince: _h, ...rest } = s;
    return out(
      rest,
      [],
      `repair gave up earlier; waiting for recovery or the ${policy.annotations.trigger} annotation`,
    );
  }

  // --- No remediation in progress ----------------------------------------------------------
  const { healthySince: _h, remediation: previous, ...idle } = s;
  // After giving up we keep cordon ownership, so a manual retry still uncordons in the end.
  const ownsCordon = previous?.cordoned === true;
  switch (a.signal) {
    case 'waiting':
      return out(enter(idle, 'Waiting'), [], a.detail, policy.stormGuard.recheckIntervalMs);
    case 'healthy':
      return out(enter(idle, 'Healthy'), [], a.detail);
    case 'suspect':
      return out(enter(idle, 'Suspect'), [], a.detail, a.requeueAfterMs);
    case 'unhealthy': {
      const verdict = ctx.storm ?? { admitted: true, reason: 'no storm guard verdict given' };
      if (!verdict.admitted) {
        return out(
          enter(idle, 'Unhealthy'),
          [],
          `unhealthy (${a.detail}) but held: ${verdict.reason}`,
          policy.stormGuard.recheckIntervalMs,
        );
      }
      return startRemediation(idle, obs, a, policy, now, out, enter, ownsCordon);
    }
  }
}

type Out = (
  next: RepairState | undefined,
  actions: RepairAction[],
  reason: string,
  requeueAfterMs?: number,
) => RepairDecision;
type Enter = (s: RepairState, phase: RepairPhase, extra?: Partial<RepairState>) => RepairState;

export function actionIdFor(remediationId: string, step: LadderStep, attempt: number): string {
  return `${remediationId}/${step.action}-${attempt}`;
}

/** First ladder step for a new remediation: one higher than last time if the node failed again soon after a repair. */
function firstStep(
  s: RepairState,
  policy: RepairPolicy,
  now: number,
): { step: number; why: string } {
  const last = s.lastRemediation;
  if (
    last !== undefined &&
    last.result === 'Succeeded' &&
    now - last.endedAt <= policy.flap.escalateWithinMs
  ) {
    const step = Math.min(last.step + 1, policy.ladder.length - 1);
    return {
      step,
      why: `unhealthy again ${formatDuration(now - last.endedAt)} after repair ${last.id}: escalating`,
    };
  }
  return { step: 0, why: '' };
}

function startRemediation(
  s: RepairState,
  obs: HealthObservation,
  a: Assessment,
  policy: RepairPolicy,
  now: number,
  out: Out,
  enter: Enter,
  ownsCordon: boolean,
): RepairDecision {
  const dryRun = policy.dryRun;
  const { step: stepIndex, why } = firstStep(s, policy, now);
  const step = policy.ladder[stepIndex];
  if (step === undefined)
    return out(
      enter(s, 'Failed'),
      [{ type: 'GiveUp', dryRun, reason: 'the policy ladder has no steps' }],
      'no repair configured',
    );
  const id = `${obs.nodeName}/${now}`;
  const alreadyCordoned = obs.node?.spec?.unschedulable === true;
  const actionId = actionIdFor(id, step, 1);
  const rem: Remediation = {
    id,
    startedAt: now,
    cause: a.cause.kind,
    step: stepIndex,
    attempt: 1,
    cordoned: !alreadyCordoned || ownsCordon,
    intent: { actionId, action: step.action, step: stepIndex, attempt: 1, issuedAt: now },
  };
  const unreachable = a.cause.kind === 'KubeletUnreachable' || a.cause.kind === 'StaleHeartbeat';
  const reason = `${a.cause.kind}: ${a.detail}${why ? `; ${why}` : ''}`;
  const actions: RepairAction[] = [];
  if (!alreadyCordoned) actions.push({ type: 'Cordon', dryRun, reason });
  if (policy.drain.enabled) {
    actions.push({
      type: 'Drain',
      unreachable,
      timeoutMs: policy.drain.timeoutMs,
      outOfServiceAfterMs: policy.drain.outOfServiceAfterMs,
      dryRun,
      reason: unreachable
        ? `${reason} (unreachable: out-of-service taint after ${formatDuration(policy.drain.outOfServiceAfterMs)})`
        : reason,
    });
  }
  actions.push({
    type: 'Remediate',
    action: step.action,
    actionId,
    step: stepIndex,
    attempt: 1,
    replay: false,
    dryRun,
    reason,
  });
  const next = enter(s, 'Remediating', {
    remediation: rem,
    ...(a.newTrigger !== undefined ? { handledTrigger: a.newTrigger } : {}),
  });
  return out(
    next,
    actions,
    `starting repair ${id} with ${step.action} (step ${stepIndex + 1} of ${policy.ladder.length}): ${reason}`,
  );
}

function nextAttempt(
  s: RepairState,
  rem: Remediation,
  policy: RepairPolicy,
  now: number,
  out: Out,
  enter: Enter,
  why: string,
): RepairDecision {
  const dryRun = policy.dryRun;
  const current = policy.ladder[rem.step];
  let stepIndex = rem.step;
  let attempt = rem.attempt + 1;
  if (current === undefined || attempt > current.attempts) {
    stepIndex = rem.step + 1;
    attempt = 1;
  }
  const step = policy.ladder[stepIndex];
  if (step === undefined) {
    const { healthySince: _h, ...rest } = s;
    const { intent: _i, ...remNoIntent } = rem;
    // The remediation record stays (without intent) so that a later recovery knows whether we cordoned.
    const next = enter(
      {
        ...rest,
        remediation: remNoIntent,
        lastRemediation: { id: rem.id, endedAt: now, step: rem.step, result: 'Failed' },
      },
      'Failed',
    );
    return out(
      next,
      [{ type: 'GiveUp', dryRun, reason: `${why}; every step of the ladder is used up` }],
      `repair ${rem.id} failed: ladder exhausted`,
    );
  }
  const actionId = actionIdFor(rem.id, step, attempt);
  const next = enter(
    {
      ...s,
      remediation: {
        ...rem,
        step: stepIndex,
        attempt,
        intent: { actionId, action: step.action, step: stepIndex, attempt, issuedAt: now },
      },
    },
    'Remediating',
  );
  const kind =
    stepIndex > rem.step
      ? `escalating to ${step.action}`
      : `retrying ${step.action} (attempt ${attempt} of ${step.attempts})`;
  return out(
    next,
    [
      {
        type: 'Remediate',
        action: step.action,
        actionId,
        step: stepIndex,
        attempt,
        replay: false,
        dryRun,
        reason: `${why}; ${kind}`,
      },
    ],
    `${kind}`,
  );
}
