// The per-node reconcile of the auto-repair controller (the imperative shell around
// health/fleet-decider.ts, the decider `noderepair simulate` replays traces through). Read
// the Node fresh and its persisted state. A node that does not want to start a repair is
// decided alone (decideAlone: the storm guard cannot change its decision), so a reconcile
// costs O(1) in the fleet size and a 5,000-node initial sync is not 5,000 x 5,000
// assessments. A node that wants to start goes under the admission lock:
// read again, decide with the storm guard over every watched node, persist the next state
// (optimistic lock on resourceVersion) and wait until the cache shows it, so the next
// admission counts it. Then, outside the lock: run the actions (cordon, drain, reboot, ...),
// record the reboot's outcome, requeue. Other actors (their holds on the fleet pass, our
// disruption lease around each repair, the NodeRepairHeld condition) are coordinator.ts.
import * as either from 'fp-ts/lib/Either.js';
import type { KubeClient } from '../kube/client.js';
import { ConflictError, NotFoundError } from '../kube/errors.js';
import { NodeReplacedError } from '../drain/port.js';
import { LeaseResource, NodeResource } from '../kube/resource.js';
import type { KubeLease, KubeNode } from '../kube/types.js';
import type { FleetMember } from '../health/fleet.js';
import { newFleetDecider, type FleetDecider } from '../health/fleet-decider.js';
import { isInFlight } from '../health/storm-guard.js';
import {
  DECIDE_AGAIN_AFTER_OUTCOME_MS,
  recordDrain,
  recordFence,
  recordOutcome,
  type RepairDecision,
} from '../health/decide.js';
import { recordReplace } from '../health/replace.js';
import { recordUnavailable } from '../health/drain-phase.js';
import { attemptTimedOut, needsPowerState, shutdownPastDeadline } from '../health/power-check.js';
import type { PowerState } from '../provider/port.js';
import type { RepairPolicy } from '../health/policy.js';
import type { FenceRecord, Remediation, RepairPhase, RepairState } from '../health/state.js';
import { policyForRule } from '../health/condition-rules.js';
import { systemClock } from '../runtime/clock.js';
import type { EventInput } from '../runtime/helpers/event-recorder.js';
import type {
  ReconcileContext,
  ReconcileRequest,
  ReconcileResult,
} from '../runtime/controller/reconciler.js';
import type { RuntimeLogger } from '../runtime/logger.js';
import { endsInSuccess, EventReasons, startsRemediation, transitionEvents } from './events.js';
import { nodeGoneAfterReplace } from './replace-step.js';
import { RepairStory } from './story.js';
import type { DeleteNodeAction } from '../health/replace.js';
import { executeActions, type ExecutorDeps } from './executor.js';
import { countPhases } from './metrics.js';
import { Coordinator, LeaseHeldError, LeaseTakenOverError } from './coordinator.js';
import { unreadableStateCondition } from './held-condition.js';
import type { LatchStore } from './latch.js';
import { repairTimes } from './repair-times.js';
import { writeHeldCondition } from './held-condition-write.js';
import { Mutex } from './mutex.js';
import { Burst } from './burst.js';
import { CacheChanges, type ChangeSource } from './cache-changes.js';
import type { NodeView } from './node-view.js';
import { worthPersisting, type StateStore } from './state-store.js';

/** The cache the reconciler reads the rest of the fleet from (an Informer fits). */
export interface NodeCache extends Partial<ChangeSource<NodeView>> {
  /** The cached projection of the named Node, or undefined when it is not watched. */
  get(name: string): NodeView | undefined;
  /** Every watched Node. */
  list(): NodeView[];
}

/**
 * What the NodeReconciler works with: the executor's ports plus the client, the cache, the policy
 * and the state store.
 */
export interface NodeReconcilerDeps extends Omit<ExecutorDeps, 'event'> {
  /** Reads Nodes fresh (and their Leases) and patches the NodeRepairHeld condition. */
  client: KubeClient;
  /** The informer's cache the rest of the fleet is counted from. */
  cache: NodeCache;
  /** The resolved repair policy. */
  policy: RepairPolicy;
  /** Where each Node's repair state is read and written. */
  store: StateStore;
  /** Records an Event about the Node (only its metadata is read). */
  recordEvent: (node: Pick<KubeNode, 'metadata'>, ev: EventInput) => Promise<void>;
  /** How long to wait for the cache to show our own write before going on. Default 10 s. */
  cacheSyncTimeoutMs?: number;
  /**
   * Enqueues a node's reconcile (the runtime Controller's queue): burst admission wakes the
   * members it admitted. Without it they run at their next event or resync.
   */
  wake?: (name: string) => void;
  /** Our holder identity in disruption leases (Coordinator); default the legacy `noderepair`. */
  leaseHolder?: string;
  /**
   * Where the storm guard's latch is persisted (stormGuard.latch). Without it (dry-run) a
   * latch this process sets lives in its memory until it stops.
   */
  latch?: LatchStore;
}

