// One level-triggered pass over every node: assess all, let the storm guard admit new
// repairs, then decide each node with its verdict. Pure; the controller and the simulator
// both call this, so what the simulator prints is what the controller would do.
import { assessNode } from './assess.js';
import { decideRepair, type RepairDecision } from './decide.js';
import type { HealthObservation } from './node.js';
import type { RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';
import { isInFlight, stormGuard, type StormEntry, type StormReport } from './storm-guard.js';
import { nowMillis } from './time.js';

export interface FleetMember {
  obs: HealthObservation;
  state: RepairState | undefined;
}

export interface FleetDecision {
  decisions: RepairDecision[];
  storm: StormReport;
}

export function decideFleet(
  members: readonly FleetMember[],
  policy: RepairPolicy,
  nowInput: Date | number,
): FleetDecision {
  const now = nowMillis(nowInput);
  const entries: StormEntry[] = members.map(({ obs, state }) => {
    const a = assessNode(obs, state, policy, now);
    const phase = state?.phase;
    const wantsToStart =
      a.signal === 'unhealthy' &&
      !isInFlight(phase) &&
      (phase !== 'Failed' || a.newTrigger !== undefined);
    return {
      name: obs.nodeName,
      ...(obs.node?.metadata?.labels !== undefined ? { labels: obs.node.metadata.labels } : {}),
      signal: a.signal,
      phase,
      ...(a.unhealthySince !== undefined ? { unhealthySince: a.unhealthySince } : {}),
      wantsToStart,
    };
  });
  const storm = stormGuard(entries, policy.stormGuard);
  const decisions = members.map(({ obs, state }) => {
    const verdict = storm.verdicts.get(obs.nodeName);
    return decideRepair(obs, state, policy, now, verdict !== undefined ? { storm: verdict } : {});
  });
  return { decisions, storm };
}
