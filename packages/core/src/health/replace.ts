// What follows an accepted Replace in the standalone controller (no Cluster API). The provider
// deleted (or is deleting) the machine; the Node object is then deleted by us, so that the
// node group's owner (Cluster Autoscaler, Magnum, Heat, a user's script) brings capacity back
// and the pod GC frees the pods bound to it. Pure; `now` is an argument.
//
// The rules, on top of the ladder's (ladder.ts):
// - After an accepted Replace a Ready node is not a success: the machine was handed over for
//   deletion, uncordoning it would schedule pods onto a machine about to vanish. Instead each
//   decision asks for a DeleteNode step (the shell checks identity, asks the provider's fence,
//   deletes only when fenced), at the recheck pace, until the step's timeout.
// - Fenced (persisted as remediation.replace.fenced BEFORE the delete): DeleteNode without
//   asking again, for as long as it takes. The machine is gone; only an apiserver write is
//   left, and an apiserver outage is a wait, not a failure. No timeout any more.
// - Not fenced by the step's timeout: the step failed like any other (Replace is last: Failed,
//   the node stays cordoned and is never deleted). Except while the provider's latest answer
//   was Unavailable: an outage is not an answer, so the timeout waits until it answers again.
import type { RemediationStepKind } from './policy.js';
import type { RepairIntent, RepairState, Remediation } from './state.js';
import { formatDuration, iso } from './time.js';

/** The shell's step after an accepted Replace: identity, fence, then delete the Node. */
export interface DeleteNodeAction {
  /** Always DeleteNode. */
  type: 'DeleteNode';
  /** Why, in words for events. */
  reason: string;
  /** A dry run: nothing is fenced or deleted. */
  dryRun: boolean;
  /** The cause of the remediation (metrics label, bounded). */
  cause: string;
  /** The action that was accepted (Replace). */
  action: RemediationStepKind;
  /** The Replace attempt's action id. */
  actionId: string;
  /** When the Replace intent was issued, in epoch ms. */
  issuedAt: number;
  /**
   * The Node's providerID when the Replace intent was persisted: the Node is deleted only while
   * it still carries this one (a Node registered under the same name for another machine is
   * never deleted). Absent: no identity to check, so nothing is deleted.
   */
  providerID?: string;
  /** Already found fenced (persisted): delete without asking the provider again. */
  fenced?: { how: string; evidence: string };
  /**
   * The step's deadline, in epoch ms: a "not fenced" answer asked at or after it is reported
   * (ReplaceReport.notFencedAt), and only that answer lets the step time out.
   */
  deadline?: number;
}

/** An intent whose Replace the provider accepted (the only case this file decides). */
export function isAcceptedReplace(intent: RepairIntent | undefined): intent is RepairIntent & {
  completedAt: number;
} {
  return (
    intent !== undefined &&
    intent.action === 'Replace' &&
    intent.result === 'Succeeded' &&
    intent.completedAt !== undefined &&
    intent.actionId !== ''
  );
}

/** What decideAfterReplace needs: the remediation, its accepted Replace intent and the clock. */
export interface AfterReplaceInput {
  /** The remediation in progress (its `replace` record says what the step learnt so far). */
  rem: Remediation;
  /** The accepted Replace intent. */
  intent: RepairIntent & { completedAt: number };
  /** The step's timeout (0 when the policy no longer has the step). */
  timeoutMs: number;
  /**
   * The storm guard's recheck interval, in ms: the most a DeleteNode step waits before it runs
   * again.
   */
  recheckIntervalMs: number;
  /** A dry run: the DeleteNode action is marked dryRun. */
  dryRun: boolean;
  /** The clock, in epoch ms. */
  now: number;
}

/**
 * What follows an accepted Replace: a DeleteNode step (run it, look again after requeueAfterMs), or
 * TimedOut (not fenced by the step's timeout while the provider answered: the attempt failed).
 */
export type AfterReplaceVerdict =
  | {
      kind: 'DeleteNode';
      action: DeleteNodeAction;
      requeueAfterMs: number;
      reason: string;
    }
  /** Not fenced by the step's timeout (and the provider answering): the attempt failed. */
  | { kind: 'TimedOut'; timeoutMs: number };

/**
 * How often a machine going away is asked about while not yet fenced. A server deletion takes
 * seconds; at the storm guard's recheck (30 s by default) the Node would stay for nothing, and
 * a Replace timeout shorter than two rechecks would give up after a single look.
 */
export const ReplaceFencePollMs = 5_000;

/**
 * Decides what follows an accepted Replace (pure): delete the Node once the machine is known
 * fenced; an unavailable provider holds the timeout, an answering one that never says fenced lets
 * it run out.
 */