interface Decided {
  decision: RepairDecision;
  /** As read fresh, or the cached view when nothing is written (decideFromCache). */
  node: KubeNode | NodeView | undefined;
  previous: RepairState | undefined;
  /** Admitted by a burst (burst.ts): its events and metrics are recorded already. */
  announced?: true;
}

/** A state this controller wrote, as the apiserver accepted it. */
interface Written {
  state: RepairState;
  /** The serialized state (the cache shows it once the informer caught up). */
  encoded: string;
  /** The Node's resourceVersion the write's response carried. */
  resourceVersion: string | undefined;
}

/**
 * True when the cached view is our write or newer: its resourceVersion is the write's, or
 * later (resourceVersions are etcd revisions: decimal integers, compared as such only when
 * both parse), or it shows the state we wrote.
 */
function cacheShows(view: NodeView, w: Written, stored: string | undefined): boolean {
  if (stored === w.encoded) return true;
  const rv = view.metadata.resourceVersion;
  if (rv === undefined || w.resourceVersion === undefined) return false;
  if (rv === w.resourceVersion) return true;
  const decimal = /^\d+$/;
  return (
    decimal.test(rv) && decimal.test(w.resourceVersion) && BigInt(rv) >= BigInt(w.resourceVersion)
  );
}

/** The Node as read fresh and its persisted state. */
interface Seen {
  node: KubeNode | undefined;
  previous: RepairState | undefined;
  self: FleetMember;
}

/**
 * The Node's repair state cannot be read (garbled, or written by a newer version): nothing is
 * decided, written or done for it until a person fixes or removes the annotation.
 */
interface Unreadable {
  unreadable: { node: KubeNode; problem: string };
}

function isUnreadable<T extends object>(x: T | Unreadable | undefined): x is Unreadable {
  return x !== undefined && 'unreadable' in x;
}

/**
 * The per-node reconcile of the auto-repair controller: read, decide (under the admission lock when
 * a repair may start), persist, then act. Give its `reconcile` to a runtime Controller.
 */
export class NodeReconciler {
  private readonly lock = new Mutex();
  private readonly log: RuntimeLogger;
  /**
   * The decider the simulator uses too: the storm guard's memory and tripped flag between
   * fleet passes. Made at our first reconcile (after winning the lease, for a replica that
   * waited): a storm we did not see may have just lifted, so the nodes it held wait out the
   * cooldown.
   */
  private decider: FleetDecider | undefined;
  /**
   * Nodes whose last decision was the DeleteNode step after an accepted Replace. Such a Node
   * that disappears before the step deleted it (a cloud-controller-manager removes the Nodes of
   * deleted servers) ended as Replaced too. In memory: a replica that never saw the step does
   * not know, and the Node's state went with it.
   */
  private readonly replacing = new Map<string, DeleteNodeAction>();
  /** Other actors' holds, our disruption lease, the NodeRepairHeld condition (coordinator.ts). */
  private readonly coordinator: Coordinator;
  /** Burst admission: many due nodes admitted in one pass, handed over to their reconciles. */
  private readonly burst: Burst;
  /** Wakes a wait for the cache to show our write (awaitCache) when the informer changes. */
  private readonly cacheChanges: CacheChanges<NodeView>;
  /** Nodes whose state annotation could not be read at their last reconcile (the gauge). */
  private readonly unreadable = new Set<string>();
  /**
   * Our state writes the apiserver accepted and the informer does not show yet, by node (the
   * newest one). The fleet pass counts in-flight repairs and unhealthy nodes from the cache,
   * and awaitCache gives up after cacheSyncTimeoutMs: without this, a lagging informer hides a
   * repair we started and the next pass starts another past maxInFlight. Overlaying what was
   * persisted (rather than refusing every start while a write is unconfirmed) keeps the count
   * exact and lets the rest of the fleet go on while one Node's watch event is late.
   */
  private readonly unconfirmed = new Map<string, Written>();
  /** The log lines of each repair's transitions (started, verifying, succeeded, held...). */
  private readonly story: RepairStory;

  /** One reconciler per controller: it keeps the storm guard's memory between reconciles. */
  constructor(private readonly deps: NodeReconcilerDeps) {
    this.log = deps.log.child({ component: 'autorepair' });
    this.story = new RepairStory(this.log);
    this.coordinator = new Coordinator({ ...deps, log: this.log });
    this.burst = this.newBurst();
    this.cacheChanges = new CacheChanges(deps.cache, deps.clock ?? systemClock);
  }

