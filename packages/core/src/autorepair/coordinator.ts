// The reconciler's part in living with other actors (docs/coordination.md): their holds on
// the fleet pass, our disruption lease around each repair, and the NodeRepairHeld condition
// and hold metrics that say why a node waits. The decisions are pure (health/actors.ts,
// health/disruption-lease.ts, held-condition.ts); this is the I/O around them.
import type { FleetMember } from '../health/fleet.js';
import type { RepairDecision } from '../health/decide.js';
import type { RepairPolicy } from '../health/policy.js';
import type { RepairState } from '../health/state.js';
import { isInFlight } from '../health/storm-guard.js';
import type { KubeClient } from '../kube/client.js';
import type { KubeNode } from '../kube/types.js';
import type { EventInput } from '../runtime/helpers/event-recorder.js';
import { errorFields, type RuntimeLogger } from '../runtime/logger.js';
import {
  holdsFromSnapshot,
  ourLeaseHolderFor,
  readActorSnapshot,
  snapshotProblems,
  type ActorSnapshot,
} from './actor-source.js';
import { EventReasons, startsRemediation } from './events.js';
import { heldConditionUpdate } from './held-condition.js';
import { writeHeldCondition } from './held-condition-write.js';
import { LeaseKeeper, LegacyDisruptionLeaseHolder } from './lease-keeper.js';
import { holdReason, HoldTracker, type AutoRepairMetrics } from './metrics.js';
import type { NodeView } from './node-view.js';

/** Someone else holds the node's disruption lease: the repair it was about to start waits. */
export class LeaseHeldError extends Error {}

/**
 * Someone else took over our disruption lease while our repair was in flight (ours had lapsed:
 * a reconcile that ran longer than the lease, a controller down for an hour). The node is
 * theirs now: we stop acting on it, and the repair waits, no attempt used, until the lease is
 * free again (take() never takes back a lease another holder keeps alive). afterDecision
 * throws it BEFORE the decision's actions run; the Warning Event and the log naming the
 * holder are already recorded, the caller only waits (requeue after the recheck interval).
 */
export class LeaseTakenOverError extends LeaseHeldError {
  constructor(
    message: string,
    readonly holder: string,
  ) {
    super(message);
  }
}

export interface CoordinatorDeps {
  client: KubeClient;
  policy: RepairPolicy;
  metrics: AutoRepairMetrics;
  log: RuntimeLogger;
  now: () => number;
  /** Records an Event on the Node (the reconciler's recorder). */
  recordEvent: (node: Pick<KubeNode, 'metadata'>, ev: EventInput) => Promise<void>;
  /**
   * Our holder identity in disruption leases: one per install (installLeaseHolder), the same
   * across its replicas and restarts. Default the legacy `noderepair`, which two installs share.
   */
  leaseHolder?: string;
}

/**
 * How long one read of the other actors' marks serves later fleet passes. During a storm
 * every reconcile is a fleet pass; without this each would cost three more requests of an
 * apiserver that may be the storm's cause. A second is far inside any actor's own pace (a
 * kured lock is taken, then the node drained for minutes), and our lease is the exclusion
 * with medik8s' tools either way.
 */
export const ActorSnapshotMaxAgeMs = 1000;

export class Coordinator {
  private snapshot: { at: number; value: ActorSnapshot } | undefined;
  /** The problems last logged (snapshotProblems), so each is logged once when it appears. */
  private loggedProblems = '';
  private readonly holds: HoldTracker;
  /** Our per-node disruption lease (none in dry-run, which writes nothing). */
  private readonly leases: LeaseKeeper | undefined;

  /** Our holder identity in disruption leases. */
  readonly leaseHolder: string;

