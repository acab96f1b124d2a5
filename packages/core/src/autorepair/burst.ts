// Burst admission, the shell around health/fleet-batch.ts. When many nodes are due at once,
// the reconcile that holds the admission lock admits them all in one storm pass instead of
// one pass (fresh read, persist, cache wait) per node: it reads the candidates fresh (under
// the lock: the chaos zone-storm cooldown scenario failed an attempt that decided on cached
// views), persists their intents in parallel and announces them (RepairStarted, metrics).
// It never runs a member's actions: the work queue runs one reconcile per key at a time, and
// acting for B outside B's reconcile would race B's own (a double send). It hands the
// decision over instead (the stash) and wakes B; B's reconcile takes it, checks the cache
// still shows the state the batch persisted, and runs the actions as a first send.
// A crash between the batch's persist and B's reconcile loses the stash (memory only): the
// new process finds the intent without completion and takes the Replay path (same action
// id, the provider is asked first), as after any crash mid-repair.
import type { KubeNode } from '../kube/types.js';
import type { RepairDecision } from '../health/decide.js';
import { decideBatch } from '../health/fleet-batch.js';
import type { FleetMember } from '../health/fleet.js';
import type { RepairPolicy } from '../health/policy.js';
import type { RepairState } from '../health/state.js';
import type { StormMemory } from '../health/storm-guard.js';
import type { RuntimeLogger } from '../runtime/logger.js';
import type { StateStore } from './state-store.js';

/**
 * How many candidates are read fresh at once, and how many members are admitted at once (lease,
 * intent, Event). The same bound for both: the admissions then reuse the keep-alive connections
 * the fresh reads opened. Unbounded, a burst of 100 opened ~85 new TLS connections to the
 * apiserver at once (a handshake each, on both sides), and its Events took 350-530 ms instead
 * of 125-300 ms (99 Event creates, envtest on this 2-core machine).
 */
const REQUESTS_AT_ONCE = 16;

/** A burst member's decision, persisted and announced by the batch, for its own reconcile. */
export interface Handover {
  decision: RepairDecision;
  /** As read fresh by the batch (its resourceVersion is the one the intent was written on). */
  node: KubeNode;
  previous: RepairState | undefined;
  /** The state the batch persisted, as the store encodes it. */
  encodedState: string;
}

/** A candidate read fresh: what observe() gives. */
export interface Seen {
  node: KubeNode | undefined;
  previous: RepairState | undefined;
  self: FleetMember;
}

/** What the batch needs from the reconciler. */
export interface BurstPorts {
  policy: RepairPolicy;
  store: StateStore;
  /** The informer's cached stored state of a node (undefined: not cached). */
  cachedStored(name: string): string | undefined;
  now(): number;
  log: RuntimeLogger;
  /** Reads the node fresh (undefined: not one of ours). */
  observe(name: string, signal: AbortSignal): Promise<Seen | undefined>;
  /** Takes the disruption lease for a start (coordinator.takeForStart); throws when held. */
  takeForStart(
    seen: Seen & { node: KubeNode },
    d: RepairDecision,
    s: AbortSignal,
  ): Promise<boolean>;
  giveBack(name: string, signal: AbortSignal): Promise<void>;
  /** Writes the next state on the node's resourceVersion and waits for the cache. */
  persist(seen: Seen & { node: KubeNode }, d: RepairDecision, s: AbortSignal): Promise<void>;
  /** Events and metrics of the transition, as the member's own reconcile would record them. */
  announce(seen: Seen & { node: KubeNode }, d: RepairDecision): Promise<void>;
  /** Enqueues the node's reconcile. */
  wake(name: string): void;
}

interface Entry {
  at: number;
  ready: Promise<Handover | undefined>;
  /** The term the batch ran in: a handover never crosses into another term. */
  term: AbortSignal;
}

