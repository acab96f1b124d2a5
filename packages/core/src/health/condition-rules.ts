// Per-condition rules (issue 46): an `unhealthyConditions` entry may match only a reason or a
// message, and may bring its own ladder or NoAction (report only). Which entry a node
// matches is assess.ts's; this file says whether a condition matches an entry, and which
// ladder a repair climbs: the ladder of the rule that started it (recorded in the
// remediation, so a change of the node's conditions or a restart does not switch ladders),
// else the policy's. Pure.
import type { ConditionObservation } from './observation.js';
import type { RepairPolicy, UnhealthyCondition } from './policy.js';
import type { ConditionRuleRef, RepairState } from './state.js';

/** Does the node's condition `c` match the entry: its status, and its reason and message if given? */
export function conditionMatches(uc: UnhealthyCondition, c: ConditionObservation): boolean {
  if (c.status !== uc.status) return false;
  if (uc.reason !== undefined && c.reason !== uc.reason) return false;
  // A substring, not a regular expression: linear time on messages others write (a
  // backtracking pattern on a long kernel line would block the event loop and the lease).
  if (uc.messageContains !== undefined && !(c.message ?? '').includes(uc.messageContains))
    return false;
  return true;
}

/** What the repair state records about an entry (what it matches, not where it is). */
export function ruleRef(uc: UnhealthyCondition): ConditionRuleRef {
  return {
    type: uc.type,
    status: uc.status,
    ...(uc.reason !== undefined ? { reason: uc.reason } : {}),
    ...(uc.messageContains !== undefined ? { messageContains: uc.messageContains } : {}),
  };
}

/** The policy's first entry that `ref` names, if it still has one. */
export function findRule(
  policy: RepairPolicy,
  ref: ConditionRuleRef,
): UnhealthyCondition | undefined {
  return policy.unhealthyConditions.find(
    (uc) =>
      uc.type === ref.type &&
      uc.status === ref.status &&
      uc.reason === ref.reason &&
      uc.messageContains === ref.messageContains,
  );
}

// One derived policy per (policy, rule), so callers that cache by policy (control-plane.ts)
// keep hitting their cache.
const derived = new WeakMap<RepairPolicy, Map<UnhealthyCondition, RepairPolicy>>();

/**
 * The policy a repair started by the rule `ref` is decided by: the policy with the rule's
 * own ladder. The policy itself when there is no rule, the rule has no ladder, or the
 * policy no longer has the rule (changed mid-repair: its top-level ladder goes on, as with
 * any changed ladder).
 */
export function policyForRule(
  policy: RepairPolicy,
  ref: ConditionRuleRef | undefined,
): RepairPolicy {
  if (ref === undefined) return policy;
  const rule = findRule(policy, ref);
  if (rule?.ladder === undefined) return policy;
  let byRule = derived.get(policy);
  if (byRule === undefined) {
    byRule = new Map();
    derived.set(policy, byRule);
  }
  let p = byRule.get(rule);
  if (p === undefined) {
    p = { ...policy, ladder: rule.ladder };
    byRule.set(rule, p);
  }
  return p;
}

/**
 * The rule whose ladder decides the node now: a repair in flight keeps the one it started
 * with; otherwise the rule that makes the node unhealthy now (`assessedRule`).
 */
export function ruleInForce(
  state: RepairState | undefined,
  assessedRule: ConditionRuleRef | undefined,
): ConditionRuleRef | undefined {
  const inFlight = state?.phase === 'Remediating' || state?.phase === 'Verifying';
  return inFlight ? state?.remediation?.rule : assessedRule;
}
