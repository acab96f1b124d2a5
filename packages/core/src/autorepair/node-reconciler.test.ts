// NodeReconciler against test doubles of its ports: an in-memory KubeClient holding Nodes
// (merge patches, resourceVersion preconditions, ConflictError) and a cache that mirrors it
// as the informer would. Time is fixed; the drain has no pods.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import type { KubeObject } from '../kube/object.js';
import type { KubeNode } from '../kube/types.js';
import { buildNode } from '../health/builders.js';
import { VirtualTimeScheduler } from 'rxjs';
import type { RepairDecision } from '../health/decide.js';
import { runRepairLoop } from '../health/runner.js';
import { parseRepairState } from '../health/state.js';
import { setup, STATE, t0 } from './node-reconciler.test-support.js';

const policyDoc = {
  stormGuard: {
    maxUnhealthy: '100%',
    maxInFlight: 5,
    failureDomainLabel: 'zone',
    maxUnhealthyPerDomain: 1,
  },
  drain: { enabled: false },
};

describe('NodeReconciler', () => {
  it('persists the intent before calling the provider, and the outcome after', async () => {
    const s = setup(policyDoc);
    s.addNode('b1', 'unknown', 'b');
    s.addNode('b2', 'ready', 'b');
    const r = await s.reconciler.reconcile({ name: 'b1' }, s.ctx);
    expect(r).toEqual({ requeueAfter: 1000 });
    expect(s.calls).toHaveLength(1);
    const atCall = parseRepairState(s.calls[0]!.annotationAtCall);
    expect(either.isRight(atCall) && atCall.right?.remediation?.intent).toMatchObject({
      actionId: s.calls[0]!.req.actionId,
      action: 'SoftReboot',
    });
    expect(
      either.isRight(atCall) && atCall.right?.remediation?.intent?.completedAt,
    ).toBeUndefined();
    expect(s.stateOf('b1')?.phase).toBe('Verifying');
    expect(s.stateOf('b1')?.remediation?.intent?.result).toBe('Succeeded');
    expect(s.api.nodes.get('b1')?.spec?.unschedulable).toBe(true);
    expect(s.events.map((e) => e.ev.reason)).toEqual([
      'RepairStarted',
      'Cordoned',
      'ActionAccepted',
    ]);
  });

  it('provider Unavailable: no attempt used, no deadline started; the same id is re-asked with replay=true after Retry-After', async () => {
    const s = setup(policyDoc);
    s.addNode('b1', 'unknown', 'b');
    s.answer.outcome = {
      kind: 'Unavailable',
      message: 'Nova 503',
      maybeSent: true,
      retryAfterMs: 7000,
    };
    const r1 = await s.reconciler.reconcile({ name: 'b1' }, s.ctx);
    expect(r1).toEqual({ requeueAfter: 7000 });
    const open = s.stateOf('b1')?.remediation;
    expect(s.stateOf('b1')?.phase).toBe('Remediating');
    expect(open?.attempt).toBe(1);
    expect(open?.intent?.completedAt).toBeUndefined();
    expect(s.events.at(-1)?.ev.reason).toBe('ProviderUnavailable');

    // Much later (past the step's 10 min timeout): still the same attempt, re-asked first.
    s.clock.now += 60 * 60_000;
    s.answer.outcome = { kind: 'Accepted', message: 'done' };
    await s.reconciler.reconcile({ name: 'b1' }, s.ctx);
    expect(s.calls.map((c) => [c.req.actionId, c.req.replay])).toEqual([
      [open?.intent?.actionId, false],
      [open?.intent?.actionId, true],
    ]);
    expect(s.calls[1]!.req.issuedAt).toBe(s.calls[0]!.req.issuedAt);
    const st = s.stateOf('b1');
    expect(st?.phase).toBe('Verifying');
    expect(st?.remediation?.attempt).toBe(1);
    expect(st?.remediation?.step).toBe(0);
    expect(st?.remediation?.intent?.result).toBe('Succeeded');
  });

  it("a provider's Retry-After is persisted on the intent: neither an early wake-up nor a restart asks before it, longer or shorter than the backoff", async () => {
    for (const retryAfterMs of [12_000, 2000]) {
      const s = setup(policyDoc);
      s.addNode('b1', 'unknown', 'b');
      s.answer.outcome = {
        kind: 'Unavailable',
        message: 'Nova 429',
        maybeSent: true,
        retryAfterMs,
      };
      const t1 = s.clock.now;
      expect(await s.reconciler.reconcile({ name: 'b1' }, s.ctx)).toEqual({
        requeueAfter: retryAfterMs,
      });
      expect(s.stateOf('b1')?.remediation?.intent?.retryAt).toBe(t1 + retryAfterMs);
      // Woken early (our own write, a heartbeat), then by a new process: nothing sent.
      s.clock.now = t1 + retryAfterMs - 1;
      await s.reconciler.reconcile({ name: 'b1' }, s.ctx);
      await s.restart().reconcile({ name: 'b1' }, s.ctx);
      expect(s.calls).toHaveLength(1);
      // Due: re-issued once; the next send is paced by its own answer (the backoff here).
      s.clock.now = t1 + retryAfterMs;
      s.answer.outcome = { kind: 'Unavailable', message: 'Nova 503', maybeSent: true };
      await s.reconciler.reconcile({ name: 'b1' }, s.ctx);
      expect(s.calls.map((c) => c.req.replay)).toEqual([false, true]);
      const intent = s.stateOf('b1')?.remediation?.intent;
      expect(intent?.retryAt).toBeUndefined();
      expect(intent).toMatchObject({ replays: 1, replayedAt: t1 + retryAfterMs });
    }
  });

  it('the storm guard holds repairs per failure domain; another zone is repaired', async () => {
    const s = setup(policyDoc);
    s.addNode('a1', 'unknown', 'a');
    s.addNode('a2', 'unknown', 'a');
    s.addNode('a3', 'ready', 'a');
    s.addNode('b1', 'unknown', 'b');
    s.addNode('b2', 'ready', 'b');
    for (const n of ['a1', 'a2', 'b1']) await s.reconciler.reconcile({ name: n }, s.ctx);
    expect(s.calls.map((c) => c.req.node)).toEqual(['b1']);
    for (const n of ['a1', 'a2']) {
      expect(s.stateOf(n)?.phase).toBe('Unhealthy');
      expect(s.api.nodes.get(n)?.spec?.unschedulable).toBe(false);
      const held = s.events.find((e) => e.node === n && e.ev.reason === 'StormGuardHeld');
      expect(held?.ev.note).toMatch(/2 of 3 nodes unhealthy in zone=a \(limit 1\)/);
    }
  });

  it('maxInFlight counts a start the informer does not show yet: the cache wait gave up, the second node waits', async () => {
    const s = setup({ ...policyDoc, stormGuard: { ...policyDoc.stormGuard, maxInFlight: 1 } });
    s.addNode('a1', 'unknown', 'a');
    s.addNode('b1', 'ready', 'b');
    // The informer lags: it never shows a1's writes (the cache wait gives up after 10 s on the
    // virtual clock), so its cached view is a node with no repair in flight.
    s.lagging.add('a1');
    await s.reconciler.reconcile({ name: 'a1' }, s.ctx);
    expect(s.calls.map((c) => c.req.node)).toEqual(['a1']);
    expect(s.cache.get('a1')?.metadata.annotations?.[STATE]).toBeUndefined();
    // b1 failed earlier than a1 (first in the admission order), so the pass has no reason to
    // read a1 fresh: only what this controller wrote tells it that a1's repair is in flight.
    s.api.put({
      apiVersion: 'v1',
      kind: 'Node',
      ...(buildNode({
        name: 'b1',
        ready: 'unknown',
        since: t0 - 60_000,
        labels: { zone: 'b' },
      }) as KubeNode),
    });
    await s.reconciler.reconcile({ name: 'b1' }, s.ctx);
    expect(s.calls.map((c) => c.req.node)).toEqual(['a1']);
    expect(s.stateOf('b1')?.phase).toBe('Unhealthy');
    const held = s.events.find((e) => e.node === 'b1' && e.ev.reason === 'StormGuardHeld');
    expect(held?.ev.note).toMatch(/1 repairs in flight \(maxInFlight 1\)/);
    // The cache catches up: it counts a1 itself, and b1 still waits.
    s.lagging.delete('a1');
    s.api.put(s.api.nodes.get('a1')!);
    await s.reconciler.reconcile({ name: 'b1' }, s.ctx);
    expect(s.calls.map((c) => c.req.node)).toEqual(['a1']);
  });

  it('a repair in flight does not escalate on its timeout while its zone is over the storm limit; it does once the zone is back', async () => {
    const s = setup(policyDoc);
    s.addNode('a1', 'unknown', 'a');
    s.addNode('a2', 'ready', 'a');
    s.addNode('a3', 'ready', 'a');
    await s.reconciler.reconcile({ name: 'a1' }, s.ctx);
    expect(s.calls).toHaveLength(1);
    expect(s.stateOf('a1')?.phase).toBe('Verifying');
    // Zone a loses its link to the control plane: every node in it Unknown. Past the step's
    // timeout a1's Ready=Unknown is no evidence its reboot failed.
    s.addNode('a2', 'unknown', 'a');
    s.addNode('a3', 'unknown', 'a');
    s.clock.now += 60 * 60_000;
    const r = await s.reconciler.reconcile({ name: 'a1' }, s.ctx);
    expect(s.calls).toHaveLength(1);
    expect(r).toEqual({ requeueAfter: s.policy.stormGuard.recheckIntervalMs });
    expect(s.stateOf('a1')).toMatchObject({ phase: 'Verifying', remediation: { attempt: 1 } });
    // The zone is back, a1 still not Ready: the next attempt.
    s.addNode('a2', 'ready', 'a');
    s.addNode('a3', 'ready', 'a');
    await s.reconciler.reconcile({ name: 'a1' }, s.ctx);
    expect(s.calls).toHaveLength(2);
  });

  it('a conflicting write requeues quietly and acts on nothing', async () => {
    const s = setup(policyDoc);
    s.addNode('b1', 'unknown', 'b');
    s.api.conflictsToInject = 1;
    expect(await s.reconciler.reconcile({ name: 'b1' }, s.ctx)).toEqual({ requeue: true });
    expect(s.calls).toEqual([]);
    expect(s.stateOf('b1')).toBeUndefined();
    await s.reconciler.reconcile({ name: 'b1' }, s.ctx);
    expect(s.calls).toHaveLength(1);
  });

  it("takes the node's disruption lease before the intent and the cordon, and gives it back when the intent cannot be written", async () => {
    const s = setup(policyDoc);
    const withUid = (name: string) => {
      s.addNode(name, 'unknown', name);
      const n = s.api.nodes.get(name)!;
      s.api.put({ ...n, metadata: { ...n.metadata, uid: `uid-${name}` } });
    };
    withUid('c1');
    let leaseAtCall: KubeObject | undefined;
    const execute = s.reconciler['deps'].provider.execute.bind(s.reconciler['deps'].provider);
    s.reconciler['deps'].provider.execute = async (req, opts) => {
      leaseAtCall = s.api.leases.get(`node-${req.node}`);
      return execute(req, opts);
    };
    await s.reconciler.reconcile({ name: 'c1' }, s.ctx);
    expect(s.calls).toHaveLength(1);
    expect(leaseAtCall).toMatchObject({
      metadata: {
        namespace: 'medik8s-leases',
        ownerReferences: [{ kind: 'Node', name: 'c1', uid: 'uid-c1' }],
      },
      spec: { holderIdentity: 'noderepair', leaseDurationSeconds: 3600 },
    });

    // The intent write conflicts after the lease was taken: nothing runs, the lease goes back.
    withUid('c2');
    s.api.conflictsToInject = 1;
    expect(await s.reconciler.reconcile({ name: 'c2' }, s.ctx)).toEqual({ requeue: true });
    expect(s.stateOf('c2')).toBeUndefined();
    expect(s.api.leases.has('node-c2')).toBe(false);
    expect(s.calls).toHaveLength(1);
  });

  it('a disruption lease another holder took over mid-repair: the reconcile waits at the recheck pace, acts on nothing and does not fail', async () => {
    const s = setup(policyDoc);
    s.addNode('d1', 'unknown', 'd');
    const n = s.api.nodes.get('d1')!;
    s.api.put({ ...n, metadata: { ...n.metadata, uid: 'uid-d1' } });
    await s.reconciler.reconcile({ name: 'd1' }, s.ctx);
    expect(s.calls).toHaveLength(1);
    const ours = s.api.leases.get('node-d1')!;
    // Someone else holds it now, live for an hour.
    s.api.leases.set('node-d1', {
      ...ours,
      spec: {
        ...(ours as { spec?: object }).spec,
        holderIdentity: 'someone-else',
        renewTime: new Date(s.clock.now).toISOString(),
        leaseDurationSeconds: 3600,
      },
    } as KubeObject);
    const r = await s.reconciler.reconcile({ name: 'd1' }, s.ctx);
    expect(r).toEqual({ requeueAfter: s.reconciler['deps'].policy.stormGuard.recheckIntervalMs });
    expect(s.calls).toHaveLength(1);
    expect(s.events.map((e) => e.ev.reason)).toContain('DisruptionLeaseHeld');
    expect(
      (s.api.leases.get('node-d1') as { spec?: { holderIdentity?: string } }).spec?.holderIdentity,
    ).toBe('someone-else');
  });

  it('leaves alone a Node that is not in its (label-selected) cache, and a healthy node unannotated', async () => {
    const s = setup(policyDoc);
    s.addNode('other', 'unknown', 'b');
    s.cache.delete('other');
    expect(await s.reconciler.reconcile({ name: 'other' }, s.ctx)).toEqual({});
    expect(s.stateOf('other')).toBeUndefined();
    s.addNode('fine', 'ready', 'b');
    await s.reconciler.reconcile({ name: 'fine' }, s.ctx);
    expect(s.api.nodes.get('fine')?.metadata?.annotations?.[STATE]).toBeUndefined();
    expect(s.calls).toEqual([]);
  });

  it('a reconcile that changes nothing sends no request (the resync costs only the watch)', async () => {
    const s = setup(policyDoc);
    s.addNode('fine', 'ready', 'b');
    // NotReady for 5 min of the 10 min timeout: Suspect, written once.
    s.api.put({
      apiVersion: 'v1',
      kind: 'Node',
      ...(buildNode({
        name: 'slow',
        ready: 'runtimeDown',
        since: s.clock.now - 5 * 60_000,
        labels: { zone: 'b' },
      }) as KubeNode),
    });
    await s.reconciler.reconcile({ name: 'fine' }, s.ctx);
    expect(s.requests).toEqual([]);
    const first = await s.reconciler.reconcile({ name: 'slow' }, s.ctx);
    expect(s.requests).toEqual(['get', 'patch']);
    expect(s.stateOf('slow')?.phase).toBe('Suspect');
    // The resync and a requeue before the deadline: decided on the cache, nothing sent.
    s.requests.length = 0;
    s.clock.now += 60_000;
    const again = await s.reconciler.reconcile({ name: 'slow' }, s.ctx);
    await s.reconciler.reconcile({ name: 'fine' }, s.ctx);
    expect(s.requests).toEqual([]);
    // The requeue still points just past the deadline.
    expect(first).toEqual({ requeueAfter: 5 * 60_000 + 1 });
    expect(again).toEqual({ requeueAfter: 4 * 60_000 + 1 });
    // Past the deadline the node is read fresh and repaired.
    s.clock.now += 4 * 60_000 + 1;
    await s.reconciler.reconcile({ name: 'slow' }, s.ctx);
    expect(s.requests[0]).toBe('get');
    expect(s.calls.map((c) => c.req.node)).toEqual(['slow']);
  });

  it('after a restart, a node held for a storm waits the cooldown before it is repaired', async () => {
    const s = setup({ ...policyDoc, stormGuard: { ...policyDoc.stormGuard, cooldown: '60s' } });
    s.addNode('a1', 'unknown', 'a');
    s.addNode('a2', 'ready', 'a');
    // The state an earlier leader left: held by a storm in zone a that has since lifted.
    const held = {
      v: 1,
      phase: 'Unhealthy',
      since: new Date(s.clock.now - 5 * 60_000).toISOString(),
      episodes: [],
      heldByStormSince: new Date(s.clock.now - 5 * 60_000).toISOString(),
    };
    const a1 = s.api.nodes.get('a1')!;
    s.api.put({
      ...a1,
      metadata: { ...a1.metadata, annotations: { [STATE]: JSON.stringify(held) } },
    });
    const r = await s.reconciler.reconcile({ name: 'a1' }, s.ctx);
    expect(s.calls).toEqual([]);
    expect(r).toEqual({ requeueAfter: 30_000 });
    const ev = s.events.find((e) => e.node === 'a1' && e.ev.reason === 'StormGuardHeld');
    expect(ev?.ev.note).toMatch(
      /held before this controller started at .*; the nodes held then wait the 60s cooldown from the start/,
    );
    s.clock.now += 30_000;
    await s.reconciler.reconcile({ name: 'a1' }, s.ctx);
    expect(s.calls).toEqual([]);
    s.clock.now += 31_000;
    await s.reconciler.reconcile({ name: 'a1' }, s.ctx);
    expect(s.calls.map((c) => c.req.node)).toEqual(['a1']);
    expect(s.stateOf('a1')?.heldByStormSince).toBeUndefined();
  });

  it('noderepair simulate, fed the same Nodes, decides as the controller: a storm hold an earlier leader left waits the cooldown in both', async () => {
    const s = setup({ ...policyDoc, stormGuard: { ...policyDoc.stormGuard, cooldown: '60s' } });
    s.addNode('a1', 'unknown', 'a');
    s.addNode('a2', 'ready', 'a');
    const start = s.clock.now;
    const held = {
      v: 1,
      phase: 'Unhealthy',
      since: new Date(start - 5 * 60_000).toISOString(),
      episodes: [],
      heldByStormSince: new Date(start - 5 * 60_000).toISOString(),
    };
    const a1 = s.api.nodes.get('a1')!;
    s.api.put({
      ...a1,
      metadata: { ...a1.metadata, annotations: { [STATE]: JSON.stringify(held) } },
    });

    // The simulator replays these very Nodes (a1 with its state annotation) from the start.
    const scheduler = new VirtualTimeScheduler();
    const sim: RepairDecision[] = [];
    runRepairLoop({
      policy: s.policy,
      scheduler,
      observations: ['a1', 'a2'].map((name) => ({
        at: start,
        obs: { nodeName: name, node: structuredClone(s.api.nodes.get(name)) },
      })),
      horizonMs: 5 * 60_000,
    }).subscribe((d) => sim.push(d));
    scheduler.flush();
    const simA1 = sim.filter((d) => d.node === 'a1');
    const repairedAt = simA1.findIndex((d) => d.actions.some((a) => a.type === 'Remediate'));
    // Held first, repaired once the cooldown from the start is over (an empty starting
    // state would have the simulator reboot a1 at once while the controller waits).
    expect(repairedAt).toBeGreaterThan(0);
    expect(simA1[repairedAt]!.at).toBe(start + 60_000);
    expect(simA1[0]!.reason).toMatch(
      /held before this controller started at .*; the nodes held then wait the 60s cooldown/,
    );

    // The controller, reconciling a1 at the simulator's times (up to the decision after the
    // repair's outcome), does what the simulator printed and asks to be requeued when the
    // simulator decides a1 next (1 s after the outcome, not 1 ms).
    const steps = simA1.slice(0, repairedAt + 2);
    expect(steps).toHaveLength(repairedAt + 2);
    for (const [i, d] of steps.entries()) {
      s.clock.now = d.at;
      const before = s.calls.length;
      const r = await s.reconciler.reconcile({ name: 'a1' }, s.ctx);
      const issued = d.actions.flatMap((a) => (a.type === 'Remediate' ? [a.actionId] : []));
      expect(s.calls.slice(before).map((c) => c.req.actionId)).toEqual(issued);
      if (issued.length === 0) expect(s.stateOf('a1')?.phase).toBe(d.phase);
      const next = steps[i + 1];
      if (next !== undefined) expect(r).toEqual({ requeueAfter: next.at - d.at });
    }
    expect(s.calls).toHaveLength(1);
    expect(steps.at(-1)?.phase).toBe('Verifying');
  });

  it('a state that becomes unreadable while the action runs: its outcome is not recorded over it, the reconcile stops, the next one refuses the node', async () => {
    const s = setup(policyDoc);
    s.addNode('b1', 'unknown', 'b');
    // A newer version (a rollback in progress) rewrites the state during the provider call.
    const future = JSON.stringify({ v: 2, phase: 'Remediating' });
    Object.defineProperty(s.answer, 'outcome', {
      get: () => {
        s.api.nodes.get('b1')!.metadata!.annotations![STATE] = future;
        return { kind: 'Accepted', message: 'rebooting' };
      },
    });
    await expect(s.reconciler.reconcile({ name: 'b1' }, s.ctx)).rejects.toThrow(
      /cannot record on b1's repair state: .*version 2/,
    );
    expect(s.api.nodes.get('b1')?.metadata?.annotations?.[STATE]).toBe(future);
    expect(await s.reconciler.reconcile({ name: 'b1' }, s.ctx)).toEqual({});
    expect(s.calls).toHaveLength(1);
    expect(s.api.nodes.get('b1')?.metadata?.annotations?.[STATE]).toBe(future);
    expect(s.events.at(-1)?.ev).toMatchObject({
      type: 'Warning',
      reason: 'InvalidRepairState',
      note: expect.stringContaining(`fixes or removes the annotation`),
    });
  });
});

