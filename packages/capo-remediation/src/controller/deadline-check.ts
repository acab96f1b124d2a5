// At a step's timeout, the I/O behind deadline.ts's judgement: the node's Lease from its
// cluster, Nova's power state asked now (power-check.ts's question, under the same persisted
// outage backoff), and what a hold writes (condition EscalationHeld, one Warning event, the
// requeue). Nothing here escalates: decideLadder does, once the evidence is in.
import {
  ForbiddenError,
  LeaseResource,
  NotFoundError,
  type KubeLease,
} from '@noderepair/core/kube';
import {
  findMetaCondition,
  removeMetaCondition,
  type MetaCondition,
  type ReconcileContext,
  type ReconcileResult,
} from '@noderepair/core/runtime';
import { cloudBackoffMs } from './cloud.js';
import { cloudAnswered, cloudUnavailable } from './cloud-status.js';
import type { DeadlineEvidence, LeaseEvidence } from './deadline.js';
import type { LadderDecision } from './ladder.js';
import { askPowerState, clearServerStopped, holdStoppedByRequest } from './power-check.js';
import { truncate, type Osr, type RemediationIO } from './status.js';
import type { Target } from './target.js';
import type { NodeAccess } from './workload-clusters.js';

/**
 * Condition: True while a step's timeout has passed but does not escalate, because the node
 * has been silent since the action and Nova (or the node's cluster) cannot be asked; its
 * message says so. Removed once the remediation goes on.
 */
export const CONDITION_ESCALATION_HELD = 'EscalationHeld';
/** EscalationHeld reason: Nova cannot be asked about the server of a silent node. */
export const REASON_SILENT_CLOUD_UNAVAILABLE = 'NodeSilentCloudUnavailable';
/** EscalationHeld reason: the node's cluster cannot be read (its Lease). */
export const REASON_SILENT_CLUSTER_UNREADABLE = 'NodeSilentClusterUnreadable';