  constructor(private readonly deps: CoordinatorDeps) {
    this.holds = new HoldTracker(deps.metrics);
    this.leaseHolder = deps.leaseHolder ?? LegacyDisruptionLeaseHolder;
    this.leases = deps.policy.dryRun
      ? undefined
      : new LeaseKeeper(
          deps.client,
          deps.policy.coordination.medik8sLease.namespace,
          deps.now,
          this.leaseHolder,
        );
  }

  /**
   * Reads the other actors' marks once for a fleet pass and returns what adds each member's
   * holds to its observation: their holds stop a node, their disruptions count against
   * maxInFlight with ours.
   */
  async fleetHolds(signal: AbortSignal): Promise<(m: FleetMember) => FleetMember> {
    const c = this.deps.policy.coordination;
    if (c.actors.length === 0) return (m) => m;
    const now = this.deps.now();
    if (this.snapshot === undefined || now - this.snapshot.at >= ActorSnapshotMaxAgeMs) {
      this.snapshot = { at: now, value: await readActorSnapshot(this.deps.client, c, signal) };
      this.logProblems(snapshotProblems(this.snapshot.value, c));
    }
    const snapshot = this.snapshot.value;
    return (m) => {
      const actorHolds = holdsFromSnapshot(
        snapshot,
        c,
        {
          name: m.obs.nodeName,
          node: m.obs.node,
          cordonedByUs: m.state?.remediation?.cordoned === true,
        },
        ourLeaseHolderFor(snapshot, m.obs.nodeName, isInFlight(m.state?.phase), this.leaseHolder),
        now,
      );
      return actorHolds.length > 0 ? { ...m, obs: { ...m.obs, actorHolds } } : m;
    };
  }

  /**
   * Marks of other actors we may not read or cannot understand hold every node that wants a
   * repair (Unreadable; each held node also gets its HeldByOtherActor Warning Event): one log
   * line when the list changes, so a person learns what to fix without a line per pass.
   */
  private logProblems(problems: readonly string[]): void {
    const key = problems.join('\n');
    if (key === this.loggedProblems) return;
    this.loggedProblems = key;
    if (problems.length === 0) this.deps.log.info({}, "the other actors' marks are readable again");
    else
      this.deps.log.warn(
        { problems },
        `cannot read the other actors' marks: ${problems.join('; ')}: every node that wants a repair is held (Unreadable) until this is fixed`,
      );
  }

  /**
   * Takes the node's lease for a repair the decision starts, before its intent is persisted
   * (and so before any cordon). Throws LeaseHeldError when someone else holds it.
   */
  async takeForStart(
    name: string,
    node: KubeNode | undefined,
    decision: RepairDecision,
    previous: RepairState | undefined,
    signal: AbortSignal,
  ): Promise<boolean> {
    const uid = node?.metadata?.uid;
    if (this.leases === undefined || uid === undefined || !startsRemediation(decision, previous))
      return false;
    // A next step of a repair in flight by our own state may find the legacy holder's lease.
    const taken = await this.leases.takeForStart(
      { name, uid },
      signal,
      isInFlight(previous?.phase),
    );
    if (taken.kind === 'held')
      throw new LeaseHeldError(
        `disruption lease ${this.deps.policy.coordination.medik8sLease.namespace}/node-${name} is held by ${taken.holder}: the repair waits for it`,
      );
    return true;
  }

  /** Gives back a lease taken for an intent that was not written. Best effort: it lapses. */
  async giveBack(name: string, signal: AbortSignal): Promise<void> {
    await this.leases?.release(name, signal).catch(() => undefined);
  }

  /** Counts a hold on a node by its reason (undefined: not held, or gone). */
  observeHold(name: string, reason: string | undefined): void {
    this.holds.observe(name, reason, this.deps.now());
  }

  /**
   * After a decision, before its actions: the hold metrics, the lease kept or released, the
   * condition. Throws LeaseTakenOverError when another holder has our lease for a repair in
   * flight: the decision's actions must not run.
   */
  async afterDecision(
    name: string,
    node: KubeNode | NodeView,
    decision: RepairDecision,
    previous: RepairState | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    this.observeHold(name, decision.held !== undefined ? holdReason(decision.held) : undefined);
    await this.keepLease(name, node, decision, previous, signal);
    await this.publishHeld(name, node, decision, signal);
  }

