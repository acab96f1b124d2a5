// The first step of a remediation: cordon the Node (recording whether we cordoned it, so only
// what we cordoned is ever uncordoned) and drain it, before the first server action.
import { cordonNode, drainNode } from '@noderepair/core/drain';
import { findMetaCondition, type ReconcileContext } from '@noderepair/core/runtime';
import type { NodeView } from './node-view.js';
import {
  CONDITION_CORDONED,
  CONDITION_DRAINED,
  REASON_ALREADY_CORDONED,
  REASON_CORDONED_BY_US,
  type Osr,
  type RemediationIO,
} from './status.js';
import type { Target } from './target.js';
import type { NodeAccess } from './workload-clusters.js';

/**
 * Cordons and drains the Machine's Node. Returns the object with the Drained condition set in
 * memory only: the intent that act() writes next carries it, one status write fewer per
 * remediation. Should that write fail, the next reconcile drains again (the Cordoned
 * condition, written before the drain, keeps who cordoned).
 */
export async function drain(
  io: RemediationIO,
  osr: Osr,
  t: Target,
  nodes: NodeAccess,
  node: NodeView | undefined,
  ctx: ReconcileContext,
): Promise<Osr> {
  const nodeName = t.machine.nodeName;
  let current = osr;
  if (nodeName === undefined || node === undefined) {
    return withDrained(io, current, {
      status: 'False',
      reason: 'NodeNotFound',
      message: `Machine ${t.machine.name} has no Node${nodeName ? ` (${nodeName} is gone)` : ''}; nothing to drain`,
    });
  }
  // Record who cordoned BEFORE draining, so a deletion mid-flow uncordons only what we cordoned.
  if (findMetaCondition(osr.status?.conditions, CONDITION_CORDONED) === undefined) {
    const r = await cordonNode(nodes.drain, nodeName, ctx.signal);
    current = await io.writeStatus(current, (s) => ({
      ...s,
      phase: 'Draining',
      serverID: t.server.serverId,
      conditions: io.cond(osr, s, {
        type: CONDITION_CORDONED,
        status: 'True',
        reason: r === 'AlreadyCordoned' ? REASON_ALREADY_CORDONED : REASON_CORDONED_BY_US,
        message:
          r === 'AlreadyCordoned'
            ? `node ${nodeName} was already unschedulable; it will be left so`
            : `node ${nodeName} cordoned for remediation`,
      }),
    }));
    await io.events.record(osr, {
      type: 'Normal',
      reason: 'Draining',
      action: 'Drain',
      note: `cordoning and draining node ${nodeName}`,
    });
  }
  const timeoutMs =
    osr.spec.drain.timeoutSeconds > 0
      ? osr.spec.drain.timeoutSeconds * 1000
      : Number.MAX_SAFE_INTEGER;
  // Fenced before the out-of-service taint (issue 21): the drain never adds it. The pods of
  // an unreachable node cannot terminate, so the drain waits half its budget (60 s without
  // one) for the evictions, then the action runs; the taint comes once Nova reports the
  // server fenced (fenceAfterAction), never before and never after a soft reboot.
  const unreachable = node.ready === 'Unknown';
  const budget = osr.spec.drain.timeoutSeconds > 0 ? timeoutMs / 2 : 60_000;
  const result = await drainNode(nodes.drain, {
    node: nodeName,
    timeoutMs: unreachable ? Math.min(timeoutMs, budget) : timeoutMs,
    unreachable: false,
    outOfServiceAfterMs: Number.MAX_SAFE_INTEGER,
    signal: ctx.signal,
    ...(io.drainPollIntervalMs !== undefined ? { pollIntervalMs: io.drainPollIntervalMs } : {}),
  });
  if (result.outcome === 'Aborted')
    throw new Error(`drain of node ${nodeName} aborted (controller stopping)`);
  ctx.log.info(
    {
      node: nodeName,
      cluster: nodes.via,
      outcome: result.outcome,
      evicted: result.evicted.length,
      remaining: result.remaining.length,
      outOfService: result.outOfServiceTainted,
    },
    'drain finished',
  );
  const message =
    result.outcome === 'Drained'
      ? `node ${nodeName} drained (${result.evicted.length} pod(s) evicted${result.blocked.length ? `, ${result.blocked.length} left by policy` : ''})`
      : result.outcome === 'TimedOut'
        ? `drain of node ${nodeName} timed out after ${osr.spec.drain.timeoutSeconds}s with ${result.remaining.length} pod(s) left; acting anyway`
        : `node ${nodeName} is gone`;
  const out = withDrained(io, current, {
    status: result.outcome === 'Drained' ? 'True' : 'False',
    reason:
      result.outcome === 'Drained'
        ? 'Drained'
        : result.outcome === 'TimedOut'
          ? 'DrainTimedOut'
          : 'NodeNotFound',
    message: `${message}${result.outOfServiceTainted ? '; node.kubernetes.io/out-of-service taint added' : ''}`,
  });
  if (result.outcome === 'TimedOut')
    await io.events.record(osr, {
      type: 'Warning',
      reason: 'DrainTimedOut',
      action: 'Drain',
      note: message,
    });
  return out;
}

/** `osr` with the Drained condition set, in memory (see drain). */
function withDrained(
  io: RemediationIO,
  osr: Osr,
  c: { status: 'True' | 'False'; reason: string; message: string },
): Osr {
  const s = osr.status ?? {};
  return {
    ...osr,
    status: { ...s, conditions: io.cond(osr, s, { type: CONDITION_DRAINED, ...c }) },
  };
}
