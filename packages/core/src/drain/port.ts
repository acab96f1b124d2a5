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

/** The Node as the drain reads it: a NodeSnapshot and its uid (who the object is). */
export type NodeWithUid = NodeSnapshot & { metadata?: { uid?: string } };

/**
 * A Node patch carried a uid and the Node of that name is another object now: deleted and
 * re-created under the same name (a replaced machine, a kubelet that registered again). The
 * write meant for the old one was not made.
 */
export class NodeReplacedError extends Error {
  constructor(
    /** The Node's name. */
    readonly node: string,
    /** The uid the write was meant for (the Node that was judged). */
    readonly expectedUid: string,
    /** The uid of the Node that has the name now (undefined: none read). */
    readonly actualUid: string | undefined,
  ) {
    super(
      actualUid === undefined
        ? `Node ${node} (uid ${expectedUid}) was deleted; not written`
        : `Node ${node} is another object now (uid ${actualUid}, not ${expectedUid}): deleted and re-created under the same name; not written`,
    );
    this.name = 'NodeReplacedError';
  }
}

/** A change to a Node's spec; unset fields are left alone. */
export interface NodePatch {
  /**
   * The uid of the Node the caller read and judged. Set: the patch applies to that object only
   * (checked on the port's own read and sent as metadata.uid, so the apiserver refuses it too);
   * a Node of that name with another uid is NodeReplacedError, and nothing is written.
   */
  uid?: string;
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
  getNode(name: string, signal?: AbortSignal): Promise<NodeWithUid | undefined>;
  /**
   * Applies the patch to the Node's spec; errors (including a Node that is gone) propagate, and
   * a Node whose uid is not `patch.uid` is NodeReplacedError.
   */
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
