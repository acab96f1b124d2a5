// The floor under the burst target: the requests that any controller keeping noderepair's
// safety rules must make to start the burst's members, timed alone on the same apiserver, with
// both controllers stopped and this process's connections already open (a warm-up round first).
// No decision, no cache, no queue: only the requests. Per member:
//  - a GET of the Node: the decision to start is taken on what the server holds now, not on a
//    cached view (the chaos zone-storm cooldown scenario failed an attempt without it);
//  - dry run (what the bench's controller does): its RepairStarted Event, which the bench times;
//  - a real run adds, before the Event: its disruption Lease (created, never overwritten) and its
//    intent written on the Node at the resourceVersion just read (a conflict means "decide again").
// The GETs go 16 at once, as the controller's fresh reads do; each member's writes run in
// parallel with every other member's. Measured, never asserted.
import {
  createKubeClient,
  EventResource,
  LeaseResource,
  NodeResource,
  type KubeClient,
  type KubeNode,
} from '@noderepair/core/kube';
import { BENCH_NAMESPACE } from '../cluster/identities.js';
import { forEachLimited } from '../cluster/node-writer.js';

/** As many GETs in flight as burst admission's fresh reads (core autorepair/burst.ts). */
const READS_AT_ONCE = 16;
const ROUNDS = 3;
const FLOOR_ANNOTATION = 'bench.noderepair.io/admission-floor';

export interface AdmissionFloor {
  members: number;
  /** Fastest of the rounds: GETs, then every member's Event. What the bench's dry run needs. */
  dryRunMs: number;
  /** Fastest of the rounds: GETs, then per member Lease, intent on the Node, Event. */
  realRunMs: number;
  rounds: { dryRunMs: number; realRunMs: number }[];
}

const log = (s: string) => process.stderr.write(`bench: ${s}\n`);

function event(node: string, tag: string): Record<string, unknown> {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: `${node}.floor-${tag}`, namespace: 'default' },
    eventTime: new Date().toISOString().replace('Z', '000Z'),
    reportingController: 'bench.noderepair.io/admission-floor',
    reportingInstance: 'bench',
    action: 'Repair',
    reason: 'AdmissionFloor',
    type: 'Normal',
    note: 'timing the requests a repair start needs',
    regarding: { apiVersion: 'v1', kind: 'Node', name: node },
  };
}

async function round(
  c: KubeClient,
  names: readonly string[],
  tag: string,
  real: boolean,
): Promise<number> {
  const t0 = performance.now();
  const fresh = new Map<string, KubeNode>();
  await forEachLimited(names, READS_AT_ONCE, async (n) => {
    fresh.set(n, await c.get<KubeNode>(NodeResource, n));
  });
  await Promise.all(
    names.map(async (n) => {
      if (real) {
        await c.create(LeaseResource, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: `floor-${tag}-${n}`, namespace: BENCH_NAMESPACE },
          spec: { holderIdentity: 'bench', leaseDurationSeconds: 60 },
        } as never);
        await c.patch(NodeResource, n, {
          type: 'merge',
          body: { metadata: { annotations: { [FLOOR_ANNOTATION]: tag } } },
          resourceVersion: fresh.get(n)?.metadata?.resourceVersion,
        });
      }
      await c.create(EventResource, event(n, tag) as never);
    }),
  );
  return Math.round(performance.now() - t0);
}

/**
 * Call with both controllers stopped; `names` are existing Nodes (the burst's members), and
 * `kubeConfig` is our controller's identity (its own APF flow, as in the burst).
 */
export async function measureAdmissionFloor(
  kubeConfig: Parameters<typeof createKubeClient>[0],
  names: readonly string[],
): Promise<AdmissionFloor> {
  const c = createKubeClient(kubeConfig);
  const stamp = Date.now().toString(36);
  // Warm-up (not counted): opens the connections a running controller would already hold.
  await round(c, names, `${stamp}-w`, true);
  const rounds: AdmissionFloor['rounds'] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const dryRunMs = await round(c, names, `${stamp}-d${i}`, false);
    const realRunMs = await round(c, names, `${stamp}-r${i}`, true);
    rounds.push({ dryRunMs, realRunMs });
  }
  // Clean up (not timed): the Leases, and the annotation off the Nodes.
  const tags = [`${stamp}-w`, ...rounds.map((_, i) => `${stamp}-r${i}`)];
  const leases = tags.flatMap((t) => names.map((n) => `floor-${t}-${n}`));
  await forEachLimited(leases, READS_AT_ONCE, (l) =>
    c.delete(LeaseResource, l, { namespace: BENCH_NAMESPACE }).catch(() => undefined),
  );
  await forEachLimited(names, READS_AT_ONCE, async (n) => {
    await c.patch(NodeResource, n, {
      type: 'merge',
      body: { metadata: { annotations: { [FLOOR_ANNOTATION]: null } } },
    });
  });
  const floor: AdmissionFloor = {
    members: names.length,
    dryRunMs: Math.min(...rounds.map((r) => r.dryRunMs)),
    realRunMs: Math.min(...rounds.map((r) => r.realRunMs)),
    rounds,
  };
  log(`admission floor: ${JSON.stringify(floor)}`);
  return floor;
}
