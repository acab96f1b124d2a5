// Moving past an attempt that ended (failed, or timed out without the node back): the
// ladder's verdict (ladder.ts advanceLadder) becomes the next intent, persisted before it is
// sent, or giving up when every step is used up. Also the history entry a repair leaves.
import { decision, enter, notHealthy, type Judge } from './decide-context.js';
import type { RepairDecision } from './decision.js';
import { appendHistory, type HistoryEntry, type StepTried } from './history.js';
import type { LadderVerdict } from './ladder.js';
import type { RemediationStepKind } from './policy.js';
import { identityOf, remediateAction } from './repair-actions.js';
import type { Remediation, RepairIntent, RepairState } from './state.js';

/** Records what the shared ladder rules decided after an attempt ended: the next intent, or giving up. */
export function applyAdvance(
  j: Judge,
  s: RepairState,
  rem: Remediation,
  v: Extract<LadderVerdict, { kind: 'Next' | 'Exhausted' }>,
  why: string,
): RepairDecision {
  const { policy, now, dryRun } = j;
  const endedAction = rem.intent?.action ?? policy.ladder[rem.step]?.action ?? 'SoftReboot';
  if (v.kind === 'Exhausted') {
    const { intent: _i, ...remNoIntent } = rem;
    // The remediation record stays (without intent) so that a later recovery knows whether we cordoned.
    const next = enter(
      j,
      {
        ...notHealthy(s),
        remediation: remNoIntent,
        lastRemediation: {
          id: rem.id,
          endedAt: now,
          step: rem.step,
          result: 'Failed',
          ...(rem.rule !== undefined ? { rule: rem.rule } : {}),
        },
        history: appendHistory(
          s.history,
          historyEntry(rem, { action: endedAction, result: v.ended.result }, now),
        ),
      },
      'Failed',
    );
    return decision(
      j,
      next,
      [{ type: 'GiveUp', dryRun, reason: `${why}; every step of the ladder is used up` }],
      `repair ${rem.id} failed: ladder exhausted`,
    );
  }
  // The next intent keeps the Node's identity now (fencing evidence for its attempt).
  const intent: RepairIntent = { ...v.intent, ...identityOf(j.obs) };
  // Moving to a later step: the step left behind goes on the list the history entry shows.
  const tried: StepTried[] | undefined =
    intent.step !== rem.step
      ? [
          ...(rem.tried ?? []),
          { action: endedAction, attempts: rem.attempt, result: v.ended.result },
        ]
      : rem.tried;
  const next = enter(
    j,
    {
      ...s,
      remediation: {
        ...rem,
        step: intent.step,
        attempt: intent.attempt,
        intent,
        ...(tried !== undefined ? { tried } : {}),
      },
    },
    'Remediating',
  );
  const attempts = policy.ladder[intent.step]?.attempts ?? 1;
  const kind = v.escalated
    ? `escalating to ${intent.action}`
    : `retrying ${intent.action} (attempt ${intent.attempt} of ${attempts})`;
  return decision(j, next, [remediateAction(intent, false, dryRun, `${why}; ${kind}`)], `${kind}`);
}

/**
 * The history entry of a remediation that ends now: the steps it moved on from, then the
 * step it ended in, with the attempts that step used.
 */
export function historyEntry(
  rem: Remediation,
  last: { action: RemediationStepKind; result: StepTried['result'] },
  now: number,
): HistoryEntry {
  return {
    id: rem.id,
    cause: {
      kind: rem.cause,
      ...(rem.causeMessage !== undefined ? { message: rem.causeMessage } : {}),
    },
    startedAt: rem.startedAt,
    endedAt: now,
    outcome: last.result === 'Succeeded' ? 'Succeeded' : 'Failed',
    steps: [
      ...(rem.tried ?? []),
      { action: last.action, attempts: rem.attempt, result: last.result },
    ],
  };
}
