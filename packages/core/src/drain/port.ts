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

/**
 * What deleting a pod answered (the drain deletes instead of evicting when disableEviction is set).
 */
export type DeleteResult =
  | { kind: 'Deleted' }
  | { kind: 'NotFound' }
  | { kind: 'Error'; status?: number; message: string };

/** A change to a Node's spec; unset fields are left alone. */
export interface NodePatch {
  /** true cordons, false uncordons. */
  unschedulable?: boolean;
  /** Taints to add; one with the same key and effect is replaced. */
  addTaints?: TaintSnapshot[];
  /** Keys of the taints to remove (every effect). */
  removeTaintKeys?: string[];
}

/**
 * Every call takes the caller's AbortSignal: when it aborts (a lost Lease, shutdown) the
 * request in flight ends at once (the KubeClient's RequestAbortedError) instead of finishing
 * a write for a term that is over.
 */
export interface DrainPort {
  /** The Node, or undefined when there is none of that name. */
  getNode(name: string, signal?: AbortSignal): Promise<NodeSnapshot | undefined>;
  /** Applies the patch to the Node's spec; errors (including a Node that is gone) propagate. */
  patchNode(name: string, patch: NodePatch, signal?: AbortSignal): Promise<void>;
  /** Every pod bound to the node, all pages. */
  listPodsOnNode(nodeName: string, signal?: AbortSignal): Promise<PodSnapshot[]>;
  /** Asks the Eviction API to evict the pod; failures come back as results, not throws. */
  evictPod(
    pod: PodRef,
    opts: { gracePeriodSeconds?: number },
    signal?: AbortSignal,
  ): Promise<EvictionResult>;
  /** Deletes the pod outright, bypassing PodDisruptionBudgets; failures come back as results. */
  deletePod(
    pod: PodRef,
    opts: { gracePeriodSeconds?: number },
    signal?: AbortSignal,
  ): Promise<DeleteResult>;
}
