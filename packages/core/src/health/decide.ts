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
// How a repair climbs the ladder (replay, backoff, step timeout, minimum healthy period,
// retry then escalate, exhausted) is ladder.ts's progressLadder, shared with the Cluster API
// remediation controller; this file adds what is specific to a Node annotation: assessment,
// cordon and drain, flap escalation, manual triggers and the storm guard.
import { assessNode, type Assessment } from './assess.js';
import { withFlapMemory } from './episodes.js';
import type { Cause } from './cause.js';
import { getCondition, NodeReady, type HealthObservation } from './node.js';
import {
  advanceLadder,
  ladderIntent,
  progressLadder,
  type LadderIntent,
  type LadderVerdict,
} from './ladder.js';
import { decideAfterReplace, isAcceptedReplace, type DeleteNodeAction } from './replace.js';
import type { LadderStep, RemediationStepKind, RepairPolicy } from './policy.js';
import {
  initialRepairState,
  type FenceRecord,
  type ActionResult,
  type DrainRecord,
  type Remediation,
  type RepairIntent,
  type RepairPhase,
  type RepairState,
} from './state.js';
import type { StormVerdict } from './storm-guard.js';
import { canFence } from '../provider/fence.js';
import { formatDuration, iso, nowMillis, toMillis } from './time.js';

interface ActionBase {
  reason: string;
  /** From the policy: the shell reports the action but changes nothing in the cluster. */
  dryRun: boolean;
}

export type RepairAction =
  | (ActionBase & { type: 'Cordon' })
  | (ActionBase & {
      /**
       * One drain pass (the shell never waits in it): evict what may go now, then either
       * report the drain over (recordDrain) and go on to the next action, or stop and look
       * again shortly. The drain is a phase: `startedAt` is persisted, the timeout counts
       * from it.
       */
      type: 'Drain';
      /** The remediation the drain belongs to (recordDrain ignores a stale report). */
      remediationId: string;
      startedAt: number;
      /** When an earlier pass last had an eviction accepted. */
      lastEvictedAt?: number;
      unreachable: boolean;
      timeoutMs: number;
      outOfServiceAfterMs: number;
    })
  | (ActionBase & {
      type: 'Remediate';
      action: RemediationStepKind;
      /** For Rebuild: the image to rebuild from. */
      image?: string;
      /** Stable id; a provider receiving an id it already executed must not act again. */
      actionId: string;
      /** When the intent was persisted (the provider looks at what happened since). */
      issuedAt: number;
      step: number;
      attempt: number;
      /** True when re-issuing an intent found without completion (e.g. after a restart). */
      replay: boolean;
      /** How many times this intent was re-issued so far (paces the wait for a provider outage). */
      replays?: number;
    })
  | (ActionBase & {
      /**
       * The action was accepted, the node is still not Ready: ask whether the machine is
       * fenced and, only if it is and pods remain on the node, add the out-of-service taint
       * so the pod GC and the attach-detach controller can free stateful pods. Never for a
       * SoftReboot (provider/fence.ts).
       */
      type: 'Fence';
      action: RemediationStepKind;
      actionId: string;
      issuedAt: number;
      /** The Node's bootID when the intent was persisted. */
      bootIdBefore?: string;
      /** The Node's providerID when the intent was persisted (identity before the taint). */
      providerID?: string;
    })
  | (ActionBase & {
      type: 'Uncordon';
      /** Remove node.kubernetes.io/out-of-service: only when this repair added it. */
      removeOutOfServiceTaint: boolean;
      /** Leave spec.unschedulable alone: someone else cordoned the node. */
      keepCordon?: boolean;
    })
  /** After an accepted Replace: once the machine is fenced, delete the Node (replace.ts). */
  | DeleteNodeAction
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
  /** The node wants a repair but is held: by which brake and why (storm guard, another actor). */
  held?: Extract<StormVerdict, { admitted: false }>;
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
  remediationId: string;
  lastEvictedAt?: number;
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

