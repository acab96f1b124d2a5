// Assessment: has the node been unhealthy long enough to act? Pure; the state machine and
// the storm guard both start from it, so they can never disagree about a node.
import { classifyObserved, type Cause } from './cause.js';
import {
  AnnotationCapiPaused,
  AnnotationCapiSkipRemediation,
  NodeReady,
  type HealthObservation,
} from './node.js';
import { observeNode, unannouncedShutdown, type NodeObservation } from './observation.js';
import {
  followObserved,
  inCountedEpisode,
  readyClockStart,
  repairInFlight,
  type FlapMemory,
} from './episodes.js';
import type { RepairPolicy } from './policy.js';
import type { ConditionRuleRef, RepairState } from './state.js';
import { conditionMatches, ruleRef } from './condition-rules.js';
import { judgeShutdown, shutdownBehaviour } from './shutdown.js';
import type { HealthSignal } from './signal.js';
import { formatDuration, iso } from './time.js';

// HealthSignal lives in signal.ts (the storm guard reads it too); exported here as before.
export type { HealthSignal };

/** How healthy a node is now and why, with the episode memory decideRepair persists. */
export interface Assessment extends FlapMemory {
  /** What the node reports (NotReady, NotStarted, a condition...), before any timeout. */
  cause: Cause;
  /** The verdict after the policy's timeouts, annotations and shutdown handling. */
  signal: HealthSignal;
  /** Why the signal is what it is, in words for events and the simulator. */
  detail: string;
  /** When the unhealthy signal began (condition lastTransitionTime, creation time, ...). */
  unhealthySince?: number;
  /** Look again after this many milliseconds (a timeout or a settle period runs out then). */
  requeueAfterMs?: number;
  // FlapMemory: the episodes inside the window and the current not-Ready period after this
  // observation (decideRepair persists them).
  /** A manual trigger annotation value not acted upon yet. */
  newTrigger?: string;
  /**
   * Unhealthy and its machine is off or gone (a shut-down node past shutdown.failAfter, or a
   * machine the provider, asked before the first action, found off without a recorded request
   * or gone): the repair skips steps that ask the guest (start-repair.ts).
   */
  poweredOff?: boolean;
  /**
   * Unhealthy, but no repair may start: the provider was asked for the machine's power state
   * before the first action and could not answer (an outage is never a verdict). Why, in words.
   */
  powerHold?: string;
  /**
   * Unhealthy by an `unhealthyConditions` entry with its own ladder: that entry, which a
   * repair started now records and climbs (condition-rules.ts).
   */
  rule?: ConditionRuleRef;
  /**
   * Unhealthy only by entries whose action is NoAction: reported, never repaired. Why, in
   * words. Absent with a manual trigger (a person's request).
   */
  reportOnly?: string;
}

/**
 * How long after a deadline to look again. A node is unhealthy once lastTransitionTime +
 * timeout is strictly before now (Cluster API's rule), so the first instant that qualifies
 * is 1 ms after it. Cluster API's MHC requeues at remaining + 1 s; we look at the deadline
 * itself, so a remediation starts within milliseconds of it instead of about a second later.
 */
const PAST_DEADLINE_MS = 1;

/**
 * Judges one node against the policy at `now` (epoch ms): unhealthy once a condition has matched
 * for longer than its timeout (Cluster API's rule), flapping, a startup timeout, a stale heartbeat
 * or a manual trigger. Pure.
 */
export function assessNode(
  obs: HealthObservation,
  state: RepairState | undefined,
  policy: RepairPolicy,
  now: number,
): Assessment {
  return assessObserved(observeNode(obs), state, policy, now);
}

