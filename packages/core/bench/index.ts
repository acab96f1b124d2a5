// pnpm bench:core -> JSON lines: work-queue throughput; informer retained heap per Node and
// initial sync time for 10,000 realistic Nodes, ours (default transform, projection) vs
// @kubernetes/client-node's makeInformer, all in the same run, with ratios side by side.
import { benchQueue } from './queue.js';
import { openSource } from './source.js';
import { benchClientNode, benchOurs, type InformerResult } from './informers.js';

const NODES = Number(process.env['BENCH_NODES'] ?? 10_000);
const print = (o: object): void => {
  process.stdout.write(`${JSON.stringify(o)}\n`);
};

async function main(): Promise<void> {
  for (const line of await benchQueue()) print(line);

  const source = await openSource(NODES, print);
  try {
    const results: InformerResult[] = [];
    // Order: the comparison runs in between ours, so neither side benefits from warm-up alone.
    for (const run of [
      () => benchOurs(source.kubeConfig, NODES, false, 3000),
      () => benchClientNode(source.kubeConfig, NODES),
      () => benchOurs(source.kubeConfig, NODES, true, 3000),
    ]) {
      const r = await run();
      results.push(r);
      print({ bench: 'informer', source: source.kind, ...r });
    }
    const [ours, theirs, projected] = results as [InformerResult, InformerResult, InformerResult];
    print({
      bench: 'informer-summary',
      source: source.kind,
      nodes: NODES,
      retainedBytesPerNode: {
        ours: ours.retainedBytesPerNode,
        oursProjection: projected.retainedBytesPerNode,
        clientNodeMakeInformer: theirs.retainedBytesPerNode,
      },
      memoryRatio: {
        clientNodeOverOurs: +(theirs.retainedBytesPerNode / ours.retainedBytesPerNode).toFixed(2),
        clientNodeOverOursProjection: +(
          theirs.retainedBytesPerNode / projected.retainedBytesPerNode
        ).toFixed(2),
      },
      syncMs: {
        ours: ours.syncMs,
        oursProjection: projected.syncMs,
        clientNodeMakeInformer: theirs.syncMs,
      },
      syncRatio: { clientNodeOverOurs: +(theirs.syncMs / ours.syncMs).toFixed(2) },
      steadyStateRequestsIn3s: {
        ours: ours.steadyStateRequests,
        oursProjection: projected.steadyStateRequests,
      },
      targets: {
        projectionAtMost1KiBPerNode: projected.retainedBytesPerNode <= 1024,
        syncUnder3s:
          source.kind === 'envtest-kube-apiserver'
            ? ours.syncMs < 3000
            : 'n/a (no real kube-apiserver)',
        noRequestPerNodeInSteadyState:
          ours.steadyStateRequests === 0 && projected.steadyStateRequests === 0,
      },
    });
  } finally {
    await source.stop();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
