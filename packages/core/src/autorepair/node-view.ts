// The Node projection the auto-repair informer caches: what the fleet-wide storm guard and
// the state machine read, and nothing else (no images, no addresses, no heartbeat times).
// Dropping lastHeartbeatTime matters twice: the cache stays small, and a kubelet's periodic
// status post no longer looks like a change, so it does not wake the reconciler.
import type { KubeNode } from '../kube/types.js';
import {
  AnnotationCapiPaused,
  AnnotationCapiSkipRemediation,
  type NodeConditionSnapshot,
  type NodeSnapshot,
  type TaintSnapshot,
} from '../health/node.js';
import type { RepairPolicy } from '../health/policy.js';
import { AnnotationCapiMachine } from '../health/actors.js';

/**
 * The small Node projection the auto-repair informer caches: only what the decisions read (watched
 * annotations, conditions without heartbeat times), so a kubelet heartbeat is not a change.
 */
export interface NodeView extends NodeSnapshot {
  /** Identity, labels and only the watched annotations (see watchedAnnotations). */
  metadata: {
    name: string;
    resourceVersion?: string;
    uid?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  /** Cordon, taints and the providerID. */
  spec: { unschedulable?: boolean; taints?: TaintSnapshot[]; providerID?: string };
  /** Conditions without lastHeartbeatTime. */
  status: { conditions?: NodeConditionSnapshot[] };
}

/** Annotation keys the controller reads; all others are dropped from the cache. */
export function watchedAnnotations(policy: RepairPolicy): string[] {
  return [
    policy.annotations.state,
    policy.annotations.trigger,
    AnnotationCapiPaused,
    AnnotationCapiSkipRemediation,
    // Other actors (coordination): a Cluster API node cordoned by its machine's deletion.
    AnnotationCapiMachine,
  ];
}

function pick(
  rec: Record<string, string> | undefined,
  keys: readonly string[],
): Record<string, string> | undefined {
  if (rec === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const k of keys) {
    const v = rec[k];
    if (v !== undefined) out[k] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Projects a Node (pure). */
export function toNodeView(node: KubeNode, annotationKeys: readonly string[]): NodeView {
  const m = node.metadata ?? {};
  const annotations = pick(m.annotations, annotationKeys);
  const conditions = node.status?.conditions?.map((c) => {
    const { lastHeartbeatTime: _hb, ...rest } = c;
    return rest;
  });
  return {
    metadata: {
      name: m.name ?? '',
      ...(m.resourceVersion !== undefined ? { resourceVersion: m.resourceVersion } : {}),
      ...(m.uid !== undefined ? { uid: m.uid } : {}),
      ...(m.creationTimestamp !== undefined ? { creationTimestamp: m.creationTimestamp } : {}),
      ...(m.deletionTimestamp !== undefined ? { deletionTimestamp: m.deletionTimestamp } : {}),
      ...(m.labels !== undefined ? { labels: m.labels } : {}),
      ...(annotations !== undefined ? { annotations } : {}),
    },
    spec: {
      ...(node.spec?.unschedulable !== undefined ? { unschedulable: node.spec.unschedulable } : {}),
      ...(node.spec?.taints !== undefined ? { taints: node.spec.taints } : {}),
      ...(node.spec?.providerID !== undefined ? { providerID: node.spec.providerID } : {}),
    },
    status: conditions !== undefined ? { conditions } : {},
  };
}

/** True when two projections differ in anything but the resourceVersion (pure). */
export function nodeViewChanged(a: NodeView, b: NodeView): boolean {
  const strip = (v: NodeView) => {
    const { resourceVersion: _rv, ...meta } = v.metadata;
    return JSON.stringify({ ...v, metadata: meta });
  };
  return strip(a) !== strip(b);
}
