import { afterEach, describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '../../kube/object.js';
import { Informer } from './informer.js';
import { MemoryApi } from './memory-api.test-support.js';

const fast = {
  backoff: { initialMs: 1, maxMs: 5, factor: 2, jitter: 0 },
  pageSize: 2,
  random: () => 0,
};
const stops: AbortController[] = [];
function start<U>(inf: Informer<KubeObject, U>): Promise<void> {
  const ac = new AbortController();
  stops.push(ac);
  return inf.run(ac.signal);
}
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

describe('Informer', () => {
  it('lists in pages, syncs, drops managedFields, then follows the watch', async () => {
    const api = new MemoryApi();
    for (const n of ['a', 'b', 'c', 'd', 'e']) api.upsert(n);
    const inf = new Informer(api, fast);
    const adds: [string, boolean][] = [];
    inf.addHandlers({ onAdd: (o, initial) => adds.push([o.metadata!.name!, initial]) });
    void start(inf);
    await inf.waitForSync();
    expect(inf.hasSynced()).toBe(true);
    expect(inf.store.size).toBe(5);
    expect(inf.get('a')!.metadata!.managedFields).toBeUndefined();
    api.upsert('f');
    await vi.waitFor(() => expect(inf.get('f')).toBeDefined());
    expect(adds).toContainEqual(['a', true]);
    expect(adds).toContainEqual(['f', false]);
  });

  it('transforms each list page before the next is fetched (raw pages are not all kept)', async () => {
    const api = new MemoryApi();
    for (const n of ['a', 'b', 'c', 'd', 'e']) api.upsert(n);
    const log: string[] = [];
    const list = api.list.bind(api);
    api.list = async (o) => {
      log.push(`list ${o.continue ? 'next' : 'first'}`);
      return list(o);
    };
    const inf = new Informer(api, {
      ...fast,
      transform: (o: KubeObject) => {
        log.push(`transform ${o.metadata!.name!}`);
        return {
          metadata: { name: o.metadata!.name, resourceVersion: o.metadata!.resourceVersion },
        };
      },
    });
    void start(inf);
    await inf.waitForSync();
    expect(log).toEqual([
      'list first',
      'transform a',
      'transform b',
      'list next',
      'transform c',
      'transform d',
      'list next',
      'transform e',
    ]);
    expect(inf.list().map((o) => o.metadata.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('emits (old, new) on update and the last state on delete', async () => {
    const api = new MemoryApi();
    api.upsert('a', { spec: { v: 1 } });
    const inf = new Informer(api, fast);
    const seen: string[] = [];
    inf.addHandlers({
      onUpdate: (o, n) =>
        seen.push(
          `upd ${(o as { spec: { v: number } }).spec.v}->${(n as { spec: { v: number } }).spec.v}`,
        ),
      onDelete: (o) => seen.push(`del ${o.metadata!.name}`),
    });
    void start(inf);
    await inf.waitForSync();
    api.upsert('a', { spec: { v: 2 } });
    api.remove('a');
    await vi.waitFor(() => expect(seen).toEqual(['upd 1->2', 'del a']));
  });

  it('relists after 410 and reports only the difference', async () => {
    const api = new MemoryApi();
    api.upsert('keep');
    api.upsert('gone');
    const relists: string[] = [];
    const inf = new Informer(api, { ...fast, onRelist: (r) => relists.push(r) });
    const seen: string[] = [];
    inf.addHandlers({
      onAdd: (o, i) => {
        if (!i) seen.push(`add ${o.metadata!.name}`);
      },
      onDelete: (o) => seen.push(`del ${o.metadata!.name}`),
    });
    void start(inf);
    await inf.waitForSync();
    // Changes happen, history is compacted, and the open watch is cut: the informer must
    // come back with an old RV, get 410, relist and converge.
    api.silent = true;
    api.remove('gone');
    api.upsert('new');
    api.compact();
    api.closeWatches();
    api.silent = false;
    await vi.waitFor(() => expect(inf.store.keys().sort()).toEqual(['keep', 'new']));
    expect(relists.length).toBeGreaterThanOrEqual(1);
    expect(seen).toEqual(expect.arrayContaining(['del gone', 'add new']));
    expect(seen).not.toContain('add keep');
  });

  it('backs off on errors and never stops', async () => {
    const api = new MemoryApi();
    api.upsert('a');
    api.failNextWatches = 3;
    const errors: unknown[] = [];
    const inf = new Informer(api, { ...fast, onError: (e) => errors.push(e) });
    void start(inf);
    await inf.waitForSync();
    api.upsert('b');
    await vi.waitFor(() => expect(inf.get('b')).toBeDefined());
    expect(errors.length).toBe(3);
    expect(api.watches).toBeGreaterThanOrEqual(4);
  });

  it('reconnects a watch that goes silent (inactivity timeout)', async () => {
    const api = new MemoryApi();
    api.upsert('a');
    const errors: string[] = [];
    const inf = new Informer(api, {
      ...fast,
      inactivityTimeoutMs: 20,
      onError: (e) => errors.push((e as Error).name),
    });
    void start(inf);
    await inf.waitForSync();
    await vi.waitFor(() => expect(errors).toContain('InactivityTimeoutError'));
    expect(api.watches).toBeGreaterThanOrEqual(2);
  });

  it('supports projections, indexers and handlers that see every change', async () => {
    const api = new MemoryApi();
    api.upsert('n1', { spec: { zone: 'z1' } });
    api.upsert('n2', { spec: { zone: 'z2' } });
    type P = { metadata: { name: string; resourceVersion?: string }; zone: string };
    const inf = new Informer<KubeObject, P>(api, {
      ...fast,
      transform: (o) => ({
        metadata: { name: o.metadata!.name!, resourceVersion: o.metadata!.resourceVersion! },
        zone: (o as { spec: { zone: string } }).spec.zone,
      }),
      indexers: { zone: (p) => [p.zone] },
    });
    const evs: string[] = [];
    inf.addHandlers({ onAdd: (o) => evs.push(`add ${o.metadata.name}`) });
    void start(inf);
    await inf.waitForSync();
    api.upsert('n3', { spec: { zone: 'z1' } });
    await vi.waitFor(() => expect(evs).toHaveLength(3));
    expect(evs).toEqual(['add n1', 'add n2', 'add n3']);
    expect(
      inf
        .byIndex('zone', 'z1')
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(['n1', 'n3']);
    expect(inf.get('n1')).toEqual({
      metadata: { name: 'n1', resourceVersion: expect.any(String) },
      zone: 'z1',
    });
    expect(() => inf.byIndex('nope', 'x')).toThrow(/no index named "nope"/);
  });

  it('a throwing handler does not stop other handlers', async () => {
    const api = new MemoryApi();
    api.upsert('a');
    const inf = new Informer(api, fast);
    const seen: string[] = [];
    inf.addHandlers({
      onAdd: () => {
        throw new Error('bad handler');
      },
    });
    inf.addHandlers({ onAdd: (o) => seen.push(o.metadata!.name!) });
    void start(inf);
    await inf.waitForSync();
    expect(seen).toEqual(['a']);
  });
});