  /**
   * Renews our lease while a repair is in flight (a write only when a third of it is left)
   * and releases it when the repair ends, whatever the outcome. A release that fails is
   * logged, not retried: the lease lapses on its own within the hour.
   */
  private async keepLease(
    name: string,
    node: KubeNode | NodeView,
    decision: RepairDecision,
    previous: RepairState | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    if (this.leases === undefined) return;
    const inFlightNow = isInFlight(decision.nextState?.phase);
    if (inFlightNow && !startsRemediation(decision, previous)) {
      const uid = node.metadata?.uid;
      if (uid === undefined) return;
      // In flight by our own state: a legacy `noderepair` lease is this install's (upgraded mid-repair).
      const r = await this.leases.take({ name, uid }, signal, true);
      if (r.kind === 'held') await this.takenOver(name, node, r.holder, r.until);
    } else if (!inFlightNow && isInFlight(previous?.phase)) {
      try {
        await this.leases.release(name, signal, true);
      } catch (e) {
        // Stopping (shutdown, lost leadership) aborts the call: nothing went wrong, and the
        // next leader releases it or it lapses. Anything else is worth a warning.
        const level = signal.aborted ? 'info' : 'warn';
        this.deps.log[level](
          { node: name, ...errorFields(e) },
          signal.aborted
            ? 'stopping: the disruption lease is left to the next leader (or lapses on its own)'
            : 'could not release the disruption lease; it lapses on its own',
        );
      }
    }
  }

  /**
   * Our lease for a repair in flight is someone else's now (it had lapsed and they took it):
   * whatever they do to the node (a reboot, a maintenance drain) must not meet our cordon,
   * drain, reboot or taint. Says so (Warning Event, log, hold metric) and throws, so the
   * decision's actions do not run. Nothing is recorded as an attempt: the intent stays as it
   * was, and once the lease is free the next pass takes it and goes on (a replay asks first).
   */
  private async takenOver(
    name: string,
    node: KubeNode | NodeView,
    holder: string,
    until: number | undefined,
  ): Promise<never> {
    const lease = `${this.deps.policy.coordination.medik8sLease.namespace}/node-${name}`;
    const till = until !== undefined ? ` until ${new Date(until).toISOString()}` : '';
    const message = `disruption lease ${lease} was taken over by ${holder}${till} during our repair (ours had lapsed): we stop acting on the node; the repair waits, no attempt used, until the lease is free`;
    this.deps.log.warn({ node: name, holder, lease }, message);
    this.observeHold(name, 'DisruptionLease');
    try {
      await this.deps.recordEvent(node, {
        type: 'Warning',
        reason: EventReasons.DisruptionLeaseHeld,
        action: 'Hold',
        note: message,
      });
    } catch (e) {
      // The Event is for people; the hold stands without it.
      this.deps.log.warn({ node: name, ...errorFields(e) }, 'could not record the Event');
    }
    throw new LeaseTakenOverError(message, holder);
  }

  /**
   * The NodeRepairHeld condition on the Node, patched into its status only when it should
   * change. Visibility only: a failed patch is logged, never retried at the cost of the
   * repair. Dry-run writes nothing.
   */
  private async publishHeld(
    name: string,
    node: KubeNode | NodeView,
    decision: RepairDecision,
    signal: AbortSignal,
  ): Promise<void> {
    if (this.deps.policy.dryRun) return;
    const cond = heldConditionUpdate(decision, node.status?.conditions, this.deps.now());
    if (cond === undefined) return;
    await writeHeldCondition(
      this.deps.client,
      this.deps.log,
      name,
      node.metadata?.uid,
      cond,
      signal,
    );
  }
}