  private newBurst(): Burst {
    const { deps } = this;
    return new Burst({
      policy: deps.policy,
      store: deps.store,
      cachedStored: (name) => {
        const v = deps.cache.get(name);
        return v !== undefined ? deps.store.stored(v) : undefined;
      },
      now: deps.now,
      log: this.log,
      // A node whose state cannot be read is never a burst candidate.
      observe: async (name, signal) => {
        const seen = await this.observe(name, signal);
        return isUnreadable(seen) ? undefined : seen;
      },
      takeForStart: (seen, d, signal) =>
        this.coordinator.takeForStart(seen.self.obs.nodeName, seen.node, d, seen.previous, signal),
      giveBack: (name, signal) => this.coordinator.giveBack(name, signal),
      persist: async (seen, d, signal) => {
        await this.persist(seen.self.obs.nodeName, seen.node, seen.previous, d, signal);
      },
      announce: async (seen, d) => {
        for (const ev of transitionEvents(d, seen.previous)) await deps.recordEvent(seen.node, ev);
        this.countTransition(d, seen.previous);
        this.story.decided(d, seen.previous);
        this.log.debug(
          { node: seen.self.obs.nodeName, phase: d.phase, reason: d.reason },
          'decided (burst)',
        );
      },
      wake: (name) => deps.wake?.(name),
    });
  }

  /** The Reconciler for the runtime Controller. */
  readonly reconcile = async (
    req: ReconcileRequest,
    ctx: ReconcileContext,
  ): Promise<ReconcileResult> => {
    this.decider ??= newFleetDecider(this.deps.policy, this.deps.now());
    let decided: Decided | Unreadable | undefined;
    try {
      // Admitted by another node's burst: its decision is persisted and announced; act on it.
      const handed = await this.burst.take(req.name, ctx.signal);
      decided =
        handed !== undefined
          ? { ...handed, announced: true }
          : await this.decide(this.decider, req.name, ctx.signal);
    } catch (e) {
      // The Node changed between our read and our write (a kubelet status post, usually):
      // nothing was done; decide again on fresh data, without logging an error.
      if (e instanceof ConflictError) return { requeue: true };
      if (e instanceof LeaseHeldError) {
        this.log.info(
          { node: req.name, reason: e.message },
          'repair waits for the disruption lease',
        );
        await this.deps.recordEvent(
          { metadata: { name: req.name } },
          {
            type: 'Warning',
            reason: EventReasons.DisruptionLeaseHeld,
            action: 'Hold',
            note: e.message,
          },
        );
        this.coordinator.observeHold(req.name, 'DisruptionLease');
        return { requeueAfter: this.deps.policy.stormGuard.recheckIntervalMs };
      }
      throw e;
    }
    if (decided === undefined) return {};
    if (isUnreadable(decided)) return this.refuse(req.name, decided.unreadable, ctx.signal);
    const { decision, node, previous } = decided;
    if (node === undefined) {
      this.markReadable(req.name);
      this.coordinator.observeHold(req.name, undefined);
      this.deps.store.forget(req.name);
      this.unconfirmed.delete(req.name);
      this.story.forget(req.name);
      const pending = this.replacing.get(req.name);
      this.replacing.delete(req.name);
      if (pending !== undefined)
        await nodeGoneAfterReplace(pending, req.name, {
          ...this.deps,
          log: this.log,
          event: (ev) => this.deps.recordEvent({ metadata: { name: req.name } }, ev),
        });
      return {};
    }
    const deleting = decision.actions.find(
      (a): a is DeleteNodeAction => a.type === 'DeleteNode' && !a.dryRun,
    );
    if (deleting !== undefined) this.replacing.set(req.name, deleting);
    else this.replacing.delete(req.name);
    const event = (ev: EventInput) => this.deps.recordEvent(node, ev);
    if (decided.announced !== true) {
      for (const ev of transitionEvents(decision, previous)) await event(ev);
      this.countTransition(decision, previous);
      this.story.decided(decision, previous);
    }
    try {
      await this.coordinator.afterDecision(req.name, node, decision, previous, ctx.signal);
    } catch (e) {
      // Another holder took our disruption lease during the repair: the coordinator said so
      // (Warning Event, log, hold counted); none of the decision's actions run, no attempt is
      // used, and the repair waits for the lease at the recheck pace.
      if (e instanceof LeaseTakenOverError)
        return { requeueAfter: this.deps.policy.stormGuard.recheckIntervalMs };
      throw e;
    }
    // Uncordon ran before the Healthy state was persisted (see decideAndPersist).
    const actions = decision.actions.filter((a) => a.type !== 'Uncordon');
    if (actions.length === 0) return this.requeue(decision);
    const uid = node.metadata?.uid;
    const sig = ctx.signal;
    const summary = await executeActions(
      actions,
      {
        node: req.name,
        // The uid the decision was made on: a Node deleted and re-created under this name
        // since then is another machine, and gets no cordon or taint meant for this one.
        ...(node.metadata?.uid !== undefined ? { uid: node.metadata.uid } : {}),
        ...(node.spec?.providerID !== undefined ? { providerID: node.spec.providerID } : {}),
        recordOutcome: (o) => this.persistOnState(req.name, uid, (st) => recordOutcome(st, o), sig),
        recordFence: (f: FenceRecord) =>
          this.persistOnState(req.name, uid, (st) => recordFence(st, f), sig),
        recordDrain: (d) => this.persistOnState(req.name, uid, (st) => recordDrain(st, d), sig),
        recordReplace: (r) => this.persistOnState(req.name, uid, (st) => recordReplace(st, r), sig),
        recordUnavailable: (r) =>
          this.persistOnState(req.name, uid, (st) => recordUnavailable(st, r), sig),
        signal: ctx.signal,
      },
      { ...this.deps, event },
    );
    // Replaced: the Node is gone, and so is its state; the informer's delete event ends it.
    if (summary.replaced === true) {
      this.replacing.delete(req.name);
      return {};
    }
    if (summary.remediated) return { requeueAfter: DECIDE_AGAIN_AFTER_OUTCOME_MS };
    // Provider unavailable (wait, same id next time) or fence unconfirmed: look again then.
    // The provider's own Retry-After wins over the decision's calmer recheck pace.
    if (summary.retryAfterMs !== undefined) return { requeueAfter: summary.retryAfterMs };
    return this.requeue(decision);
  };

