// The storm guard: a fleet-wide brake. When many nodes fail at once the cause is almost never
// the nodes (it is the network, the control plane, a bad rollout), and rebooting them all
// makes things worse. Pure function over every node's assessment and persisted phase.
import type { ActorHold, HoldActor } from './actor-hold.js';
import {
  controlPlaneHold,
  defaultControlPlanePolicy,
  type ControlPlaneMember,
  type ControlPlanePolicy,
} from './control-plane.js';
import { scaleCountOrPercent, type StormGuardPolicy } from './policy.js';
import type { HealthSignal } from './signal.js';
import { iso } from './time.js';
import type { RepairPhase } from './state.js';

/** One node as the storm guard sees it: its assessment, phase and holds. */
export interface StormEntry {
  /** The Node's name (verdicts are keyed by it; ties in admission order go by name). */
  name: string;
  /** The Node's labels (the failure domain label is read from them). */
  labels?: Record<string, string>;
  /** The node's assessment; paused and gone nodes are not counted. */
  signal: HealthSignal;
  /** Its persisted phase; Remediating and Verifying count as in flight. */
  phase: RepairPhase | undefined;
  /** When the node turned unhealthy; earlier nodes are admitted first. */
  unhealthySince?: number;
  /** The node would start a remediation now if admitted. */
  wantsToStart: boolean;
  /**
   * Unhealthy only by `unhealthyConditions` entries whose action is NoAction: reported, and
   * not counted as unhealthy here (report only changes nothing about anyone's repair).
   */
  reportOnly?: boolean;
  /** The guard held this node for a storm (its persisted state says so): it waits out the cooldown. */
  heldByStorm?: boolean;
  /** Other actors' holds on the node (actors.ts): it is not repaired while any is there. */
  actorHolds?: readonly ActorHold[];
  /**
   * Present for a control-plane node (control-plane.ts): the label that marks it and whether
   * its Ready condition is True (the quorum rule reads the other members' readiness).
   */
  controlPlane?: { label: string; ready: boolean };
}

/**
 * Which brake held a node: the fleet limit, its failure domain's limit, maxInFlight, or
 * another actor disrupting the node (coordination).
 */
export type StormScope = 'fleet' | 'failure-domain' | 'in-flight' | 'actor';

/**
 * Why a node is held, as data (the reason string says the same in words): a tripped storm
 * with its counts, the cooldown after a storm until when, or the maxInFlight queue.
 * `noderepair status` shows it; `domain` is `label=value` for a failure domain's storm.
 */
export type StormHold =
  | { kind: 'storm'; unhealthy: number; total: number; limit: number; domain?: string }
  | { kind: 'cooldown'; until: number; domain?: string }
  | {
      kind: 'in-flight';
      inFlight: number;
      maxInFlight: number;
      /** Of inFlight, the nodes other actors are disrupting. */
      byOthers?: number;
    }
  | { kind: 'actor'; actor: HoldActor; detail: string; until?: number };

/** Admitted, or held with the brake that held it (the metrics count holds by scope). */
export type StormVerdict =
  | { admitted: true; reason: string }
  | { admitted: false; reason: string; scope: StormScope; hold?: StormHold };

/**
 * What the guard remembers between passes: when each storm was last seen tripped, by scope
 * key ('' for the fleet, `label=value` for a failure domain). The controller keeps it in
 * memory and starts it at its own start time under '' (it cannot know when a storm it did
 * not see ended), so a restart never lets a held node start before the cooldown.
 */
export interface StormMemory {
  /**
   * Epoch ms each storm was last seen tripped, by scope key ('' for the fleet, `label=value` for a
   * failure domain).
   */
  lastTrippedAt: Readonly<Record<string, number>>;
}

/** No storm remembered: no held node waits out a cooldown. */
export const emptyStormMemory: StormMemory = { lastTrippedAt: {} };

/** Memory for a controller that starts at `now`: as if a storm had just lifted. */
export function stormMemoryAtStart(now: number): StormMemory {
  return { lastTrippedAt: { '': now } };
}

/**
 * A repair in flight whose fleet, or failure domain, is over its limit: so many nodes lost
 * their status at once that this node's NotReady is no evidence its repair failed (a zone cut
 * off from the control plane reports every node Unknown, a recovered one too). Its attempt
 * does not time out into the next attempt, step or a give-up while the pause lasts
 * (follow-repair.ts); a provider's failure still advances it.
 */
export interface StormPause {
  /** Which limit: the fleet's (maxUnhealthy) or the node's failure domain's. */
  scope: 'fleet' | 'failure-domain';
  /** The counts, in words (stable: the event recorder folds repeats). */
  reason: string;
  /** The counts as data. */
  hold: Extract<StormHold, { kind: 'storm' }>;
}

