// The remediation ladder as a pure decision over the OpenStackRemediation's spec and status
// and what the Node shows now. No I/O, no clock: `now` is an argument. The reconciler
// persists what this returns BEFORE it acts, so a restarted controller resumes from status.
//
// Why not core's decideRepair: its ladder knows SoftReboot | HardReboot | Replace and keys
// its state to a Node annotation, while this CRD's ladder has Rebuild (with an image) and
// keeps everything in the OpenStackRemediation's status, where Cluster API users look. The
// rules are the same: one intent per attempt with a stable action id, completion recorded
// after the provider answered, a step timeout counted from the action, retries within a
// step, then the next step, and Ready for minHealthySeconds to count as success.
import type { Attempt, RemediationSpec, RemediationStatus, Step } from '../api/index.js';
import type { NodeView } from './node-view.js';

/** After a failed Nova call, wait this long before the next attempt (no racing the ladder through an outage). */
export const FAILED_ATTEMPT_BACKOFF_MS = 10_000;
/** How often to look again while waiting, even without a watch event. */
export const WAIT_RECHECK_MS = 5_000;

/** The condition recording that the Node came back after the action (its lastTransitionTime starts the minHealthySeconds clock). */
export const CONDITION_NODE_RECOVERED = 'NodeRecovered';

export interface Position {
  readonly step: number;
  /** 1 for the first try of the step. */
  readonly attempt: number;
}

export type LadderDecision =
  /** Terminal: Succeeded or Failed; nothing more to do. */
  | { readonly kind: 'Done' }
  /** Cordon and drain before the first action. */
  | { readonly kind: 'Drain' }
  /** Persist this intent (phase Remediating, history InProgress), then execute it. */
  | {
      readonly kind: 'Act';
      readonly at: Position;
      readonly step: Step;
      readonly ended?: EndedAttempt;
    }
  /** An intent was persisted but its completion was not: execute it again with the same action id. */
  | { readonly kind: 'Replay'; readonly at: Position; readonly step: Step }
  /** The node came back after the action; record when (starts the minHealthySeconds clock). */
  | { readonly kind: 'MarkRecovered'; readonly requeueAfterMs: number }
  /** The node is no longer Ready after having come back: clear the recovered mark. */
  | { readonly kind: 'MarkNotRecovered'; readonly requeueAfterMs: number }
  | { readonly kind: 'Wait'; readonly requeueAfterMs: number }
  /** Ready for minHealthySeconds: the attempt succeeded. */
  | { readonly kind: 'Succeed' }
  /** The ladder is used up: hand the Machine to Cluster API. */
  | { readonly kind: 'GiveUp'; readonly message: string; readonly ended?: EndedAttempt };

/** How the previous attempt ended, when the decision also closes it. */
export interface EndedAttempt {
  readonly result: 'TimedOut' | 'Failed';
  readonly message: string;
}

export interface LadderInput {
  readonly spec: RemediationSpec;
  readonly status: RemediationStatus | undefined;
  readonly node: NodeView | undefined;
  /** lastTransitionTime of NodeRecovered=True, when set. */
  readonly recoveredSinceMs: number | undefined;
  readonly now: number;
}

/** A stable, unique id per attempt: the same after a restart, never shared by two attempts. */
export function actionIdFor(uid: string, at: Position): string {
  return `${uid}/step-${at.step}/attempt-${at.attempt}`;
}

const BOOT_ID = /node bootID before: ([0-9a-zA-Z-]+)/;

/** The intent's message carries the Node's bootID at the time of the action. */
export function intentMessage(action: string, bootID: string | undefined): string {
  return `${action}; node bootID before: ${bootID ?? 'unknown'}`;
}

export function bootIDBefore(a: Attempt): string | undefined {
  const m = a.message === undefined ? null : BOOT_ID.exec(a.message);
  return m?.[1] === 'unknown' ? undefined : m?.[1];
}

/** The position after `at` on the ladder, or undefined when it is used up. */
export function nextPosition(steps: readonly Step[], at: Position): Position | undefined {
  const step = steps[at.step];
  if (step !== undefined && at.attempt <= step.retries)
    return { step: at.step, attempt: at.attempt + 1 };
  if (at.step + 1 < steps.length) return { step: at.step + 1, attempt: 1 };
  return undefined;
}

export function describeLadder(steps: readonly Step[]): string {
  return steps.map((s) => (s.retries > 0 ? `${s.type} x${s.retries + 1}` : s.type)).join(', ');
}

/** The node is back after the action: Ready, and either a new boot or a Ready transition after the action. */
export function cameBack(node: NodeView | undefined, attempt: Attempt): boolean {
  if (node === undefined || node.ready !== 'True') return false;
  const before = bootIDBefore(attempt);
  if (before !== undefined && node.bootID !== undefined && node.bootID !== before) return true;
  const start = Date.parse(attempt.startTime);
  return node.readySinceMs !== undefined && node.readySinceMs > start;
}

function advance(spec: RemediationSpec, at: Position, ended: EndedAttempt): LadderDecision {
  const next = nextPosition(spec.steps, at);
  if (next === undefined) {
    return {
      kind: 'GiveUp',
      ended,
      message: `remediation ladder exhausted (${describeLadder(spec.steps)}); last attempt ${ended.result}: ${ended.message}`,
    };
  }
  const step = spec.steps[next.step] as Step;
  return { kind: 'Act', at: next, step, ended };
}

export function decideLadder(input: LadderInput): LadderDecision {
  const { spec, status, node, now } = input;
  const phase = status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return { kind: 'Done' };
  const last = status?.history?.at(-1);
  if (last === undefined) {
    if (spec.drain.enabled && phase !== 'Remediating') return { kind: 'Drain' };
    const first = spec.steps[0] as Step;
    return { kind: 'Act', at: { step: 0, attempt: 1 }, step: first };
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
  if (last.result === 'InProgress' && phase !== 'Waiting') return { kind: 'Replay', at, step };
  if (last.result === 'Failed' || last.result === 'TimedOut') {
    const ended = last.completionTime ? Date.parse(last.completionTime) : now;
    const wait = last.result === 'Failed' ? ended + FAILED_ATTEMPT_BACKOFF_MS - now : 0;
    if (wait > 0) return { kind: 'Wait', requeueAfterMs: wait };
    return advance(spec, at, { result: last.result, message: last.message ?? last.result });
  }
  if (last.result === 'Succeeded') return { kind: 'Succeed' };

  // Waiting for the node after an accepted action.
  const start = Date.parse(last.startTime);
  const deadline = start + step.timeoutSeconds * 1000;
  const back = cameBack(node, last);
  if (back) {
    if (input.recoveredSinceMs === undefined)
      return { kind: 'MarkRecovered', requeueAfterMs: Math.max(1, spec.minHealthySeconds * 1000) };
    const healthyFor = now - input.recoveredSinceMs;
    if (healthyFor >= spec.minHealthySeconds * 1000) return { kind: 'Succeed' };
    return { kind: 'Wait', requeueAfterMs: spec.minHealthySeconds * 1000 - healthyFor };
  }
  if (now >= deadline) {
    return advance(spec, at, {
      result: 'TimedOut',
      message: `node ${node?.name ?? '(none)'} not Ready ${step.timeoutSeconds}s after ${step.type} (Ready=${node?.ready ?? 'absent'})`,
    });
  }
  const recheck = Math.min(WAIT_RECHECK_MS, deadline - now);
  if (input.recoveredSinceMs !== undefined)
    return { kind: 'MarkNotRecovered', requeueAfterMs: recheck };
  return { kind: 'Wait', requeueAfterMs: recheck };
}