  private requeue(d: RepairDecision): ReconcileResult {
    return d.requeueAfterMs !== undefined ? { requeueAfter: d.requeueAfterMs } : {};
  }

  private countTransition(d: RepairDecision, prev: RepairState | undefined): void {
    const m = this.deps.metrics;
    // The ladder of the rule the repair started with (condition-rules.ts).
    const stepOf = (rem: Remediation | undefined) =>
      rem === undefined
        ? 'unknown'
        : (policyForRule(this.deps.policy, rem.rule).ladder[rem.step]?.action ?? 'unknown');
    if (startsRemediation(d, prev)) {
      const rem = d.nextState?.remediation;
      m.started.inc({ cause: d.cause.kind, step: stepOf(rem) });
    }
    const fleetTimes = repairTimes(d, prev, this.deps.now());
    if (fleetTimes.toRepairMs !== undefined) m.timeToRepair.observe(fleetTimes.toRepairMs / 1000);
    if (fleetTimes.betweenFailuresMs !== undefined)
      m.timeBetweenFailures.observe(fleetTimes.betweenFailuresMs / 1000);
    const ended = {
      cause: prev?.remediation?.cause ?? d.cause.kind,
      step: stepOf(prev?.remediation),
    };
    if (endsInSuccess(d, prev)) {
      m.succeeded.inc(ended);
      m.ended.inc({ outcome: 'Succeeded', ...ended });
    }
    if (d.actions.some((a) => a.type === 'GiveUp')) {
      m.failed.inc(ended);
      m.ended.inc({ outcome: 'Failed', ...ended });
    }
    // Replaced is counted by the DeleteNode step, which alone knows the Node is gone.
  }

  private async getNode(name: string, signal: AbortSignal): Promise<KubeNode | undefined> {
    try {
      return await this.deps.client.get<KubeNode>(NodeResource, name, { signal });
    } catch (e) {
      if (e instanceof NotFoundError) return undefined;
      throw e;
    }
  }

  private async leaseRenewTime(
    name: string,
    previous: RepairState | undefined,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    // Read when the policy watches stale heartbeats, and when an attempt of ours timed out:
    // whether the node reported after the action is its fresh evidence (fresh-evidence.ts).
    if (
      this.deps.policy.staleHeartbeatTimeoutMs === 0 &&
      !attemptTimedOut(previous, this.deps.policy, this.deps.now())
    )
      return undefined;
    try {
      const lease = await this.deps.client.get<KubeLease>(LeaseResource, name, {
        namespace: 'kube-node-lease',
        signal,
      });
      return lease.spec?.renewTime ?? undefined;
    } catch (e) {
      if (e instanceof NotFoundError) return undefined;
      throw e;
    }
  }

  /**
   * The machine's power state, asked only when the decision depends on it: before the first
   * action of a repair (did someone stop the machine?), for a shut-down node past
   * shutdown.failAfter, and when an attempt of ours timed out with the node silent since the
   * action (health/power-check.ts, health/fresh-evidence.ts). A provider without powerState cannot tell:
   * the decision goes on without it. A provider that throws is an outage: waiting, not a
   * verdict.
   */
  private async powerState(
    name: string,
    node: KubeNode,
    previous: RepairState | undefined,
    leaseRenewTime: string | undefined,
    signal: AbortSignal,
  ): Promise<PowerState | undefined> {
    const { provider, policy } = this.deps;
    const providerID = node.spec?.providerID;
    if (!this.canAskPower(node) || provider.powerState === undefined || providerID === undefined)
      return undefined;
    const unasked = {
      nodeName: name,
      node,
      ...(leaseRenewTime !== undefined ? { leaseRenewTime } : {}),
    };
    if (!needsPowerState(unasked, previous, policy, this.deps.now())) return undefined;
    try {
      return await provider.powerState({ node: name, providerID }, { signal });
    } catch (e) {
      return { kind: 'Unavailable', reason: e instanceof Error ? e.message : String(e) };
    }
  }

