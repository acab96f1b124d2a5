// The interlock between a drain that ends and the power action decided before it began.
//
// A decision sends [Drain, Remediate] and the Remediate goes out in the pass whose drain
// ends. When the drain ran over several reconciles (minutes: PodDisruptionBudgets, an
// unreachable node's grace), the power state asked before the repair's first action is as
// old as the drain, and a person may have stopped the machine meanwhile; Nova's HARD reboot
// (or a rebuild) of a SHUTOFF server powers it on. So before such an action goes out in that
// pass the provider is asked once more; only a running, crashed or gone machine lets it go
// (health/power-before-action.ts sendsAfterDrain). Otherwise nothing is sent and nothing is
// recorded: the intent stays open, and the next reconcile re-issues it through the decision's
// own power gate (the shutdown rule, the outage's backoff, judgePowerBeforeAction).
// Found by the simulator (packages/sim, POLICY=hard-first, seeds 101 and 144).
import type { RepairAction } from '../health/decision.js';
import { canPowerOn, sendsAfterDrain } from '../health/power-before-action.js';
import type { PowerState } from '../health/machine.js';
import type { MachineProvider } from '../provider/port.js';
import type { EventInput } from '../runtime/helpers/event-recorder.js';
import { errorFields, type RuntimeLogger } from '../runtime/logger.js';
import { EventReasons } from './events.js';

type Remediate = Extract<RepairAction, { type: 'Remediate' }>;

/** Whether `next`, after a drain that ended in this pass, must wait for a power answer. */
export function needsPowerAfterDrain(
  drain: Extract<RepairAction, { type: 'Drain' }>,
  next: RepairAction | undefined,
  provider: MachineProvider,
  providerID: string | undefined,
): next is Remediate {
  return (
    !drain.firstPass &&
    next?.type === 'Remediate' &&
    !next.dryRun &&
    canPowerOn(next.action) &&
    provider.powerState !== undefined &&
    providerID !== undefined &&
    providerID !== ''
  );
}

/**
 * Asks the power state; true when `next` may go out now. When it may not, says why (log,
 * event) and the caller stops the pass without sending it.
 */
export async function powerAllowsAfterDrain(
  next: Remediate,
  machine: { node: string; providerID: string },
  deps: {
    provider: MachineProvider;
    event: (e: EventInput) => Promise<void>;
  },
  signal: AbortSignal,
  log: RuntimeLogger,
): Promise<boolean> {
  let p: PowerState | undefined;
  try {
    p = await deps.provider.powerState?.(machine, { signal });
  } catch (e) {
    log.warn(errorFields(e), 'power state before the action after the drain: no answer');
  }
  if (sendsAfterDrain(p)) return true;
  const why =
    p?.kind === 'Off'
      ? `the machine was stopped on request during the drain (${p.evidence})`
      : `the provider cannot say whether the machine was stopped during the drain${p?.kind === 'Unavailable' ? ` (${p.reason})` : ''}`;
  log.info(
    { action: next.action, actionId: next.actionId, power: p?.kind ?? 'Threw' },
    `drained; ${next.action} not sent: ${why}`,
  );
  await deps.event({
    type: p?.kind === 'Off' ? 'Normal' : 'Warning',
    reason: p?.kind === 'Off' ? EventReasons.NodeShutDown : EventReasons.ProviderUnavailable,
    action: next.action,
    note: `drained; ${next.action} ${next.actionId} not sent: ${why}; decided again on the next look`,
  });
  return false;
}
