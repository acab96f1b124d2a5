// The KubeClient contract, run against every adapter on a real kube-apiserver (envtest).
// (410 Gone after etcd compaction needs a private control plane: see
// runtime/reflector/reflector.int.test.ts, which checks it for both adapters.)
//
// Gaps in kubernetes-fluent-client 3.11.6 and how the KFC adapter fills them:
//  - K8s() reads the global default kubeconfig on every call: the adapter never calls K8s();
//    it drives KFC's fetch (undici) with an Agent built from the injected KubeConfig.
//  - Apply hard-codes fieldManager "pepr": the adapter sends our fieldManager/force itself.
//  - No list pagination, resourceVersion preconditions, delete preconditions or typed
//    Status errors: provided by the shared REST layer (rest-client.ts) for both adapters.
//  - KFC's fetch buffers the whole body, so it cannot stream a watch: watches use the
//    undici that KFC itself depends on, with the same Agent.
import { describe, expect, it } from 'vitest';
import type { KubeConfig } from '@kubernetes/client-node';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { createKfcKubeClient } from './kfc/index.js';
import type { KubeClient, WatchEvent } from './client.js';
import { AlreadyExistsError, ConflictError, InvalidError, NotFoundError } from './errors.js';
import { createKubeClient } from './client-node/index.js';
import type { KubeObject } from './object.js';
import { listAll } from './pagination.js';
import { ConfigMapResource, NodeResource, PodResource } from './resource.js';
import { nodeClient } from './typed.js';
import type { KubeNode } from './types.js';

const env = useControlPlane();

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const adapters: [string, (kc: KubeConfig) => KubeClient][] = [
  ['client-node', (kc) => createKubeClient(kc)],
  ['kubernetes-fluent-client', (kc) => createKfcKubeClient(kc)],
];

async function nextEvent<T>(
  it: AsyncIterator<WatchEvent<T>>,
  pred: (e: WatchEvent<T>) => boolean,
): Promise<WatchEvent<T>> {
  for (;;) {
    const r = await it.next();
    if (r.done) throw new Error('watch ended before the expected event');
    if (pred(r.value)) return r.value;
  }
}

