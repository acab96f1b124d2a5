// Fencing after an action: the out-of-service taint goes on a Node only once Nova reports its
// server fenced (or a new bootID proves the restart), never before. Whether the taint is ours
// is recorded (condition OutOfServiceTaint), so the release removes only a taint we added.
import { OutOfServiceTaint } from '@noderepair/core/drain';
import { nodeHasTaint } from '@noderepair/core/health';
import {
  findMetaCondition,
  type MetaCondition,
  type ReconcileContext,
} from '@noderepair/core/runtime';
import { CONDITION_FENCED, cloudWaitMs, fenceVerdict, shouldAskFence } from './cloud.js';
import { cloudAnswered, cloudUnavailable } from './cloud-status.js';
import type { NodeView } from './node-view.js';
import { fenceOf } from './server-action.js';
import { truncate, uidOf, type Osr, type RemediationIO } from './status.js';
import type { Target } from './target.js';
import type { NodeAccess } from './workload-clusters.js';

/**
 * How soon to ask Nova again while a fence is pending: no watch event says that Nova finished
 * a reboot, so this is the one wait that polls.
 */
export const FENCE_RECHECK_MS = 5_000;

/**
 * Condition: node.kubernetes.io/out-of-service is on the Node; its reason says whether we added
 * it (and so may remove it on release) or found it there (then it is never removed by us).
 */
export const CONDITION_OUT_OF_SERVICE = 'OutOfServiceTaint';
/** OutOfServiceTaint reason: we added the taint; the release removes it. */
export const REASON_TAINTED_BY_US = 'TaintedForRemediation';
/** OutOfServiceTaint reason: someone else's taint (an operator, another tool); it stays. */
export const REASON_ALREADY_TAINTED = 'AlreadyTainted';

/** True when this remediation's record says the out-of-service taint on its Node is ours. */
export function outOfServiceTaintIsOurs(conditions: readonly MetaCondition[] | undefined): boolean {
  return findMetaCondition(conditions, CONDITION_OUT_OF_SERVICE)?.reason === REASON_TAINTED_BY_US;
}

/**
 * After an accepted action that can fence, on a Node that is not Ready: ask Nova whether
 * the server is fenced (SHUTOFF, deleted, HARD reboot finished) or see a new bootID, and
 * only then add node.kubernetes.io/out-of-service (core's judgeFence). Returns a requeue
 * when Nova could not be asked (an outage), else the (maybe updated) object, `pending` when
 * the server is not fenced yet (look again within {@link FENCE_RECHECK_MS}).
 */
export async function fenceAfterAction(
  io: RemediationIO,
  osr: Osr,
  t: Target,
  nodes: NodeAccess,
  node: NodeView | undefined,
  ctx: ReconcileContext,
): Promise<{ osr: Osr; requeueAfterMs?: number; pending?: true }> {
  const fenced = findMetaCondition(osr.status?.conditions, CONDITION_FENCED)?.status === 'True';
  const attempt = shouldAskFence(osr.spec, osr.status, node, fenced);
  if (attempt === undefined || node === undefined) return { osr };
  // During an outage, not before the backoff (or Retry-After) the last unanswered call set.
  const wait = cloudWaitMs(osr.status, io.now());
  if (wait > 0) return { osr, requeueAfterMs: wait };
  const status = await fenceOf(
    io.provider(t),
    {
      nodeName: node.name,
      serverId: t.server.serverId,
      step: osr.spec.steps[attempt.step] ?? { type: attempt.type, timeoutSeconds: 0, retries: 0 },
      actionId: `${uidOf(osr)}/step-${attempt.step}/attempt-${attempt.attempt}`,
      issuedAt: Date.parse(attempt.startTime),
    },
    ctx.signal,
  );
  if (status.kind === 'Unavailable') {
    const r = await cloudUnavailable(io, osr, 'fence', status.reason, status.retryAfterMs);
    return { osr, requeueAfterMs: r.requeueAfter ?? 5_000 };
  }
  let current = await cloudAnswered(io, osr);
  const v = fenceVerdict(attempt, status, osr.status?.bootID, node);
  if (!v.fenced) {
    ctx.log.debug({ osr: osr.metadata?.name, reason: v.reason }, 'not fenced yet');
    return { osr: current, pending: true };
  }
  // Every Node call carries the reconcile's signal: a lost lease or a stopping controller sends
  // no taint write. Whose taint it is goes to status BEFORE the taint is added (as an intent
  // is): a deletion or a status conflict right after the add would otherwise leave our taint
  // unrecorded, and so on the Node for good. A taint already there is someone else's, unless
  // an earlier attempt of ours recorded it as ours.
  const n = await nodes.drain.getNode(node.name, ctx.signal);
  const present = nodeHasTaint(n, OutOfServiceTaint.key);
  const recordedOurs = outOfServiceTaintIsOurs(current.status?.conditions);
  if (n !== undefined && !present && !recordedOurs)
    current = await io.writeStatus(current, (s) => ({
      ...s,
      conditions: io.cond(osr, s, taintRecord(node.name, true)),
    }));
  // To the Node object just read (its uid), not one re-created under the same name since.
  const uid = n?.metadata?.uid;
  if (n !== undefined && !present)
    await nodes.drain.patchNode(
      node.name,
      { addTaints: [OutOfServiceTaint], ...(uid !== undefined ? { uid } : {}) },
      ctx.signal,
    );
  const what =
    n === undefined
      ? `node ${node.name} is gone; no taint added`
      : !present
        ? `node.kubernetes.io/out-of-service added to node ${node.name}`
        : recordedOurs
          ? `node.kubernetes.io/out-of-service is still on node ${node.name} (added by an earlier fence of this remediation)`
          : `node.kubernetes.io/out-of-service was already on node ${node.name} (someone else's; left as is)`;
  const theirs = n !== undefined && present && !recordedOurs;
  const updated = await io.writeStatus(current, (s) => {
    const fencedNow = {
      ...s,
      conditions: io.cond(osr, s, {
        type: CONDITION_FENCED,
        status: 'True',
        reason: v.how,
        message: truncate(`${v.evidence}; ${what}`),
      }),
    };
    if (!theirs) return fencedNow;
    return { ...fencedNow, conditions: io.cond(osr, fencedNow, taintRecord(node.name, false)) };
  });
  await io.events.record(osr, {
    type: 'Normal',
    reason: 'Fenced',
    action: 'Fence',
    note: truncate(`${v.evidence}; ${what}`),
  });
  return { osr: updated };
}

/** The OutOfServiceTaint condition: ours (the release removes it) or someone else's (it stays). */
function taintRecord(nodeName: string, ours: boolean) {
  return {
    type: CONDITION_OUT_OF_SERVICE,
    status: 'True' as const,
    reason: ours ? REASON_TAINTED_BY_US : REASON_ALREADY_TAINTED,
    message: ours
      ? `node ${nodeName}: added by this remediation; removed when the node is released`
      : `node ${nodeName}: put there by someone else before this remediation's fence; never removed by it`,
  };
}
