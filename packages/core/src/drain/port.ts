// The narrow port the drain executor talks through. Defined here, not in kube/, so drain/
// depends on nothing but this contract; the controller wires it to the KubeClient.
import type { NodeSnapshot, TaintSnapshot } from '../health/node.js';
import type { PodRef, PodSnapshot } from './pod.js';

/** What the Eviction API answered. 429 is a PodDisruptionBudget saying "not now". */
export type EvictionResult =
  | { kind: 'Evicted' }
  | { kind: 'TooManyRequests'; message?: string }
  | { kind: 'NotFound' }
  | { kind: 'Error'; status?: number; message: string };

export type DeleteResult =
  | { kind: 'Deleted' }
  | { kind: 'NotFound' }
  | { kind: 'Error'; status?: number; message: string };

export interface NodePatch {
  unschedulable?: boolean;
  addTaints?: TaintSnapshot[];
  removeTaintKeys?: string[];
}

/**
 * Every call takes the caller's AbortSignal: when it aborts (a lost Lease, shutdown) the
 * request in flight ends at once (the KubeClient's RequestAbortedError) instead of finishing
 * a write for a term that is over.
 */
export interface DrainPort {
  getNode(name: string, signal?: AbortSignal): Promise<NodeSnapshot | undefined>;
  patchNode(name: string, patch: NodePatch, signal?: AbortSignal): Promise<void>;
  listPodsOnNode(nodeName: string, signal?: AbortSignal): Promise<PodSnapshot[]>;
  evictPod(
    pod: PodRef,
    opts: { gracePeriodSeconds?: number },
    signal?: AbortSignal,
  ): Promise<EvictionResult>;
  deletePod(
    pod: PodRef,
    opts: { gracePeriodSeconds?: number },
    signal?: AbortSignal,
  ): Promise<DeleteResult>;
}
