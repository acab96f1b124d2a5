// What the controller tells operators, as events.k8s.io/v1 Events on the Node. Pure: the
// reasons come from the decision (repair transitions, storm-guard holds) and from action
// results; the reconciler records them through the core EventRecorder.
import type { RepairDecision } from '../health/decide.js';
import { startsRemediation } from '../health/decision.js';
import type { DrainResult } from '../drain/executor.js';
import type { DrainPassResult } from '../drain/pass.js';
import type { ProviderOutcome } from '../provider/port.js';
import type { RepairState } from '../health/state.js';
import type { EventInput } from '../runtime/helpers/event-recorder.js';

// The question lives beside RepairDecision (the storm guard's batch asks it too).
export { startsRemediation };

/**
 * The reasons of the Events the auto-repair controller records on a Node (a stable set: alerts and
 * tests match them).
 */
export const EventReasons = {
  RepairStarted: 'RepairStarted',
  RepairSucceeded: 'RepairSucceeded',
  RepairFailed: 'RepairFailed',
  StormGuardHeld: 'StormGuardHeld',
  /** Another actor (kured, a NodeMaintenance, a medik8s lease, a rollout...) is disrupting the node. */
  HeldByOtherActor: 'HeldByOtherActor',
  /** Someone else holds the node's disruption lease: the repair waits for it. */
  DisruptionLeaseHeld: 'DisruptionLeaseHeld',
  InvalidRepairState: 'InvalidRepairState',
  Cordoned: 'Cordoned',
  /** A drain pass evicted pods or was refused by a PodDisruptionBudget; more passes follow. */
  Draining: 'Draining',
  Drained: 'Drained',
  DrainIncomplete: 'DrainIncomplete',
  Uncordoned: 'Uncordoned',
  /**
   * The provider accepted the action: nothing is verified yet (RepairSucceeded says the node
   * came back). Named RemediationSucceeded before issue 47.
   */
  ActionAccepted: 'ActionAccepted',
  /**
   * @deprecated Renamed ActionAccepted (the reason recorded is ActionAccepted now): this alias
   * keeps code that names it compiling and matching.
   */
  RemediationSucceeded: 'ActionAccepted',
  RemediationFailed: 'RemediationFailed',
  ActionFailed: 'ActionFailed',
  /** The provider could not be asked; the repair waits, no attempt is used. */
  ProviderUnavailable: 'ProviderUnavailable',
  /** The machine is fenced; the out-of-service taint was added (or already there). */
  Fenced: 'Fenced',
  /** Not (yet) known fenced: the out-of-service taint is withheld. */
  AwaitingFence: 'AwaitingFence',
  /**
   * After an accepted Replace the machine was fenced and the Node deleted (or found already
   * gone): the remediation ended as Replaced. The note says who must recreate capacity.
   */
  NodeReplaced: 'NodeReplaced',
  /** After a Replace, the Node was not deleted: it is not (provably) the replaced machine. */
  NodeDeleteWithheld: 'NodeDeleteWithheld',
  /** The node is shutting down or shut down: waited for, never powered on. */
  NodeShutDown: 'NodeShutDown',
  /**
   * A shut-down node stayed down past the policy's shutdown.failAfter (FailAfter): it is
   * now treated as failed and repaired (or held by the storm guard).
   */
  ShutDownTooLong: 'ShutDownTooLong',
  /**
   * An attempt timed out with its node silent since the action and the provider could not say
   * whether the machine runs: no next attempt until there is fresh evidence (first such answer
   * of the attempt; the note says why and when it asks again).
   */
  AwaitingEvidence: 'AwaitingEvidence',
  /**
   * The node is unhealthy only by `unhealthyConditions` entries whose action is NoAction:
   * reported (phase Unhealthy), never repaired. Recorded when the node enters Unhealthy so.
   */
  UnhealthyReportOnly: 'UnhealthyReportOnly',
  DryRun: 'DryRun',
} as const;

const inFlight = (p: string | undefined) => p === 'Remediating' || p === 'Verifying';

/** True when this decision ends a remediation successfully. */
export function endsInSuccess(d: RepairDecision, prev: RepairState | undefined): boolean {
  return (
    inFlight(prev?.phase) &&
    d.phase === 'Healthy' &&
    d.nextState?.lastRemediation?.result === 'Succeeded' &&
    d.nextState.lastRemediation.id === prev?.remediation?.id
  );
}

