// Assessment: has the node been unhealthy long enough to act? Pure; the state machine and
// the storm guard both start from it, so they can never disagree about a node.
import { classifyNode, type Cause } from './cause.js';
import {
  annotation,
  AnnotationCapiPaused,
  AnnotationCapiSkipRemediation,
  getCondition,
  NodeReady,
  type HealthObservation,
} from './node.js';
import type { RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';
import { formatDuration, toMillis } from './time.js';

/**
 * - healthy: nothing to do
 * - suspect: an unhealthy signal whose timeout has not run out yet (requeueAfterMs says when)
 * - unhealthy: act (subject to the storm guard)
 * - waiting: the node is shutting down; wait for it, never reboot it
 * - paused: Cluster API paused / skip-remediation annotation; not judged, not counted
 * - gone: the Node object no longer exists
 */
export type HealthSignal = 'healthy' | 'suspect' | 'unhealthy' | 'waiting' | 'paused' | 'gone';

export interface Assessment {
  cause: Cause;
  signal: HealthSignal;
  /** Why the signal is what it is, in words for events and the simulator. */
  detail: string;
  /** When the unhealthy signal began (condition lastTransitionTime, creation time, ...). */
  unhealthySince?: number;
  requeueAfterMs?: number;
  /** Flap history after this observation (NotReady episode start times inside the window). */
  episodes: number[];
  /** A manual trigger annotation value not acted upon yet. */
  newTrigger?: string;
}

/**
 * How long after a deadline to look again. A node is unhealthy once lastTransitionTime +
 * timeout is strictly before now (Cluster API's rule), so the first instant that qualifies
 * is 1 ms after it. Cluster API's MHC requeues at remaining + 1 s; we look at the deadline
 * itself, so a remediation starts within milliseconds of it instead of about a second later.
 */
const PAST_DEADLINE_MS = 1;

export function assessNode(
  obs: HealthObservation,
  state: RepairState | undefined,
  policy: RepairPolicy,
  now: number,
): Assessment {
  const cause = classifyNode(obs, now, { staleHeartbeatTimeoutMs: policy.staleHeartbeatTimeoutMs });
  const node = obs.node;
  const prevEpisodes = state?.episodes ?? [];
  if (cause.kind === 'NodeDeleted') {
    return { cause, signal: 'gone', detail: cause.message, episodes: prevEpisodes };
  }
  const episodes = updateEpisodes(obs, prevEpisodes, policy, now);
  for (const key of [AnnotationCapiPaused, AnnotationCapiSkipRemediation]) {
    if (annotation(node, key) !== undefined) {
      return { cause, signal: 'paused', detail: `node has the ${key} annotation`, episodes };
    }
  }
  if (cause.kind === 'ShuttingDown') {
    return {
      cause,
      signal: 'waiting',
      detail: 'the node is shutting down: waiting for it, never rebooting it',
      episodes,
    };
  }
  const triggerValue = annotation(node, policy.annotations.trigger);
  const newTrigger =
    triggerValue !== undefined && triggerValue !== state?.handledTrigger ? triggerValue : undefined;
  const withTrigger = (a: Assessment): Assessment =>
    newTrigger === undefined
      ? a
      : {
          ...a,
          signal: 'unhealthy',
          detail: `manual trigger ${policy.annotations.trigger}=${JSON.stringify(newTrigger)}`,
          unhealthySince: a.unhealthySince ?? now,
          newTrigger,
          requeueAfterMs: undefined,
        };

  if (cause.kind === 'NotStarted') {
    return withTrigger(startup(obs, cause, policy, now, episodes));
  }
  if (cause.kind === 'StaleHeartbeat') {
    return withTrigger({
      cause,
      signal: 'unhealthy',
      detail: cause.message,
      unhealthySince: now,
      episodes,
    });
  }

  // Unhealthy conditions, with Cluster API's timing: unhealthy once lastTransitionTime +
  // timeout is strictly before now; otherwise check again just past the deadline.
  let suspect: { since: number; requeue: number; text: string } | undefined;
  let matched: { since: number; text: string; condCause: Cause } | undefined;
  for (const uc of policy.unhealthyConditions) {
    const c = getCondition(node, uc.type);
    if (c === undefined || c.status !== uc.status) continue;
    const since = toMillis(c.lastTransitionTime) ?? now;
    const text = `${uc.type}=${uc.status} for more than ${formatDuration(uc.timeoutMs)}`;
    const condCause: Cause =
      uc.type === NodeReady
        ? cause
        : {
            kind: 'ConditionUnhealthy',
            message: `${uc.type}=${uc.status}: ${c.message ?? c.reason ?? ''}`.trim(),
          };
    if (since + uc.timeoutMs < now) {
      matched ??= { since, text, condCause };
    } else {
      const requeue = uc.timeoutMs - (now - since) + PAST_DEADLINE_MS;
      if (suspect === undefined || requeue < suspect.requeue)
        suspect = {
          since,
          requeue,
          text: `${uc.type}=${uc.status} since ${new Date(since).toISOString()}, timeout ${formatDuration(uc.timeoutMs)}`,
        };
    }
  }
  if (matched !== undefined) {
    return withTrigger({
      cause: matched.condCause,
      signal: 'unhealthy',
      detail: matched.text,
      unhealthySince: matched.since,
      episodes,
    });
  }
  const ready = getCondition(node, NodeReady);
  if (ready !== undefined && ready.status !== 'True' && episodes.length >= policy.flap.episodes) {
    return withTrigger({
      cause,
      signal: 'unhealthy',
      detail: `flapping: ${episodes.length} NotReady episodes within ${formatDuration(policy.flap.windowMs)} (limit ${policy.flap.episodes})`,
      unhealthySince: toMillis(ready.lastTransitionTime) ?? now,
      episodes,
    });
  }
  if (suspect !== undefined) {
    return withTrigger({
      cause,
      signal: 'suspect',
      detail: suspect.text,
      unhealthySince: suspect.since,
      requeueAfterMs: suspect.requeue,
      episodes,
    });
  }
  return withTrigger({
    cause,
    signal: 'healthy',
    detail:
      cause.kind === 'Healthy'
        ? 'Ready'
        : `${cause.kind} does not match any unhealthy condition of the policy`,
    episodes,
  });
}

/** Node startup: no Ready condition yet. Unhealthy once creation + nodeStartupTimeout is strictly past. */
function startup(
  obs: HealthObservation,
  cause: Cause,
  policy: RepairPolicy,
  now: number,
  episodes: number[],
): Assessment {
  if (policy.nodeStartupTimeoutMs === 0) {
    return {
      cause,
      signal: 'suspect',
      detail: 'node has not started; the startup timeout is disabled',
      episodes,
    };
  }
  const created = toMillis(obs.node?.metadata?.creationTimestamp) ?? now;
  if (created + policy.nodeStartupTimeoutMs < now) {
    return {
      cause: {
        kind: 'NotStarted',
        message: `Node failed to report startup in ${formatDuration(policy.nodeStartupTimeoutMs)}`,
      },
      signal: 'unhealthy',
      detail: `startup timeout: no Ready condition ${formatDuration(policy.nodeStartupTimeoutMs)} after creation`,
      unhealthySince: created,
      episodes,
    };
  }
  return {
    cause,
    signal: 'suspect',
    detail: `waiting for the node to start (timeout ${formatDuration(policy.nodeStartupTimeoutMs)})`,
    unhealthySince: created,
    requeueAfterMs: policy.nodeStartupTimeoutMs - (now - created) + PAST_DEADLINE_MS,
    episodes,
  };
}

/** Records the start of the current NotReady episode (its lastTransitionTime) and forgets episodes outside the window. */
function updateEpisodes(
  obs: HealthObservation,
  prev: number[],
  policy: RepairPolicy,
  now: number,
): number[] {
  const ready = getCondition(obs.node, NodeReady);
  const out = prev.filter((t) => t > now - policy.flap.windowMs);
  if (ready !== undefined && ready.status !== 'True') {
    const start = toMillis(ready.lastTransitionTime);
    if (start !== undefined && start > now - policy.flap.windowMs && !out.includes(start))
      out.push(start);
  }
  return out.sort((a, b) => a - b);
}
