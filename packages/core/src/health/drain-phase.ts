// The drain phase of a remediation, and re-issuing an intent that has no completion (which
// may have to finish a drain first). The drain is persisted (`drain.startedAt`), so its
// timeout counts across passes and restarts; the action waits until the shell records the
// drain's end (record.ts recordDrain), and goes out with the same id when re-issued.
import { decision, enter, type Judge } from './decide-context.js';
import type { RepairDecision } from './decision.js';
import { drainAction, remediateAction } from './repair-actions.js';
import type { DrainRecord, Remediation, RepairIntent, RepairState } from './state.js';
import { formatDuration, iso } from './time.js';

/**
 * How long an intent without completion waits before it is sent again (the provider could
 * not be asked: an outage), by the number of re-issues so far: 5 s doubling to 5 min. The
 * shell's requeue uses the same numbers (autorepair/executor.ts ProviderUnavailableBackoff).
 */
export const ProviderUnavailableBackoffMs = { initialMs: 5000, maxMs: 5 * 60_000 } as const;

/** The wait after the `replays`-th re-issue (0: after the first send), pure. */
export function providerUnavailableWaitMs(replays: number): number {
  const { initialMs, maxMs } = ProviderUnavailableBackoffMs;
  return Math.min(maxMs, initialMs * 2 ** Math.max(0, replays));
}

/**
 * When an intent without completion may be sent again: its last send (the last re-issue, the
 * drain's end it was sent after, or its issue) plus the backoff for the re-issues so far.
 * Derived from the persisted state only, so whatever wakes the reconcile (our own annotation
 * write, a watch event, a restart) the provider is not asked again before it.
 */
export function replayDueAt(rem: Remediation, current: RepairIntent): number {
  // The provider's own Retry-After for its last answer wins over our backoff.
  if (current.retryAt !== undefined) return current.retryAt;
  const lastSent = Math.max(current.replayedAt ?? current.issuedAt, rem.drain?.endedAt ?? 0);
  return lastSent + providerUnavailableWaitMs(current.replays ?? 0);
}

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
        now,
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
  // Sent a moment ago and not answered (an outage): wait out the backoff, writing nothing.
  const due = replayDueAt(rem, current);
  if (now < due)
    return decision(
      j,
      enter(j, s, 'Remediating'),
      [],
      `intent ${current.actionId} has no completion (the provider could not be asked): re-issued with the same id at ${iso(due)}, ${formatDuration(due - now)} from now`,
      due - now,
    );
  const replays = (current.replays ?? 0) + 1;
  // A Retry-After is about the last send: the next one is paced by its own answer. The power
  // asks that held the send are about it: the next ones (after its timeout) count afresh.
  const { retryAt: _answered, silentAsks: _asks, silentAskedAt: _askedAt, ...sent } = current;
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
    const remD: Remediation = { ...rem, intent: { ...sent, replays, replayedAt: now }, drain };
    const why = `finishing the drain of repair ${rem.id} before re-issuing its action (a previous controller may have stopped mid-drain)`;
    return decision(
      j,
      enter(j, { ...s, remediation: remD }, 'Remediating'),
      [drainAction(remD, drain, policy, dryRun, why, now), reissue],
      `intent ${current.actionId} has no completion: draining, then re-issued with the same id`,
      policy.drain.timeoutMs,
    );
  }
  const next = enter(
    j,
    { ...s, remediation: { ...rem, intent: { ...sent, replays, replayedAt: now } } },
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

/** The provider could not be asked and said when to ask again (its Retry-After). */
export interface UnavailableReport {
  /** The Remediate action's id; a report for another id is ignored (stale). */
  actionId: string;
  /** When the provider may be asked again (epoch ms). */
  retryAt: number;
}

/**
 * Records a provider's Retry-After on the open intent, so the next re-issue waits for it
 * whatever wakes the reconcile, a restart included. Returns `state` itself when it does not
 * apply (another intent, already completed, the same time recorded): nothing to write.
 */
export function recordUnavailable(state: RepairState, r: UnavailableReport): RepairState {
  const rem = state.remediation;
  const intent = rem?.intent;
  if (
    rem === undefined ||
    intent === undefined ||
    intent.actionId !== r.actionId ||
    intent.completedAt !== undefined ||
    intent.retryAt === r.retryAt
  )
    return state;
  return { ...state, remediation: { ...rem, intent: { ...intent, retryAt: r.retryAt } } };
}
