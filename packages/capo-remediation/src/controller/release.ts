// Giving the Node back: uncordon what we cordoned and remove the out-of-service taint we added
// (fence.ts records which), only on the Node whose providerID names our server; on deletion
// (the finalizer) even when the Machine is gone, and never blocking the deletion on a cluster
// that cannot be reached. A cordon or taint someone else put there stays.
import { uncordonNode } from '@noderepair/core/drain';
import { NodeResource, type KubeClient, type KubeNode } from '@noderepair/core/kube';
import {
  findMetaCondition,
  hasFinalizer,
  removeFinalizer,
  type ReconcileContext,
} from '@noderepair/core/runtime';
import * as E from 'fp-ts/lib/Either.js';
import { outOfServiceTaintIsOurs } from './fence.js';
import { nodeIdentityMismatch } from './node-identity.js';
import { OpenStackRemediationResource } from './resources.js';
import {
  CONDITION_CORDONED,
  FINALIZER,
  REASON_CORDONED_BY_US,
  type Osr,
  type RemediationIO,
} from './status.js';
import { machineOwner, readMachineObject } from './target.js';
import type { NodeAccess } from './workload-clusters.js';

/** Label Cluster API puts on the Machine and on the remediation it creates. */
const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';

/** The finalizer's work: release the Node (unless the remediation succeeded), then let the object go. */
export async function finalize(io: RemediationIO, osr: Osr, ctx: ReconcileContext): Promise<void> {
  if (!hasFinalizer(osr, FINALIZER)) return;
  const namespace = osr.metadata?.namespace ?? 'default';
  let nodeName: string | undefined;
  let skipped: string | undefined;
  if (osr.status?.phase !== 'Succeeded') {
    const owner = machineOwner(osr);
    const machine = E.isRight(owner)
      ? await readMachineObject(io.client, namespace, owner.right)
      : undefined;
    const view = machine !== undefined && E.isRight(machine) ? machine.right.view : undefined;
    // The Machine may already be gone (garbage collection deletes us after it): the label
    // Cluster API put on the remediation still names the cluster.
    const clusterName = view?.clusterName ?? osr.metadata?.labels?.[CLUSTER_NAME_LABEL];
    const nodes = await io.clusters.nodeAccess(namespace, clusterName);
    if (E.isLeft(nodes)) {
      // Never block the deletion on a cluster we cannot reach; say what was left behind.
      skipped = nodes.left;
    } else {
      nodeName =
        view?.nodeName ?? (await findNodeByServer(nodes.right.client, osr.status?.serverID));
      skipped = await releaseNode(io, osr, nodes.right, nodeName, osr.status?.serverID, ctx.signal);
    }
  }
  await removeFinalizer(io.client, OpenStackRemediationResource, osr, FINALIZER);
  ctx.log.info({ osr: osr.metadata?.name, node: nodeName }, 'cleaned up after deletion');
  await io.events.record(osr, {
    type: skipped ? 'Warning' : 'Normal',
    reason: skipped ? 'CleanupSkipped' : 'CleanedUp',
    action: 'Finalize',
    note: skipped
      ? `the node was not uncordoned: ${skipped}`
      : nodeName
        ? `node ${nodeName} uncordoned and out-of-service taint removed as needed`
        : 'no node to clean up',
  });
}

/**
 * Uncordon if we cordoned, and remove the out-of-service taint if our record says we added it
 * (never one an operator or another tool added): only on the Node whose providerID names
 * serverId. Returns why nothing was done, if so.
 */
export async function releaseNode(
  io: RemediationIO,
  osr: Osr,
  nodes: NodeAccess,
  nodeName: string | undefined,
  serverId: string | undefined,
  signal: AbortSignal,
): Promise<string | undefined> {
  if (nodeName === undefined) return undefined;
  const cordoned = findMetaCondition(osr.status?.conditions, CONDITION_CORDONED);
  const ours = cordoned?.reason === REASON_CORDONED_BY_US;
  const taintOurs = outOfServiceTaintIsOurs(osr.status?.conditions);
  if (!ours && !taintOurs) return undefined;
  const n = await nodes.drain.getNode(nodeName, signal);
  if (n === undefined) return undefined;
  // Without a server id we never drained (it is recorded first): nothing of ours to undo.
  if (serverId === undefined) return undefined;
  const mismatch = nodeIdentityMismatch(
    { name: nodeName, providerID: n.spec?.providerID || undefined },
    serverId,
    nodes.via,
  );
  if (mismatch !== undefined) return mismatch;
  if (ours) {
    await uncordonNode(nodes.drain, nodeName, { removeOutOfServiceTaint: taintOurs, signal });
  } else if (n.spec?.taints?.some((x) => x.key === 'node.kubernetes.io/out-of-service'))
    await nodes.drain.patchNode(
      nodeName,
      { removeTaintKeys: ['node.kubernetes.io/out-of-service'] },
      signal,
    );
  return undefined;
}

/** The Node whose providerID names the server (when the Machine, and its nodeRef, are gone). */
async function findNodeByServer(
  client: KubeClient,
  serverID: string | undefined,
): Promise<string | undefined> {
  if (serverID === undefined) return undefined;
  let cont: string | undefined;
  do {
    const page = await client.list<KubeNode>(NodeResource, { limit: 500, continue: cont });
    const hit = page.items.find((n) => n.spec?.providerID?.toLowerCase().endsWith(`/${serverID}`));
    if (hit?.metadata?.name) return hit.metadata.name;
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return undefined;
}
