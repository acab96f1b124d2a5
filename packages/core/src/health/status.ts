// The status report behind `noderepair status`: for each Node, what the controller would
// decide now (phase, cause, step, when it acts next) and, for a node that is not being
// repaired although something is wrong with it, the exact reason as data. Pure. It decides
// through decideFleet, the controller's own rules, so the report cannot drift from what the
// controller does; it only reads the result.
import type { ActorHold } from './actors.js';
import type { HealthSignal } from './assess.js';
import type { CauseKind } from './cause.js';
import { policyForNode } from './control-plane.js';
import { policyForRule } from './condition-rules.js';
import { decideFleet, type FleetMember } from './fleet.js';
import type { NodeSnapshot } from './node.js';
import type { RemediationStepKind, RepairPolicy } from './policy.js';
import { readStateAnnotation, type RepairPhase, type RepairState } from './state.js';
import type { HistoryEntry } from './history.js';
import {
  isInFlight,
  stormMemoryAtStart,
  type LatchState,
  type StormHold,
  type StormMemory,
  type StormScope,
  type StormVerdict,
} from './storm-guard.js';
import { iso, nowMillis } from './time.js';

/**
 * Why a node that something is wrong with is not being repaired (or not yet):
 * - storm / cooldown / in-flight: the storm guard (StormHold, with counts or the end time)
 * - actor: another actor is disrupting the node (a kured lock, a NodeMaintenance, a medik8s
 *   lease, a Cluster API rollout, a person's cordon), or its mark could not be read
 * - paused: a Cluster API paused or skip-remediation annotation
 * - shutdown: the node is shutting down; it is waited for, never rebooted
 * - failed: the ladder was used up; only recovery or the trigger annotation starts again
 */
export type Hold =
  | (StormHold & { scope: StormScope; message: string })
  | { kind: 'paused'; message: string }
  | { kind: 'shutdown'; message: string }
  | { kind: 'failed'; message: string; trigger: string };

/** The kind of a Hold: storm, cooldown, in-flight, actor, paused, shutdown or failed. */
export type HoldKind = Hold['kind'];

/** Where a node's repair is on the ladder. */
export interface StepStatus {
  /** 1-based position in the ladder. */
  index: number;
  /** How many steps the ladder has. */
  of: number;
  /** The step's action (the intent's, when one is recorded). */
  action: RemediationStepKind;
  /** 1-based attempt within the step. */
  attempt: number;
  /** How many attempts the step allows. */
  attempts: number;
}

/** One node's line of `noderepair status`. */
export interface NodeStatus {
  /** The Node's name. */
  name: string;
  /** The phase the controller decides for the node now. */
  phase: RepairPhase;
  /** The phase recorded in the state annotation (absent: none recorded). */
  recordedPhase?: RepairPhase;
  /** What the node's conditions say is wrong (Healthy when nothing). */
  cause: CauseKind;
  /** The assessment after the policy's timeouts (healthy, suspect, unhealthy...). */
  signal: HealthSignal;
  /** The ladder position of the repair in progress; absent when none (or Failed). */
  step?: StepStatus;
  /** When the controller acts or looks again: `now` when it acts at once; absent: only on a change. */
  nextAt?: number;
  /** True when the decision now carries actions (cordon, drain, an action, uncordon...). */
  actsNow: boolean;
  /**
   * Why the node is not being repaired although something is wrong; absent when nothing holds it.
   */
  hold?: Hold;
  /** The decision's reason in words. */
  reason: string;
  /** The last repair that ended, from the state annotation (`endedAt` in epoch ms). */
  lastRemediation?: { id: string; endedAt: number; step: number; result: string };
  /** The node's last repairs from the state annotation, oldest first (history.ts). */
  history?: (HistoryEntry & { durationMs: number })[];
  /** The state annotation does not parse: the controller does not act on the node until a person resolves it. */
  stateError?: string;
}

/** What `noderepair status` shows: the storm guard's counts and every node's status. */
export interface StatusReport {
  /** When the report was made, in epoch ms. */
  at: number;
  /**
   * The storm guard's view: nodes counted, unhealthy, repairs in flight, the resolved limit, and
   * whether it is tripped.
   */
  storm: { total: number; unhealthy: number; inFlight: number; limit: number; tripped: boolean };
  /** One status per named node, in name order. */
  nodes: NodeStatus[];
}

/** What statusReport knows beyond the Nodes and the policy; all optional. */
export interface StatusOptions {
  /**
   * The storm guard's memory of the controller, when known. Without it (the CLI cannot see
   * the controller's memory) a node held for a storm is assumed to cool down from `now`, as
   * a controller started now would: its cooldown end is then the latest it can be.
   */
  memory?: StormMemory;
  /** renewTime of each node's Lease in kube-node-lease, by node name (as the controller reads it). */
  leaseRenewTimes?: ReadonlyMap<string, string>;
  /** Other actors' holds on a node (as the controller reads them for a fleet pass). */
  actorHoldsOf?: (
    node: NodeSnapshot & { metadata: { name: string } },
    state: RepairState | undefined,
  ) => ActorHold[];
  /** The storm guard's latch as persisted (stormGuard.latch), when read. */
  latch?: LatchState;
}

function readState(
  node: NodeSnapshot,
  policy: RepairPolicy,
): { state?: RepairState; error?: string } {
  const r = readStateAnnotation(node, policy.annotations.state);
  if (r._tag === 'Left') return { error: r.left };
  return r.right !== undefined ? { state: r.right } : {};
}

