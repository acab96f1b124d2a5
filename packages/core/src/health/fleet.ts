// One level-triggered pass over every node: assess all, let the storm guard admit new
// repairs, then decide each node with its verdict. Pure. Each node is parsed and assessed
// once per pass, and its decision reads that same observation and assessment. A parsed node
// is kept only as long as it is needed: a node that does not want to start a repair gets no
// verdict, so it is decided at once; only the few that want to start wait for the guard.
// Keeping all 10,000 parsed nodes until the guard had run measured slower than parsing each
// twice (pnpm bench:core): they outlive the young generation, so the GC copies them.
// The controller and the simulator both decide through fleet-decider.ts (newFleetDecider),
// which is built on these.
import { withoutCordonHoldOnTrigger } from './actors.js';
import { assessObserved, type Assessment } from './assess.js';
import { controlPlaneLabel, policyForNode } from './control-plane.js';
import { policyForRule, ruleInForce } from './condition-rules.js';
import { decideObserved, type RepairDecision } from './decide.js';
import type { HealthObservation } from './node.js';
import { observeNode, type NodeObservation } from './observation.js';
import type { RepairPolicy } from './policy.js';
import type { RepairPhase, RepairState } from './state.js';
import {
  isInFlight,
  stormGuard,
  type LatchState,
  type StormEntry,
  type StormMemory,
  type StormPause,
  type StormReport,
} from './storm-guard.js';
import { nowMillis } from './time.js';

/** One node of the fleet: what was observed and its persisted repair state. */
export interface FleetMember {
  /** The Node and whatever else was read about it. */
  obs: HealthObservation;
  /** Its persisted repair state; undefined when it has none. */
  state: RepairState | undefined;
}

/** The result of one decideFleet pass. */
export interface FleetDecision {
  /** One decision per member, in the members' order. */
  decisions: RepairDecision[];
  /** The storm guard's verdicts and its memory for the next pass. */
  storm: StormReport;
}

/** A member parsed and assessed once: what both the storm guard and its decision read. */
export interface Judged {
  readonly member: FleetMember;
  readonly obs: NodeObservation;
  readonly a: Assessment;
}

/** @internal Parses and assesses one member (fleet-batch.ts shares it). */
export function judge(member: FleetMember, policy: RepairPolicy, now: number): Judged {
  const obs = observeNode(member.obs);
  return { member, obs, a: assessObserved(obs, member.state, policy, now) };
}

/** Would this node start a remediation now if the storm guard admitted it? */
export function wantsToStart(a: Assessment, phase: RepairPhase | undefined): boolean {
  return (
    a.signal === 'unhealthy' &&
    // The provider could not say whether someone stopped the machine: nothing starts.
    a.powerHold === undefined &&
    // A NoAction rule: reported, never repaired.
    a.reportOnly === undefined &&
    !isInFlight(phase) &&
    (phase !== 'Failed' || a.newTrigger !== undefined)
  );
}

/**
 * The decision for one node without looking at the others, when the others cannot change
 * it: the storm guard only ever holds a node that wants to start a remediation, or pauses a
 * repair in flight whose attempt would time out (StormPause), so for any other node
 * decideFleet's answer is exactly this one. Undefined when the node wants to start, or its
 * attempt would time out now (then the whole fleet must be assessed). Lets a controller keep a reconcile O(1) in
 * the fleet size for every node but the few about to start a repair.
 */
export function decideAlone(
  member: FleetMember,
  policy: RepairPolicy,
  nowInput: Date | number,
): RepairDecision | undefined {
  const now = nowMillis(nowInput);
  const { obs, a } = judge(member, policy, now);
  if (wantsToStart(a, member.state?.phase)) return undefined;
  const mine = nodePolicy(member, a, policy);
  const d = decideObserved(obs, a, member.state, mine, now, {});
  // A repair in flight whose attempt would time out now: a storm would make it wait
  // (StormPause), so the fleet decides it. Asked by deciding it as if paused: a different
  // answer means the storm guard can change it.
  if (isInFlight(member.state?.phase)) {
    const ifPaused = decideObserved(obs, a, member.state, mine, now, { stormPause: probePause });
    if (ifPaused.reason !== d.reason) return undefined;
  }
  return d;
}

/** A storm pause only decideAlone uses, to ask whether one would change the decision. */
const probePause: StormPause = {
  scope: 'fleet',
  reason: 'storm guard: (probe)',
  hold: { kind: 'storm', unhealthy: 0, total: 0, limit: 0 },
};

/**
 * `memory` is the storm guard's memory from the previous pass (FleetDecision.storm.memory);
 * without it no storm is remembered, so no held node waits out a cooldown.
 */
export function decideFleet(
  members: readonly FleetMember[],
  policy: RepairPolicy,
  nowInput: Date | number,
  memory?: StormMemory,
  latch?: LatchState,
): FleetDecision {
  const now = nowMillis(nowInput);
  const entries: StormEntry[] = [];
  // The guard gives a verdict only to a node that wants to start: any other is decided now,
  // exactly as it would be after the guard (with no verdict). One that wants to start keeps
  // its parsed form until its verdict is known.
  const early = members.map((m): RepairDecision | Judged => {
    const judged = judge(m, policy, now);
    const entry = stormEntry(judged);
    entries.push(entry);
    // One in flight may be paused by a storm (StormPause): it waits for the guard too.
    if (entry.wantsToStart || isInFlight(entry.phase)) return judged;
    return decideObserved(judged.obs, judged.a, m.state, nodePolicy(m, judged.a, policy), now, {});
  });
  const storm = stormGuard(entries, policy.stormGuard, now, memory, policy.controlPlane, latch);
  const decisions = early.map((d) =>
    'member' in d ? decideWithVerdict(d, storm, policy, now) : d,
  );
  return { decisions, storm };
}

