// One simulation run: the REAL NodeReconciler of the standalone controller (with its real
// executor, drain phase, fence step, coordinator and burst admission) driven on a ManualClock
// against SimKube and SimCloud, the faults of the seed's schedule applied by World.
// The scheduler stands in for the runtime's Controller and Informer: a Node change the
// informer's predicate would pass (nodeViewChanged) makes the node due at once, requeueAfter
// later, errors and requeue:true back off as the runtime's rate limiter does (5 ms doubling
// to 1000 s), and every node is due again within the 5 min resync. One reconcile at a time
// (the runtime runs 4 at once): concurrency is the next slice. A scheduled crash replaces
// the reconciler with a new one (crash.ts).
import { Registry } from 'prom-client';
import { either } from 'fp-ts';
import {
  AnnotationStateStore,
  AutoRepairMetrics,
  NodeReconciler,
  kubeNodeDeletePort,
  watchedAnnotations,
  type NodeCache,
} from '@noderepair/core/autorepair';
import type { KubeClient, KubeNode } from '@noderepair/core/kube';
import { kubeDrainPort, type DrainPort } from '@noderepair/core/drain';
import { parseRepairState, resolveRepairPolicy, type RepairPolicy } from '@noderepair/core/health';
import type { MachineProvider } from '@noderepair/core/provider';
import { silentLogger } from '@noderepair/core/runtime';
import { ManualClock } from '@noderepair/core/testing';
import { Agenda } from './agenda.js';
import { History } from './history.js';
import { Prng } from './prng.js';
import { drawSchedule, type Fault } from './schedule.js';
import { settle } from './settle.js';
import { CrashSwitch } from './crash.js';
import { InformerCache } from './informer-cache.js';
import { SimCloud } from './sim-cloud.js';
import { SimKube } from './sim-kube.js';
import { simPolicyDoc } from './policy.js';
import { World } from './world.js';
import { RESYNC_MS } from './model.js';

/** What a run is made of; everything but the seed has a default. */
export interface RunOptions {
  seed: number;
  /** Number of nodes (node-00 ...), spread over three zones. Default 30. */
  nodes?: number;
  /** Virtual minutes simulated. Default 120. */
  minutes?: number;
  /** The repair policy document (resolveRepairPolicy's input). Default simPolicyDoc. */
  policyDoc?: unknown;
  /** Wraps the provider the controller talks to (the mutant checks break it on purpose). */
  wrapProvider?: (p: MachineProvider) => MachineProvider;
  /** Wraps the cache the controller reads the fleet from (a mutant check breaks it). */
  wrapCache?: (c: NodeCache) => NodeCache;
  /** Wraps the Kubernetes client the reconciler reads and writes through (a mutant check). */
  wrapClient?: (c: KubeClient) => KubeClient;
  /** Wraps the drain port (cordon, evictions, taints) the executor uses (a mutant check). */
  wrapDrainPort?: (p: DrainPort) => DrainPort;
  /**
   * The fault schedule to run instead of the one drawn from the seed (a shrunk schedule
   * replayed: shrink.ts). The seed still drives the world's own draws as the run goes.
   */
  faults?: readonly Fault[];
  /**
   * Virtual minutes run after `minutes` with no fault drawn in them (a person's late restart
   * or uncordon may still land there), so liveness (h) can be judged. Default QUIET_MINUTES.
   */
  quietMinutes?: number;
  /**
   * node-problem-detector runs on the nodes (World.npd): a hung kubelet on an even-numbered
   * node is reported as KernelDeadlock=True too. Default false (POLICY=npd sets it).
   */
  npd?: boolean;
}

/**
 * The default quiet tail: the liveness bound (liveness.ts) of two queued repairs under the
 * simulation policy is 39 min; 60 leaves room for a fault that ends late.
 */
export const QUIET_MINUTES = 60;