describe.each(adapters)('KubeClient contract: %s', (_name, make) => {
  it('create, get, update, typed NotFound / AlreadyExists / Invalid', async () => {
    const c = make(env.kubeConfig);
    const ns = await env.namespace('contract');
    const cm = await c.create<ConfigMap>(ConfigMapResource, {
      metadata: { name: 'a', namespace: ns },
      data: { k: 'v' },
    });
    expect(cm.metadata?.uid).toBeTruthy();
    const got = await c.get<ConfigMap>(ConfigMapResource, 'a', { namespace: ns });
    expect(got.data).toEqual({ k: 'v' });
    const upd = await c.update<ConfigMap>(ConfigMapResource, { ...got, data: { k: 'w' } });
    expect(upd.data).toEqual({ k: 'w' });
    // PUT with the old resourceVersion is a Conflict.
    await expect(
      c.update<ConfigMap>(ConfigMapResource, { ...got, data: { k: 'x' } }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      c.create(ConfigMapResource, { metadata: { name: 'a', namespace: ns } }),
    ).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(c.get(ConfigMapResource, 'missing', { namespace: ns })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    const bad = c.create(ConfigMapResource, {
      metadata: { name: 'b', namespace: ns, labels: { x: 'not a valid label value!' } },
    });
    await expect(bad).rejects.toBeInstanceOf(InvalidError);
    await expect(bad).rejects.toThrow(/Invalid value/);
  });

  it('lists in pages with continue tokens', async () => {
    const c = make(env.kubeConfig);
    const ns = await env.namespace('contract');
    for (let i = 0; i < 5; i++)
      await c.create(ConfigMapResource, { metadata: { name: `cm-${i}`, namespace: ns } });
    const first = await c.list<ConfigMap>(ConfigMapResource, { namespace: ns, limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.metadata.continue).toBeTruthy();
    expect(first.items[0]).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    const all = await listAll<ConfigMap>(c, ConfigMapResource, { namespace: ns, limit: 2 });
    expect(all.items.map((i) => i.metadata?.name).filter((n) => n?.startsWith('cm-'))).toEqual([
      'cm-0',
      'cm-1',
      'cm-2',
      'cm-3',
      'cm-4',
    ]);
    expect(Number(all.resourceVersion)).toBeGreaterThan(0);
    const sel = await c.list(ConfigMapResource, {
      namespace: ns,
      fieldSelector: 'metadata.name=cm-3',
    });
    expect(sel.items.map((i) => i.metadata?.name)).toEqual(['cm-3']);
  });

  it('watches ADDED / MODIFIED / DELETED from a resourceVersion until aborted', async () => {
    const c = make(env.kubeConfig);
    const ns = await env.namespace('contract');
    const list = await c.list(ConfigMapResource, { namespace: ns });
    const ac = new AbortController();
    const events = c.watch<ConfigMap>(ConfigMapResource, {
      namespace: ns,
      resourceVersion: list.metadata.resourceVersion,
      allowWatchBookmarks: true,
      signal: ac.signal,
    });
    const it = events[Symbol.asyncIterator]();
    const pending = nextEvent(it, (e) => e.type === 'ADDED');
    await c.create(ConfigMapResource, { metadata: { name: 'w', namespace: ns }, data: { a: '1' } });
    const added = await pending;
    expect(added.type === 'ADDED' && added.object.metadata?.name).toBe('w');
    await c.patch(
      ConfigMapResource,
      'w',
      { type: 'merge', body: { data: { a: '2' } } },
      { namespace: ns },
    );
    const mod = await nextEvent(it, (e) => e.type === 'MODIFIED');
    expect(mod.type === 'MODIFIED' && mod.object.data).toEqual({ a: '2' });
    await c.delete(ConfigMapResource, 'w', { namespace: ns });
    const del = await nextEvent(it, (e) => e.type === 'DELETED');
    expect(del.type === 'DELETED' && del.object.metadata?.name).toBe('w');
    ac.abort();
    expect((await it.next()).done).toBe(true);
  });

  it('merge and JSON patches honour the resourceVersion precondition', async () => {
    const c = make(env.kubeConfig);
    const ns = await env.namespace('contract');
    const cm = await c.create<ConfigMap>(ConfigMapResource, {
      metadata: { name: 'p', namespace: ns },
      data: { a: '1' },
    });
    const rv = cm.metadata!.resourceVersion!;
    const p1 = await c.patch<ConfigMap>(
      ConfigMapResource,
      'p',
      { type: 'merge', body: { data: { b: '2' } }, resourceVersion: rv },
      { namespace: ns },
    );
    expect(p1.data).toEqual({ a: '1', b: '2' });
    await expect(
      c.patch(
        ConfigMapResource,
        'p',
        { type: 'merge', body: { data: { c: '3' } }, resourceVersion: rv },
        { namespace: ns },
      ),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      c.patch(
        ConfigMapResource,
        'p',
        { type: 'json', ops: [{ op: 'add', path: '/data/c', value: '3' }], resourceVersion: rv },
        { namespace: ns },
      ),
    ).rejects.toBeInstanceOf(ConflictError);
    const p2 = await c.patch<ConfigMap>(
      ConfigMapResource,
      'p',
      {
        type: 'json',
        ops: [{ op: 'remove', path: '/data/a' }],
        resourceVersion: p1.metadata!.resourceVersion!,
      },
      { namespace: ns },
    );
    expect(p2.data).toEqual({ b: '2' });
  });

  it('server-side apply: field managers, typed conflicts, force', async () => {
    const c = make(env.kubeConfig);
    const ns = await env.namespace('contract');
    const desired = (v: string): ConfigMap => ({
      metadata: { name: 's', namespace: ns },
      data: { owned: v },
    });
    const a = await c.apply<ConfigMap>(ConfigMapResource, desired('by-a'), {
      fieldManager: 'manager-a',
    });
    expect(a.data).toEqual({ owned: 'by-a' });
    expect(JSON.stringify(a.metadata?.managedFields)).toContain('manager-a');
    const conflict = c.apply(ConfigMapResource, desired('by-b'), { fieldManager: 'manager-b' });
    await expect(conflict).rejects.toBeInstanceOf(ConflictError);
    await expect(conflict).rejects.toThrow(/manager-a/);
    const forced = await c.apply<ConfigMap>(ConfigMapResource, desired('by-b'), {
      fieldManager: 'manager-b',
      force: true,
    });
    expect(forced.data).toEqual({ owned: 'by-b' });
    await expect(c.apply(ConfigMapResource, desired('x'), { fieldManager: '' })).rejects.toThrow(
      /fieldManager/,
    );
  });

  it('status subresource patch and apply on a Node', async () => {
    const c = make(env.kubeConfig);
    const nodes = nodeClient(c);
    const name = env.unique('contract-node');
    await nodes.create({ metadata: { name, labels: { 'noderepair.dev/test': 'true' } } });
    try {
      const patched = await nodes.patchStatus(name, {
        type: 'merge',
        body: {
          status: {
            conditions: [
              {
                type: 'Ready',
                status: 'False',
                reason: 'Test',
                message: 'm',
                lastHeartbeatTime: '2026-01-01T00:00:00Z',
                lastTransitionTime: '2026-01-01T00:00:00Z',
              },
            ],
          },
        },
      });
      expect(patched.status?.conditions?.find((x) => x.type === 'Ready')?.status).toBe('False');
      // A status patch on the main resource path is ignored for status; on /status it applies.
      const applied = await nodes.applyStatus(
        {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name },
          status: { addresses: [{ type: 'InternalIP', address: '10.0.0.9' }] },
        } as KubeNode,
        { fieldManager: 'contract', force: true },
      );
      expect(applied.status?.addresses).toEqual([{ type: 'InternalIP', address: '10.0.0.9' }]);
    } finally {
      await c.delete(NodeResource, name);
    }
  });

  it('delete honours preconditions; evict removes a pod', async () => {
    const c = make(env.kubeConfig);
    const ns = await env.namespace('contract');
    const cm = await c.create<ConfigMap>(ConfigMapResource, {
      metadata: { name: 'd', namespace: ns },
    });
    await expect(
      c.delete(ConfigMapResource, 'd', { namespace: ns, preconditions: { uid: 'not-the-uid' } }),
    ).rejects.toBeInstanceOf(ConflictError);
    await c.delete(ConfigMapResource, 'd', {
      namespace: ns,
      preconditions: { uid: cm.metadata!.uid!, resourceVersion: cm.metadata!.resourceVersion! },
    });
    await expect(c.get(ConfigMapResource, 'd', { namespace: ns })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(c.delete(ConfigMapResource, 'd', { namespace: ns })).rejects.toBeInstanceOf(
      NotFoundError,
    );

    await c.create(PodResource, {
      metadata: { name: 'victim', namespace: ns },
      spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
    } as KubeObject);
    await c.evict(ns, 'victim', { deleteOptions: { gracePeriodSeconds: 0 } });
    await expect(c.get(PodResource, 'victim', { namespace: ns })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(c.evict(ns, 'victim')).rejects.toBeInstanceOf(NotFoundError);
  });
});
