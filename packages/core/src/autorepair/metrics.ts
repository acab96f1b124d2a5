// Auto-repair metrics, registered on the manager's Registry next to the runtime's.
// `cause` is a health CauseKind and `step` a ladder action (SoftReboot, HardReboot,
// Replace), both small fixed sets, so label cardinality stays bounded (never a node name).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RepairDecision } from '../health/decide.js';
import type { RepairPhase } from '../health/state.js';

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
export type RemediationOutcome = (typeof RemediationOutcomes)[number];

export class AutoRepairMetrics {
  readonly started: Counter<'cause' | 'step'>;
  readonly succeeded: Counter<'cause' | 'step'>;
  readonly failed: Counter<'cause' | 'step'>;
  readonly ended: Counter<'outcome' | 'cause' | 'step'>;
  readonly actions: Counter<'action' | 'result'>;
  readonly stormHolds: Counter<'scope'>;
  readonly providerUnavailable: Counter<'action'>;
  readonly fenced: Counter<'how'>;
  readonly stormTripped: Gauge;
  readonly nodesByPhase: Gauge<'phase'>;
  readonly nodesHeld: Gauge<'reason'>;
  readonly holdDuration: Histogram<'reason'>;

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
      help: 'Repairs the storm guard held back (fleet limit, failure-domain limit or maxInFlight)',
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
    this.nodesByPhase = new Gauge({
      name: 'noderepair_nodes',
      help: 'Watched nodes by repair phase',
      labelNames: ['phase'],
      registers,
    });
    for (const phase of RepairPhases) this.nodesByPhase.set({ phase }, 0);
    this.nodesHeld = new Gauge({
      name: 'noderepair_nodes_held',
      help: 'Nodes that want a repair but are held, by reason (storm, cooldown, in-flight, or the other actor: Kured, NodeMaintenance, Medik8sLease, ClusterAPIRollout, ManualCordon, Unreadable, DisruptionLease)',
      labelNames: ['reason'],
      registers,
    });
    this.holdDuration = new Histogram({
      name: 'noderepair_hold_duration_seconds',
      help: 'How long a node was held before it was admitted, recovered or went away, by reason',
      labelNames: ['reason'],
      buckets: [30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 24 * 3600],
      registers,
    });
  }

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
