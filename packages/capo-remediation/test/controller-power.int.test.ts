// A server someone stopped stays off (issue 42 item 1), on a real kube-apiserver (envtest) with
// the FAKE Keystone + Nova: an operator's `openstack server stop` (SHUTOFF, a stop recorded
// with their user id) leaves the Node NotReady, the MachineHealthCheck creates a remediation,
// and before this change the controller cordoned, drained and HARD-rebooted the server, i.e.
// powered it back on. Now it asks Nova first: ServerStopped=True, one Warning, nothing
// cordoned or sent; once the operator starts the server and the node is still broken, the
// remediation goes on.
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
});