  /** The provider implements powerState and the Node names its machine (a providerID). */
  private canAskPower(node: KubeNode): boolean {
    const providerID = node.spec?.providerID;
    return (
      this.deps.provider.powerState !== undefined && providerID !== undefined && providerID !== ''
    );
  }

  private readState(node: KubeNode | NodeView): RepairState | undefined {
    const r = this.deps.store.read(node);
    return either.isRight(r) ? r.right : undefined;
  }

  /**
   * Our last write to a cached Node the cache does not show yet (see `unconfirmed`), or
   * undefined once it does (then it is forgotten: the cache is the newer view).
   */
  private pendingWrite(v: NodeView): Written | undefined {
    const name = v.metadata.name;
    const w = this.unconfirmed.get(name);
    if (w === undefined) return undefined;
    if (!cacheShows(v, w, this.deps.store.stored(v))) return w;
    this.unconfirmed.delete(name);
    return undefined;
  }

  /** The state of a cached Node, with our write the cache does not show yet over it. */
  private cachedState(v: NodeView): RepairState | undefined {
    return this.pendingWrite(v)?.state ?? this.readState(v);
  }

  /**
   * Another node of the fleet pass, as cached. One whose state cannot be read may be in the
   * middle of a repair we can no longer see: it counts as in flight against maxInFlight (a
   * disrupting hold, as another actor's), and is never started by this pass.
   */
  private cachedMember(v: NodeView, withHolds: (m: FleetMember) => FleetMember): FleetMember {
    // Our accepted write the informer does not show yet is the Node's state (`unconfirmed`).
    const written = this.pendingWrite(v);
    if (written !== undefined)
      return withHolds({ obs: { nodeName: v.metadata.name, node: v }, state: written.state });
    const r = this.deps.store.read(v);
    const m = withHolds({
      obs: { nodeName: v.metadata.name, node: v },
      state: either.isRight(r) ? r.right : undefined,
    });
    if (either.isRight(r)) return m;
    const hold = {
      actor: 'Unreadable' as const,
      detail: `the repair-state annotation ${this.deps.policy.annotations.state} cannot be read (a repair may be in flight)`,
      disrupting: true,
    };
    return { ...m, obs: { ...m.obs, actorHolds: [...(m.obs.actorHolds ?? []), hold] } };
  }

  /**
   * The node's repair state cannot be read (garbled, or the format of a newer version during a
   * rollback). Starting over would lose the in-flight intent's action id (the action could go
   * out again under a new one) and forget our cordon and taint, so: act on nothing, write no
   * state, tell a person (a Warning Event, the NodeRepairHeld condition, the gauge). A watch
   * event when the annotation is fixed or removed wakes the reconcile.
   */
  private async refuse(
    name: string,
    { node, problem }: Unreadable['unreadable'],
    signal: AbortSignal,
  ): Promise<ReconcileResult> {
    const known = this.unreadable.has(name);
    this.unreadable.add(name);
    this.deps.metrics.nodesStateUnreadable.set(this.unreadable.size);
    const key = this.deps.policy.annotations.state;
    const note =
      `repair state annotation ${key} cannot be read: noderepair does not act on this node ` +
      `(no cordon, drain, provider action, uncordon or state write) until a person fixes or ` +
      `removes the annotation; a repair it had in flight keeps its cordon and taint until then ` +
      `(check the machine before removing them). ${problem}`;
    // Every heartbeat wakes this reconcile: the log says it once (the Event folds repeats).
    const fields = { node: name, annotation: key, problem };
    if (known) this.log.debug(fields, 'repair state cannot be read: not acting');
    else this.log.warn(fields, 'repair state cannot be read: not acting');
    await this.deps.recordEvent(node, {
      type: 'Warning',
      reason: EventReasons.InvalidRepairState,
      action: 'Hold',
      note,
    });
    await this.publishUnreadable(name, node, note, signal);
    return {};
  }

  /** The node's state reads again (or the node is gone): the gauge stops counting it. */
  private markReadable(name: string): void {
    if (!this.unreadable.delete(name)) return;
    this.deps.metrics.nodesStateUnreadable.set(this.unreadable.size);
  }

  /**
   * NodeRepairHeld=True (UnreadableState) on the Node, so `kubectl describe node` says it too.
   * Visibility only: a failed patch is logged. Dry-run writes nothing. The annotation is not
   * touched: the status subresource cannot change metadata.
   */
  private async publishUnreadable(
    name: string,
    node: KubeNode,
    message: string,
    signal: AbortSignal,
  ): Promise<void> {
    if (this.deps.policy.dryRun) return;
    const cond = unreadableStateCondition(message, node.status?.conditions, this.deps.now());
    if (cond === undefined) return;
    await writeHeldCondition(this.deps.client, this.log, name, node.metadata?.uid, cond, signal);
  }

