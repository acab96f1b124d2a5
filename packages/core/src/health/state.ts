// The repair state persisted on the Node as one JSON annotation (default key
// noderepair.io/repair-state). Level-triggered controllers forget everything on restart;
// this is what they must not forget: the phase, the attempt in progress, the intent of an
// action that may or may not have happened, the flap history, the last repair and the
// history of the last few (history.ts).
import * as t from 'io-ts';
import * as either from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { IsoTime } from './time.js';
import { RemediationStepKind } from './policy.js';
import { formatValidationErrors } from './errors.js';
import { annotation, type NodeSnapshot } from './node.js';
import { History, StepTried } from './history.js';

/** Version of the repair-state annotation's format; parseRepairState refuses any other. */
export const RepairStateVersion = 1;

/**
 * io-ts codec of a node's repair phase: Healthy, Suspect (inside a timeout), Waiting (shutting
 * down), Unhealthy (held), Remediating, Verifying, Failed (ladder used up).
 */
export const RepairPhase = t.keyof(
  {
    Healthy: null,
    Suspect: null,
    Waiting: null,
    Unhealthy: null,
    Remediating: null,
    Verifying: null,
    Failed: null,
  },
  'RepairPhase',
);
/** A node's repair phase (see the RepairPhase codec). */
export type RepairPhase = t.TypeOf<typeof RepairPhase>;

const ActionResult = t.keyof({ Succeeded: null, Failed: null }, 'ActionResult');
/** A provider's answer as persisted: Succeeded (accepted) or Failed. */
export type ActionResult = t.TypeOf<typeof ActionResult>;

/**
 * An action we decided to take. Written BEFORE the action runs and completed AFTER, so a
 * controller that dies in between finds an intent without `completedAt` and re-issues the
 * very same `actionId`; providers must treat a repeated id as the same request (see docs).
 */
export const RepairIntent = t.intersection([
  t.type({
    actionId: t.string,
    action: RemediationStepKind,
    step: t.number,
    attempt: t.number,
    issuedAt: IsoTime,
  }),
  t.partial({
    /** For Rebuild: the image, kept with the intent so a replay repeats exactly what was sent. */
    image: t.string,
    completedAt: IsoTime,
    result: ActionResult,
    message: t.string,
    replays: t.number,
    /**
     * When the intent was last re-issued (replays counted): with `replays` it says when it
     * may be sent again, so the provider-unavailable backoff survives a reconcile woken early
     * (our own write, another watch event) and a restart (drain-phase.ts replayDueAt).
     */
    replayedAt: IsoTime,
    /**
     * The provider answered Unavailable with a Retry-After: not re-issued before this time
     * (it replaces the backoff for the next re-issue, longer or shorter).
     */
    retryAt: IsoTime,
    /**
     * The Node's status.nodeInfo.bootID when the intent was persisted: a different bootID
     * after a HardReboot or Rebuild proves the reset happened (fencing, provider/fence.ts).
     */
    bootId: t.string,
    /** The Node's spec.providerID when the intent was persisted: the machine it is about. */
    providerID: t.string,
    /**
     * The attempt timed out with the node silent since the action, and the provider, asked
     * for the power state, could not settle it (Unavailable, or stopped on request):
     * how many times so far. With `silentAskedAt` it says when to ask again (5 s doubling
     * to 5 min, fresh-evidence.ts), across wake-ups and restarts.
     */
    silentAsks: t.number,
    /** When the provider was last asked about the silent node (see `silentAsks`). */
    silentAskedAt: IsoTime,
  }),
]);
/** An action intent (see the RepairIntent codec); times in epoch ms. */
export type RepairIntent = t.TypeOf<typeof RepairIntent>;

/** How the machine was found fenced, and whether we added node.kubernetes.io/out-of-service. */
export const FenceRecord = t.type({
  at: IsoTime,
  actionId: t.string,
  how: t.string,
  evidence: t.string,
  taintAdded: t.boolean,
});
/** How the machine was found fenced (see the FenceRecord codec); `at` in epoch ms. */
export type FenceRecord = t.TypeOf<typeof FenceRecord>;

/**
 * The drain phase of a remediation: when it began (the timeout counts from here, across
 * reconciles and restarts), when an eviction was last accepted (an unreachable node's pods
 * get outOfServiceAfter from then), and how it ended. The action is sent only after `endedAt`
 * is persisted, so a drain without an end means the action was never sent.
 */