/** True while the remediation's drain phase runs: begun, not ended, the action not yet sent. */
function draining(
  rem: Remediation,
  intent: RepairIntent | undefined,
): rem is Remediation & {
  drain: DrainRecord;
} {
  return (
    rem.drain !== undefined &&
    rem.drain.endedAt === undefined &&
    intent !== undefined &&
    intent.completedAt === undefined
  );
}

/** The next drain pass of `rem` (pure). */
function drainAction(
  rem: Remediation,
  drain: DrainRecord,
  policy: RepairPolicy,
  dryRun: boolean,
  reason: string,
): RepairAction {
  const unreachable = rem.cause === 'KubeletUnreachable' || rem.cause === 'StaleHeartbeat';
  return {
    type: 'Drain',
    remediationId: rem.id,
    startedAt: drain.startedAt,
    ...(drain.lastEvictedAt !== undefined ? { lastEvictedAt: drain.lastEvictedAt } : {}),
    unreachable,
    timeoutMs: policy.drain.timeoutMs,
    outOfServiceAfterMs: policy.drain.outOfServiceAfterMs,
    dryRun,
    reason: unreachable
      ? `${reason} (unreachable: evicted pods cannot terminate; going on ${formatDuration(policy.drain.outOfServiceAfterMs)} after the last eviction; no out-of-service taint before the machine is fenced)`
      : reason,
  };
}

/** The Uncordon that ends a repair: undo only what this repair did (cordon, taint). */
function undoAction(rem: Remediation | undefined, dryRun: boolean, reason: string): RepairAction[] {
  const taint = rem?.fenced?.taintAdded === true;
  if (rem?.cordoned !== true && !taint) return [];
  return [
    {
      type: 'Uncordon',
      removeOutOfServiceTaint: taint,
      ...(rem?.cordoned === true ? {} : { keepCordon: true }),
      dryRun,
      reason,
    },
  ];
}

/** Fence check while the node is down after an accepted action that can fence (pure). */
function fenceAction(rem: Remediation, intent: RepairIntent, dryRun: boolean): RepairAction[] {
  if (
    rem.fenced !== undefined ||
    intent.result !== 'Succeeded' ||
    intent.actionId === '' ||
    !canFence(intent.action)
  )
    return [];
  return [
    {
      type: 'Fence',
      action: intent.action,
      actionId: intent.actionId,
      issuedAt: intent.issuedAt,
      ...(intent.bootId !== undefined ? { bootIdBefore: intent.bootId } : {}),
      ...(intent.providerID !== undefined ? { providerID: intent.providerID } : {}),
      dryRun,
      reason: `${intent.action} ${intent.actionId} accepted, node not Ready: is the machine fenced?`,
    },
  ];
}