describe('NodeReconciler: a Node re-created while a step is recorded', () => {
  // Found by the simulator (POLICY=replace, seed 162): the drain's end was written, the write
  // conflicted, and its retry read the Node re-created by a rebuild (same providerID, new uid,
  // no repair state). The record returned as if written, and the Replace went to the freshly
  // rebuilt machine. Now the record stops the decision: nothing after it runs.
  it('sends no action after a step whose record finds another Node object under the name', async () => {
    const s = setup({ ...policyDoc, drain: { enabled: true } });
    s.addNode('r1', 'unknown', 'r');
    const n = s.api.nodes.get('r1')!;
    s.api.put({ ...n, metadata: { ...n.metadata, uid: 'uid-old' } });
    const patch = s.api.client.patch.bind(s.api.client);
    let recreated = false;
    s.api.client.patch = (async (rt, name, p) => {
      const body = JSON.stringify((p as { body?: unknown }).body ?? {});
      if (!recreated && name === 'r1' && body.includes('endedAt')) {
        // A rebuild re-registers the Node between our read and our write.
        recreated = true;
        s.api.put({
          apiVersion: 'v1',
          kind: 'Node',
          ...(buildNode({
            name: 'r1',
            ready: 'ready',
            since: s.clock.now,
            labels: { zone: 'r' },
          }) as KubeNode),
          metadata: {
            ...(buildNode({ name: 'r1', ready: 'ready', since: s.clock.now }) as KubeNode).metadata,
            uid: 'uid-new',
          },
        });
        s.api.conflictOn.add('r1');
      }
      return patch(rt, name, p);
    }) as typeof s.api.client.patch;
    await s.reconciler.reconcile({ name: 'r1' }, s.ctx).catch(() => undefined);
    expect(recreated).toBe(true);
    expect(s.calls).toEqual([]);
    expect(s.api.nodes.get('r1')?.metadata?.uid).toBe('uid-new');
    expect(s.stateOf('r1')).toBeUndefined();
    expect(s.events.map((e) => e.ev.note ?? '').join('\n')).toMatch(
      /no further action of this repair runs: Node r1 is another object now \(uid uid-new, not uid-old\)/,
    );
  });
});
