// issue 8: the capo-remediation flow on envtest with the REAL Nova. A real kube-apiserver and
// kube-controller-manager (node lifecycle controller), Cluster API's and CAPO's CRDs and ours,
// our controller in-process, and the testbed's Keystone + Nova (fake virt driver). A Machine's
// node stops heartbeating, the OpenStackRemediation is cloned from its template as the
// MachineHealthCheck does, and the controller cordons, drains and reboots the server through
// Nova. The one fake link is FakeKubeletFollowsNova: the fake kubelet comes back only after
// Nova's own records show the reboot finished. Nova's os-instance-actions must then hold
// exactly one `reboot` per attempt, with the request ids of the controller's requests.
import { startControlPlane, type ControlPlane } from '@noderepair/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_ID_METADATA_KEY } from '@noderepair/openstack';
import {
  installAllCRDs,
  until,
  type Osr,
} from '../../capo-remediation/test/support/remediation-env.js';
import { startOpenStackTestbed } from '../src/index.js';
import type { InstanceAction, OpenStackTestbed } from '../src/index.js';
import { FakeKubeletFollowsNova } from './support/fake-kubelet-follows-nova.js';
import {
  buildTestbedWorld,
  runningPodOn,
  startRecordedController,
  type TestbedWorld,
} from './support/testbed-world.js';

let tb: OpenStackTestbed;
let cp: ControlPlane;

beforeAll(async () => {
  tb = await startOpenStackTestbed();
  cp = await startControlPlane({
    // Ready=Unknown 8 s after the last heartbeat (real default: 50 s).
    controllerManager: { nodeMonitorGracePeriodSeconds: 8, nodeMonitorPeriodSeconds: 1 },
    progress: (l) => process.stderr.write(`${l}\n`),
  });
  await installAllCRDs(cp.kubeConfig);
});

afterAll(async () => {
  await cp?.stop();
  // The testbed is stopped by the suite's global setup after the last file.
});

const ready = async (w: TestbedWorld) =>
  (await w.node()).status?.conditions?.find((c) => c.type === 'Ready')?.status;
const phase = async (w: TestbedWorld, p: string): Promise<Osr | undefined> => {
  const o = await w.osr();
  return o?.status?.phase === p ? o : undefined;
};
const cond = (o: Osr, type: string) => o.status?.conditions?.find((c) => c.type === type);
/** Nova's start_time is UTC without a zone, to the second. */
const novaTime = (t: string) => Date.parse(/Z$|[+-]\d\d:\d\d$/.test(t) ? t : `${t}Z`);

/** Whole seconds: Nova stores start_time to the second (truncated). */
const second = (ms: number) => Math.floor(ms / 1000) * 1000;

/**
 * Each attempt of the history has exactly one `reboot` in Nova's records, and nothing else was
 * rebooted. Attempt i owns the reboots Nova started from the second of its start up to (not
 * including) the second the next attempt started: the next attempt's intent closes this one
 * in the same instant it sends the next reboot, so the completion time cannot be the bound.
 */
function expectOneRebootPerAttempt(
  history: NonNullable<NonNullable<Osr['status']>['history']>,
  reboots: InstanceAction[],
) {
  const perAttempt = history.map((a, i) => {
    const from = second(Date.parse(a.startTime));
    const next = history[i + 1];
    const until = next
      ? second(Date.parse(next.startTime))
      : a.completionTime
        ? second(Date.parse(a.completionTime)) + 1_000
        : Infinity;
    return reboots.filter((r) => novaTime(r.startTime) >= from && novaTime(r.startTime) < until)
      .length;
  });
  expect(perAttempt).toEqual(history.map(() => 1));
  expect(reboots).toHaveLength(history.length);
}

