// Executes one ladder step on the server through NovaMachineProvider, core's MachineProvider
// on Nova: at most once per action id, answered from Nova's own os-instance-actions on a
// replay or after a lost reply, and an outage is Unavailable (never a failed attempt).
import type { FenceStatus, ProviderOutcome } from '@noderepair/core/provider';
import type { Step } from '../api/index.js';
import { formatProviderID, type NovaMachineProvider } from '@noderepair/openstack';

/** One ladder step to send to a Nova server, identified so that it is sent at most once. */
export interface ServerActionRequest {
  /** The Node the server backs, for the provider's logs and events. */
  readonly nodeName: string;
  /** The Nova server uuid. */
  readonly serverId: string;
  /** The step to run (SoftReboot, HardReboot or Rebuild with its image). */
  readonly step: Step;
  /** The persisted id of this attempt: a second call with the same id never sends the action again. */
  readonly actionId: string;
  /** When the intent was persisted (the history entry's startTime). */
  readonly issuedAt: number;
  /**
   * True when the intent was persisted before and its reply may have been lost: the provider
   * first looks for the action in Nova's instance actions, so it is not sent twice.
   */
  readonly replay: boolean;
}

/**
 * Runs one ladder step on the server through the Nova provider, at most once per action id. A
 * cloud outage comes back as an Unavailable outcome (wait and ask again), never as a failed attempt.
 */
export function executeStep(
  provider: NovaMachineProvider,
  req: ServerActionRequest,
  signal: AbortSignal,
): Promise<ProviderOutcome> {
  const { step, serverId } = req;
  return provider.execute(
    {
      node: req.nodeName,
      providerID: formatProviderID({ serverId, region: undefined }),
      action: step.type,
      ...(step.imageRef !== undefined ? { image: step.imageRef } : {}),
      actionId: req.actionId,
      issuedAt: req.issuedAt,
      replay: req.replay,
    },
    { signal },
  );
}

/** Is the server fenced after the step's action (Nova's word: SHUTOFF, gone, reset done)? */
export function fenceOf(
  provider: NovaMachineProvider,
  req: Omit<ServerActionRequest, 'replay'>,
  signal: AbortSignal,
): Promise<FenceStatus> {
  return provider.fence(
    {
      node: req.nodeName,
      providerID: formatProviderID({ serverId: req.serverId, region: undefined }),
      action: req.step.type,
      actionId: req.actionId,
      issuedAt: req.issuedAt,
    },
    { signal },
  );
}