/** The Node's bootID and providerID, kept with an intent (fencing evidence and identity). */
function bootIdOf(obs: HealthObservation): { bootId?: string; providerID?: string } {
  const id = obs.node?.status?.nodeInfo?.bootID;
  const pid = obs.node?.spec?.providerID;
  return {
    ...(id !== undefined && id !== '' ? { bootId: id } : {}),
    ...(pid !== undefined && pid !== '' ? { providerID: pid } : {}),
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
  let s: RepairState = withFlapMemory(prev, a);
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
    // After an accepted Replace the machine is going away: a Ready node is no success and a
    // node shutting down is the Replace taking effect, so neither pauses the Node's deletion
    // (a shutting-down node still never gets a next action: its timeout waits, as below).
    const afterReplace = isAcceptedReplace(intent)
      ? decideAfterReplace({
          rem,
          intent,
          timeoutMs: policy.ladder[intent.step]?.timeoutMs ?? 0,
          recheckIntervalMs: policy.stormGuard.recheckIntervalMs,
          dryRun,
          now,
        })
      : undefined;
    if (
      afterReplace !== undefined &&
      intent !== undefined &&
      (afterReplace.kind === 'DeleteNode' || a.signal !== 'waiting')
    ) {
      const r = afterReplace;
      const { healthySince: _dropped, ...notHealthy } = s;
      if (r.kind === 'DeleteNode')
        return out(enter(notHealthy, 'Verifying'), [r.action], r.reason, r.requeueAfterMs);
      const v = advanceLadder(
        policy.ladder,
        intent,
        { result: 'TimedOut', timeoutMs: r.timeoutMs },
        (at, st) => actionIdFor(rem.id, st, at.attempt),
        now,
      );
      return applyAdvance(
        notHealthy,
        rem,
        v,
        policy,
        now,
        out,
        enter,
        `the machine was not known fenced ${formatDuration(r.timeoutMs)} after ${intent.action} attempt ${rem.attempt}: the Node is not deleted`,
        bootIdOf(obs),
      );
    }
    if (a.signal === 'waiting') {
      return out(
        s,
        [],
        `${a.detail} (remediation ${rem.id} paused until it finishes)`,
        policy.stormGuard.recheckIntervalMs,
      );
    }
    const step = policy.ladder[rem.step];
    // Remediating/Verifying always has an intent; should a hand-edited state lack one, count
    // the step's time from the repair's start.
    const current: RepairIntent = intent ?? {
      actionId: '',
      action: step?.action ?? 'SoftReboot',
      step: rem.step,
      attempt: rem.attempt,
      issuedAt: rem.startedAt,
      completedAt: rem.startedAt,
    };
    // Draining: one more pass, then (once the shell has recorded the drain's end) the action.
    // The action was never sent while the drain has no end, so it goes out as a first send,
    // unless it is a re-issue that started this drain (replays counted).
    if (draining(rem, current) && policy.drain.enabled && intent !== undefined) {
      const drain = rem.drain;
      const until = drain.startedAt + policy.drain.timeoutMs;
      return out(
        enter(s, 'Remediating'),
        [
          drainAction(
            rem,
            drain,
            policy,
            dryRun,
            `repair ${rem.id}: draining before ${current.action}`,
          ),
          remediateAction(
            current,
            current.replays !== undefined,
            dryRun,
            `drained (or the drain timed out): ${current.action} for repair ${rem.id}`,
          ),
        ],
        `draining since ${iso(drain.startedAt)} (gives up waiting at ${iso(until)}); ${current.action} follows`,
        Math.max(1, until - now),
      );
    }
    const v = progressLadder({
      ladder: policy.ladder,
      intent: current,
      nodeBack: isHealthyNow,
      readySinceMs: toMillis(ready?.lastTransitionTime),
      healthySince: s.healthySince,
      minHealthyPeriodMs: policy.minHealthyPeriodMs,
      retryBackoffMs: policy.retryBackoffMs,
      actionIdFor: (at, st) => actionIdFor(rem.id, st, at.attempt),
      now,
    });
    switch (v.kind) {
      case 'Replay': {
        // Found an intent without completion: either the shell is about to run it, or a
        // controller died between recording and completing it. Re-issue the same id; the
        // provider deduplicates, so the action happens at most once.
        const replays = (current.replays ?? 0) + 1;
        // A state from before drain phases (or with drain just enabled): the previous
        // controller may have stopped mid-drain, so this re-issue drains first, as a phase.
        if (policy.drain.enabled && !dryRun && rem.cordoned && rem.drain === undefined) {
          const drain: DrainRecord = { startedAt: now };
          const remD: Remediation = { ...rem, intent: { ...current, replays }, drain };
          const why = `finishing the drain of repair ${rem.id} before re-issuing its action (a previous controller may have stopped mid-drain)`;
          return out(
            enter({ ...s, remediation: remD }, 'Remediating'),
            [
              drainAction(remD, drain, policy, dryRun, why),
              remediateAction(
                { ...current, replays },
                true,
                dryRun,
                `re-issuing in-flight ${current.action} ${current.actionId} issued at ${iso(current.issuedAt)} with no recorded completion`,
              ),
            ],
            `intent ${current.actionId} has no completion: draining, then re-issued with the same id`,
            policy.drain.timeoutMs,
          );
        }
        const next = enter(
          { ...s, remediation: { ...rem, intent: { ...current, replays } } },
          'Remediating',
        );
        return out(
          next,
          [
            remediateAction(
              { ...current, replays },
              true,
              dryRun,
              `re-issuing in-flight ${current.action} ${current.actionId} issued at ${iso(current.issuedAt)} with no recorded completion`,
            ),
          ],
          `intent ${current.actionId} has no completion: re-issued with the same id`,
          // If the completion is still missing next time, look again at a calm pace.
          policy.stormGuard.recheckIntervalMs,
        );
      }
      case 'BackingOff':
        return out(
          enter(s, 'Verifying'),
          [],
          `${current.action} failed (${current.message ?? 'no message'}); next attempt after backoff`,
          v.retryAt - now,
        );
      case 'Succeeded': {
        const next: RepairState = {
          v: s.v,
          phase: 'Healthy',
          since: now,
          episodes: [], // a verified repair clears the flap memory; lastRemediation keeps the history
          lastRemediation: { id: rem.id, endedAt: now, step: rem.step, result: 'Succeeded' },
          ...(s.handledTrigger !== undefined ? { handledTrigger: s.handledTrigger } : {}),
        };
        return out(
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
        return out(
          enter({ ...s, healthySince: v.healthySince }, 'Verifying'),
          [],
          `Ready since ${iso(v.healthySince)}; counting as repaired after ${formatDuration(policy.minHealthyPeriodMs)}`,
          v.okAt - now,
        );
      case 'AwaitingReady': {
        const { healthySince: _dropped, ...notHealthy } = s;
        const fence = fenceAction(rem, current, dryRun);
        return out(
          enter(notHealthy, 'Verifying'),
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
        const { healthySince: _dropped, ...notHealthy } = s;
        const why =
          v.ended.result === 'Failed'
            ? `${current.action} attempt ${rem.attempt} failed: ${v.ended.message ?? 'provider reported failure'}`
            : `not Ready ${formatDuration(v.ended.timeoutMs)} after ${step?.action ?? 'repair'} attempt ${rem.attempt}: ${a.detail}`;
        return applyAdvance(
          v.ended.result === 'Failed' ? s : notHealthy,
          rem,
          v,
          policy,
          now,
          out,
          enter,
          why,
          bootIdOf(obs),
        );
      }
    }
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
          undoAction(gaveUp, dryRun, 'the node recovered on its own after the repair gave up'),
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
      return out(
        enter(idle, 'Waiting'),
        [],
        a.detail,
        Math.min(a.requeueAfterMs ?? Infinity, policy.stormGuard.recheckIntervalMs),
      );
    case 'healthy': {
      const { heldByStormSince: held, ...recovered } = idle;
      return out(enter(withoutStormEpisode(recovered, prev, held), 'Healthy'), [], a.detail);
    }
    case 'suspect':
      return out(enter(idle, 'Suspect'), [], a.detail, a.requeueAfterMs);
    case 'unhealthy': {
      const verdict = ctx.storm ?? { admitted: true, reason: 'no storm guard verdict given' };
      if (!verdict.admitted) {
        // Remember a storm hold (written with the move to Unhealthy, so no extra write): the
        // node then waits out the cooldown when the storm lifts. A maxInFlight hold is a queue,
        // not a storm: it starts as soon as a slot frees; so does a node another actor held.
        const held =
          (verdict.scope === 'fleet' || verdict.scope === 'failure-domain') &&
          idle.heldByStormSince === undefined
            ? { heldByStormSince: now }
            : {};
        return {
          ...out(
            enter(idle, 'Unhealthy', held),
            [],
            `unhealthy (${a.detail}) but held: ${verdict.reason}`,
            policy.stormGuard.recheckIntervalMs,
          ),
          held: verdict,
        };
      }
      const { heldByStormSince: _held, ...admitted } = idle;
      return startRemediation(admitted, obs, a, policy, now, out, enter, ownsCordon);
    }
  }
}

/**
 * A NotReady period the storm guard held the node through (for a storm, not for maxInFlight)
 * was its fleet's or failure domain's, not this node's flapping: it leaves the flap memory
 * when the node is Ready again. Counted, a few zone storms within the flap window would make
 * each of the zone's nodes "flapping", unhealthy the moment it next turns NotReady, and the
 * first one reconciled would be admitted before the informer shows the rest of its zone
 * failing with it: the condition timeouts that let the guard see a whole storm are skipped.
 */
function withoutStormEpisode(
  s: RepairState,
  prev: RepairState,
  heldByStormSince: number | undefined,
): RepairState {
  const period = prev.notReady?.since;
  if (heldByStormSince === undefined || period === undefined) return s;
  return { ...s, episodes: s.episodes.filter((t) => t !== period) };
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
  const first = firstStep(s, policy, now);
  const { step: stepIndex, why } = a.poweredOff === true ? skipGuestSteps(first, policy) : first;
  const step = policy.ladder[stepIndex];
  if (step === undefined)
    return out(
      enter(s, 'Failed'),
      [{ type: 'GiveUp', dryRun, reason: 'the policy ladder has no steps' }],
      'no repair configured',
    );
  const id = `${obs.nodeName}/${now}`;
  const alreadyCordoned = obs.node?.spec?.unschedulable === true;
  const intent: RepairIntent = {
    ...ladderIntent(step, { step: stepIndex, attempt: 1 }, actionIdFor(id, step, 1), now),
    ...bootIdOf(obs),
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
  };
  const reason = `${a.cause.kind}: ${a.detail}${why ? `; ${why}` : ''}`;
  const actions: RepairAction[] = [];
  if (!alreadyCordoned) actions.push({ type: 'Cordon', dryRun, reason });
  if (policy.drain.enabled)
    actions.push(drainAction(rem, drain ?? { startedAt: now }, policy, dryRun, reason));
  actions.push(remediateAction(intent, false, dryRun, reason));
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

/** Records what the shared ladder rules decided after an attempt ended: the next intent, or giving up. */
function applyAdvance(
  s: RepairState,
  rem: Remediation,
  v: Extract<LadderVerdict, { kind: 'Next' | 'Exhausted' }>,
  policy: RepairPolicy,
  now: number,
  out: Out,
  enter: Enter,
  why: string,
  bootId: { bootId?: string; providerID?: string },
): RepairDecision {
  const dryRun = policy.dryRun;
  if (v.kind === 'Exhausted') {
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
  const intent: RepairIntent = { ...v.intent, ...bootId };
  const next = enter(
    { ...s, remediation: { ...rem, step: intent.step, attempt: intent.attempt, intent } },
    'Remediating',
  );
  const attempts = policy.ladder[intent.step]?.attempts ?? 1;
  const kind = v.escalated
    ? `escalating to ${intent.action}`
    : `retrying ${intent.action} (attempt ${intent.attempt} of ${attempts})`;
  return out(next, [remediateAction(intent, false, dryRun, `${why}; ${kind}`)], `${kind}`);
}

/** The Remediate action that executes `intent`. */
function remediateAction(
  intent: LadderIntent & { replays?: number },
  replay: boolean,
  dryRun: boolean,
  reason: string,
): RepairAction {
  return {
    type: 'Remediate',
    action: intent.action,
    actionId: intent.actionId,
    issuedAt: intent.issuedAt,
    ...(replay && intent.replays !== undefined ? { replays: intent.replays } : {}),
    step: intent.step,
    attempt: intent.attempt,
    ...(intent.image !== undefined ? { image: intent.image } : {}),
    replay,
    dryRun,
    reason,
  };
}
