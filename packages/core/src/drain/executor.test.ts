import { describe, expect, it } from 'vitest';
import type { NodeSnapshot } from '../health/node.js';
import { drainNode, uncordonNode } from './executor.js';
import { drainPass } from './pass.js';
import { podKey, type PodRef, type PodSnapshot } from './pod.js';
import type { DeleteResult, DrainPort, EvictionResult, NodePatch } from './port.js';
import { ManualClock } from '../runtime/clock.js';

/** The drain's clock: sleeping advances time at once, so minutes of retries run in microseconds. */
const virtualClock = (start = 0) => new ManualClock(start, { sleepAdvances: true });

/**
 * TEST DOUBLE of the DrainPort: an in-memory node and its pods. A PodDisruptionBudget refuses
 * (429) evictions of protected pods until `pdbOpensAt`; an evicted pod terminates after
 * `terminationMs` if the kubelet is alive, and on an unreachable node only once the
 * out-of-service taint is there (as the pod GC does for non-graceful shutdown).
 */
class InMemoryDrainPortTestDouble implements DrainPort {
  node: NodeSnapshot;
  pods = new Map<string, PodSnapshot>();
  terminatingSince = new Map<string, number>();
  evictions: string[] = [];
  patches: NodePatch[] = [];
  constructor(
    private clock: ManualClock,
    name: string,
    private opts: {
      kubeletAlive: boolean;
      pdbProtected?: string[];
      pdbOpensAt?: number;
      terminationMs?: number;
      failFirstEvictionOf?: string;
    },
  ) {
    this.node = { metadata: { name }, spec: { unschedulable: false, taints: [] } };
  }
  addPod(
    name: string,
    owner: string | undefined,
    extra: Partial<NonNullable<PodSnapshot['metadata']>> = {},
  ): void {
    this.pods.set(`ns/${name}`, {
      metadata: {
        name,
        namespace: 'ns',
        ...(owner
          ? { ownerReferences: [{ kind: owner, name: `${name}-x`, controller: true }] }
          : {}),
        ...extra,
      },
      spec: { nodeName: this.node.metadata!.name! },
      status: { phase: 'Running' },
    });
  }
  private tick(): void {
    const tainted = (this.node.spec?.taints ?? []).some(
      (t) => t.key === 'node.kubernetes.io/out-of-service',
    );
    for (const [key, since] of this.terminatingSince) {
      const done = this.opts.kubeletAlive
        ? this.clock.now() - since >= (this.opts.terminationMs ?? 5000)
        : tainted;
      if (done) {
        this.pods.delete(key);
        this.terminatingSince.delete(key);
      }
    }
  }
  async getNode(): Promise<NodeSnapshot | undefined> {
    return structuredClone(this.node);
  }
  async patchNode(_name: string, patch: NodePatch): Promise<void> {
    this.patches.push(patch);
    const spec = (this.node.spec ??= {});
    if (patch.unschedulable !== undefined) spec.unschedulable = patch.unschedulable;
    spec.taints = [
      ...(spec.taints ?? []).filter((t) => !(patch.removeTaintKeys ?? []).includes(t.key)),
      ...(patch.addTaints ?? []),
    ];
  }
  async listPodsOnNode(): Promise<PodSnapshot[]> {
    this.tick();
    return [...this.pods.values()].map((p) => structuredClone(p));
  }
  async evictPod(
    ref: PodRef,
    _opts?: { gracePeriodSeconds?: number },
    _signal?: AbortSignal,
  ): Promise<EvictionResult> {
    const key = podKey(ref);
    const p = this.pods.get(key);
    if (p === undefined) return { kind: 'NotFound' };
    if (this.opts.failFirstEvictionOf === key) {
      this.opts.failFirstEvictionOf = undefined;
      return { kind: 'Error', status: 500, message: 'etcdserver: request timed out' };
    }
    if (
      (this.opts.pdbProtected ?? []).includes(key) &&
      this.clock.now() < (this.opts.pdbOpensAt ?? 0)
    ) {
      return {
        kind: 'TooManyRequests',
        message: "Cannot evict pod as it would violate the pod's disruption budget.",
      };
    }
    this.evictions.push(key);
    p.metadata!.deletionTimestamp = new Date(this.clock.now()).toISOString();
    this.terminatingSince.set(key, this.clock.now());
    return { kind: 'Evicted' };
  }
  async deletePod(ref: PodRef): Promise<DeleteResult> {
    return this.pods.delete(podKey(ref)) ? { kind: 'Deleted' } : { kind: 'NotFound' };
  }
}

