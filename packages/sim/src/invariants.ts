// Safety rules of the controller as invariants over a run's recorded history: pure functions
// from the entries (and the policy) to the violations found, each with the virtual time and a
// sentence a developer can act on. They judge only what the world recorded (SimCloud's own
// log of what Nova carried out, the answers it gave, the state writes SimKube accepted),
// never what the controller says about itself.
import { isInFlight } from '@noderepair/core/health';
import type { RepairPolicy } from '@noderepair/core/health';
import type { HistoryEntry } from './history.js';
import { repairedInTime } from './liveness.js';

/** One broken rule, at a point of the history. */
export interface Violation {
  invariant: string;
  t: number;
  message: string;
}

type Of<K extends HistoryEntry['kind']> = Extract<HistoryEntry, { kind: K }>;

/**
 * (a) No action id carried out twice by the provider; no second power action on a machine
 * before the controller was given the first one's outcome (an Accepted or Rejected answer to
 * a call with its id: a lost reply or a 5xx must be asked about, by a replay, before anything
 * else is sent to that machine).
 */
export function noDoubleAction(h: readonly HistoryEntry[]): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  const answered = new Set<string>();
  const open = new Map<string, Of<'executed'>>();
  for (const e of h) {
    if (e.kind === 'call' && (e.answer === 'Accepted' || e.answer === 'Rejected')) {
      answered.add(e.actionId);
      if (open.get(e.machine)?.actionId === e.actionId) open.delete(e.machine);
    }
    if (e.kind !== 'executed' || e.by !== 'controller') continue;
    if (seen.has(e.actionId))
      out.push({
        invariant: 'a:no-double-action',
        t: e.t,
        message: `action id ${e.actionId} carried out twice`,
      });
    seen.add(e.actionId);
    const prev = open.get(e.machine);
    if (prev !== undefined && !answered.has(prev.actionId))
      out.push({
        invariant: 'a:no-double-action',
        t: e.t,
        message: `${e.action} ${e.actionId} carried out on ${e.machine} before the outcome of ${prev.action} ${prev.actionId} (t=${prev.t}) was asked for`,
      });
    if (!answered.has(e.actionId)) open.set(e.machine, e);
  }
  return out;
}

/**
 * (b) An outage never counts an attempt: a remediation moves to a new attempt or step only
 * from an intent whose outcome was recorded (an answer, then its timeout), and an intent
 * recorded as Failed was Rejected by the provider, never merely unreachable.
 */
export function outageNeverCounts(h: readonly HistoryEntry[]): Violation[] {
  const out: Violation[] = [];
  const rejected = new Set<string>();
  const last = new Map<string, Of<'state'>>();
  for (const e of h) {
    if (e.kind === 'call' && e.answer === 'Rejected') rejected.add(e.actionId);
    if (e.kind === 'node' && e.change === 'deleted') last.delete(e.node);
    if (e.kind !== 'state') continue;
    const prev = last.get(e.node);
    last.set(e.node, e);
    if (e.result === 'Failed' && e.actionId !== undefined && !rejected.has(e.actionId))
      out.push({
        invariant: 'b:outage-never-counts',
        t: e.t,
        message: `${e.node}: intent ${e.actionId} recorded Failed without a Rejected answer from the provider`,
      });
    if (
      prev === undefined ||
      prev.remediationId === undefined ||
      prev.remediationId !== e.remediationId
    )
      continue;
    if (prev.actionId === undefined || e.actionId === prev.actionId) continue;
    if (prev.completed !== true)
      out.push({
        invariant: 'b:outage-never-counts',
        t: e.t,
        message: `${e.node}: moved from ${prev.actionId} (no outcome recorded) to ${e.actionId ?? 'no intent'} (step ${e.step}, attempt ${e.attempt})`,
      });
  }
  return out;
}

/**
 * (c) A machine someone else powered off is never powered on by the controller, nor deleted by
 * its Replace (the stop is theirs to undo).
 */
export function neverPowerOnStopped(h: readonly HistoryEntry[]): Violation[] {
  const out: Violation[] = [];
  const stoppedByPerson = new Set<string>();
  for (const e of h) {
    if (e.kind !== 'executed') continue;
    if (e.by === 'person') {
      if (e.action === 'PowerOff') stoppedByPerson.add(e.machine);
      else stoppedByPerson.delete(e.machine);
      continue;
    }
    if (e.failed === true) continue;
    if (e.action !== 'PowerOff' && e.from === 'Off' && stoppedByPerson.has(e.machine))
      out.push({
        invariant: 'c:never-power-on-stopped',
        t: e.t,
        message: `${e.action} ${e.actionId} ${e.action === 'Replace' ? 'deleted' : 'powered on'} ${e.machine}, which a person had stopped`,
      });
    if (e.action === 'PowerOff') stoppedByPerson.delete(e.machine);
  }
  return out;
}