  /** Decides alone when the fleet cannot matter, else under the admission lock with the fleet. */
  private async decide(
    decider: FleetDecider,
    name: string,
    signal: AbortSignal,
  ): Promise<Decided | Unreadable | undefined> {
    if (!decider.tripped) {
      const quiet = this.decideFromCache(decider, name);
      if (quiet !== undefined) return quiet;
      const seen = await this.observe(name, signal);
      if (seen === undefined || isUnreadable(seen)) return seen;
      const decision = decider.alone(seen.self, this.deps.now());
      if (decision !== undefined) {
        if (decision.nextState?.phase !== seen.previous?.phase)
          this.refreshPhaseCounts(name, decision);
        this.log.debug({ node: name, phase: decision.phase, reason: decision.reason }, 'decided');
        return this.persist(name, seen.node, seen.previous, decision, signal);
      }
    }
    const queuedAt = this.deps.now();
    return this.lock.run(() => this.decideAndPersist(decider, name, signal, queuedAt));
  }

  /**
   * The quiet path: most reconciles (the periodic resync, a requeue at a deadline not yet
   * reached) change nothing. Decided on the cached view, such a reconcile sends no request
   * at all, so a steady fleet costs the apiserver nothing beyond the watch. Anything that
   * would write or act is decided again on a fresh read. Undefined when that is needed.
   */
  private decideFromCache(decider: FleetDecider, name: string): Decided | undefined {
    // The Lease is not in the cache; a policy that reads it reads fresh.
    if (this.deps.policy.staleHeartbeatTimeoutMs !== 0) return undefined;
    const view = this.deps.cache.get(name);
    if (view === undefined) return undefined;
    // The cache does not show our last write yet: it would decide on an older state.
    if (this.pendingWrite(view) !== undefined) return undefined;
    // Unreadable: the fresh read decides (and refuses, in observe).
    const parsed = this.deps.store.read(view);
    if (either.isLeft(parsed)) return undefined;
    const previous = parsed.right;
    if (isInFlight(previous?.phase)) return undefined;
    // A shut-down node past shutdown.failAfter is decided on the provider's power state.
    // (A node that would start a repair, whose power state is asked first too, is never
    // decided alone: decider.alone below is undefined for it, so it is read fresh anyway.)
    if (shutdownPastDeadline(previous, this.deps.policy.shutdown, this.deps.now()))
      return undefined;
    const decision = decider.alone(
      { obs: { nodeName: name, node: view }, state: previous },
      this.deps.now(),
    );
    if (
      decision === undefined ||
      decision.actions.length > 0 ||
      decision.nextState === undefined ||
      worthPersisting(this.deps.store.stored(view), decision.nextState)
    )
      return undefined;
    return { decision, node: view, previous };
  }

  /**
   * The Node read fresh (the decision is written against its version) and its state;
   * Unreadable when that state cannot be read (nothing more is asked then).
   */
  private async observe(name: string, signal: AbortSignal): Promise<Seen | Unreadable | undefined> {
    const cached = this.deps.cache.get(name);
    const node = await this.getNode(name, signal);
    // Not (or no longer) one of ours, e.g. its label no longer matches the selector.
    if (node !== undefined && cached === undefined) return undefined;
    let previous: RepairState | undefined;
    if (node !== undefined) {
      const parsed = this.deps.store.read(node);
      // Never start over: a person decides (refuse).
      if (either.isLeft(parsed)) return { unreadable: { node, problem: parsed.left } };
      previous = parsed.right;
      this.markReadable(name);
    }
    const leaseRenewTime =
      node !== undefined ? await this.leaseRenewTime(name, previous, signal) : undefined;
    const power =
      node !== undefined
        ? await this.powerState(name, node, previous, leaseRenewTime, signal)
        : undefined;
    const self: FleetMember = {
      obs: {
        nodeName: name,
        node,
        ...(leaseRenewTime !== undefined ? { leaseRenewTime } : {}),
        ...(power !== undefined ? { power } : {}),
        ...(node !== undefined ? { canAskPower: this.canAskPower(node) } : {}),
      },
      state: previous,
    };
    return { node, previous, self };
  }

  /** Phase counts from the others' persisted states and this node's new one (a phase changed). */
  private refreshPhaseCounts(name: string, decision: RepairDecision): void {
    const others = this.deps.cache
      .list()
      .filter((v) => v.metadata.name !== name)
      .map((v) => this.cachedState(v));
    this.setPhaseCounts(others, decision);
  }

  private setPhaseCounts(others: (RepairState | undefined)[], decision: RepairDecision): void {
    this.deps.metrics.setPhaseCounts(
      countPhases([
        // A node with no persisted state has had nothing to remember: Healthy.
        ...others.map((st): RepairPhase => st?.phase ?? 'Healthy'),
        ...(decision.nextState !== undefined ? [decision.phase] : []),
      ]),
    );
  }

