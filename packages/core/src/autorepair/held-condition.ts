// The NodeRepairHeld condition: what `noderepair status` says about a held node, on the Node
// itself, so `kubectl describe node` answers "why is this node not being repaired?" with no
// extra tool. True while the node wants a repair and is held (reason: the brake; message:
// why, with the counts or until when); False once the hold ends. A node never held carries
// no such condition: noderepair adds nothing to a healthy fleet. Pure; the reconciler
// patches the Node's status subresource when the condition should change.
import type { RepairDecision } from '../health/decide.js';
import type { NodeConditionSnapshot } from '../health/node.js';
import { holdMessage } from '../health/status.js';
import { iso } from '../health/time.js';

/** Type of the Node condition that says why a node wanting a repair is held. */
export const NodeRepairHeld = 'NodeRepairHeld';

/** The condition's reason for each brake (CamelCase, as Kubernetes reasons are). */
const reasons = {
  storm: 'StormGuard',
  cooldown: 'StormCooldown',
  'in-flight': 'MaxInFlight',
  actor: 'OtherActor',
  rate: 'RateLimit',
  latch: 'Latched',
} as const;

/** The condition's reason while the node's repair-state annotation cannot be read. */
export const UnreadableStateReason = 'UnreadableState';

/** The NodeRepairHeld Node condition as written to the Node's status. */
export interface HeldCondition {
  /** Always NodeRepairHeld. */
  type: typeof NodeRepairHeld;
  /** True while the node is held; False once a hold ended. */
  status: 'True' | 'False';
  /** The brake (StormGuard, StormCooldown, MaxInFlight, OtherActor, UnreadableState), or NotHeld. */
  reason: string;
  /** Why, with the counts or until when. */
  message: string;
  /** RFC 3339 time of the last status change; kept while the status stays the same. */
  lastTransitionTime: string;
}

/**
 * The condition to write after `decision`, or undefined when the Node's current one (or its
 * absence) already says it. `current` is the Node's conditions as read.
 */
export function heldConditionUpdate(
  decision: RepairDecision,
  current: readonly NodeConditionSnapshot[] | undefined,
  now: number,
): HeldCondition | undefined {
  const was = current?.find((c) => c.type === NodeRepairHeld);
  const held = decision.held;
  let want: Omit<HeldCondition, 'lastTransitionTime'>;
  if (held !== undefined) {
    const h = held.hold;
    want = {
      type: NodeRepairHeld,
      status: 'True',
      reason:
        h !== undefined ? reasons[h.kind] : reasons[held.scope === 'actor' ? 'actor' : 'storm'],
      message: h !== undefined ? holdMessage(h) : held.reason,
    };
  } else {
    if (was === undefined || was.status !== 'True') return undefined;
    want = {
      type: NodeRepairHeld,
      status: 'False',
      reason: 'NotHeld',
      message: `no longer held: ${decision.reason}`,
    };
  }
  if (was?.status === want.status && was.reason === want.reason && was.message === want.message)
    return undefined;
  const lastTransitionTime =
    was?.status === want.status && typeof was.lastTransitionTime === 'string'
      ? was.lastTransitionTime
      : iso(now);
  return { ...want, lastTransitionTime };
}

/**
 * The condition to write while the node's repair state cannot be read (`message` says what is
 * wrong and what to do), or undefined when the Node's current one says it already. The next
 * decision on a readable state sets it False (heldConditionUpdate), as when any hold ends.
 */
export function unreadableStateCondition(
  message: string,
  current: readonly NodeConditionSnapshot[] | undefined,
  now: number,
): HeldCondition | undefined {
  const was = current?.find((c) => c.type === NodeRepairHeld);
  if (was?.status === 'True' && was.reason === UnreadableStateReason && was.message === message)
    return undefined;
  const lastTransitionTime =
    was?.status === 'True' && typeof was.lastTransitionTime === 'string'
      ? was.lastTransitionTime
      : iso(now);
  return {
    type: NodeRepairHeld,
    status: 'True',
    reason: UnreadableStateReason,
    message,
    lastTransitionTime,
  };
}
