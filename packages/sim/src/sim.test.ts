// The simulator's acceptance: fixed seeds through the real controller pass every invariant;
// a run is a function of its seed; the faults really happen in those runs; and deliberately
// broken providers are caught by the invariant meant for them.
import { describe, expect, it } from 'vitest';
import { formatEntry } from './history.js';
import {
  checkAll,
  maxInFlight,
  neverPowerOnStopped,
  noDoubleAction,
  outageNeverCounts,
} from './invariants.js';
import { blindToPersonStop, outageAsRejection, replayUnderNewId } from './mutants.js';
import { report } from './report.js';
import { runSim, type RunResult } from './run.js';

const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
const shape = { nodes: 30, minutes: 120 };

const runs = new Map<number, Promise<RunResult>>();
const run = (seed: number) => {
  if (!runs.has(seed)) runs.set(seed, runSim({ seed, ...shape }));
  return runs.get(seed)!;
};

describe('simulator: 20 seeds, 30 nodes, 2 virtual hours', () => {
  it.each(SEEDS)('seed %i passes every invariant', async (seed) => {
    const r = await run(seed);
    const v = checkAll(r.history.entries, r.policy);
    expect(v, report(r, v, false)).toEqual([]);
  });

  it('the faults happen: lost replies are replayed, outages refuse calls, persons stop machines', async () => {
    const all = (await Promise.all(SEEDS.map(run))).flatMap((r) => r.history.entries);
    const calls = all.filter((e) => e.kind === 'call');
    expect(calls.filter((c) => c.answer === 'Threw').length).toBeGreaterThan(0);
    expect(calls.filter((c) => c.answer === 'Unavailable').length).toBeGreaterThan(0);
    expect(calls.filter((c) => c.replay).length).toBeGreaterThan(0);
    expect(all.filter((e) => e.kind === 'executed' && e.by === 'person').length).toBeGreaterThan(0);
    expect(
      all.filter((e) => e.kind === 'executed' && e.action === 'HardReboot' && e.by === 'controller')
        .length,
    ).toBeGreaterThan(0);
    expect(all.filter((e) => e.kind === 'error').length).toBeGreaterThan(0);
  });

  it('a run is a function of its seed: the same seed prints the same history', async () => {
    const a = await runSim({ seed: 7, ...shape });
    const b = await runSim({ seed: 7, ...shape });
    const text = (r: RunResult) => r.history.entries.map(formatEntry).join('\n');
    expect(text(b)).toBe(text(a));
    expect(text(await runSim({ seed: 8, ...shape }))).not.toBe(text(a));
  });
});

describe('mutants: the invariants can fail', () => {
  it('(a) catches a provider that replays a lost request under a new id', async () => {
    const caught: number[] = [];
    for (const seed of SEEDS) {
      const r = await runSim({ seed, ...shape, wrapProvider: replayUnderNewId });
      if (noDoubleAction(r.history.entries).length > 0) caught.push(seed);
    }
    expect(caught.length).toBeGreaterThan(0);
  });

  it('(b) catches a provider that reports an outage as a rejection', async () => {
    const caught: number[] = [];
    for (const seed of SEEDS) {
      const r = await runSim({ seed, ...shape, wrapProvider: outageAsRejection });
      if (outageNeverCounts(r.history.entries).length > 0) caught.push(seed);
    }
    expect(caught.length).toBeGreaterThan(0);
  });

  it('(c) catches a provider blind to a person stopping the machine', async () => {
    const caught: number[] = [];
    for (const seed of SEEDS) {
      const r = await runSim({ seed, ...shape, wrapProvider: blindToPersonStop });
      if (neverPowerOnStopped(r.history.entries).length > 0) caught.push(seed);
    }
    expect(caught.length).toBeGreaterThan(0);
  });

  it('(d) catches a policy bound tighter than the one the controller ran with', async () => {
    const r = await run(1);
    const tighter = { ...r.policy, stormGuard: { ...r.policy.stormGuard, maxInFlight: 0 } };
    expect(maxInFlight(r.history.entries, tighter).length).toBeGreaterThan(0);
  });
});
