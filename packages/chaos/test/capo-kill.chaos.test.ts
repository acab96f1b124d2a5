// Fault 1: the capo-remediation controller SIGKILLed at every step of a remediation.
//
// Each kill point is a request the controller sends (to the kube-apiserver or to Nova) that a
// GateProxy holds: "after" = the effect happened but the controller has not seen the reply;
// "before" = it never arrived. While it is held the process is SIGKILLed, the request dropped,
// and a new process (same pod name, as a restarted container) started. It must finish the
// remediation with exactly one reboot accepted by Nova (the FakeOpenStack's own records) and
// one attempt in status.history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapoCluster, type CapoWorld } from '../src/capo-world.js';
import type { ControllerProcess } from '../src/controller-process.js';
import type { GateProxy, HeldRequest, SeenRequest } from '../src/gate-proxy.js';
import { scanForSecrets } from '../src/secret-scan.js';
import { until } from '../src/wait.js';
import { chaosDir, NOT_MEASURED, record } from './support/chaos-file.js';

const SPEC = {
  steps: [
    { type: 'SoftReboot', timeoutSeconds: 30, retries: 1 },
    { type: 'HardReboot', timeoutSeconds: 30 },
  ],
  drain: { enabled: true, timeoutSeconds: 120 },
  minHealthySeconds: 1,
};

function statusPatch(ns: string, r: SeenRequest, has: string[], hasNot: string[] = []): boolean {
  return (
    r.method === 'PATCH' &&
    r.path.includes(`/namespaces/${ns}/openstackremediations/`) &&
    r.path.split('?')[0]!.endsWith('/status') &&
    has.every((s) => r.body.includes(s)) &&
    hasNot.every((s) => !r.body.includes(s))
  );
}

interface KillPoint {
  readonly name: string;
  /** A pod the drain must wait for. */
  readonly stuckPod?: boolean;
  /** Nova stops completing actions until the new process runs (a kill "while waiting"). */
  readonly pauseCompute?: boolean;
  /** Arms the hold; resolves with the held request. */
  readonly arm: (w: CapoWorld, kube: GateProxy) => Promise<HeldRequest> | undefined;
  /** Waits for the moment to kill when nothing is held. */
  readonly when?: (w: CapoWorld) => Promise<unknown>;
  /** The documented at-most-once window: the first attempt's reboot is lost, the retry reboots. */
  readonly lostAttempt?: boolean;
}

const KILL_POINTS: KillPoint[] = [
  {
    name: 'cordoned, before the drain',
    arm: (w, kube) =>
      kube.hold((r) => statusPatch(w.ns, r, ['"Cordoned"'], ['"Drained"']), 'after'),
  },
  {
    name: 'during the drain (pod evicted, not gone)',
    stuckPod: true,
    arm: (w, kube) =>
      kube.hold(
        (r) => r.method === 'POST' && r.path.includes(`/namespaces/${w.ns}/pods/stuck/eviction`),
        'after',
      ),
  },
  {
    name: 'drained, before the intent',
    arm: (w, kube) =>
      kube.hold((r) => statusPatch(w.ns, r, ['"Drained"'], ['"InProgress"']), 'after'),
  },
  {
    name: 'intent persisted, before Nova',
    arm: (w, kube) =>
      kube.hold((r) => statusPatch(w.ns, r, ['"InProgress"', '"Remediating"']), 'after'),
  },
  {
    // Issue 21 row "leader stopped between record and action": there is no separate record
    // any more (Nova's os-instance-actions is the record), so the successor's replay asks
    // Nova, finds nothing and reboots once; the old at-most-once window is gone.
    name: 'intent persisted, reboot call held before Nova',
    arm: (w) => w.nova.hold((r) => w.isAction(r.path, r.method), 'before'),
  },
  {
    name: 'after the reboot call (reply lost)',
    arm: (w) => w.nova.hold((r) => w.isAction(r.path, r.method), 'after'),
  },
  {
    name: 'completion persisted (Waiting)',
    arm: (w, kube) => kube.hold((r) => statusPatch(w.ns, r, ['"phase":"Waiting"']), 'after'),
  },
  {
    name: 'while waiting for the node',
    pauseCompute: true,
    arm: () => undefined,
    when: (w) => until('phase Waiting', async () => (await w.phase()) === 'Waiting'),
  },
];

