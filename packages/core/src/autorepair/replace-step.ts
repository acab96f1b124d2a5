// The DeleteNode step after an accepted Replace (health/replace.ts decides when): read the
// Node, check it is still the machine the Replace went to, ask the provider whether that
// machine is fenced, persist the fence, and ONLY then delete the Node with a precondition on
// the uid that was checked. Without Cluster API nothing else removes the Node of a deleted
// machine (a cloud-controller-manager may, and then the Node is simply already gone); with it
// gone, the pod GC frees its pods and the node group's owner brings capacity back.
import type { KubeClient } from '../kube/client.js';
import { ConflictError, NotFoundError } from '../kube/errors.js';
import { NodeResource } from '../kube/resource.js';
import type { KubeNode } from '../kube/types.js';
import type { DeleteNodeAction, ReplaceReport } from '../health/replace.js';
import { askFence, judgeFence } from '../provider/fence.js';
import type { MachineProvider } from '../provider/port.js';
import type { EventInput } from '../runtime/helpers/event-recorder.js';
import type { RuntimeLogger } from '../runtime/logger.js';
import { EventReasons } from './events.js';
import type { AutoRepairMetrics } from './metrics.js';

/** Who a Node is: the object (uid) and the machine (providerID). */
export interface NodeIdentity {
  /** metadata.uid (empty when unset): the delete's precondition. */
  uid: string;
  /** spec.providerID (empty when unset): must equal the one the Replace went to. */
  providerID: string;
}

/** The two Node calls the step makes; the controller binds them to the KubeClient. */
export interface NodeDeletePort {
  /** Undefined when there is no Node of that name. */
  getNode(name: string, signal: AbortSignal): Promise<NodeIdentity | undefined>;
  /** DELETE with a uid precondition: `Conflict` when the name now belongs to another object. */
  deleteNode(
    name: string,
    uid: string,
    signal: AbortSignal,
  ): Promise<'Deleted' | 'NotFound' | 'Conflict'>;
}

/**
 * The NodeDeletePort over a KubeClient: a missing Node reads as undefined or NotFound, a uid
 * mismatch as Conflict; other apiserver errors propagate.
 */
export function kubeNodeDeletePort(client: KubeClient): NodeDeletePort {
  return {
    async getNode(name, signal) {
      try {
        const n = await client.get<KubeNode>(NodeResource, name, { signal });
        return { uid: n.metadata?.uid ?? '', providerID: n.spec?.providerID ?? '' };
      } catch (e) {
        if (e instanceof NotFoundError) return undefined;
        throw e;
      }
    },
    async deleteNode(name, uid, signal) {
      try {
        await client.delete(NodeResource, name, { preconditions: { uid }, signal });
        return 'Deleted';
      } catch (e) {
        if (e instanceof NotFoundError) return 'NotFound';
        if (e instanceof ConflictError) return 'Conflict';
        throw e;
      }
    },
  };
}

/** The ports runReplaceStep works through. */
export interface ReplaceStepDeps {
  /** Reads and deletes the Node. */
  nodes: NodeDeletePort;
  /** Asked whether the replaced machine is fenced. */
  provider: MachineProvider;
  /** Counts the fence, the delete and the Replaced ending. */
  metrics: AutoRepairMetrics;
  /** Records an Event on the Node (NodeDeleteWithheld, AwaitingFence, NodeReplaced). */
  event: (ev: EventInput) => Promise<void>;
  /** Logger of the Replaced ending. */
  log: RuntimeLogger;
  /** Clock of the persisted reports, in epoch milliseconds. */
  now: () => number;
}

/** The node the DeleteNode step is for, and how to persist what it learns. */
export interface ReplaceStepTarget {
  /** The Node's name. */
  node: string;
  /** Aborts on shutdown or lost leadership: nothing more is sent. */
  signal: AbortSignal;
  /** Persists what the step learnt (recordReplace + write); the fence BEFORE the delete. */
  recordReplace?: (report: ReplaceReport) => Promise<void>;
  /**
   * The uid of the Node the decision was made on: a Node re-created under the name since then
   * (a rebuild keeps the providerID) is another object and is never deleted.
   */
  uid?: string;
}

/**
 * What the DeleteNode step came to: Replaced (the remediation ended) or Withheld (the Node stays).
 */
export type ReplaceStepResult =
  /** The Node is gone: deleted now, or already (by a cloud-controller-manager, say). */
  | { kind: 'Replaced'; deleted: boolean }
  /** Not deleted now; look again after `retryAfterMs` when given. */
  | { kind: 'Withheld'; reason: string; retryAfterMs?: number };

/** What the node group's owner must do, said in every NodeReplaced event. */
export const RecreateCapacityNote =
  "noderepair does not create machines: the node group's owner (Cluster Autoscaler, Magnum, Heat, or your own automation) must recreate the capacity";

/**
 * The DeleteNode step after an accepted Replace: deletes the Node (uid precondition) only when it
 * still carries the providerID the Replace went to and the machine is known fenced, the fence
 * persisted first. Apiserver and provider errors propagate (nothing was deleted, or the next step
 * finds the Node gone).
 */
