// The remediation ladder of an OpenStackRemediation, decided by @noderepair/core's health
// state machine. No I/O, no clock: `now` is an argument. The reconciler persists what this
// returns BEFORE it acts, so a restarted controller resumes from status.
//
// The rules themselves (one intent per attempt with a stable action id, completion recorded
// after the provider answered, the step timeout counted from that completion, a failed call
// using up the attempt after a backoff, retries within a step then the next step, Ready for
// minHealthySeconds = success, exhausted = give up) are core's `progressLadder`, the same
// function core's own `decideRepair` climbs its ladder with. Core keeps its progress in a
// Node annotation; this CRD keeps it in the OpenStackRemediation's status, where Cluster API
// users look. So this file only translates: spec.steps -> core LadderSteps (Rebuild carries
// its imageRef as the step's image), the last status.history entry + phase -> core's
// LadderIntent, the Node + status.bootID -> "is the node back", and core's verdict -> what
// the reconciler writes. Draining before the first action and the NodeRecovered condition
// (which persists core's healthySince as its lastTransitionTime) are this controller's own.
import {
  advanceLadder,
  nextLadderPosition,
  progressLadder,
  type LadderIntent,
  type LadderPosition,
  type LadderStep,
} from '@noderepair/core/health';
import type { Attempt, RemediationSpec, RemediationStatus, Step } from '../api/index.js';
import { judgeDeadline, type DeadlineEvidence } from './deadline.js';
import type { NodeView } from './node-view.js';

/** After a failed Nova call, wait this long before the next attempt (no racing the ladder through an outage). */
export const FAILED_ATTEMPT_BACKOFF_MS = 10_000;
/**
 * How often to look again while waiting for the Node, even without a watch event. The Node
 * watches (controller.ts) wake a remediation when its Node's Ready status or boot ID changes,
 * and a deadline requeues at the deadline, so this only bounds a missed event: polling every
 * few seconds would cost 5-6 GETs per waiting remediation each time.
 */
export const WAIT_RECHECK_MS = 30_000;

/** The condition recording that the Node came back after the action (its lastTransitionTime starts the minHealthySeconds clock). */
export const CONDITION_NODE_RECOVERED = 'NodeRecovered';

/** A place on the ladder: a 0-based index into spec.steps and a 1-based attempt of that step. */
export type Position = LadderPosition;

/** What the reconciler executes: the step at `at`, under the attempt's stable action id. */
export interface Action {
  /** Where on the ladder this action is. */
  readonly at: Position;
  /** The spec step at that position. */
  readonly step: Step;
  /** The attempt's id (see {@link actionIdFor}); the same on a replay, so Nova is never asked twice. */
  readonly actionId: string;
}

/**
 * What the reconciler does next for a remediation, as decided by {@link decideLadder}. It
 * persists the decision in status before acting on it; `requeueAfterMs` is milliseconds.
 */
export type LadderDecision =
  /** Terminal: Succeeded or Failed; nothing more to do. */
  | { readonly kind: 'Done' }
  /** Cordon and drain, then act on `first` (the first attempt of the first step). */
  | { readonly kind: 'Drain'; readonly first: Action }
  /** Persist this intent (phase Remediating, history InProgress, bootID), then execute it. */
  | ({ readonly kind: 'Act'; readonly ended?: EndedAttempt } & Action)
  /** An intent was persisted but its completion was not: execute it again with the same action id. */
  | ({ readonly kind: 'Replay' } & Action)
  /** The node came back after the action at `healthySinceMs`; record it (starts the minHealthySeconds clock). */
  | {
      readonly kind: 'MarkRecovered';
      readonly healthySinceMs: number;
      readonly requeueAfterMs: number;
    }
  /** The node is no longer back after having come back: clear the recovered mark. */
  | { readonly kind: 'MarkNotRecovered'; readonly requeueAfterMs: number }
  /** Nothing to do yet (backing off, or waiting for the node): look again after requeueAfterMs. */
  | { readonly kind: 'Wait'; readonly requeueAfterMs: number }
  /** Ready for minHealthySeconds: the attempt succeeded. */
  | { readonly kind: 'Succeed' }
  /** The ladder is used up: hand the Machine to Cluster API. */
  | { readonly kind: 'GiveUp'; readonly message: string; readonly ended?: EndedAttempt }
  /**
   * The step's timeout passed and the node has not reported since the action: gather this
   * evidence (the node's Lease, then Nova's view of the server now) and decide again with it.
   */
  | { readonly kind: 'Ask'; readonly what: 'Lease' | 'Server' }
  /**
   * The step's timeout passed, the node has been silent since the action and Nova (or the
   * node's cluster) cannot be asked: no escalation, no attempt used; say `message` and wait.
   */
  | {
      readonly kind: 'Hold';
      readonly cause: 'CloudUnavailable' | 'WorkloadUnreadable';
      readonly message: string;
      readonly detail: string;
    }
  /** The step's timeout passed and Nova says someone stopped the server: it stays off (ServerStopped). */
  | { readonly kind: 'ServerStopped'; readonly evidence: string };

