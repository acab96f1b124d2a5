// At a step's timeout: escalate only on fresh evidence. Pure: no I/O, no clock.
//
// "Not Ready at the deadline" alone is no proof that the action failed: a node that came back
// but cannot reach its control plane (a lost link) stays Ready=Unknown with the heartbeat it
// sent before the action, and a second reboot (finally a hand-back to Cluster API for
// replacement) would not help it. So an attempt escalates at its timeout only when:
// - the node reported AFTER the action (its Ready condition's lastHeartbeatTime, or its Lease's
//   renewTime in kube-node-lease, newer than Nova's acceptance) and is still not Ready, or its
//   bootID changed (it rebooted and is not Ready);
// - or, the node silent since the action, Nova asked now (after the deadline) says the server
//   runs (ACTIVE: the machine runs, its node does not report), is off without anyone's request
//   (a crash) or is gone.
// A server someone stopped is the ServerStopped rule (never powered on). When Nova cannot be
// asked, or the node's cluster cannot be read, nothing is known: the attempt holds (no
// escalation, no attempt used), and the reconciler waits with the persisted cloud backoff.
import type { PowerState } from '@noderepair/core/provider';
import type { NodeView } from './node-view.js';

/** The Node's Lease in kube-node-lease, as read at the deadline. */
export type LeaseEvidence =
  /** spec.renewTime, ms since the epoch. */
  | { readonly kind: 'Renewed'; readonly renewMs: number }
  /** No Lease to go by (none, no renewTime, or not permitted to read it): no evidence either way. */
  | { readonly kind: 'None'; readonly why: string }
  /** The node's cluster did not answer: nothing is known about the node. */
  | { readonly kind: 'Unreadable'; readonly reason: string };

/**
 * What the reconciler gathered at a step's deadline, when {@link judgeDeadline} asked for it
 * (`Ask`): the node's Lease, then Nova's view of the server asked now.
 */
export interface DeadlineEvidence {
  /** The node's Lease; undefined: not read yet. */
  readonly lease?: LeaseEvidence | undefined;
  /** Nova's answer to the power-state question asked after the deadline; undefined: not asked yet. */
  readonly server?: PowerState | undefined;
}

/** What to do with an attempt whose step timeout has passed with the node not back. */
export type DeadlineVerdict =
  /** Fresh evidence: the attempt timed out; `message` says why, with the evidence. */
  | { readonly kind: 'Escalate'; readonly message: string }
  /** Nothing fresh from the node yet: read its Lease, then ask Nova. */
  | { readonly kind: 'Ask'; readonly what: 'Lease' | 'Server' }
  /** Nothing can be known now: no escalation, no attempt used; wait and look again. */
  | {
      readonly kind: 'Hold';
      readonly cause: 'CloudUnavailable' | 'WorkloadUnreadable';
      /** For the condition and the event: why the timeout does not escalate. */
      readonly message: string;
      /** The error that made it unknown (Nova's or the cluster's). */
      readonly detail: string;
    }
  /** Nova: someone stopped the server; the ServerStopped rule applies (never powered on). */
  | { readonly kind: 'ServerStopped'; readonly evidence: string };

/** What {@link judgeDeadline} reads. */
export interface DeadlineInput {
  /** The Node as read now; undefined when there is none. */
  readonly node: NodeView | undefined;
  /** status.bootID: the Node's bootID when the attempt was decided. */
  readonly bootIDBefore: string | undefined;
  /** When Nova accepted the action (the step timeout counts from here), ms. */
  readonly completedAt: number;
  /** The timeout's own words, e.g. `node n1 not Ready 300s after HardReboot (Ready=Unknown)`. */
  readonly timedOut: string;
  /** What the reconciler gathered so far (nothing at first). */
  readonly evidence: DeadlineEvidence;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The node's own report after the action, in words, or undefined when it has been silent since:
 * a new bootID, a Ready heartbeat or a Lease renewal strictly after `completedAt`.
 */
export function reportedSince(
  node: NodeView | undefined,
  bootIDBefore: string | undefined,
  lease: LeaseEvidence | undefined,
  completedAt: number,
): string | undefined {
  if (
    node !== undefined &&
    bootIDBefore !== undefined &&
    node.bootID !== undefined &&
    node.bootID !== bootIDBefore
  )
    return `it rebooted since (bootID ${bootIDBefore} -> ${node.bootID})`;
  if (node?.heartbeatMs !== undefined && node.heartbeatMs > completedAt)
    return `it reported since (Ready heartbeat ${iso(node.heartbeatMs)})`;
  if (lease?.kind === 'Renewed' && lease.renewMs > completedAt)
    return `it reported since (Lease renewed ${iso(lease.renewMs)})`;
  return undefined;
}

/** The rules above on what was gathered so far; `Ask` names what to gather next. */
export function judgeDeadline(i: DeadlineInput): DeadlineVerdict {
  const { lease, server } = i.evidence;
  const fresh = reportedSince(i.node, i.bootIDBefore, lease, i.completedAt);
  if (fresh !== undefined) return { kind: 'Escalate', message: `${i.timedOut}; ${fresh}` };
  // The Node status says nothing newer (the kubelet posts it only every 5 min when nothing
  // changes): its Lease, renewed every 10 s, may.
  if (lease === undefined) return { kind: 'Ask', what: 'Lease' };
  if (lease.kind === 'Unreadable')
    return {
      kind: 'Hold',
      cause: 'WorkloadUnreadable',
      message: `${i.timedOut}, and the node's Lease cannot be read from its cluster: waiting, no attempt used`,
      detail: lease.reason,
    };
  if (server === undefined) return { kind: 'Ask', what: 'Server' };
  const silent = `${i.timedOut}; it has not reported since and`;
  switch (server.kind) {
    case 'On':
      return { kind: 'Escalate', message: `${silent} Nova reports its server running` };
    case 'Off':
      return server.byRequest
        ? { kind: 'ServerStopped', evidence: server.evidence }
        : { kind: 'Escalate', message: `${silent} ${server.evidence}` };
    case 'Gone':
      return { kind: 'Escalate', message: `${silent} ${server.evidence}` };
    case 'Unavailable':
      return {
        kind: 'Hold',
        cause: 'CloudUnavailable',
        message: `${i.timedOut}, the node has not reported since and Nova cannot be asked: waiting, no attempt used`,
        detail: server.reason,
      };
  }
}