/** What a run leaves: its faults, its history and the policy the invariants judge it by. */
export interface RunResult {
  seed: number;
  faults: Fault[];
  history: History;
  policy: RepairPolicy;
  reconciles: number;
  /** Calls SimKube refused (outage, timeout) or conflicted on purpose, by verb. */
  kubeRefused: Record<string, number>;
}

const T0 = Date.parse('2026-01-01T00:00:00Z');

/** Runs one seed to its end and returns the recorded history. Deterministic in its options. */
export async function runSim(opts: RunOptions): Promise<RunResult> {
  const n = opts.nodes ?? 30;
  const minutes = opts.minutes ?? 120;
  const parsed = resolveRepairPolicy(opts.policyDoc ?? simPolicyDoc);
  if (either.isLeft(parsed)) throw new Error(`policy: ${parsed.left}`);
  const policy = parsed.right;
  const clock = new ManualClock(T0);
  const history = new History(() => clock.now() - T0);
  // Two streams from the seed: the schedule's, and the one the world draws from as it runs.
  const rand = new Prng(opts.seed ^ 0x5bd1e995);
  const kube = new SimKube(
    () => rand.next(),
    () => clock.now(),
  );
  const cloud = new SimCloud(
    history,
    () => rand.next(),
    () => clock.now(),
  );
  const agenda = new Agenda();
  const world = new World(
    kube,
    cloud,
    agenda,
    history,
    () => clock.now(),
    T0,
    () => rand.next(),
  );
  world.npd = opts.npd === true;
  const names = Array.from({ length: n }, (_, i) => `node-${String(i).padStart(2, '0')}`);

  // The informer's cache (informer-cache.ts), lagging during watch-lag faults; an event wakes
  // the node's reconcile. The history records each state write when SimKube accepts it.
  const due = new Map<string, number>();
  const wake = (name: string) => due.set(name, Math.min(due.get(name) ?? Infinity, clock.now()));
  const stateKey = policy.annotations.state;
  const cache = new InformerCache(clock, watchedAnnotations(policy), () => world.watchLag(), wake);
  const written = new Map<string, string>();
  kube.onNodeChange((name, node) => {
    cache.changed(name, node);
    const now = node?.metadata?.annotations?.[stateKey];
    if (now !== undefined && now !== written.get(name))
      recordState(history, name, now, world.active);
    if (now === undefined) written.delete(name);
    else written.set(name, now);
  });

  for (const [i, name] of names.entries()) world.addNode(name, `zone-${i % 3}`);
  const faults =
    opts.faults !== undefined
      ? [...opts.faults]
      : drawSchedule(opts.seed, { nodes: names, minutes });
  world.schedule(faults);

  // A crash aborts the process's signal and starts the next process (a new reconciler); the
  // new one lists every Node at start, as its informer would.
  let proc = new AbortController();
  const crashes = new CrashSwitch((why) => {
    proc.abort(new Error(`controller crashed (${why})`));
    history.add({ kind: 'fault', fault: 'controller crashes and restarts', detail: why });
    proc = new AbortController();
    reconciler = newReconciler();
    // The new informer's LIST (resourceVersion 0) is served from the apiserver's watch cache:
    // during a watch-lag fault it is as late as the watch (the cache keeps what it had and the
    // pending deliveries); otherwise it is fresh.
    if (!world.active.has('watch-lag')) cache.relist(kube.all<KubeNode>('Node'));
    for (const name of cache.names()) due.set(name, clock.now());
  });
  world.onCrash = (point) => crashes.arm(point);
  // 410 Gone: the informer relists from the apiserver (a consistent read: fresh, not the
  // lagging watch cache), failing while it is down.
  world.onWatchExpired = (listMs) =>
    cache.expire(
      listMs,
      () => (kube.faults.outage ? undefined : kube.all<KubeNode>('Node')),
      (detail) => history.add({ kind: 'fault', fault: 'informer', detail }),
    );
  const provider = crashes.wrap(opts.wrapProvider !== undefined ? opts.wrapProvider(cloud) : cloud);
  const client = opts.wrapClient !== undefined ? opts.wrapClient(kube) : kube;
  const drainPort = kubeDrainPort(client);
  const newReconciler = () =>
    new NodeReconciler({
      client,
      cache: opts.wrapCache !== undefined ? opts.wrapCache(cache) : cache,
      policy,
      store: new AnnotationStateStore(kube, stateKey),
      provider,
      metrics: new AutoRepairMetrics(new Registry()),
      log: silentLogger,
      now: () => clock.now(),
      clock,
      drainPort: opts.wrapDrainPort !== undefined ? opts.wrapDrainPort(drainPort) : drainPort,
      nodes: kubeNodeDeletePort(client),
      recordEvent: async () => undefined,
      wake,
      leaseHolder: 'noderepair/sim/sim',
    });
  let reconciler = newReconciler();
  const failures = new Map<string, number>();
  const end = T0 + (minutes + (opts.quietMinutes ?? QUIET_MINUTES)) * 60_000;
  let reconciles = 0;

  for (;;) {
    const nextDue = Math.min(...due.values());
    // While watch deliveries are pending on the clock, step at most 1 s so the nodes they
    // wake are reconciled on time.
    const cap = clock.pending > 0 ? clock.now() + 1000 : Infinity;
    const t = Math.max(clock.now(), Math.min(nextDue, agenda.next(), cap));
    if (t > end) break;
    clock.advance(t - clock.now());
    agenda.runUntil(t);
    for (const name of [...due.keys()].sort()) {
      if ((due.get(name) ?? Infinity) > clock.now()) continue;
      due.delete(name);
      reconciles++;
      let next: number;
      try {
        const ctx = { signal: proc.signal, log: silentLogger, retries: failures.get(name) ?? 0 };
        const r = await settle(reconciler.reconcile({ name }, ctx), clock);
        if (r.requeue === true) next = backoff(failures, name);
        else {
          failures.delete(name);
          next = r.requeueAfter !== undefined ? r.requeueAfter : RESYNC_MS;
        }
      } catch (e) {
        history.add({
          kind: 'error',
          node: name,
          message: e instanceof Error ? e.message : String(e),
        });
        next = backoff(failures, name);
      }
      const at = clock.now() + Math.min(next, RESYNC_MS);
      due.set(name, Math.min(due.get(name) ?? Infinity, at));
    }
  }
  clock.advance(end - clock.now());
  history.add({ kind: 'end' });
  return { seed: opts.seed, faults, history, policy, reconciles, kubeRefused: { ...kube.refused } };
}

/** The runtime's rate limiter: 5 ms doubling per consecutive failure, at most 1000 s. */
function backoff(failures: Map<string, number>, name: string): number {
  const f = failures.get(name) ?? 0;
  failures.set(name, f + 1);
  return Math.min(5 * 2 ** f, 1_000_000);
}

function recordState(
  history: History,
  node: string,
  raw: string,
  active: Map<string, number>,
): void {
  const p = parseRepairState(raw);
  const st = either.isRight(p) ? p.right : undefined;
  const rem = st?.remediation;
  const during = [...active.keys()]
    .filter((k) => k === 'kube-outage' || k === 'cloud-outage')
    .join(',');
  history.add({
    kind: 'state',
    node,
    phase: st?.phase ?? 'unreadable',
    ...(rem !== undefined
      ? {
          remediationId: rem.id,
          step: rem.step,
          attempt: rem.attempt,
          ...(rem.intent !== undefined
            ? {
                actionId: rem.intent.actionId,
                action: rem.intent.action,
                completed: rem.intent.completedAt !== undefined,
                ...(rem.intent.result !== undefined ? { result: rem.intent.result } : {}),
              }
            : {}),
        }
      : {}),
    ...(during !== '' ? { during } : {}),
  });
}
