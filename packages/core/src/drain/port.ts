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

export interface DrainPort {
  getNode(name: string): Promise<NodeSnapshot | undefined>;
  patchNode(name: string, patch: NodePatch): Promise<void>;
  listPodsOnNode(nodeName: string): Promise<PodSnapshot[]>;
  evictPod(pod: PodRef, opts: { gracePeriodSeconds?: number }): Promise<EvictionResult>;
  deletePod(pod: PodRef, opts: { gracePeriodSeconds?: number }): Promise<DeleteResult>;
}

/** Time for the executor: real (Date.now + setTimeout) or virtual in tests. */
export interface DrainClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const drainSystemClock: DrainClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