/** Events for the phase transition a decision makes (before any action runs). */
export function transitionEvents(d: RepairDecision, prev: RepairState | undefined): EventInput[] {
  const out: EventInput[] = [];
  if (d.held !== undefined) {
    out.push({
      type: 'Warning',
      reason:
        d.held.scope === 'actor' ? EventReasons.HeldByOtherActor : EventReasons.StormGuardHeld,
      action: 'Hold',
      note: d.reason,
    });
  }
  if (d.reportOnly !== undefined && prev?.phase !== 'Unhealthy') {
    out.push({
      type: 'Warning',
      reason: EventReasons.UnhealthyReportOnly,
      action: 'Report',
      note: d.reason,
    });
  }
  if (d.phase === 'Waiting' && prev?.phase !== 'Waiting') {
    out.push({
      type: 'Normal',
      reason: EventReasons.NodeShutDown,
      action: 'Wait',
      note: d.reason,
    });
  }
  if (
    d.cause.kind === 'ShutDownTooLong' &&
    prev?.phase === 'Waiting' &&
    (d.phase === 'Unhealthy' || d.phase === 'Remediating')
  ) {
    out.push({
      type: 'Warning',
      reason: EventReasons.ShutDownTooLong,
      action: 'Fail',
      note: d.cause.message,
    });
  }
  // The first provider answer that held a timed-out attempt (health/fresh-evidence.ts).
  const asks = d.nextState?.remediation?.intent?.silentAsks;
  if (asks === 1 && prev?.remediation?.intent?.silentAsks === undefined && d.actions.length === 0) {
    out.push({
      type: 'Warning',
      reason: EventReasons.AwaitingEvidence,
      action: 'Hold',
      note: d.reason,
    });
  }
  if (startsRemediation(d, prev)) {
    out.push({
      type: 'Warning',
      reason: EventReasons.RepairStarted,
      action: 'Repair',
      note: d.reason,
    });
  }
  if (endsInSuccess(d, prev)) {
    out.push({
      type: 'Normal',
      reason: EventReasons.RepairSucceeded,
      action: 'Repair',
      note: d.reason,
    });
  }
  if (d.actions.some((a) => a.type === 'GiveUp')) {
    const giveUp = d.actions.find((a) => a.type === 'GiveUp');
    out.push({
      type: 'Warning',
      reason: EventReasons.RepairFailed,
      action: 'GiveUp',
      note: giveUp?.reason ?? d.reason,
    });
  }
  return out;
}

/** One line about a drain result, for the event note and logs. */
export function describeDrain(r: DrainResult): string {
  const parts = [`${r.evicted.length} pod(s) evicted`];
  if (r.pdbRefusals > 0)
    parts.push(`${r.pdbRefusals} eviction(s) refused by a PodDisruptionBudget`);
  if (r.blocked.length > 0)
    parts.push(`${r.blocked.length} pod(s) left in place by the drain options`);
  if (r.outOfServiceTainted) parts.push('out-of-service taint added');
  if (r.remaining.length > 0) parts.push(`still on the node: ${r.remaining.join(', ')}`);
  return `${r.outcome} in ${Math.round(r.durationMs / 100) / 10}s: ${parts.join('; ')}`;
}

/** A drain pass that left pods on the node (the drain phase goes on). */
export function drainingEvent(r: DrainPassResult): EventInput {
  const parts = [`${r.evicted.length} pod(s) evicted this pass`];
  if (r.pdbRefusals > 0)
    parts.push(`${r.pdbRefusals} eviction(s) refused by a PodDisruptionBudget`);
  parts.push(`still on the node: ${r.remaining.join(', ')}`);
  return {
    type: r.pdbRefusals > 0 ? 'Warning' : 'Normal',
    reason: EventReasons.Draining,
    action: 'Drain',
    note: `draining for ${Math.round(r.durationMs / 100) / 10}s, going on at ${new Date(r.deadline).toISOString()} at the latest: ${parts.join('; ')}`,
  };
}

/**
 * The Event for a finished drain: Normal Drained, or Warning DrainIncomplete with what was left.
 */
export function drainEvent(r: DrainResult): EventInput {
  return r.outcome === 'Drained'
    ? { type: 'Normal', reason: EventReasons.Drained, action: 'Drain', note: describeDrain(r) }
    : {
        type: 'Warning',
        reason: EventReasons.DrainIncomplete,
        action: 'Drain',
        note: describeDrain(r),
      };
}

/**
 * The Event for a provider's answer to a remediation action; `replay` says the action was re-issued
 * with the same id. Unavailable is a Warning that uses no attempt.
 */
export function remediationEvent(
  action: string,
  actionId: string,
  replay: boolean,
  providerName: string,
  r: ProviderOutcome,
): EventInput {
  const what = `${action} ${actionId} via ${providerName}${replay ? ' (re-issued with the same id; the provider checks whether it already ran)' : ''}`;
  switch (r.kind) {
    case 'Accepted':
      return {
        type: 'Normal',
        reason: EventReasons.ActionAccepted,
        action,
        note: `${what}${r.message ? `: ${r.message}` : ''}`,
      };
    case 'Rejected':
      return {
        type: 'Warning',
        reason: EventReasons.RemediationFailed,
        action,
        note: `${what} failed: ${r.message || 'no message'}`,
      };
    case 'Unavailable':
      return {
        type: 'Warning',
        reason: EventReasons.ProviderUnavailable,
        action,
        note: `${what}: provider unreachable (${r.message}); waiting, no attempt used${r.maybeSent ? '; the request may have arrived, the next call asks first' : ''}`,
      };
  }
}
