// Retained heap per Node and time to initial sync, for our informer (default transform and
// a projection) and for @kubernetes/client-node's makeInformer, fed by the same source.
import { CoreV1Api, makeInformer, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import {
  RestKubeClient,
  NodeResource,
  type HttpTransport,
  type KubeNode,
} from '../src/kube/index.js';
import { clientNodeCredentials } from '../src/kube/client-node/credentials.js';
import { HttpsTransport } from '../src/kube/https-transport.js';
import { createInformer } from '../src/runtime/index.js';
import { projectNode } from './nodes.js';

const gc = (): void => {
  const g = (globalThis as { gc?: () => void }).gc;
  if (!g) throw new Error('run with node --expose-gc (pnpm bench:core does)');
  g();
  g();
};
const heap = (): number => {
  gc();
  return process.memoryUsage().heapUsed;
};

/** Counts requests so we can show there are none per Node in steady state. */
function counting(t: HttpTransport): HttpTransport & { requests: number; streams: number } {
  const c = {
    requests: 0,
    streams: 0,
    request: (r: Parameters<HttpTransport['request']>[0]) => {
      c.requests++;
      return t.request(r);
    },
    stream: (r: Parameters<HttpTransport['stream']>[0]) => {
      c.streams++;
      return t.stream(r);
    },
  };
  return c;
}

export interface InformerResult {
  impl: string;
  nodes: number;
  retainedBytesPerNode: number;
  syncMs: number;
  steadyStateRequests?: number;
}

// Retained heap = heap while the informer is alive and synced minus heap once it is stopped
// and unreachable (both after full GCs). Measuring the release, not growth from a
// baseline, keeps leftovers of earlier runs out of the number.

export async function benchOurs(
  kc: KubeConfig,
  expected: number,
  projection: boolean,
  steadyWindowMs: number,
): Promise<InformerResult> {
  const http = new HttpsTransport(clientNodeCredentials(kc));
  const transport = counting(http);
  const client = new RestKubeClient(transport);
  heap();
  const t0 = performance.now();
  let inf:
    | { run(s: AbortSignal): Promise<void>; waitForSync(): Promise<void>; store: { size: number } }
    | undefined = projection
    ? createInformer<KubeNode, ReturnType<typeof projectNode>>(client, NodeResource, {
        transform: projectNode,
        pageSize: 500,
      })
    : createInformer<KubeNode>(client, NodeResource, { pageSize: 500 });
  const ac = new AbortController();
  const run = inf.run(ac.signal);
  await inf.waitForSync();
  const syncMs = performance.now() - t0;
  const size = inf.store.size;
  if (size < expected) throw new Error(`informer synced ${size} of ${expected} nodes`);
  const afterSync = transport.requests;
  await new Promise((r) => setTimeout(r, steadyWindowMs));
  const steady = transport.requests - afterSync;
  const alive = heap();
  ac.abort();
  await run;
  http.close();
  inf = undefined;
  await new Promise((r) => setTimeout(r, 200));
  const released = heap();
  return {
    impl: projection
      ? 'noderepair-informer+projection'
      : 'noderepair-informer(default: drop managedFields)',
    nodes: size,
    retainedBytesPerNode: Math.round((alive - released) / size),
    syncMs: Math.round(syncMs),
    steadyStateRequests: steady,
  };
}

export async function benchClientNode(kc: KubeConfig, expected: number): Promise<InformerResult> {
  const api = kc.makeApiClient(CoreV1Api);
  heap();
  const t0 = performance.now();
  let informer: ReturnType<typeof makeInformer<V1Node>> | undefined = makeInformer<V1Node>(
    kc,
    '/api/v1/nodes',
    () => api.listNode(),
  );
  await informer.start();
  const syncMs = performance.now() - t0;
  const size = informer.list().length;
  if (size < expected) throw new Error(`makeInformer synced ${size} of ${expected} nodes`);
  const alive = heap();
  await informer.stop();
  informer = undefined;
  await new Promise((r) => setTimeout(r, 200));
  const released = heap();
  return {
    impl: '@kubernetes/client-node makeInformer',
    nodes: size,
    retainedBytesPerNode: Math.round((alive - released) / size),
    syncMs: Math.round(syncMs),
  };
}

/**
 * kubernetes-fluent-client's Watch (what Pepr operators use): it lists, then watches, and
 * keeps every object it has seen in its own cache. It reads the kubeconfig the default way
 * (KUBECONFIG), so the caller passes a kubeconfig file.
 */
export async function benchKfcWatch(
  kubeconfigPath: string,
  expected: number,
): Promise<InformerResult> {
  const before = process.env['KUBECONFIG'];
  process.env['KUBECONFIG'] = kubeconfigPath;
  try {
    const { K8s, kind } = await import('kubernetes-fluent-client');
    heap();
    const t0 = performance.now();
    const seen = new Set<string>();
    let synced: () => void = () => {};
    const done = new Promise<void>((r) => (synced = r));
    let watcher: { start(): Promise<AbortController>; close(): void } | undefined = K8s(
      kind.Node,
    ).Watch((n) => {
      seen.add(n.metadata?.uid ?? n.metadata?.name ?? '');
      if (seen.size >= expected) synced();
    });
    await watcher.start();
    await Promise.race([
      done,
      new Promise((_, rej) =>
        setTimeout(
          () => rej(new Error(`kfc Watch saw ${seen.size} of ${expected} nodes in 300 s`)),
          300_000,
        ),
      ),
    ]);
    const syncMs = performance.now() - t0;
    const size = seen.size;
    seen.clear();
    const alive = heap();
    watcher.close();
    watcher = undefined;
    await new Promise((r) => setTimeout(r, 500));
    const released = heap();
    return {
      impl: 'kubernetes-fluent-client Watch',
      nodes: size,
      retainedBytesPerNode: Math.round((alive - released) / size),
      syncMs: Math.round(syncMs),
    };
  } finally {
    if (before === undefined) delete process.env['KUBECONFIG'];
    else process.env['KUBECONFIG'] = before;
  }
}
