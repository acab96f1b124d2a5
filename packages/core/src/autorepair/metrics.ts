// Auto-repair metrics, registered on the manager's Registry next to the runtime's.
// `cause` is a health CauseKind and `step` a ladder action (SoftReboot, HardReboot,
// Replace), both small fixed sets, so label cardinality stays bounded (never a node name).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RepairDecision } from '../health/decide.js';
import type { RepairPhase } from '../health/state.js';

/**
 * Every repair phase, in order: the `phase` label values of noderepair_nodes (each starts at 0).
 */
export const RepairPhases: readonly RepairPhase[] = [
  'Healthy',
  'Suspect',
  'Waiting',
  'Unhealthy',
  'Remediating',
  'Verifying',
  'Failed',
];

/** How a remediation ended: the `outcome` label of noderepair_remediations_ended_total. */
export const RemediationOutcomes = ['Succeeded', 'Failed', 'Replaced'] as const;
/** One of RemediationOutcomes. */
export type RemediationOutcome = (typeof RemediationOutcomes)[number];

/**
 * The auto-repair controller's Prometheus metrics. Construct once per Registry: prom-client refuses
 * a second registration of the same names.
 */
export class AutoRepairMetrics {
  /** noderepair_remediations_started_total, by cause and first ladder step. */
  readonly started: Counter<'cause' | 'step'>;
  /** noderepair_remediations_succeeded_total, by cause and the step that fixed the node. */
  readonly succeeded: Counter<'cause' | 'step'>;
  /** noderepair_remediations_failed_total, by cause and last step (the ladder used up). */
  readonly failed: Counter<'cause' | 'step'>;
  /**
   * noderepair_remediations_ended_total, by outcome (Succeeded, Failed, Replaced), cause and last
   * step.
   */
  readonly ended: Counter<'outcome' | 'cause' | 'step'>;
  /**
   * noderepair_remediation_actions_total, by action (Cordon, Drain, a provider action, Uncordon...)
   * and result.
   */
  readonly actions: Counter<'action' | 'result'>;
  /** noderepair_storm_guard_holds_total: repairs held back, by scope. */
  readonly stormHolds: Counter<'scope'>;
  /**
   * noderepair_provider_unavailable_total: provider calls without an answer (no attempt used), by
   * action.
   */
  readonly providerUnavailable: Counter<'action'>;
  /** noderepair_fenced_total: machines found fenced after an action, by how. */
  readonly fenced: Counter<'how'>;
  /**
   * noderepair_storm_guard_tripped: 1 while more nodes are unhealthy than the storm guard allows.
   */
  readonly stormTripped: Gauge;
  /**
   * noderepair_storm_guard_latched: 1 while the storm guard's latch (stormGuard.latch) is set,
   * or its record cannot be read: no repair starts until a person resets it.
   */
  readonly stormLatched: Gauge;
  /**
   * noderepair_time_to_repair_seconds: from a node's NotReady to Ready again, for the nodes
   * a repair of ours was in flight on.
   */
  readonly timeToRepair: Histogram;
  /**
   * noderepair_time_between_failures_seconds: per node, from the end of its previous repair to
   * the NotReady that started the next one.
   */
  readonly timeBetweenFailures: Histogram;
  /** noderepair_nodes: watched nodes by repair phase. */
  readonly nodesByPhase: Gauge<'phase'>;
  /**
   * noderepair_nodes_held: nodes that want a repair and are held now, by reason (HoldTracker keeps
   * it).
   */
  readonly nodesHeld: Gauge<'reason'>;
  /** noderepair_hold_duration_seconds: how long each hold lasted, by reason. */
  readonly holdDuration: Histogram<'reason'>;
  /**
   * noderepair_nodes_state_unreadable: nodes whose repair-state annotation cannot be read
   * (garbled, or a format of a newer version). The controller does not act on them until a
   * person fixes or removes the annotation.
   */
  readonly nodesStateUnreadable: Gauge;

