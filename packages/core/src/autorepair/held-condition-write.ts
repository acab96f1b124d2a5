// Writes a NodeRepairHeld condition (held-condition.ts decides what it says) into a Node's
// status: the I/O beside those pure rules, shared by the coordinator (holds) and the
// reconciler (state it cannot read). Visibility only: a failed patch is logged, never retried
// at the cost of a repair. The caller skips dry runs.
import type { KubeClient } from '../kube/client.js';
import { NodeResource } from '../kube/resource.js';
import { errorFields, type RuntimeLogger } from '../runtime/logger.js';
import { NodeRepairHeld, type HeldCondition } from './held-condition.js';

/** Patches `cond` into the status of the Node `name` whose uid was read as `uid`. */
export async function writeHeldCondition(
  client: KubeClient,
  log: RuntimeLogger,
  name: string,
  uid: string | undefined,
  cond: HeldCondition,
  signal: AbortSignal,
): Promise<void> {
  try {
    await client.patch(
      NodeResource,
      name,
      {
        type: 'strategic',
        // The uid read is a precondition: a Node recreated under the same name (another
        // machine) is refused (409/422), never handed this node's condition.
        body: {
          ...(uid !== undefined ? { metadata: { uid } } : {}),
          status: { conditions: [cond] },
        },
      },
      { subresource: 'status', signal },
    );
  } catch (e) {
    log.warn({ node: name, ...errorFields(e) }, `could not update the ${NodeRepairHeld} condition`);
  }
}
