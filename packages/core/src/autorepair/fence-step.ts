// The fence step: after an accepted action that can fence (HardReboot, Rebuild; after a
// Replace the DeleteNode step in replace-step.ts asks the fence instead),
// while the node is still not Ready and pods remain on it, ask the provider whether the
// machine is fenced and read the Node's bootID; ONLY when judgeFence says so, add
// node.kubernetes.io/out-of-service so the pod GC and the attach-detach controller free the
// stateful pods and their volumes. Before that, the pods stay where they are, whatever the
// wait: a partitioned node may still be running them.
import { addOutOfServiceTaint } from '../drain/executor.js';
import { NodeReplacedError, type DrainPort } from '../drain/port.js';
import type { RepairAction } from '../health/decide.js';
import { getCondition, NodeReady, TaintOutOfService } from '../health/node.js';
import type { FenceRecord } from '../health/state.js';
import { askFence, judgeFence } from '../provider/fence.js';
import type { MachineProvider } from '../provider/port.js';
import type { EventInput } from '../runtime/helpers/event-recorder.js';
import { EventReasons } from './events.js';

/** The Fence action of a repair decision. */
export type FenceAction = Extract<RepairAction, { type: 'Fence' }>;

/** The ports runFenceStep works through. */
export interface FenceStepDeps {
  /** Reads the Node and its pods and adds the out-of-service taint. */
  drainPort: DrainPort;
  /** Asked whether the machine is fenced. */
  provider: MachineProvider;
  /** Records an Event on the Node (AwaitingFence, Fenced). */
  event: (ev: EventInput) => Promise<void>;
  /** Clock of the fence record, in epoch milliseconds. */
  now: () => number;
}

/**
 * What the fence step came to: Fenced (the taint is on; persist the record), NotNeeded, or
 * NotFenced (the taint stays off; `retryAfterMs` when the provider asked to wait).
 */
export type FenceStepResult =
  | { kind: 'Fenced'; record: FenceRecord }
  /** Nothing to do now (Ready again, no pods left, Node gone). */
  | { kind: 'NotNeeded'; reason: string }
  | { kind: 'NotFenced'; reason: string; retryAfterMs?: number };

/**
 * Adds the out-of-service taint only once the machine is known fenced (provider answer or a changed
 * bootID, as judgeFence decides) and the Node is still not Ready with pods on it and still the
 * machine the action went to (`target.uid`, when the caller has it: the Node's uid when the
 * repair was decided). Apiserver and provider errors propagate.
 */
export async function runFenceStep(
  action: FenceAction,
  target: { node: string; signal: AbortSignal; uid?: string | undefined },
  deps: FenceStepDeps,
): Promise<FenceStepResult> {
  const node = await deps.drainPort.getNode(target.node, target.signal);
  if (node === undefined) return { kind: 'NotNeeded', reason: 'the Node is gone' };
  // The decision was about another object: re-created under this name since (a new machine, a
  // kubelet registering again); neither its bootID nor the provider's answer is about it.
  if (target.uid !== undefined && node.metadata?.uid !== target.uid)
    return {
      kind: 'NotNeeded',
      reason: `${TaintOutOfService} not added: ${new NodeReplacedError(target.node, target.uid, node.metadata?.uid).message}`,
    };
  if (getCondition(node, NodeReady)?.status === 'True')
    return { kind: 'NotNeeded', reason: 'the node is Ready again' };
  const pods = await deps.drainPort.listPodsOnNode(target.node, target.signal);
  if (pods.length === 0) return { kind: 'NotNeeded', reason: 'no pods left on the node' };
  const providerID = node.spec?.providerID ?? '';
  // Identity before every write: a Node recreated under the same name for another machine
  // (a replacement) is not the machine the action went to; its bootID proves nothing either.
  if (action.providerID !== undefined && providerID !== action.providerID)
    return {
      kind: 'NotNeeded',
      reason: `the Node now has providerID ${providerID || '(none)'}, not ${action.providerID} the action went to`,
    };
  const status = await askFence(
    deps.provider,
    {
      node: target.node,
      providerID,
      actionId: action.actionId,
      action: action.action,
      issuedAt: action.issuedAt,
    },
    target.signal,
  );
  const verdict = judgeFence({
    action: action.action,
    provider: status,
    bootIdBefore: action.bootIdBefore,
    bootIdNow: node.status?.nodeInfo?.bootID,
  });
  if (!verdict.fenced) {
    await deps.event({
      type: 'Normal',
      reason: EventReasons.AwaitingFence,
      action: 'Fence',
      note: `${TaintOutOfService} withheld: ${pods.length} pod(s) stay bound to the node until the machine is known fenced (${verdict.reason})`,
    });
    return {
      kind: 'NotFenced',
      reason: verdict.reason,
      ...(status.kind === 'Unavailable' && status.retryAfterMs !== undefined
        ? { retryAfterMs: status.retryAfterMs }
        : {}),
    };
  }
  if (target.signal.aborted) return { kind: 'NotFenced', reason: 'stopping' };
  // The uid of the Node judged above: one deleted and re-created under this name since (a
  // replaced machine, a kubelet registering again) is another object and gets no taint.
  let taint: Awaited<ReturnType<typeof addOutOfServiceTaint>>;
  try {
    taint = await addOutOfServiceTaint(
      deps.drainPort,
      target.node,
      target.signal,
      node.metadata?.uid,
    );
  } catch (e) {
    if (e instanceof NodeReplacedError)
      return { kind: 'NotNeeded', reason: `${TaintOutOfService} not added: ${e.message}` };
    throw e;
  }
  if (taint === 'NodeGone') return { kind: 'NotNeeded', reason: 'the Node is gone' };
  const by = status.kind === 'Fenced' ? `provider ${deps.provider.name}` : 'the Node bootID';
  const record: FenceRecord = {
    at: deps.now(),
    actionId: action.actionId,
    how: verdict.how,
    evidence: `${by}: ${verdict.evidence}`,
    taintAdded: taint === 'Tainted',
  };
  await deps.event({
    type: 'Warning',
    reason: EventReasons.Fenced,
    action: 'Fence',
    note: `machine fenced after ${action.action} ${action.actionId} (${verdict.how}, by ${record.evidence}); ${
      taint === 'Tainted'
        ? `added ${TaintOutOfService}=nodeshutdown:NoExecute so the ${pods.length} pod(s) and their volumes can move`
        : `${TaintOutOfService} was already set by someone else (left as is)`
    }`,
  });
  return { kind: 'Fenced', record };
}