  /** Registers every metric on `registry`. */
  constructor(registry: Registry) {
    const registers = [registry];
    const cs = ['cause', 'step'] as const;
    this.started = new Counter({
      name: 'noderepair_remediations_started_total',
      help: 'Remediations started, by cause and first ladder step',
      labelNames: cs,
      registers,
    });
    this.succeeded = new Counter({
      name: 'noderepair_remediations_succeeded_total',
      help: 'Remediations that ended with the node Ready for the minimum healthy period, by cause and the step that fixed it',
      labelNames: cs,
      registers,
    });
    this.failed = new Counter({
      name: 'noderepair_remediations_failed_total',
      help: 'Remediations that used up the ladder, by cause and last step',
      labelNames: cs,
      registers,
    });
    this.ended = new Counter({
      name: 'noderepair_remediations_ended_total',
      help: 'Remediations that ended, by outcome (Succeeded, Failed, Replaced: the machine fenced and the Node deleted), cause and last step',
      labelNames: ['outcome', 'cause', 'step'],
      registers,
    });
    this.actions = new Counter({
      name: 'noderepair_remediation_actions_total',
      help: 'Actions executed (Cordon, Drain, SoftReboot, ..., Uncordon) by result',
      labelNames: ['action', 'result'],
      registers,
    });
    this.stormHolds = new Counter({
      name: 'noderepair_storm_guard_holds_total',
      help: 'Repairs held back (fleet limit, failure-domain limit, maxInFlight, other actor)',
      labelNames: ['scope'],
      registers,
    });
    this.providerUnavailable = new Counter({
      name: 'noderepair_provider_unavailable_total',
      help: 'Provider calls that could not get an answer (outage): the repair waits, no attempt is used',
      labelNames: ['action'],
      registers,
    });
    this.fenced = new Counter({
      name: 'noderepair_fenced_total',
      help: 'Machines found fenced after an action (out-of-service taint allowed), by how',
      labelNames: ['how'],
      registers,
    });
    this.stormTripped = new Gauge({
      name: 'noderepair_storm_guard_tripped',
      help: '1 while more nodes are unhealthy than the storm guard allows',
      registers,
    });
    this.stormLatched = new Gauge({
      name: 'noderepair_storm_guard_latched',
      help: '1 while the storm guard latch is set (or cannot be read): no repair starts until a person resets it',
      registers,
    });
    this.timeToRepair = new Histogram({
      name: 'noderepair_time_to_repair_seconds',
      help: 'From NotReady to Ready again, for nodes a repair was in flight on',
      buckets: [60, 300, 600, 900, 1800, 3600, 2 * 3600, 6 * 3600, 24 * 3600],
      registers,
    });
    this.timeBetweenFailures = new Histogram({
      name: 'noderepair_time_between_failures_seconds',
      help: 'Per node, from the end of its previous repair to the NotReady that started the next one',
      buckets: [3600, 6 * 3600, 24 * 3600, 3 * 86400, 7 * 86400, 30 * 86400, 90 * 86400],
      registers,
    });
    this.nodesByPhase = new Gauge({
      name: 'noderepair_nodes',
      help: 'Watched nodes by repair phase',
      labelNames: ['phase'],
      registers,
    });
    for (const phase of RepairPhases) this.nodesByPhase.set({ phase }, 0);
    this.nodesHeld = new Gauge({
      name: 'noderepair_nodes_held',
      help: 'Nodes that want a repair and are held now, by reason (the brake, or the other actor)',
      labelNames: ['reason'],
      registers,
    });
    this.holdDuration = new Histogram({
      name: 'noderepair_hold_duration_seconds',
      help: 'How long a hold lasted (ended by admission, recovery or deletion), by reason',
      labelNames: ['reason'],
      buckets: [30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 24 * 3600],
      registers,
    });
    this.nodesStateUnreadable = new Gauge({
      name: 'noderepair_nodes_state_unreadable',
      help: 'Nodes whose repair-state annotation cannot be read: not acted on until a person fixes or removes it',
      registers,
    });
  }

  /** Sets noderepair_nodes for every phase; a phase missing from `counts` is set to 0. */
  setPhaseCounts(counts: ReadonlyMap<RepairPhase, number>): void {
    for (const phase of RepairPhases) this.nodesByPhase.set({ phase }, counts.get(phase) ?? 0);
  }
}

/** Nodes per phase (pure); a node without a decision counts by its stored phase. */
export function countPhases(phases: Iterable<RepairPhase>): Map<RepairPhase, number> {
  const out = new Map<RepairPhase, number>();
  for (const p of phases) out.set(p, (out.get(p) ?? 0) + 1);
  return out;
}

/** The `reason` label of a held decision: the storm guard's brake, or the other actor. */
export function holdReason(held: NonNullable<RepairDecision['held']>): string {
  const h = held.hold;
  if (h === undefined) return held.scope;
  return h.kind === 'actor' ? h.actor : h.kind;
}

/**
 * Which nodes this replica saw held, since when and why: noderepair_nodes_held and the
 * duration observed when a hold ends. In memory: a new leader starts counting afresh.
 */
export class HoldTracker {
  private readonly held = new Map<string, { reason: string; since: number }>();

  constructor(private readonly metrics: AutoRepairMetrics) {}

  /** The node's latest decision (undefined reason: not held, or gone). */
  observe(node: string, reason: string | undefined, now: number): void {
    const was = this.held.get(node);
    if (was !== undefined && was.reason === reason) return;
    if (was !== undefined) {
      this.metrics.holdDuration.observe(
        { reason: was.reason },
        Math.max(0, now - was.since) / 1000,
      );
      this.held.delete(node);
    }
    if (reason !== undefined) this.held.set(node, { reason, since: now });
    this.publish();
  }

  private publish(): void {
    const counts = new Map<string, number>();
    for (const { reason } of this.held.values()) counts.set(reason, (counts.get(reason) ?? 0) + 1);
    this.metrics.nodesHeld.reset();
    for (const [reason, n] of counts) this.metrics.nodesHeld.set({ reason }, n);
  }
}
