// A server someone stopped stays off (issue 42 item 1), on a real kube-apiserver (envtest) with
// the FAKE Keystone + Nova: an operator's `openstack server stop` (SHUTOFF, a stop recorded
// with their user id) leaves the Node NotReady, the MachineHealthCheck creates a remediation,
// and before this change the controller cordoned, drained and HARD-rebooted the server, i.e.
// powered it back on. Now it asks Nova first: ServerStopped=True, one Warning, nothing
// cordoned or sent; once the operator starts the server and the node is still broken, the
// remediation goes on.
import { CoreV1Api, PatchStrategy, PolicyV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { useControlPlane } from '@noderepair/envtest/vitest';
import type { KubeEvent } from '@noderepair/core/kube';
import { EventResource } from '@noderepair/core/kube';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildWorld,
  installAllCRDs,
  readyStatus,
  startController,
  until,
  type Osr,
} from './support/remediation-env.js';

const env = useControlPlane();
const cond = (o: Osr | undefined, type: string) =>
  o?.status?.conditions?.find((c) => c.type === type);

describe('OpenStackRemediation controller: a server someone stopped', () => {
  beforeAll(async () => {
    await installAllCRDs(env.kubeConfig);
  }, 120_000);

  it('is not cordoned, drained or rebooted while off; the remediation goes on once it is started again', async () => {
    const ns = await env.namespace('osr-stopped');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      steps: [{ type: 'HardReboot', timeoutSeconds: 90, retries: 0 }],
      drain: { enabled: true, timeoutSeconds: 4 },
      minHealthySeconds: 2,
    });
    let ctl = startController(env.kubeConfig, ns);
    try {
      // The operator stops the server; its kubelet goes silent with it.
      w.fake.userStop(w.serverId);
      w.kubelet.stopHeartbeats();
      await until('Ready=Unknown', async () => (await readyStatus(w)) === 'Unknown', 30_000);
      await w.createRemediation();
      const held = await until(
        'ServerStopped=True',
        async () => {
          const o = await w.osr();
          return cond(o, 'ServerStopped')?.status === 'True' ? o : undefined;
        },
        30_000,
      );
      expect(cond(held, 'ServerStopped')).toMatchObject({
        reason: 'StoppedByRequest',
        message: expect.stringContaining('operator-user'),
      });
      // Several reconciles' worth of time: still nothing done to the server or the Node.
      await new Promise((r) => setTimeout(r, 3_000));
      const stillHeld = await w.osr();
      expect(stillHeld?.status?.history ?? []).toEqual([]);
      expect(w.fake.rebootCount(w.serverId)).toBe(0);
      expect(w.fake.server(w.serverId)?.status).toBe('SHUTOFF');
      expect((await w.node()).spec?.unschedulable ?? false).toBe(false);
      const events = (await w.client.list<KubeEvent>(EventResource, { namespace: ns })).items;
      expect(events.filter((e) => e.reason === 'ServerStoppedByRequest')).toHaveLength(1);

      // The operator starts it again; the node stays broken: the remediation goes on. A
      // restarted controller reconciles it at once (the running one would recheck within 5 min).
      w.fake.userStart(w.serverId);
      await ctl.stop();
      ctl = startController(env.kubeConfig, ns, 'second');
      await until(
        'the HARD reboot sent',
        async () => (w.fake.rebootCount(w.serverId, 'HARD') === 1 ? true : undefined),
        40_000,
      );
      expect(cond(await w.osr(), 'ServerStopped')).toMatchObject({
        status: 'False',
        reason: 'NotStoppedByRequest',
      });
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 150_000);
  it('stopped by someone DURING the drain: the HardReboot that follows the drain is not sent, ServerStopped=True, never powered on', async () => {
    const ns = await env.namespace('osr-stop-draining');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      steps: [{ type: 'HardReboot', timeoutSeconds: 60, retries: 0 }],
      drain: { enabled: true, timeoutSeconds: 12, outOfServiceTaint: false },
      minHealthySeconds: 2,
    });
    // A Running pod a PodDisruptionBudget protects: every eviction is refused (429), so the
    // drain runs to its timeout (12 s) and the action follows it.
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: {
          name: 'db-0',
          labels: { app: 'db' },
          // Managed (a controller would recreate it elsewhere): the drain evicts it.
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'StatefulSet',
              name: 'db',
              uid: '3f1d2c4b-0000-4000-8000-000000000002',
              controller: true,
            },
          ],
        },
        spec: {
          nodeName: w.nodeName,
          containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }],
        },
      },
    });
    await core.patchNamespacedPodStatus(
      {
        name: 'db-0',
        namespace: ns,
        body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await env.kubeConfig.makeApiClient(PolicyV1Api).createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: {
        metadata: { name: 'db' },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } },
      },
    });
    w.kubelet.stopHeartbeats();
    const ctl = startController(env.kubeConfig, ns);
    try {
      await until('Ready=Unknown', async () => (await readyStatus(w)) === 'Unknown', 30_000);
      await w.createRemediation();
      // Cordoned: the drain has begun (Nova was asked before it: the server ran).
      await until('cordoned', async () => (await w.node()).spec?.unschedulable === true, 30_000);
      w.fake.userStop(w.serverId);
      const stopped = await until(
        'ServerStopped=True',
        async () => {
          const o = await w.osr();
          // Before this change: the HARD reboot after the drain powered the server on.
          if (w.fake.rebootCount(w.serverId) > 0)
            throw new Error(
              `a HARD reboot powered the stopped server on; ${ctl.logs
                .filter((l) => /drain|power|Nova|action|stopped/i.test(l))
                .slice(-15)
                .join('\n')}`,
            );
          return cond(o, 'ServerStopped')?.status === 'True' ? o : undefined;
        },
        60_000,
      );
      expect(cond(stopped, 'ServerStopped')).toMatchObject({
        reason: 'StoppedByRequest',
        message: expect.stringContaining('drained; the HardReboot is not sent while it is off'),
      });
      await new Promise((r) => setTimeout(r, 3_000));
      expect(w.fake.rebootCount(w.serverId)).toBe(0);
      expect(w.fake.server(w.serverId)?.status).toBe('SHUTOFF');
      expect(w.fake.instanceActions(w.serverId).map((a) => a.action)).toEqual(['stop']);
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 180_000);
});
