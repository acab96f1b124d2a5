// Property tests of the flap memory over generated Ready-condition histories (fast-check).
// A history is every status change of the node from its registration on; the controller sees
// only some of its snapshots (a random mask, the first always), as a controller that is slow,
// restarted or coalescing watch events would. Run through the same loop as the simulator.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { either } from 'fp-ts';
import { VirtualTimeScheduler } from 'rxjs';
import { buildNode, type ReadyText } from './builders.js';
import type { RepairDecision } from './decide.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import { runRepairLoop, type ActionExecutor, type TimedObservation } from './runner.js';
import { isInFlight } from './storm-guard.js';

const S = 1000;
const MIN = 60 * S;
const T0 = Date.parse('2026-03-01T00:00:00Z');

type Status = 'True' | 'False' | 'Unknown';
const statusOf: Record<ReadyText, Status> = {
  ready: 'True',
  runtimeDown: 'False',
  networkNotReady: 'False',
  plegUnhealthy: 'False',
  shuttingDown: 'False',
  capacityMissing: 'False',
  unknown: 'Unknown',
  neverUpdated: 'Unknown',
};
const notReadyKinds: ReadyText[] = [
  'runtimeDown',
  'networkNotReady',
  'plegUnhealthy',
  'shuttingDown',
  'capacityMissing',
  'unknown',
];
const allKinds: ReadyText[] = ['ready', ...notReadyKinds];

interface Snapshot {
  at: number;
  kind: ReadyText;
  /** Ready's lastTransitionTime: moves only when the status changes, as the API server shows it. */
  since: number;
  seen: boolean;
}

const arbStep = (kinds: ReadyText[]) =>
  fc.record({
    gapS: fc.integer({ min: 1, max: 20 * 60 }),
    kind: fc.constantFrom(...kinds),
    seen: fc.boolean(),
  });

/** The node registers at T0 with `first`, then changes as the steps say. */
function history(first: ReadyText, steps: Array<{ gapS: number; kind: ReadyText; seen: boolean }>) {
  const out: Snapshot[] = [{ at: T0, kind: first, since: T0, seen: true }];
  for (const s of steps) {
    const prev = out[out.length - 1]!;
    const at = prev.at + s.gapS * S;
    out.push({
      at,
      kind: s.kind,
      since: statusOf[s.kind] === statusOf[prev.kind] ? prev.since : at,
      seen: s.seen,
    });
  }
  return out;
}

function observations(h: Snapshot[]): TimedObservation[] {
  return h
    .filter((s) => s.seen)
    .map((s) => ({
      at: s.at,
      obs: {
        nodeName: 'a',
        node: buildNode({ name: 'a', ready: s.kind, since: s.since, heartbeat: s.at, created: T0 }),
      },
    }));
}

/** Ready=True -> not-True transitions in the whole history, seen or not. */
function readyLosses(h: Snapshot[]): number {
  let n = 0;
  for (let i = 1; i < h.length; i++)
    if (statusOf[h[i - 1]!.kind] === 'True' && statusOf[h[i]!.kind] !== 'True') n++;
  return n;
}

const arbPolicy: fc.Arbitrary<RepairPolicy> = fc
  .record({
    timeoutMin: fc.integer({ min: 1, max: 20 }),
    minHealthyMin: fc.integer({ min: 0, max: 10 }),
    stepTimeoutMin: fc.integer({ min: 1, max: 30 }),
    flapEpisodes: fc.integer({ min: 1, max: 4 }),
    flapWindowMin: fc.integer({ min: 5, max: 240 }),
  })
  .map((r) =>
    mustPolicy({
      unhealthyConditions: [
        { type: 'Ready', status: 'False', timeout: r.timeoutMin * 60 },
        { type: 'Ready', status: 'Unknown', timeout: r.timeoutMin * 60 },
      ],
      minHealthyPeriod: r.minHealthyMin * 60,
      ladder: [
        { action: 'SoftReboot', timeout: r.stepTimeoutMin * 60 },
        { action: 'HardReboot', timeout: r.stepTimeoutMin * 60, attempts: 2 },
      ],
      flap: { episodes: r.flapEpisodes, window: r.flapWindowMin * 60 },
      stormGuard: { recheckInterval: '5m' },
    }),
  );