  /** The fleet pass, under the admission lock. */
  private async decideAndPersist(
    decider: FleetDecider,
    name: string,
    signal: AbortSignal,
    queuedAt: number,
  ): Promise<Decided | Unreadable | undefined> {
    // A burst admitted this node while its reconcile waited for the lock.
    const handed = await this.burst.take(name, signal);
    if (handed !== undefined) return { ...handed, announced: true };
    // When each step of the pass ended (epoch ms), for the debug line of a burst: the
    // pass is the whole delay of every member, so its parts are worth seeing.
    const at: Record<string, number> = { queued: queuedAt, locked: this.deps.now() };
    const seen = await this.observe(name, signal);
    if (seen === undefined || isUnreadable(seen)) return seen;
    const { node, previous } = seen;
    const now = this.deps.now();
    at['observed'] = now;
    // The other actors' marks, read once for the pass.
    const withHolds = await this.coordinator.fleetHolds(signal);
    at['holds'] = this.deps.now();
    const self = withHolds(seen.self);
    const cached: FleetMember[] = this.deps.cache
      .list()
      .filter((v) => v.metadata.name !== name)
      .map((v) => this.cachedMember(v, withHolds));
    at['listed'] = this.deps.now();
    // The other nodes the same pass would start too, read fresh (burst admission).
    const { others, fresh } = await this.burst.freshCandidates(
      self,
      cached,
      decider.memory,
      withHolds,
      signal,
      at,
    );
    // One storm pass decides this node and the burst; the storm guard sees every node (and
    // the decider keeps its memory and tripped flag for the next pass).
    await this.readLatch(decider, signal);
    const batch = decider.withFleetBatch(self, others, new Set(fresh.keys()), now);
    const { self: decision, storm } = batch;
    await this.setLatch(decider, storm, signal);
    at['decided'] = this.deps.now();
    // The burst's intents are persisted alongside this node's (its members' leases first).
    const members = this.burst.admit(batch.admitted, fresh, signal);
    if (batch.admitted.size > 0)
      void members.then((done) => {
        at['admitted'] = this.deps.now();
        this.log.debug(
          { node: name, candidates: fresh.size, admitted: done.size, at },
          'burst pass',
        );
      });
    let tookLease = false;
    try {
      // Admitted: take the node's disruption lease before its intent is persisted (and so
      // before any cordon), so no other actor starts on it meanwhile.
      tookLease = await this.coordinator.takeForStart(name, node, decision, previous, signal);
      this.deps.metrics.stormTripped.set(storm.tripped ? 1 : 0);
      const verdict = storm.verdicts.get(name);
      if (verdict !== undefined && !verdict.admitted)
        this.deps.metrics.stormHolds.inc({ scope: verdict.scope });
      this.log.debug({ node: name, phase: decision.phase, reason: decision.reason }, 'decided');
      return await this.persist(name, node, previous, decision, signal);
    } catch (e) {
      // The intent was not written (a Conflict, an outage): give the lease back, so other
      // actors do not wait an hour for a repair that may never start. Best effort; it lapses.
      if (tookLease) await this.coordinator.giveBack(name, signal);
      throw e;
    } finally {
      // The burst's members were persisted alongside (admit never throws): count them too.
      const started = await members;
      this.setPhaseCounts(
        others.map((m) => started.get(m.obs.nodeName)?.nextState ?? m.state),
        decision,
      );
    }
  }

  /**
   * The persisted latch, read fresh for each fleet pass (only when the policy has a latch): a
   * person's reset takes effect at the held nodes' next recheck.
   */
  private async readLatch(decider: FleetDecider, signal: AbortSignal): Promise<void> {
    if (this.deps.policy.stormGuard.latch === undefined) return;
    if (this.deps.latch !== undefined) {
      const was = decider.latch;
      decider.latch = await this.deps.latch.read(signal);
      if (was?.kind === 'latched' && decider.latch === undefined)
        this.log.info({ latch: this.deps.latch.ref }, 'storm guard latch reset by a person');
      if (decider.latch?.kind === 'unreadable' && was?.kind !== 'unreadable')
        this.log.error(
          { latch: this.deps.latch.ref, problem: decider.latch.problem },
          'storm guard latch cannot be read: no repair starts until it can',
        );
    }
    this.deps.metrics.stormLatched.set(decider.latch !== undefined ? 1 : 0);
  }