export async function runReplaceStep(
  action: DeleteNodeAction,
  target: ReplaceStepTarget,
  deps: ReplaceStepDeps,
): Promise<ReplaceStepResult> {
  const node = await deps.nodes.getNode(target.node, target.signal);
  if (node === undefined) return nodeGoneAfterReplace(action, target.node, deps);
  // Identity before every write: the Node must still be the machine the Replace went to.
  const expected = action.providerID ?? '';
  const otherObject = target.uid !== undefined && node.uid !== target.uid;
  if (expected === '' || node.providerID !== expected || otherObject) {
    const reason =
      expected === ''
        ? `no providerID was recorded with ${action.action} ${action.actionId}, so this Node cannot be proven to be the replaced machine`
        : node.providerID !== expected
          ? `the Node now has providerID ${node.providerID || '(none)'}, not ${expected} that ${action.action} ${action.actionId} went to`
          : `the Node is another object now (uid ${node.uid}, not ${target.uid ?? ''} that the repair was decided on): deleted and re-created under the same name`;
    await deps.event({
      type: 'Warning',
      reason: EventReasons.NodeDeleteWithheld,
      action: 'DeleteNode',
      note: `Node not deleted: ${reason}`,
    });
    // A fresh look past the deadline that cannot delete: as a "not fenced" answer, it lets the
    // step time out (replace.ts).
    const at = deps.now();
    await target.recordReplace?.({
      actionId: action.actionId,
      unavailable: false,
      ...(action.deadline !== undefined && at >= action.deadline ? { notFencedAt: at } : {}),
    });
    return { kind: 'Withheld', reason };
  }
  let fenced = action.fenced;
  if (fenced === undefined) {
    const status = await askFence(
      deps.provider,
      {
        node: target.node,
        providerID: node.providerID,
        actionId: action.actionId,
        action: action.action,
        issuedAt: action.issuedAt,
      },
      target.signal,
    );
    if (target.signal.aborted) return { kind: 'Withheld', reason: 'stopping' };
    const verdict = judgeFence({ action: action.action, provider: status });
    if (!verdict.fenced) {
      const at = deps.now();
      const answered = status.kind !== 'Unavailable';
      await target.recordReplace?.({
        actionId: action.actionId,
        unavailable: answered ? false : { at },
        // Asked past the deadline: the answer that lets the step time out (replace.ts).
        ...(answered && action.deadline !== undefined && at >= action.deadline
          ? { notFencedAt: at }
          : {}),
      });
      await deps.event({
        type: 'Normal',
        reason: EventReasons.AwaitingFence,
        action: 'DeleteNode',
        note: `Node deletion withheld until the machine is known fenced (${verdict.reason})`,
      });
      return {
        kind: 'Withheld',
        reason: verdict.reason,
        ...(status.kind === 'Unavailable' && status.retryAfterMs !== undefined
          ? { retryAfterMs: status.retryAfterMs }
          : {}),
      };
    }
    fenced = { how: verdict.how, evidence: `provider ${deps.provider.name}: ${verdict.evidence}` };
    deps.metrics.fenced.inc({ how: verdict.how });
    // Persisted before the delete: from now on the Node is deleted whatever the step's timeout.
    await target.recordReplace?.({
      actionId: action.actionId,
      fenced: { at: deps.now(), ...fenced },
    });
  }
  if (target.signal.aborted) return { kind: 'Withheld', reason: 'stopping' };
  const r = await deps.nodes.deleteNode(target.node, node.uid, target.signal);
  const how = `the machine ${expected} was fenced (${fenced.how}: ${fenced.evidence})`;
  if (r === 'Deleted') return replaced(action, target.node, deps, true, `Node deleted: ${how}`);
  return replaced(
    action,
    target.node,
    deps,
    false,
    r === 'NotFound'
      ? `the Node was already deleted; ${how}`
      : `the Node checked was already deleted (${how}); a Node now registered under the same name is another object and is left alone`,
  );
}

/**
 * The Node went away on its own after an accepted Replace (a cloud-controller-manager deletes
 * the Nodes of deleted servers): the remediation ended as Replaced all the same.
 */
export function nodeGoneAfterReplace(
  action: DeleteNodeAction,
  node: string,
  deps: Omit<ReplaceStepDeps, 'nodes' | 'provider'>,
): Promise<ReplaceStepResult> {
  return replaced(action, node, deps, false, 'the Node was already deleted');
}

async function replaced(
  action: DeleteNodeAction,
  node: string,
  deps: Omit<ReplaceStepDeps, 'nodes' | 'provider'>,
  deleted: boolean,
  what: string,
): Promise<ReplaceStepResult> {
  deps.metrics.actions.inc({ action: 'DeleteNode', result: 'Succeeded' });
  deps.metrics.ended.inc({ outcome: 'Replaced', cause: action.cause, step: action.action });
  deps.log.info(
    { node, actionId: action.actionId, providerID: action.providerID, deleted },
    'remediation ended: node replaced',
  );
  await deps.event({
    type: 'Normal',
    reason: EventReasons.NodeReplaced,
    action: 'DeleteNode',
    note: `${what} after ${action.action} ${action.actionId}; its pods are freed by the pod garbage collector. ${RecreateCapacityNote}`,
  });
  return { kind: 'Replaced', deleted };
}
