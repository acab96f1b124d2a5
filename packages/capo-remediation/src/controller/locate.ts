// Finding what a remediation acts on, before anything touches it: the Machine that owns it,
// its server and cloud credentials, where its Node lives (the management cluster or a workload
// cluster through Cluster API's kubeconfig Secret), and the Node itself, whose providerID must
// name the Machine's server. Anything missing is a hold (condition False, one event), not an error.
import { NodeResource, NotFoundError, type KubeNode } from '@noderepair/core/kube';
import {
  findMetaCondition,
  removeMetaCondition,
  type MetaCondition,
  type ReconcileContext,
  type ReconcileResult,
} from '@noderepair/core/runtime';
import * as E from 'fp-ts/lib/Either.js';
import { nodeIdentityMismatch } from './node-identity.js';
import { readNode, type NodeView } from './node-view.js';
import {
  CONDITION_NODE_VERIFIED,
  CONDITION_TARGET_RESOLVED,
  holdWith,
  UNRESOLVED_RECHECK_MS,
  type Osr,
  type RemediationIO,
} from './status.js';
import { machineOwner, resolveTarget, type DefaultIdentity, type Target } from './target.js';
import type { NodeAccess } from './workload-clusters.js';

/** What a remediation acts on, found and verified. */
export interface Located {
  readonly target: Target;
  /** The cluster where the Machine's Node lives. */
  readonly nodes: NodeAccess;
  /** The Machine's Node; undefined when it has none or it is gone. */
  readonly node: NodeView | undefined;
}

/**
 * The target, its Node access and its verified Node; else the requeue of a hold
 * (TargetResolved=False or NodeVerified=False). Clears a NodeVerified hold once the Node matches.
 */
export async function locate(
  io: RemediationIO,
  osr: Osr,
  defaultIdentity: DefaultIdentity | undefined,
  ctx: ReconcileContext,
): Promise<Located | { readonly hold: ReconcileResult }> {
  const owner = machineOwner(osr);
  const namespace = osr.metadata?.namespace ?? 'default';
  const target = E.isLeft(owner)
    ? owner
    : await resolveTarget(io.client, namespace, owner.right, defaultIdentity, {
        versions: io.openStackMachineVersions,
        secrets: io.secrets,
      });
  // The Node may live in a workload cluster: reached through Cluster API's kubeconfig Secret.
  const access = E.isLeft(target)
    ? target
    : await io.clusters.nodeAccess(namespace, target.right.machine.clusterName);
  if (E.isLeft(target) || E.isLeft(access)) {
    const why = E.isLeft(target) ? target.left : E.isLeft(access) ? access.left : '';
    await holdWith(io, osr, why, {
      condition: CONDITION_TARGET_RESOLVED,
      reason: 'TargetNotResolved',
      event: 'TargetNotResolved',
      action: 'Resolve',
    });
    ctx.log.info({ osr: osr.metadata?.name, reason: why }, 'target not resolved yet');
    return { hold: { requeueAfter: UNRESOLVED_RECHECK_MS } };
  }
  const t = target.right;
  const nodes = access.right;
  const read = await readNodeView(nodes, t.machine.nodeName, ctx.signal);
  if ('unreadable' in read)
    return { hold: await holdNode(io, osr, read.unreadable, 'unreadable', ctx) };
  const node = read.node;
  // Found by name only: before anything touches it (cordon, drain, taint, uncordon, or a
  // reboot judged from its conditions), its providerID must name the target server.
  const mismatch = node && nodeIdentityMismatch(node, t.server.serverId, nodes.via);
  if (mismatch !== undefined) return { hold: await refuseNode(io, osr, mismatch, ctx) };
  if (findMetaCondition(osr.status?.conditions, CONDITION_NODE_VERIFIED) !== undefined)
    await io.writeStatus(osr, (s) => ({
      ...s,
      conditions: removeMetaCondition(
        s.conditions as MetaCondition[] | undefined,
        CONDITION_NODE_VERIFIED,
      ),
    }));
  return { target: t, nodes, node };
}

/** Why the Node is not acted on: its identity does not match, or it cannot be read. */
const NODE_HOLDS = {
  // Another machine's Node (a decoy, a rebuilt Node): nothing is written to it.
  mismatch: {
    reason: 'ProviderIDMismatch',
    event: 'NodeIdentityMismatch',
    action: 'Verify',
    log: 'node is not the machine: not touched',
  },
  // The Node's cluster did not answer (its apiserver down, a network cut, an expired
  // credential): an outage, a reason to wait. No attempt ends, nothing escalates, nothing is
  // written to a Node that cannot be read; the condition clears once it is read again.
  unreadable: {
    reason: 'NodeUnreadable',
    event: 'NodeUnreadable',
    action: 'Read',
    log: 'node cannot be read: waiting',
  },
} as const;

/** NodeVerified=False and a Warning event (once per message); no write to the Node. */
async function holdNode(
  io: RemediationIO,
  osr: Osr,
  why: string,
  kind: keyof typeof NODE_HOLDS,
  ctx: ReconcileContext,
): Promise<ReconcileResult> {
  const h = NODE_HOLDS[kind];
  await holdWith(io, osr, why, {
    condition: CONDITION_NODE_VERIFIED,
    reason: h.reason,
    event: h.event,
    action: h.action,
  });
  ctx.log.warn({ osr: osr.metadata?.name, reason: why }, h.log);
  return { requeueAfter: UNRESOLVED_RECHECK_MS };
}

/** The Node is another machine's: NodeVerified=False (ProviderIDMismatch), nothing written. */
export function refuseNode(
  io: RemediationIO,
  osr: Osr,
  why: string,
  ctx: ReconcileContext,
): Promise<ReconcileResult> {
  return holdNode(io, osr, why, 'mismatch', ctx);
}

/** The Node (undefined: none named, or gone), or why it could not be read. */
async function readNodeView(
  nodes: NodeAccess,
  name: string | undefined,
  signal: AbortSignal,
): Promise<{ node: NodeView | undefined } | { unreadable: string }> {
  if (name === undefined) return { node: undefined };
  try {
    return { node: readNode(await nodes.client.get<KubeNode>(NodeResource, name)) };
  } catch (e) {
    if (e instanceof NotFoundError) return { node: undefined };
    // Stopping (shutdown, lost lease): no status write, whatever the read said.
    if (signal.aborted) throw e;
    const message = e instanceof Error ? e.message : String(e);
    return {
      unreadable: `Node ${name} in the ${nodes.via} cannot be read (${message}): waiting, nothing is done until it can (re-read every ${UNRESOLVED_RECHECK_MS / 1000} s)`,
    };
  }
}
