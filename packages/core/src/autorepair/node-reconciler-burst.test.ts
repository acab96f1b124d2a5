// Burst admission in the NodeReconciler (burst.ts): many nodes due at once are admitted in
// one storm pass by the reconcile holding the lock, persisted and announced there, and
// handed over to their own reconciles, which run the actions once, as a first send.
import { describe, expect, it } from 'vitest';
import { providerUnavailableWaitMs } from '../health/drain-phase.js';
import { setup, STATE } from './node-reconciler.test-support.js';

const policyDoc = {
  stormGuard: { maxUnhealthy: '100%', maxInFlight: 3 },
  drain: { enabled: false },
};

/** `n` NotReady nodes (uids for their disruption leases) and one Ready node. */
function burst(n: number) {
  const woken: string[] = [];
  const s = setup(policyDoc, { wake: (name) => woken.push(name) });
  const names = Array.from({ length: n }, (_, i) => `n${i + 1}`);
  for (const name of [...names, 'ok']) {
    s.addNode(name, name === 'ok' ? 'ready' : 'unknown', 'a');
    const node = s.api.nodes.get(name)!;
    s.api.put({ ...node, metadata: { ...node.metadata, uid: `uid-${name}` } });
  }
  return { ...s, names, woken };
}

async function counter(s: ReturnType<typeof burst>, metric: string): Promise<number> {
  const m = await s.registry.getSingleMetric(metric)?.get();
  return (m?.values ?? []).reduce((a, v) => a + v.value, 0);
}

const reasons = (s: ReturnType<typeof burst>, node: string) =>
  s.events.filter((e) => e.node === node).map((e) => e.ev.reason);

