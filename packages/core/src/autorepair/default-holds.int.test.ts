// What the default policy leaves alone (issue 42), on a real kube-apiserver with the real node
// lifecycle controller (envtest). In each test two nodes stop heartbeating at once under a
// policy that says nothing about coordination or the control plane: a plain worker, which is
// repaired (the controller is running and the timeouts have passed), and the node under test,
// which is held past its timeout (state, NodeRepairHeld condition) and never cordoned,
// drained or rebooted by us: a control-plane node, or a worker a person cordoned. Asked with
// the repair-now annotation, the cordoned worker is repaired and stays cordoned.
// The only doubles: the fake kubelets and the reboot provider.
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startFakeKubelet, waitFor, type FakeKubelet } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { createKubeClient } from '../kube/client-node/index.js';
import { LabelNodeRoleControlPlane } from '../health/control-plane.js';
import { resolveRepairPolicy } from '../health/policy.js';
import { KubeletRebootProviderFake } from '../../test/kubelet-reboot-fake.js';
import { repairStateOf, startAutoRepair } from '../../test/autorepair-harness.js';
import { NodeRepairHeld } from './held-condition.js';

const env = useControlPlane();
const SCOPE = 'test.noderepair.io/default-holds-scope';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * A plain worker and the node under test (`labels`, cordoned by a person first when
 * `cordoned`), both with heartbeats stopped under the controller with a default-ish policy.
 */
async function scenario(name: string, o: { labels?: Record<string, string>; cordoned?: boolean }) {
  const kc = env.kubeConfig;
  const core = kc.makeApiClient(CoreV1Api);
  const client = createKubeClient(kc);
  const scope = env.unique('dh');
  const names = { subject: env.unique(`dh-${name}`), worker: env.unique('dh-worker') };
  const kubelets = new Map<string, FakeKubelet>();
  for (const n of Object.values(names))
    kubelets.set(
      n,
      await startFakeKubelet(kc, {
        name: n,
        labels: { [SCOPE]: scope, ...(n === names.subject ? (o.labels ?? {}) : {}) },
        heartbeatSeconds: 1,
        providerID: `test:///${n}`,
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
  if (o.cordoned === true)
    await core.patchNode(
      { name: names.subject, body: { spec: { unschedulable: true } } },
      mergePatch,
    );
  const ar = startAutoRepair({
    name: `default-holds-${name}`,
    client,
    policy: policy.right,
    provider,
    scopeLabel: SCOPE,
    scope,
  });
  for (const k of kubelets.values()) k.stopHeartbeats(); // -> Ready=Unknown after ~8 s
  return {
    core,
    names,
    provider,
    /** The plain worker's repair starts: the controller runs and the timeouts are past. */
    workerRepaired: () =>
      waitFor(
        'the plain worker is repaired',
        async () => (await repairStateOf(core, names.worker))?.remediation,
        60_000,
      ),
    /** The subject carries NodeRepairHeld=True naming `actor`. */
    heldBy: (actor: string) =>
      waitFor(
        `${names.subject} held by ${actor}`,
        async () => {
          const node = await core.readNode({ name: names.subject });
          const c = node.status?.conditions?.find((x) => x.type === NodeRepairHeld);
          return c?.status === 'True' && c.message?.startsWith(`${actor}: `) === true
            ? c
            : undefined;
        },
        30_000,
      ),
    /** Several rechecks later: still Unhealthy, no repair, no provider call. */
    leftAlone: async () => {
      await new Promise((r) => setTimeout(r, 3_000));
      const s = await repairStateOf(core, names.subject);
      expect(s?.phase).toBe('Unhealthy');
      expect(s?.remediation).toBeUndefined();
      expect(provider.requests.filter((r) => r.node === names.subject)).toEqual([]);
    },
    stop: async () => {
      await ar.stop();
      await provider.settle();
      for (const k of kubelets.values()) await k.stop();
      for (const n of Object.values(names))
        await core.deleteNode({ name: n }).catch(() => undefined);
    },
  };
}

describe('the default policy', () => {
  it('leaves a NotReady control-plane node alone past its timeout: never cordoned or acted on', async () => {
    const s = await scenario('cp', { labels: { [LabelNodeRoleControlPlane]: '' } });
    try {
      await s.workerRepaired();
      const held = await s.heldBy('ControlPlane');
      expect(held.message).toContain(`label ${LabelNodeRoleControlPlane}`);
      expect(held.message).toContain('controlPlane.repair is false');
      await s.leftAlone();
      const node = await s.core.readNode({ name: s.names.subject });
      expect(node.spec?.unschedulable).not.toBe(true);
      expect((node.spec?.taints ?? []).map((t) => t.key)).not.toContain(
        'node.kubernetes.io/out-of-service',
      );
    } finally {
      await s.stop();
    }
  });

  it('leaves a NotReady worker a person cordoned alone, and repairs it when asked with repair-now', async () => {
    const s = await scenario('cordoned', { cordoned: true });
    try {
      await s.workerRepaired();
      const held = await s.heldBy('ManualCordon');
      expect(held.message).toContain('cordoned by someone else');
      await s.leftAlone();

      // The person asks for the repair: the cordon no longer holds it.
      await s.core.patchNode(
        {
          name: s.names.subject,
          body: { metadata: { annotations: { 'noderepair.io/repair-now': 'fix-it-please' } } },
        },
        mergePatch,
      );
      const started = await waitFor(
        'the cordoned worker is repaired on request',
        async () => (await repairStateOf(s.core, s.names.subject))?.remediation,
        30_000,
      );
      // Its cordon is not ours: the repair will not lift it.
      expect(started.cordoned).toBe(false);
      await waitFor(
        'the reboot is asked for',
        async () => s.provider.requests.find((r) => r.node === s.names.subject),
        30_000,
      );
      expect((await s.core.readNode({ name: s.names.subject })).spec?.unschedulable).toBe(true);
    } finally {
      await s.stop();
    }
  });
});
