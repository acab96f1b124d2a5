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
  /**
   * When the node's repairs started (epoch ms): the one in progress and those its history
   * keeps. The rate limit (maxStartsPerHour) counts those of the last hour.
   */
  startedAt?: readonly number[];
  /**
   * The node's repair state cannot be read, so neither can its starts: with a rate limit, no
   * repair starts in its scope (a count we cannot read is never taken as zero).
   */
  startsUnknown?: boolean;
}

/**
 * Which brake held a node: the fleet limit, its failure domain's limit, maxInFlight, or
 * another actor disrupting the node (coordination).
 */
export type StormScope = 'fleet' | 'failure-domain' | 'in-flight' | 'actor' | 'rate' | 'latch';

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
  | { kind: 'actor'; actor: HoldActor; detail: string; until?: number }
  | {
      kind: 'rate';
      /** Repairs started in the last hour in the scope (the fleet, or `domain`). */
      started: number;
      /** maxStartsPerHour, resolved for the scope's size. */
      limit: number;
      /** When the count drops under the limit (absent: never, the limit is 0, or unknown). */
      until?: number;
      domain?: string;
      /** A node whose repair state cannot be read: the count is unknown. */
      unknown?: string;
    }
  | {
      kind: 'latch';
      /** When the latch was set (epoch ms). */
      since: number;
      /** Why, in words (as persisted). */
      reason: string;
    };

/** The repairs counted by maxStartsPerHour are those started in the last hour. */
export const RATE_WINDOW_MS = 60 * 60_000;

/**
 * The latch as persisted (latch.ts): set (since when, why), or its record cannot be read
 * (then it holds too: a latch we cannot read is never taken as released).
 */
export type LatchState =
  | { kind: 'latched'; since: number; reason: string }
  | { kind: 'unreadable'; problem: string };

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
  /**
   * Since when the guard has been tripped (fleet or any failure domain) without a pass
   * untripped in between: the latch (stormGuard.latch) sets once this is afterHeldFor old.
   * In memory only: a restart starts it again (the latch itself is persisted).
   */
  heldSince?: number;
  /**
   * The controller's start (stormMemoryAtStart): while the fleet's last trip is still this
   * instant, a cooldown comes from the restart, not from a storm this process saw end.
   */
  startedAt?: number;
}

/** No storm remembered: no held node waits out a cooldown. */
export const emptyStormMemory: StormMemory = { lastTrippedAt: {} };

/** Memory for a controller that starts at `now`: as if a storm had just lifted. */
export function stormMemoryAtStart(now: number): StormMemory {
  return { lastTrippedAt: { '': now }, startedAt: now };
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
  /** The latch holds every start in this pass (persisted, unreadable, or set by this pass). */
  latched?: Extract<StormHold, { kind: 'latch' }>;
  /** This pass set the latch: the caller persists it (until then it holds only this pass). */
  latchNow?: { since: number; reason: string };
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
  latch?: LatchState,
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
  const brakes = latchAndRate(policy, counted, entries, now, memory, latch, {
    tripped: tripped || domainTripped.size > 0,
    domainOf,
    domainKey,
  });
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
    const rate = brakes.rateHold(e);
    // A control-plane node the policy leaves alone is held for that first: it would not start
    // once a storm lifts either, so a storm hold (and its cooldown) would only mislead.
    if (cp !== undefined && !controlPlane.repair)
      verdicts.set(e.name, actorVerdict(cp, `control plane: ${cp.detail}`));
    else if (brakes.latched !== undefined)
      verdicts.set(e.name, {
        admitted: false,
        scope: 'latch',
        reason: `storm guard latch: ${brakes.latched.reason}; no repair starts until a person resets it (noderepair reset-latch)`,
        hold: brakes.latched,
      });
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
        reason:
          cool.scope === 'fleet' && cool.at === memory.startedAt
            ? // Not seen as a storm: held by an earlier process (a storm, the latch or the
              // rate limit), which this one cannot see end; say so, not "the storm has lifted".
              `storm guard: held before this controller started at ${iso(cool.at)}; the nodes held then wait the ${Math.round(policy.cooldownMs / 1000)}s cooldown from the start, until ${iso(cool.at + policy.cooldownMs)}`
            : `storm guard: the storm ${cool.scope === 'fleet' ? 'in the fleet' : `in ${domainKey(domainOf(e))}`} has lifted; the nodes it held wait the ${Math.round(policy.cooldownMs / 1000)}s cooldown, until ${iso(cool.at + policy.cooldownMs)}`,
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
    } else if (rate !== undefined)
      verdicts.set(e.name, {
        admitted: false,
        scope: 'rate',
        reason: rate.reason,
        hold: rate.hold,
      });
    else if (inFlight >= policy.maxInFlight)
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
      brakes.admitted(e);
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
    memory: {
      lastTrippedAt,
      ...(brakes.heldSince !== undefined ? { heldSince: brakes.heldSince } : {}),
      ...(memory.startedAt !== undefined ? { startedAt: memory.startedAt } : {}),
    },
    ...(brakes.latched !== undefined ? { latched: brakes.latched } : {}),
    ...(brakes.latchNow !== undefined ? { latchNow: brakes.latchNow } : {}),
  };
}

