// issue 21 on a real kube-apiserver (envtest) with the FAKE Keystone + Nova (the same
// behaviours against the testbed's real services: openstack-testbed's e2e suite):
// - a cloud outage is waiting, not failure: no attempt used, no hand-back to Cluster API,
//   CloudReachable=False with a Warning event and a metric, one reboot after it ends;
// - the out-of-service taint only after Nova reports the HARD reboot done, never during the
//   drain and never after a SOFT reboot.
import { useControlPlane } from '@noderepair/envtest/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { EventResource, type KubeEvent, type KubeNode } from '@noderepair/core/kube';
import { OpenStackRemediationResource } from '../src/controller/index.js';
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
const OOS = 'node.kubernetes.io/out-of-service';
const tainted = (n: KubeNode) => n.spec?.taints?.some((t) => t.key === OOS) === true;
const cond = (o: Osr | undefined, type: string) =>
  o?.status?.conditions?.find((c) => c.type === type);

describe('OpenStackRemediation controller: cloud outage and fencing', () => {
  beforeAll(async () => {
    await installAllCRDs(env.kubeConfig);
  }, 120_000);

  it('Keystone and Nova down: CloudReachable=False, no attempt used, no hand-back; one reboot after, Succeeded', async () => {
    const ns = await env.namespace('osr-outage');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      // One attempt only: on main a single failed call handed the Machine back.
      steps: [{ type: 'SoftReboot', timeoutSeconds: 60, retries: 0 }],
      drain: { enabled: true, timeoutSeconds: 4 },
      minHealthySeconds: 2,
    });
    w.fake.setOutage({ status: 503 });
    w.kubelet.stopHeartbeats();
    const ctl = startController(env.kubeConfig, ns);
    try {
      await until('Ready=Unknown', async () => (await readyStatus(w)) === 'Unknown', 30_000);
      await w.createRemediation();
      const waiting = await until(
        'CloudReachable=False',
        async () => {
          const o = await w.osr();
          return cond(o, 'CloudReachable')?.status === 'False' ? o : undefined;
        },
        30_000,
      );
      expect(cond(waiting, 'CloudReachable')).toMatchObject({ reason: 'CloudUnavailable' });
      // Several more calls during the outage (the backoff starts at 5 s). The first question
      // of a remediation is the server's power state (a server someone stopped stays off):
      // while Nova cannot answer it, nothing is cordoned, persisted or sent.
      await until(
        'two calls without an answer',
        async () => ctl.metrics.cloudUnavailable.value({ operation: 'power' }) >= 2,
        30_000,
      );
      const during = await w.osr();
      expect(during?.status?.history ?? []).toEqual([]);
      expect((await w.node()).spec?.unschedulable ?? false).toBe(false);
      expect(w.fake.rebootCount(w.serverId)).toBe(0);
      const m = await w.machine();
      expect(
        (m.status?.conditions ?? []).filter(
          (c: { type: string; status: string }) =>
            c.type === 'OwnerRemediated' && c.status === 'False',
        ),
      ).toEqual([]);
      // The drain of the unreachable node did not add the out-of-service taint.
      expect(tainted(await w.node())).toBe(false);

      w.fake.setOutage(undefined);
      await until('one SOFT reboot', async () => w.fake.rebootCount(w.serverId) === 1, 30_000);
      const answered = await until('phase Waiting', () => phaseIs(w, 'Waiting'), 15_000);
      expect(cond(answered, 'CloudReachable')).toMatchObject({ status: 'True' });
      // A soft reboot never fences: still no taint on the unreachable node.
      expect(tainted(await w.node())).toBe(false);
      await w.kubelet.reboot(500);
      const done = await until('phase Succeeded', () => phaseIs(w, 'Succeeded'), 30_000);
      expect(done.status?.history?.map((a) => [a.attempt, a.result])).toEqual([[1, 'Succeeded']]);
      expect(w.fake.rebootCount(w.serverId)).toBe(1);
      expect(w.fake.instanceActions(w.serverId).map((a) => a.action)).toEqual(['reboot']);
      const events = (await w.client.list<KubeEvent>(EventResource, { namespace: ns })).items;
      const unavailable = events.filter((e) => e.reason === 'CloudUnavailable');
      expect(unavailable.map((e) => e.type)).toEqual(['Warning']);
      expect(events.some((e) => e.reason === 'ActionFailed')).toBe(false);
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 150_000);

  it('the outage backoff holds every wake-up (spec edits, a restart): Nova is asked on the backoff, not on each', async () => {
    const ns = await env.namespace('osr-outage-wake');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      steps: [{ type: 'SoftReboot', timeoutSeconds: 60, retries: 0 }],
      drain: { enabled: true, timeoutSeconds: 4 },
      minHealthySeconds: 2,
    });
    w.fake.setOutage({ status: 503 });
    w.kubelet.stopHeartbeats();
    // One attempt per call (no session retries): each question is answered at once, so only
    // the controller's own backoff spaces them.
    const oneTry = { maxAttempts: 1 };
    let ctl = startController(env.kubeConfig, ns, 'test', undefined, oneTry);
    let asked = 0; // unanswered questions of the controllers stopped so far
    const unanswered = () => asked + ctl.metrics.cloudUnavailable.value({ operation: 'power' });
    // A spec edit wakes the reconcile at once (a new generation), whatever it waits for.
    let edits = 0;
    const editSpec = () =>
      w.client.patch(
        OpenStackRemediationResource,
        w.machineName,
        { type: 'merge', body: { spec: { minHealthySeconds: 2 + (++edits % 2) } } },
        { namespace: ns },
      );
    try {
      await until('Ready=Unknown', async () => (await readyStatus(w)) === 'Unknown', 30_000);
      await w.createRemediation();
      const waiting = await until(
        'CloudReachable=False',
        async () => {
          const o = await w.osr();
          return cond(o, 'CloudReachable')?.status === 'False' ? o : undefined;
        },
        30_000,
      );
      // About 18 s of wake-ups, one a second, and a controller restart in the middle. The
      // backoff (5 s, then half the outage's age) allows the first question and 3 more at
      // most; without it held, each wake-up after the first 5 s asked Nova again (about 15).
      for (let i = 0; i < 18; i++) {
        if (i === 9) {
          await ctl.stop();
          asked += ctl.metrics.cloudUnavailable.value({ operation: 'power' });
          ctl = startController(env.kubeConfig, ns, 'restarted', undefined, oneTry);
        }
        await editSpec();
        await new Promise((r) => setTimeout(r, 1_000));
      }
      expect(unanswered()).toBeGreaterThanOrEqual(2);
      expect(unanswered()).toBeLessThanOrEqual(5);
      // When Nova may be asked again is on the object, so a restart knows it too.
      expect(waiting.status?.cloudRetryTime).toBeDefined();
      expect((await w.osr())?.status?.history ?? []).toEqual([]);
      expect(w.fake.rebootCount(w.serverId)).toBe(0);

      // Nova answers again: one reboot, and the retry time is gone with the outage.
      w.fake.setOutage(undefined);
      await until('one SOFT reboot', async () => w.fake.rebootCount(w.serverId) === 1, 90_000);
      const answered = await until('phase Waiting', () => phaseIs(w, 'Waiting'), 15_000);
      expect(cond(answered, 'CloudReachable')).toMatchObject({ status: 'True' });
      expect(answered.status?.cloudRetryTime).toBeUndefined();
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 180_000);

  it('HARD reboot of an unreachable node: the out-of-service taint only once Nova reports the reboot done', async () => {
    const ns = await env.namespace('osr-fence');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      steps: [{ type: 'HardReboot', timeoutSeconds: 90, retries: 0 }],
      drain: { enabled: true, timeoutSeconds: 4, outOfServiceTaint: true },
      minHealthySeconds: 2,
    });
    // Nova takes its time with the reboot: long enough to see "accepted, not yet done".
    w.fake.compute.transitionDelayMs = 8_000;
    w.kubelet.stopHeartbeats();
    const ctl = startController(env.kubeConfig, ns);
    try {
      await until('Ready=Unknown', async () => (await readyStatus(w)) === 'Unknown', 30_000);
      await w.createRemediation();
      await until('one HARD reboot', async () => w.fake.rebootCount(w.serverId, 'HARD') === 1);
      // Accepted, still rebooting: not fenced, so no taint (main added it during the drain).
      expect(tainted(await w.node())).toBe(false);
      const server = w.fake.server(w.serverId);
      expect(server?.taskState).not.toBeNull();
      const fenced = await until(
        'Fenced=True',
        async () => {
          const o = await w.osr();
          return cond(o, 'Fenced')?.status === 'True' ? o : undefined;
        },
        30_000,
      );
      expect(cond(fenced, 'Fenced')).toMatchObject({ reason: 'ResetObserved' });
      // Nova's record of the action is finished by the time the taint is there.
      expect(w.fake.server(w.serverId)?.taskState).toBeNull();
      expect(tainted(await w.node())).toBe(true);
      await w.kubelet.reboot(500);
      await until('phase Succeeded', () => phaseIs(w, 'Succeeded'), 30_000);
      // Released: uncordoned and the taint removed.
      expect(tainted(await w.node())).toBe(false);
      expect(w.fake.rebootCount(w.serverId)).toBe(1);
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 150_000);
  it('a second HARD attempt does not inherit the first fence: Fenced=False (NewAttempt) until Nova reports it done', async () => {
    const ns = await env.namespace('osr-refence');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      steps: [{ type: 'HardReboot', timeoutSeconds: 30, retries: 1 }],
      drain: { enabled: true, timeoutSeconds: 4, outOfServiceTaint: true },
      minHealthySeconds: 2,
    });
    w.fake.compute.transitionDelayMs = 5_000;
    w.kubelet.stopHeartbeats();
    const ctl = startController(env.kubeConfig, ns);
    try {
      await until('Ready=Unknown', async () => (await readyStatus(w)) === 'Unknown', 30_000);
      await w.createRemediation();
      const first = await until(
        'Fenced=True for attempt 1',
        async () => {
          const o = await w.osr();
          return cond(o, 'Fenced')?.status === 'True' ? o : undefined;
        },
        40_000,
      );
      expect(first?.status?.retryCount).toBe(0);
      // The node stays down: attempt 2 after the step's timeout. Its intent resets the fence.
      const second = await until(
        'attempt 2 started',
        async () => {
          const o = await w.osr();
          return o?.status?.retryCount === 1 ? o : undefined;
        },
        60_000,
      );
      expect(cond(second, 'Fenced')).toMatchObject({ status: 'False', reason: 'NewAttempt' });
      // The intent (retryCount 1) is persisted before Nova is called: on a loaded machine this
      // read can come between the two, so the POST is waited for, not assumed.
      await until(
        'the second HARD reboot',
        async () => w.fake.rebootCount(w.serverId, 'HARD') === 2,
        10_000,
      );
      const refenced = await until(
        'Fenced=True for attempt 2',
        async () => {
          const o = await w.osr();
          return cond(o, 'Fenced')?.status === 'True' ? o : undefined;
        },
        30_000,
      );
      expect(cond(refenced, 'Fenced')).toMatchObject({ reason: 'ResetObserved' });
      expect(w.fake.server(w.serverId)?.taskState).toBeNull();
      await w.kubelet.reboot(500);
      await until('phase Succeeded', () => phaseIs(w, 'Succeeded'), 30_000);
      expect(tainted(await w.node())).toBe(false);
      expect(w.fake.rebootCount(w.serverId, 'HARD')).toBe(2);
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 180_000);
});