describe('capo-remediation with the REAL Nova (testbed) on envtest', () => {
  it('SoftReboot: cordon, drain, one reboot through Nova, the node comes back, Succeeded and uncordoned', async () => {
    const w = await buildTestbedWorld(cp.kubeConfig, tb, 'flow-soft', {
      steps: [
        { type: 'SoftReboot', timeoutSeconds: 90, retries: 0 },
        { type: 'HardReboot', timeoutSeconds: 90 },
      ],
      drain: { enabled: true, timeoutSeconds: 30 },
      minHealthySeconds: 3,
    });
    const guest = await FakeKubeletFollowsNova.start(tb, w.serverId, w.kubelet);
    const ctl = startRecordedController(cp.kubeConfig, w.ns);
    try {
      await runningPodOn(w, 'app-0');
      w.kubelet.stopHeartbeats();
      await until(
        'Ready=Unknown from the node lifecycle controller',
        async () => (await ready(w)) === 'Unknown',
        90_000,
      );
      const created = await w.createRemediation();
      expect(created.metadata?.ownerReferences?.[0]?.kind).toBe('Machine');

      const done = await until('phase Succeeded', () => phase(w, 'Succeeded'), 180_000);
      expect(done.status?.serverID).toBe(w.serverId);
      expect(done.status?.history?.map((a) => [a.type, a.attempt, a.result])).toEqual([
        ['SoftReboot', 1, 'Succeeded'],
      ]);
      expect(cond(done, 'Cordoned')).toMatchObject({
        status: 'True',
        reason: 'CordonedForRemediation',
      });
      expect(cond(done, 'Drained')).toMatchObject({ status: 'True', reason: 'Drained' });
      expect(cond(done, 'Remediated')).toMatchObject({ status: 'True' });
      expect((await w.node()).spec?.unschedulable).not.toBe(true);
      expect(await ready(w)).toBe('True');

      // What the controller sent, what Nova answered, and Nova's own records agree.
      expect(ctl.reboots.map((r) => [r.type, r.status])).toEqual([['SOFT', 202]]);
      const actions = await tb.novaActions(w.serverId);
      console.log(
        'soft flow: Nova os-instance-actions',
        JSON.stringify(actions),
        'sent',
        JSON.stringify(ctl.reboots),
      );
      expect(actions.map((a) => a.action)).toEqual(['create', 'reboot']);
      const reboots = actions.filter((a) => a.action === 'reboot');
      expect(reboots.map((a) => a.requestId)).toEqual(ctl.reboots.map((r) => r.requestId));
      expectOneRebootPerAttempt(done.status?.history ?? [], reboots);
      expect(
        guest.reboots.map((r) => [r.event.event, r.event.result, r.kubeletBroughtBack]),
      ).toEqual([['compute_reboot_instance', 'Success', true]]);
      // Nova's os-instance-actions are the exactly-once record: nothing is written to the
      // server's metadata any more (issue 21).
      expect((await tb.serverMetadata(w.serverId))[ACTION_ID_METADATA_KEY]).toBeUndefined();
      expect((await tb.serverState(w.serverId)).status).toBe('ACTIVE');

      const text = ctl.logs.join('\n');
      expect(ctl.logs.some((l) => l.includes('server action'))).toBe(true);
      expect(text).not.toContain(tb.applicationCredential.secret);
      expect(text).not.toContain(tb.password.password);
    } finally {
      await ctl.stop();
      await guest.stop();
      await w.close();
    }
  });

  it('escalation: the SoftReboot attempt times out (the guest does not come back), then one HardReboot, Succeeded', async () => {
    const w = await buildTestbedWorld(cp.kubeConfig, tb, 'flow-escalate', {
      steps: [
        { type: 'SoftReboot', timeoutSeconds: 30, retries: 0 },
        { type: 'HardReboot', timeoutSeconds: 90 },
      ],
      drain: { enabled: false },
      minHealthySeconds: 3,
    });
    // The guest stays down after the first reboot Nova performs (the SOFT one).
    const guest = await FakeKubeletFollowsNova.start(tb, w.serverId, w.kubelet, {
      comesBackAfter: (n) => n >= 2,
    });
    const ctl = startRecordedController(cp.kubeConfig, w.ns);
    try {
      w.kubelet.stopHeartbeats();
      await until(
        'Ready=Unknown from the node lifecycle controller',
        async () => (await ready(w)) === 'Unknown',
        90_000,
      );
      await w.createRemediation();

      const done = await until('phase Succeeded', () => phase(w, 'Succeeded'), 240_000);
      const history = done.status?.history ?? [];
      expect(history.map((a) => [a.step, a.type, a.attempt, a.result])).toEqual([
        [0, 'SoftReboot', 1, 'TimedOut'],
        [1, 'HardReboot', 1, 'Succeeded'],
      ]);
      expect(ctl.reboots.map((r) => [r.type, r.status])).toEqual([
        ['SOFT', 202],
        ['HARD', 202],
      ]);
      const actions = await tb.novaActions(w.serverId);
      console.log(
        'escalation flow: Nova os-instance-actions',
        JSON.stringify(actions),
        'sent',
        JSON.stringify(ctl.reboots),
      );
      expect(actions.map((a) => a.action)).toEqual(['create', 'reboot', 'reboot']);
      const reboots = actions.filter((a) => a.action === 'reboot');
      // Nova records SOFT and HARD alike as "reboot"; the request ids tell which is which.
      expect(reboots.map((a) => a.requestId)).toEqual(ctl.reboots.map((r) => r.requestId));
      expectOneRebootPerAttempt(history, reboots);
      expect(guest.reboots.map((r) => [r.event.result, r.kubeletBroughtBack])).toEqual([
        ['Success', false],
        ['Success', true],
      ]);
      expect((await tb.serverMetadata(w.serverId))[ACTION_ID_METADATA_KEY]).toBeUndefined();
      expect(ctl.metrics.outcomes.value({ result: 'Succeeded' })).toBe(1);
    } finally {
      await ctl.stop();
      await guest.stop();
      await w.close();
    }
  });
});
