// A re-issued Remediate (the intent had no completion: a controller died after persisting
// it) carries no Drain: the state machine records intents, not drain progress. The previous
// controller may have died half-way through the drain, so the shell drains again first.
// Draining is idempotent: on a node already drained it lists no pods and returns at once.
import type { RepairAction } from '../health/decide.js';
import type { RepairPolicy } from '../health/policy.js';
import type { RepairState } from '../health/state.js';

/** The actions to run for a decision, with a Drain before a replayed Remediate (pure). */
export function withReplayDrain(
  actions: readonly RepairAction[],
  state: RepairState | undefined,
  policy: RepairPolicy,
): RepairAction[] {
  const i = actions.findIndex((a) => a.type === 'Remediate' && a.replay);
  const rem = state?.remediation;
  if (i === -1 || !policy.drain.enabled || rem === undefined || !rem.cordoned) return [...actions];
  if (actions.some((a) => a.type === 'Drain')) return [...actions];
  const replayed = actions[i]!;
  const unreachable = rem.cause === 'KubeletUnreachable' || rem.cause === 'StaleHeartbeat';
  const drain: RepairAction = {
    type: 'Drain',
    unreachable,
    timeoutMs: policy.drain.timeoutMs,
    outOfServiceAfterMs: policy.drain.outOfServiceAfterMs,
    dryRun: replayed.dryRun,
    reason: `finishing the drain of repair ${rem.id} before re-issuing its action (a previous controller may have stopped mid-drain)`,
  };
  return [...actions.slice(0, i), drain, ...actions.slice(i)];
}
