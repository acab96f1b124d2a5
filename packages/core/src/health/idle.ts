// No remediation in progress: the judgement of the node as it is now, Cluster API MHC style
// (healthy, suspect until a timeout runs out, unhealthy: start a repair unless the storm
// guard or another actor holds it; a node shutting down is waited for), and the way out of
// Failed after the repair gave up (a healthy period; a manual trigger starts a new repair).
import { decision, enter, isHealthyNow, type Judge } from './decide-context.js';
import type { RepairDecision } from './decision.js';
import { undoAction } from './repair-actions.js';
import { startRemediation } from './start-repair.js';
import type { RepairState } from './state.js';
import type { StormVerdict } from './storm-guard.js';

/** Gave up earlier: only a healthy period (or a new manual trigger, not here) gets out of Failed. */
export function afterGivingUp(j: Judge, s: RepairState): RepairDecision {
  const { policy, now, dryRun } = j;
  if (isHealthyNow(j)) {
    const healthySince = s.healthySince ?? Math.max(j.obs.ready?.transitionAt ?? now, s.since);
    const okAt = healthySince + policy.minHealthyPeriodMs;
    if (now >= okAt) {
      const { remediation: gaveUp, healthySince: _h, ...rest } = s;
      return decision(
        j,
        enter(j, rest, 'Healthy'),
        undoAction(gaveUp, dryRun, 'the node recovered on its own after the repair gave up'),
        'recovered after giving up',
      );
    }
    return decision(
      j,
      { ...s, healthySince },
      [],
      'Ready again after giving up; waiting for the minimum healthy period',
      okAt - now,
    );
  }
  const { healthySince: _h, ...rest } = s;
  return decision(
    j,
    rest,
    [],
    `repair gave up earlier; waiting for recovery or the ${policy.annotations.trigger} annotation`,
  );
}

/** The node's judgement when no remediation runs; `storm` is the storm guard's verdict. */
export function judgeIdle(
  j: Judge,
  s: RepairState,
  storm: StormVerdict | undefined,
): RepairDecision {
  const { a, policy, now } = j;
  const { healthySince: _h, remediation: previous, ...idle } = s;
  // After giving up we keep cordon ownership, so a manual retry still uncordons in the end.
  const ownsCordon = previous?.cordoned === true;
  switch (a.signal) {
    case 'waiting':
      return decision(
        j,
        enter(j, idle, 'Waiting'),
        [],
        a.detail,
        Math.min(a.requeueAfterMs ?? Infinity, policy.stormGuard.recheckIntervalMs),
      );
    case 'healthy': {
      const { heldByStormSince: held, ...recovered } = idle;
      return decision(
        j,
        enter(j, withoutStormEpisode(recovered, j.prev, held), 'Healthy'),
        [],
        a.detail,
      );
    }
    case 'suspect':
      return decision(j, enter(j, idle, 'Suspect'), [], a.detail, a.requeueAfterMs);
    case 'unhealthy': {
      // Report only (a NoAction rule): the phase and an Event say it, nothing is done.
      if (a.reportOnly !== undefined)
        return {
          ...decision(
            j,
            enter(j, idle, 'Unhealthy'),
            [],
            `unhealthy (${a.detail}) but ${a.reportOnly}`,
            Math.min(a.requeueAfterMs ?? Infinity, policy.stormGuard.recheckIntervalMs),
          ),
          reportOnly: a.reportOnly,
        };
      // Asked before the first action, the provider could not say whether someone stopped
      // the machine: an outage is never a verdict, so wait (no cordon, no action) and ask again.
      if (a.powerHold !== undefined)
        return decision(
          j,
          enter(j, idle, 'Unhealthy'),
          [],
          `unhealthy (${a.detail}) but ${a.powerHold}`,
          policy.stormGuard.recheckIntervalMs,
        );
      const verdict = storm ?? { admitted: true, reason: 'no storm guard verdict given' };
      if (!verdict.admitted) {
        // Remember a storm hold (written with the move to Unhealthy, so no extra write): the
        // node then waits out the cooldown when the storm lifts, and the NotReady period it was
        // held through leaves its flap memory when it is Ready again (withoutStormEpisode).
        // The latch and the hourly rate limit are fleet brakes too, remembered the same way:
        // - The latch is checked before the storm limits, so its verdict hides a storm still
        //   tripped around the node; it sets only after a storm held long enough. Not
        //   remembered, a node that failed in that storm started the moment a person reset the
        //   latch, with no cooldown, and every period the latch held it through stayed in its
        //   flap memory: a few and it was "flapping", unhealthy the moment it next turned
        //   NotReady, so the condition timeout that lets the guard see a storm whole was skipped.
        // - A rate hold: the node would have been repaired (a verified repair clears the flap
        //   memory) had other nodes not used the hour's starts; its wait is the fleet's, not
        //   its flapping. The cooldown reads when a storm was last seen tripped, so a rate-held
        //   node waits one only after a storm (or a controller restart: it cannot know).
        // Erring this way delays a repair by at most the cooldown; the other way repairs early.
        // A maxInFlight hold is a queue, not a storm: it starts as soon as a slot frees; so does
        // a node another actor held.
        const held =
          (verdict.scope === 'fleet' ||
            verdict.scope === 'failure-domain' ||
            verdict.scope === 'latch' ||
            verdict.scope === 'rate') &&
          idle.heldByStormSince === undefined
            ? { heldByStormSince: now }
            : {};
        return {
          ...decision(
            j,
            enter(j, idle, 'Unhealthy', held),
            [],
            `unhealthy (${a.detail}) but held: ${verdict.reason}`,
            policy.stormGuard.recheckIntervalMs,
          ),
          held: verdict,
        };
      }
      const { heldByStormSince: _held, ...admitted } = idle;
      return startRemediation(j, admitted, ownsCordon);
    }
    // 'gone' and 'paused' are decided before a node gets here (decide.ts).
    case 'gone':
    case 'paused':
      return decision(j, idle, [], a.detail);
  }
}

/**
 * A NotReady period the storm guard held the node through (for a storm, the latch or the rate
 * limit; not for maxInFlight) was its fleet's or failure domain's, not this node's flapping: it leaves the flap memory
 * when the node is Ready again. Counted, a few zone storms within the flap window would make
 * each of the zone's nodes "flapping", unhealthy the moment it next turns NotReady, and the
 * first one reconciled would be admitted before the informer shows the rest of its zone
 * failing with it: the condition timeouts that let the guard see a whole storm are skipped.
 */
function withoutStormEpisode(
  s: RepairState,
  prev: RepairState,
  heldByStormSince: number | undefined,
): RepairState {
  const period = prev.notReady?.since;
  if (heldByStormSince === undefined || period === undefined) return s;
  return { ...s, episodes: s.episodes.filter((t) => t !== period) };
}
