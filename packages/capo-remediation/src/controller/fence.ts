// Fencing after an action: the out-of-service taint goes on a Node only once Nova reports its
// server fenced (or a new bootID proves the restart), never before.
import { OutOfServiceTaint } from '@noderepair/core/drain';
import { findMetaCondition, type ReconcileContext } from '@noderepair/core/runtime';
import { CONDITION_FENCED, fenceVerdict, shouldAskFence } from './cloud.js';
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
  const current = await cloudAnswered(io, osr);
  const v = fenceVerdict(attempt, status, osr.status?.bootID, node);
  if (!v.fenced) {
    ctx.log.debug({ osr: osr.metadata?.name, reason: v.reason }, 'not fenced yet');
    return { osr: current, pending: true };
  }
  await nodes.drain.patchNode(node.name, { addTaints: [OutOfServiceTaint] });
  const updated = await io.writeStatus(current, (s) => ({
    ...s,
    conditions: io.cond(osr, s, {
      type: CONDITION_FENCED,
      status: 'True',
      reason: v.how,
      message: truncate(`${v.evidence}; node.kubernetes.io/out-of-service taint added`),
    }),
  }));
  await io.events.record(osr, {
    type: 'Normal',
    reason: 'Fenced',
    action: 'Fence',
    note: truncate(`${v.evidence}; added node.kubernetes.io/out-of-service to node ${node.name}`),
  });
  return { osr: updated };
}