/** The storm guard's counts and a verdict for each node that wanted to start. */
export interface StormReport {
  /** Nodes counted (paused and gone ones are not). */
  total: number;
  /**
   * Counted nodes not healthy now (including those inside their timeout) or with a repair in
   * flight.
   */
  unhealthy: number;
  /** Repairs in flight after this pass's admissions, counting nodes other actors are disrupting. */
  inFlight: number;
  /** The fleet limit: maxUnhealthy of the counted nodes, never below minUnhealthyAllowed. */
  limit: number;
  /** More nodes are unhealthy than the limit: no new repair starts. */
  tripped: boolean;
  /** Admitted or held, by node name, for the nodes that wanted to start a repair. */
  verdicts: Map<string, StormVerdict>;
  /**
   * The repairs in flight whose fleet or failure domain is over its limit, by node name: their
   * attempts wait instead of timing out (StormPause).
   */
  paused: Map<string, StormPause>;
  /** The memory to pass to the next call. */
  memory: StormMemory;
}

/** True for Remediating and Verifying: a repair is running. */
export function isInFlight(phase: RepairPhase | undefined): boolean {
  return phase === 'Remediating' || phase === 'Verifying';
}

/** Another actor is taking the node out now (a reboot lock, a maintenance, a drain). */
function disruptedByOther(e: StormEntry): boolean {
  return e.actorHolds?.some((h) => h.disrupting) === true;
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
 * those still inside their timeout, as Cluster API's short-circuit does. `controlPlane` is
 * the policy's controlPlane section (control-plane.ts): by default a control-plane node is
 * never admitted.
 */
export function stormGuard(
  entries: readonly StormEntry[],
  policy: StormGuardPolicy,
  now = 0,
  memory: StormMemory = emptyStormMemory,
  controlPlane: ControlPlanePolicy = defaultControlPlanePolicy,
): StormReport {
  const counted = entries.filter((e) => e.signal !== 'paused' && e.signal !== 'gone');
  const isUnhealthy = (e: StormEntry) =>
    (e.signal !== 'healthy' && e.reportOnly !== true) || isInFlight(e.phase);
  const unhealthy = counted.filter(isUnhealthy).length;
  const limit = limitFor(policy, 'maxUnhealthy', counted.length);
  const tripped = unhealthy > limit;
  // maxInFlight caps disruptions, ours and other actors' together: a node kured reboots or a
  // NodeMaintenance drains is as gone as one we repair.
  const byOthers = counted.filter((e) => !isInFlight(e.phase) && disruptedByOther(e)).length;
  let inFlight = counted.filter((e) => isInFlight(e.phase)).length + byOthers;
  // The control plane's members (gone ones aside; paused ones count: a member that is down is
  // down whoever paused its repair). Each admitted one is in repair for the rest of the pass.
  const cpMembers: ControlPlaneMember[] = entries
    .filter((e) => e.controlPlane !== undefined && e.signal !== 'gone')
    .map((e) => ({
      name: e.name,
      ready: e.controlPlane?.ready === true,
      inRepair: isInFlight(e.phase) || disruptedByOther(e),
    }));
  const cpHoldOf = (e: StormEntry): ActorHold | undefined =>
    e.controlPlane === undefined
      ? undefined
      : controlPlaneHold(e.name, e.controlPlane.label, cpMembers, controlPlane);
  const actorVerdict = (h: ActorHold, reason: string): StormVerdict => ({
    admitted: false,
    scope: 'actor',
    // Stable wording: the event recorder folds repeats into a series.
    reason,
    hold: {
      kind: 'actor',
      actor: h.actor,
      detail: h.detail,
      ...(h.until !== undefined ? { until: h.until } : {}),
    },
  });

  const domainOf = (e: StormEntry) =>
    policy.failureDomainLabel ? (e.labels?.[policy.failureDomainLabel] ?? '') : '';
  const domainKey = (d: string) => `${policy.failureDomainLabel ?? ''}=${d}`;
  const domainTripped = new Map<
    string,
    { text: string; hold: Extract<StormHold, { kind: 'storm' }> }
  >();
  if (policy.failureDomainLabel !== undefined && policy.maxUnhealthyPerDomain !== undefined) {
    const byDomain = new Map<string, StormEntry[]>();
    for (const e of counted) {
      const d = domainOf(e);
      const members = byDomain.get(d);
      if (members === undefined) byDomain.set(d, [e]);
      else members.push(e); // not a copy per node: a zone of 5,000 nodes stays linear
    }
    for (const [d, members] of byDomain) {
      const n = members.filter(isUnhealthy).length;
      const lim = limitFor(policy, 'maxUnhealthyPerDomain', members.length);
      if (n > lim)
        domainTripped.set(d, {
          text: `${n} of ${members.length} nodes unhealthy in ${policy.failureDomainLabel}=${d || '(none)'} (limit ${lim})`,
          hold: {
            kind: 'storm',
            unhealthy: n,
            total: members.length,
            limit: lim,
            domain: domainKey(d),
          },
        });
    }
  }

  const fleetText = `${unhealthy} of ${counted.length} nodes unhealthy (limit ${limit})`;
  const paused = new Map<string, StormPause>();
  for (const e of counted) {
    if (!isInFlight(e.phase)) continue;
    const dt = tripped ? undefined : domainTripped.get(domainOf(e));
    if (tripped)
      paused.set(e.name, {
        scope: 'fleet',
        reason: `storm guard: ${fleetText}`,
        hold: { kind: 'storm', unhealthy, total: counted.length, limit },
      });
    else if (dt !== undefined)
      paused.set(e.name, {
        scope: 'failure-domain',
        reason: `storm guard: ${dt.text}`,
        hold: dt.hold,
      });
  }

  const verdicts = new Map<string, StormVerdict>();
  const wanting = counted
    .filter((e) => e.wantsToStart)
    .sort(
      (a, b) =>
        (a.unhealthySince ?? 0) - (b.unhealthySince ?? 0) ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
  const lastTrippedAt: Record<string, number> = { ...memory.lastTrippedAt };
  if (tripped) lastTrippedAt[''] = now;
  for (const d of domainTripped.keys()) lastTrippedAt[domainKey(d)] = now;
  /** A held node's storm lifted less than the cooldown ago: which scope, and when. */
  const cooling = (e: StormEntry): { scope: StormScope; at: number } | undefined => {
    if (e.heldByStorm !== true) return undefined;
    const fleetAt = memory.lastTrippedAt[''];
    const domainAt =
      policy.failureDomainLabel !== undefined
        ? memory.lastTrippedAt[domainKey(domainOf(e))]
        : undefined;
    const last = Math.max(fleetAt ?? -Infinity, domainAt ?? -Infinity);
    if (!(now - last < policy.cooldownMs)) return undefined;
    return { scope: last === fleetAt ? 'fleet' : 'failure-domain', at: last };
  };
  for (const e of wanting) {
    const dt = domainTripped.get(domainOf(e));
    const cool = tripped || dt !== undefined ? undefined : cooling(e);
    const cp = cpHoldOf(e);
    // A control-plane node the policy leaves alone is held for that first: it would not start
    // once a storm lifts either, so a storm hold (and its cooldown) would only mislead.
    if (cp !== undefined && !controlPlane.repair)
      verdicts.set(e.name, actorVerdict(cp, `control plane: ${cp.detail}`));
    else if (tripped)
      verdicts.set(e.name, {
        admitted: false,
        scope: 'fleet',
        reason: `storm guard: ${fleetText}`,
        hold: { kind: 'storm', unhealthy, total: counted.length, limit },
      });
    else if (dt !== undefined)
      verdicts.set(e.name, {
        admitted: false,
        scope: 'failure-domain',
        reason: `storm guard: ${dt.text}`,
        hold: dt.hold,
      });
    else if (cool !== undefined)
      verdicts.set(e.name, {
        admitted: false,
        scope: cool.scope,
        // Stable wording (no running seconds): the event recorder folds repeats into a series.
        reason: `storm guard: the storm ${cool.scope === 'fleet' ? 'in the fleet' : `in ${domainKey(domainOf(e))}`} has lifted; the nodes it held wait the ${Math.round(policy.cooldownMs / 1000)}s cooldown, until ${iso(cool.at + policy.cooldownMs)}`,
        hold: {
          kind: 'cooldown',
          until: cool.at + policy.cooldownMs,
          ...(cool.scope === 'failure-domain' ? { domain: domainKey(domainOf(e)) } : {}),
        },
      });
    else if (cp !== undefined)
      verdicts.set(e.name, actorVerdict(cp, `control plane: ${cp.detail}`));
    else if (e.actorHolds !== undefined && e.actorHolds.length > 0) {
      const h = e.actorHolds[0]!;
      verdicts.set(
        e.name,
        actorVerdict(h, `another actor is disrupting the node: ${h.actor}: ${h.detail}`),
      );
    } else if (inFlight >= policy.maxInFlight)
      verdicts.set(e.name, {
        admitted: false,
        scope: 'in-flight',
        reason: `storm guard: ${inFlight} repairs in flight (maxInFlight ${policy.maxInFlight})${byOthers > 0 ? `, ${byOthers} of them by other actors` : ''}`,
        hold: {
          kind: 'in-flight',
          inFlight,
          maxInFlight: policy.maxInFlight,
          ...(byOthers > 0 ? { byOthers } : {}),
        },
      });
    else {
      inFlight += 1;
      const member = cpMembers.find((m) => m.name === e.name);
      if (member !== undefined) member.inRepair = true;
      verdicts.set(e.name, {
        admitted: true,
        reason: `admitted (${unhealthy} of ${counted.length} unhealthy, limit ${limit})`,
      });
    }
  }
  return {
    total: counted.length,
    unhealthy,
    inFlight,
    limit,
    tripped,
    verdicts,
    paused,
    memory: { lastTrippedAt },
  };
}