type RateHold = Extract<StormHold, { kind: 'rate' }>;

/**
 * The brakes over time: the latch (held too long: stop until a person resets it) and the
 * rate limit (maxStartsPerHour), for one pass. `rateHold` says whether a node wanting to
 * start is over its scope's rate; `admitted` counts an admitted node's start in its scope.
 */
function latchAndRate(
  policy: StormGuardPolicy,
  counted: readonly StormEntry[],
  entries: readonly StormEntry[],
  now: number,
  memory: StormMemory,
  latch: LatchState | undefined,
  ctx: {
    tripped: boolean;
    domainOf: (e: StormEntry) => string;
    domainKey: (d: string) => string;
  },
): {
  latched?: Extract<StormHold, { kind: 'latch' }>;
  latchNow?: { since: number; reason: string };
  heldSince?: number;
  rateHold: (e: StormEntry) => { reason: string; hold: RateHold } | undefined;
  admitted: (e: StormEntry) => void;
} {
  // The latch. While it is set, the held time does not run: once a person resets it, the
  // guard must hold afterHeldFor again before it sets again.
  let latched: Extract<StormHold, { kind: 'latch' }> | undefined;
  let latchNow: { since: number; reason: string } | undefined;
  let heldSince: number | undefined;
  if (policy.latch !== undefined && latch !== undefined) {
    latched =
      latch.kind === 'latched'
        ? { kind: 'latch', since: latch.since, reason: latch.reason }
        : {
            kind: 'latch',
            since: now,
            reason: `the latch's record cannot be read (${latch.problem})`,
          };
  } else if (ctx.tripped) {
    heldSince = memory.heldSince ?? now;
    const after = policy.latch?.afterHeldForMs;
    if (after !== undefined && now - heldSince >= after) {
      latchNow = {
        since: now,
        reason: `the storm guard held repairs from ${iso(heldSince)} without a break, longer than latch.afterHeldFor (${Math.round(after / 1000)}s)`,
      };
      // heldSince stays: should the caller fail to persist the latch, the next pass sets it again.
      latched = { kind: 'latch', ...latchNow };
    }
  }

  // The rate limit, per failure domain when there are failure domains.
  const max = policy.maxStartsPerHour;
  const perDomain = policy.failureDomainLabel !== undefined;
  const scopeOf = (e: StormEntry) => (perDomain ? ctx.domainOf(e) : '');
  const scopes = new Map<string, { size: number; starts: number[]; unknown?: string }>();
  if (max !== undefined) {
    const scope = (k: string) => {
      let s = scopes.get(k);
      if (s === undefined) scopes.set(k, (s = { size: 0, starts: [] }));
      return s;
    };
    for (const e of counted) scope(scopeOf(e)).size += 1;
    // Paused nodes' starts happened too: every entry's count (gone ones have no state).
    for (const e of entries) {
      if (e.signal === 'gone') continue;
      const s = scope(scopeOf(e));
      if (e.startsUnknown === true && s.unknown === undefined) s.unknown = e.name;
      for (const t of e.startedAt ?? []) if (t > now - RATE_WINDOW_MS && t <= now) s.starts.push(t);
    }
  }
  const rateHold = (e: StormEntry): { reason: string; hold: RateHold } | undefined => {
    if (max === undefined) return undefined;
    const k = scopeOf(e);
    const s = scopes.get(k);
    if (s === undefined) return undefined;
    const pct = 'percent' in max;
    const limit = pct
      ? Math.max(policy.minStartsPerHour, scaleCountOrPercent(max, s.size))
      : max.count;
    const where = perDomain ? ` in ${ctx.domainKey(k)}` : '';
    const domain = perDomain ? { domain: ctx.domainKey(k) } : {};
    if (s.unknown !== undefined)
      return {
        // Stable wording: the event recorder folds repeats into a series.
        reason: `rate limit: the repair state of node ${s.unknown} cannot be read, so the repairs started in the last hour${where} are unknown (maxStartsPerHour ${limit})`,
        hold: { kind: 'rate', started: s.starts.length, limit, unknown: s.unknown, ...domain },
      };
    if (s.starts.length < limit) return undefined;
    const sorted = [...s.starts].sort((a, b) => a - b);
    const oldest = limit > 0 ? sorted[sorted.length - limit] : undefined;
    const until = oldest !== undefined ? oldest + RATE_WINDOW_MS : undefined;
    return {
      reason: `rate limit: ${s.starts.length} repairs started in the last hour${where} (maxStartsPerHour ${limit})${until !== undefined ? `, next one from ${iso(until)}` : ''}`,
      hold: {
        kind: 'rate',
        started: s.starts.length,
        limit,
        ...(until !== undefined ? { until } : {}),
        ...domain,
      },
    };
  };
  return {
    ...(latched !== undefined ? { latched } : {}),
    ...(latchNow !== undefined ? { latchNow } : {}),
    ...(heldSince !== undefined ? { heldSince } : {}),
    rateHold,
    admitted: (e) => {
      if (max !== undefined) scopes.get(scopeOf(e))?.starts.push(now);
    },
  };
}