const S = 1000;
const MIN = 60 * S;

describe('drainNode', () => {
  it('cordons, evicts, retries a PDB 429 with backoff until the budget allows it, then reports Drained', async () => {
    const clock = virtualClock();
    const port = new InMemoryDrainPortTestDouble(clock, 'n1', {
      kubeletAlive: true,
      pdbProtected: ['ns/db-0'],
      pdbOpensAt: 45 * S,
    });
    port.addPod('web', 'ReplicaSet');
    port.addPod('db-0', 'StatefulSet');
    port.addPod('fluentd', 'DaemonSet');
    port.addPod('kube-proxy', undefined, { annotations: { 'kubernetes.io/config.mirror': 'x' } });
    const r = await drainNode(
      port,
      { node: 'n1', timeoutMs: 10 * MIN, unreachable: false, outOfServiceAfterMs: 5 * MIN },
      clock,
    );
    expect(r.outcome).toBe('Drained');
    expect(port.node.spec?.unschedulable).toBe(true);
    expect(r.evicted).toEqual(['ns/db-0', 'ns/web']);
    expect(port.evictions).toEqual(['ns/web', 'ns/db-0']);
    // 1 s, 2 s, 4 s, 8 s, 16 s, 30 s (capped) ... until 45 s: refusals 0+1+2+4+8+16 = 31 s, then 30 s more -> 61 s.
    expect(r.pdbRefusals).toBe(6);
    expect(r.steps.filter((s) => s.message.includes('429')).map((s) => s.at)).toEqual([
      0,
      1 * S,
      3 * S,
      7 * S,
      15 * S,
      31 * S,
    ]);
    expect(port.pods.has('ns/fluentd') && port.pods.has('ns/kube-proxy')).toBe(true);
    expect(r.outOfServiceTainted).toBe(false);
  });

  it('gives up at the timeout while the PDB still refuses, naming what is left', async () => {
    const clock = virtualClock();
    const port = new InMemoryDrainPortTestDouble(clock, 'n1', {
      kubeletAlive: true,
      pdbProtected: ['ns/db-0'],
      pdbOpensAt: 60 * MIN,
    });
    port.addPod('db-0', 'StatefulSet');
    const r = await drainNode(
      port,
      { node: 'n1', timeoutMs: 2 * MIN, unreachable: false, outOfServiceAfterMs: MIN },
      clock,
    );
    expect(r.outcome).toBe('TimedOut');
    expect(r.remaining).toEqual(['ns/db-0']);
    expect(r.durationMs).toBe(2 * MIN);
    expect(r.steps[r.steps.length - 1]?.message).toBe(
      'timed out after 2m with 1 pod(s) left: ns/db-0',
    );
  });

  it('unreachable node: the drain never adds the out-of-service taint; it stops waiting for pods that cannot terminate', async () => {
    const clock = virtualClock();
    const port = new InMemoryDrainPortTestDouble(clock, 'n1', { kubeletAlive: false });
    port.addPod('db-0', 'StatefulSet');
    const r = await drainNode(
      port,
      { node: 'n1', timeoutMs: 15 * MIN, unreachable: true, outOfServiceAfterMs: 5 * MIN },
      clock,
    );
    // A partitioned node may still run db-0: only fencing may free its volume (provider/fence.ts).
    expect(r.outcome).toBe('TimedOut');
    expect(r.outOfServiceTainted).toBe(false);
    expect(port.node.spec?.taints).toEqual([]);
    expect(port.patches.some((p) => p.addTaints !== undefined)).toBe(false);
    expect(r.remaining).toEqual(['ns/db-0']);
    expect(r.durationMs).toBe(5 * MIN);
    expect(r.steps.at(-1)?.message).toContain('cannot terminate until the machine is fenced');
    // Drained again (a replayed action): the pods left Terminating are not waited for again.
    const again = await drainNode(
      port,
      { node: 'n1', timeoutMs: 15 * MIN, unreachable: true, outOfServiceAfterMs: 5 * MIN },
      clock,
    );
    expect(again.outcome).toBe('TimedOut');
    expect(again.durationMs).toBe(0);
    expect(port.node.spec?.taints).toEqual([]);
    // A reachable node never gets the taint either.
    const clock2 = virtualClock();
    const port2 = new InMemoryDrainPortTestDouble(clock2, 'n2', { kubeletAlive: true });
    port2.addPod('web', 'ReplicaSet');
    const r2 = await drainNode(
      port2,
      { node: 'n2', timeoutMs: 15 * MIN, unreachable: false, outOfServiceAfterMs: 0 },
      clock2,
    );
    expect(r2.outOfServiceTainted).toBe(false);
  });

  it('retries transient errors, leaves unmanaged pods (reported as blocked) and finishes', async () => {
    const clock = virtualClock();
    const port = new InMemoryDrainPortTestDouble(clock, 'n1', {
      kubeletAlive: true,
      failFirstEvictionOf: 'ns/web',
      terminationMs: 1000,
    });
    port.addPod('web', 'ReplicaSet');
    port.addPod('bare', undefined);
    const r = await drainNode(
      port,
      { node: 'n1', timeoutMs: MIN, unreachable: false, outOfServiceAfterMs: MIN },
      clock,
    );
    expect(r.outcome).toBe('Drained');
    expect(r.blocked.map((b) => b.reason)).toEqual(['UnmanagedPod']);
    expect(
      r.steps.some(
        (s) =>
          s.message ===
          'eviction of ns/web failed (500: etcdserver: request timed out); retry in 1s',
      ),
    ).toBe(true);
    expect(port.pods.has('ns/bare')).toBe(true);
  });

  it('a node that is gone ends the drain at once; abort stops it', async () => {
    const clock = virtualClock();
    const port = new InMemoryDrainPortTestDouble(clock, 'n1', { kubeletAlive: true });
    port.getNode = async () => undefined;
    expect(
      (
        await drainNode(
          port,
          { node: 'n1', timeoutMs: MIN, unreachable: false, outOfServiceAfterMs: MIN },
          clock,
        )
      ).outcome,
    ).toBe('NodeGone');
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    const port2 = new InMemoryDrainPortTestDouble(clock, 'n2', { kubeletAlive: true });
    port2.addPod('web', 'ReplicaSet');
    expect(
      (
        await drainNode(
          port2,
          {
            node: 'n2',
            timeoutMs: MIN,
            unreachable: false,
            outOfServiceAfterMs: MIN,
            signal: ac.signal,
          },
          clock,
        )
      ).outcome,
    ).toBe('Aborted');
  });
});