  /** This pass set the latch: persist it (an error propagates; the next pass sets it again). */
  private async setLatch(
    decider: FleetDecider,
    storm: { latchNow?: { since: number; reason: string } },
    signal: AbortSignal,
  ): Promise<void> {
    const l = storm.latchNow;
    if (l === undefined) return;
    await this.deps.latch?.set(l.since, l.reason, signal);
    decider.latch = { kind: 'latched', since: l.since, reason: l.reason };
    this.deps.metrics.stormLatched.set(1);
    this.log.warn(
      {
        reason: l.reason,
        ...(this.deps.latch !== undefined ? { latch: this.deps.latch.ref } : {}),
      },
      'storm guard latched: no repair starts until a person resets it (noderepair reset-latch)',
    );
  }

  /** Uncordon when healthy again, then the next state, and wait until the cache shows it. */
  private async persist(
    name: string,
    node: KubeNode | undefined,
    previous: RepairState | undefined,
    decision: RepairDecision,
    signal: AbortSignal,
  ): Promise<Decided> {
    if (node === undefined || decision.nextState === undefined) return { decision, node, previous };

    // Uncordon is idempotent: do it before persisting Healthy, so a failure is retried.
    const uncordon = decision.actions.filter((a) => a.type === 'Uncordon');
    if (uncordon.length > 0)
      await executeActions(
        uncordon,
        { node: name, recordOutcome: async () => undefined, signal },
        { ...this.deps, event: (ev) => this.deps.recordEvent(node, ev) },
      );

    if (worthPersisting(this.deps.store.stored(node), decision.nextState)) {
      // A ConflictError here propagates: the controller retries and decides again on fresh data.
      await this.write(name, decision.nextState, node.metadata?.resourceVersion, signal);
    }
    return { decision, node, previous };
  }

  /**
   * Persists the state on the Node's `resourceVersion` (a ConflictError propagates), keeps it as
   * unconfirmed until the cache shows it, and waits for the cache (awaitCache).
   */
  private async write(
    name: string,
    state: RepairState,
    resourceVersion: string | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const written = await this.deps.store.write(name, state, resourceVersion);
    if (this.deps.store.kind !== 'memory')
      this.unconfirmed.set(name, {
        state,
        encoded: this.deps.store.encode(state),
        resourceVersion: written,
      });
    await this.awaitCache(name, state, signal);
  }

  /**
   * Waits until the informer shows the state we wrote, so the next decision (for any node)
   * sees this one's phase: the storm guard must count a repair the moment its intent exists.
   */
  private async awaitCache(name: string, state: RepairState, signal: AbortSignal): Promise<void> {
    if (this.deps.store.kind === 'memory') return;
    const want = this.deps.store.encode(state);
    // The wait and its deadline on one clock, so a virtual clock in tests ends the wait too.
    const clock = this.deps.clock ?? systemClock;
    const deadline = clock.now() + (this.deps.cacheSyncTimeoutMs ?? 10_000);
    for (;;) {
      // Armed before the read: a change landing between the read and the wait still wakes it.
      const change = this.cacheChanges.next(name, signal);
      const v = this.deps.cache.get(name);
      if (v === undefined || this.deps.store.stored(v) === want) {
        if (v === undefined) this.unconfirmed.delete(name);
        else this.pendingWrite(v);
        return change.cancel();
      }
      if (signal.aborted || clock.now() >= deadline) {
        change.cancel();
        // The fleet passes count the write from `unconfirmed` until the cache shows it.
        this.log.warn(
          { node: name },
          'cache did not show our state write in time; going on (counted as written)',
        );
        return;
      }
      // The informer's event for this Node, a fallback delay, or an abort ends the wait.
      await change.wait;
    }
  }

  /**
   * Writes what an action reported (its outcome, a fence) onto the state it belongs to,
   * retrying conflicts. `update` returns the state unchanged when it does not apply.
   */
  private async persistOnState(
    name: string,
    uid: string | undefined,
    update: (st: RepairState) => RepairState,
    signal: AbortSignal,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const node = await this.getNode(name, signal);
      // Gone or re-created since the decision (a conflict's re-read finds another object): the
      // actions after this one were decided about a machine this Node is not (a rebuild keeps
      // the providerID), so none of them may run. The executor stops on this error.
      if (uid !== undefined && node?.metadata?.uid !== uid)
        throw new NodeReplacedError(name, uid, node?.metadata?.uid);
      if (node === undefined) return;
      const read = this.deps.store.read(node);
      // Unreadable since the decision: stop here (the actions after this one assume it was
      // recorded); the next reconcile refuses the node and tells a person.
      if (either.isLeft(read))
        throw new Error(`cannot record on ${name}'s repair state: ${read.left}`);
      const state = read.right;
      // Removed since the decision (not by us): what follows assumes it was recorded, so stop.
      if (state === undefined)
        throw new Error(
          `cannot record on ${name}'s repair state: it was removed since the decision; not acting`,
        );
      const next = update(state);
      if (next === state) return; // not the current intent any more: nothing to record
      try {
        await this.write(name, next, node.metadata?.resourceVersion, signal);
        return;
      } catch (e) {
        if (!(e instanceof ConflictError) || attempt >= 10) throw e;
      }
    }
  }
}
