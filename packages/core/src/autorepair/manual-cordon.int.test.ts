// Someone else's cordon survives a repair (issue 27), on a real kube-apiserver with the real
// node lifecycle controller (envtest). A person cordons a node; the node then becomes
// unreachable, noderepair repairs it (drain, reboot, Ready for the minimum period) and
// records success, and the node is still cordoned: noderepair undoes only what it did.
// The policy lists the actors without ManualCordon, which holds such a node by default.
// The only doubles: the fake kubelet (envtest) and the reboot provider below.
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startFakeKubelet, waitFor } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { createKubeClient } from '../kube/client-node/index.js';
import { EventResource } from '../kube/resource.js';
import type { KubeEvent } from '../kube/types.js';
import { resolveRepairPolicy } from '../health/policy.js';
import { KubeletRebootProviderFake } from '../../test/kubelet-reboot-fake.js';
import { repairStateOf, startAutoRepair } from '../../test/autorepair-harness.js';

const env = useControlPlane();
const SCOPE = 'test.noderepair.io/manual-cordon-scope';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const stateOf = repairStateOf;

describe('a cordon someone else made', () => {
  it('a node a person cordoned before it failed is repaired and stays cordoned', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('mc');
    const name = env.unique('mc-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const provider = new KubeletRebootProviderFake(kubelet);
    const policy = resolveRepairPolicy({
      unhealthyConditions: [
        { type: 'Ready', status: 'Unknown', timeout: '3s' },
        { type: 'Ready', status: 'False', timeout: '3s' },
      ],
      minHealthyPeriod: '3s',
      retryBackoff: '2s',
      ladder: [{ action: 'SoftReboot', timeout: '40s', attempts: 1 }],
      stormGuard: { maxUnhealthy: '100%', maxInFlight: 1, recheckInterval: '1s' },
      drain: { timeout: '60s', outOfServiceAfter: '2s' },
      // Since issue 42 a cordon someone else made holds the node by default (ManualCordon is
      // in the default actors; default-holds.int.test.ts shows it). This test is about what a
      // repair does to such a cordon, so it opts out: the default actors without ManualCordon.
      coordination: {
        actors: ['Kured', 'NodeMaintenance', 'Medik8sLease', 'ClusterAPIRollout', 'Karpenter'],
      },
    });
    if (either.isLeft(policy)) throw new Error(policy.left);
    // `kubectl cordon`, by a person, while the node is healthy and noderepair watches it.
    await core.patchNode({ name, body: { spec: { unschedulable: true } } }, mergePatch);

    const ar = startAutoRepair({
      name: 'manual-cordon-int',
      client,
      policy: policy.right,
      provider,
      scopeLabel: SCOPE,
      scope,
    });
    try {
      kubelet.stopHeartbeats(); // -> node lifecycle controller: Ready=Unknown after ~8 s
      const started = await waitFor(
        'the repair starts',
        async () => {
          const s = await stateOf(core, name);
          return s?.remediation !== undefined ? s.remediation : undefined;
        },
        60_000,
      );
      // The repair knows the cordon is not its own.
      expect(started.cordoned).toBe(false);

      const done = await waitFor(
        'repair success',
        async () => {
          const s = await stateOf(core, name);
          return s?.phase === 'Healthy' && s.lastRemediation?.result === 'Succeeded'
            ? s
            : undefined;
        },
        90_000,
      );
      expect(done.lastRemediation?.step).toBe(0);
      expect(provider.requests.map((r) => r.action)).toEqual(['SoftReboot']);
      const after = await core.readNode({ name });
      expect(after.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      // Success is persisted after the end-of-repair actions ran: nothing later can uncordon.
      expect(after.spec?.unschedulable).toBe(true);

      const events = await waitFor(
        'the success event',
        async () => {
          const reasons = (
            await client.list<KubeEvent>(EventResource, { namespace: 'default' })
          ).items
            .filter((e) => e.regarding?.name === name && e.regarding.kind === 'Node')
            .map((e) => e.reason);
          return reasons.includes('RepairSucceeded') ? reasons : undefined;
        },
        10_000,
      );
      expect(events).toContain('RepairStarted');
      expect(events).not.toContain('Cordoned');
      expect(events).not.toContain('Uncordoned');
    } finally {
      await ar.stop();
      await provider.settle();
      await kubelet.stop();
      await core.deleteNode({ name }).catch(() => undefined);
    }
  });
});
