// The slice of a Pod that drain planning reads (structural: V1Pod fits).
import type { TimeInput } from '../health/time.js';

/** The slice of an ownerReference the drain reads. */
export interface OwnerReferenceSnapshot {
  /** The owner's kind (DaemonSet pods are treated apart). */
  kind: string;
  /** The owner's name. */
  name: string;
  /** The owner's apiVersion. */
  apiVersion?: string;
  /** True on the managing controller; a pod without one is unmanaged. */
  controller?: boolean;
}

/** The slice of a Pod the drain reads; a V1Pod fits. */
export interface PodSnapshot {
  /** Name, namespace, the mirror-pod annotation, owners and whether it is terminating. */
  metadata?: {
    name?: string;
    namespace?: string;
    annotations?: Record<string, string>;
    ownerReferences?: OwnerReferenceSnapshot[];
    deletionTimestamp?: TimeInput;
  };
  /** The node it runs on and its volumes (emptyDir ones need deleteEmptyDirData). */
  spec?: { nodeName?: string; volumes?: Array<{ name: string; emptyDir?: unknown }> };
  /** Succeeded and Failed pods are finished. */
  status?: { phase?: string };
}

/** A pod by namespace and name. */
export interface PodRef {
  /** The pod's namespace. */
  namespace: string;
  /** The pod's name. */
  name: string;
}

/**
 * The annotation the kubelet sets on a mirror (static) pod; such a pod cannot be evicted through
 * the API.
 */
export const AnnotationMirrorPod = 'kubernetes.io/config.mirror';

/**
 * The pod's namespace and name; a missing namespace reads as `default`, a missing name as empty.
 */
export function podRef(p: PodSnapshot): PodRef {
  return { namespace: p.metadata?.namespace ?? 'default', name: p.metadata?.name ?? '' };
}

/** `namespace/name`, the key a drain reports pods by. */
export function podKey(p: PodRef): string {
  return `${p.namespace}/${p.name}`;
}

/** The ownerReference with controller=true, or undefined for an unmanaged pod. */
export function controllerOf(p: PodSnapshot): OwnerReferenceSnapshot | undefined {
  return p.metadata?.ownerReferences?.find((o) => o.controller === true);
}
