// issue 21, the controller-level proofs on envtest (real kube-apiserver + node lifecycle
// controller) against the REAL Keystone + Nova of the testbed (fake virt driver):
//
// 1. A cloud outage is waiting, not failure. Ten Machines go unreachable, keystone AND
//    nova-api are stopped, and only then the ten remediations are created: every one is
//    cordoned and its intent (attempt 1 of step 0) persisted while the cloud cannot answer, so
//    the outage starts before any reboot is sent. The outage lasts 150 s, over three times
//    the step's 45 s timeout. A controller that counted the unanswered calls as failed attempts
//    would burn SoftReboot then HardReboot in seconds and hand the Machines back
//    (OwnerRemediated=False, history of 2); one that started the step clock at the intent
//    instead of at Nova's acceptance would time the SoftReboot out right after the services
//    return and send a second (HARD) reboot. Either fails the assertions below: one attempt
//    in each history, no OwnerRemediated=False, exactly one `reboot` per server in Nova's own
//    os-instance-actions, started after the services came back.
//
// 2. Fenced before the out-of-service taint. An unreachable node, a HardReboot ladder, the
//    drain with outOfServiceTaint on. nova-compute is frozen so Nova accepts the HARD reboot
//    but cannot finish it; the Node must stay without the taint all that time. A controller
//    that tainted during the drain (the old behaviour) would taint before the reboot was even
//    sent; one that tainted on acceptance would taint while compute is frozen. Both fail: the
//    first time a watch sees the taint must be after compute resumed and not before the
//    second Nova recorded as the finish of compute_reboot_instance.
//
// The one fake link is FakeKubeletFollowsNova (see its file): a fake kubelet comes back only
// after Nova's own records show the reboot finished.
import {
  NodeResource,
  type KubeClient,
  type KubeNode,
  type KubeObject,
} from '@noderepair/core/kube';
import { startControlPlane, type ControlPlane } from '@noderepair/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  installAllCRDs,
  MachineV1beta2,
  until,
  type Osr,
} from '../../capo-remediation/test/support/remediation-env.js';
import { startOpenStackTestbed } from '../src/index.js';
import type { OpenStackTestbed } from '../src/index.js';
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
  // Whatever a failed test left behind: the rest of the suite needs the whole cloud.
  await tb?.resumeCompute().catch(() => undefined);
  await tb?.startServices(['keystone', 'nova-api']).catch(() => undefined);
  await cp?.stop();
});

const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ready = async (w: TestbedWorld) =>
  (await w.node()).status?.conditions?.find((c) => c.type === 'Ready')?.status;
const cond = (o: Osr | undefined, type: string) =>
  o?.status?.conditions?.find((c) => c.type === type);
/** Nova's times are UTC without a zone, to the second. */
const novaTime = (t: string) => Date.parse(/Z$|[+-]\d\d:\d\d$/.test(t) ? t : `${t}Z`);
/** Whole seconds: Nova stores its times truncated to the second. */
const second = (ms: number) => Math.floor(ms / 1000) * 1000;
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** OwnerRemediated=False on the Machine, in either condition list Cluster API reads. */
async function ownerRemediatedFalse(w: TestbedWorld): Promise<boolean> {
  const m = await w.client.get<
    KubeObject & {
      status?: {
        conditions?: Array<{ type: string; status: string }>;
        deprecated?: { v1beta1?: { conditions?: Array<{ type: string; status: string }> } };
      };
    }
  >(MachineV1beta2, w.machineName, { namespace: w.ns });
  const all = [
    ...(m.status?.conditions ?? []),
    ...(m.status?.deprecated?.v1beta1?.conditions ?? []),
  ];
  return all.some((c) => c.type === 'OwnerRemediated' && c.status === 'False');
}

/**
 * The first time the Node is seen with the out-of-service taint, from a watch (every
 * change of the object, timestamped on arrival), started before anything could add it.
 */
function watchTaint(client: KubeClient, nodeName: string) {
  const abort = new AbortController();
  const seen: { firstAt?: number; changes: number } = { changes: 0 };
  const loop = (async () => {
    while (!abort.signal.aborted) {
      try {
        for await (const ev of client.watch<KubeNode>(NodeResource, {
          fieldSelector: `metadata.name=${nodeName}`,
          timeoutSeconds: 60,
          signal: abort.signal,
        })) {
          if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') continue;
          seen.changes += 1;
          const tainted = ev.object.spec?.taints?.some((t) => t.key === OUT_OF_SERVICE);
          if (tainted && seen.firstAt === undefined) seen.firstAt = Date.now();
        }
      } catch {
        if (!abort.signal.aborted) await sleep(200);
      }
    }
  })();
  return {
    seen,
    stop: async () => {
      abort.abort();
      await loop;
    },
  };
}

