// The slice of a Pod that drain planning reads (structural: V1Pod fits).
import type { TimeInput } from '../health/time.js';

export interface OwnerReferenceSnapshot {
  kind: string;
  name: string;
  apiVersion?: string;
  controller?: boolean;
}

export interface PodSnapshot {
  metadata?: {
    name?: string;
    namespace?: string;
    annotations?: Record<string, string>;
    ownerReferences?: OwnerReferenceSnapshot[];
    deletionTimestamp?: TimeInput;
  };
  spec?: { nodeName?: string; volumes?: Array<{ name: string; emptyDir?: unknown }> };
  status?: { phase?: string };
}

export interface PodRef {
  namespace: string;
  name: string;
}

export const AnnotationMirrorPod = 'kubernetes.io/config.mirror';

export function podRef(p: PodSnapshot): PodRef {
  return { namespace: p.metadata?.namespace ?? 'default', name: p.metadata?.name ?? '' };
}

export function podKey(p: PodRef): string {
  return `${p.namespace}/${p.name}`;
}

export function controllerOf(p: PodSnapshot): OwnerReferenceSnapshot | undefined {
  return p.metadata?.ownerReferences?.find((o) => o.controller === true);
}
