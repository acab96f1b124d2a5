// Before an action that can power a machine on is sent, the provider's power state must have
// been asked after the last thing that could have changed it. A person may stop the machine
// WHILE a repair is under way (`openstack server stop` during the drain, after our SoftReboot,
// after the node came back for a moment): the answer asked before the repair's first action
// (power-check.ts) is stale by then, and Nova's HARD reboot (or a rebuild) of a SHUTOFF server
// powers it on, over that person's decision. So every send of such an action (an escalation,
// the next attempt, a re-issue) rests on an answer asked in the same reconcile, and so does
// moving past an attempt the provider refused (a SoftReboot of a stopped machine is refused:
// that is no failed attempt). One question per action sent, not per reconcile: the shell asks
// (power-check.ts needsPowerState says when) only when the decision would send one.
//
// The answer, as before a repair's first action:
// - On, Off without a recorded request (a crash), Gone: the action goes out (off or gone: a
//   next SoftReboot, which asks the guest, is skipped).
// - Off by request: the shutdown rule (shutdown.ts judgeShutdown): never powered on under
//   Wait; under FailAfter, treated as failed (and repaired) once off that long. Meanwhile the
//   repair holds: no attempt used, no give-up, asked again 5 s doubling to 5 min.
// - Unavailable (an outage): hold, no attempt used, asked again 5 s doubling to 5 min
//   (counted on the intent, fresh-evidence.ts evidenceAskDueAt).
// - A provider that cannot be asked: the action goes out as before (power-check.ts's rule).
// Pure.
import { ASK_AGAIN_SOON_MS, counted, evidenceAskDueAt } from './fresh-evidence.js';
import type { PowerState } from './machine.js';
import type { NodeObservation } from './observation.js';
import type { RemediationStepKind, RepairPolicy } from './policy.js';
import { judgeShutdown } from './shutdown.js';
import type { RepairIntent } from './state.js';
import { iso } from './time.js';

/**
 * Whether the action overrules a person's stop: a HARD reboot of a stopped server starts it
 * (Nova), so does a rebuild, and a Replace deletes it (a new, running machine in its place).
 * A SoftReboot asks the guest (refused when it is off), and the site steps (Command, Webhook)
 * are the site's own programs, which the controller cannot see into. (PowerOff is no ladder
 * step.)
 */
export function canPowerOn(action: RemediationStepKind): boolean {
  return action === 'HardReboot' || action === 'Rebuild' || action === 'Replace';
}

/**
 * Whether an action that can power the machine on may go out in the pass whose drain just
 * ended, given the power state asked at that moment. The drain ran over several reconciles
 * (minutes, up to its timeout) after the last answer; a person may have stopped the machine
 * in between. Only a running machine, a crashed one (off, no request recorded) or a gone one
 * lets it go now; anything else (off on request, no answer) leaves the action to the next
 * reconcile, which re-issues it through judgePowerBeforeAction (the shutdown rule, the
 * outage's backoff). `undefined`: the provider threw, which is no answer.
 */
export function sendsAfterDrain(p: PowerState | undefined): boolean {
  if (p === undefined) return false;
  return p.kind === 'On' || p.kind === 'Gone' || (p.kind === 'Off' && !p.byRequest);
}

/** What the power state asked before an action says. */
export type PowerGate =
  /** Send it. `poweredOff`: the machine is off or gone (a next SoftReboot is skipped). */
  | { readonly kind: 'Go'; readonly poweredOff?: boolean }
  /** Do not send it now: nothing is used up. */
  | {
      readonly kind: 'Hold';
      /** Why, in words. */
      readonly detail: string;
      /** Look again after this many ms. */
      readonly requeueAfterMs: number;
      /** `counted` with the provider's answer counted (persist it); undefined: unchanged. */
      readonly intent?: RepairIntent;
    };

/**
 * The power state's verdict on sending `next` (words: the action about to go out) now.
 * `counted` is the intent the answers are counted on (the attempt that ended, or the intent
 * re-issued); `since` is when the machine was last known to run as far as the repair goes
 * (the ended attempt's completion, the intent's issue), where a shutdown clock starts when
 * the provider does not say when the machine stopped. `obs.power` is the answer asked in this
 * reconcile (undefined: not asked); `obs.canAskPower` whether it can be.
 */
export function judgePowerBeforeAction(
  obs: NodeObservation,
  base: RepairIntent,
  next: string,
  since: number,
  policy: RepairPolicy,
  now: number,
): PowerGate {
  const p = obs.power;
  if (p === undefined) {
    // A wait the controller persisted is shown as such to a caller that does not say (status).
    const waiting = base.silentAsks !== undefined && obs.canAskPower !== false;
    if (obs.canAskPower !== true && !waiting) return { kind: 'Go' };
    const due = evidenceAskDueAt(base);
    return {
      kind: 'Hold',
      detail:
        due > now
          ? `the provider could not settle the machine's power state before ${next} (asked ${base.silentAsks ?? 0} time(s)): waiting, asking again at ${iso(due)}`
          : `asking the provider for the machine's power state before ${next} (it may have been stopped since)`,
      requeueAfterMs: due > now ? due - now : ASK_AGAIN_SOON_MS,
    };
  }
  switch (p.kind) {
    case 'On':
      return { kind: 'Go' };
    case 'Gone':
      return { kind: 'Go', poweredOff: true };
    case 'Off': {
      if (!p.byRequest) return { kind: 'Go', poweredOff: true };
      const v = judgeShutdown(
        since,
        p,
        policy.shutdown,
        now,
        `its machine was stopped on request during the repair, found before ${next} (${p.evidence})`,
      );
      if (v.kind === 'Failed') return { kind: 'Go', poweredOff: true };
      const c = counted(base, now);
      const wait = evidenceAskDueAt(c) - now;
      return {
        kind: 'Hold',
        detail: `${v.detail}; ${next} is not sent`,
        requeueAfterMs: Math.min(wait, v.requeueAfterMs ?? wait),
        intent: c,
      };
    }
    case 'Unavailable': {
      const c = counted(base, now);
      const due = evidenceAskDueAt(c);
      return {
        kind: 'Hold',
        detail: `the provider cannot say whether the machine was stopped before ${next} (${p.reason}): waiting, asking again at ${iso(due)}`,
        requeueAfterMs: due - now,
        intent: c,
      };
    }
  }
}