/** assessNode on a node already parsed (observation.ts): what decideRepair calls. */
export function assessObserved(
  obs: NodeObservation,
  state: RepairState | undefined,
  policy: RepairPolicy,
  now: number,
): Assessment {
  const cause = classifyObserved(obs, now, {
    staleHeartbeatTimeoutMs: policy.staleHeartbeatTimeoutMs,
  });
  if (cause.kind === 'NodeDeleted') {
    return { cause, signal: 'gone', detail: cause.message, episodes: state?.episodes ?? [] };
  }
  const flap = followObserved(obs, cause, state, policy, now);
  for (const key of [AnnotationCapiPaused, AnnotationCapiSkipRemediation]) {
    if (obs.annotations.get(key) !== undefined) {
      return { cause, signal: 'paused', detail: `node has the ${key} annotation`, ...flap };
    }
  }
  if (cause.kind === 'ShuttingDown') {
    return {
      cause,
      signal: 'waiting',
      detail: `the node is shutting down: waiting for it, never rebooting it; ${shutdownBehaviour(policy.shutdown)}`,
      ...flap,
    };
  }
  const triggerValue = obs.annotations.get(policy.annotations.trigger);
  const newTrigger =
    triggerValue !== undefined && triggerValue !== state?.handledTrigger ? triggerValue : undefined;
  // A person's trigger repairs with the policy's ladder (as the docs say), never with the
  // ladder of whichever condition rule happens to be past its wait at that moment: a minute
  // earlier there was none, and a rule's ladder may start with Rebuild or Replace. What a
  // person asks for must not depend on the second they ask. The rule is dropped, so none is
  // recorded in the remediation and the repair climbs the policy ladder to its end.
  const withTrigger = (a: Assessment): Assessment =>
    newTrigger === undefined
      ? a
      : {
          ...withoutRule(withoutReportOnly(a)),
          signal: 'unhealthy',
          detail: `manual trigger ${policy.annotations.trigger}=${JSON.stringify(newTrigger)}`,
          unhealthySince: a.unhealthySince ?? now,
          newTrigger,
          requeueAfterMs: undefined,
        };
  // A node shut down on purpose and not Ready since: it announced a graceful shutdown (the
  // kubelet then stops, so Ready goes Unknown), the cloud marks its instance shut down, or
  // the provider says someone stopped its machine (episodes.ts labels the period). Powering
  // it back on would go against its operator's intent, so it waits until it reports Ready
  // again (or a manual trigger asks for a repair), unless the policy says to fail it after a
  // while (shutdown.ts). The not-Ready period remembers that it is a shutdown.
  // A repair of ours that is already running (a manual trigger's, or FailAfter's) is not
  // paused by it: its ladder decides.
  if (
    flap.notReady?.uncounted === 'Shutdown' &&
    newTrigger === undefined &&
    !repairInFlight(state)
  ) {
    const v = judgeShutdown(
      flap.notReady.since,
      obs.power,
      policy.shutdown,
      now,
      unannouncedShutdown(obs),
    );
    if (v.kind === 'Wait')
      return {
        cause,
        signal: 'waiting',
        detail: v.detail,
        ...(v.requeueAfterMs !== undefined ? { requeueAfterMs: v.requeueAfterMs } : {}),
        ...flap,
      };
    return {
      cause: { kind: 'ShutDownTooLong', message: v.detail },
      signal: 'unhealthy',
      detail: v.detail,
      unhealthySince: v.since,
      poweredOff: v.poweredOff,
      ...flap,
    };
  }

  return withPower(byConditions(obs, cause, flap, withTrigger, policy, now), obs, state);
}

function withoutReportOnly(a: Assessment): Assessment {
  const { reportOnly: _r, ...rest } = a;
  return rest;
}

function withoutRule(a: Assessment): Assessment {
  const { rule: _r, ...rest } = a;
  return rest;
}

/**
 * What the provider's power state, asked before the first action of a repair
 * (power-check.ts), changes about an unhealthy node that is no shutdown (someone's stop made
 * its period one: episodes.ts). Could not ask: no repair starts (an outage is never a
 * verdict). Off without a recorded request (a crash) or gone: the repair goes on, past the
 * steps that ask the guest. On, or not asked: as it is. A manual trigger is a person's
 * request and is not held; a repair of ours in flight is its ladder's.
 */
