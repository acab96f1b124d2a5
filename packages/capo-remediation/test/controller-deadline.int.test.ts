// "Escalate only on fresh evidence from the node", on a real kube-apiserver (envtest) with the
// FAKE Keystone + Nova. A step's timeout used to escalate on the Ready condition alone: a node
// silent since a HARD reboot (a lost link, or a kubelet that cannot reach its control plane)
// was HARD-rebooted again and finally handed to Cluster API for replacement, even while Nova
// could not say whether the machine ran. Now, with nothing from the node since the action:
// - Nova unreachable: no second action, no retry used, no hand-back, through several step
//   timeouts, EscalationHeld=True saying why; it escalates once Nova answers the server ACTIVE;
// - Nova: someone stopped the server after the action: ServerStopped=True, never powered on.
// Actions are counted from the FakeOpenStack's own records (os-instance-actions and its
// accepted POSTs), not from the controller's.
import { useControlPlane } from '@noderepair/envtest/vitest';
import { EventResource, type KubeEvent } from '@noderepair/core/kube';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildWorld,
  installAllCRDs,
  phaseIs,
  readyStatus,
  startController,
  until,
  type Osr,
} from './support/remediation-env.js';

const env = useControlPlane();
const cond = (o: Osr | undefined, type: string) =>
  o?.status?.conditions?.find((c) => c.type === type);
const STEP_S = 30;
// One attempt per call (no session retries): an unanswered question returns at once.
const oneTry = { maxAttempts: 1 };

