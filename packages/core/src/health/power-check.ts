// When the shell must ask the provider for a machine's power state before deciding. The
// decision itself stays pure: the shell asks (autorepair/node-reconciler.ts) and passes the
// answer in HealthObservation.power; assess.ts and episodes.ts read it.
//
// Two moments need it:
// - Before the first action of a repair. A Node that is simply Ready=Unknown may be a
//   machine someone stopped (`openstack server stop`, a hypervisor maintenance, an operator's
//   power-off) with nothing announced; a HardReboot would power it back on over that person's
//   decision. Asked first, an Off by request makes the period a shutdown (the shutdown
//   policy decides), an outage holds the repair, a crash is repaired.
// - Past shutdown.failAfter (FailAfter) for a node in a shutdown period: is it still off?
// - When an attempt of a repair of ours has timed out with the node silent since the action
//   (fresh-evidence.ts): is the machine running? Only a fresh answer lets the attempt end.
// - Before the repair sends an action that can power the machine on (HardReboot, Rebuild) or
//   delete it (Replace): an escalation, a next attempt, a re-issue; and before it moves past
//   an attempt the provider refused: was the machine stopped on request meanwhile (power-before-action.ts)? Asked
//   when the decision would send it, so one question per action sent, not per reconcile.
// Nothing else asks: a node that is healthy, inside its timeout, waiting under Wait, in a
// repair of ours (but for that timeout), or given up on costs the provider nothing. A manual trigger is a
// person's request for a repair, so it is not asked about either.
import { assessObserved } from './assess.js';
import { decideRepair } from './decide.js';
import { repairInFlight } from './episodes.js';
import { policyForRule } from './condition-rules.js';
import { attemptDeadline, evidenceAskDueAt, needsTimeoutEvidence } from './fresh-evidence.js';
import type { HealthObservation } from './node.js';
import { observeNode } from './observation.js';
import { canPowerOn } from './power-before-action.js';
import type { RepairPolicy, ShutdownPolicy } from './policy.js';
import { isAcceptedReplace } from './replace.js';
import { shutdownDeadline } from './shutdown.js';
import type { RepairState } from './state.js';
import { isInFlight } from './storm-guard.js';

/**
 * Whether the shell must ask the provider for the machine's power state before deciding about
 * the node `input` shows (read without a power state): the node would start a repair now (its
 * timeout ran out, no repair of ours runs, not given up, no manual trigger), or it is in a
 * shutdown period whose FailAfter deadline has passed (shutdownPastDeadline). A provider
 * without powerState cannot be asked: the decision then goes on as without this check.
 */
export function needsPowerState(
  input: HealthObservation,
  state: RepairState | undefined,
  policy: RepairPolicy,
  now: number,
): boolean {
  if (shutdownPastDeadline(state, policy.shutdown, now)) return true;
  const phase = state?.phase;
  if (isInFlight(phase)) {
    // The ladder of the rule the repair started with (condition-rules.ts).
    const byRule = policyForRule(policy, state?.remediation?.rule);
    return (
      needsTimeoutEvidence(observeNode(input), state?.remediation?.intent, byRule, now) ||
      needsPowerBeforeAction(input, state, byRule, now)
    );
  }
  if (phase === 'Failed') return false;
  const { power: _asked, ...unasked } = input;
  const a = assessObserved(observeNode(unasked), state, policy, now);
  // A NoAction rule's node is reported, never repaired: nothing to ask.
  return a.signal === 'unhealthy' && a.newTrigger === undefined && a.reportOnly === undefined;
}

/**
 * The persisted state is a shutdown period whose FailAfter deadline has passed and no repair
 * of ours is working on it: the verdict needs the machine's power state. Under Wait, or
 * before the deadline, nothing is asked (no provider traffic for a switched-off node). Reads
 * the state only, so a reconcile that decides on the cache can ask it for nothing.
 */
export function shutdownPastDeadline(
  state: RepairState | undefined,
  policy: ShutdownPolicy,
  now: number,
): boolean {
  const p = state?.notReady;
  // A repair of ours in flight is judged by its ladder, not by the shutdown rule.
  if (p?.uncounted !== 'Shutdown' || repairInFlight(state)) return false;
  const deadline = shutdownDeadline(p.since, policy);
  return deadline !== undefined && deadline < now;
}

/**
 * The persisted state is a repair of ours whose completed attempt's timeout has run out: the
 * verdict rests on whether the node reported after the action, so the shell reads the node's
 * Lease (its renewals are the kubelet's heartbeat every 10 s; Ready's lastHeartbeatTime may
 * be minutes old on a node that reports no change) even when the policy does not watch
 * stale heartbeats. Reads the state only.
 */
export function attemptTimedOut(
  state: RepairState | undefined,
  policy: RepairPolicy,
  now: number,
): boolean {
  if (!isInFlight(state?.phase)) return false;
  const intent = state?.remediation?.intent;
  if (intent === undefined || intent.result !== 'Succeeded') return false;
  const deadline = attemptDeadline(intent, policyForRule(policy, state?.remediation?.rule));
  return deadline !== undefined && now >= deadline;
}

/**
 * The repair in flight would now send an action that can power the machine on (HardReboot,
 * Rebuild: the next attempt, an escalation, a re-issue) or move past an attempt the provider
 * refused (next attempt or give-up), and the backoff of earlier asks that held it has passed:
 * the power state must be asked first (power-before-action.ts). Found by deciding without the
 * power state as a provider that cannot be asked would (the decision then goes on), so this
 * asks exactly when the decision would hold for the answer.
 */
export function needsPowerBeforeAction(
  input: HealthObservation,
  state: RepairState | undefined,
  policy: RepairPolicy,
  now: number,
): boolean {
  const intent = state?.remediation?.intent;
  // An accepted Replace is the machine going away (replace.ts): nothing to ask before it.
  if (intent === undefined || isAcceptedReplace(intent) || now < evidenceAskDueAt(intent))
    return false;
  const { power: _asked, ...unasked } = input;
  const d = decideRepair({ ...unasked, canAskPower: false }, state, policy, now);
  // A drain pass with its action after it asks nothing here: the first action's answer
  // stands (asking on each pass would be a question per reconcile).
  if (d.actions.some((a) => a.type === 'Drain')) return false;
  return d.actions.some(
    (a) =>
      (a.type === 'Remediate' && canPowerOn(a.action)) ||
      (intent.result === 'Failed' && (a.type === 'Remediate' || a.type === 'GiveUp')),
  );
}