function withPower(
  a: Assessment,
  obs: NodeObservation,
  state: RepairState | undefined,
): Assessment {
  const p = obs.power;
  if (p === undefined || a.signal !== 'unhealthy' || a.newTrigger !== undefined) return a;
  if (repairInFlight(state)) return a;
  switch (p.kind) {
    case 'Unavailable':
      return {
        ...a,
        powerHold: `could not ask the provider for its machine's power state before the first action (${p.reason}): no repair until it can tell whether someone stopped the machine`,
      };
    case 'Off':
      return p.byRequest
        ? a
        : {
            ...a,
            detail: `${a.detail}; its machine is off without a recorded stop request, as after a crash (${p.evidence})`,
            poweredOff: true,
          };
    case 'Gone':
      return { ...a, detail: `${a.detail}; its machine is gone (${p.evidence})`, poweredOff: true };
    case 'On':
      return a;
  }
}

/** The verdict from the node's conditions, start-up and flapping, past the shutdown rule. */
function byConditions(
  obs: NodeObservation,
  cause: Cause,
  flap: FlapMemory,
  withTrigger: (a: Assessment) => Assessment,
  policy: RepairPolicy,
  now: number,
): Assessment {
  if (cause.kind === 'NotStarted') {
    return withTrigger(startup(obs, cause, policy, now, flap));
  }
  if (cause.kind === 'StaleHeartbeat') {
    return withTrigger({
      cause,
      signal: 'unhealthy',
      detail: cause.message,
      unhealthySince: now,
      ...flap,
    });
  }

  // Unhealthy conditions, with Cluster API's timing: unhealthy once the clock start +
  // timeout is strictly before now; otherwise check again just past the deadline. The clock
  // starts at the condition's lastTransitionTime, except for a not-True Ready inside a
  // NotReady episode: there it starts when the episode began, so Unknown -> False does not
  // restart it (readyClockStart; docs/health.md, "Episodes").
  // Which entry wins when several match: the node is unhealthy as soon as ANY matching
  // entry's wait is over, so a short wait (KernelDeadlock, 5m) is never delayed by a longer
  // one; among the entries past their wait, the first in the policy's order that acts wins
  // (the order is the user's precedence). A NoAction entry never masks one that acts: it
  // wins only when no acting entry (nor the flap rule) makes the node unhealthy.
  let suspect: { since: number; requeue: number; text: string } | undefined;
  type Match = {
    since: number;
    text: string;
    condCause: Cause;
    rule?: ConditionRuleRef;
  };
  let matched: Match | undefined;
  let reportOnly: Match | undefined;
  for (const uc of policy.unhealthyConditions) {
    const c = obs.conditions.get(uc.type);
    if (c === undefined || !conditionMatches(uc, c)) continue;
    const transition = c.transitionAt ?? now;
    const since =
      uc.type === NodeReady && uc.status !== 'True'
        ? readyClockStart(flap, transition)
        : transition;
    const which = uc.reason !== undefined ? ` (reason ${uc.reason})` : '';
    // Inside an episode that began with another status, say both.
    const text =
      since < transition
        ? `not Ready for more than ${formatDuration(uc.timeoutMs)} (${uc.type}=${uc.status} since ${iso(transition)})`
        : `${uc.type}=${uc.status}${which} for more than ${formatDuration(uc.timeoutMs)}`;
    const condCause: Cause =
      uc.type === NodeReady
        ? cause
        : {
            kind: 'ConditionUnhealthy',
            message: `${uc.type}=${uc.status}: ${c.message ?? c.reason ?? ''}`.trim(),
          };
    if (since + uc.timeoutMs < now) {
      if (uc.action === 'NoAction') reportOnly ??= { since, text, condCause };
      else
        matched ??= {
          since,
          text,
          condCause,
          ...(uc.ladder !== undefined ? { rule: ruleRef(uc) } : {}),
        };
    } else {
      const requeue = uc.timeoutMs - (now - since) + PAST_DEADLINE_MS;
      if (suspect === undefined || requeue < suspect.requeue)
        suspect = {
          since,
          requeue,
          text:
            since < transition
              ? `not Ready since ${iso(since)} (${uc.type}=${uc.status} since ${iso(transition)}), timeout ${formatDuration(uc.timeoutMs)}`
              : `${uc.type}=${uc.status}${which} since ${iso(since)}, timeout ${formatDuration(uc.timeoutMs)}`,
        };
    }
  }
  if (matched !== undefined) {
    return withTrigger({
      cause: matched.condCause,
      signal: 'unhealthy',
      detail: matched.text,
      unhealthySince: matched.since,
      ...(matched.rule !== undefined ? { rule: matched.rule } : {}),
      ...flap,
    });
  }
  // Flapping: only while the node is in an episode that counts (not in a shutdown, its
  // start-up or our own repair), and that episode is one of the K.
  if (inCountedEpisode(flap) && flap.episodes.length >= policy.flap.episodes) {
    const episodeStart = flap.notReady?.since ?? now;
    const flapping = `flapping: ${flap.episodes.length} NotReady episodes within ${formatDuration(policy.flap.windowMs)} (limit ${policy.flap.episodes})`;
    // Not at the episode's first instant: nodes that fail together (a zone, a switch) reach
    // the API server moments apart, and a node judged before the others show would be
    // admitted by a storm guard that cannot see the storm yet. Timeouts give that time
    // naturally; the flap rule waits `settle` for it.
    const settleLeft = episodeStart + policy.flap.settleMs - now;
    if (settleLeft >= 0) {
      const requeue = settleLeft + PAST_DEADLINE_MS;
      return withTrigger({
        cause,
        signal: 'suspect',
        detail: `${flapping}; judged once this episode has lasted ${formatDuration(policy.flap.settleMs)}`,
        unhealthySince: episodeStart,
        requeueAfterMs: suspect !== undefined ? Math.min(suspect.requeue, requeue) : requeue,
        ...flap,
      });
    }
    return withTrigger({
      cause,
      signal: 'unhealthy',
      detail: flapping,
      unhealthySince: episodeStart,
      ...flap,
    });
  }
  // An acting entry still inside its wait comes before a NoAction one: the node is suspect
  // (the storm guard counts it: nodes about to need a repair are what it must see coming);
  // report-only stays in the detail. Reported as NoAction only when nothing acting waits.
  if (suspect !== undefined) {
    return withTrigger({
      cause,
      signal: 'suspect',
      detail:
        reportOnly !== undefined
          ? `${suspect.text}; also ${reportOnly.text} (NoAction: reported, no repair)`
          : suspect.text,
      unhealthySince: suspect.since,
      requeueAfterMs: suspect.requeue,
      ...flap,
    });
  }
  if (reportOnly !== undefined) {
    return withTrigger({
      cause: reportOnly.condCause,
      signal: 'unhealthy',
      detail: reportOnly.text,
      unhealthySince: reportOnly.since,
      reportOnly: 'the policy says NoAction for it: reported, no repair',
      ...flap,
    });
  }
  return withTrigger({
    cause,
    signal: 'healthy',
    detail:
      cause.kind === 'Healthy'
        ? 'Ready'
        : `${cause.kind} does not match any unhealthy condition of the policy`,
    ...flap,
  });
}