/** How the previous attempt ended, when the decision also closes it. */
export interface EndedAttempt {
  /** TimedOut: the node was not back within the step's timeout; Failed: Nova refused or failed the action. */
  readonly result: 'TimedOut' | 'Failed';
  /** Why, for the history entry and the event. */
  readonly message: string;
}

/** Everything {@link decideLadder} reads: the remediation, its Node and the time. */
export interface LadderInput {
  /** The OpenStackRemediation's uid: action ids derive from it. */
  readonly uid: string;
  /** The remediation's spec (its ladder of steps, drain, minHealthySeconds). */
  readonly spec: RemediationSpec;
  /** The remediation's status as last persisted; undefined for a new remediation. */
  readonly status: RemediationStatus | undefined;
  /** The Machine's Node as read now; undefined when it is not found (e.g. during a rebuild). */
  readonly node: NodeView | undefined;
  /** lastTransitionTime of NodeRecovered=True, when set. */
  readonly recoveredSinceMs: number | undefined;
  /** The current time, ms since the epoch (the decision reads no clock itself). */
  readonly now: number;
  /**
   * What was gathered after an `Ask` decision (the node's Lease, Nova's view of the server):
   * at a step's timeout an attempt escalates only on fresh evidence (see deadline.ts).
   */
  readonly evidence?: DeadlineEvidence | undefined;
}

/** A stable, unique id per attempt: the same after a restart, never shared by two attempts. */
export function actionIdFor(uid: string, at: Position): string {
  return `${uid}/step-${at.step}/attempt-${at.attempt}`;
}

/** spec.steps as core's ladder: retries become attempts, Rebuild's imageRef the step's image. */
export function toCoreLadder(steps: readonly Step[]): LadderStep[] {
  return steps.map((s) => ({
    action: s.type,
    timeoutMs: s.timeoutSeconds * 1000,
    attempts: s.retries + 1,
    ...(s.imageRef !== undefined ? { image: s.imageRef } : {}),
  }));
}

/** The position after `at` on the ladder, or undefined when it is used up (core's rule). */
export function nextPosition(steps: readonly Step[], at: Position): Position | undefined {
  return nextLadderPosition(toCoreLadder(steps), at);
}

/** A one-line summary of the steps for messages, e.g. `SoftReboot x2, HardReboot, Rebuild`. */
export function describeLadder(steps: readonly Step[]): string {
  return steps.map((s) => (s.retries > 0 ? `${s.type} x${s.retries + 1}` : s.type)).join(', ');
}

/**
 * The node is back after the action: Ready, and either a boot ID other than the one recorded
 * when the action was decided (status.bootID), or a Ready transition after the action.
 */
export function cameBack(
  node: NodeView | undefined,
  bootIDBefore: string | undefined,
  actionStartMs: number,
): boolean {
  if (node === undefined || node.ready !== 'True') return false;
  if (bootIDBefore !== undefined && node.bootID !== undefined && node.bootID !== bootIDBefore)
    return true;
  return node.readySinceMs !== undefined && node.readySinceMs > actionStartMs;
}

/**
 * The last history entry as core's LadderIntent. Phase Waiting is the recorded completion of
 * an InProgress entry (at acceptedTime; objects written before that field existed count from
 * startTime); InProgress in any other phase is an intent without completion.
 */
export function intentOf(
  uid: string,
  spec: RemediationSpec,
  phase: RemediationStatus['phase'],
  last: Attempt,
  now: number,
): LadderIntent {
  const at = { step: last.step, attempt: last.attempt };
  const image = spec.steps[last.step]?.imageRef;
  const base = {
    actionId: actionIdFor(uid, at),
    action: last.type,
    step: last.step,
    attempt: last.attempt,
    issuedAt: Date.parse(last.startTime),
    ...(image !== undefined ? { image } : {}),
  };
  if (last.result === 'Failed')
    return {
      ...base,
      completedAt: last.completionTime ? Date.parse(last.completionTime) : now,
      result: 'Failed',
      message: last.message ?? last.result,
    };
  if (phase === 'Waiting')
    return {
      ...base,
      completedAt: Date.parse(last.acceptedTime ?? last.startTime),
      result: 'Succeeded',
    };
  return base;
}

