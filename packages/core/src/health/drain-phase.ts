// The drain phase of a remediation, and re-issuing an intent that has no completion (which
// may have to finish a drain first). The drain is persisted (`drain.startedAt`), so its
// timeout counts across passes and restarts; the action waits until the shell records the
// drain's end (record.ts recordDrain), and goes out with the same id when re-issued.
import { decision, enter, type Judge } from './decide-context.js';
import type { RepairDecision } from './decision.js';
import { drainAction, remediateAction } from './repair-actions.js';
import type { DrainRecord, Remediation, RepairIntent, RepairState } from './state.js';
import { iso } from './time.js';

/** True while the remediation's drain phase runs: begun, not ended, the action not yet sent. */
function draining(
  rem: Remediation,
  intent: RepairIntent,
): rem is Remediation & {
  drain: DrainRecord;
} {
  return (
    rem.drain !== undefined && rem.drain.endedAt === undefined && intent.completedAt === undefined
  );
}

/**
 * Draining: one more pass, then (once the shell has recorded the drain's end) the action.
 * The action was never sent while the drain has no end, so it goes out as a first send,
 * unless it is a re-issue that started this drain (replays counted). Undefined when the
 * remediation is not draining (a state without an intent never is).
 */
export function drainPhase(
  j: Judge,
  s: RepairState,
  rem: Remediation,
  current: RepairIntent,
): RepairDecision | undefined {
  const { policy, now, dryRun } = j;
  if (!draining(rem, current) || !policy.drain.enabled || rem.intent === undefined)
    return undefined;
  const drain = rem.drain;
  const until = drain.startedAt + policy.drain.timeoutMs;
  return decision(
    j,
    enter(j, s, 'Remediating'),
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

/**
 * Found an intent without completion: either the shell is about to run it, or a controller
 * died between recording and completing it. Re-issue the same id; the provider deduplicates,
 * so the action happens at most once.
 */
export function replayIntent(
  j: Judge,
  s: RepairState,
  rem: Remediation,
  current: RepairIntent,
): RepairDecision {
  const { policy, now, dryRun } = j;
  const replays = (current.replays ?? 0) + 1;
  const reissue = remediateAction(
    { ...current, replays },
    true,
    dryRun,
    `re-issuing in-flight ${current.action} ${current.actionId} issued at ${iso(current.issuedAt)} with no recorded completion`,
  );
  // A state from before drain phases (or with drain just enabled): the previous controller
  // may have stopped mid-drain, so this re-issue drains first, as a phase.
  if (policy.drain.enabled && !dryRun && rem.cordoned && rem.drain === undefined) {
    const drain: DrainRecord = { startedAt: now };
    const remD: Remediation = { ...rem, intent: { ...current, replays }, drain };
    const why = `finishing the drain of repair ${rem.id} before re-issuing its action (a previous controller may have stopped mid-drain)`;
    return decision(
      j,
      enter(j, { ...s, remediation: remD }, 'Remediating'),
      [drainAction(remD, drain, policy, dryRun, why), reissue],
      `intent ${current.actionId} has no completion: draining, then re-issued with the same id`,
      policy.drain.timeoutMs,
    );
  }
  const next = enter(
    j,
    { ...s, remediation: { ...rem, intent: { ...current, replays } } },
    'Remediating',
  );
  return decision(
    j,
    next,
    [reissue],
    `intent ${current.actionId} has no completion: re-issued with the same id`,
    // If the completion is still missing next time, look again at a calm pace.
    policy.stormGuard.recheckIntervalMs,
  );
}
