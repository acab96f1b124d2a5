// Every verb of both adapters stops at once when its signal aborts, against a real
// kube-apiserver behind a loopback TCP relay that can freeze (hold the bytes of every request
// in both directions, like a partition that does not reset connections). A frozen request
// without the signal would wait for the adapter's 30 s timeout and end as a connection error.
// And an already-aborted signal sends nothing: not a byte reaches the relay.
import { getEventListeners } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KubeConfig } from '@kubernetes/client-node';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { loadKubeConfigFile } from '@noderepair/envtest';
import type { KubeClient } from './client.js';
import { createKubeClient } from './client-node/index.js';
import { NotFoundError, RequestAbortedError } from './errors.js';
import { createKfcKubeClient } from './kfc/index.js';
import { listAll } from './pagination.js';
import { ConfigMapResource } from './resource.js';

const env = useControlPlane();

/** A TCP relay to the apiserver: TLS passes through, so the kubeconfig's CA still verifies. */
class FreezableRelay {
  frozen = false;
  /** Bytes the callers sent while frozen (held, never forwarded). */
  heldBytes = 0;
  /** Bytes the callers sent at all. */
  bytesIn = 0;
  private readonly sockets = new Set<net.Socket>();
  private constructor(private readonly server: net.Server) {}

  static async start(upstream: URL): Promise<FreezableRelay> {
    const relay: FreezableRelay = new FreezableRelay(
      net.createServer((client) => {
        const up = net.connect(Number(upstream.port), upstream.hostname);
        relay.sockets.add(client).add(up);
        client.on('data', (c: Buffer) => {
          relay.bytesIn += c.length;
          if (relay.frozen) relay.heldBytes += c.length;
          else up.write(c);
        });
        up.on('data', (c: Buffer) => {
          if (!relay.frozen) client.write(c);
        });
        const close = () => {
          client.destroy();
          up.destroy();
        };
        client.on('close', close).on('error', close);
        up.on('close', close).on('error', close);
      }),
    );
    await new Promise<void>((r) => relay.server.listen(0, '127.0.0.1', r));
    return relay;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

let relay: FreezableRelay;
let relayed: KubeConfig;

beforeAll(async () => {
  relay = await FreezableRelay.start(new URL(env.server));
  relayed = loadKubeConfigFile(env.kubeconfigPath);
  const cluster = relayed.getCurrentCluster()!;
  const server = `https://127.0.0.1:${relay.port}`;
  relayed.clusters = relayed.clusters.map((c) => (c.name === cluster.name ? { ...c, server } : c));
});
afterAll(async () => {
  await relay.close();
});

const adapters: [string, (kc: KubeConfig) => KubeClient & { close(): void }][] = [
  ['client-node', (kc) => createKubeClient(kc)],
  ['kubernetes-fluent-client', (kc) => createKfcKubeClient(kc)],
];

type Verb = (c: KubeClient, ns: string, signal: AbortSignal) => Promise<unknown>;
const cm = (ns: string, name: string) => ({ metadata: { name, namespace: ns }, data: { a: '1' } });
const verbs: [string, Verb][] = [
  ['get', (c, ns, signal) => c.get(ConfigMapResource, 'held', { namespace: ns, signal })],
  ['list', (c, ns, signal) => c.list(ConfigMapResource, { namespace: ns, signal })],
  ['listAll', (c, ns, signal) => listAll(c, ConfigMapResource, { namespace: ns, signal })],
  ['create', (c, ns, signal) => c.create(ConfigMapResource, cm(ns, 'new'), { signal })],
  ['update', (c, ns, signal) => c.update(ConfigMapResource, cm(ns, 'held'), { signal })],
  [
    'apply',
    (c, ns, signal) =>
      c.apply(ConfigMapResource, cm(ns, 'held'), { fieldManager: 'abort-test', signal }),
  ],
  [
    'patch',
    (c, ns, signal) =>
      c.patch(
        ConfigMapResource,
        'held',
        { type: 'merge', body: { data: { b: '2' } } },
        { namespace: ns, signal },
      ),
  ],
  ['delete', (c, ns, signal) => c.delete(ConfigMapResource, 'held', { namespace: ns, signal })],
  ['evict', (c, ns, signal) => c.evict(ns, 'no-such-pod', { signal })],
];

describe.each(adapters)('KubeClient aborts: %s', (_name, make) => {
  it.each(verbs)('%s: a frozen call ends at once on abort', async (_verb, call) => {
    const c = make(relayed);
    const ns = await env.namespace('abort');
    await c.create(ConfigMapResource, cm(ns, 'held'));
    relay.frozen = true;
    relay.heldBytes = 0;
    try {
      const ac = new AbortController();
      const p = call(c, ns, ac.signal);
      p.catch(() => undefined);
      // The request is out: its bytes sit in the frozen relay.
      await vi.waitFor(() => expect(relay.heldBytes).toBeGreaterThan(0), { timeout: 10_000 });
      ac.abort(new Error('leadership lost'));
      await expect(p).rejects.toBeInstanceOf(RequestAbortedError);
      // The request's link to the caller's signal is gone with it.
      expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    } finally {
      relay.frozen = false;
      c.close();
    }
  });

  it.each(verbs)('%s: an aborted signal sends nothing', async (_verb, call) => {
    const c = make(relayed);
    const ns = await env.namespace('abort');
    const ac = new AbortController();
    ac.abort();
    const before = relay.bytesIn;
    await expect(call(c, ns, ac.signal)).rejects.toBeInstanceOf(RequestAbortedError);
    expect(relay.bytesIn).toBe(before);
    // Nothing was created behind our back either.
    await expect(
      make(env.kubeConfig).get(ConfigMapResource, 'new', { namespace: ns }),
    ).rejects.toBeInstanceOf(NotFoundError);
    c.close();
  });

  it('a long-lived signal collects no listeners over many calls', async () => {
    const c = make(relayed);
    const ns = await env.namespace('abort');
    const term = new AbortController().signal;
    await c.create(ConfigMapResource, cm(ns, 'held'), { signal: term });
    for (let i = 0; i < 20; i++) {
      await c.get(ConfigMapResource, 'held', { namespace: ns, signal: term });
      await c.patch(
        ConfigMapResource,
        'held',
        { type: 'merge', body: { data: { i: String(i) } } },
        { namespace: ns, signal: term },
      );
    }
    await expect(
      c.get(ConfigMapResource, 'missing', { namespace: ns, signal: term }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(getEventListeners(term, 'abort')).toHaveLength(0);
    c.close();
  });
});