function stepOf(state: RepairState | undefined, policy: RepairPolicy): StepStatus | undefined {
  const rem = state?.remediation;
  if (rem === undefined) return undefined;
  const step = policy.ladder[rem.step];
  if (step === undefined) return undefined;
  return {
    index: rem.step + 1,
    of: policy.ladder.length,
    action: rem.intent?.action ?? step.action,
    attempt: rem.attempt,
    attempts: step.attempts,
  };
}

/** The status of every node in `nodes` (named nodes only), in name order. */
export function statusReport(
  nodes: readonly NodeSnapshot[],
  policy: RepairPolicy,
  nowInput: Date | number,
  opts: StatusOptions = {},
): StatusReport {
  const now = nowMillis(nowInput);
  const named = nodes
    .filter((n): n is NodeSnapshot & { metadata: { name: string } } => !!n.metadata?.name)
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  const read = named.map((n) => readState(n, policy));
  const members: FleetMember[] = named.map((n, i) => {
    const leaseRenewTime = opts.leaseRenewTimes?.get(n.metadata.name);
    const actorHolds = opts.actorHoldsOf?.(n, read[i]?.state) ?? [];
    return {
      obs: {
        nodeName: n.metadata.name,
        node: n,
        ...(leaseRenewTime !== undefined ? { leaseRenewTime } : {}),
        ...(actorHolds.length > 0 ? { actorHolds } : {}),
      },
      state: read[i]?.state,
    };
  });
  const fleet = decideFleet(
    members,
    policy,
    now,
    opts.memory ?? stormMemoryAtStart(now),
    opts.latch,
  );
  const out = fleet.decisions.map((d, i): NodeStatus => {
    const { state, error } = read[i] ?? {};
    const next = d.nextState ?? state;
    const verdict = fleet.storm.verdicts.get(d.node);
    const hold = holdOf(d.signal, d.phase, d.reason, verdict, policy);
    // A control-plane node's ladder has no Replace (control-plane.ts): count its steps so.
    const inFlightStep = isInFlight(next?.phase) ? next?.remediation?.step : undefined;
    const ladderOf = policyForNode(
      policyForRule(policy, inFlightStep !== undefined ? next?.remediation?.rule : undefined),
      named[i]?.metadata.labels,
      inFlightStep,
    );
    const step = d.phase === 'Failed' ? undefined : stepOf(next, ladderOf);
    const last = next?.lastRemediation;
    const actsNow = d.actions.length > 0;
    return {
      name: d.node,
      phase: d.phase,
      ...(state !== undefined ? { recordedPhase: state.phase } : {}),
      cause: d.cause.kind,
      signal: d.signal,
      ...(step !== undefined ? { step } : {}),
      ...(actsNow
        ? { nextAt: now }
        : d.requeueAfterMs !== undefined
          ? { nextAt: now + d.requeueAfterMs }
          : {}),
      actsNow,
      ...(hold !== undefined ? { hold } : {}),
      reason: d.reason,
      ...(last !== undefined ? { lastRemediation: { ...last } } : {}),
      ...(next?.history !== undefined && next.history.length > 0
        ? { history: next.history.map((h) => ({ ...h, durationMs: h.endedAt - h.startedAt })) }
        : {}),
      ...(error !== undefined ? { stateError: error } : {}),
    };
  });
  const { total, unhealthy, inFlight, limit, tripped } = fleet.storm;
  return { at: now, storm: { total, unhealthy, inFlight, limit, tripped }, nodes: out };
}

function holdOf(
  signal: HealthSignal,
  phase: RepairPhase,
  reason: string,
  verdict: StormVerdict | undefined,
  policy: RepairPolicy,
): Hold | undefined {
  if (signal === 'paused') return { kind: 'paused', message: reason };
  if (verdict !== undefined && !verdict.admitted && verdict.hold !== undefined)
    return { ...verdict.hold, scope: verdict.scope, message: holdMessage(verdict.hold) };
  if (phase === 'Failed')
    return {
      kind: 'failed',
      trigger: policy.annotations.trigger,
      message: `gave up (ladder used up); waits for recovery or the ${policy.annotations.trigger} annotation`,
    };
  if (signal === 'waiting' && phase === 'Waiting') return { kind: 'shutdown', message: reason };
  return undefined;
}

/** A held node's reason in one line, with the counts or the end time. */
export function holdMessage(h: StormHold): string {
  const where =
    (h.kind === 'storm' || h.kind === 'cooldown' || h.kind === 'rate') && h.domain !== undefined
      ? ` in ${h.domain}`
      : '';
  switch (h.kind) {
    case 'storm':
      return `storm guard: ${h.unhealthy} of ${h.total} nodes unhealthy${where} (limit ${h.limit})`;
    case 'cooldown':
      return `storm guard cooldown${where} until ${iso(h.until)}`;
    case 'in-flight':
      return `maxInFlight: ${h.inFlight} repairs in flight (max ${h.maxInFlight})${h.byOthers !== undefined ? `, ${h.byOthers} by other actors` : ''}`;
    case 'actor':
      return `${h.actor}: ${h.detail}`;
    case 'rate':
      return h.unknown !== undefined
        ? `rate limit${where}: repairs started in the last hour unknown (node ${h.unknown}'s repair state cannot be read)`
        : `rate limit${where}: ${h.started} repairs started in the last hour (max ${h.limit})${h.until !== undefined ? ` until ${iso(h.until)}` : ''}`;
    case 'latch':
      return `latch set ${iso(h.since)}: ${h.reason}; reset it with noderepair reset-latch`;
  }
}
