// What the remediation decision needs to know about the Node: its Ready condition, its boot
// ID (a new one proves the machine really restarted) and whether it is cordoned.
import type { KubeNode } from '@noderepair/core';

/** The parts of a Node the remediation decision reads, parsed once from the Node object. */
export interface NodeView {
  /** The Node's name ('' when the object has none). */
  readonly name: string;
  /** The Ready condition's status; a missing condition or any other value is Unknown. */
  readonly ready: 'True' | 'False' | 'Unknown';
  /** lastTransitionTime of the Ready condition, ms since the epoch. */
  readonly readySinceMs: number | undefined;
  /**
   * lastHeartbeatTime of the Ready condition, ms since the epoch: when the kubelet last posted
   * it (the node lifecycle controller's Unknown keeps the kubelet's last one).
   */
  readonly heartbeatMs?: number | undefined;
  /** status.nodeInfo.bootID; a new value after an action proves the machine restarted. */
  readonly bootID: string | undefined;
  /** Whether the Node is cordoned (spec.unschedulable). */
  readonly unschedulable: boolean;
  /** spec.providerID, e.g. `openstack:///<server uuid>`; undefined when empty. */
  readonly providerID: string | undefined;
}

/** Reads a Node into a {@link NodeView}; never throws, missing fields become undefined/Unknown. */
export function readNode(node: KubeNode): NodeView {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  const status = ready?.status === 'True' || ready?.status === 'False' ? ready.status : 'Unknown';
  const since = ready?.lastTransitionTime ? Date.parse(String(ready.lastTransitionTime)) : NaN;
  const beat = ready?.lastHeartbeatTime ? Date.parse(String(ready.lastHeartbeatTime)) : NaN;
  return {
    name: node.metadata?.name ?? '',
    ready: status,
    readySinceMs: Number.isFinite(since) ? since : undefined,
    heartbeatMs: Number.isFinite(beat) ? beat : undefined,
    bootID: node.status?.nodeInfo?.['bootID'] || undefined,
    unschedulable: node.spec?.unschedulable === true,
    providerID: node.spec?.providerID || undefined,
  };
}
