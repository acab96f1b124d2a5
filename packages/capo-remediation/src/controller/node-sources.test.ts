import { describe, expect, it } from 'vitest';
import type { EventSource, InformerHandlers } from '@noderepair/core/runtime';
import { NodeSources } from './node-sources.js';

/** An in-memory EventSource: emits to its handlers when told to. */
class Source implements EventSource<string> {
  readonly handlers = new Set<InformerHandlers<string>>();
  synced = false;
  private waiters: (() => void)[] = [];
  constructor(readonly items: string[] = []) {}
  addHandlers(h: InformerHandlers<string>) {
    this.handlers.add(h);
    return () => this.handlers.delete(h);
  }
  waitForSync() {
    return this.synced ? Promise.resolve() : new Promise<void>((r) => this.waiters.push(r));
  }
  sync() {
    this.synced = true;
    for (const w of this.waiters.splice(0)) w();
  }
  list() {
    return this.items;
  }
  emit(o: string) {
    for (const h of this.handlers) h.onAdd?.(o, false);
  }
}

describe('NodeSources', () => {
  it('forwards handlers to the initial sources and to sources added later, until removed', () => {
    const mgmt = new Source(['m1']);
    const s = new NodeSources([mgmt]);
    const seen: string[] = [];
    s.addHandlers({ onAdd: (o) => seen.push(o) });
    mgmt.emit('m1');
    const workload = new Source(['w1']);
    const remove = s.add(workload);
    workload.emit('w1');
    expect(seen).toEqual(['m1', 'w1']);
    expect(s.list().sort()).toEqual(['m1', 'w1']);
    expect(s.size).toBe(2);
    remove();
    workload.emit('w2');
    expect(seen).toEqual(['m1', 'w1']);
    expect(workload.handlers.size).toBe(0);
    expect(s.size).toBe(1);
  });

  it('unregistering a handler removes it from every source', () => {
    const a = new Source();
    const b = new Source();
    const s = new NodeSources([a]);
    s.add(b);
    const off = s.addHandlers({ onAdd: () => {} });
    expect(a.handlers.size + b.handlers.size).toBe(2);
    off();
    expect(a.handlers.size + b.handlers.size).toBe(0);
  });

  it('is synced when the initial sources are (later ones do not hold the controller back)', async () => {
    const mgmt = new Source();
    const s = new NodeSources([mgmt]);
    s.add(new Source()); // never syncs
    let done = false;
    const p = s.waitForSync().then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    mgmt.sync();
    await p;
    expect(done).toBe(true);
    await expect(new NodeSources([]).waitForSync()).resolves.toBeUndefined();
  });
});