const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** The Node's Lease in kube-node-lease; the cluster not answering is `Unreadable`. */
export async function readNodeLease(
  nodes: NodeAccess,
  name: string | undefined,
  signal?: AbortSignal,
): Promise<LeaseEvidence> {
  if (name === undefined || name === '') return { kind: 'None', why: 'no Node name' };
  try {
    const lease = await nodes.client.get<KubeLease>(LeaseResource, name, {
      namespace: NODE_LEASE_NAMESPACE,
      signal,
    });
    const renew = lease.spec?.renewTime ? Date.parse(lease.spec.renewTime) : Number.NaN;
    return Number.isFinite(renew)
      ? { kind: 'Renewed', renewMs: renew }
      : { kind: 'None', why: `Lease ${NODE_LEASE_NAMESPACE}/${name} has no renewTime` };
  } catch (e) {
    if (e instanceof NotFoundError)
      return { kind: 'None', why: `no Lease ${NODE_LEASE_NAMESPACE}/${name}` };
    // Not permitted (a role without leases: get): no evidence, so Nova decides. Never a
    // reason to escalate by itself.
    if (e instanceof ForbiddenError)
      return { kind: 'None', why: `not permitted to read Lease ${NODE_LEASE_NAMESPACE}/${name}` };
    return { kind: 'Unreadable', reason: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * decideLadder with the evidence its `Ask` decisions name gathered (each read at most once):
 * the node's Lease, then Nova's power state. Returns the decision and the object as it now is
 * (Nova's answer clears CloudReachable=False and a ServerStopped that no longer holds), and
 * `backoffMs` when Nova was not asked because the persisted backoff has not run out.
 */
export async function decideWithEvidence(
  io: RemediationIO,
  osr0: Osr,
  t: Target,
  nodes: NodeAccess,
  nodeName: string | undefined,
  decide: (osr: Osr, evidence: DeadlineEvidence) => LadderDecision,
  ctx: ReconcileContext,
): Promise<{ decision: LadderDecision; osr: Osr; backoffMs?: number }> {
  let osr = osr0;
  let evidence: DeadlineEvidence = {};
  let backoffMs: number | undefined;
  let d = decide(osr, evidence);
  for (let round = 0; d.kind === 'Ask' && round < 2; round++) {
    if (d.what === 'Lease') {
      evidence = { ...evidence, lease: await readNodeLease(nodes, nodeName, ctx.signal) };
    } else {
      const asked = await askPowerState(io, osr, t, ctx);
      if ('waitMs' in asked) {
        backoffMs = asked.waitMs;
        const reason = `not asked again before ${osr.status?.cloudRetryTime ?? 'the backoff ends'}`;
        evidence = { ...evidence, server: { kind: 'Unavailable', reason } };
      } else {
        evidence = { ...evidence, server: asked.answer };
        if (asked.answer.kind !== 'Unavailable') {
          osr = await cloudAnswered(io, osr);
          if (asked.answer.kind !== 'Off' || !asked.answer.byRequest)
            osr = await clearServerStopped(io, osr, t);
        }
      }
    }
    d = decide(osr, evidence);
  }
  return { decision: d, osr, ...(backoffMs !== undefined ? { backoffMs } : {}) };
}

/**
 * A step's timeout that does not escalate (decision Hold): EscalationHeld=True with the
 * message and one Warning event per message; Nova's outage recorded as every unanswered call
 * is (CloudReachable=False, the metric, status.cloudRetryTime), and the requeue at the
 * persisted backoff. No attempt ends, nothing is sent, nothing is handed to Cluster API.
 */
export async function holdEscalation(
  io: RemediationIO,
  osr: Osr,
  d: Extract<LadderDecision, { kind: 'Hold' }>,
  backoffMs: number | undefined,
  ctx: ReconcileContext,
): Promise<ReconcileResult> {
  const reason =
    d.cause === 'CloudUnavailable'
      ? REASON_SILENT_CLOUD_UNAVAILABLE
      : REASON_SILENT_CLUSTER_UNREADABLE;
  const message = truncate(d.message);
  const prev = findMetaCondition(osr.status?.conditions, CONDITION_ESCALATION_HELD);
  let current = osr;
  if (prev?.status !== 'True' || prev.message !== message || prev.reason !== reason) {
    current = await io.writeStatus(osr, (s) => ({
      ...s,
      conditions: io.cond(osr, s, {
        type: CONDITION_ESCALATION_HELD,
        status: 'True',
        reason,
        message,
      }),
    }));
    await io.events.record(osr, {
      type: 'Warning',
      reason: 'EscalationHeld',
      action: 'Wait',
      note: truncate(`${d.message} (${d.detail})`),
    });
  }
  ctx.log.info(
    { osr: osr.metadata?.name, reason, detail: d.detail },
    'step timed out, no fresh evidence: not escalating',
  );
  if (d.cause === 'CloudUnavailable')
    return backoffMs !== undefined
      ? { requeueAfter: backoffMs }
      : cloudUnavailable(io, current, 'power', d.detail, undefined);
  // The node's cluster: the same backoff, from when this hold began (on the object).
  const held = findMetaCondition(current.status?.conditions, CONDITION_ESCALATION_HELD);
  const since = held ? Date.parse(held.lastTransitionTime) : Number.NaN;
  const now = io.now();
  return { requeueAfter: cloudBackoffMs(Number.isFinite(since) ? since : now, now) };
}

/** Removes EscalationHeld once the remediation goes on (whatever it does next). */
export async function releaseEscalationHold(io: RemediationIO, osr: Osr): Promise<Osr> {
  if (findMetaCondition(osr.status?.conditions, CONDITION_ESCALATION_HELD) === undefined)
    return osr;
  return io.writeStatus(osr, (s) => ({
    ...s,
    conditions: removeMetaCondition(
      s.conditions as MetaCondition[] | undefined,
      CONDITION_ESCALATION_HELD,
    ),
  }));
}

/** Decision ServerStopped at a timeout: the StoppedByRequest rule, nothing more sent. */
export function holdStoppedAtDeadline(
  io: RemediationIO,
  osr: Osr,
  t: Target,
  evidence: string,
): Promise<ReconcileResult> {
  return holdStoppedByRequest(
    io,
    osr,
    t,
    evidence,
    'the step timed out, but nothing more is sent while it is off (a HARD reboot would power it on)',
  );
}
