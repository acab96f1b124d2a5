// The drain executor against a real kube-apiserver (envtest): real Eviction API answers,
// including the 429 a PodDisruptionBudget gives. The DrainPort here is a small adapter over
// @kubernetes/client-node written for this test (the controller's own wiring goes through
// the KubeClient); nothing is faked on the server side.
import { describe, expect, it } from 'vitest';
import {
  ApiException,
  CoreV1Api,
  PatchStrategy,
  PolicyV1Api,
  setHeaderOptions,
  type KubeConfig,
  type V1Pod,
} from '@kubernetes/client-node';
import { useControlPlane } from '@noderepair/envtest/vitest';
import type { NodeSnapshot } from '../health/node.js';
import { addOutOfServiceTaint, drainNode, uncordonNode } from './executor.js';
import type { PodRef, PodSnapshot } from './pod.js';
import type { DeleteResult, DrainPort, EvictionResult, NodePatch } from './port.js';

const env = useControlPlane();
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const status = (e: unknown): number | undefined => (e instanceof ApiException ? e.code : undefined);

class ClientNodeDrainPortForTest implements DrainPort {
  private core: CoreV1Api;
  constructor(kc: KubeConfig) {
    this.core = kc.makeApiClient(CoreV1Api);
  }
  async getNode(name: string): Promise<NodeSnapshot | undefined> {
    try {
      return (await this.core.readNode({ name })) as NodeSnapshot;
    } catch (e) {
      if (status(e) === 404) return undefined;
      throw e;
    }
  }
  async patchNode(name: string, patch: NodePatch): Promise<void> {
    const node = await this.core.readNode({ name });
    const spec: Record<string, unknown> = {};
    if (patch.unschedulable !== undefined) spec['unschedulable'] = patch.unschedulable;
    if (patch.addTaints !== undefined || patch.removeTaintKeys !== undefined) {
      spec['taints'] = [
        ...(node.spec?.taints ?? []).filter((t) => !(patch.removeTaintKeys ?? []).includes(t.key)),
        ...(patch.addTaints ?? []),
      ];
    }
    await this.core.patchNode({ name, body: { spec } }, mergePatch);
  }
  async listPodsOnNode(nodeName: string): Promise<PodSnapshot[]> {
    return (await this.core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${nodeName}` }))
      .items as PodSnapshot[];
  }
  async evictPod(pod: PodRef, opts: { gracePeriodSeconds?: number }): Promise<EvictionResult> {
    try {
      await this.core.createNamespacedPodEviction({
        name: pod.name,
        namespace: pod.namespace,
        body: {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name: pod.name, namespace: pod.namespace },
          ...(opts.gracePeriodSeconds !== undefined
            ? { deleteOptions: { gracePeriodSeconds: opts.gracePeriodSeconds } }
            : {}),
        },
      });
      return { kind: 'Evicted' };
    } catch (e) {
      const code = status(e);
      if (code === 429)
        return { kind: 'TooManyRequests', message: String((e as ApiException<unknown>).body) };
      if (code === 404) return { kind: 'NotFound' };
      return {
        kind: 'Error',
        ...(code !== undefined ? { status: code } : {}),
        message: (e as Error).message,
      };
    }
  }
  async deletePod(pod: PodRef, opts: { gracePeriodSeconds?: number }): Promise<DeleteResult> {
    try {
      await this.core.deleteNamespacedPod({
        name: pod.name,
        namespace: pod.namespace,
        ...(opts.gracePeriodSeconds !== undefined
          ? { gracePeriodSeconds: opts.gracePeriodSeconds }
          : {}),
      });
      return { kind: 'Deleted' };
    } catch (e) {
      if (status(e) === 404) return { kind: 'NotFound' };
      return { kind: 'Error', message: (e as Error).message };
    }
  }
}

async function runningPod(
  core: CoreV1Api,
  ns: string,
  name: string,
  node: string,
  owner: { kind: string; name: string },
): Promise<void> {
  const pod: V1Pod = {
    metadata: {
      name,
      namespace: ns,
      labels: { app: 'db' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: owner.kind,
          name: owner.name,
          uid: '00000000-0000-0000-0000-000000000001',
          controller: true,
        },
      ],
    },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
  };
  await core.createNamespacedPod({ namespace: ns, body: pod });
  // Pending pods skip PodDisruptionBudgets in the Eviction API; report Running as a kubelet would.
  await core.patchNamespacedPodStatus(
    {
      name,
      namespace: ns,
      body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
    },
    mergePatch,
  );
}

describe('drainNode on a real kube-apiserver', () => {
  it('a PodDisruptionBudget blocks evictions (429) until it is removed; DaemonSet pods stay; no out-of-service taint from the drain, only from the fence helper; uncordon', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const policy = kc.makeApiClient(PolicyV1Api);
    const ns = await env.namespace('drain');
    const node = env.unique('drain-node');
    await core.createNode({ body: { metadata: { name: node } } });
    try {
      await runningPod(core, ns, 'db-0', node, { kind: 'StatefulSet', name: 'db' });
      await runningPod(core, ns, 'db-1', node, { kind: 'StatefulSet', name: 'db' });
      await runningPod(core, ns, 'agent', node, { kind: 'DaemonSet', name: 'agent' });
      await policy.createNamespacedPodDisruptionBudget({
        namespace: ns,
        body: {
          metadata: { name: 'db' },
          spec: { minAvailable: 2, selector: { matchLabels: { app: 'db' } } },
        },
      });
      // The budget goes away after 3 s (an operator relaxing it, a rollout finishing).
      const lift = new Promise<void>((resolve, reject) => {
        setTimeout(() => {
          policy
            .deleteNamespacedPodDisruptionBudget({ name: 'db', namespace: ns })
            .then(() => resolve(), reject);
        }, 3000);
      });

      const port = new ClientNodeDrainPortForTest(kc);
      const r = await drainNode(port, {
        node,
        timeoutMs: 60_000,
        unreachable: true,
        outOfServiceAfterMs: 1000,
        gracePeriodSeconds: 0,
        initialBackoffMs: 250,
        maxBackoffMs: 1000,
        pollIntervalMs: 250,
      });
      await lift;
      expect(r.outcome).toBe('Drained');
      expect(r.pdbRefusals).toBeGreaterThan(0);
      expect(r.evicted).toEqual([`${ns}/db-0`, `${ns}/db-1`]);
      expect(r.outOfServiceTainted).toBe(false);
      const drained = await core.readNode({ name: node });
      expect(drained.spec?.unschedulable).toBe(true);
      // (The node lifecycle controller may have added its own not-ready taints.)
      expect((drained.spec?.taints ?? []).map((t) => t.key)).not.toContain(
        'node.kubernetes.io/out-of-service',
      );
      // The taint is the fence step's, after judgeFence (autorepair/fence-step.ts).
      expect(await addOutOfServiceTaint(port, node)).toBe('Tainted');
      expect(await addOutOfServiceTaint(port, node)).toBe('AlreadyTainted');
      const after = await core.readNode({ name: node });
      expect(after.spec?.taints?.map((t) => `${t.key}=${t.value}:${t.effect}`)).toContain(
        'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute',
      );
      const left = (await core.listNamespacedPod({ namespace: ns })).items.map(
        (p) => p.metadata?.name,
      );
      expect(left).toEqual(['agent']);

      expect(await uncordonNode(port, node, { removeOutOfServiceTaint: true })).toBe('Uncordoned');
      const done = await core.readNode({ name: node });
      expect(done.spec?.unschedulable ?? false).toBe(false);
      expect(
        (done.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/out-of-service'),
      ).toBe(false);
    } finally {
      await core.deleteNode({ name: node }).catch(() => undefined);
    }
  });
});
