import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ManualClock } from '../clock.js';
import { ItemExponentialRateLimiter } from './rate-limiter.js';
import { WorkQueue } from './work-queue.js';

const mk = (clock = new ManualClock()) =>
  new WorkQueue<string>({ clock, rateLimiter: new ItemExponentialRateLimiter(5, 1000) });

describe('WorkQueue', () => {
  it('dedupes waiting items and keeps FIFO order', async () => {
    const q = mk();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.len()).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  it('never hands out an item being processed; re-queues it on done when dirtied', async () => {
    const q = mk();
    q.add('a');
    const a = await q.get();
    q.add('a');
    expect(q.len()).toBe(0); // held back while processing
    q.done(a!);
    expect(q.len()).toBe(1);
    expect(await q.get()).toBe('a');
  });

  it('wakes a waiting getter on add', async () => {
    const q = mk();
    const p = q.get();
    q.add('x');
    expect(await p).toBe('x');
  });

  it('addAfter fires on the clock, earliest delay wins', async () => {
    const clock = new ManualClock();
    const q = mk(clock);
    q.addAfter('a', 100);
    q.addAfter('a', 50);
    q.addAfter('a', 500);
    clock.advance(49);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    clock.advance(1000);
    expect(q.len()).toBe(1);
  });

  it('addRateLimited backs off per item and forget resets', () => {
    const clock = new ManualClock();
    const q = mk(clock);
    q.addRateLimited('a');
    q.addRateLimited('a'); // second call: 10 ms, but the 5 ms timer is earlier
    expect(q.numRequeues('a')).toBe(2);
    clock.advance(5);
    expect(q.len()).toBe(1);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
  });

  it('shutdown releases getters; remaining items still drain; adds are ignored', async () => {
    const q = mk();
    q.add('a');
    const idle = mk();
    const p = idle.get();
    idle.shutdown();
    expect(await p).toBeUndefined();
    q.shutdown();
    q.add('b');
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBeUndefined();
  });

  it('shutdownWithDrain waits for in-flight items', async () => {
    const q = mk();
    q.add('a');
    const a = await q.get();
    let drained = false;
    const p = q.shutdownWithDrain().then(() => {
      drained = true;
    });
    await Promise.resolve();
    expect(drained).toBe(false);
    q.done(a!);
    await p;
    expect(drained).toBe(true);
  });

  // client-go: ShutDown() after ShutDownWithDrain() sets drain = false and wakes the drain, which
  // then returns without waiting (the pattern: drain on the first SIGTERM, stop on the second).
  it('shutdown() after shutdownWithDrain() stops the drain from waiting for a stuck worker', async () => {
    const q = mk();
    q.add('stuck');
    q.add('b');
    await q.get(); // a worker holds 'stuck' and never calls done()
    let drained = false;
    const p = q.shutdownWithDrain().then(() => {
      drained = true;
    });
    await Promise.resolve();
    expect(drained).toBe(false);
    q.shutdown();
    await new Promise((r) => setTimeout(r, 0));
    expect(drained).toBe(true);
    // As in client-go, the queue still hands out what is waiting, then says it is shut down.
    expect(await q.get()).toBe('b');
    expect(await q.get()).toBeUndefined();
    // A later drain waits again (client-go sets drain = true again): here for 'b'.
    let again = false;
    const p2 = q.shutdownWithDrain().then(() => {
      again = true;
    });
    await new Promise((r) => setTimeout(r, 0));
    expect(again).toBe(false);
    q.done('b');
    q.done('stuck');
    await Promise.all([p, p2]);
    expect(again).toBe(true);
  });

  it('reports metrics hooks', async () => {
    const clock = new ManualClock();
    const seen: string[] = [];
    const q = new WorkQueue<string>({
      clock,
      metrics: {
        added: (i) => seen.push(`add:${i}`),
        latency: (i, ms) => seen.push(`lat:${i}:${ms}`),
        workDuration: (i, ms) => seen.push(`work:${i}:${ms}`),
        retry: (i) => seen.push(`retry:${i}`),
      },
    });
    q.add('a');
    clock.advance(30);
    const a = await q.get();
    clock.advance(7);
    q.done(a!);
    q.addRateLimited('a');
    expect(seen).toEqual(['add:a', 'lat:a:30', 'work:a:7', 'retry:a']);
  });

  it('property: with random interleavings, no key is ever processed twice at once and none is lost', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('add' as const), key: fc.constantFrom('a', 'b', 'c') }),
            fc.record({ op: fc.constant('get' as const) }),
            fc.record({ op: fc.constant('done' as const), idx: fc.nat(5) }),
          ),
          { maxLength: 60 },
        ),
        async (ops) => {
          const q = mk();
          const inFlight: string[] = [];
          const addedSinceStart = new Set<string>();
          for (const o of ops) {
            if (o.op === 'add') {
              q.add(o.key);
              addedSinceStart.add(o.key);
            } else if (o.op === 'get') {
              if (q.len() === 0) continue;
              const k = (await q.get())!;
              if (inFlight.includes(k)) return false;
              inFlight.push(k);
            } else if (inFlight.length > 0) {
              const [k] = inFlight.splice(o.idx % inFlight.length, 1);
              q.done(k!);
            }
          }
          for (const k of inFlight.splice(0)) q.done(k);
          // Everything added must now be obtainable exactly once.
          const rest = new Set<string>();
          while (q.len() > 0) {
            const k = (await q.get())!;
            if (rest.has(k)) return false;
            rest.add(k);
            q.done(k);
          }
          return [...rest].every((k) => addedSinceStart.has(k));
        },
      ),
    );
  });
});
