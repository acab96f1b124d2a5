// Executes one ladder step on the server, at most once per action id.
// SoftReboot / HardReboot go through NovaRebootProvider (core's RebootProvider port). Rebuild
// is not in core's ladder, so it is done here with the same idempotency rule: the action id
// is written to the server's metadata before the rebuild, and an id found there is not run
// again (rebuild keeps server metadata).
import type { RebootResult } from '@noderepair/core';
import type { Step } from '../api/index.js';
import {
  ACTION_ID_METADATA_KEY,
  formatProviderID,
  NovaRebootProvider,
  OpenStackError,
  type NovaClient,
} from '../openstack/index.js';

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
): Promise<RebootResult> {
  const { step, serverId } = req;
  if (step.type !== 'Rebuild') {
    return new NovaRebootProvider(nova).execute({
      node: req.nodeName,
      providerID: formatProviderID({ serverId, region: undefined }),
      action: step.type,
      actionId: req.actionId,
      replay: req.replay,
    });
  }
  if (step.imageRef === undefined)
    return { result: 'Failed', message: 'Rebuild step without imageRef' };
  try {
    const meta = await nova.getMetadata(serverId);
    if (meta[ACTION_ID_METADATA_KEY] === req.actionId) {
      return {
        result: 'Succeeded',
        message: `${req.actionId} was already executed on server ${serverId}; not rebuilding again`,
      };
    }
    await nova.setMetadataItem(serverId, ACTION_ID_METADATA_KEY, req.actionId);
    await nova.rebuild(serverId, step.imageRef);
    return {
      result: 'Succeeded',
      message: `Nova accepted rebuild of server ${serverId} from image ${step.imageRef}`,
    };
  } catch (e) {
    if (e instanceof OpenStackError)
      return { result: 'Failed', message: `${e.code}: ${e.message}` };
    throw e;
  }
}
