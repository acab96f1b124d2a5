// DrainPort bound to the KubeClient port: the production wiring of the drain executor.
// Node changes are merge patches under an optimistic lock (the kubelet rewrites the Node's
// status every few seconds, but a status write does not touch spec, so a conflict is simply
// retried on a fresh read). Evictions go through the Eviction API, where a
// PodDisruptionBudget refusal is a TooManyRequestsError that becomes `TooManyRequests`.
import type { KubeClient } from '../kube/client.js';
import {
  ConflictError,
  KubeApiError,
  NotFoundError,
  TooManyRequestsError,
} from '../kube/errors.js';
import { listAll } from '../kube/pagination.js';
import { NodeResource, PodResource } from '../kube/resource.js';
import type { KubeNode, KubePod } from '../kube/types.js';
import type { NodeSnapshot, TaintSnapshot } from '../health/node.js';
import type { PodRef, PodSnapshot } from './pod.js';
import {
  NodeReplacedError,
  type DeleteResult,
  type NodeWithUid,
  type DrainPort,
  type EvictionResult,
  type NodePatch,
} from './port.js';

/** The merge-patch body for a NodePatch against the Node's current taints (pure). */
export function nodePatchBody(
  current: NodeSnapshot,
  patch: NodePatch,
): { spec: Record<string, unknown> } {
  const spec: Record<string, unknown> = {};
  if (patch.unschedulable !== undefined)
    // null removes the field, as `kubectl uncordon` leaves the Node.
    spec['unschedulable'] = patch.unschedulable ? true : null;
  if (patch.addTaints !== undefined || patch.removeTaintKeys !== undefined) {
    const remove = new Set(patch.removeTaintKeys ?? []);
    const adding = patch.addTaints ?? [];
    const kept = (current.spec?.taints ?? []).filter(
      (t) => !remove.has(t.key) && !adding.some((a) => a.key === t.key && a.effect === t.effect),
    );
    const taints: TaintSnapshot[] = [...kept, ...adding];
    // A merge patch replaces the whole list; null when empty so no `taints: []` is left behind.
    spec['taints'] = taints.length > 0 ? taints : null;
  }
  return { spec };
}

/** Maps an Eviction API failure to the executor's result kinds (pure). */
export function evictionResultFromError(e: unknown): EvictionResult {
  if (e instanceof TooManyRequestsError) return { kind: 'TooManyRequests', message: e.message };
  if (e instanceof NotFoundError) return { kind: 'NotFound' };
  if (e instanceof KubeApiError) return { kind: 'Error', status: e.code, message: e.message };
  return { kind: 'Error', message: e instanceof Error ? e.message : String(e) };
}

function deleteResultFromError(e: unknown): DeleteResult {
  if (e instanceof NotFoundError) return { kind: 'NotFound' };
  if (e instanceof KubeApiError) return { kind: 'Error', status: e.code, message: e.message };
  return { kind: 'Error', message: e instanceof Error ? e.message : String(e) };
}

/** Options of kubeDrainPort. */
export interface KubeDrainPortOptions {
  /** Attempts for a Node patch that meets a resourceVersion conflict. Default 5. */
  conflictRetries?: number;
}

/** A DrainPort over any KubeClient adapter (client-node or KFC). */
export function kubeDrainPort(client: KubeClient, opts: KubeDrainPortOptions = {}): DrainPort {
  const retries = opts.conflictRetries ?? 5;
  const getNode = async (name: string, signal?: AbortSignal): Promise<KubeNode | undefined> => {
    try {
      return await client.get<KubeNode>(NodeResource, name, { signal });
    } catch (e) {
      if (e instanceof NotFoundError) return undefined;
      throw e;
    }
  };
  return {
    getNode: (name, signal) => getNode(name, signal) as Promise<NodeWithUid | undefined>,
    async patchNode(name: string, patch: NodePatch, signal?: AbortSignal): Promise<void> {
      for (let attempt = 1; ; attempt++) {
        const node = await client.get<KubeNode>(NodeResource, name, { signal });
        // Identity before the write: the Node the caller judged, not whatever now has its name.
        // The resourceVersion of this read makes a re-creation after it a Conflict (read again,
        // and refused here); metadata.uid in the body makes the apiserver refuse it as well.
        if (patch.uid !== undefined && node.metadata?.uid !== patch.uid)
          throw new NodeReplacedError(name, patch.uid, node.metadata?.uid);
        const body = nodePatchBody(node as NodeSnapshot, patch);
        try {
          await client.patch(
            NodeResource,
            name,
            {
              type: 'merge',
              body: patch.uid !== undefined ? { metadata: { uid: patch.uid }, ...body } : body,
              resourceVersion: node.metadata?.resourceVersion,
            },
            { signal },
          );
          return;
        } catch (e) {
          if (!(e instanceof ConflictError) || attempt >= retries) throw e;
        }
      }
    },
    async listPodsOnNode(nodeName: string, signal?: AbortSignal): Promise<PodSnapshot[]> {
      const { items } = await listAll<KubePod>(client, PodResource, {
        fieldSelector: `spec.nodeName=${nodeName}`,
        signal,
      });
      return items as PodSnapshot[];
    },
    async evictPod(
      pod: PodRef,
      o: { gracePeriodSeconds?: number },
      signal?: AbortSignal,
    ): Promise<EvictionResult> {
      try {
        await client.evict(pod.namespace, pod.name, {
          signal,
          ...(o.gracePeriodSeconds !== undefined
            ? { deleteOptions: { gracePeriodSeconds: o.gracePeriodSeconds } }
            : {}),
        });
        return { kind: 'Evicted' };
      } catch (e) {
        return evictionResultFromError(e);
      }
    },
    async deletePod(
      pod: PodRef,
      o: { gracePeriodSeconds?: number },
      signal?: AbortSignal,
    ): Promise<DeleteResult> {
      try {
        await client.delete(PodResource, pod.name, {
          namespace: pod.namespace,
          signal,
          ...(o.gracePeriodSeconds !== undefined
            ? { gracePeriodSeconds: o.gracePeriodSeconds }
            : {}),
        });
        return { kind: 'Deleted' };
      } catch (e) {
        return deleteResultFromError(e);
      }
    },
  };
}
