// How a remediation ends: the Node proves itself (Ready again, then Ready for minHealthySeconds)
// and is released, or the ladder is exhausted and the Machine is handed to Cluster API to
// replace (OwnerRemediated=False on the Machine, then the terminal phase).
import type { ReconcileContext, ReconcileResult } from '@noderepair/core/runtime';
import { ownerRemediatedPatch } from '../capi/index.js';
import { CONDITION_NODE_RECOVERED, type EndedAttempt, type LadderDecision } from './ladder.js';
import { refuseNode } from './locate.js';
import type { NodeView } from './node-view.js';
import { releaseNode } from './release.js';
import { machineResource } from './resources.js';
import {
  CONDITION_REMEDIATED,
  closeLast,
  iso,
  REASON_WAITING_FOR_REPLACEMENT,
  updateLast,
  type Osr,
  type RemediationIO,
} from './status.js';
import type { Target } from './target.js';
import type { NodeAccess } from './workload-clusters.js';

/** NodeRecovered=True since the Node came back (core's healthySince), and an event. */
export async function markRecovered(
  io: RemediationIO,
  osr: Osr,
  node: NodeView | undefined,
  d: Extract<LadderDecision, { kind: 'MarkRecovered' }>,
): Promise<ReconcileResult> {
  await io.writeStatus(osr, (s) => ({
    ...s,
    phase: 'Waiting',
    conditions: io.cond(osr, s, {
      type: CONDITION_NODE_RECOVERED,
      status: 'True',
      reason: 'NodeReady',
      message: `node ${node?.name ?? ''} is Ready again (bootID ${node?.bootID ?? 'unknown'}, before the action ${s.bootID ?? 'unknown'}); must stay Ready ${osr.spec.minHealthySeconds}s`,
      // core's healthySince: when the node came back, not when we noticed.
      lastTransitionTime: iso(d.healthySinceMs),
    }),
  }));
  await io.events.record(osr, {
    type: 'Normal',
    reason: 'NodeRecovered',
    action: 'Verify',
    note: `node ${node?.name ?? ''} is Ready again`,
  });
  return { requeueAfter: d.requeueAfterMs };
}

/** NodeRecovered=False: the Node fell back before minHealthySeconds. */
export async function markNotRecovered(
  io: RemediationIO,
  osr: Osr,
  node: NodeView | undefined,
  d: Extract<LadderDecision, { kind: 'MarkNotRecovered' }>,
): Promise<ReconcileResult> {
  await io.writeStatus(osr, (s) => ({
    ...s,
    conditions: io.cond(osr, s, {
      type: CONDITION_NODE_RECOVERED,
      status: 'False',
      reason: 'NodeNotReady',
      message: `node ${node?.name ?? ''} is ${node ? `Ready=${node.ready}` : 'gone'} again`,
    }),
  }));
  return { requeueAfter: d.requeueAfterMs };
}

/** Releases the Node, then records Succeeded (a terminal phase is never looked at again). */
export async function succeed(
  io: RemediationIO,
  osr: Osr,
  t: Target,
  nodes: NodeAccess,
  ctx: ReconcileContext,
): Promise<ReconcileResult | void> {
  // Uncordon BEFORE recording success: a terminal phase is never looked at again.
  const skipped = await releaseNode(
    io,
    osr,
    nodes,
    t.machine.nodeName,
    t.server.serverId,
    ctx.signal,
  );
  // A hold's own status write no longer wakes the remediation: look again when it says.
  if (skipped !== undefined) return refuseNode(io, osr, skipped, ctx);
  const now = io.now();
  await io.writeStatus(osr, (s) => ({
    ...s,
    phase: 'Succeeded',
    history: updateLast(s.history, (a) =>
      a.result === 'InProgress' ? { ...a, result: 'Succeeded', completionTime: iso(now) } : a,
    ),
    conditions: io.cond(osr, s, {
      type: CONDITION_REMEDIATED,
      status: 'True',
      reason: 'NodeHealthy',
      message: `node ${t.machine.nodeName ?? ''} Ready for ${osr.spec.minHealthySeconds}s after the action`,
    }),
  }));
  io.metrics.outcomes.inc({ result: 'Succeeded' });
  ctx.log.info({ osr: osr.metadata?.name, node: t.machine.nodeName }, 'remediation succeeded');
  await io.events.record(osr, {
    type: 'Normal',
    reason: 'RemediationSucceeded',
    action: 'Verify',
    note: `node ${t.machine.nodeName ?? ''} is healthy again; uncordoned`,
  });
}

/** Escalation past the last step: the Machine goes to Cluster API to be replaced. */
export async function giveUp(
  io: RemediationIO,
  osr: Osr,
  t: Target,
  message: string,
  ended: EndedAttempt | undefined,
  ctx: ReconcileContext,
): Promise<void> {
  // Hand the Machine to Cluster API first (idempotent), then record the terminal phase.
  const m = t.machine;
  const patch = ownerRemediatedPatch(t.machineObject, message, new Date(io.now()));
  await io.client.patch(
    machineResource(m.version),
    m.name,
    {
      type: 'merge',
      body: { status: patch.status },
      resourceVersion: patch.metadata.resourceVersion,
    },
    { namespace: m.namespace, subresource: 'status' },
  );
  const now = io.now();
  await io.writeStatus(osr, (s) => ({
    ...s,
    phase: 'Failed',
    history: closeLast(s.history, ended, now),
    conditions: io.cond(osr, s, {
      type: CONDITION_REMEDIATED,
      status: 'False',
      reason: REASON_WAITING_FOR_REPLACEMENT,
      message,
    }),
  }));
  io.metrics.outcomes.inc({ result: 'Failed' });
  ctx.log.warn(
    { osr: osr.metadata?.name, machine: m.name },
    'ladder exhausted; Machine handed to Cluster API',
  );
  const note = `${message}; set OwnerRemediated=False (WaitingForRemediation) on Machine ${m.name}`;
  await io.events.record(osr, {
    type: 'Warning',
    reason: 'RemediationFailed',
    action: 'GiveUp',
    note,
  });
  await io.events.record(t.machineObject, {
    type: 'Warning',
    reason: 'RemediationFailed',
    action: 'GiveUp',
    note,
    related: osr,
  });
}
