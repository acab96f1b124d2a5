// Property tests of the repair state machine (fast-check), run in virtual time.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { either } from 'fp-ts';
import { VirtualTimeScheduler } from 'rxjs';
import { buildNode, type ReadyText } from './builders.js';
import { decideRepair, type RepairDecision } from './decide.js';
import { decideAlone, decideFleet, decideMember } from './fleet.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import { runRepairLoop, type ActionExecutor, type TimedObservation } from './runner.js';
import { isInFlight, type StormPause } from './storm-guard.js';
import { parseRepairState, serializeRepairState } from './state.js';

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T00:00:00Z');
const readyKinds: ReadyText[] = [
  'ready',
  'runtimeDown',
  'networkNotReady',
  'plegUnhealthy',
  'shuttingDown',
  'capacityMissing',
  'unknown',
];

const arbPolicy: fc.Arbitrary<RepairPolicy> = fc
  .record({
    timeoutMin: fc.integer({ min: 1, max: 20 }),
    minHealthyMin: fc.integer({ min: 0, max: 10 }),
    ladder: fc.subarray(['SoftReboot', 'HardReboot', 'Replace'] as const, { minLength: 1 }),
    attempts: fc.integer({ min: 1, max: 3 }),
    stepTimeoutMin: fc.integer({ min: 1, max: 30 }),
    flapEpisodes: fc.integer({ min: 1, max: 5 }),
    flapWindowMin: fc.integer({ min: 5, max: 120 }),
    maxInFlight: fc.integer({ min: 1, max: 3 }),
    maxUnhealthy: fc.oneof(
      fc.integer({ min: 0, max: 5 }),
      fc.integer({ min: 0, max: 100 }).map((p) => `${p}%`),
    ),
    minUnhealthyAllowed: fc.integer({ min: 0, max: 2 }),
    dryRun: fc.boolean(),
  })
  .map((r) => {
    const p = resolveRepairPolicy({
      dryRun: r.dryRun,
      unhealthyConditions: [
        { type: 'Ready', status: 'False', timeout: r.timeoutMin * 60 },
        { type: 'Ready', status: 'Unknown', timeout: r.timeoutMin * 60 },
      ],
      minHealthyPeriod: r.minHealthyMin * 60,
      ladder: r.ladder.map((action) => ({
        action,
        attempts: r.attempts,
        timeout: r.stepTimeoutMin * 60,
      })),
      flap: { episodes: r.flapEpisodes, window: r.flapWindowMin * 60 },
      // A calm recheck keeps long virtual runs cheap; the value does not change any property.
      stormGuard: {
        maxInFlight: r.maxInFlight,
        maxUnhealthy: r.maxUnhealthy,
        minUnhealthyAllowed: r.minUnhealthyAllowed,
        recheckInterval: '5m',
      },
    });
    if (either.isLeft(p)) throw new Error(p.left);
    return p.right;
  });

/** A node's timeline: steps of (gap, Ready kind); lastTransitionTime moves only when the kind changes. */
const arbTimeline = (kinds: ReadyText[]) =>
  fc.array(
    fc.record({ gapMin: fc.integer({ min: 0, max: 90 }), ready: fc.constantFrom(...kinds) }),
    { minLength: 1, maxLength: 12 },
  );

function toObservations(
  name: string,
  steps: Array<{ gapMin: number; ready: ReadyText }>,
  labels: Record<string, string> = {},
): TimedObservation[] {
  let at = T0;
  let since = T0 - 60 * MIN;
  let prev: ReadyText | undefined;
  return steps.map((s) => {
    at += s.gapMin * MIN;
    if (s.ready !== prev) since = at;
    prev = s.ready;
    return {
      at,
      obs: {
        nodeName: name,
        node: buildNode({ name, ready: s.ready, since, heartbeat: at, labels }),
      },
    };
  });
}

const arbOutcomes = fc.array(fc.constantFrom('Succeeded', 'Failed', 'crash'), {
  minLength: 1,
  maxLength: 8,
});

function executorFrom(outcomes: string[]): ActionExecutor {
  let i = 0;
  return () => {
    const o = outcomes[i++ % outcomes.length];
    return o === 'crash' ? undefined : { result: o === 'Failed' ? 'Failed' : 'Succeeded' };
  };
}

function runAll(
  observations: TimedObservation[],
  policy: RepairPolicy,
  execute: ActionExecutor,
): RepairDecision[] {
  const scheduler = new VirtualTimeScheduler();
  const out: RepairDecision[] = [];
  runRepairLoop({
    policy,
    scheduler,
    observations,
    epochMs: T0,
    execute,
    horizonMs: 4 * 60 * MIN,
  }).subscribe((d) => out.push(d));
  scheduler.flush();
  return out;
}

