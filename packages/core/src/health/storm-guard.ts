// The storm guard: a fleet-wide brake. When many nodes fail at once the cause is almost never
// the nodes (it is the network, the control plane, a bad rollout), and rebooting them all
// makes things worse. Pure function over every node's assessment and persisted phase.
import type { HealthSignal } from './assess.js';
import { scaleCountOrPercent, type StormGuardPolicy } from './policy.js';
import type { RepairPhase } from './state.js';

export interface StormEntry {
  name: string;
  labels?: Record<string, string>;
  signal: HealthSignal;
  phase: RepairPhase | undefined;
  /** When the node turned unhealthy; earlier nodes are admitted first. */
  unhealthySince?: number;
  /** The node would start a remediation now if admitted. */
  wantsToStart: boolean;
}

export interface StormVerdict {
  admitted: boolean;
  reason: string;
}

export interface StormReport {
  total: number;
  unhealthy: number;
  inFlight: number;
  limit: number;
  tripped: boolean;
  verdicts: Map<string, StormVerdict>;
}

export function isInFlight(phase: RepairPhase | undefined): boolean {
  return phase === 'Remediating' || phase === 'Verifying';
}

function limitFor(
  policy: StormGuardPolicy,
  which: 'maxUnhealthy' | 'maxUnhealthyPerDomain',
  total: number,
): number {
  const v = policy[which];
  if (v === undefined) return Number.POSITIVE_INFINITY;
  return Math.max(policy.minUnhealthyAllowed, scaleCountOrPercent(v, total));
}

/**
 * Decides which of the nodes that want to start a remediation may start now.
 * Nodes already being remediated continue (stopping half-way is worse); paused and deleted
 * nodes are not counted. "Unhealthy" counts every node that is not currently healthy, also
 * those still inside their timeout, as Cluster API's short-circuit does.
 */
export function stormGuard(entries: readonly StormEntry[], policy: StormGuardPolicy): StormReport {
  const counted = entries.filter((e) => e.signal !== 'paused' && e.signal !== 'gone');
  const isUnhealthy = (e: StormEntry) => e.signal !== 'healthy' || isInFlight(e.phase);
  const unhealthy = counted.filter(isUnhealthy).length;
  const limit = limitFor(policy, 'maxUnhealthy', counted.length);
  const tripped = unhealthy > limit;
  let inFlight = counted.filter((e) => isInFlight(e.phase)).length;

  const domainOf = (e: StormEntry) =>
    policy.failureDomainLabel ? (e.labels?.[policy.failureDomainLabel] ?? '') : '';
  const domainTripped = new Map<string, string>();
  if (policy.failureDomainLabel !== undefined && policy.maxUnhealthyPerDomain !== undefined) {
    const byDomain = new Map<string, StormEntry[]>();
    for (const e of counted) byDomain.set(domainOf(e), [...(byDomain.get(domainOf(e)) ?? []), e]);
    for (const [d, members] of byDomain) {
      const n = members.filter(isUnhealthy).length;
      const lim = limitFor(policy, 'maxUnhealthyPerDomain', members.length);
      if (n > lim)
        domainTripped.set(
          d,
          `${n} of ${members.length} nodes unhealthy in ${policy.failureDomainLabel}=${d || '(none)'} (limit ${lim})`,
        );
    }
  }

  const verdicts = new Map<string, StormVerdict>();
  const wanting = counted
    .filter((e) => e.wantsToStart)
    .sort(
      (a, b) =>
        (a.unhealthySince ?? 0) - (b.unhealthySince ?? 0) ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
  for (const e of wanting) {
    const dt = domainTripped.get(domainOf(e));
    if (tripped)
      verdicts.set(e.name, {
        admitted: false,
        reason: `storm guard: ${unhealthy} of ${counted.length} nodes unhealthy (limit ${limit})`,
      });
    else if (dt !== undefined)
      verdicts.set(e.name, { admitted: false, reason: `storm guard: ${dt}` });
    else if (inFlight >= policy.maxInFlight)
      verdicts.set(e.name, {
        admitted: false,
        reason: `storm guard: ${inFlight} repairs in flight (maxInFlight ${policy.maxInFlight})`,
      });
    else {
      inFlight += 1;
      verdicts.set(e.name, {
        admitted: true,
        reason: `admitted (${unhealthy} of ${counted.length} unhealthy, limit ${limit})`,
      });
    }
  }
  return { total: counted.length, unhealthy, inFlight, limit, tripped, verdicts };
}