/** Runs the functions it is given with at most `n` running at once, in the order given. */
function slots(n: number): <T>(f: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (f) => {
    if (running < n) running++;
    // A finishing function hands its slot straight to the first waiting one.
    else await new Promise<void>((r) => waiting.push(r));
    try {
      return await f();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/** The batch's side of burst admission and the stash its members' reconciles take from. */
export class Burst {
  private readonly stash = new Map<string, Entry>();
  /** The signal the stash is cleared on (every reconcile of a term gets the term's one). */
  private watched: AbortSignal | undefined;

  constructor(private readonly ports: BurstPorts) {}

  /**
   * The others the cached fleet would admit and start along with self, read fresh and put
   * into the fleet in place of their cached views. Only those are candidates of the batch:
   * one that the fresh read shows no longer due frees its slot for nobody (fewer repairs
   * this pass, never more; the held ones decide again at their recheck).
   */
  async freshCandidates(
    self: FleetMember,
    others: readonly FleetMember[],
    memory: StormMemory,
    withHolds: (m: FleetMember) => FleetMember,
    signal: AbortSignal,
    /** Where the step ends are noted (epoch ms), for the pass's debug line. */
    at: Record<string, number> = {},
  ): Promise<{ others: FleetMember[]; fresh: Map<string, Seen & { node: KubeNode }> }> {
    const everyone = new Set(others.map((m) => m.obs.nodeName));
    const { policy, now } = this.ports;
    const pre = decideBatch(self, others, everyone, policy, now(), memory);
    const names = [...pre.admitted.keys()];
    at['prePass'] = now();
    const fresh = new Map<string, Seen & { node: KubeNode }>();
    // REQUESTS_AT_ONCE reads at a time, rolling (fixed chunks waited for the slowest read of
    // each); the map is filled in the candidates' order.
    const turn = slots(REQUESTS_AT_ONCE);
    const seen = await Promise.all(
      names.map((n) => turn(() => this.ports.observe(n, signal).catch(() => undefined))),
    );
    seen.forEach((s, i) => {
      if (s?.node !== undefined) fresh.set(names[i]!, { ...s, node: s.node });
    });
    at['freshRead'] = now();
    if (fresh.size === 0) return { others: [...others], fresh };
    return {
      others: others.map((m) => {
        const f = fresh.get(m.obs.nodeName);
        return f !== undefined ? withHolds(f.self) : m;
      }),
      fresh,
    };
  }

  /**
   * Takes each admitted member's lease and persists its intent, REQUESTS_AT_ONCE members at a
   * time; a member whose lease or write fails gives its lease back and is dropped (its own
   * reconcile decides again, fresh). Announces and stashes the others and wakes their
   * reconciles. Resolves with the persisted members' decisions.
   */
  async admit(
    admitted: ReadonlyMap<string, RepairDecision>,
    fresh: ReadonlyMap<string, Seen & { node: KubeNode }>,
    signal: AbortSignal,
  ): Promise<Map<string, RepairDecision>> {
    this.prune();
    // A term already over admits nobody (a listener added now would never fire).
    if (signal.aborted) return new Map();
    if (admitted.size > 0 && this.watched !== signal) {
      this.watched = signal;
      signal.addEventListener('abort', () => this.stash.clear(), { once: true });
    }
    const turn = slots(REQUESTS_AT_ONCE);
    const runs = [...admitted].map(([name, decision]) => {
      const seen = fresh.get(name);
      if (seen === undefined) return Promise.resolve(undefined);
      // In the stash before any write, even while waiting for its turn: a reconcile of the
      // member that starts meanwhile waits for the batch instead of deciding on a
      // half-written intent.
      const ready = turn(() => this.admitOne(name, seen, decision, signal));
      this.stash.set(name, { at: this.ports.now(), ready, term: signal });
      return ready.then((h) => {
        if (h !== undefined) this.ports.wake(name);
        else if (this.stash.get(name)?.ready === ready) this.stash.delete(name);
        return h;
      });
    });
    const done = new Map<string, RepairDecision>();
    for (const h of await Promise.all(runs))
      if (h !== undefined) done.set(h.node.metadata!.name!, h.decision);
    return done;
  }

  private async admitOne(
    name: string,
    seen: Seen & { node: KubeNode },
    decision: RepairDecision,
    signal: AbortSignal,
  ): Promise<Handover | undefined> {
    const next = decision.nextState;
    // Its turn came after the term ended (a lost leader lease): nothing more leaves for it.
    if (next === undefined || signal.aborted) return undefined;
    let took = false;
    try {
      took = await this.ports.takeForStart(seen, decision, signal);
      await this.ports.persist(seen, decision, signal);
    } catch (e) {
      // A Conflict, an outage, the lease held by another actor: nothing of this member was
      // persisted. Its own reconcile decides again on a fresh read.
      if (took) await this.ports.giveBack(name, signal);
      this.ports.log.info(
        { node: name, reason: e instanceof Error ? e.message : String(e) },
        'burst admission: member dropped; its own reconcile decides again',
      );
      return undefined;
    }
    // Persisted: hand it over even if an Event could not be recorded (visibility only).
    await this.ports
      .announce(seen, decision)
      .catch((e: unknown) =>
        this.ports.log.warn(
          { node: name, reason: e instanceof Error ? e.message : String(e) },
          'burst admission: could not announce a member',
        ),
      );
    return {
      decision,
      node: seen.node,
      previous: seen.previous,
      encodedState: this.ports.store.encode(next),
    };
  }

  /**
   * The batch's decision for `name`, if the batch admitted it, it is recent and the cache
   * still shows the state the batch persisted; else undefined (decide as usual: an intent
   * without completion then takes the Replay path, which asks the provider first).
   */
  async take(name: string, signal: AbortSignal): Promise<Handover | undefined> {
    const e = this.stash.get(name);
    if (e === undefined) return undefined;
    this.stash.delete(name);
    const h = await e.ready;
    if (h === undefined || signal.aborted || e.term.aborted) return undefined;
    if (this.ports.now() - e.at > this.ports.policy.stormGuard.recheckIntervalMs) return undefined;
    return this.ports.cachedStored(name) === h.encodedState ? h : undefined;
  }

  /**
   * Drops entries no reconcile took (the node was deleted, say). A lost leader lease aborts
   * the term's signal, which clears the whole stash, and runtime/manager ends the process if
   * work outlives the term; a new term decides afresh (an intent left: the Replay path).
   */
  private prune(): void {
    const horizon = this.ports.now() - this.ports.policy.stormGuard.recheckIntervalMs;
    for (const [name, e] of this.stash) if (e.at < horizon) this.stash.delete(name);
  }
}
