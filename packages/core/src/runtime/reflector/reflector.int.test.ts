// Reflector/informer against a private real control plane (it restarts, pauses and
// compacts, so it must not share the per-worker plane).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KubeConfig } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane } from '@noderepair/envtest';
import { createKfcKubeClient } from '../../kube/kfc/index.js';
import { createKubeClient } from '../../kube/client-node/index.js';
import type { KubeClient } from '../../kube/client.js';
import type { KubeObject } from '../../kube/object.js';
import { ConfigMapResource, NamespaceResource } from '../../kube/resource.js';
import { createInformer } from './informer.js';

let cp: ControlPlane;
beforeAll(async () => {
  cp = await startControlPlane();
});
afterAll(async () => {
  await cp?.stop();
});

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const adapters: [string, (kc: KubeConfig) => KubeClient][] = [
  ['client-node', (kc) => createKubeClient(kc)],
  ['kubernetes-fluent-client', (kc) => createKfcKubeClient(kc)],
];
const fastBackoff = { backoff: { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0.5 } };

async function namespace(c: KubeClient, name: string): Promise<string> {
  await c.create(NamespaceResource, { metadata: { name } });
  return name;
}

function state(inf: { list(): ConfigMap[] }): Record<string, string | undefined> {
  return Object.fromEntries(inf.list().map((o) => [o.metadata!.name!, o.data?.['v']]));
}

describe.sequential.each(adapters)('informer on a real apiserver: %s', (adapter, make) => {
  it('survives a kube-apiserver restart and ends at the right state', async () => {
    const c = make(cp.kubeConfig);
    const ns = await namespace(c, `restart-${adapter.length}-${Date.now() % 100000}`);
    for (const n of ['a', 'b'])
      await c.create(ConfigMapResource, { metadata: { name: n, namespace: ns }, data: { v: '1' } });
    const errors: string[] = [];
    const inf = createInformer<ConfigMap>(c, ConfigMapResource, {
      namespace: ns,
      ...fastBackoff,
      onError: (e) => errors.push((e as Error).name),
    });
    const ac = new AbortController();
    const run = inf.run(ac.signal);
    await inf.waitForSync();
    expect(state(inf)).toMatchObject({ a: '1', b: '1' });

    await cp.restartApiServer(1000);
    await c.patch(
      ConfigMapResource,
      'a',
      { type: 'merge', body: { data: { v: '2' } } },
      { namespace: ns },
    );
    await c.delete(ConfigMapResource, 'b', { namespace: ns });
    await c.create(ConfigMapResource, { metadata: { name: 'c', namespace: ns }, data: { v: '3' } });
    await vi.waitFor(
      () => expect(state(inf)).toEqual({ 'kube-root-ca.crt': undefined, a: '2', c: '3' }),
      { timeout: 60_000, interval: 200 },
    );
    expect(errors.length).toBeGreaterThan(0); // it did notice the outage
    ac.abort();
    await run;
  });

  it('relists after etcd compaction makes its resourceVersion 410 Gone', async () => {
    const c = make(cp.kubeConfig);
    const ns = await namespace(c, `gone-${adapter.length}-${Date.now() % 100000}`);
    await c.create(ConfigMapResource, {
      metadata: { name: 'watched', namespace: ns, labels: { app: 'x' } },
      data: { v: '1' },
    });
    const relists: string[] = [];
    // The selector keeps this informer's resourceVersion still while other writes move etcd on.
    const inf = createInformer<ConfigMap>(c, ConfigMapResource, {
      namespace: ns,
      labelSelector: 'app=x',
      ...fastBackoff,
      onRelist: (r) => relists.push(r),
    });
    const ac = new AbortController();
    const run = inf.run(ac.signal);
    await inf.waitForSync();
    const rvBefore = inf.lastSyncResourceVersion;
    for (let i = 0; i < 5; i++)
      await c.create(ConfigMapResource, { metadata: { name: `noise-${i}`, namespace: ns } });
    await cp.compactEtcd();
    // A restart empties the watch cache, so the reconnecting watch must go to etcd: 410.
    await cp.restartApiServer();
    await vi.waitFor(() => expect(relists.length).toBeGreaterThan(0), {
      timeout: 60_000,
      interval: 200,
    });
    expect(Number(inf.lastSyncResourceVersion)).toBeGreaterThan(Number(rvBefore));
    await c.create(ConfigMapResource, {
      metadata: { name: 'after', namespace: ns, labels: { app: 'x' } },
      data: { v: '2' },
    });
    await vi.waitFor(() => expect(state(inf)).toEqual({ watched: '1', after: '2' }), {
      timeout: 30_000,
      interval: 200,
    });
    ac.abort();
    await run;
  });
});

describe('informer inactivity timeout', () => {
  it('reconnects a watch that hangs while the apiserver is frozen', async () => {
    const c = createKubeClient(cp.kubeConfig);
    const ns = await namespace(c, `pause-${Date.now() % 100000}`);
    const errors: string[] = [];
    const inf = createInformer<ConfigMap>(c, ConfigMapResource, {
      namespace: ns,
      ...fastBackoff,
      inactivityTimeoutMs: 1500,
      onError: (e) => errors.push((e as Error).name),
    });
    const ac = new AbortController();
    const run = inf.run(ac.signal);
    await inf.waitForSync();
    cp.pauseApiServer();
    try {
      await vi.waitFor(() => expect(errors).toContain('InactivityTimeoutError'), {
        timeout: 20_000,
        interval: 100,
      });
    } finally {
      cp.resumeApiServer();
    }
    await c.create(ConfigMapResource, {
      metadata: { name: 'later', namespace: ns },
      data: { v: '9' },
    });
    await vi.waitFor(() => expect(state(inf)['later']).toBe('9'), {
      timeout: 30_000,
      interval: 200,
    });
    ac.abort();
    await run;
  });
});