/** (d) Never more repairs in flight (persisted phases) than the storm guard's maxInFlight. */
export function maxInFlight(h: readonly HistoryEntry[], policy: RepairPolicy): Violation[] {
  const out: Violation[] = [];
  const limit = policy.stormGuard.maxInFlight;
  const phase = new Map<string, string>();
  for (const e of h) {
    // A deleted Node's repair went with it (its state annotation too).
    if (e.kind === 'node' && e.change === 'deleted') phase.delete(e.node);
    if (e.kind !== 'state') continue;
    phase.set(e.node, e.phase);
    const inFlight = [...phase.entries()].filter(([, p]) => isInFlight(p as never)).map(([n]) => n);
    if (inFlight.length > limit)
      out.push({
        invariant: 'd:max-in-flight',
        t: e.t,
        message: `${inFlight.length} repairs in flight (limit ${limit}): ${inFlight.join(', ')}`,
      });
  }
  return out;
}

/**
 * (e) Nothing is forced off a machine that is not really fenced (the issue's rule 1): no
 * node.kubernetes.io/out-of-service taint, no Node deletion and no forced pod deletion (the
 * pod GC's, under the taint or for a deleted Node, or a delete with gracePeriodSeconds 0) that
 * the controller caused, unless at that moment the machine is off or deleted, or was
 * power-cycled since its Node went NotReady (the world's truth, not what the provider said; a
 * server Nova is still deleting runs). Another actor's taint or deletion is theirs.
 */
export function taintOnlyWhenFenced(h: readonly HistoryEntry[]): Violation[] {
  const out: Violation[] = [];
  for (const e of h) {
    if (e.kind === 'taint' && e.by === 'controller' && !e.fenced)
      out.push({
        invariant: 'e:taint-only-when-fenced',
        t: e.t,
        message: `out-of-service taint on ${e.node} while ${e.why}`,
      });
    else if (e.kind === 'node-delete' && e.by === 'controller' && !e.fenced)
      out.push({
        invariant: 'e:node-delete-only-when-fenced',
        t: e.t,
        message: `Node ${e.node} (uid ${e.uid}, ${e.providerID}) deleted while ${e.why}`,
      });
    else if (e.kind === 'force-pod' && e.by === 'controller' && !e.fenced)
      out.push({
        invariant: 'e:force-only-when-fenced',
        t: e.t,
        message: `pod ${e.pod} force-deleted from ${e.node} (${e.cause}) while ${e.why}`,
      });
  }
  return out;
}

/**
 * (f) Nothing we did not add is removed: a cordon or a taint someone else put on a Node (a
 * person, an operator) is never removed by the controller. Who added each mark is the
 * world's record (marks.ts), not the controller's own `cordoned`/`taintAdded` bookkeeping.
 * The marks of a Node the controller deletes (after a Replace) go with it: that deletion is
 * judged by (e) and (i), not here.
 */
export function keepOthersMarks(h: readonly HistoryEntry[]): Violation[] {
  const out: Violation[] = [];
  const owner = new Map<string, string>();
  for (const e of h) {
    if (e.kind !== 'mark') continue;
    const k = `${e.node}|${e.mark}`;
    if (e.change === 'added') owner.set(k, e.by);
    else {
      const who = owner.get(k);
      owner.delete(k);
      if (e.by === 'controller' && e.withNode !== true && who !== undefined && who !== 'controller')
        out.push({
          invariant: 'f:keep-others-marks',
          t: e.t,
          message: `${e.node}: the controller removed ${e.mark === 'cordon' ? 'the cordon' : `the taint ${e.mark}`} ${who === 'operator' ? 'an' : 'a'} ${who} added`,
        });
    }
  }
  return out;
}

/**
 * (g) No repair starts on a node another actor holds: while a person's cordon stands on a
 * node (the ManualCordon actor, on by default), no remediation starts on it, and no eviction
 * or power call is made on it for a remediation that started after the cordon. A repair
 * already under way when the person cordoned goes on (that is the controller's design).
 */
