import { describe, expect, it } from 'vitest';
import { ManualClock } from '../runtime/clock.js';
import type { InformerHandlers } from '../runtime/reflector/informer.js';
import { CacheChanges } from './cache-changes.js';

type V = { metadata: { name: string } };
const v = (name: string): V => ({ metadata: { name } });

/** An event source as the Informer is one: handlers get its update and delete events. */
class Events {
  readonly handlers: InformerHandlers<V>[] = [];
  addHandlers(h: InformerHandlers<V>) {
    this.handlers.push(h);
    return () => undefined;
  }
  update(name: string) {
    for (const h of this.handlers) h.onUpdate?.(v(name), v(name));
  }
  delete(name: string) {
    for (const h of this.handlers) h.onDelete?.(v(name));
  }
}

/** Whether the promise has settled, after the microtasks queued so far. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('CacheChanges: a wait for the cache to show a write', () => {
  it("is woken by the informer's event for that Node, not by another Node's, without time passing", async () => {
    const events = new Events();
    const changes = new CacheChanges<V>(events, new ManualClock());
    const n1 = changes.next('n1', new AbortController().signal);
    events.update('n2');
    expect(await settled(n1.wait)).toBe(false);
    events.update('n1');
    expect(await settled(n1.wait)).toBe(true);
    const gone = changes.next('n1', new AbortController().signal);
    events.delete('n1');
    expect(await settled(gone.wait)).toBe(true);
    // One handler for all waits, registered without onAdd (no replay of the whole cache).
    expect(events.handlers).toHaveLength(1);
    expect(events.handlers[0]?.onAdd).toBeUndefined();
  });

  it('looks anyway after 250 ms with events (one missed event never hangs it), 25 ms without', async () => {
    const clock = new ManualClock();
    const withEvents = new CacheChanges<V>(new Events(), clock);
    const a = withEvents.next('n1', new AbortController().signal);
    clock.advance(249);
    expect(await settled(a.wait)).toBe(false);
    clock.advance(1);
    expect(await settled(a.wait)).toBe(true);

    const polled = new CacheChanges<V>({}, clock);
    const b = polled.next('n1', new AbortController().signal);
    clock.advance(25);
    expect(await settled(b.wait)).toBe(true);
  });

  it('ends on abort, and a cancelled wait leaves no timer behind', async () => {
    const clock = new ManualClock();
    const changes = new CacheChanges<V>(new Events(), clock);
    const ac = new AbortController();
    const w = changes.next('n1', ac.signal);
    ac.abort();
    expect(await settled(w.wait)).toBe(true);
    const c = changes.next('n1', new AbortController().signal);
    c.cancel();
    expect(clock.pending).toBe(0);
  });
});
