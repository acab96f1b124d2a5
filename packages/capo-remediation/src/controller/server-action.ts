// Executes one ladder step on the server through NovaMachineProvider, core's MachineProvider
// on Nova: at most once per action id, answered from Nova's own os-instance-actions on a
// replay or after a lost reply, and an outage is Unavailable (never a failed attempt).
import type { FenceStatus, ProviderOutcome } from '@noderepair/core';
import type { Step } from '../api/index.js';
import { formatProviderID, type NovaMachineProvider } from '@noderepair/openstack';

export interface ServerActionRequest {
  readonly nodeName: string;
  readonly serverId: string;
  readonly step: Step;
  readonly actionId: string;
  /** When the intent was persisted (the history entry's startTime). */
  readonly issuedAt: number;
  readonly replay: boolean;
}

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
