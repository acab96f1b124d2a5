// What the default policy leaves alone (issue 42), on a real kube-apiserver with the real node
// lifecycle controller (envtest): three nodes stop heartbeating at once, under a policy that
// says nothing about coordination or the control plane. The plain worker is repaired; the
// control-plane node and the worker a person cordoned are held past their timeouts (state,
// NodeRepairHeld condition), never cordoned, drained or rebooted by us. Then the person asks
// for the cordoned worker's repair with the repair-now annotation: it is repaired and stays
// cordoned (the cordon is theirs). The only doubles: the fake kubelets and the reboot provider.
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startFakeKubelet, waitFor, type FakeKubelet } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { createKubeClient } from '../kube/client-node/index.js';
import { LabelControlPlane } from '../health/control-plane.js';
import { resolveRepairPolicy } from '../health/policy.js';
import { KubeletRebootProviderFake } from '../../test/kubelet-reboot-fake.js';
import { repairStateOf, startAutoRepair } from '../../test/autorepair-harness.js';
import { NodeRepairHeld } from './held-condition.js';

const env = useControlPlane();
const SCOPE = 'test.noderepair.io/default-holds-scope';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('the default policy', () => {
  it('leaves a control-plane node and a cordoned worker alone, repairs the plain worker, and repairs the cordoned one on request', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('dh');
    const names = {
      cp: env.unique('dh-cp'),
      cordoned: env.unique('dh-cordoned'),
      worker: env.unique('dh-worker'),
    };
    const kubelets = new Map<string, FakeKubelet>();
    for (const [role, name] of Object.entries(names))
      kubelets.set(
        name,
        await startFakeKubelet(kc, {
          name,
          labels: { [SCOPE]: scope, ...(role === 'cp' ? { [LabelControlPlane]: '' } : {}) },
          heartbeatSeconds: 1,
          providerID: `test:///${name}`,
        }),
      );
    const provider = new KubeletRebootProviderFake((n) => kubelets.get(n));
    // Short timeouts and a generous storm guard; nothing about coordination or controlPlane:
    // those are the defaults under test.
    const policy = resolveRepairPolicy({
      unhealthyConditions: [
        { type: 'Ready', status: 'Unknown', timeout: '3s' },
        { type: 'Ready', status: 'False', timeout: '3s' },
      ],
      minHealthyPeriod: '3s',
      retryBackoff: '2s',
      ladder: [{ action: 'SoftReboot', timeout: '40s', attempts: 1 }],
      stormGuard: { maxUnhealthy: '100%', maxInFlight: 10, recheckInterval: '1s' },
      drain: { timeout: '60s', outOfServiceAfter: '2s' },
    });
    if (either.isLeft(policy)) throw new Error(policy.left);
    // `kubectl cordon`, by a person, while the node is healthy and noderepair watches it.
    await core.patchNode(
      { name: names.cordoned, body: { spec: { unschedulable: true } } },
      mergePatch,
    );

    const ar = startAutoRepair({
      name: 'default-holds-int',
      client,
      policy: policy.right,
      provider,
      scopeLabel: SCOPE,
      scope,
    });
    try {
      for (const k of kubelets.values()) k.stopHeartbeats(); // -> Ready=Unknown after ~8 s
      // The plain worker's repair starts: the timeouts have run out for all three.
      await waitFor(
        'the plain worker is repaired',
        async () => (await repairStateOf(core, names.worker))?.remediation,
        60_000,
      );
      const held = async (name: string, actor: string) =>
        waitFor(
          `${name} held by ${actor}`,
          async () => {
            const node = await core.readNode({ name });
            const c = node.status?.conditions?.find((x) => x.type === NodeRepairHeld);
            return c?.status === 'True' && c.message?.startsWith(`${actor}: `) === true
              ? { node, condition: c }
              : undefined;
          },
          30_000,
        );
      const cp = await held(names.cp, 'ControlPlane');
      expect(cp.condition.message).toContain(`label ${LabelControlPlane}`);
      const cordoned = await held(names.cordoned, 'ManualCordon');
      expect(cordoned.condition.message).toContain('cordoned by someone else');
      // Several rechecks later, still nothing done to either.
      await new Promise((r) => setTimeout(r, 3_000));
      for (const name of [names.cp, names.cordoned]) {
        const s = await repairStateOf(core, name);
        expect(s?.phase).toBe('Unhealthy');
        expect(s?.remediation).toBeUndefined();
        expect(provider.requests.filter((r) => r.node === name)).toEqual([]);
      }
      const cpNode = await core.readNode({ name: names.cp });
      expect(cpNode.spec?.unschedulable).not.toBe(true);
      expect((cpNode.spec?.taints ?? []).map((t) => t.key)).not.toContain(
        'node.kubernetes.io/out-of-service',
      );

      // The person asks for the cordoned worker's repair: the cordon no longer holds it.
      await core.patchNode(
        {
          name: names.cordoned,
          body: { metadata: { annotations: { 'noderepair.io/repair-now': 'fix-it-please' } } },
        },
        mergePatch,
      );
      const started = await waitFor(
        'the cordoned worker is repaired on request',
        async () => (await repairStateOf(core, names.cordoned))?.remediation,
        30_000,
      );
      // Its cordon is not ours: the repair will not lift it.
      expect(started.cordoned).toBe(false);
      await waitFor(
        'the reboot is asked for',
        async () => provider.requests.find((r) => r.node === names.cordoned),
        30_000,
      );
      expect((await core.readNode({ name: names.cordoned })).spec?.unschedulable).toBe(true);
      // And still nothing for the control-plane node.
      expect(provider.requests.filter((r) => r.node === names.cp)).toEqual([]);
    } finally {
      await ar.stop();
      await provider.settle();
      for (const k of kubelets.values()) await k.stop();
      for (const name of Object.values(names))
        await core.deleteNode({ name }).catch(() => undefined);
    }
  });
});
