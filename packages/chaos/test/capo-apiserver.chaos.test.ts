// Fault 3: the kube-apiserver restarted, and frozen (SIGSTOP) for longer than the lease, at
// steps of a remediation; and etcd compacted with the controller's watches cut, so they come
// back with a resourceVersion that is gone (410) and must relist.
//
// The controller (one replica, leader election on, as the Deployment) is pinned at a step by
// holding its Nova request in the GateProxy; the apiserver fault happens; the request is let
// go. A Supervisor restarts the process when it exits by itself (it must, after a lost Lease).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapoCluster, type CapoWorld } from '../src/capo-world.js';
import { Supervisor } from '../src/supervisor.js';
import { scanForSecrets } from '../src/secret-scan.js';
import { sleep, until } from '../src/wait.js';
import { chaosDir, NOT_MEASURED, record } from './support/chaos-file.js';

const SPEC = {
  steps: [
    { type: 'SoftReboot', timeoutSeconds: 60, retries: 1 },
    { type: 'HardReboot', timeoutSeconds: 60 },
  ],
  drain: { enabled: true, timeoutSeconds: 60 },
  minHealthySeconds: 1,
};

/** Longer than the Lease (15 s) and its renew deadline (10 s). */
const PAUSE_MS = 20_000;

type Fault = 'restart' | 'pause';
type Step = 'before the reboot call' | 'after the reboot call' | 'waiting for the node';
const STEPS: Step[] = ['before the reboot call', 'after the reboot call', 'waiting for the node'];
describe('kube-apiserver restarted or frozen mid-remediation; etcd compaction', () => {
  let cluster: CapoCluster;
  const supervisors: Supervisor[] = [];

  beforeAll(async () => {
    // Without the watch cache, watches are served by etcd itself, so a watch resumed from a
    // compacted revision gets the real 410 Gone (the watch cache would otherwise answer from
    // its own window of recent events and hide the compaction).
    cluster = await CapoCluster.start(chaosDir(), 'capo-apiserver', {
      apiServerExtraArgs: ['--watch-cache=false'],
    });
  });
  afterAll(async () => {
    for (const s of supervisors) await s.stop();
    await cluster?.stop();
  });

  function supervise(ns: string, viaProxy = false): Supervisor {
    const s = new Supervisor(() =>
      cluster.startController({
        identity: `capo-${ns}`,
        leaseId: `capo-${ns}`,
        namespace: ns,
        viaProxy,
      }),
    );
    supervisors.push(s);
    return s;
  }

  async function succeeded(w: CapoWorld) {
    return until(
      'phase Succeeded',
      async () => {
        const o = await w.osr();
        return o?.status?.phase === 'Succeeded' ? o : undefined;
      },
      180_000,
    );
  }

  // One fault hits three remediations at once, each pinned at a different step (each world
  // has its own controller process, watching only its namespace).
  (['restart', 'pause'] as Fault[]).forEach((fault) => {
    it(`apiserver ${fault === 'restart' ? 'restarted' : `frozen ${PAUSE_MS / 1000}s`} at three steps`, async () => {
      const runs = await Promise.all(
        STEPS.map(async (step, i) => {
          const ns = `apiserver-${fault}-${i}`;
          const w = await cluster.world(ns, SPEC);
          const s = supervise(ns);
          const held =
            step === 'waiting for the node'
              ? undefined
              : w.nova.hold(
                  (r) => w.isAction(r.path, r.method),
                  step === 'before the reboot call' ? 'before' : 'after',
                );
          if (step === 'waiting for the node') w.fake.pauseCompute();
          await until(
            'the controller healthy',
            async () => (await s.current?.healthy()) || undefined,
          );
          await w.breakNode();
          await w.createRemediation();
          const h = held ? await held : undefined;
          if (!h) await until('phase Waiting', async () => (await w.phase()) === 'Waiting');
          return { step, w, s, h };
        }),
      );

      if (fault === 'restart') await cluster.cp.restartApiServer();
      else {
        cluster.cp.pauseApiServer();
        await sleep(PAUSE_MS);
        cluster.cp.resumeApiServer();
      }
      for (const r of runs) {
        r.h?.release();
        if (r.step === 'waiting for the node') r.w.fake.resumeCompute();
      }

      for (const { step, w, s } of runs) {
        const done = await succeeded(w);
        const history = done.status?.history ?? [];
        const reboots = w.rebootCount();
        record({
          fault: `kube-apiserver ${fault === 'restart' ? 'restart' : 'SIGSTOP > lease'}`,
          variant: step,
          injected: 1,
          survived: reboots === 1 && history.length === 1 ? 1 : 0,
          doubleReboots: Math.max(0, reboots - history.length),
          crashes: s.crashes,
          fuzzInputs: 0,
        });
        expect(reboots, step).toBe(1);
        expect(
          history.map((a) => [a.step, a.attempt, a.result]),
          step,
        ).toEqual([[0, 1, 'Succeeded']]);
        expect(s.crashes, step).toBe(0);
        // Frozen longer than the Lease, a process either stopped itself on the lost Lease
        // (and was restarted) or had not noticed before the apiserver came back; nothing else.
        expect(s.restarts, step).toBe(s.leadershipExits);
      }
      for (const { s } of runs) await s.stop();
    });
  });

  it('etcd compacted and watches cut while waiting: informers come back and the remediation finishes', async () => {
    const ns = 'compaction';
    const w = await cluster.world(ns, SPEC);
    const s = supervise(ns, true);
    w.fake.pauseCompute();
    await until('the controller healthy', async () => (await s.current?.healthy()) || undefined);
    await w.breakNode();
    await w.createRemediation();
    await until('phase Waiting', async () => (await w.phase()) === 'Waiting');
    // Writes after the controller's last event, then compaction past them.
    await sleep(2_000);
    const revision = await cluster.cp.compactEtcd();
    expect(revision).toBeGreaterThan(0);
    cluster.kubeProxy.cutConnections();
    // The informers see their watches break and resume from their last resourceVersion. The
    // remediations' informer saw nothing since the remediation went Waiting, so its revision
    // is below the compaction: the apiserver answers 410 Gone, and the reflector relists.
    const gone = await until('a 410 Gone on a resumed watch, and the relist it forces', () =>
      s.current?.lines.find((l) => /resourceVersion too old; relisting/.test(l)),
    );
    expect(gone).toContain('openstackremediations');
    w.fake.resumeCompute();
    const done = await succeeded(w);
    const reboots = w.rebootCount();
    record({
      fault: 'etcd compaction + watches cut',
      variant: 'while waiting for the node: 410 Gone on the resumed watch, relisted',
      injected: 1,
      survived: reboots === 1 && (done.status?.history ?? []).length === 1 ? 1 : 0,
      doubleReboots: Math.max(0, reboots - 1),
      crashes: s.crashes,
      fuzzInputs: 0,
    });
    expect(reboots).toBe(1);
    expect(s.crashes).toBe(0);
    await s.stop();
  });

  it('no credential in any log line or event of these runs', async () => {
    for (const w of cluster.worlds) for (const t of w.tokens()) cluster.secrets.add(t);
    const lines = supervisors.flatMap((s) => s.history.flatMap((p) => p.lines));
    const r = scanForSecrets(lines, await cluster.events(), cluster.secrets);
    record({
      fault: 'secret scan (logs + events)',
      variant: 'apiserver fault runs',
      injected: r.linesScanned + r.eventsScanned,
      survived: r.leaks.length === 0 ? r.linesScanned + r.eventsScanned : 0,
      // A scan of logs and events: no provider to ask.
      doubleReboots: NOT_MEASURED,
      crashes: 0,
      fuzzInputs: 0,
    });
    expect(r.linesScanned).toBeGreaterThan(10);
    expect(r.leaks).toEqual([]);
  });
});