describe('drainNode with disableEviction', () => {
  it('deletes pods directly, so a PodDisruptionBudget does not hold them', async () => {
    const clock = virtualClock();
    const port = new InMemoryDrainPortTestDouble(clock, 'n1', {
      kubeletAlive: true,
      pdbProtected: ['ns/db-0'],
      pdbOpensAt: 60 * MIN,
    });
    port.addPod('db-0', 'StatefulSet');
    const r = await drainNode(
      port,
      {
        node: 'n1',
        timeoutMs: MIN,
        unreachable: false,
        outOfServiceAfterMs: MIN,
        disableEviction: true,
      },
      clock,
    );
    expect(r).toMatchObject({ outcome: 'Drained', pdbRefusals: 0, evicted: ['ns/db-0'] });
    expect(port.evictions).toEqual([]);
    expect(r.steps.map((s) => s.message)).toContain('deleted ns/db-0');
  });
});

describe('uncordonNode', () => {
  it('uncordons and removes the out-of-service taint', async () => {
    const clock = virtualClock();
    const port = new InMemoryDrainPortTestDouble(clock, 'n1', { kubeletAlive: false });
    port.node.spec = {
      unschedulable: true,
      taints: [
        { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' },
        { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      ],
    };
    expect(await uncordonNode(port, 'n1', { removeOutOfServiceTaint: true })).toBe('Uncordoned');
    expect(port.node.spec).toEqual({
      unschedulable: false,
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
    });
    // Nothing to do: no patch at all.
    port.patches = [];
    await uncordonNode(port, 'n1', { removeOutOfServiceTaint: true });
    expect(port.patches).toEqual([]);
  });
});

describe('drainNode and its signal', () => {
  it('passes the signal into every port call: an eviction in flight when it aborts ends the drain as Aborted', async () => {
    const clock = virtualClock();
    const seen: (AbortSignal | undefined)[] = [];
    /** An eviction that hangs (a frozen API server) until its own signal aborts, as a KubeClient request does. */
    class HangingEvictionTestDouble extends InMemoryDrainPortTestDouble {
      override async getNode(name?: string, signal?: AbortSignal) {
        seen.push(signal);
        return super.getNode();
      }
      override async evictPod(
        _ref: PodRef,
        _o: object,
        signal?: AbortSignal,
      ): Promise<EvictionResult> {
        seen.push(signal);
        return new Promise((_resolve, reject) => {
          if (signal === undefined) return; // never returns: what main did
          signal.addEventListener('abort', () => reject(new Error('request aborted')), {
            once: true,
          });
        });
      }
    }
    const port = new HangingEvictionTestDouble(clock, 'n1', { kubeletAlive: true });
    port.addPod('web', 'ReplicaSet');
    const stop = new AbortController();
    const drained = drainNode(
      port,
      {
        node: 'n1',
        timeoutMs: 10 * MIN,
        unreachable: false,
        outOfServiceAfterMs: 5 * MIN,
        signal: stop.signal,
      },
      clock,
    );
    await new Promise((r) => setTimeout(r, 10));
    stop.abort();
    const r = await Promise.race([
      drained,
      new Promise<'still in flight'>((res) => setTimeout(() => res('still in flight'), 200)),
    ]);
    expect(r).toMatchObject({ outcome: 'Aborted' });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every((s) => s === stop.signal)).toBe(true);
  });
});

describe('drainPass (one pass per reconcile; the drain phase is persisted by the caller)', () => {
  it('evicts what it may, counts the PDB refusals and returns at once; a later pass finds the node drained', async () => {
    const clock = virtualClock(10 * S);
    const port = new InMemoryDrainPortTestDouble(clock, 'n1', {
      kubeletAlive: true,
      pdbProtected: ['ns/db-0'],
      pdbOpensAt: 45 * S,
      terminationMs: 1 * S,
    });
    port.addPod('web', 'ReplicaSet');
    port.addPod('db-0', 'StatefulSet');
    port.addPod('fluentd', 'DaemonSet');
    const req = {
      node: 'n1',
      startedAt: 0,
      timeoutMs: 10 * MIN,
      unreachable: false,
      outOfServiceAfterMs: 5 * MIN,
    };
    const first = await drainPass(port, req, clock);
    expect(first).toMatchObject({
      outcome: 'Draining',
      evicted: ['ns/web'],
      pdbRefusals: 1,
      remaining: ['ns/db-0', 'ns/web'],
      lastEvictedAt: 10 * S,
      deadline: 10 * MIN,
    });
    expect(port.node.spec?.unschedulable).toBe(true);
    // The pass never slept: the virtual clock did not move.
    expect(clock.now()).toBe(10 * S);
    clock.setTime(20 * S); // the budget still refuses; the web pod is gone
    expect(await drainPass(port, { ...req, lastEvictedAt: 10 * S }, clock)).toMatchObject({
      outcome: 'Draining',
      evicted: [],
      pdbRefusals: 1,
      remaining: ['ns/db-0'],
      lastEvictedAt: 10 * S,
    });
    clock.setTime(50 * S); // the budget allows it now
    expect((await drainPass(port, req, clock)).evicted).toEqual(['ns/db-0']);
    clock.setTime(60 * S);
    const last = await drainPass(port, req, clock);
    expect(last.outcome).toBe('Drained');
    expect(last.durationMs).toBe(60 * S);
  });

  it('times out drain.timeout after the recorded start, not after this pass began', async () => {
    const clock = virtualClock(10 * MIN);
    const port = new InMemoryDrainPortTestDouble(clock, 'n1', {
      kubeletAlive: true,
      pdbProtected: ['ns/db-0'],
      pdbOpensAt: Number.POSITIVE_INFINITY,
    });
    port.addPod('db-0', 'StatefulSet');
    const req = {
      node: 'n1',
      startedAt: 0,
      timeoutMs: 10 * MIN,
      unreachable: false,
      outOfServiceAfterMs: 5 * MIN,
    };
    const r = await drainPass(port, req, clock);
    expect(r.outcome).toBe('TimedOut');
    expect(r.remaining).toEqual(['ns/db-0']);
    expect(port.evictions).toEqual([]);
    clock.setTime(10 * MIN - 1);
    expect((await drainPass(port, req, clock)).outcome).toBe('Draining');
  });

  it('unreachable node: goes on outOfServiceAfter after the last accepted eviction, never adding the taint', async () => {
    const clock = virtualClock(0);
    const port = new InMemoryDrainPortTestDouble(clock, 'n1', { kubeletAlive: false });
    port.addPod('web', 'ReplicaSet');
    const req = {
      node: 'n1',
      startedAt: 0,
      timeoutMs: 15 * MIN,
      unreachable: true,
      outOfServiceAfterMs: 5 * MIN,
    };
    const first = await drainPass(port, req, clock);
    expect(first).toMatchObject({ outcome: 'Draining', lastEvictedAt: 0, deadline: 5 * MIN });
    clock.setTime(5 * MIN - 1);
    expect((await drainPass(port, { ...req, lastEvictedAt: 0 }, clock)).outcome).toBe('Draining');
    clock.setTime(5 * MIN);
    const r = await drainPass(port, { ...req, lastEvictedAt: 0 }, clock);
    expect(r.outcome).toBe('TimedOut');
    expect(r.remaining).toEqual(['ns/web']);
    expect(r.steps.at(-1)?.message).toMatch(/without the out-of-service taint/);
    expect(port.patches.flatMap((p) => p.addTaints ?? [])).toEqual([]);
  });

  it('an aborted signal ends the pass before any call', async () => {
    const clock = virtualClock(0);
    const port = new InMemoryDrainPortTestDouble(clock, 'n1', { kubeletAlive: true });
    port.addPod('web', 'ReplicaSet');
    const stop = new AbortController();
    stop.abort();
    const r = await drainPass(
      port,
      {
        node: 'n1',
        startedAt: 0,
        timeoutMs: MIN,
        unreachable: false,
        outOfServiceAfterMs: MIN,
        signal: stop.signal,
      },
      clock,
    );
    expect(r.outcome).toBe('Aborted');
    expect(port.patches).toEqual([]);
  });
});
