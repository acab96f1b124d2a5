// Drives the state machine through time with an rxjs scheduler. With a TestScheduler or
// VirtualTimeScheduler, hours of policy (timeouts, backoffs, healthy periods) run in
// milliseconds of real time and deterministically; with asyncScheduler it is a real loop.
// Each pass decides the nodes one after the other through newFleetDecider, exactly as the
// controller's reconciler does (decided alone when the fleet cannot matter, else with the
// storm guard over every node, the storm memory started at the first pass); each node sees
// the states the nodes before it were given, as the controller's cache shows them. A node
// seen for the first time starts from the state it carries (stateAtStart: its state
// annotation, as the controller reads it), so a trace of nodes already in repair, held for
// a storm or cooling down at the start replays as the controller would go on with them.
import { createRequire } from 'node:module';
import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import {
  DECIDE_AGAIN_AFTER_OUTCOME_MS,
  recordDrain,
  recordOutcome,
  type ActionOutcome,
  type RepairAction,
  type RepairDecision,
} from './decide.js';
import { newFleetDecider, stateAtStart, type FleetDecider } from './fleet-decider.js';
import { recordReplace } from './replace.js';
import type { FleetMember } from './fleet.js';
import type { HealthObservation } from './node.js';
import type { RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';

// rxjs is loaded by the first run, not at import. Every controller imports the health entry
// point that re-exports this file, none of them runs this loop, and rxjs costs a process
// ~5.5 MiB of resident memory (Node 20, measured beside the other dependencies). Under Node,
// `import` and `require` of rxjs resolve to the same CommonJS build, so a caller's scheduler
// and this Observable come from one rxjs.
let rx: typeof import('rxjs') | undefined;
function rxjs(): typeof import('rxjs') {
  rx ??= createRequire(import.meta.url)('rxjs') as typeof import('rxjs');
  return rx;
}

/** One observation of one node at an absolute time (epoch ms). */
export interface TimedObservation {
  /** When, in epoch ms. */
  at: number;
  /** What was observed. */
  obs: HealthObservation;
}

/** The Remediate action of a repair decision. */
export type RemediateAction = Extract<RepairAction, { type: 'Remediate' }>;

/** What executing a Remediate action did. undefined: the controller died before recording it. */
export type ActionExecutor = (
  action: RemediateAction,
  node: string,
  now: number,
) => Omit<ActionOutcome, 'actionId' | 'at'> | undefined;

/** What runRepairLoop replays and how. */
export interface RepairLoopOptions {
  /** The policy the nodes are decided with. */
  policy: RepairPolicy;
  /**
   * The scheduler time runs on: a VirtualTimeScheduler or TestScheduler for a fast deterministic
   * replay, asyncScheduler for real time.
   */
  scheduler: SchedulerLike;
  /** Observations in any order; grouped by time, applied in time order. */
  observations: readonly TimedObservation[];
  /** Epoch ms that virtual time zero stands for; default: the first observation's time. */
  epochMs?: number;
  /** States to start from; a node without one starts from stateAtStart (its annotation). */
  initialStates?: ReadonlyMap<string, RepairState>;
  /** Default: every action succeeds at once. */
  execute?: ActionExecutor;
  /** Keep following requeues this long after the last observation (default 24 h). */
  horizonMs?: number;
}

/** Every per-node decision of every pass, in time order; completes when nothing is left to wake for. */
export function runRepairLoop(opts: RepairLoopOptions): Observable<RepairDecision> {
  const { Observable, Subscription } = rxjs();
  return new Observable<RepairDecision>((subscriber) => {
    const { policy, scheduler } = opts;
    const execute: ActionExecutor = opts.execute ?? (() => ({ result: 'Succeeded' }));
    const sorted = [...opts.observations].sort((a, b) => a.at - b.at);
    const epoch = opts.epochMs ?? sorted[0]?.at ?? 0;
    const base = scheduler.now();
    const now = () => epoch + (scheduler.now() - base);
    const stopAt = (sorted[sorted.length - 1]?.at ?? epoch) + (opts.horizonMs ?? 24 * 3_600_000);
    const latest = new Map<string, HealthObservation>();
    const states = new Map<string, RepairState>(opts.initialStates ?? []);
    const subs = new Subscription();
    let wake: Subscription | undefined;
    let batchesLeft = 0;
    // Created at the first pass, as the controller creates it at its first reconcile.
    let decider: FleetDecider | undefined;
    const member = (name: string): FleetMember[] => {
      const obs = latest.get(name);
      return obs === undefined ? [] : [{ obs, state: states.get(name) }];
    };

    const pass = () => {
      const t = now();
      decider ??= newFleetDecider(policy, t);
      const names = [...latest.keys()].sort();
      let nextWake = Number.POSITIVE_INFINITY;
      for (const name of names) {
        const self = member(name)[0];
        if (self === undefined) continue;
        const others = () => names.filter((n) => n !== name).flatMap(member);
        const { decision: d } = decider.decide(self, others, t);
        if (d.nextState === undefined) {
          states.delete(d.node);
          latest.delete(d.node);
        } else {
          let st = d.nextState;
          let recorded = false;
          for (const action of d.actions) {
            // The simulated drain finishes in its first pass (nothing to evict), as the
            // controller's does on an empty node; the end is recorded before the action.
            if (action.type === 'Drain') {
              st = recordDrain(st, {
                remediationId: action.remediationId,
                ended: { at: t, outcome: 'Drained' },
              });
              continue;
            }
            // A trace cannot say whether a machine is fenced: the DeleteNode step's ask past
            // its deadline is answered "not fenced", so the step times out as it would.
            if (action.type === 'DeleteNode') {
              if (action.deadline !== undefined && t >= action.deadline)
                st = recordReplace(st, {
                  actionId: action.actionId,
                  unavailable: false,
                  notFencedAt: t,
                });
              continue;
            }
            if (action.type !== 'Remediate') continue;
            const result = execute(action, d.node, t);
            if (result !== undefined) {
              st = recordOutcome(st, { ...result, actionId: action.actionId, at: t });
              recorded = true;
            }
          }
          states.set(d.node, st);
          // An outcome was just recorded: look again when the controller would (its requeue
          // after an action). A missing outcome is a simulated crash; the decision's own
          // requeue paces the replay.
          if (recorded) nextWake = Math.min(nextWake, DECIDE_AGAIN_AFTER_OUTCOME_MS);
        }
        subscriber.next(d);
        if (d.requeueAfterMs !== undefined) nextWake = Math.min(nextWake, d.requeueAfterMs);
      }
      wake?.unsubscribe();
      wake = undefined;
      if (Number.isFinite(nextWake) && t + nextWake <= stopAt) {
        wake = scheduler.schedule(() => {
          wake = undefined;
          pass();
        }, nextWake);
        subs.add(wake);
      }
      if (wake === undefined && batchesLeft === 0) subscriber.complete();
    };

    const batches = new Map<number, TimedObservation[]>();
    for (const o of sorted) batches.set(o.at, [...(batches.get(o.at) ?? []), o]);
    batchesLeft = batches.size;
    for (const [at, batch] of batches) {
      subs.add(
        scheduler.schedule(
          () => {
            for (const o of batch) {
              const name = o.obs.nodeName;
              latest.set(name, o.obs);
              const carried = states.has(name) ? undefined : stateAtStart(policy, o.obs.node);
              if (carried !== undefined) states.set(name, carried);
            }
            batchesLeft -= 1;
            pass();
          },
          Math.max(0, at - epoch),
        ),
      );
    }
    if (batchesLeft === 0) subscriber.complete();
    return () => subs.unsubscribe();
  });
}