export const DrainRecord = t.intersection([
  t.type({ startedAt: IsoTime }),
  t.partial({
    lastEvictedAt: IsoTime,
    endedAt: IsoTime,
    outcome: t.keyof({ Drained: null, TimedOut: null, NodeGone: null, Failed: null }),
  }),
]);
/** A remediation's drain phase (see the DrainRecord codec); times in epoch ms. */
export type DrainRecord = t.TypeOf<typeof DrainRecord>;

/**
 * What followed an accepted Replace (health/replace.ts). `fenced`: the provider reported the
 * machine fenced (deleted, powered off), persisted BEFORE the Node is deleted; from then on the
 * Node is deleted, through any outage, and the step cannot time out. `unavailableSince`: the
 * provider's latest answer about the fence was "could not ask"; while it is set the step's
 * timeout waits (an outage is not a failure). `notFencedAt`: the provider's first "not fenced"
 * answer asked at or after the step's deadline; only with it can the step time out, so an
 * apiserver outage over the deadline (no reconcile, no ask) never fails it on an answer older
 * than the deadline. Written only when one of them changes.
 */
export const ReplaceRecord = t.intersection([
  t.type({ actionId: t.string }),
  t.partial({
    fenced: t.type({ at: IsoTime, how: t.string, evidence: t.string }),
    unavailableSince: IsoTime,
    notFencedAt: IsoTime,
  }),
]);
/** What followed an accepted Replace (see the ReplaceRecord codec); times in epoch ms. */
export type ReplaceRecord = t.TypeOf<typeof ReplaceRecord>;

/**
 * Which `unhealthyConditions` entry started a repair, by what it matches (not by its index,
 * so a reordered policy still finds it). Recorded only for a rule with its own ladder: the
 * repair climbs that ladder to its end, whatever the node's conditions do meanwhile, and
 * after a restart. Absent (every state written before per-condition rules, and a repair
 * started by any other rule): the policy's top-level ladder.
 */
export const ConditionRuleRef = t.intersection([
  t.type({ type: t.string, status: t.string }),
  t.partial({ reason: t.string, messageContains: t.string }),
]);
/** Which condition rule started a repair (see the ConditionRuleRef codec). */
export type ConditionRuleRef = t.TypeOf<typeof ConditionRuleRef>;

/**
 * io-ts codec of the remediation in progress: where on the ladder it is, its current intent, and
 * what its drain, fence and Replace steps learnt. Times are RFC 3339 in the annotation, epoch ms in
 * memory.
 */
export const Remediation = t.intersection([
  t.type({
    /** Stable id of this remediation: node name + start time. Action ids derive from it. */
    id: t.string,
    startedAt: IsoTime,
    cause: t.string,
    /** Index into the policy ladder; never decreases within one remediation. */
    step: t.number,
    /** 1-based attempt within the step. */
    attempt: t.number,
    /** True when we cordoned the node (so we uncordon only what we cordoned). */
    cordoned: t.boolean,
  }),
  t.partial({
    intent: RepairIntent,
    /**
     * Set once the machine was found fenced (provider/fence.ts judgeFence) while the node
     * was down with pods on it. `taintAdded` is true when WE added the out-of-service taint,
     * so the repair removes only a taint it added.
     */
    fenced: FenceRecord,
    /** The drain before the first action (absent: no drain, or a state from before drain phases). */
    drain: DrainRecord,
    /** After an accepted Replace: fenced (the Node is to be deleted) or the provider unreachable. */
    replace: ReplaceRecord,
    /** The cause's message when the repair started, clipped (for the history entry). */
    causeMessage: t.string,
    /** The steps this repair moved on from, in order (the current one is `step`), for the history. */
    tried: t.array(StepTried),
    /** The condition rule whose own ladder this repair climbs (absent: the policy's ladder). */
    rule: ConditionRuleRef,
  }),
]);
/** The remediation in progress (see the Remediation codec); times in epoch ms. */
export type Remediation = t.TypeOf<typeof Remediation>;

/**
 * io-ts codec of the last remediation that ended: its id, end time, last step index and
 * result, and the condition rule whose ladder that step belongs to (absent: the policy's
 * ladder, also in a state written before the field).
 */
export const LastRemediation = t.intersection([
  t.type({
    id: t.string,
    endedAt: IsoTime,
    step: t.number,
    result: t.keyof({ Succeeded: null, Failed: null }),
  }),
  t.partial({
    /** The remediation's `rule`: which ladder `step` counts in (escalation stays in it). */
    rule: ConditionRuleRef,
  }),
]);
/** The last remediation that ended (see the LastRemediation codec); `endedAt` in epoch ms. */
export type LastRemediation = t.TypeOf<typeof LastRemediation>;