const runs = { numRuns: 60 };

/** Some storm pause: what a node in flight would be decided with during a storm. */
const anyPause: StormPause = {
  scope: 'fleet',
  reason: 'storm guard: any',
  hold: { kind: 'storm', unhealthy: 1, total: 1, limit: 0 },
};

describe('repair state machine properties', () => {
  it('a node Ready throughout is never touched', () => {
    fc.assert(
      fc.property(arbPolicy, arbTimeline(['ready']), arbOutcomes, (policy, steps, outcomes) => {
        const ds = runAll(toObservations('a', steps), policy, executorFrom(outcomes));
        expect(ds.length).toBeGreaterThan(0);
        for (const d of ds) {
          expect(d.actions).toEqual([]);
          expect(d.phase).toBe('Healthy');
        }
      }),
      runs,
    );
  });

  it('a node that reports shutting down is never rebooted', () => {
    fc.assert(
      fc.property(arbPolicy, arbTimeline(readyKinds), arbOutcomes, (policy, steps, outcomes) => {
        const ds = runAll(toObservations('a', steps), policy, executorFrom(outcomes));
        for (const d of ds) {
          if (d.cause.kind === 'ShuttingDown')
            expect(d.actions.filter((a) => a.type === 'Remediate')).toEqual([]);
        }
      }),
      runs,
    );
  });

  it('escalation never goes back down within one remediation', () => {
    fc.assert(
      fc.property(arbPolicy, arbTimeline(readyKinds), arbOutcomes, (policy, steps, outcomes) => {
        const ds = runAll(toObservations('a', steps), policy, executorFrom(outcomes));
        const highest = new Map<string, number>();
        for (const d of ds) {
          const rem = d.nextState?.remediation;
          if (rem === undefined) continue;
          expect(rem.step).toBeGreaterThanOrEqual(highest.get(rem.id) ?? 0);
          highest.set(rem.id, rem.step);
          for (const a of d.actions) if (a.type === 'Remediate') expect(a.step).toBe(rem.step);
        }
      }),
      runs,
    );
  });

  it('concurrent repairs never exceed the storm guard', () => {
    fc.assert(
      fc.property(
        arbPolicy,
        fc.array(arbTimeline(readyKinds), { minLength: 2, maxLength: 6 }),
        arbOutcomes,
        (policy, timelines, outcomes) => {
          const observations = timelines.flatMap((steps, i) => toObservations(`n${i}`, steps));
          const ds = runAll(observations, policy, executorFrom(outcomes));
          const phase = new Map<string, string>();
          for (const d of ds) {
            phase.set(d.node, d.phase);
            const inFlight = [...phase.values()].filter((p) => isInFlight(p as never)).length;
            expect(inFlight).toBeLessThanOrEqual(policy.stormGuard.maxInFlight);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('no repair starts while the fleet is over its unhealthy limit', () => {
    fc.assert(
      fc.property(
        arbPolicy,
        fc.array(fc.constantFrom(...readyKinds), { minLength: 1, maxLength: 10 }),
        (policy, kinds) => {
          const now = T0 + 3 * 60 * MIN;
          const members = kinds.map((k, i) => ({
            obs: {
              nodeName: `n${i}`,
              node: buildNode({ name: `n${i}`, ready: k, since: T0, heartbeat: now }),
            },
            state: undefined,
          }));
          const { decisions, storm } = decideFleet(members, policy, now);
          const starts = decisions.filter((d) => d.actions.some((a) => a.type === 'Remediate'));
          if (storm.tripped) expect(starts).toEqual([]);
          expect(starts.length).toBeLessThanOrEqual(policy.stormGuard.maxInFlight);
          expect(storm.unhealthy).toBe(kinds.filter((k) => k !== 'ready').length);
        },
      ),
      runs,
    );
  });

  it('a node decided alone gets exactly the decision the whole fleet would give it (or needs the fleet)', () => {
    fc.assert(
      fc.property(
        arbPolicy,
        fc.array(fc.tuple(arbTimeline(readyKinds), fc.constantFrom(...readyKinds)), {
          minLength: 1,
          maxLength: 6,
        }),
        arbOutcomes,
        (policy, nodes, outcomes) => {
          // Realistic states: each node's history run through the state machine, then a
          // current condition that may differ from where the history left it.
          const now = T0 + 40 * 60 * MIN;
          const members = nodes.map(([steps, kind], i) => {
            const ds = runAll(toObservations(`n${i}`, steps), policy, executorFrom(outcomes));
            const state = [...ds].reverse().find((d) => d.nextState !== undefined)?.nextState;
            return {
              obs: {
                nodeName: `n${i}`,
                node: buildNode({ name: `n${i}`, ready: kind, since: T0, heartbeat: now }),
              },
              state,
            };
          });
          const fleet = decideFleet(members, policy, now);
          // The pass parses and assesses each node once and hands that to the decision: the
          // same decision decideRepair gives from the raw snapshot with the node's verdict.
          members.forEach((m, i) => {
            const verdict = fleet.storm.verdicts.get(m.obs.nodeName);
            const pause = fleet.storm.paused.get(m.obs.nodeName);
            const ctx = {
              ...(verdict !== undefined ? { storm: verdict } : {}),
              ...(pause !== undefined ? { stormPause: pause } : {}),
            };
            expect(decideRepair(m.obs, m.state, policy, now, ctx)).toEqual(fleet.decisions[i]);
          });
          // decideMember is decideFleet's answer for one member.
          members.forEach((_, i) =>
            expect(decideMember(members, i, policy, now)?.decision).toEqual(fleet.decisions[i]),
          );
          let alone = 0;
          members.forEach((m, i) => {
            const d = decideAlone(m, policy, now);
            if (d === undefined) return;
            alone++;
            expect(d).toEqual(fleet.decisions[i]);
          });
          // Only nodes the storm guard could hold need the fleet: those that want to start,
          // and repairs in flight whose attempt a storm would keep from timing out.
          const wanting = [...fleet.storm.verdicts.keys()].length;
          const pausable = members.filter(
            (m) =>
              isInFlight(m.state?.phase) &&
              decideRepair(m.obs, m.state, policy, now, { stormPause: anyPause }).reason !==
                decideRepair(m.obs, m.state, policy, now).reason,
          ).length;
          expect(alone).toBe(members.length - wanting - pausable);
        },
      ),
      runs,
    );
  });

  it('restarts never repeat an action: every state survives the annotation round trip and one action id per attempt, replays reuse it', () => {
    fc.assert(
      fc.property(arbPolicy, arbTimeline(readyKinds), arbOutcomes, (policy, steps, outcomes) => {
        const requested = new Set<string>();
        const issued = new Set<string>();
        const attemptIds = new Map<string, string>();
        const provider = executorFrom(outcomes);
        const ds = runAll(toObservations('a', steps), policy, (action, node, now) => {
          requested.add(action.actionId);
          return provider(action, node, now);
        });
        for (const d of ds) {
          if (d.nextState !== undefined) {
            const back = parseRepairState(serializeRepairState(d.nextState));
            expect(back).toEqual(either.right(d.nextState));
          }
          for (const a of d.actions) {
            if (a.type !== 'Remediate') continue;
            // A replay always re-uses an id issued before; a fresh action never does.
            expect(issued.has(a.actionId)).toBe(a.replay);
            issued.add(a.actionId);
            // One id per (repair, step, attempt): an idempotent provider acts once per attempt.
            const attempt = `${d.nextState?.remediation?.id}/${a.step}/${a.attempt}`;
            expect(attemptIds.get(attempt) ?? a.actionId).toBe(a.actionId);
            attemptIds.set(attempt, a.actionId);
          }
        }
        expect([...requested].sort()).toEqual([...issued].sort());
      }),
      runs,
    );
  });

  it('the same inputs give the same decisions', () => {
    fc.assert(
      fc.property(
        arbPolicy,
        fc.array(arbTimeline(readyKinds), { minLength: 1, maxLength: 3 }),
        arbOutcomes,
        (policy, timelines, outcomes) => {
          const observations = timelines.flatMap((steps, i) => toObservations(`n${i}`, steps));
          const first = runAll(observations, policy, executorFrom(outcomes));
          // Same inputs, listed in another node order (each node's own order kept: sort is stable).
          const reordered = [...observations].sort(
            (a, b) => a.at - b.at || b.obs.nodeName.localeCompare(a.obs.nodeName),
          );
          const second = runAll(reordered, policy, executorFrom(outcomes));
          expect(second).toEqual(first);
          const last = observations[observations.length - 1]!;
          expect(decideRepair(last.obs, undefined, policy, last.at)).toEqual(
            decideRepair(last.obs, undefined, policy, new Date(last.at)),
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});
