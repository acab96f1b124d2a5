// Escalating only on fresh evidence, on a real kube-apiserver with the real node lifecycle
// controller (envtest): the fake kubelet stops (Ready goes Unknown), the repair's HardReboot is
// accepted, and the node stays silent. While the provider cannot say whether the machine runs
// (Unavailable), the attempt's timeout is no evidence: no second action through several
// timeouts, nothing used up. Once the provider answers On (the machine runs, its node does not
// report), the attempt ends and the next one is sent. The actions are counted from the
// provider's own record.
import { describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { startFakeKubelet, waitFor } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { either } from 'fp-ts';
import { createKubeClient } from '../kube/client-node/index.js';
import { EventResource } from '../kube/resource.js';
import type { KubeEvent } from '../kube/types.js';
import { resolveRepairPolicy } from '../health/policy.js';
import { PowerStateProviderFake } from '../../test/power-state-provider-fake.js';
import { repairStateOf, startAutoRepair } from '../../test/autorepair-harness.js';

const env = useControlPlane();
const SCOPE = 'test.noderepair.io/fresh-evidence-scope';
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('a node silent since its HardReboot (real node lifecycle controller)', () => {
  it('provider Unavailable: no second action through several timeouts; escalates once the provider answers On', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('fresh');
    const name = env.unique('fresh-node');
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const provider = new PowerStateProviderFake({ kind: 'On' }); // On: the first action may start (power-check.ts)
    const policy = resolveRepairPolicy({
      unhealthyConditions: [
        { type: 'Ready', status: 'Unknown', timeout: '2s' },
        { type: 'Ready', status: 'False', timeout: '2s' },
      ],
      nodeStartupTimeout: '30s',
      minHealthyPeriod: '3s',
      stormGuard: { maxUnhealthy: '100%', maxInFlight: 1, recheckInterval: '1s' },
      drain: { timeout: '10s', outOfServiceAfter: '2s' },
      ladder: [{ action: 'HardReboot', timeout: '2s', attempts: 2 }],
    });
    if (either.isLeft(policy)) throw new Error(policy.left);
    const ctl = startAutoRepair({
      name: 'fresh-evidence-int',
      client,
      policy: policy.right,
      provider,
      scopeLabel: SCOPE,
      scope,
    });
    try {
      kubelet.stopHeartbeats(); // Ready=Unknown after the lifecycle controller's grace period
      await waitFor(
        'the first HardReboot',
        async () => (provider.requests.length > 0 ? true : undefined),
        90_000,
      );
      // The cloud goes down right after it accepted the reboot.
      provider.powerAnswer = { kind: 'Unavailable', reason: 'the fake cloud is down' };
      expect(provider.requests[0]).toMatchObject({ action: 'HardReboot', replay: false });
      const first = provider.requests[0]!.actionId;
      expect(first).toMatch(/\/HardReboot-1$/);
      const asksBefore = provider.powerQueries.length;

      // Five 2 s timeouts and more: held, the provider asked (with its backoff), no second action.
      await sleep(12_000);
      expect(provider.distinctActions()).toEqual([first]);
      expect(provider.powerQueries.length).toBeGreaterThan(asksBefore);
      const held = await repairStateOf(core, name);
      expect(held?.phase).toBe('Verifying');
      expect(held?.remediation).toMatchObject({ step: 0, attempt: 1 });
      expect(held?.remediation?.intent?.actionId).toBe(first);
      expect(held?.remediation?.intent?.silentAsks).toBeGreaterThanOrEqual(1);
      const events = (
        await client.list<KubeEvent>(EventResource, { namespace: 'default' })
      ).items.filter((e) => e.regarding?.name === name && e.regarding.kind === 'Node');
      expect(events.find((e) => e.reason === 'AwaitingEvidence')?.note).toMatch(
        /not Ready 2s after HardReboot attempt 1, the node has not reported since .* and the provider cannot say \(the fake cloud is down\): waiting/,
      );
      expect(events.map((e) => e.reason)).not.toContain('RepairFailed');

      // The provider answers again: the machine runs and its node is silent, the attempt ends.
      provider.powerAnswer = { kind: 'On' };
      await waitFor(
        'the second HardReboot',
        async () => (provider.distinctActions().length > 1 ? true : undefined),
        60_000,
      );
      const second = provider.requests.find((r) => r.actionId !== first);
      expect(second).toMatchObject({ action: 'HardReboot', replay: false });
      expect(second?.actionId).toMatch(/\/HardReboot-2$/);
    } finally {
      await ctl.stop();
      await kubelet.stop();
    }
  });
});