describe('NodeReconciler burst admission', () => {
  it('admits maxInFlight of a burst in one pass; each member acts once, as a first send, and is announced once', async () => {
    const s = burst(6);
    // The first reconcile admits itself and the next two (by unhealthySince, then name).
    await s.reconciler.reconcile({ name: 'n1' }, s.ctx);
    expect(s.woken).toEqual(['n2', 'n3']);
    expect(s.stateOf('n2')?.phase).toBe('Remediating');
    expect(s.stateOf('n3')?.remediation?.intent?.completedAt).toBeUndefined();
    // Announced by the batch, before their own reconciles ran; nothing sent for them yet.
    expect(reasons(s, 'n2')).toEqual(['RepairStarted']);
    expect(s.calls.map((c) => c.req.node)).toEqual(['n1']);

    // Their reconciles (woken) run the handed-over actions; the rest are held.
    for (const name of s.names.slice(1)) await s.reconciler.reconcile({ name }, s.ctx);
    // Again later: nothing is sent twice.
    for (const name of s.names) await s.reconciler.reconcile({ name }, s.ctx);

    const sent = s.calls.map((c) => c.req);
    expect(sent.map((r) => r.node).sort()).toEqual(['n1', 'n2', 'n3']);
    expect(sent.every((r) => !r.replay)).toBe(true);
    expect(new Set(sent.map((r) => r.actionId)).size).toBe(3);
    // Each admitted node's events are the one-at-a-time path's (the single-node test's).
    for (const name of ['n1', 'n2', 'n3'])
      expect(reasons(s, name)).toEqual(['RepairStarted', 'Cordoned', 'ActionAccepted']);
    for (const name of ['n4', 'n5', 'n6']) {
      expect(reasons(s, name)).not.toContain('RepairStarted');
      expect(s.stateOf(name)?.phase).not.toBe('Remediating');
    }
    expect(await counter(s, 'noderepair_remediations_started_total')).toBe(3);
    expect(await counter(s, 'noderepair_remediations_succeeded_total')).toBe(0);
  });

  it('records the same events and metrics, node by node, as one-at-a-time admission', async () => {
    const run = async (oneAtATime: boolean) => {
      const s = burst(6);
      if (oneAtATime) {
        // The path before burst admission: no candidates, each node admitted by its own reconcile.
        const b = s.reconciler['burst'];
        b.freshCandidates = async (_self, others) => ({ others: [...others], fresh: new Map() });
      }
      for (let round = 0; round < 2; round++)
        for (const name of s.names) await s.reconciler.reconcile({ name }, s.ctx);
      const byNode = Object.fromEntries(
        s.names.map((n) => [n, s.events.filter((e) => e.node === n).map((e) => e.ev)]),
      );
      const metrics = (await s.registry.getMetricsAsJSON()).map((m) => [m.name, m.values]);
      return { byNode, metrics, sent: s.calls.map((c) => c.req), woken: s.woken };
    };
    const burstRun = await run(false);
    const oneRun = await run(true);
    expect(burstRun.woken).toEqual(['n2', 'n3']);
    expect(oneRun.woken).toEqual([]);
    expect(burstRun.byNode).toEqual(oneRun.byNode);
    expect(burstRun.metrics).toEqual(oneRun.metrics);
    expect(burstRun.sent.map((r) => [r.node, r.actionId, r.replay]).sort()).toEqual(
      oneRun.sent.map((r) => [r.node, r.actionId, r.replay]).sort(),
    );
  });

  it('decides the burst on fresh reads: a node the cache still shows NotReady but that is Ready now is not started', async () => {
    const s = burst(3);
    const stale = s.cache.get('n2')!;
    s.addNode('n2', 'ready', 'a');
    s.cache.set('n2', stale);
    await s.reconciler.reconcile({ name: 'n1' }, s.ctx);
    expect(s.woken).toEqual(['n3']);
    expect(s.stateOf('n2')?.phase).not.toBe('Remediating');
    expect(reasons(s, 'n2')).toEqual([]);
  });

  it('a member whose state changed since the batch decides again instead of using the stash', async () => {
    const s = burst(3);
    await s.reconciler.reconcile({ name: 'n1' }, s.ctx);
    expect(s.woken).toEqual(['n2', 'n3']);
    // n2 recovered and someone reset its state before its reconcile ran.
    const n2 = s.api.nodes.get('n2')!;
    const { [STATE]: _dropped, ...rest } = n2.metadata!.annotations!;
    s.api.put({ ...n2, metadata: { ...n2.metadata, annotations: rest } });
    s.addNode('n2', 'ready', 'a');
    await s.reconciler.reconcile({ name: 'n2' }, s.ctx);
    await s.reconciler.reconcile({ name: 'n3' }, s.ctx);
    expect(s.calls.map((c) => c.req.node).sort()).toEqual(['n1', 'n3']);
  });

  it('a conflict on one member drops only that member; its own reconcile starts it once', async () => {
    const s = burst(3);
    s.api.conflictOn.add('n3');
    await s.reconciler.reconcile({ name: 'n1' }, s.ctx);
    expect(s.woken).toEqual(['n2']);
    expect(s.stateOf('n3')).toBeUndefined();
    expect(s.api.leases.has('node-n3')).toBe(false);
    expect(reasons(s, 'n3')).toEqual([]);
    expect(s.stateOf('n2')?.phase).toBe('Remediating');
    for (const name of ['n2', 'n3']) await s.reconciler.reconcile({ name }, s.ctx);
    const sent = s.calls.map((c) => c.req);
    expect(sent.map((r) => r.node).sort()).toEqual(['n1', 'n2', 'n3']);
    expect(sent.every((r) => !r.replay)).toBe(true);
    expect(reasons(s, 'n3').filter((r) => r === 'RepairStarted')).toHaveLength(1);
  });

  it('a crash after the batch persisted: a new process replays the member (same id, provider asked first)', async () => {
    const s = burst(2);
    await s.reconciler.reconcile({ name: 'n1' }, s.ctx);
    expect(s.woken).toEqual(['n2']);
    const intent = s.stateOf('n2')?.remediation?.intent;
    expect(intent?.completedAt).toBeUndefined();
    const restarted = s.restart();
    // An intent without completion is sent again once the backoff from its issue is over
    // (it may have gone out and met an outage).
    s.clock.now += providerUnavailableWaitMs(0);
    await restarted.reconcile({ name: 'n2' }, s.ctx);
    const n2 = s.calls.filter((c) => c.req.node === 'n2').map((c) => c.req);
    expect(n2).toHaveLength(1);
    expect(n2[0]).toMatchObject({ actionId: intent?.actionId, replay: true });
  });

  it('a lost lease with handovers pending: no member acts in the old term; the new term replays each once', async () => {
    const s = burst(3);
    const term1 = new AbortController();
    await s.reconciler.reconcile({ name: 'n1' }, { ...s.ctx, signal: term1.signal });
    expect(s.woken).toEqual(['n2', 'n3']);
    // The leader lease is lost before the woken members' reconciles ran.
    term1.abort(new Error('leader lease lost'));
    // A reconcile the queue had already started in the old term sends nothing.
    await s.reconciler
      .reconcile({ name: 'n2' }, { ...s.ctx, signal: term1.signal })
      .catch(() => undefined);
    expect(s.calls.map((c) => c.req.node)).toEqual(['n1']);
    // The next term (the same process won the lease again) finds no handover: the
    // persisted intents take the Replay path, which asks the provider first, once each.
    const term2 = { ...s.ctx, signal: new AbortController().signal };
    s.clock.now += providerUnavailableWaitMs(0);
    for (const name of ['n2', 'n3', 'n2', 'n3']) await s.reconciler.reconcile({ name }, term2);
    const members = s.calls.map((c) => c.req).filter((r) => r.node !== 'n1');
    expect(members.map((r) => [r.node, r.replay]).sort()).toEqual([
      ['n2', true],
      ['n3', true],
    ]);
    for (const name of ['n2', 'n3'])
      expect(members.find((r) => r.node === name)?.actionId).toBe(
        s.stateOf(name)?.remediation?.intent?.actionId,
      );
  });

  it('a batch in a term that is already over admits nobody', async () => {
    const s = burst(3);
    const over = new AbortController();
    over.abort(new Error('leader lease lost'));
    await s.reconciler
      .reconcile({ name: 'n1' }, { ...s.ctx, signal: over.signal })
      .catch(() => undefined);
    expect(s.woken).toEqual([]);
    for (const name of ['n2', 'n3']) expect(s.stateOf(name)).toBeUndefined();
    expect(s.calls).toEqual([]);
  });
});
