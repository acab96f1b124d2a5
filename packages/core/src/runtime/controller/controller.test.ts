import { afterEach, describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '../../kube/object.js';
import { ManualClock } from '../clock.js';
import { ItemExponentialRateLimiter } from '../queue/rate-limiter.js';
import { Informer } from '../reflector/informer.js';
import { MemoryApi } from '../reflector/memory-api.test-support.js';
import { Controller } from './controller.js';
import { generationChanged } from './predicates.js';
import type { ReconcileRequest } from './reconciler.js';

const fast = { backoff: { initialMs: 1, maxMs: 5, factor: 2, jitter: 0 }, random: () => 0 };
const stops: AbortController[] = [];
function running(...infs: Informer<KubeObject>[]): AbortController {
  const ac = new AbortController();
  stops.push(ac);
  for (const i of infs) void i.run(ac.signal);
  return ac;
}
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

describe('Controller', () => {
  it('reconciles every object; thrown errors retry with per-item backoff', async () => {
    const api = new MemoryApi();
    api.upsert('a');
    api.upsert('b');
    const inf = new Informer(api, fast);
    const clock = new ManualClock();
    const calls: string[] = [];
    let failuresLeft = 2;
    const c = new Controller({
      name: 't',
      clock,
      rateLimiter: new ItemExponentialRateLimiter(5, 1000),
      reconcile: async (req, ctx) => {
        calls.push(`${req.name}#${ctx.retries}`);
        if (req.name === 'b' && failuresLeft-- > 0) throw new Error('not yet');
      },
    }).for(inf);
    const ac = running(inf);
    const done = c.start(ac.signal);
    await vi.waitFor(() => expect(calls).toEqual(expect.arrayContaining(['a#0', 'b#0'])));
    expect(c.queue.numRequeues('b')).toBe(1);
    clock.advance(5);
    await vi.waitFor(() => expect(calls).toContain('b#1'));
    clock.advance(10);
    await vi.waitFor(() => expect(calls).toContain('b#2'));
    await vi.waitFor(() => expect(c.queue.numRequeues('b')).toBe(0)); // success forgets
    ac.abort();
    await done;
  });

  it('requeueAfter schedules another pass on the clock', async () => {
    const api = new MemoryApi();
    api.upsert('a');
    const inf = new Informer(api, fast);
    const clock = new ManualClock();
    let n = 0;
    const c = new Controller({
      name: 't',
      clock,
      reconcile: async () => (++n < 3 ? { requeueAfter: 1000 } : {}),
    }).for(inf);
    const ac = running(inf);
    void c.start(ac.signal);
    await vi.waitFor(() => expect(n).toBe(1));
    clock.advance(999);
    await new Promise((r) => setTimeout(r, 5));
    expect(n).toBe(1);
    clock.advance(1);
    await vi.waitFor(() => expect(n).toBe(2));
    clock.advance(1000);
    await vi.waitFor(() => expect(n).toBe(3));
  });

  it('never runs one key concurrently even with many workers, and re-runs when dirtied mid-reconcile', async () => {
    const api = new MemoryApi();
    for (const k of ['a', 'b', 'c']) api.upsert(k);
    const inf = new Informer(api, fast);
    const active = new Set<string>();
    let overlap = false;
    let maxParallel = 0;
    const count = new Map<string, number>();
    const c = new Controller({
      name: 't',
      concurrency: 4,
      reconcile: async (req) => {
        if (active.has(req.name)) overlap = true;
        active.add(req.name);
        maxParallel = Math.max(maxParallel, active.size);
        count.set(req.name, (count.get(req.name) ?? 0) + 1);
        if (req.name === 'a' && count.get('a') === 1) api.upsert('a', { spec: { v: 2 } }); // dirty while processing
        await new Promise((r) => setTimeout(r, 10));
        active.delete(req.name);
      },
    }).for(inf);
    const ac = running(inf);
    void c.start(ac.signal);
    await vi.waitFor(() => expect(count.get('a')).toBe(2));
    expect(overlap).toBe(false);
    expect(maxParallel).toBeGreaterThan(1);
  });

  it('maps owned objects to their owner and filters with predicates', async () => {
    const owners = new MemoryApi();
    owners.upsert('parent', { metadata: { name: 'parent', generation: 1 } });
    const children = new MemoryApi();
    const ownersInf = new Informer(owners, fast);
    const childInf = new Informer(children, fast);
    const seen: ReconcileRequest[] = [];
    const c = new Controller({
      name: 't',
      reconcile: async (r) => {
        seen.push(r);
      },
    })
      .for(ownersInf, [generationChanged])
      .owns(childInf, { kind: 'Thing', clusterScopedOwner: true });
    const ac = running(ownersInf, childInf);
    void c.start(ac.signal);
    await vi.waitFor(() => expect(seen.length).toBe(1));
    // A status-only change (same generation) is filtered out...
    owners.upsert('parent', { metadata: { name: 'parent', generation: 1 }, status: { x: 1 } });
    // ...a child with a controller reference to the parent is not.
    children.upsert('child', {
      metadata: {
        name: 'child',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Thing', name: 'parent', uid: 'u', controller: true },
        ],
      },
    });
    await vi.waitFor(() => expect(seen.length).toBe(2));
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([{ name: 'parent' }, { name: 'parent' }]);
  });

  it('resyncs every key after the max interval', async () => {
    const api = new MemoryApi();
    api.upsert('a');
    const inf = new Informer(api, fast);
    const clock = new ManualClock();
    let n = 0;
    const c = new Controller({
      name: 't',
      clock,
      maxResyncIntervalMs: 60_000,
      reconcile: async () => {
        n++;
      },
    }).for(inf);
    const ac = running(inf);
    void c.start(ac.signal);
    await vi.waitFor(() => expect(n).toBe(1));
    clock.advance(60_000);
    await vi.waitFor(() => expect(n).toBe(2));
    clock.advance(60_000);
    await vi.waitFor(() => expect(n).toBe(3));
  });

  it('stops on abort after in-flight reconciles finish', async () => {
    const api = new MemoryApi();
    api.upsert('a');
    const inf = new Informer(api, fast);
    let finished = false;
    let release!: () => void;
    const c = new Controller({
      name: 't',
      reconcile: async () => {
        await new Promise<void>((r) => {
          release = r;
        });
        finished = true;
      },
    }).for(inf);
    const ac = running(inf);
    const done = c.start(ac.signal);
    await vi.waitFor(() => expect(release).toBeDefined());
    ac.abort();
    let stopped = false;
    void done.then(() => {
      stopped = true;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(stopped).toBe(false);
    release();
    await done;
    expect(finished).toBe(true);
  });

  it('validates options', () => {
    expect(() => new Controller({ name: 'x', concurrency: 0, reconcile: async () => {} })).toThrow(
      /concurrency must be a positive integer/,
    );
  });
});
