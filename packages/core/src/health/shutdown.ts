// A node that was shut down on purpose and has not been Ready since: its kubelet announced a
// graceful shutdown, the cloud-controller-manager marks its instance shut down (the
// node.cloudprovider.kubernetes.io/shutdown taint), or the provider, asked before the first
// action of a repair, says someone stopped its machine (PowerState Off, byRequest). Powering
// it back on would override that intent, so by default it waits for ever (policy
// shutdown.poweredOff: Wait) and its machine is not asked about again. An operator who would
// rather have such a node repaired sets FailAfter: once the node has been down that long,
// the provider's power state is asked for, and the node is failed (and repaired by the
// ladder; start-repair.ts skips steps that cannot act on a powered-off machine).
// Pure: the shell asks the provider (power-check.ts needsPowerState says when) and passes the
// answer in.
import type { PowerState } from './machine.js';
import type { ShutdownPolicy } from './policy.js';
import { formatDuration, iso } from './time.js';

export type ShutdownVerdict =
  | { kind: 'Wait'; detail: string; requeueAfterMs?: number }
  | {
      kind: 'Failed';
      detail: string;
      /** When the clock that ran out started. */
      since: number;
      /** The machine is off or gone: a reboot that asks the guest (SoftReboot) cannot work. */
      poweredOff: boolean;
    };

/**
 * The first words of every verdict: how the node is known to have been shut down. `how` is
 * what shows it now (observation.ts unannouncedShutdown); undefined: the kubelet announced it
 * (or an earlier observation showed it, which the persisted period remembers).
 */
function shutDown(how: string | undefined): string {
  return how === undefined
    ? 'the node was shut down on purpose (its kubelet announced it, or it was found stopped) and has not been Ready since'
    : `the node was shut down on purpose (${how}) and has not been Ready since`;
}

/** One ms past the deadline: the first instant that qualifies (as in assess.ts). */
const PAST_DEADLINE_MS = 1;

/** What will happen to a node that stays down after its shutdown, for events (which behaviour). */
export function shutdownBehaviour(policy: ShutdownPolicy): string {
  return policy.poweredOff === 'Wait'
    ? 'if it stays down it is waited for for ever (policy shutdown.poweredOff: Wait)'
    : `if it stays down for more than ${formatDuration(policy.failAfterMs)} it is treated as failed (policy shutdown.poweredOff: FailAfter ${formatDuration(policy.failAfterMs)})`;
}

/** When a shut-down node whose period began at `since` is failed; undefined: never (Wait). */
export function shutdownDeadline(since: number, policy: ShutdownPolicy): number | undefined {
  return policy.poweredOff === 'FailAfter' ? since + policy.failAfterMs : undefined;
}

/**
 * The verdict for a node in a shutdown period that began at `since`. `power` is the
 * provider's answer, undefined when it was not asked or the provider cannot tell. `how`: what
 * shows the shutdown now, for the words (unannouncedShutdown).
 */
export function judgeShutdown(
  since: number,
  power: PowerState | undefined,
  policy: ShutdownPolicy,
  now: number,
  how?: string,
): ShutdownVerdict {
  const SHUT_DOWN = shutDown(how);
  if (policy.poweredOff === 'Wait')
    return {
      kind: 'Wait',
      detail: `${SHUT_DOWN}: waiting for ever for it to report again, never powering it on (policy shutdown.poweredOff: Wait)`,
    };
  const limit = formatDuration(policy.failAfterMs);
  const rule = `policy shutdown.poweredOff: FailAfter ${limit}`;
  const deadline = since + policy.failAfterMs;
  if (deadline >= now)
    return {
      kind: 'Wait',
      detail: `${SHUT_DOWN}: waiting; if it is still down at ${iso(deadline)} it is treated as failed (${rule})`,
      requeueAfterMs: deadline - now + PAST_DEADLINE_MS,
    };
  if (power === undefined)
    return {
      kind: 'Wait',
      detail: `${SHUT_DOWN} for more than ${limit}, but the provider cannot tell the machine's power state: waiting (${rule} needs it)`,
    };
  switch (power.kind) {
    case 'Unavailable':
      // An outage of the cloud is waiting, never a verdict.
      return {
        kind: 'Wait',
        detail: `${SHUT_DOWN} for more than ${limit}; could not ask the provider for its power state (${power.reason}): waiting, asking again (${rule})`,
      };
    case 'Off': {
      // Powered off again after an earlier power-on: the clock runs from the last stop.
      const offSince = Math.max(since, power.since ?? since);
      if (offSince + policy.failAfterMs >= now)
        return {
          kind: 'Wait',
          detail: `${SHUT_DOWN}; powered off since ${iso(offSince)} (${power.evidence}): waiting; if it is still off at ${iso(offSince + policy.failAfterMs)} it is treated as failed (${rule})`,
          requeueAfterMs: offSince + policy.failAfterMs - now + PAST_DEADLINE_MS,
        };
      const who = power.byRequest ? 'stopped on request' : 'off without a recorded request';
      return {
        kind: 'Failed',
        detail: `${SHUT_DOWN}, powered off (${who}) for more than ${limit} (${power.evidence}): treated as failed (${rule})`,
        since: offSince,
        poweredOff: true,
      };
    }
    case 'Gone':
      return {
        kind: 'Failed',
        detail: `${SHUT_DOWN} for more than ${limit} and its machine is gone (${power.evidence}): treated as failed (${rule})`,
        since,
        poweredOff: true,
      };
    case 'On':
      // Someone powered it on, yet the node has not reported for that long: broken.
      return {
        kind: 'Failed',
        detail: `${SHUT_DOWN} for more than ${limit}; its machine is powered on but the node does not report: treated as failed (${rule})`,
        since,
        poweredOff: false,
      };
  }
}