export function noRepairUnderHold(h: readonly HistoryEntry[], policy: RepairPolicy): Violation[] {
  if (!policy.coordination.actors.includes('ManualCordon')) return [];
  const out: Violation[] = [];
  const heldSince = new Map<string, number>();
  /** Per node: the current remediation and when it was first recorded. */
  const current = new Map<string, { id: string; since: number }>();
  const underHold = (node: string) => {
    const held = heldSince.get(node);
    const rem = current.get(node);
    return held !== undefined && (rem === undefined || rem.since >= held);
  };
  const flag = (t: number, node: string, what: string) =>
    out.push({
      invariant: 'g:no-repair-under-hold',
      t,
      message: `${node}: ${what} while a person's cordon holds it (since t=${heldSince.get(node)})`,
    });
  for (const e of h) {
    if (e.kind === 'mark' && e.mark === 'cordon') {
      if (e.change === 'added' && e.by === 'person') heldSince.set(e.node, e.t);
      if (e.change === 'removed') heldSince.delete(e.node);
    } else if (e.kind === 'state' && e.remediationId !== undefined) {
      if (current.get(e.node)?.id === e.remediationId) continue;
      current.set(e.node, { id: e.remediationId, since: e.t });
      if (heldSince.has(e.node)) flag(e.t, e.node, `repair ${e.remediationId} started`);
    } else if (e.kind === 'evict' && underHold(e.node)) flag(e.t, e.node, `pod ${e.pod} evicted`);
    else if (e.kind === 'call' && !e.replay) {
      const node = e.machine.replace(/^sim:\/\//, '').replace(/~r\d+$/, '');
      if (underHold(node)) flag(e.t, node, `${e.action} ${e.actionId} sent`);
    }
  }
  return out;
}

/**
 * (i) Identity (the issue's rule 4): no write to a Node whose identity (uid, providerID) is
 * not the one of the machine acted on. Judged from the world's records of which Node object
 * held the name at each moment (`node` entries: uid and providerID):
 * - a repair (its remediation id) is recorded on one Node object only: a state write naming
 *   it on another object under the same name carries the repair over to a Node (a machine) it
 *   was never decided about;
 * - a cordon or a taint the controller adds, and an eviction of one of the Node's pods, go to
 *   a Node object whose own state names a repair (a replaced Node, re-created with a new uid,
 *   has none until the controller starts one on it);
 * - every power call goes to the machine named by the providerID of the Node object on which
 *   its intent (the action id) was persisted, and that object still exists when it is sent: a
 *   Node deleted (and maybe re-created by a rebuild, same providerID) since the intent was
 *   written is another machine's now, and the controller's own writes in between tell it so
 *   (POLICY=replace seed 162 before ae1562e: the drain's end met the re-created Node, the
 *   Replace went to the rebuilt server);
 * - a Node the controller deletes is the object (uid) on which the repair that deletes it was
 *   recorded, and a Replace of that repair was persisted on that same object (the delete's uid
 *   precondition is the one of the object the Replace was decided about, not of whatever
 *   holds the name now).
 */
export function identity(h: readonly HistoryEntry[]): Violation[] {
  const out: Violation[] = [];
  type Obj = { uid: string; providerID: string };
  const current = new Map<string, Obj>();
  const repairOn = new Map<string, string>();
  const repairOf = new Map<string, string | undefined>();
  const intentOn = new Map<string, Obj>();
  const deletedUids = new Set<string>();
  /** Remediation id -> the Node uids a Replace intent of it was persisted on. */
  const replaceOn = new Map<string, Set<string>>();
  const flag = (t: number, message: string) => out.push({ invariant: 'i:identity', t, message });
  const unrepaired = (t: number, node: string, what: string) => {
    const o = current.get(node);
    if (o === undefined) flag(t, `${node}: ${what} with no Node of that name`);
    else if (repairOf.get(o.uid) === undefined)
      flag(
        t,
        `${node}: ${what} on Node uid ${o.uid} (${o.providerID}), which has no repair of its own (re-created since the repair began?)`,
      );
  };
  for (const e of h) {
    if (e.kind === 'node') {
      if (e.change === 'created') current.set(e.node, { uid: e.uid, providerID: e.providerID });
      else {
        current.delete(e.node);
        deletedUids.add(e.uid);
      }
    } else if (e.kind === 'state') {
      const o = current.get(e.node);
      if (o === undefined) continue;
      repairOf.set(o.uid, e.remediationId);
      if (e.remediationId !== undefined) {
        const first = repairOn.get(e.remediationId);
        if (first === undefined) repairOn.set(e.remediationId, o.uid);
        else if (first !== o.uid)
          flag(
            e.t,
            `${e.node}: repair ${e.remediationId}, begun on Node uid ${first}, recorded on Node uid ${o.uid} (${o.providerID})`,
          );
      }
      if (e.actionId !== undefined && !intentOn.has(e.actionId)) intentOn.set(e.actionId, o);
      if (e.action === 'Replace' && e.remediationId !== undefined)
        replaceOn.set(
          e.remediationId,
          (replaceOn.get(e.remediationId) ?? new Set<string>()).add(o.uid),
        );
    } else if (e.kind === 'node-delete' && e.by === 'controller') {
      const rem = repairOf.get(e.uid);
      if (rem === undefined)
        flag(
          e.t,
          `${e.node}: Node uid ${e.uid} (${e.providerID}) deleted, but no repair was recorded on that object`,
        );
      else if (repairOn.get(rem) !== e.uid)
        flag(
          e.t,
          `${e.node}: Node uid ${e.uid} deleted for repair ${rem}, which began on Node uid ${repairOn.get(rem)}`,
        );
      else if (replaceOn.get(rem)?.has(e.uid) !== true)
        flag(
          e.t,
          `${e.node}: Node uid ${e.uid} deleted for repair ${rem}, which persisted no Replace on that object`,
        );
    } else if (e.kind === 'mark' && e.by === 'controller' && e.change === 'added')
      unrepaired(e.t, e.node, e.mark === 'cordon' ? 'cordon added' : `taint ${e.mark} added`);
    else if (e.kind === 'evict') unrepaired(e.t, e.node, `pod ${e.pod} evicted`);
    else if (e.kind === 'call') {
      const o = intentOn.get(e.actionId);
      if (o !== undefined && o.providerID !== e.machine)
        flag(
          e.t,
          `${e.action} ${e.actionId} sent to ${e.machine}; its intent was persisted on Node uid ${o.uid}, whose machine is ${o.providerID}`,
        );
      else if (o !== undefined && deletedUids.has(o.uid))
        flag(
          e.t,
          `${e.action} ${e.actionId} sent to ${e.machine}; its intent was persisted on Node uid ${o.uid}, deleted before the call`,
        );
    }
  }
  return out;
}

/**
 * (j) a repair climbs the ladder of the rule that started it: a repair that starts while the
 * node reports a condition (node-problem-detector's, recorded by the world) that the first
 * acting `unhealthyConditions` entry in policy order matches, past its wait, sends only
 * actions of that entry's ladder (or of the policy's, for an entry without one), the first
 * being its first step, whatever the node reports later. Repairs that Ready's entries (or the
 * flap rule) start are not judged here (the Ready clock is the episode's, not the world's).
 */
export function ruleLadderKept(h: readonly HistoryEntry[], policy: RepairPolicy): Violation[] {
  const out: Violation[] = [];
  const conds = new Map<string, Map<string, { status: string; reason: string; since: number }>>();
  /** Remediation id -> the ladder its rule names (only for judged repairs). */
  const expected = new Map<string, { rule: string; actions: string[]; sent: number }>();
  const started = new Set<string>();
  for (const e of h) {
    // A re-created Node starts with no condition of the old object's (its first post of a
    // condition is not a change, so not recorded).
    if (e.kind === 'node') conds.delete(e.node);
    else if (e.kind === 'condition') {
      const m = conds.get(e.node) ?? new Map();
      m.set(e.type, { status: e.status, reason: e.reason, since: e.t });
      conds.set(e.node, m);
    } else if (e.kind === 'state' && e.remediationId !== undefined) {
      if (started.has(e.remediationId)) continue;
      started.add(e.remediationId);
      for (const uc of policy.unhealthyConditions) {
        if (uc.action === 'NoAction') continue;
        if (uc.type === 'Ready') break;
        const c = conds.get(e.node)?.get(uc.type);
        if (c === undefined || c.status !== uc.status) continue;
        if (uc.reason !== undefined && c.reason !== uc.reason) continue;
        if (!(c.since + uc.timeoutMs < e.t)) continue;
        expected.set(e.remediationId, {
          rule: `${uc.type}=${uc.status}`,
          actions: (uc.ladder ?? policy.ladder).map((s) => s.action),
          sent: 0,
        });
        break;
      }
    } else if (e.kind === 'call' && !e.replay) {
      const rem = e.actionId.slice(0, e.actionId.lastIndexOf('/'));
      const want = expected.get(rem);
      if (want === undefined) continue;
      const ok = want.sent === 0 ? e.action === want.actions[0] : want.actions.includes(e.action);
      want.sent++;
      if (!ok)
        out.push({
          invariant: 'j:rule-ladder-kept',
          t: e.t,
          message: `repair ${rem} started by the rule ${want.rule} sent ${e.action} (${e.actionId}); its ladder is ${want.actions.join(', ')}`,
        });
    }
  }
  return out;
}

/** Every invariant of this slice over one history. */
export function checkAll(h: readonly HistoryEntry[], policy: RepairPolicy): Violation[] {
  return [
    ...noDoubleAction(h),
    ...outageNeverCounts(h),
    ...neverPowerOnStopped(h),
    ...maxInFlight(h, policy),
    ...taintOnlyWhenFenced(h),
    ...keepOthersMarks(h),
    ...noRepairUnderHold(h, policy),
    ...identity(h),
    ...ruleLadderKept(h, policy),
    ...repairedInTime(h, policy),
  ].sort((a, b) => a.t - b.t);
}