/** Node startup: no Ready condition yet. Unhealthy once creation + nodeStartupTimeout is strictly past. */
function startup(
  obs: NodeObservation,
  cause: Cause,
  policy: RepairPolicy,
  now: number,
  flap: FlapMemory,
): Assessment {
  if (policy.nodeStartupTimeoutMs === 0) {
    return {
      cause,
      signal: 'suspect',
      detail: 'node has not started; the startup timeout is disabled',
      ...flap,
    };
  }
  const created = obs.createdAt ?? now;
  if (created + policy.nodeStartupTimeoutMs < now) {
    return {
      cause: {
        kind: 'NotStarted',
        message: `Node failed to report startup in ${formatDuration(policy.nodeStartupTimeoutMs)}`,
      },
      signal: 'unhealthy',
      detail: `startup timeout: no Ready condition ${formatDuration(policy.nodeStartupTimeoutMs)} after creation`,
      unhealthySince: created,
      ...flap,
    };
  }
  return {
    cause,
    signal: 'suspect',
    detail: `waiting for the node to start (timeout ${formatDuration(policy.nodeStartupTimeoutMs)})`,
    unhealthySince: created,
    requeueAfterMs: policy.nodeStartupTimeoutMs - (now - created) + PAST_DEADLINE_MS,
    ...flap,
  };
}
