// The actions a decision sends, built from the persisted remediation: each says what the
// shell does and why. Pure; which of them a decision sends is the rules' business.
import type { RepairAction } from './decision.js';
import type { LadderIntent } from './ladder.js';
import { canFence } from './machine.js';
import type { NodeObservation } from './observation.js';
import type { LadderStep, RepairPolicy } from './policy.js';
import type { DrainRecord, Remediation, RepairIntent } from './state.js';
import { formatDuration } from './time.js';

/**
 * The action id of an attempt: stable for its position on the ladder, so a re-issue after a
 * restart carries the same id and the provider acts at most once.
 */
export function actionIdFor(remediationId: string, step: LadderStep, attempt: number): string {
  return `${remediationId}/${step.action}-${attempt}`;
}

/** The Remediate action that executes `intent`. */
export function remediateAction(
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

/** The next drain pass of `rem` (pure). */
export function drainAction(
  rem: Remediation,
  drain: DrainRecord,
  policy: RepairPolicy,
  dryRun: boolean,
  reason: string,
  now: number,
): RepairAction {
  const unreachable = rem.cause === 'KubeletUnreachable' || rem.cause === 'StaleHeartbeat';
  return {
    type: 'Drain',
    remediationId: rem.id,
    startedAt: drain.startedAt,
    firstPass: drain.startedAt === now,
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
export function undoAction(
  rem: Remediation | undefined,
  dryRun: boolean,
  reason: string,
): RepairAction[] {
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
export function fenceAction(
  rem: Remediation,
  intent: RepairIntent,
  dryRun: boolean,
): RepairAction[] {
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
export function identityOf(obs: NodeObservation): { bootId?: string; providerID?: string } {
  return {
    ...(obs.bootId !== undefined ? { bootId: obs.bootId } : {}),
    ...(obs.providerID !== undefined ? { providerID: obs.providerID } : {}),
  };
}
