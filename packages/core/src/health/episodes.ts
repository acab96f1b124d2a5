// Flap memory: which not-Ready periods are NotReady episodes. An episode is a Ready=True ->
// not-Ready transition; the controller sees snapshots of the Node, not every transition, so
// what it can know is exactly this:
//
// - Seen Ready, then seen not Ready: at least one Ready -> not-Ready transition happened in
//   between. Counted as one episode (never more: several short Ready periods between two
//   snapshots are invisible and count as one).
// - Seen not Ready, then seen not Ready with another lastTransitionTime (Unknown -> False ->
//   Unknown): whether Ready was True in between is NOT decidable from the two snapshots. We
//   take it as one continuous period (the same episode), so the count never exceeds the real
//   number of transitions; a Ready period no snapshot showed is missed.
// - No record of the node (a fresh node, or a controller that never wrote its state: a healthy
//   node carries no annotation): "last seen Ready" and "never seen" look the same. A not-Ready
//   node without a record opens a new episode, unless the snapshot shows it never started (no
//   Ready condition, NodeStatusNeverUpdated, or the status it registered with:
//   lastTransitionTime not after creationTimestamp).
//
// Pure; the period is persisted in the repair state (`notReady`), so a restarted controller
// continues it.
import type { Cause } from './cause.js';
import type { HealthObservation } from './node.js';
import {
  observeNode,
  unannouncedShutdown,
  type ConditionObservation,
  type NodeObservation,
} from './observation.js';
import type { RepairPolicy } from './policy.js';
import type { NotReadyPeriod, RepairState, UncountedReason } from './state.js';
import { isInFlight } from './storm-guard.js';

/** What the controller remembers of a node's NotReady episodes, persisted in its repair state. */
export interface FlapMemory {
  /** Episode start times within the flap window, oldest first. */
  episodes: number[];
  /** The not-Ready period the node is in; undefined when it is Ready now. */
  notReady?: NotReadyPeriod;
}

/**
 * A repair of ours exists and is not finished (whatever in-flight phases the state machine
 * has): the node going not-Ready now is most likely our own action.
 */
export function repairInFlight(state: RepairState | undefined): boolean {
  if (state === undefined) return false;
  return isInFlight(state.phase) || (state.remediation !== undefined && state.phase !== 'Failed');
}

/** The flap memory after one observation of the node. */
export function followEpisodes(
  obs: HealthObservation,
  cause: Cause,
  state: RepairState | undefined,
  policy: RepairPolicy,
  now: number,
): FlapMemory {
  return followObserved(observeNode(obs), cause, state, policy, now);
}

/** followEpisodes on a node already parsed (observation.ts): what the assessment calls. */
export function followObserved(
  obs: NodeObservation,
  cause: Cause,
  state: RepairState | undefined,
  policy: RepairPolicy,
  now: number,
): FlapMemory {
  const from = now - policy.flap.windowMs;
  const kept = (state?.episodes ?? []).filter((t) => t > from);
  const ready = obs.ready;
  // Ready now: whatever period there was is over.
  if (ready?.status === 'True') return { episodes: kept };
  // Still in the period we saw begin: flips between Unknown and False never add an episode.
  const open = state?.notReady;
  const stopped = unannouncedShutdown(obs) !== undefined;
  if (open !== undefined) {
    // Learnt later that the period is a shutdown (the cloud's shutdown taint, or the provider
    // asked before a first action says someone stopped the machine): from now on it is one,
    // and it was never a flap episode. A repair of ours in flight is left to its ladder.
    if (stopped && open.uncounted !== 'Shutdown' && !repairInFlight(state))
      return {
        episodes: open.uncounted === undefined ? kept.filter((t) => t !== open.since) : kept,
        notReady: { since: open.since, uncounted: 'Shutdown' },
      };
    return { episodes: kept, notReady: open };
  }
  const created = obs.createdAt;
  const since = ready?.transitionAt ?? created ?? now;
  const uncounted = whyNotAnEpisode(ready, cause, state, since, created, stopped);
  if (uncounted !== undefined) return { episodes: kept, notReady: { since, uncounted } };
  // `includes`: a state written by an older version may already hold this start.
  const episodes =
    since > from && !kept.includes(since) ? [...kept, since].sort((a, b) => a - b) : kept;
  return { episodes, notReady: { since } };
}

function whyNotAnEpisode(
  ready: ConditionObservation | undefined,
  cause: Cause,
  state: RepairState | undefined,
  since: number,
  created: number | undefined,
  stopped: boolean,
): UncountedReason | undefined {
  if (repairInFlight(state)) return 'Repair';
  if (cause.kind === 'ShuttingDown' || stopped) return 'Shutdown';
  if (ready === undefined || cause.kind === 'NotStarted') return 'Startup';
  // The status the node registered with (the kubelet posts Ready=False until its runtime and
  // network are up); RFC 3339 seconds, so a node that turns not-Ready within the second it was
  // created counts as starting up too.
  if (created !== undefined && since <= created) return 'Startup';
  return undefined;
}

/** The node is in a counted episode inside the window (what the flap rule may act on). */
export function inCountedEpisode(m: FlapMemory): boolean {
  return (
    m.notReady !== undefined &&
    m.notReady.uncounted === undefined &&
    m.episodes.includes(m.notReady.since)
  );
}

/**
 * Where the timeout of a not-True Ready condition runs from: the start of the episode, so a
 * flip Unknown -> False does not restart the clock. A period that is no episode (shutdown,
 * start-up, our own repair) keeps Cluster API's rule: from the condition's lastTransitionTime.
 */
export function readyClockStart(m: FlapMemory, lastTransition: number): number {
  const p = m.notReady;
  return p !== undefined && p.uncounted === undefined
    ? Math.min(p.since, lastTransition)
    : lastTransition;
}

/** The state with the assessment's flap memory (episodes, current period) in place. */
export function withFlapMemory(state: RepairState, m: FlapMemory): RepairState {
  const { notReady: _old, ...rest } = state;
  return {
    ...rest,
    episodes: m.episodes,
    ...(m.notReady !== undefined ? { notReady: m.notReady } : {}),
  };
}
