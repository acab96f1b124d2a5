// What the remediation decision needs to know about the Node: its Ready condition, its boot
// ID (a new one proves the machine really restarted) and whether it is cordoned.
import type { KubeNode } from '@noderepair/core';

export interface NodeView {
  readonly name: string;
  readonly ready: 'True' | 'False' | 'Unknown';
  /** lastTransitionTime of the Ready condition, ms since the epoch. */
  readonly readySinceMs: number | undefined;
  readonly bootID: string | undefined;
  readonly unschedulable: boolean;
  readonly providerID: string | undefined;
}

export function readNode(node: KubeNode): NodeView {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  const status = ready?.status === 'True' || ready?.status === 'False' ? ready.status : 'Unknown';
  const since = ready?.lastTransitionTime ? Date.parse(String(ready.lastTransitionTime)) : NaN;
  return {
    name: node.metadata?.name ?? '',
    ready: status,
    readySinceMs: Number.isFinite(since) ? since : undefined,
    bootID: node.status?.nodeInfo?.['bootID'] || undefined,
    unschedulable: node.spec?.unschedulable === true,
    providerID: node.spec?.providerID || undefined,
  };
}
