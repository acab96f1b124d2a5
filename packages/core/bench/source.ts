// Where the bench's Nodes come from: a private real kube-apiserver (envtest) when its
// binaries are available, otherwise one in-process HTTP server answering list (paginated)
// and watch with the same JSON. Every informer under test reads from the same source.
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient, NodeResource, type KubeNode } from '../src/kube/index.js';
import { realisticNode } from './nodes.js';

export interface NodeSource {
  kind: 'envtest-kube-apiserver' | 'in-process-http' | 'given-kube-apiserver';
  kubeConfig: KubeConfig;
  /** A kubeconfig file for clients that only read one the default way (KFC). */
  kubeconfigPath: string;
  version?: string;
  stop(): Promise<void>;
}

async function populate(kc: KubeConfig, count: number, suffix: string): Promise<void> {
  const client = createKubeClient(kc);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await client.create(NodeResource, realisticNode(i, suffix));
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  client.close();
}

export async function openSource(count: number, log: (o: object) => void): Promise<NodeSource> {
  // `pnpm bench` runs this against its scale cluster, whose Nodes already exist.
  const given = process.env['BENCH_KUBECONFIG'];
  if (given) {
    const kc = new KubeConfig();
    kc.loadFromFile(given);
    return {
      kind: 'given-kube-apiserver',
      kubeConfig: kc,
      kubeconfigPath: given,
      stop: async () => {},
    };
  }
  let envtest: typeof import('@noderepair/envtest') | undefined;
  try {
    envtest = await import('@noderepair/envtest');
  } catch {
    envtest = undefined;
  }
  if (envtest?.findAssets()) {
    const cp = await envtest.startControlPlane();
    const t0 = performance.now();
    await populate(cp.kubeConfig, count, 'x');
    log({
      bench: 'setup',
      source: 'envtest-kube-apiserver',
      version: cp.version,
      nodes: count,
      populateMs: Math.round(performance.now() - t0),
    });
    return {
      kind: 'envtest-kube-apiserver',
      kubeConfig: cp.kubeConfig,
      kubeconfigPath: cp.kubeconfigPath,
      version: cp.version,
      stop: () => cp.stop(),
    };
  }
  return inProcess(count);
}

async function inProcess(count: number): Promise<NodeSource> {
  const rv = 1000 + count;
  const items = Array.from({ length: count }, (_, i) => {
    const n = realisticNode(i, 'x') as KubeNode;
    n.metadata = {
      ...n.metadata,
      uid: `uid-${i}`,
      resourceVersion: String(1000 + i),
      creationTimestamp: '2026-01-01T00:00:00Z',
    };
    return JSON.stringify(n);
  });
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/api/v1/nodes') return void res.writeHead(404).end();
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      // Send the headers now: client-node's Watch resolves only once the response starts.
      res.flushHeaders();
      open.add(res);
      res.on('close', () => open.delete(res));
      return;
    }
    const limit = Number(url.searchParams.get('limit') ?? count) || count;
    const start = Number(url.searchParams.get('continue') ?? 0);
    const end = Math.min(count, start + limit);
    const cont = end < count ? `,"continue":"${end}"` : '';
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(
      `{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"${rv}"${cont}},"items":[${items.slice(start, end).join(',')}]}`,
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'bench', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'bench' }],
    contexts: [{ name: 'bench', cluster: 'bench', user: 'bench' }],
    currentContext: 'bench',
  });
  const dir = mkdtempSync(join(tmpdir(), 'noderepair-bench-kc-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kc.exportConfig());
  return {
    kind: 'in-process-http',
    kubeConfig: kc,
    kubeconfigPath,
    stop: async () => {
      rmSync(dir, { recursive: true, force: true });
      for (const r of open) r.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