describe('capo-remediation on the REAL Nova (testbed): cloud outage and fencing', () => {
  it(
    'a cloud outage while 10 remediations are in flight: 0 attempts used, 0 OwnerRemediated=False, all Succeeded, one reboot each',
    { timeout: 900_000 },
    async () => {
      const N = 10;
      const OUTAGE_MS = 150_000;
      const STEP_TIMEOUT_S = 45;
      const t0 = Date.now();
      // Built in parallel: each world is one Nova server, a fake kubelet and its objects.
      const worlds = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          buildTestbedWorld(cp.kubeConfig, tb, `outage-${i}`, {
            steps: [
              { type: 'SoftReboot', timeoutSeconds: STEP_TIMEOUT_S, retries: 0 },
              { type: 'HardReboot', timeoutSeconds: STEP_TIMEOUT_S, retries: 0 },
            ],
            drain: { enabled: true, timeoutSeconds: 30 },
            minHealthySeconds: 3,
          }),
        ),
      );
      const built = Date.now();
      const guests: FakeKubeletFollowsNova[] = [];
      // One controller for every namespace, as deployed: ten remediations share its workers.
      const ctl = startRecordedController(cp.kubeConfig, undefined);
      let servicesDown = false;
      try {
        for (const w of worlds)
          guests.push(
            await FakeKubeletFollowsNova.start(tb, w.serverId, w.kubelet, { pollMs: 1_000 }),
          );
        for (const w of worlds) w.kubelet.stopHeartbeats();
        await until(
          'all 10 nodes Ready=Unknown',
          async () => (await Promise.all(worlds.map(ready))).every((r) => r === 'Unknown'),
          120_000,
        );

        // The outage begins before the remediations exist: no reboot can have been sent.
        await tb.stopServices(['keystone', 'nova-api']);
        servicesDown = true;
        const outageAt = Date.now();
        await Promise.all(worlds.map((w) => w.createRemediation()));

        // Until every one says CloudReachable=False, an attempt used up (a second history
        // entry, a closed first one, a Failed phase, a Machine handed back) ends the wait
        // at once, naming it: that is what a controller counting outages as failures does.
        const firstSeen = await until(
          'CloudReachable=False on all 10 (or an attempt used)',
          async () => {
            const osrs = await Promise.all(worlds.map((w) => w.osr()));
            const used: string[] = [];
            for (const [i, o] of osrs.entries()) {
              const h = o?.status?.history ?? [];
              if (h.length > 1 || h.some((a) => a.result !== 'InProgress'))
                used.push(
                  `${o?.metadata?.namespace}: history ${JSON.stringify(h.map((a) => [a.step, a.attempt, a.result]))}`,
                );
              if (o?.status?.phase === 'Failed') used.push(`${o.metadata?.namespace}: Failed`);
              const w = worlds[i] as TestbedWorld;
              if (await ownerRemediatedFalse(w)) used.push(`${w.ns}: OwnerRemediated=False`);
            }
            return used.length > 0 ||
              osrs.every((o) => cond(o, 'CloudReachable')?.status === 'False')
              ? { at: Date.now(), used }
              : undefined;
          },
          120_000,
        );
        expect(firstSeen.used, 'attempts used up during the outage').toEqual([]);
        const cloudFalseAt = firstSeen.at;

        // Throughout the outage: nothing persisted or sent (the first question of a remediation,
        // the server's power state, is unanswered: a server someone stopped stays off), and no
        // Machine handed back. Sampled every few seconds until the outage has lasted OUTAGE_MS.
        const violations: string[] = [];
        let samples = 0;
        while (Date.now() - outageAt < OUTAGE_MS) {
          samples += 1;
          for (const w of worlds) {
            const o = await w.osr();
            const h = o?.status?.history ?? [];
            const shape = JSON.stringify(h.map((a) => [a.step, a.attempt, a.result]));
            if (h.length !== 0) violations.push(`${w.ns}: history ${shape}`);
            if (h[0]?.acceptedTime !== undefined) violations.push(`${w.ns}: accepted in outage`);
            if (o?.status?.phase === 'Failed' || o?.status?.phase === 'Succeeded')
              violations.push(`${w.ns}: phase ${o.status.phase}`);
            if (cond(o, 'CloudReachable')?.status !== 'False')
              violations.push(`${w.ns}: CloudReachable not False during the outage`);
            if (await ownerRemediatedFalse(w)) violations.push(`${w.ns}: OwnerRemediated=False`);
          }
          await sleep(5_000);
        }
        expect(violations).toEqual([]);
        const unavailableCalls = ctl.metrics.cloudUnavailable.value({ operation: 'power' });
        expect(unavailableCalls).toBeGreaterThanOrEqual(N);
        expect(ctl.reboots.filter((r) => r.status === 202)).toEqual([]);

        const backAt = Date.now();
        await tb.startServices(['keystone', 'nova-api']);
        servicesDown = false;
        const listening = Date.now();

        const done = await until(
          'all 10 Succeeded',
          async () => {
            const osrs = await Promise.all(worlds.map((w) => w.osr()));
            return osrs.every((o) => o?.status?.phase === 'Succeeded') ? osrs : undefined;
          },
          360_000,
        );
        const succeededAt = Date.now();

        for (const o of done) {
          expect(
            (o?.status?.history ?? []).map((a) => [a.step, a.type, a.attempt, a.result]),
          ).toEqual([[0, 'SoftReboot', 1, 'Succeeded']]);
          // Seen False during the outage (above), True again once Nova answered.
          expect(cond(o, 'CloudReachable')).toMatchObject({
            status: 'True',
            reason: 'CloudAnswered',
          });
        }
        for (const w of worlds) expect(await ownerRemediatedFalse(w)).toBe(false);

        // Nova's own records: exactly one reboot per server, each sent after the services
        // returned (so none slipped out before the outage), matching what the controller sent.
        const perServer = await Promise.all(
          worlds.map(async (w) =>
            (await tb.novaActions(w.serverId)).filter((a) => a.action === 'reboot'),
          ),
        );
        expect(perServer.map((r) => r.length)).toEqual(worlds.map(() => 1));
        for (const [i, w] of worlds.entries()) {
          const reboot = perServer[i]?.[0];
          expect(novaTime(reboot?.startTime ?? '')).toBeGreaterThanOrEqual(second(backAt));
          // A POST to the freshly restarted nova-api may outlive the client's timeout (no
          // answer recorded here) and still be performed: the replay then finds it in Nova's
          // records instead of sending again. So at most one answered POST, and it is Nova's.
          const sent = ctl.reboots.filter((r) => r.serverId === w.serverId && r.status === 202);
          expect(sent.length).toBeLessThanOrEqual(1);
          for (const r of sent) expect([r.type, r.requestId]).toEqual(['SOFT', reboot?.requestId]);
        }
        expect(ctl.metrics.outcomes.value({ result: 'Succeeded' })).toBe(N);
        expect(ctl.metrics.outcomes.value({ result: 'Failed' })).toBe(0);
        const text = ctl.logs.join('\n');
        expect(text).not.toContain(tb.applicationCredential.secret);

        console.log(
          `outage e2e: ${N} worlds built in ${secs(built - t0)}; CloudReachable=False on all ` +
            `${secs(cloudFalseAt - outageAt)} after the stop; outage ${secs(backAt - outageAt)} ` +
            `(${samples} samples, ${unavailableCalls} unanswered power-state questions, ` +
            `${ctl.metrics.cloudUnavailable.value({ operation: 'fence' })} fence); ` +
            `services listening ${secs(listening - backAt)} after start; all Succeeded ` +
            `${secs(succeededAt - listening)} later; reboot POSTs ${ctl.reboots.length} ` +
            `(${JSON.stringify(ctl.reboots.map((r) => r.status))}); Nova reboots per server ` +
            `${JSON.stringify(perServer.map((r) => r.length))}; total ${secs(Date.now() - t0)}`,
        );
      } finally {
        if (servicesDown) await tb.startServices(['keystone', 'nova-api']).catch(() => undefined);
        await ctl.stop();
        await Promise.all(guests.map((g) => g.stop()));
        await Promise.all(worlds.map((w) => w.close()));
      }
    },
  );

  it(
    "the out-of-service taint appears only after Nova's record of the HARD reboot",
    { timeout: 600_000 },
    async () => {
      const w = await buildTestbedWorld(cp.kubeConfig, tb, 'fence-hard', {
        steps: [{ type: 'HardReboot', timeoutSeconds: 120, retries: 0 }],
        drain: { enabled: true, timeoutSeconds: 20, outOfServiceTaint: true },
        minHealthySeconds: 3,
      });
      // The guest's boot takes 20 s after Nova finished: the node stays NotReady long enough
      // for the controller to ask Nova (the taint is only ever added to a node not Ready).
      const guest = await FakeKubeletFollowsNova.start(tb, w.serverId, w.kubelet, {
        bootMs: 20_000,
      });
      const taint = watchTaint(w.client, w.nodeName);
      const ctl = startRecordedController(cp.kubeConfig, w.ns);
      let paused = false;
      try {
        await runningPodOn(w, 'app-0');
        w.kubelet.stopHeartbeats();
        await until(
          'Ready=Unknown from the node lifecycle controller',
          async () => (await ready(w)) === 'Unknown',
          90_000,
        );
        // nova-compute frozen: Nova accepts the HARD reboot but cannot perform it.
        await tb.pauseCompute();
        paused = true;
        await w.createRemediation();
        const waiting = await until(
          'HARD reboot accepted (phase Waiting)',
          async () => {
            const o = await w.osr();
            return o?.status?.phase === 'Waiting' ? o : undefined;
          },
          180_000,
        );
        // At most one answered POST (a reply lost to the client's timeout is found in Nova's
        // records, not resent); Nova's records below are the proof of what was sent.
        expect(ctl.reboots.filter((r) => r.status === 202).length).toBeLessThanOrEqual(1);
        // Three fence checks' worth (the controller looks again every 5 s while Waiting).
        await sleep(15_000);
        const [pending] = (await tb.novaActions(w.serverId)).filter((a) => a.action === 'reboot');
        const pendingEvents = await tb.novaActionEvents(w.serverId, pending?.requestId ?? '');
        // Nova has not finished it (compute frozen), and the node carries no taint.
        expect(
          pendingEvents.find((e) => e.event === 'compute_reboot_instance')?.result ?? null,
        ).toBe(null);
        expect(taint.seen.firstAt).toBeUndefined();
        expect(cond(await w.osr(), 'Fenced')).toBeUndefined();
        expect(cond(waiting, 'Drained')?.message ?? '').not.toContain('out-of-service');

        const resumedAt = Date.now();
        await tb.resumeCompute();
        paused = false;
        const fenced = await until(
          'Fenced=True',
          async () => {
            const o = await w.osr();
            return cond(o, 'Fenced')?.status === 'True' ? o : undefined;
          },
          120_000,
        );
        await until('the taint seen by the watch', async () => taint.seen.firstAt, 30_000);
        const taintAt = taint.seen.firstAt as number;

        const actions = await tb.novaActions(w.serverId);
        expect(actions.map((a) => a.action)).toEqual(['create', 'reboot']);
        const reboot = actions[1];
        const answered = ctl.reboots.filter((r) => r.status === 202);
        for (const r of answered)
          expect([r.type, r.requestId]).toEqual(['HARD', reboot?.requestId]);
        const ev = (await tb.novaActionEvents(w.serverId, reboot?.requestId ?? '')).find(
          (e) => e.event === 'compute_reboot_instance',
        );
        expect(ev?.result).toBe('Success');
        // Sent no later than Nova's answer arrived (or Nova's own start_time without one).
        const sentAt = answered[0]?.answeredAt ?? novaTime(reboot?.startTime ?? '');
        const startedAt = novaTime(reboot?.startTime ?? '');
        const finishedAt = novaTime(ev?.finishTime ?? '');
        // The order: reboot sent and recorded, compute resumed, Nova finished, then the taint.
        // Nova's seconds are truncated: its finish lies in [finishedAt, finishedAt + 1 s).
        expect(taintAt).toBeGreaterThan(sentAt);
        expect(taintAt).toBeGreaterThanOrEqual(startedAt);
        expect(taintAt).toBeGreaterThan(resumedAt);
        expect(finishedAt).toBeGreaterThanOrEqual(second(resumedAt));
        expect(taintAt).toBeGreaterThanOrEqual(finishedAt);
        expect(cond(fenced, 'Fenced')).toMatchObject({ status: 'True', reason: 'ResetObserved' });

        const done = await until(
          'phase Succeeded',
          async () => {
            const o = await w.osr();
            return o?.status?.phase === 'Succeeded' ? o : undefined;
          },
          180_000,
        );
        expect(done.status?.history?.map((a) => [a.type, a.attempt, a.result])).toEqual([
          ['HardReboot', 1, 'Succeeded'],
        ]);
        const node = await w.node();
        expect(node.spec?.taints?.some((t) => t.key === OUT_OF_SERVICE) ?? false).toBe(false);
        expect(node.spec?.unschedulable).not.toBe(true);
        expect(
          (await tb.novaActions(w.serverId)).filter((a) => a.action === 'reboot'),
        ).toHaveLength(1);

        console.log(
          `fence e2e: HARD reboot answered ${new Date(sentAt).toISOString()}, Nova start_time ` +
            `${reboot?.startTime}, compute resumed ${new Date(resumedAt).toISOString()}, Nova ` +
            `finish_time ${ev?.finishTime}, taint first seen ${new Date(taintAt).toISOString()} ` +
            `(${secs(taintAt - resumedAt)} after the resume, ${taint.seen.changes} Node changes watched)`,
        );
      } finally {
        if (paused) await tb.resumeCompute().catch(() => undefined);
        await ctl.stop();
        await taint.stop();
        await guest.stop();
        await w.close();
      }
    },
  );
});
