// pnpm bench:core -> JSON lines: work-queue throughput and health state-machine evaluations
// per second; informer retained heap per Node and initial sync time for 10,000 realistic
// Nodes, ours (default transform, projection) vs @kubernetes/client-node's makeInformer and
// kubernetes-fluent-client's Watch, all in the same run, with ratios side by side.
// BENCH_ONLY=micro|informers runs one half (pnpm bench runs each in its own process);
// BENCH_KUBECONFIG points the informers at an existing cluster's Nodes instead of envtest.
import { benchQueue } from './queue.js';
import { benchHealth } from './health.js';
import { openSource } from './source.js';
import { benchClientNode, benchKfcWatch, benchOurs, type InformerResult } from './informers.js';

const NODES = Number(process.env['BENCH_NODES'] ?? 10_000);
const ONLY = process.env['BENCH_ONLY'];
const print = (o: object): void => {
  process.stdout.write(`${JSON.stringify(o)}\n`);
};
const ratio = (a: number, b: number) => +(a / b).toFixed(2);

async function informers(): Promise<void> {
  const source = await openSource(NODES, print);
  try {
    // Order: the comparisons run in between ours, so no side benefits from warm-up alone.
    const ours = await benchOurs(source.kubeConfig, NODES, false, 3000);
    print({ bench: 'informer', source: source.kind, ...ours });
    const theirs = await benchClientNode(source.kubeConfig, NODES);
    print({ bench: 'informer', source: source.kind, ...theirs });
    const projected = await benchOurs(source.kubeConfig, NODES, true, 3000);
    print({ bench: 'informer', source: source.kind, ...projected });
    const kfc: InformerResult = await benchKfcWatch(source.kubeconfigPath, NODES);
    print({ bench: 'informer', source: source.kind, ...kfc });
    print({
      bench: 'informer-summary',
      source: source.kind,
      nodes: NODES,
      retainedBytesPerNode: {
        ours: ours.retainedBytesPerNode,
        oursProjection: projected.retainedBytesPerNode,
        clientNodeMakeInformer: theirs.retainedBytesPerNode,
        kfcWatch: kfc.retainedBytesPerNode,
      },
      memoryRatio: {
        clientNodeOverOurs: ratio(theirs.retainedBytesPerNode, ours.retainedBytesPerNode),
        clientNodeOverOursProjection: ratio(
          theirs.retainedBytesPerNode,
          projected.retainedBytesPerNode,
        ),
        kfcOverOurs: ratio(kfc.retainedBytesPerNode, ours.retainedBytesPerNode),
        kfcOverOursProjection: ratio(kfc.retainedBytesPerNode, projected.retainedBytesPerNode),
      },
      syncMs: {
        ours: ours.syncMs,
        oursProjection: projected.syncMs,
        clientNodeMakeInformer: theirs.syncMs,
        kfcWatch: kfc.syncMs,
      },
      syncRatio: {
        clientNodeOverOurs: ratio(theirs.syncMs, ours.syncMs),
        kfcOverOurs: ratio(kfc.syncMs, ours.syncMs),
      },
      steadyStateRequestsIn3s: {
        ours: ours.steadyStateRequests,
        oursProjection: projected.steadyStateRequests,
      },
      targets: {
        projectionAtMost1KiBPerNode: projected.retainedBytesPerNode <= 1024,
        noRequestPerNodeInSteadyState:
          ours.steadyStateRequests === 0 && projected.steadyStateRequests === 0,
      },
    });
  } finally {
    await source.stop();
  }
}

async function main(): Promise<void> {
  if (ONLY !== 'informers') {
    for (const line of await benchQueue()) print(line);
    for (const line of benchHealth()) print(line);
  }
  if (ONLY !== 'micro') await informers();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
