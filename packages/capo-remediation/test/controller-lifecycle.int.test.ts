// The OpenStackRemediation controller's lifecycle on a real kube-apiserver: deletion mid-flow
// (the finalizer uncordons and removes the out-of-service taint) and controller restarts
// mid-flow (exactly one reboot per attempt at the fake Nova).
import { NodeResource, PodResource, type KubeNode, type KubeObject } from '@noderepair/core/kube';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { OpenStackRemediationResource } from '../src/controller/index.js';
import {
  buildWorld,
  installAllCRDs,
  phaseIs,
  readyStatus,
  startController,
  until,
} from './support/remediation-env.js';

const env = useControlPlane();
const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';

describe('OpenStackRemediation controller: deletion and restarts', () => {
  beforeAll(async () => {
    await installAllCRDs(env.kubeConfig);
  }, 120_000);

  it('deleted mid-flow: the finalizer uncordons the node and removes the out-of-service taint, then releases', async () => {
    const ns = await env.namespace('osr-del');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      steps: [{ type: 'HardReboot', timeoutSeconds: 120 }],
      drain: { enabled: true, timeoutSeconds: 4, outOfServiceTaint: true },
      minHealthySeconds: 2,
    });
    const ctl = startController(env.kubeConfig, ns);
    try {
      // A ReplicaSet pod on the node: once the kubelet is gone its eviction never completes,
      // so the drain acts anyway at its timeout; the out-of-service taint follows once Nova
      // reports the HARD reboot done (fenced, issue 21).
      await w.client.create(PodResource, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'web-1',
          namespace: ns,
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: 'web',
              uid: '00000000-0000-0000-0000-000000000042',
              controller: true,
            },
          ],
        },
        spec: {
          nodeName: w.nodeName,
          containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }],
        },
      } as KubeObject);
      w.kubelet.stopHeartbeats();
      await until('Ready=Unknown', async () => (await readyStatus(w)) === 'Unknown', 30_000);
      await w.createRemediation();
      await until('reboot sent and phase Waiting', () => phaseIs(w, 'Waiting'), 30_000);
      const tainted = await until(
        'out-of-service taint after the reboot is done',
        async () => {
          const n = await w.node();
          return n.spec?.taints?.some((t) => t.key === OUT_OF_SERVICE) ? n : undefined;
        },
        30_000,
      );
      expect(tainted.spec?.unschedulable).toBe(true);
      expect(tainted.spec?.taints?.map((t) => t.key)).toContain(OUT_OF_SERVICE);

      await w.client.delete(OpenStackRemediationResource, w.machineName, { namespace: ns });
      await until('the remediation is gone', async () => (await w.osr()) === undefined, 20_000);
      const released = await w.client.get<KubeNode>(NodeResource, w.nodeName);
      expect(released.spec?.unschedulable).not.toBe(true);
      expect(released.spec?.taints?.map((t) => t.key) ?? []).not.toContain(OUT_OF_SERVICE);
      expect(w.fake.rebootCount(w.serverId)).toBe(1);
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 120_000);

  it('restarted mid-flow (after the reboot call, and between the call and its recorded completion): exactly one reboot', async () => {
    const ns = await env.namespace('osr-restart');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      steps: [{ type: 'SoftReboot', timeoutSeconds: 120 }],
      drain: { enabled: true, timeoutSeconds: 5 },
      minHealthySeconds: 2,
    });
    w.kubelet.stopHeartbeats();
    let ctl = startController(env.kubeConfig, ns, 'a');
    try {
      await w.createRemediation();
      const waiting = await until('phase Waiting', () => phaseIs(w, 'Waiting'), 30_000);
      expect(w.fake.rebootCount(w.serverId, 'SOFT')).toBe(1);
      await ctl.stop();

      // Second controller: picks up the Waiting remediation and only waits.
      ctl = startController(env.kubeConfig, ns, 'b');
      await new Promise((r) => setTimeout(r, 2000));
      expect(w.fake.rebootCount(w.serverId)).toBe(1);
      await ctl.stop();

      // As if the controller had died after Nova accepted the reboot but before recording
      // it: the intent is in status without its completion.
      await w.client.patch(
        OpenStackRemediationResource,
        w.machineName,
        { type: 'merge', body: { status: { phase: 'Remediating' } } },
        { namespace: ns, subresource: 'status' },
      );
      ctl = startController(env.kubeConfig, ns, 'c');
      const replayed = await until(
        'the replay recorded its completion',
        () => phaseIs(w, 'Waiting'),
        20_000,
      );
      expect(ctl.metrics.actions.value({ type: 'SoftReboot', result: 'Succeeded' })).toBe(1);
      expect(w.fake.rebootCount(w.serverId)).toBe(1);
      expect(replayed.status?.history).toHaveLength(1);
      expect(replayed.status?.history?.[0]?.startTime).toBe(
        waiting.status?.history?.[0]?.startTime,
      );
      // Answered from Nova's os-instance-actions, not from a record of our own.
      expect(replayed.status?.history?.[0]?.message).toContain('not sent again');

      await w.kubelet.reboot(500);
      await until('phase Succeeded', () => phaseIs(w, 'Succeeded'), 30_000);
      expect(w.fake.rebootCount(w.serverId)).toBe(1);
      expect(w.fake.acceptedActions(w.serverId, 'reboot')).toHaveLength(1);
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 120_000);
});