describe('capo-remediation controller SIGKILLed at every step', () => {
  let cluster: CapoCluster;
  const allProcesses: ControllerProcess[] = [];

  beforeAll(async () => {
    cluster = await CapoCluster.start(chaosDir(), 'capo-kill');
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  KILL_POINTS.forEach((kp, i) => {
    it.concurrent(`kill: ${kp.name}`, async () => {
      const ns = `kill-${i}`;
      const identity = `capo-kill-${i}`;
      const w = await cluster.world(ns, SPEC);
      if (kp.stuckPod) await w.addStuckPod();
      if (kp.pauseCompute) w.fake.pauseCompute();
      const held = kp.arm(w, cluster.kubeProxy);
      const first = await cluster.startController({
        identity,
        leaseId: `capo-kill-${i}`,
        namespace: ns,
        viaProxy: true,
      });
      allProcesses.push(first);
      await w.breakNode();
      await w.createRemediation();

      let h: HeldRequest | undefined;
      if (held) h = await held;
      if (kp.when) await kp.when(w);
      await first.kill();
      h?.drop();
      // (Holds are one-shot; the kube proxy is shared by the concurrent scenarios, so nothing
      // is cleared there. This world's Nova proxy is its own.)
      w.nova.clearHolds();
      const rebootsAtKill = w.rebootCount();
      if (kp.stuckPod) {
        expect(await w.podTerminating()).toBe(true);
        await w.releaseStuckPod();
      }

      const second = await cluster.startController({
        identity,
        leaseId: `capo-kill-${i}`,
        namespace: ns,
        viaProxy: true,
      });
      allProcesses.push(second);
      // Nova finishes the reboot only now: the node comes back to the new process.
      if (kp.pauseCompute) w.fake.resumeCompute();
      const done = await until(
        'phase Succeeded after the restart',
        async () => {
          const o = await w.osr();
          return o?.status?.phase === 'Succeeded' ? o : undefined;
        },
        kp.lostAttempt ? 180_000 : 120_000,
      );
      const history = done.status?.history ?? [];
      const reboots = w.rebootCount();
      const double = Math.max(0, reboots - history.length);
      const crashes = [first, second].filter((p) => p.crashed).length;
      record({
        fault: 'controller SIGKILL at a step',
        variant: kp.name,
        injected: 1,
        survived: reboots >= 1 && double === 0 ? 1 : 0,
        doubleReboots: double,
        crashes,
        fuzzInputs: 0,
      });
      expect(double).toBe(0);
      expect(crashes).toBe(0);
      if (kp.lostAttempt) {
        // The action id was recorded and the process died before the reboot: that attempt is
        // never repeated (at most once), it times out and the retry reboots once.
        expect(rebootsAtKill).toBe(0);
        expect(history.map((a) => [a.step, a.attempt, a.result])).toEqual([
          [0, 1, 'TimedOut'],
          [0, 2, 'Succeeded'],
        ]);
        expect(reboots).toBe(1);
      } else {
        expect(reboots).toBe(1);
        expect(history.map((a) => [a.step, a.attempt, a.result])).toEqual([[0, 1, 'Succeeded']]);
      }
      expect(w.nodeReboots).toBe(1);
      expect((await w.node()).spec?.unschedulable ?? false).toBe(false);
      await second.stop();
    });
  });

  it('no credential in any log line or event of these runs', async () => {
    const lines = allProcesses.flatMap((p) => p.lines);
    for (const w of cluster.worlds) for (const t of w.tokens()) cluster.secrets.add(t);
    const r = scanForSecrets(lines, await cluster.events(), cluster.secrets);
    record({
      fault: 'secret scan (logs + events)',
      variant: 'capo SIGKILL runs',
      injected: r.linesScanned + r.eventsScanned,
      survived: r.leaks.length === 0 ? r.linesScanned + r.eventsScanned : 0,
      // A scan of logs and events: no provider to ask.
      doubleReboots: NOT_MEASURED,
      crashes: 0,
      fuzzInputs: 0,
    });
    expect(r.linesScanned).toBeGreaterThan(100);
    expect(r.eventsScanned).toBeGreaterThan(0);
    expect(r.secrets).toBeGreaterThanOrEqual(4);
    expect(r.leaks).toEqual([]);
  });
});
