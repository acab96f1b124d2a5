// Executes one ladder step on the server, at most once per action id: every step type
// (SoftReboot, HardReboot, Rebuild with its imageRef) goes through NovaRebootProvider, core's
// RebootProvider port on Nova, which records the action id in the server's metadata first.
import type { RebootResult } from '@noderepair/core';
import type { Step } from '../api/index.js';
import { formatProviderID, NovaRebootProvider, type NovaClient } from '@noderepair/openstack';

export interface ServerActionRequest {
  readonly nodeName: string;
  readonly serverId: string;
  readonly step: Step;
  readonly actionId: string;
  readonly replay: boolean;
}

export async function executeStep(
  nova: NovaClient,
  req: ServerActionRequest,
  signal?: AbortSignal,
): Promise<RebootResult> {
  const { step, serverId } = req;
  return new NovaRebootProvider(nova).execute(
    {
      node: req.nodeName,
      providerID: formatProviderID({ serverId, region: undefined }),
      action: step.type,
      ...(step.imageRef !== undefined ? { image: step.imageRef } : {}),
      actionId: req.actionId,
      replay: req.replay,
    },
    signal,
  );
}