function timedOutMessage(step: Step, node: NodeView | undefined): string {
  return `node ${node?.name ?? '(none)'} not Ready ${step.timeoutSeconds}s after ${step.type} (Ready=${node?.ready ?? 'absent'})`;
}

/**
 * Decides the next move of a remediation from its spec, persisted status and Node; pure, with
 * `now` as input. The same input always gives the same decision, so a restarted controller
 * resumes where the status says.
 */
export function decideLadder(input: LadderInput): LadderDecision {
  const { uid, spec, status, node, now } = input;
  const phase = status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return { kind: 'Done' };
  const ladder = toCoreLadder(spec.steps);
  const act = ({ step, attempt }: Position): Action => ({
    at: { step, attempt },
    step: spec.steps[step] as Step,
    actionId: actionIdFor(uid, { step, attempt }),
  });
  const last = status?.history?.at(-1);
  if (last === undefined) {
    const first = act({ step: 0, attempt: 1 });
    if (spec.drain.enabled && phase !== 'Remediating') return { kind: 'Drain', first };
    return { kind: 'Act', ...first };
  }
  const at: Position = { step: last.step, attempt: last.attempt };
  const step = spec.steps[last.step];
  if (step === undefined) {
    // The spec changed under us and this step no longer exists: treat the ladder as used up.
    return {
      kind: 'GiveUp',
      message: `status refers to step ${last.step}, but spec.steps has ${spec.steps.length} step(s)`,
    };
  }
  const exhausted = (e: EndedAttempt): LadderDecision => ({
    kind: 'GiveUp',
    ended: e,
    message: `remediation ladder exhausted (${describeLadder(spec.steps)}); last attempt ${e.result}: ${e.message}`,
  });
  // Both are written together with a terminal phase; only a hand-edited status gets here.
  if (last.result === 'Succeeded') return { kind: 'Succeed' };
  if (last.result === 'TimedOut') {
    const e: EndedAttempt = { result: 'TimedOut', message: last.message ?? 'TimedOut' };
    const v = advanceLadder(
      ladder,
      at,
      { result: 'TimedOut', timeoutMs: step.timeoutSeconds * 1000 },
      (p) => actionIdFor(uid, p),
      now,
    );
    return v.kind === 'Exhausted' ? exhausted(e) : { kind: 'Act', ...act(v.intent), ended: e };
  }

  const intent = intentOf(uid, spec, phase, last, now);
  const v = progressLadder({
    ladder,
    intent,
    nodeBack: cameBack(node, status?.bootID, intent.issuedAt),
    readySinceMs: node?.readySinceMs,
    healthySince: input.recoveredSinceMs,
    minHealthyPeriodMs: spec.minHealthySeconds * 1000,
    retryBackoffMs: FAILED_ATTEMPT_BACKOFF_MS,
    actionIdFor: (p) => actionIdFor(uid, p),
    now,
  });
  switch (v.kind) {
    case 'Replay':
      return { kind: 'Replay', ...act(at) };
    case 'BackingOff':
      return { kind: 'Wait', requeueAfterMs: v.retryAt - now };
    case 'AwaitingReady': {
      const recheck = Math.min(WAIT_RECHECK_MS, v.deadline - now);
      return input.recoveredSinceMs !== undefined
        ? { kind: 'MarkNotRecovered', requeueAfterMs: recheck }
        : { kind: 'Wait', requeueAfterMs: recheck };
    }
    case 'Verifying':
      return input.recoveredSinceMs === undefined
        ? { kind: 'MarkRecovered', healthySinceMs: v.healthySince, requeueAfterMs: v.okAt - now }
        : { kind: 'Wait', requeueAfterMs: v.okAt - now };
    case 'Succeeded':
      return { kind: 'Succeed' };
    case 'Next':
    case 'Exhausted': {
      let e: EndedAttempt;
      if (v.ended.result === 'Failed')
        e = { result: 'Failed', message: v.ended.message ?? 'Failed' };
      else {
        // The timeout alone decides nothing: only fresh evidence from the node, or Nova's
        // view asked now, escalates (deadline.ts).
        const j = judgeDeadline({
          node,
          bootIDBefore: status?.bootID,
          completedAt: intent.completedAt ?? now,
          timedOut: timedOutMessage(step, node),
          evidence: input.evidence ?? {},
        });
        if (j.kind !== 'Escalate') return j;
        e = { result: 'TimedOut', message: j.message };
      }
      return v.kind === 'Next' ? { kind: 'Act', ...act(v.intent), ended: e } : exhausted(e);
    }
  }
}