describe('OpenStackRemediation controller: a step timeout escalates only on fresh evidence', () => {
  beforeAll(async () => {
    await installAllCRDs(env.kubeConfig);
  }, 120_000);

  it('a node silent since a HardReboot while Nova is unreachable: no second action and no retry through several timeouts; escalates once Nova answers ACTIVE', async () => {
    const ns = await env.namespace('osr-silent');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      steps: [{ type: 'HardReboot', timeoutSeconds: STEP_S, retries: 1 }],
      drain: { enabled: true, timeoutSeconds: 4, outOfServiceTaint: false },
      minHealthySeconds: 2,
    });
    w.kubelet.stopHeartbeats();
    const ctl = startController(env.kubeConfig, ns, 'test', undefined, oneTry);
    const novaReboots = () =>
      w.fake.instanceActions(w.serverId).filter((a) => a.action === 'reboot').length;
    try {
      await until('Ready=Unknown', async () => (await readyStatus(w)) === 'Unknown', 30_000);
      await w.createRemediation();
      const accepted = await until('phase Waiting', () => phaseIs(w, 'Waiting'), 30_000);
      expect(novaReboots()).toBe(1);
      const acceptedAt = Date.parse(accepted.status?.history?.[0]?.acceptedTime ?? '');
      // Keystone and Nova go down right after the reboot; the node never reports again.
      w.fake.setOutage({ status: 503 });

      const held = await until(
        'EscalationHeld=True',
        async () => {
          const o = await w.osr();
          // Before this change: the timeout escalated on Ready alone (attempt 2 during the outage).
          const retries = o?.status?.retryCount ?? 0;
          if (retries > 0 || novaReboots() > 1)
            throw new Error(
              `escalated: retryCount ${retries}, ${novaReboots()} reboot(s) in Nova's records`,
            );
          // Two status writes, EscalationHeld then CloudReachable (holdEscalation, then
          // cloudUnavailable): wait for both, a read may fall between them.
          return cond(o, 'EscalationHeld')?.status === 'True' &&
            cond(o, 'CloudReachable')?.status === 'False'
            ? o
            : undefined;
        },
        (STEP_S + 30) * 1000,
      );
      expect(Date.now()).toBeGreaterThanOrEqual(acceptedAt + STEP_S * 1000);
      expect(cond(held, 'EscalationHeld')).toMatchObject({
        reason: 'NodeSilentCloudUnavailable',
        message: `node ${w.nodeName} not Ready ${STEP_S}s after HardReboot (Ready=Unknown), the node has not reported since and Nova cannot be asked: waiting, no attempt used`,
      });
      expect(cond(held, 'CloudReachable')).toMatchObject({ status: 'False' });

      // Three step timeouts after the acceptance: still the first attempt, nothing more sent.
      const until3 = acceptedAt + 3 * STEP_S * 1000 + 2_000;
      while (Date.now() < until3) {
        const o = await w.osr();
        expect(o?.status?.retryCount ?? 0).toBe(0);
        expect(o?.status?.history?.map((a) => [a.attempt, a.result])).toEqual([[1, 'InProgress']]);
        expect(o?.status?.phase).toBe('Waiting');
        await new Promise((r) => setTimeout(r, 2_000));
      }
      expect(novaReboots()).toBe(1);
      expect(w.fake.rebootCount(w.serverId)).toBe(1);
      // Nova was asked on the persisted backoff meanwhile (not once, not on every wake-up).
      const asked = ctl.metrics.cloudUnavailable.value({ operation: 'power' });
      expect(asked).toBeGreaterThanOrEqual(2);
      expect(asked).toBeLessThanOrEqual(10);
      const m = await w.machine();
      expect(
        (m.status?.conditions ?? []).filter(
          (c: { type: string; status: string }) =>
            c.type === 'OwnerRemediated' && c.status === 'False',
        ),
      ).toEqual([]);
      const events = (await w.client.list<KubeEvent>(EventResource, { namespace: ns })).items;
      expect(events.filter((e) => e.reason === 'EscalationHeld').map((e) => e.type)).toEqual([
        'Warning',
      ]);

      // Nova answers again: the server is ACTIVE and its node still silent -> the retry.
      w.fake.setOutage(undefined);
      await until('a second HARD reboot', async () => novaReboots() === 2, 90_000);
      const escalated = await until(
        'attempt 2 accepted',
        async () => {
          const o = await w.osr();
          return o?.status?.retryCount === 1 && o.status.phase === 'Waiting' ? o : undefined;
        },
        30_000,
      );
      expect(escalated.status?.history?.[0]).toMatchObject({
        result: 'TimedOut',
        message: expect.stringContaining(
          'it has not reported since and Nova reports its server running',
        ),
      });
      expect(cond(escalated, 'EscalationHeld')).toBeUndefined();
      expect(cond(escalated, 'CloudReachable')).toMatchObject({ status: 'True' });
      await w.kubelet.reboot(500);
      await until('phase Succeeded', () => phaseIs(w, 'Succeeded'), 30_000);
      expect(novaReboots()).toBe(2);
      expect(w.fake.rebootCount(w.serverId, 'HARD')).toBe(2);
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 300_000);

  it('someone stops the server after the HardReboot: at the timeout ServerStopped=True, never powered on', async () => {
    const ns = await env.namespace('osr-silent-stop');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      steps: [{ type: 'HardReboot', timeoutSeconds: STEP_S, retries: 1 }],
      drain: { enabled: true, timeoutSeconds: 4, outOfServiceTaint: false },
      minHealthySeconds: 2,
    });
    w.kubelet.stopHeartbeats();
    const ctl = startController(env.kubeConfig, ns, 'test', undefined, oneTry);
    try {
      await until('Ready=Unknown', async () => (await readyStatus(w)) === 'Unknown', 30_000);
      await w.createRemediation();
      await until('phase Waiting', () => phaseIs(w, 'Waiting'), 30_000);
      await until(
        'Nova finished the reboot',
        async () => w.fake.server(w.serverId)?.taskState === null,
        15_000,
      );
      w.fake.userStop(w.serverId);
      const stopped = await until(
        'ServerStopped=True',
        async () => {
          const o = await w.osr();
          // Before this change: the timeout escalated, and a HARD reboot powered it back on.
          if (w.fake.rebootCount(w.serverId) > 1)
            throw new Error(`escalated: ${w.fake.rebootCount(w.serverId)} reboots accepted`);
          return cond(o, 'ServerStopped')?.status === 'True' ? o : undefined;
        },
        (STEP_S + 30) * 1000,
      );
      expect(cond(stopped, 'ServerStopped')).toMatchObject({
        reason: 'StoppedByRequest',
        message: expect.stringContaining('operator-user'),
      });
      await new Promise((r) => setTimeout(r, 3_000));
      const still = await w.osr();
      expect(still?.status?.retryCount ?? 0).toBe(0);
      expect(still?.status?.history?.map((a) => a.result)).toEqual(['InProgress']);
      expect(w.fake.rebootCount(w.serverId)).toBe(1);
      expect(w.fake.instanceActions(w.serverId).map((a) => a.action)).toEqual(['reboot', 'stop']);
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 180_000);
  it('someone stops the server WHILE the remediation runs (the node had reported after the SoftReboot): the escalation to HardReboot is withheld, ServerStopped=True, never powered on', async () => {
    const ns = await env.namespace('osr-stop-midway');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      steps: [
        { type: 'SoftReboot', timeoutSeconds: STEP_S, retries: 0 },
        { type: 'HardReboot', timeoutSeconds: STEP_S, retries: 0 },
      ],
      drain: { enabled: true, timeoutSeconds: 4, outOfServiceTaint: false },
      minHealthySeconds: 2,
    });
    // The container runtime is down: the kubelet keeps reporting, NotReady.
    await w.kubelet.setNotReady();
    const ctl = startController(env.kubeConfig, ns, 'test', undefined, oneTry);
    try {
      await until('Ready=False', async () => (await readyStatus(w)) === 'False', 30_000);
      await w.createRemediation();
      await until('phase Waiting', () => phaseIs(w, 'Waiting'), 30_000);
      expect(w.fake.rebootCount(w.serverId, 'SOFT')).toBe(1);
      await until(
        'Nova finished the SOFT reboot',
        async () => w.fake.server(w.serverId)?.taskState === null,
        15_000,
      );
      // The node reports after the action (fresh evidence: the escalation may go on)...
      await new Promise((r) => setTimeout(r, 5_000));
      // ...then a person stops the server; its kubelet goes silent with it.
      w.fake.userStop(w.serverId);
      w.kubelet.stopHeartbeats();
      const stopped = await until(
        'ServerStopped=True',
        async () => {
          const o = await w.osr();
          // Before this change: the escalation's HARD reboot powered the server back on.
          if (w.fake.rebootCount(w.serverId, 'HARD') > 0)
            throw new Error('escalated: a HARD reboot powered the stopped server on');
          return cond(o, 'ServerStopped')?.status === 'True' ? o : undefined;
        },
        (STEP_S + 40) * 1000,
      );
      expect(cond(stopped, 'ServerStopped')).toMatchObject({
        reason: 'StoppedByRequest',
        message: expect.stringContaining('HardReboot (attempt 1 of step 2) is not sent'),
      });
      await new Promise((r) => setTimeout(r, 3_000));
      expect(w.fake.rebootCount(w.serverId, 'HARD')).toBe(0);
      expect(w.fake.server(w.serverId)?.status).toBe('SHUTOFF');
      expect(w.fake.instanceActions(w.serverId).map((a) => a.action)).toEqual(['reboot', 'stop']);
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 180_000);
});
