// Wiring: the standalone auto-repair controller on a Manager. One Node informer (a small
// projection, optionally narrowed by a label selector), one controller reconciling Node
// names, the state store (annotation, or memory in dry-run), events, metrics, the
// DrainPort over the KubeClient and the MachineProvider.
import type { KubeClient } from '../kube/client.js';
import { NodeResource } from '../kube/resource.js';
import type { KubeNode } from '../kube/types.js';
import { kubeDrainPort } from '../drain/kube-port.js';
import type { RepairPolicy } from '../health/policy.js';
import { DryRunProvider } from '../provider/dry-run.js';
import type { MachineProvider } from '../provider/port.js';
import type { Clock } from '../runtime/clock.js';
import type { Controller } from '../runtime/controller/controller.js';
import type { Predicate } from '../runtime/controller/predicates.js';
import { EventRecorder } from '../runtime/helpers/event-recorder.js';
import type { Manager } from '../runtime/manager/manager.js';
import type { Informer } from '../runtime/reflector/informer.js';
import type { DrainTuning } from './executor.js';
import { LatchStore, latchLeaseName, type LatchRef } from './latch.js';
import { AutoRepairMetrics } from './metrics.js';
import { NodeReconciler } from './node-reconciler.js';
import { kubeNodeDeletePort } from './replace-step.js';
import { nodeViewChanged, toNodeView, watchedAnnotations, type NodeView } from './node-view.js';
import { AnnotationStateStore, MemoryStateStore, type StateStore } from './state-store.js';

/** Default controller name (logs, metrics, the informer's name prefix). */
export const AutoRepairControllerName = 'noderepair-autorepair';
/** reportingController of the Events the auto-repair controller records. */
export const AutoRepairReportingController = 'noderepair.io/autorepair';

/** Options of addAutoRepairController: the client, the repair policy and optional tuning. */
export interface AutoRepairOptions {
  /** The client the informer, the state store, the drain and the Events go through. */
  client: KubeClient;
  /**
   * The resolved repair policy; when it is dry-run, the provider and the state store are in-memory
   * stand-ins.
   */
  policy: RepairPolicy;
  /**
   * Where Remediate actions go. Default (and always when the policy is dry-run): the
   * built-in DryRunProvider, which records and acts on nothing (and fences nothing).
   * A legacy RebootProvider goes through machineProviderFromRebootProvider.
   */
  provider?: MachineProvider;
  /** Only Nodes matching this selector are watched, judged and counted by the storm guard. */
  labelSelector?: string;
  /** Controller name (logs, metrics); default noderepair-autorepair. */
  name?: string;
  /** reportingInstance of the Events; default the host name or pid. */
  instance?: string;
  /** Parallel reconciles; admission to the storm guard is serialised anyway. Default 4. */
  concurrency?: number;
  /** Every watched Node is looked at again at least this often. Default 5 min. */
  maxResyncIntervalMs?: number;
  /** Drain timing and eviction tuning; defaults in DrainTuning. */
  drain?: DrainTuning;
  /** Time for drains and waits (tests pass a ManualClock); default systemClock. */
  clock?: Clock;
  /** Clock of the decisions, in epoch milliseconds; default the clock's now. */
  now?: () => number;
  /**
   * Our holder identity in the per-node disruption leases: one per install, the same for its
   * replicas and restarts (installLeaseHolder; `noderepair run` derives it from its
   * leader-election Lease). Default the legacy `noderepair`, which every install without one
   * shares: two such installs on the same nodes take each other's leases as their own.
   */
  leaseHolder?: string;
  /**
   * Where the storm guard's latch is persisted when the policy has one (stormGuard.latch): a
   * Lease's namespace and name. `noderepair run` uses its leader-election namespace and
   * `<leader-election-id>-latch`; default kube-system/noderepair-autorepair-latch. In dry-run
   * the latch lives in memory.
   */
  latch?: LatchRef;
}