export function decideAfterReplace(input: AfterReplaceInput): AfterReplaceVerdict {
  const { rem, intent, now } = input;
  const record = rem.replace?.actionId === intent.actionId ? rem.replace : undefined;
  const base = {
    type: 'DeleteNode' as const,
    dryRun: input.dryRun,
    cause: rem.cause,
    action: intent.action,
    actionId: intent.actionId,
    issuedAt: intent.issuedAt,
    ...(intent.providerID !== undefined ? { providerID: intent.providerID } : {}),
  };
  if (record?.fenced !== undefined) {
    const { how, evidence } = record.fenced;
    const reason = `the machine was found fenced after ${intent.action} ${intent.actionId} (${how}) at ${iso(record.fenced.at)}: deleting the Node so the node group's owner recreates the capacity`;
    return {
      kind: 'DeleteNode',
      action: { ...base, fenced: { how, evidence }, reason },
      requeueAfterMs: input.recheckIntervalMs,
      reason,
    };
  }
  const deadline = intent.completedAt + input.timeoutMs;
  const unavailableSince = record?.unavailableSince;
  // Timed out only on an answer asked past the deadline: the last answer before it may be
  // minutes old when an apiserver outage kept every reconcile away (the deletion may have
  // finished meanwhile), and an outage is a reason to wait, never a failed attempt.
  // A dry run never asks (its DeleteNode step is skipped): the deadline alone decides, as the
  // preview of a controller whose provider never says fenced.
  const answeredLate =
    input.dryRun || (record?.notFencedAt !== undefined && record.notFencedAt >= deadline);
  if (now >= deadline && unavailableSince === undefined && answeredLate)
    return { kind: 'TimedOut', timeoutMs: input.timeoutMs };
  const reason =
    now < deadline
      ? `${intent.action} ${intent.actionId} accepted: the Node is deleted once the machine is known fenced (gives up at ${iso(deadline)} if it is not)`
      : unavailableSince !== undefined
        ? `${intent.action} ${intent.actionId}: the provider could not be asked about the fence since ${iso(unavailableSince)}; the step's ${formatDuration(input.timeoutMs)} timeout waits for an answer (an outage is not a failure)`
        : `${intent.action} ${intent.actionId}: the step's ${formatDuration(input.timeoutMs)} timeout passed at ${iso(deadline)}; the provider is asked once more before the step fails`;
  return {
    kind: 'DeleteNode',
    action: { ...base, deadline, reason },
    requeueAfterMs: Math.min(
      now < deadline ? deadline - now : Infinity,
      ReplaceFencePollMs,
      input.recheckIntervalMs,
    ),
    reason,
  };
}

/** What the shell's DeleteNode step learnt, to persist (recordReplace). */
export interface ReplaceReport {
  /** The Replace attempt the report is about; a report for another attempt is ignored. */
  actionId: string;
  /** The provider reported the machine fenced: persisted before the Node is deleted. */
  fenced?: { at: number; how: string; evidence: string };
  /** The provider could not be asked (since `at`), or `false`: it answered (not fenced). */
  unavailable?: { at: number } | false;
  /** It answered "not fenced" at `at`, at or after the step's deadline (the first such answer is kept). */
  notFencedAt?: number;
}

/**
 * Records a DeleteNode step's report on the state (pure). Returns `state` itself when nothing
 * changes (another intent, already fenced, the same availability), so nothing is written.
 */
export function recordReplace(state: RepairState, report: ReplaceReport): RepairState {
  const rem = state.remediation;
  const intent = rem?.intent;
  if (rem === undefined || !isAcceptedReplace(intent) || intent.actionId !== report.actionId)
    return state;
  const prev = rem.replace?.actionId === report.actionId ? rem.replace : undefined;
  if (prev?.fenced !== undefined) return state;
  if (report.fenced !== undefined)
    return {
      ...state,
      remediation: { ...rem, replace: { actionId: report.actionId, fenced: report.fenced } },
    };
  if (report.unavailable === undefined) return state;
  const late = prev?.notFencedAt ?? (report.unavailable === false ? report.notFencedAt : undefined);
  const kept = late !== undefined ? { notFencedAt: late } : {};
  if (report.unavailable === false) {
    if (prev?.unavailableSince === undefined && prev?.notFencedAt === late) return state;
    return { ...state, remediation: { ...rem, replace: { actionId: report.actionId, ...kept } } };
  }
  if (prev?.unavailableSince !== undefined) return state;
  return {
    ...state,
    remediation: {
      ...rem,
      replace: { actionId: report.actionId, unavailableSince: report.unavailable.at, ...kept },
    },
  };
}