/**
 * Why a not-Ready period is not a flap episode: it began while a repair of ours was in flight
 * (our own reboot), with the node shutting down, or while the node was starting up (it never
 * reported Ready before).
 */
export const UncountedReason = t.keyof(
  { Repair: null, Shutdown: null, Startup: null },
  'UncountedReason',
);
/** Why a not-Ready period is not a flap episode (see the UncountedReason codec). */
export type UncountedReason = t.TypeOf<typeof UncountedReason>;

/**
 * The not-Ready period the node is in, as the controller followed it from snapshots: absent
 * when the node was last seen Ready (or never seen). Status flips between Unknown and False
 * stay in one period; only a Ready observation ends it (see docs/health.md, "Episodes").
 */
export const NotReadyPeriod = t.intersection([
  t.type({
    /** Ready's lastTransitionTime in the first not-Ready observation after the last Ready one. */
    since: IsoTime,
  }),
  t.partial({ uncounted: UncountedReason }),
]);
/** The not-Ready period the node is in (see the NotReadyPeriod codec); `since` in epoch ms. */
export type NotReadyPeriod = t.TypeOf<typeof NotReadyPeriod>;

/**
 * io-ts codec of the whole repair state annotation (version RepairStateVersion). Times are RFC 3339
 * in the annotation, epoch ms in memory; serializeRepairState and parseRepairState convert.
 */
export const RepairState = t.intersection(
  [
    t.type({
      v: t.literal(RepairStateVersion),
      phase: RepairPhase,
      /** When the phase was entered. */
      since: IsoTime,
      /** Start of each NotReady episode (a Ready -> not-Ready transition) within the flap window. */
      episodes: t.array(IsoTime),
    }),
    t.partial({
      /** The current not-Ready period (absent: last seen Ready). */
      notReady: NotReadyPeriod,
      remediation: Remediation,
      lastRemediation: LastRemediation,
      /** Start of the current continuous Ready period, as the controller first saw it after a repair action. */
      healthySince: IsoTime,
      /** Value of the manual trigger annotation already acted upon (so it fires once per value). */
      handledTrigger: t.string,
      /**
       * When the storm guard first held this node for a storm, the latch or the rate limit
       * (not for maxInFlight). Such a node waits out stormGuard.cooldown after a storm lifts,
       * and the NotReady period it was held through is not a flap episode; cleared when it
       * recovers or a repair starts.
       */
      heldByStormSince: IsoTime,
      /**
       * The last repairs that ended (Succeeded, or Failed when the ladder was used up), oldest
       * first, at most HISTORY_LIMIT (history.ts). Written with the transition that ends a
       * repair; an entry that does not decode is dropped, not the state.
       */
      history: History,
    }),
  ],
  'RepairState',
);
/** A node's persisted repair state (see the RepairState codec); times in epoch ms. */
export type RepairState = t.TypeOf<typeof RepairState>;

/** The state of a node with nothing to remember: Healthy since `now` (epoch ms). */
export function initialRepairState(now: number): RepairState {
  return { v: RepairStateVersion, phase: 'Healthy', since: now, episodes: [] };
}

/** Parses the annotation value. Left says what is wrong; the caller decides (we start over and emit an event). */
export function parseRepairState(
  value: string | undefined,
): either.Either<string, RepairState | undefined> {
  if (value === undefined || value === '') return either.right(undefined);
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    return either.left('repair-state annotation: expected JSON, got text that does not parse');
  }
  if (typeof json === 'object' && json !== null && 'v' in json && json.v !== RepairStateVersion) {
    return either.left(
      `repair-state annotation: version ${String(json.v)} is not understood by this controller (it understands ${RepairStateVersion})`,
    );
  }
  return pipe(
    RepairState.decode(json),
    either.mapLeft((errs) => `repair-state annotation: ${formatValidationErrors(errs)}`),
  );
}

/**
 * The state persisted on a Node under the annotation `key`: what the controller's annotation
 * store reads, and what the simulator starts a node it first sees from (fleet-decider.ts).
 */
export function readStateAnnotation(
  node: NodeSnapshot | undefined,
  key: string,
): either.Either<string, RepairState | undefined> {
  return parseRepairState(annotation(node, key));
}

/** The annotation value: compact JSON with RFC 3339 times, stable key order. */
export function serializeRepairState(state: RepairState): string {
  return JSON.stringify(RepairState.encode(state));
}
