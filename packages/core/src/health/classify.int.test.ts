// Cause classification and the first repair decision on real Nodes: a fake kubelet (the only
// fake; it posts the real kubelet's strings) and the real node lifecycle controller of
// kube-controller-manager (grace period ~8 s in the shared envtest plane).
import { describe, expect, it } from 'vitest';
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { KubeletNotReadyMessages, startFakeKubelet, waitFor } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { classifyNode } from './cause.js';
import { decideRepair } from './decide.js';
import { resolveRepairPolicy } from './policy.js';
import { either } from 'fp-ts';
import type { HealthObservation } from './node.js';

const env = useControlPlane();

describe('classifyNode on real Nodes', () => {
  it('kubelet strings and the node lifecycle controller Unknown are classified, and the policy acts after its timeout', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const leases = kc.makeApiClient(CoordinationV1Api);
    const name = env.unique('classify');
    const kubelet = await startFakeKubelet(kc, { name, heartbeatSeconds: 1 });
    const observe = async (): Promise<HealthObservation> => {
      const node = await core.readNode({ name });
      const lease = await leases
        .readNamespacedLease({ name, namespace: 'kube-node-lease' })
        .catch(() => undefined);
      return {
        nodeName: name,
        node,
        ...(lease?.spec?.renewTime !== undefined ? { leaseRenewTime: lease.spec.renewTime } : {}),
      };
    };
    const opts = { staleHeartbeatTimeoutMs: 0 };
    const until = (kind: string, timeoutMs = 30_000) =>
      waitFor(
        `cause ${kind}`,
        async () =>
          classifyNode(await observe(), Date.now(), opts).kind === kind ? true : undefined,
        timeoutMs,
      );
    try {
      await until('Healthy');

      const table: Array<[string, string]> = [
        [KubeletNotReadyMessages.containerRuntimeDown, 'ContainerRuntimeDown'],
        [KubeletNotReadyMessages.runtimeNetworkNotReady, 'RuntimeNetworkNotReady'],
        [KubeletNotReadyMessages.plegUnhealthy, 'PLEGUnhealthy'],
        [KubeletNotReadyMessages.missingCapacity, 'CapacityMissing'],
        [KubeletNotReadyMessages.shuttingDown, 'ShuttingDown'],
      ];
      for (const [message, kind] of table) {
        await kubelet.setNotReady(message);
        await until(kind);
      }
      await kubelet.setReady();
      await until('Healthy');

      // The kubelet goes silent: the node lifecycle controller writes Ready=Unknown.
      kubelet.stopHeartbeats();
      await until('KubeletUnreachable', 60_000);
      const obs = await observe();
      expect(classifyNode(obs, Date.now(), opts).message).toBe(
        'Kubelet stopped posting node status.',
      );

      const policy = resolveRepairPolicy({
        unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '2s' }],
      });
      if (either.isLeft(policy)) throw new Error(policy.left);
      const first = decideRepair(obs, undefined, policy.right, Date.now());
      const later = decideRepair(obs, first.nextState, policy.right, Date.now() + 5_000);
      expect(later.actions.map((a) => a.type)).toEqual(['Cordon', 'Drain', 'Remediate']);
      expect(later.actions[1]).toMatchObject({ type: 'Drain', unreachable: true });
    } finally {
      await kubelet.stop();
      await core.deleteNode({ name }).catch(() => undefined);
    }
  });
});
