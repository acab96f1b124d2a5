// An attempt of the ladder escalates at its timeout only on FRESH evidence: something the node
// or its machine showed AFTER the action completed. The stored Ready condition alone is no
// such evidence: a node our reboot did bring back may simply not have reached the apiserver
// yet (a partition, a slow network on boot), and a second reboot or a Replace on that would
// act on what the node was, not on what it is. Pure; the shell asks the provider
// (power-check.ts needsPowerState says when; autorepair/node-reconciler.ts asks) and passes the
// answer in HealthObservation.power, as it does before a repair's first action.
//
// At the deadline, in this order:
// - The node reported after the action (its Ready heartbeat or its Lease renewal is later
//   than the intent's completion, or its bootID changed) and is still not back: escalate.
// - It has been silent since the action: the provider's power state, asked after the
//   deadline, decides. On: the machine runs and its node does not report, escalate. Off
//   without a recorded request, or Gone: escalate (as before a first action: a crash is
//   repaired). Off by request: somebody stopped it after our action, the shutdown rule
//   (shutdown.ts judgeShutdown: never powered on under Wait). Unavailable (an outage): HOLD,
//   no next attempt and no give-up, asked again after 5 s doubling to 5 min (persisted on the
//   intent, so no wake-up asks sooner), the words saying why.
// - A provider that cannot be asked (no powerState, or a Node without providerID): escalate
//   on the timeout as before. This is power-check's choice for a first action ("the decision
//   goes on as without this check"), and it is the safe one here too: such a provider could
//   never give the evidence, so holding would stall every repair of a dead node for ever, and
//   a silent node is exactly what the ladder exists for.
import { providerUnavailableWaitMs } from './drain-phase.js';
import type { NodeObservation } from './observation.js';
import type { RepairPolicy } from './policy.js';
import { judgeShutdown } from './shutdown.js';
import type { RepairIntent } from './state.js';
import { formatDuration, iso } from './time.js';

/**
 * How long to look again after a timeout the shell may have decided without asking (its read
 * raced the deadline by a few milliseconds): the next reconcile asks.
 */
export const ASK_AGAIN_SOON_MS = 1000;

/** What the timeout of a completed attempt rests on. */
export type TimeoutEvidence =
  /** Fresh evidence: the attempt may end (next attempt, next step, or give up). */
  | {
      readonly kind: 'Escalate';
      /** The evidence, in words for the reason and the event. */
      readonly evidence: string;
      /**
       * The machine is off or gone: a next SoftReboot (which asks the guest) is skipped, as
       * before a first action (start-repair.ts).
       */
      readonly poweredOff?: boolean;
    }
  /** No fresh evidence: the attempt waits, nothing is used up. */
  | {
      readonly kind: 'Hold';
      /** Why, in words. */
      readonly detail: string;
      /** Look again after this many ms. */
      readonly requeueAfterMs: number;
      /** The intent with the provider's answer counted (persist it); undefined: unchanged. */
      readonly intent?: RepairIntent;
    };

/**
 * Whether the node showed a sign of life after the intent's completion: words naming it, or
 * undefined when it has been silent since. A heartbeat (Ready's lastHeartbeatTime, or the
 * kube-node-lease renewTime when the shell read it) later than the completion, or a bootID
 * other than the one persisted with the intent.
 */
export function reportedSince(obs: NodeObservation, intent: RepairIntent): string | undefined {
  const completedAt = intent.completedAt;
  if (completedAt === undefined) return undefined;
  if (obs.bootId !== undefined && intent.bootId !== undefined && obs.bootId !== intent.bootId)
    return `its bootID changed since the action (${intent.bootId} -> ${obs.bootId})`;
  const beat = obs.lastHeartbeatAt;
  if (beat !== undefined && beat > completedAt)
    return `it reported at ${iso(beat)}, after the action completed at ${iso(completedAt)}`;
  return undefined;
}

/** The intent's timeout deadline; undefined while it has no completion. */
export function attemptDeadline(intent: RepairIntent, policy: RepairPolicy): number | undefined {
  if (intent.completedAt === undefined) return undefined;
  return intent.completedAt + (policy.ladder[intent.step]?.timeoutMs ?? 0);
}

/**
 * When the provider may be asked about a silent node again: at once before it was asked
 * (0), else the last ask plus 5 s doubling to 5 min by the number of asks that held it.
 */
export function evidenceAskDueAt(intent: RepairIntent): number {
  if (intent.silentAskedAt === undefined) return 0;
  return (
    intent.silentAskedAt + providerUnavailableWaitMs(Math.max(0, (intent.silentAsks ?? 1) - 1))
  );
}

/**
 * `intent` with one more provider answer that held it, at `now` (the backoff of the next ask
 * counts from it; power-before-action.ts counts on the same fields).
 */
