// core/drain's DrainPort bound to a KubeClient: the executor stays free of the kube adapters
// and the controller wires it here (core/drain/port.ts).
import {
  NodeResource,
  NotFoundError,
  PodResource,
  TooManyRequestsError,
  KubeApiError,
  type DeleteResult,
  type DrainPort,
  type EvictionResult,
  type KubeClient,
  type KubeNode,
  type KubePod,
  type NodePatch,
  type NodeSnapshot,
  type PodRef,
  type PodSnapshot,
} from '@noderepair/core';

function statusOf(e: unknown): number | undefined {
  return e instanceof KubeApiError ? e.code : undefined;
}

export class KubeDrainPort implements DrainPort {
  constructor(private readonly client: KubeClient) {}

  async getNode(name: string): Promise<NodeSnapshot | undefined> {
    try {
      return (await this.client.get<KubeNode>(NodeResource, name)) as NodeSnapshot;
    } catch (e) {
      if (e instanceof NotFoundError) return undefined;
      throw e;
    }
  }

  async patchNode(name: string, patch: NodePatch): Promise<void> {
    const spec: Record<string, unknown> = {};
    if (patch.unschedulable !== undefined) spec['unschedulable'] = patch.unschedulable;
    let resourceVersion: string | undefined;
    if (patch.addTaints !== undefined || patch.removeTaintKeys !== undefined) {
      // Taints are a list: rewrite it under an optimistic lock so a concurrent change by the
      // node lifecycle controller is not lost (a conflict is retried by the reconcile).
      const node = await this.client.get<KubeNode>(NodeResource, name);
      resourceVersion = node.metadata?.resourceVersion;
      const remove = new Set(patch.removeTaintKeys ?? []);
      const add = patch.addTaints ?? [];
      spec['taints'] = [
        ...(node.spec?.taints ?? []).filter(
          (t) => !remove.has(t.key) && !add.some((a) => a.key === t.key && a.effect === t.effect),
        ),
        ...add,
      ];
    }
    await this.client.patch(NodeResource, name, { type: 'merge', body: { spec }, resourceVersion });
  }

  async listPodsOnNode(nodeName: string): Promise<PodSnapshot[]> {
    const pods: PodSnapshot[] = [];
    let cont: string | undefined;
    do {
      const page = await this.client.list<KubePod>(PodResource, {
        fieldSelector: `spec.nodeName=${nodeName}`,
        limit: 500,
        continue: cont,
      });
      pods.push(...(page.items as PodSnapshot[]));
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return pods;
  }

  async evictPod(pod: PodRef, opts: { gracePeriodSeconds?: number }): Promise<EvictionResult> {
    try {
      await this.client.evict(
        pod.namespace,
        pod.name,
        opts.gracePeriodSeconds !== undefined
          ? { deleteOptions: { gracePeriodSeconds: opts.gracePeriodSeconds } }
          : {},
      );
      return { kind: 'Evicted' };
    } catch (e) {
      if (e instanceof TooManyRequestsError) return { kind: 'TooManyRequests', message: e.message };
      if (e instanceof NotFoundError) return { kind: 'NotFound' };
      const status = statusOf(e);
      return {
        kind: 'Error',
        ...(status !== undefined ? { status } : {}),
        message: (e as Error).message,
      };
    }
  }

  async deletePod(pod: PodRef, opts: { gracePeriodSeconds?: number }): Promise<DeleteResult> {
    try {
      await this.client.delete(PodResource, pod.name, { namespace: pod.namespace, ...opts });
      return { kind: 'Deleted' };
    } catch (e) {
      if (e instanceof NotFoundError) return { kind: 'NotFound' };
      const status = statusOf(e);
      return {
        kind: 'Error',
        ...(status !== undefined ? { status } : {}),
        message: (e as Error).message,
      };
    }
  }
}