function mustPolicy(input: unknown): RepairPolicy {
  const p = resolveRepairPolicy(input);
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

const arbOutcomes = fc.array(fc.constantFrom('Succeeded', 'Failed', 'crash'), {
  minLength: 1,
  maxLength: 6,
});

function executorFrom(outcomes: string[]): ActionExecutor {
  let i = 0;
  return () => {
    const o = outcomes[i++ % outcomes.length];
    return o === 'crash' ? undefined : { result: o === 'Failed' ? 'Failed' : 'Succeeded' };
  };
}

function runAll(h: Snapshot[], policy: RepairPolicy, execute: ActionExecutor): RepairDecision[] {
  const scheduler = new VirtualTimeScheduler();
  const out: RepairDecision[] = [];
  runRepairLoop({
    policy,
    scheduler,
    observations: observations(h),
    epochMs: T0,
    execute,
    horizonMs: 3 * 60 * MIN,
  }).subscribe((d) => out.push(d));
  scheduler.flush();
  return out;
}

/** Every episode start the controller ever remembered (the memory is windowed and cleared). */
const everCounted = (ds: RepairDecision[]) =>
  new Set(ds.flatMap((d) => d.nextState?.episodes ?? []));

/** Each decision with the state it was made from (the previous decision's next state). */
function withPrevious(ds: RepairDecision[]) {
  return ds.map((d, i) => ({ d, prev: i > 0 ? ds[i - 1]!.nextState : undefined }));
}

const runs = { numRuns: 150 };
const arbHistory = fc
  .tuple(fc.constantFrom(...allKinds), fc.array(arbStep(allKinds), { maxLength: 25 }))
  .map(([first, steps]) => history(first, steps));

describe('flap memory properties (generated condition histories)', () => {
  it('the episodes counted never exceed the Ready -> not-Ready transitions in the history, whatever the controller missed', () => {
    fc.assert(
      fc.property(arbPolicy, arbHistory, arbOutcomes, (policy, h, outcomes) => {
        const ds = runAll(h, policy, executorFrom(outcomes));
        expect(everCounted(ds).size).toBeLessThanOrEqual(readyLosses(h));
      }),
      runs,
    );
  });

  it('no flip sequence without a Ready in between adds more than one episode (exactly one when seen to begin, unless a shutdown)', () => {
    // Timeouts and the flap limit out of reach: no repair interferes, only the counting shows.
    const calm = mustPolicy({
      unhealthyConditions: [
        { type: 'Ready', status: 'False', timeout: '24h' },
        { type: 'Ready', status: 'Unknown', timeout: '24h' },
      ],
      flap: { episodes: 100, window: '24h' },
    });
    fc.assert(
      fc.property(
        fc.array(arbStep(['ready']), { maxLength: 5 }),
        fc.array(arbStep(notReadyKinds), { minLength: 1, maxLength: 25 }),
        fc.array(arbStep(['ready']), { maxLength: 2 }),
        (before, flips, after) => {
          const h = history('ready', [...before, ...flips, ...after]);
          const ds = runAll(h, calm, executorFrom(['Succeeded']));
          const counted = everCounted(ds);
          const firstSeenDown = h.find((s) => s.seen && statusOf[s.kind] !== 'True');
          const expected =
            firstSeenDown === undefined || firstSeenDown.kind === 'shuttingDown' ? 0 : 1;
          expect(counted.size).toBe(expected);
          expect(ds.every((d) => d.actions.length === 0)).toBe(true);
        },
      ),
      runs,
    );
  });

  it('nothing counts while a repair of ours is in flight', () => {
    fc.assert(
      fc.property(arbPolicy, arbHistory, arbOutcomes, (policy, h, outcomes) => {
        const ds = runAll(h, policy, executorFrom(outcomes));
        for (const { d, prev } of withPrevious(ds)) {
          if (prev === undefined) continue;
          const inFlight =
            isInFlight(prev.phase) || (prev.remediation !== undefined && prev.phase !== 'Failed');
          if (!inFlight) continue;
          const added = (d.nextState?.episodes ?? []).filter((t) => !prev.episodes.includes(t));
          expect(added).toEqual([]);
        }
      }),
      runs,
    );
  });

  it('a node that is shutting down never adds an episode', () => {
    fc.assert(
      fc.property(arbPolicy, arbHistory, arbOutcomes, (policy, h, outcomes) => {
        const ds = runAll(h, policy, executorFrom(outcomes));
        for (const { d, prev } of withPrevious(ds)) {
          if (d.cause.kind !== 'ShuttingDown') continue;
          const before = prev?.episodes ?? [];
          expect((d.nextState?.episodes ?? []).filter((t) => !before.includes(t))).toEqual([]);
        }
      }),
      runs,
    );
  });

  it('a verified successful repair clears the memory (the last repair is remembered)', () => {
    fc.assert(
      fc.property(arbPolicy, arbHistory, arbOutcomes, (policy, h, outcomes) => {
        const ds = runAll(h, policy, executorFrom(outcomes));
        for (const d of ds) {
          const last = d.nextState?.lastRemediation;
          if (last?.result !== 'Succeeded' || last.endedAt !== d.at) continue;
          expect(d.nextState?.episodes).toEqual([]);
        }
      }),
      runs,
    );
  });

  it('a continuous not-Ready period is repaired exactly its timeout after it began, however Ready flips', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(arbStep(['ready']), { maxLength: 3 }),
        fc.array(arbStep(notReadyKinds.filter((k) => k !== 'shuttingDown')), {
          minLength: 1,
          maxLength: 20,
        }),
        fc.option(arbStep(['ready']), { nil: undefined }),
        (timeoutMin, before, flips, back) => {
          const policy = mustPolicy({
            unhealthyConditions: [
              { type: 'Ready', status: 'False', timeout: timeoutMin * 60 },
              { type: 'Ready', status: 'Unknown', timeout: timeoutMin * 60 },
            ],
            flap: { episodes: 100 },
          });
          const seenAll = (s: { gapS: number; kind: ReadyText }) => ({ ...s, seen: true });
          const h = history('ready', [...before, ...flips, ...(back ? [back] : [])].map(seenAll));
          const start = h[before.length + 1]!.at;
          const end = back !== undefined ? h[h.length - 1]!.at : Number.POSITIVE_INFINITY;
          const ds = runAll(h, policy, executorFrom(['Succeeded']));
          const repair = ds.find((d) => d.actions.some((a) => a.type === 'Remediate'));
          const deadline = start + timeoutMin * MIN + 1;
          expect(repair?.at).toBe(end > deadline ? deadline : undefined);
        },
      ),
      runs,
    );
  });
});