/**
 * One member's decision of decideFleet (the storm guard still sees every member), without
 * deciding the others: a controller reconciling one node needs only its own decision, and
 * deciding is most of a pass (`pnpm bench:core`: decideMember against decideFleet at 10,000
 * nodes). Equal to decideFleet(...).decisions[index] (a property test checks it).
 */
export function decideMember(
  members: readonly FleetMember[],
  index: number,
  policy: RepairPolicy,
  nowInput: Date | number,
  memory?: StormMemory,
  latch?: LatchState,
): { decision: RepairDecision; storm: StormReport } | undefined {
  const member = members[index];
  if (member === undefined) return undefined;
  const now = nowMillis(nowInput);
  const self = judge(member, policy, now);
  const entries = members.map((m, i) => stormEntry(i === index ? self : judge(m, policy, now)));
  const storm = stormGuard(entries, policy.stormGuard, now, memory, policy.controlPlane, latch);
  return { decision: decideWithVerdict(self, storm, policy, now), storm };
}

/** decideMember for `self` with the rest of the fleet beside it. */
export function decideWithFleet(
  self: FleetMember,
  others: readonly FleetMember[],
  policy: RepairPolicy,
  now: number,
  memory: StormMemory | undefined,
  latch?: LatchState,
): { decision: RepairDecision; storm: StormReport } {
  const me = judge(self, policy, now);
  const entries = [stormEntry(me), ...others.map((m) => stormEntry(judge(m, policy, now)))];
  const storm = stormGuard(entries, policy.stormGuard, now, memory, policy.controlPlane, latch);
  return { decision: decideWithVerdict(me, storm, policy, now), storm };
}

/** @internal The member's decision with its verdict from `storm` (if it got one). */
export function decideWithVerdict(
  { member, obs, a }: Judged,
  storm: StormReport,
  policy: RepairPolicy,
  now: number,
): RepairDecision {
  const verdict = storm.verdicts.get(obs.nodeName);
  const pause = storm.paused.get(obs.nodeName);
  const ctx = {
    ...(verdict !== undefined ? { storm: verdict } : {}),
    ...(pause !== undefined ? { stormPause: pause } : {}),
  };
  return decideObserved(obs, a, member.state, nodePolicy(member, a, policy), now, ctx);
}

/**
 * The policy a member is decided by: the ladder of the condition rule in force
 * (condition-rules.ts), and for a control-plane node that ladder without Replace
 * (control-plane.ts).
 */
function nodePolicy(member: FleetMember, a: Assessment, policy: RepairPolicy): RepairPolicy {
  // Only a repair in flight keeps its step: one given up on starts again without Replace.
  const { state } = member;
  const step = isInFlight(state?.phase) ? state?.remediation?.step : undefined;
  const byRule = policyForRule(policy, ruleInForce(state, a.rule));
  return policyForNode(byRule, member.obs.node?.metadata?.labels, step);
}

/** @internal What the storm guard reads about one member. */
export function stormEntry({ member: { obs, state }, obs: parsed, a }: Judged): StormEntry {
  const phase = state?.phase;
  const cpLabel = controlPlaneLabel(obs.node?.metadata?.labels);
  // A manual trigger is a person asking for this repair: their own cordon no longer holds it.
  const actorHolds =
    obs.actorHolds !== undefined && a.newTrigger !== undefined
      ? withoutCordonHoldOnTrigger(obs.actorHolds)
      : obs.actorHolds;
  return {
    name: obs.nodeName,
    ...(obs.node?.metadata?.labels !== undefined ? { labels: obs.node.metadata.labels } : {}),
    signal: a.signal,
    phase,
    ...(a.unhealthySince !== undefined ? { unhealthySince: a.unhealthySince } : {}),
    wantsToStart: wantsToStart(a, phase),
    ...(a.reportOnly !== undefined ? { reportOnly: true } : {}),
    ...(state?.heldByStormSince !== undefined ? { heldByStorm: true } : {}),
    ...(actorHolds !== undefined && actorHolds.length > 0 ? { actorHolds } : {}),
    ...(cpLabel !== undefined
      ? { controlPlane: { label: cpLabel, ready: parsed.ready?.status === 'True' } }
      : {}),
    ...startsOf(state, obs.actorHolds),
  };
}

/**
 * When the node's repairs started, as its state keeps them (the rate limit counts those of
 * the last hour); unknown when its state cannot be read (the shell marks such a node with an
 * Unreadable hold, node-reconciler.ts cachedMember).
 */
function startsOf(
  state: RepairState | undefined,
  holds: HealthObservation['actorHolds'],
): Pick<StormEntry, 'startedAt' | 'startsUnknown'> {
  if (holds?.some((h) => h.actor === 'Unreadable') === true) return { startsUnknown: true };
  const starts = new Set((state?.history ?? []).map((h) => h.startedAt));
  // A repair that gave up keeps its remediation (phase Failed) beside its history entry:
  // both carry its startedAt, and it is one start (a Set counts each start time once).
  const current = state?.remediation?.startedAt;
  if (current !== undefined) starts.add(current);
  return starts.size > 0 ? { startedAt: [...starts] } : {};
}
