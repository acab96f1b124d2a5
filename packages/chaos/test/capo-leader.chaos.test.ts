// Fault 2: two replicas with Lease leader election; the leader SIGKILLed, or partitioned
// (SIGSTOP for longer than the lease), right after Nova accepted its reboot and before it saw
// the reply. The other replica must take over and finish the remediation; no two replicas
// ever act on it (Nova's records: one reboot; status.history: one attempt; logs: the follower
// sent nothing to Nova while the leader was alive and leading).
import { LeaseResource, type KubeLease } from '@noderepair/core/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapoCluster, SYSTEM_NAMESPACE, type CapoWorld } from '../src/capo-world.js';
import type { ControllerProcess } from '../src/controller-process.js';
import { scanForSecrets } from '../src/secret-scan.js';
import { sleep, until } from '../src/wait.js';
import { chaosDir, NOT_MEASURED, record } from './support/chaos-file.js';

const SPEC = {
  steps: [{ type: 'SoftReboot', timeoutSeconds: 60, retries: 0 }],
  drain: { enabled: true, timeoutSeconds: 60 },
  minHealthySeconds: 1,
};

/** Lines where a process says it acted on Nova (the reconciler's "server action" record). */
const acted = (p: ControllerProcess) => p.lines.filter((l) => l.includes('"server action"'));

