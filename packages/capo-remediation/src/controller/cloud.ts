// What the controller does while the cloud does not answer, and when it may add the
// out-of-service taint. Pure: the reconciler does the I/O.
//
// A cloud outage (Keystone or Nova down, 5xx, 429, timeouts) is waiting, not failure: the
// intent stays as it is (history InProgress, no completion), so no ladder attempt is used
// and the step's timeout, which runs from Nova's acceptance, has not started; the next
// reconcile replays the same action id, and the provider asks Nova's records before it sends
// anything. CloudReachable=False says so on the object meanwhile.
import { judgeFence, type FenceStatus, type FenceVerdict } from '@noderepair/core/provider';
import type { Attempt, RemediationSpec, RemediationStatus } from '../api/index.js';
import type { NodeView } from './node-view.js';

/**
 * Condition: whether the last Nova/Keystone call got an answer. False (CloudUnavailable) means
 * the remediation is waiting out an outage, which never uses up an attempt.
 */
export const CONDITION_CLOUD_REACHABLE = 'CloudReachable';
/** True once the server is known fenced after the action (the out-of-service taint may be added). */
export const CONDITION_FENCED = 'Fenced';
export const REASON_CLOUD_UNAVAILABLE = 'CloudUnavailable';
export const REASON_CLOUD_ANSWERED = 'CloudAnswered';

const MIN_BACKOFF_MS = 5_000;
const MAX_BACKOFF_MS = 60_000;

/**
 * When to ask the cloud again: half the outage's age so far, between 5 s and 60 s, and never
 * sooner than the provider asked. One backoff, derived from the condition's
 * lastTransitionTime, so it survives a restart and needs no in-memory counter.
 */
export function cloudBackoffMs(
  outageSinceMs: number | undefined,
  now: number,
  hintMs?: number,
): number {
  const age = outageSinceMs === undefined ? 0 : Math.max(0, now - outageSinceMs);
  return Math.min(MAX_BACKOFF_MS, Math.max(MIN_BACKOFF_MS, hintMs ?? 0, Math.floor(age / 2)));
}

/**
 * How long to wait before Nova may be asked anything again: the time left until
 * status.cloudRetryTime, which each unanswered call persists (the backoff or the provider's
 * Retry-After, whichever is later) and Nova's next answer clears. It is the one rule every path
 * that calls Nova during an outage follows (the power check, the action and its replay, the
 * fence question), so no wake-up of the reconcile (its own status write, a controller restart,
 * a spec edit, the Node watch) asks sooner. 0: ask now. A time more than the longest backoff
 * ahead cannot have come from the backoff (a clock that moved): it is not waited for, since
 * waiting could then last indefinitely; the next unanswered call writes a new one.
 */
export function cloudWaitMs(status: RemediationStatus | undefined, now: number): number {
  const at = status?.cloudRetryTime === undefined ? Number.NaN : Date.parse(status.cloudRetryTime);
  if (!Number.isFinite(at)) return 0;
  const left = at - now;
  return left > 0 && left <= MAX_BACKOFF_MS ? left : 0;
}

/**
 * Whether to ask Nova if the server is fenced: after an accepted action (phase Waiting, the
 * attempt still open) of a kind that can fence, when the taint is enabled, the Node exists
 * and is not Ready, and the server is not already known fenced.
 */
export function shouldAskFence(
  spec: RemediationSpec,
  status: RemediationStatus | undefined,
  node: NodeView | undefined,
  fencedAlready: boolean,
): Attempt | undefined {
  if (!spec.drain.outOfServiceTaint || fencedAlready) return undefined;
  if (status?.phase !== 'Waiting' || node === undefined || node.ready === 'True') return undefined;
  const last = status.history?.at(-1);
  if (last === undefined || last.result !== 'InProgress' || last.type === 'SoftReboot')
    return undefined;
  return last;
}

/** core's judgement on Nova's answer and the Node's bootID (a new one after HARD = reset observed). */
export function fenceVerdict(
  attempt: Attempt,
  provider: FenceStatus,
  bootIdBefore: string | undefined,
  node: NodeView | undefined,
): FenceVerdict {
  return judgeFence({
    action: attempt.type,
    provider,
    bootIdBefore,
    bootIdNow: node?.bootID,
  });
}