/** What addAutoRepairController added to the Manager, for tests and callers that inspect it. */
export interface AutoRepairController {
  /** The Node informer (a NodeView projection, narrowed by the label selector if any). */
  readonly informer: Informer<KubeNode, NodeView>;
  /** The controller reconciling Node names. */
  readonly controller: Controller;
  /** The auto-repair metrics, registered on the Manager's registry. */
  readonly metrics: AutoRepairMetrics;
  /** The provider actions go to (the DryRunProvider in dry-run or when none was given). */
  readonly provider: MachineProvider;
  /** Where each Node's repair state is kept (its annotation, or memory in dry-run). */
  readonly store: StateStore;
  /** The reconciler the controller runs. */
  readonly reconciler: NodeReconciler;
}

/** Changes that matter to the decision: anything in the projection (not heartbeats). */
export const nodeViewPredicate: Predicate<NodeView> = {
  update: (a, b) => nodeViewChanged(a, b),
};

/** Adds the auto-repair informer and controller to a Manager (call before manager.start()). */
export function addAutoRepairController(
  manager: Manager,
  opts: AutoRepairOptions,
): AutoRepairController {
  const { client, policy } = opts;
  const name = opts.name ?? AutoRepairControllerName;
  const keys = watchedAnnotations(policy);
  const informer = manager.informer<KubeNode, NodeView>(client, NodeResource, {
    name: `${name}-nodes`,
    transform: (n) => toNodeView(n, keys),
    ...(opts.labelSelector !== undefined ? { labelSelector: opts.labelSelector } : {}),
  });
  const metrics = new AutoRepairMetrics(manager.metrics.registry);
  const provider: MachineProvider = policy.dryRun
    ? new DryRunProvider()
    : (opts.provider ?? new DryRunProvider());
  const store: StateStore = policy.dryRun
    ? new MemoryStateStore()
    : new AnnotationStateStore(client, policy.annotations.state);
  const events = new EventRecorder(client, {
    reportingController: AutoRepairReportingController,
    reportingInstance: opts.instance ?? `${name}-${process.pid}`,
    logger: manager.log,
  });
  // One source of time by default: the injected clock's, unless a test sets now apart.
  const now = opts.now ?? (opts.clock !== undefined ? () => opts.clock!.now() : Date.now);
  // Burst admission wakes the nodes it admitted; the controller is made after the reconciler.
  let wake: (name: string) => void = () => undefined;
  const reconciler = new NodeReconciler({
    client,
    cache: informer,
    policy,
    store,
    provider,
    metrics,
    log: manager.log.child({ controller: name }),
    now,
    drainPort: kubeDrainPort(client),
    nodes: kubeNodeDeletePort(client),
    recordEvent: (node, ev) =>
      events.record({ apiVersion: 'v1', kind: 'Node', metadata: node.metadata ?? {} }, ev),
    ...(opts.drain !== undefined ? { drain: opts.drain } : {}),
    ...(opts.clock !== undefined ? { clock: opts.clock } : {}),
    wake: (n) => wake(n),
    ...(opts.leaseHolder !== undefined ? { leaseHolder: opts.leaseHolder } : {}),
    ...(policy.stormGuard.latch !== undefined && !policy.dryRun
      ? {
          latch: new LatchStore(
            client,
            opts.latch ?? {
              namespace: 'kube-system',
              name: latchLeaseName(AutoRepairControllerName),
            },
          ),
        }
      : {}),
  });
  const controller = manager
    .controller({
      name,
      concurrency: opts.concurrency ?? 4,
      maxResyncIntervalMs: opts.maxResyncIntervalMs ?? 5 * 60_000,
      reconcile: reconciler.reconcile,
    })
    .for(informer, [nodeViewPredicate]);
  // Nodes are cluster-scoped: the request key is the name.
  wake = (n) => controller.queue.add(n);
  return { informer, controller, metrics, provider, store, reconciler };
}