describe('two replicas: the leader killed or partitioned mid-remediation', () => {
  let cluster: CapoCluster;
  const all: ControllerProcess[] = [];

  beforeAll(async () => {
    cluster = await CapoCluster.start(chaosDir(), 'capo-leader');
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  async function holder(leaseId: string): Promise<string | undefined> {
    const l = await cluster.admin
      .get<KubeLease>(LeaseResource, leaseId, { namespace: SYSTEM_NAMESPACE })
      .catch(() => undefined);
    // The holder identity is POD_NAME + '_' + a random UUID (core's defaultLeaderIdentity):
    // the Pod that holds it is the part before the suffix.
    return l?.spec?.holderIdentity?.replace(/_[0-9a-f-]{36}$/, '') ?? undefined;
  }

  async function replicas(ns: string, leaseId: string) {
    const a = await cluster.startController({ identity: `${leaseId}-a`, leaseId, namespace: ns });
    const b = await cluster.startController({ identity: `${leaseId}-b`, leaseId, namespace: ns });
    all.push(a, b);
    // The leader is the replica that says so (the Lease is checked too, below).
    const leads = (p: ControllerProcess) => p.lines.some((l) => l.includes('"became leader"'));
    const first = await until('a leader', () => (leads(a) ? a : leads(b) ? b : undefined));
    const leaderId = first.opts.name;
    expect(await holder(leaseId)).toBe(leaderId);
    await until('both replicas healthy', async () =>
      (await a.healthy()) && (await b.healthy()) ? true : undefined,
    );
    const leader = leaderId === `${leaseId}-a` ? a : b;
    const follower = leader === a ? b : a;
    return { leader, follower };
  }

  async function finish(w: CapoWorld, variant: string, ps: ControllerProcess[], extra: () => void) {
    const done = await until(
      'phase Succeeded',
      async () => {
        const o = await w.osr();
        return o?.status?.phase === 'Succeeded' ? o : undefined;
      },
      180_000,
    );
    const history = done.status?.history ?? [];
    const reboots = w.rebootCount();
    const double = Math.max(0, reboots - history.length);
    const crashes = ps.filter((p) => p.crashed).length;
    record({
      fault: 'leader failover (2 replicas)',
      variant,
      injected: 1,
      survived: reboots === 1 && history.length === 1 ? 1 : 0,
      doubleReboots: double,
      crashes,
      fuzzInputs: 0,
    });
    expect(reboots).toBe(1);
    expect(double).toBe(0);
    expect(history.map((a) => [a.step, a.attempt, a.result])).toEqual([[0, 1, 'Succeeded']]);
    expect(crashes).toBe(0);
    extra();
  }

  it('leader SIGKILLed after Nova accepted the reboot: the follower finishes it, once', async () => {
    const ns = 'leader-kill';
    const w = await cluster.world(ns, SPEC);
    const { leader, follower } = await replicas(ns, 'capo-leader-kill');
    const held = w.nova.hold((r) => w.isAction(r.path, r.method), 'after');
    await w.breakNode();
    await w.createRemediation();
    const h = await held;
    expect(acted(follower)).toEqual([]);
    await leader.kill();
    h.drop();
    await until('the follower to lead', () =>
      follower.lines.some((l) => l.includes('"became leader"')),
    );
    await finish(w, 'leader SIGKILL after the reboot call', [leader, follower], () => {
      expect(acted(follower).length).toBeGreaterThanOrEqual(1);
      // It replayed the leader's intent (same action id), which Nova's record made a no-op.
      expect(acted(follower).every((l) => l.includes('"replay":true'))).toBe(true);
    });
    await follower.stop();
  });

  it('leader partitioned (SIGSTOP longer than the lease): the follower finishes; the old leader does nothing when it wakes', async () => {
    const ns = 'leader-stop';
    const w = await cluster.world(ns, SPEC);
    const { leader, follower } = await replicas(ns, 'capo-leader-stop');
    const held = w.nova.hold((r) => w.isAction(r.path, r.method), 'after');
    await w.breakNode();
    await w.createRemediation();
    const h = await held;
    leader.signal('SIGSTOP');
    const stoppedLines = leader.lines.length;
    await until('the follower to take the Lease from the frozen leader', () =>
      follower.lines.some((l) => l.includes('"became leader"')),
    );
    expect(await holder('capo-leader-stop')).toBe(follower.opts.name);
    // The reply reaches the frozen process's socket; it reads it only when it wakes.
    h.release();
    await finish(w, 'leader SIGSTOP > lease after the reboot call', [leader, follower], () => {
      expect(leader.lines.length).toBe(stoppedLines);
    });
    const before = await w.osr();
    leader.signal('SIGCONT');
    // The woken leader finds its Lease gone and stops (controller-runtime's behaviour), or at
    // least changes nothing. Either way: give it time to act wrongly.
    await Promise.race([leader.exited, sleep(20_000)]);
    const after = await w.osr();
    expect(w.rebootCount()).toBe(1);
    expect(after?.status?.phase).toBe('Succeeded');
    expect(after?.status?.history).toEqual(before?.status?.history);
    if (!leader.running) {
      expect(leader.lines.join('\n')).toMatch(/leadership lost|leader election lost/);
    }
    record({
      fault: 'leader failover (2 replicas)',
      variant: 'old leader woken after SIGSTOP',
      injected: 1,
      survived: w.rebootCount() === 1 && after?.status?.phase === 'Succeeded' ? 1 : 0,
      doubleReboots: Math.max(0, w.rebootCount() - 1),
      // Exiting on a lost Lease is the designed behaviour (the Deployment restarts it).
      crashes: 0,
      fuzzInputs: 0,
    });
    await leader.stop();
    await follower.stop();
  });

  it('leader loss mid-action (its API server connection frozen while its Nova call is in flight): the call is aborted before the follower leads; no overlap', async () => {
    const ns = 'leader-freeze';
    const leaseId = 'capo-leader-freeze';
    const w = await cluster.world(ns, SPEC);
    // The leader talks to the kube-apiserver through the GateProxy (frozen below); it is
    // started first and alone so it is the one that leads.
    const leader = await cluster.startController({
      identity: `${leaseId}-a`,
      leaseId,
      namespace: ns,
      viaProxy: true,
    });
    all.push(leader);
    await until('a leader', () => leader.lines.some((l) => l.includes('"became leader"')));
    const follower = await cluster.startController({
      identity: `${leaseId}-b`,
      leaseId,
      namespace: ns,
    });
    all.push(follower);
    await until('the follower healthy', async () =>
      (await follower.healthy()) ? true : undefined,
    );
    // The reboot request hangs in the Nova proxy: in flight, Nova never saw it.
    const held = w.nova.hold((r) => w.isAction(r.path, r.method), 'before');
    await w.breakNode();
    await w.createRemediation();
    const h = await held;
    cluster.kubeProxy.freeze();
    const frozenAt = Date.now();
    const aborted = await Promise.race([h.callerClosed, sleep(60_000).then(() => undefined)]);
    await until(
      'the follower to lead',
      () => follower.lines.some((l) => l.includes('"became leader"')),
      120_000,
    );
    const ledAt = Date.now();
    const becameLeader = follower.lines.find((l) => l.includes('"became leader"')) ?? '{}';
    // `time` is ISO 8601 (epoch ms before issue 47).
    const ledTime = (JSON.parse(becameLeader) as { time?: number | string }).time;
    const followerLedAt =
      typeof ledTime === 'string' ? Date.parse(ledTime) : (ledTime ?? ledAt);
    // Never forwarded: Nova did not act for the old leader.
    h.drop();
    // The follower replays the old leader's intent (same action id, recorded in Nova's
    // metadata before the call that was cut): at most once, never twice.
    await until('the follower acts on the remediation', () =>
      acted(follower).length >= 1 ? true : undefined,
    );
    const noOverlap = aborted !== undefined && aborted < followerLedAt;
    record({
      fault: 'leader loss mid-action: no overlap',
      variant: 'API server connection frozen while the Nova call is in flight',
      injected: 1,
      survived: noOverlap && w.rebootCount() <= 1 ? 1 : 0,
      doubleReboots: Math.max(0, w.rebootCount() - 1),
      // Exiting on a lost Lease is the designed behaviour (the Deployment restarts it).
      crashes: 0,
      fuzzInputs: 0,
    });
    expect(aborted, 'the old leader never aborted its in-flight Nova call').toBeDefined();
    expect(aborted!).toBeGreaterThan(frozenAt);
    expect(aborted!).toBeLessThan(followerLedAt);
    expect(w.rebootCount()).toBeLessThanOrEqual(1);
    expect(acted(follower).every((l) => l.includes('"replay":true'))).toBe(true);
    await leader.stop();
    await follower.stop();
  });

  it('no credential in any log line or event of these runs', async () => {
    for (const w of cluster.worlds) for (const t of w.tokens()) cluster.secrets.add(t);
    const r = scanForSecrets(
      all.flatMap((p) => p.lines),
      await cluster.events(),
      cluster.secrets,
    );
    record({
      fault: 'secret scan (logs + events)',
      variant: 'leader failover runs',
      injected: r.linesScanned + r.eventsScanned,
      survived: r.leaks.length === 0 ? r.linesScanned + r.eventsScanned : 0,
      // A scan of logs and events: no provider to ask.
      doubleReboots: NOT_MEASURED,
      crashes: 0,
      fuzzInputs: 0,
    });
    expect(r.linesScanned).toBeGreaterThan(50);
    expect(r.leaks).toEqual([]);
  });
});
