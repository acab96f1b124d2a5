// The OpenStackRemediation controller climbing its ladder on a real kube-apiserver: soft ->
// hard escalation, and giving up by handing the v1beta2 Machine to Cluster API with
// OwnerRemediated=False in both condition lists.
import { EventResource, type KubeEvent } from '@noderepair/core/kube';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildWorld,
  installAllCRDs,
  phaseIs,
  startController,
  until,
} from './support/remediation-env.js';

const env = useControlPlane();

describe('OpenStackRemediation controller: escalation and give-up', () => {
  beforeAll(async () => {
    await installAllCRDs(env.kubeConfig);
  }, 120_000);

  it('escalates from SoftReboot to HardReboot when the node does not come back', async () => {
    const ns = await env.namespace('osr-esc');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      steps: [
        { type: 'SoftReboot', timeoutSeconds: 30 },
        { type: 'HardReboot', timeoutSeconds: 60 },
      ],
      drain: { enabled: false },
      minHealthySeconds: 2,
    });
    w.kubelet.stopHeartbeats();
    const ctl = startController(env.kubeConfig, ns);
    try {
      await w.createRemediation();
      await until('SOFT reboot', async () => w.fake.rebootCount(w.serverId, 'SOFT') === 1);
      expect(w.fake.rebootCount(w.serverId, 'HARD')).toBe(0);
      const escalated = await until(
        'HARD reboot',
        async () => (w.fake.rebootCount(w.serverId, 'HARD') === 1 ? w.osr() : undefined),
        60_000,
      );
      expect(escalated?.status?.currentStep).toBe(1);
      expect(escalated?.status?.retryCount).toBe(0);
      expect(escalated?.status?.history?.[0]).toMatchObject({
        step: 0,
        type: 'SoftReboot',
        result: 'TimedOut',
      });
      await w.kubelet.reboot(500);
      const done = await until('phase Succeeded', () => phaseIs(w, 'Succeeded'), 30_000);
      expect(done.status?.history?.map((a) => [a.type, a.result])).toEqual([
        ['SoftReboot', 'TimedOut'],
        ['HardReboot', 'Succeeded'],
      ]);
      expect(w.fake.rebootCount(w.serverId, 'SOFT')).toBe(1);
      expect(w.fake.rebootCount(w.serverId, 'HARD')).toBe(1);
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 150_000);

  it('gives up when the ladder is exhausted: OwnerRemediated=False in both lists of the v1beta2 Machine, an event, phase Failed', async () => {
    const ns = await env.namespace('osr-giveup');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      steps: [{ type: 'SoftReboot', timeoutSeconds: 30 }],
      drain: { enabled: true, timeoutSeconds: 5 },
      minHealthySeconds: 2,
    });
    w.kubelet.stopHeartbeats();
    const ctl = startController(env.kubeConfig, ns);
    try {
      await w.createRemediation();
      const failed = await until('phase Failed', () => phaseIs(w, 'Failed'), 90_000);
      expect(failed.status?.history).toEqual([
        expect.objectContaining({ type: 'SoftReboot', result: 'TimedOut' }),
      ]);
      expect(failed.status?.conditions).toContainEqual(
        expect.objectContaining({
          type: 'Remediated',
          status: 'False',
          reason: 'WaitingForReplacement',
        }),
      );
      expect(w.fake.rebootCount(w.serverId)).toBe(1);

      const m = await w.machine();
      const want = { type: 'OwnerRemediated', status: 'False', reason: 'WaitingForRemediation' };
      expect(m.status?.conditions).toContainEqual(expect.objectContaining(want));
      expect(m.status?.deprecated?.v1beta1?.conditions).toContainEqual(
        expect.objectContaining({ ...want, severity: 'Warning' }),
      );
      // The node stays cordoned: Cluster API replaces the Machine.
      expect((await w.node()).spec?.unschedulable).toBe(true);

      const events = await until(
        'RemediationFailed events',
        async () => {
          const list = await w.client.list<KubeEvent>(EventResource, { namespace: ns });
          const hits = list.items.filter((e) => e.reason === 'RemediationFailed');
          return hits.length >= 2 ? hits : undefined;
        },
        10_000,
      );
      expect(events.map((e) => e.regarding?.kind).sort()).toEqual([
        'Machine',
        'OpenStackRemediation',
      ]);
      expect(ctl.metrics.outcomes.value({ result: 'Failed' })).toBe(1);

      // Terminal: nothing more is sent, even after a resync.
      await new Promise((r) => setTimeout(r, 2000));
      expect(w.fake.rebootCount(w.serverId)).toBe(1);
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 150_000);
});