export function counted(intent: RepairIntent, now: number): RepairIntent {
  return { ...intent, silentAsks: (intent.silentAsks ?? 0) + 1, silentAskedAt: now };
}

/**
 * The evidence for ending the completed attempt `intent`, whose timeout has run out with the
 * node not back: see the rules at the top of this file. `obs.power` is the provider's answer
 * asked after the deadline (undefined: not asked); `obs.canAskPower` says whether it can be.
 */
export function judgeTimeoutEvidence(
  obs: NodeObservation,
  intent: RepairIntent,
  policy: RepairPolicy,
  now: number,
): TimeoutEvidence {
  const reported = reportedSince(obs, intent);
  if (reported !== undefined) return { kind: 'Escalate', evidence: reported };
  const completedAt = intent.completedAt ?? now;
  const last = obs.lastHeartbeatAt;
  const silent = `the node has not reported since ${intent.action} completed at ${iso(completedAt)} (${
    last === undefined ? 'no heartbeat seen' : `last heartbeat ${iso(last)}`
  })`;
  const p = obs.power;
  if (p === undefined) {
    // Not asked now. Cannot be asked: the timeout decides, as before (see the top). A wait
    // the controller persisted is shown as such to a caller that does not say (status).
    const waiting = intent.silentAsks !== undefined && obs.canAskPower !== false;
    if (obs.canAskPower !== true && !waiting)
      return {
        kind: 'Escalate',
        evidence: `${silent}, and the provider cannot be asked for its power state (the timeout alone decides)`,
      };
    const due = evidenceAskDueAt(intent);
    return {
      kind: 'Hold',
      detail:
        due > now
          ? `${silent} and the provider could not say (asked ${intent.silentAsks ?? 0} time(s)): waiting, asking again at ${iso(due)}`
          : `${silent}: asking the provider for its power state`,
      requeueAfterMs: due > now ? due - now : ASK_AGAIN_SOON_MS,
    };
  }
  switch (p.kind) {
    case 'On':
      return {
        kind: 'Escalate',
        evidence: `${silent}, and its machine is powered on (the provider, asked after the deadline): running, not reporting`,
      };
    case 'Gone':
      return {
        kind: 'Escalate',
        evidence: `${silent}, and its machine is gone (${p.evidence})`,
        poweredOff: true,
      };
    case 'Off': {
      if (!p.byRequest)
        return {
          kind: 'Escalate',
          evidence: `${silent}, and its machine is off without a recorded stop request, as after a crash (${p.evidence})`,
          poweredOff: true,
        };
      // Somebody stopped it after our action: the shutdown rule, never powered on under Wait.
      const v = judgeShutdown(
        completedAt,
        p,
        policy.shutdown,
        now,
        `its machine was stopped on request after ${intent.action} (${p.evidence})`,
      );
      if (v.kind === 'Failed') return { kind: 'Escalate', evidence: v.detail, poweredOff: true };
      const next = counted(intent, now);
      const wait = evidenceAskDueAt(next) - now;
      return {
        kind: 'Hold',
        detail: v.detail,
        requeueAfterMs: Math.min(wait, v.requeueAfterMs ?? wait),
        intent: next,
      };
    }
    case 'Unavailable': {
      const next = counted(intent, now);
      const due = evidenceAskDueAt(next);
      return {
        kind: 'Hold',
        detail: `${silent} and the provider cannot say (${p.reason}): waiting, asking again at ${iso(due)}`,
        requeueAfterMs: due - now,
        intent: next,
      };
    }
  }
}

/**
 * Whether the shell must ask the provider for the power state before deciding about a repair
 * in flight: its completed attempt's timeout has run out, the node is not Ready and has been
 * silent since the action, and the backoff of earlier asks has passed. An accepted Replace is
 * decided by its own fence rule (replace.ts), a failed action by its backoff: neither asks.
 */
export function needsTimeoutEvidence(
  obs: NodeObservation,
  intent: RepairIntent | undefined,
  policy: RepairPolicy,
  now: number,
): boolean {
  if (intent === undefined || intent.result !== 'Succeeded' || intent.action === 'Replace')
    return false;
  const deadline = attemptDeadline(intent, policy);
  if (deadline === undefined || now < deadline) return false;
  if (obs.ready?.status === 'True') return false;
  return reportedSince(obs, intent) === undefined && now >= evidenceAskDueAt(intent);
}

/** The words for a held timeout, for the reason and the event. */
export function heldTimeoutReason(
  intent: RepairIntent,
  attempt: number,
  timeoutMs: number,
  detail: string,
): string {
  return `not Ready ${formatDuration(timeoutMs)} after ${intent.action} attempt ${attempt}, ${detail} (no next attempt, no give-up, no attempt used)`;
}
