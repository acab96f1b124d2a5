// The kwok-style node writer: ONE cheap client that posts Node objects and, now and then,
// their status, instead of one fake kubelet per node. With no kube-controller-manager
// running, nothing else touches the Nodes' conditions, so they stay exactly as posted:
// Ready=True until the bench itself posts Ready=False for the 1 % that "fail".
import { NodeResource, type KubeClient, type KubeNode } from '@noderepair/core';
import { realisticNode } from '../../../core/bench/nodes.js';

export const WORKER_SUFFIX = 'w';
export const POOL_LABEL = 'noderepair.dev/bench-pool';

/** Node and Machine name of worker i. */
export const workerName = (i: number): string =>
  `bench-${WORKER_SUFFIX}-${String(i).padStart(5, '0')}`;

/** A stable, unique server uuid per worker (the OpenStack provider ID's shape). */
export const workerProviderID = (i: number): string =>
  `openstack:///00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

const CONDITION_TYPES = [
  'MemoryPressure',
  'DiskPressure',
  'PIDPressure',
  'NetworkUnavailable',
  'Ready',
];

/** The Node a busy worker's kubelet would have posted, Ready since `now`. Pure. */
export function workerNode(i: number, now: Date): KubeNode {
  const n = realisticNode(i, WORKER_SUFFIX);
  const t = now.toISOString().replace(/\.\d+Z$/, 'Z');
  n.metadata!.labels = { ...n.metadata!.labels, [POOL_LABEL]: 'workers' };
  n.spec = { ...n.spec, providerID: workerProviderID(i) };
  n.status!.conditions = n.status!.conditions!.map((c) => ({
    ...c,
    lastHeartbeatTime: t,
    lastTransitionTime: t,
  }));
  return n;
}

/** Runs `fn` over the items with at most `concurrency` in flight; rejects on the first error. */
export async function forEachLimited<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

export async function createWorkerNodes(
  client: KubeClient,
  indexes: readonly number[],
): Promise<void> {
  await forEachLimited(indexes, 16, async (i) => {
    await client.create(NodeResource, workerNode(i, new Date()));
  });
}

const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** Posts the Ready condition as a kubelet would (a strategic merge on nodes/status). */
export async function postReady(
  client: KubeClient,
  name: string,
  status: 'True' | 'False',
  atMs: number,
): Promise<void> {
  const t = rfc3339(atMs);
  const ready =
    status === 'True'
      ? { reason: 'KubeletReady', message: 'kubelet is posting ready status' }
      : { reason: 'KubeletNotReady', message: 'container runtime is down' };
  await client.patch(
    NodeResource,
    name,
    {
      type: 'strategic',
      body: {
        status: {
          conditions: [
            { type: 'Ready', status, ...ready, lastHeartbeatTime: t, lastTransitionTime: t },
          ],
        },
      },
    },
    { subresource: 'status' },
  );
}

/**
 * Status heartbeats at a kubelet's pace: every node posts its (unchanged) conditions once
 * per `periodMs` (the kubelet's nodeStatusReportFrequency is 5 min when nothing changes),
 * spread evenly, round robin. Node Leases are not renewed: neither controller reads them.
 */
export class Heartbeats {
  private timer: NodeJS.Timeout | undefined;
  private cursor = 0;
  private inFlight = 0;
  sent = 0;
  errors = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly names: () => readonly string[],
    private readonly periodMs: number,
  ) {}

  start(): void {
    const tickMs = 200;
    let carry = 0;
    this.timer = setInterval(() => {
      const names = this.names();
      if (names.length === 0) return;
      carry += (names.length * tickMs) / this.periodMs;
      // Never pile up behind a slow server: skip a beat rather than queue.
      while (carry >= 1 && this.inFlight < 32) {
        carry -= 1;
        const name = names[this.cursor++ % names.length] as string;
        this.inFlight++;
        const t = rfc3339(Date.now());
        this.client
          .patch(
            NodeResource,
            name,
            {
              type: 'strategic',
              body: {
                status: {
                  conditions: CONDITION_TYPES.map((type) => ({ type, lastHeartbeatTime: t })),
                },
              },
            },
            { subresource: 'status' },
          )
          .then(
            () => this.sent++,
            () => this.errors++,
          )
          .finally(() => this.inFlight--);
      }
      if (carry > 32) carry = 0;
    }, tickMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
