// The flap memory's rules, case by case: what an episode is, what never counts, and where the
// unhealthy-condition timeout runs from when Ready flips between Unknown and False.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode, type ReadyText } from './builders.js';
import { decideRepair, recordOutcome, type RepairDecision } from './decide.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import {
  initialRepairState,
  parseRepairState,
  serializeRepairState,
  type RepairState,
} from './state.js';

const S = 1000;
const MIN = 60 * S;
const T0 = Date.parse('2026-01-01T00:00:00Z');

function policy(input: unknown = {}): RepairPolicy {
  const p = resolveRepairPolicy(input);
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

interface Step {
  /** Minutes after T0. */
  at: number;
  ready: ReadyText;
  /** Ready's lastTransitionTime, minutes after T0. */
  since: number;
  /** creationTimestamp, minutes after T0 (default: a day before). */
  created?: number;
}

/**
 * Decides each snapshot in turn as the controller does, the next state feeding the next
 * decision; a Remediate action succeeds at once (its outcome recorded).
 */
function follow(p: RepairPolicy, steps: Step[], initial?: RepairState): RepairDecision[] {
  let state = initial;
  return steps.map((s) => {
    const at = T0 + s.at * MIN;
    const node = buildNode({
      name: 'a',
      ready: s.ready,
      since: T0 + s.since * MIN,
      heartbeat: at,
      created: T0 + (s.created ?? -24 * 60) * MIN,
    });
    const d = decideRepair({ nodeName: 'a', node }, state, p, at);
    state = d.nextState;
    for (const a of d.actions)
      if (a.type === 'Remediate' && state !== undefined)
        state = recordOutcome(state, { actionId: a.actionId, result: 'Succeeded', at });
    return d;
  });
}

const last = (ds: RepairDecision[]) => ds[ds.length - 1]!;
const episodesOf = (d: RepairDecision) => (d.nextState?.episodes ?? []).map((t) => (t - T0) / MIN);

describe('an episode is a Ready -> not-Ready transition', () => {
  it('Unknown -> False -> Unknown without Ready in between is one episode', () => {
    const ds = follow(policy(), [
      { at: 0, ready: 'ready', since: 0 },
      { at: 60, ready: 'unknown', since: 60 },
      { at: 64, ready: 'runtimeDown', since: 64 },
      { at: 67, ready: 'unknown', since: 67 },
    ]);
    expect(ds.map(episodesOf)).toEqual([[], [60], [60], [60]]);
    expect(last(ds).nextState?.notReady).toEqual({ since: T0 + 60 * MIN });
    expect(last(ds).signal).toBe('suspect');
  });

  it('each Ready -> not-Ready transition the controller sees is one more episode', () => {
    const ds = follow(policy(), [
      { at: 0, ready: 'ready', since: 0 },
      { at: 10, ready: 'unknown', since: 10 },
      { at: 12, ready: 'ready', since: 12 },
      { at: 20, ready: 'plegUnhealthy', since: 20 },
      { at: 21, ready: 'ready', since: 21 },
      { at: 30, ready: 'unknown', since: 30 },
    ]);
    expect(episodesOf(last(ds))).toEqual([10, 20, 30]);
    expect(last(ds).reason).toMatch(/flapping: 3 NotReady episodes within 1h/);
  });

  it('episodes older than the window are forgotten', () => {
    const ds = follow(policy({ flap: { window: '30m' } }), [
      { at: 0, ready: 'ready', since: 0 },
      { at: 10, ready: 'unknown', since: 10 },
      { at: 12, ready: 'ready', since: 12 },
      { at: 50, ready: 'unknown', since: 50 },
    ]);
    expect(episodesOf(last(ds))).toEqual([50]);
  });
});

describe('what never counts', () => {
  it('our own reboot: not-Ready while a repair is in flight is no episode, and the verified repair clears the memory', () => {
    const p = policy();
    const ds = follow(p, [
      { at: 0, ready: 'ready', since: 0 },
      { at: 10, ready: 'unknown', since: 10 },
      { at: 12, ready: 'ready', since: 12 },
      { at: 30, ready: 'runtimeDown', since: 30 },
      // 40:00.001 the repair starts; the node goes down for the reboot, then comes back.
      { at: 40.001 / 1, ready: 'runtimeDown', since: 30 },
      { at: 41, ready: 'unknown', since: 41 },
      { at: 42, ready: 'networkNotReady', since: 42 },
      { at: 43, ready: 'ready', since: 43 },
      { at: 48, ready: 'ready', since: 43 },
    ]);
    expect(ds[4]!.actions.map((a) => a.type)).toEqual(['Cordon', 'Drain', 'Remediate']);
    // The reboot's not-Ready period is no episode, however it flips.
    expect(ds[5]!.nextState?.notReady).toEqual({ since: T0 + 30 * MIN });
    expect(episodesOf(ds[6]!)).toEqual([10, 30]);
    // Healthy again for 5 minutes: repaired; the memory is empty, the last repair remembered.
    expect(last(ds).phase).toBe('Healthy');
    expect(last(ds).nextState?.episodes).toEqual([]);
    expect(last(ds).nextState?.lastRemediation).toMatchObject({ result: 'Succeeded', step: 0 });
  });

  it('a not-Ready period that begins during our repair is marked Repair, not counted', () => {
    const p = policy();
    const ds = follow(p, [
      { at: 0, ready: 'ready', since: 0 },
      { at: 10, ready: 'runtimeDown', since: 10 },
      { at: 20.001, ready: 'runtimeDown', since: 10 },
      { at: 21, ready: 'ready', since: 21 }, // Verifying
      { at: 22, ready: 'unknown', since: 22 }, // down again while we verify
    ]);
    expect(ds[3]!.phase).toBe('Verifying');
    expect(last(ds).nextState?.notReady).toEqual({ since: T0 + 22 * MIN, uncounted: 'Repair' });
    expect(episodesOf(last(ds))).toEqual([10]);
  });

  it('a planned shutdown is no episode: two blips and a shutdown are not flapping', () => {
    const ds = follow(policy(), [
      { at: 0, ready: 'ready', since: 0 },
      { at: 10, ready: 'unknown', since: 10 },
      { at: 12, ready: 'ready', since: 12 },
      { at: 20, ready: 'unknown', since: 20 },
      { at: 22, ready: 'ready', since: 22 },
      { at: 40, ready: 'shuttingDown', since: 40 },
      { at: 41, ready: 'unknown', since: 41 },
    ]);
    expect(ds[5]!.phase).toBe('Waiting');
    expect(last(ds).nextState?.notReady).toEqual({ since: T0 + 40 * MIN, uncounted: 'Shutdown' });
    expect(episodesOf(last(ds))).toEqual([10, 20]);
    expect(last(ds).actions).toEqual([]);
  });

  it('with K episodes already in the window, a shutdown still does not trigger the flap rule', () => {
    // Three episodes remembered (the third's repair was, say, held by the storm guard until
    // the node was Ready again).
    const flapped: RepairState = {
      ...initialRepairState(T0),
      episodes: [10, 20, 30].map((m) => T0 + m * MIN),
    };
    const ds = follow(
      policy(),
      [
        { at: 35, ready: 'ready', since: 31 },
        { at: 40, ready: 'shuttingDown', since: 40 },
        { at: 41, ready: 'unknown', since: 41 },
      ],
      flapped,
    );
    expect(episodesOf(ds[1]!)).toEqual([10, 20, 30]);
    // Powered off after a shutdown: no flapping repair (which would power it on); it waits.
    expect(last(ds).signal).toBe('waiting');
    expect(last(ds).actions).toEqual([]);
  });

  it('start-up: the not-Ready status a node registered with, or no status at all, is no episode', () => {
    const registered = follow(policy(), [
      { at: 0, ready: 'networkNotReady', since: 0, created: 0 },
      { at: 1, ready: 'ready', since: 1, created: 0 },
    ]);
    expect(registered[0]!.nextState?.notReady).toEqual({ since: T0, uncounted: 'Startup' });
    expect(episodesOf(registered[0]!)).toEqual([]);
    expect(registered[1]!.nextState?.notReady).toBeUndefined();

    const neverPosted = follow(policy(), [
      { at: 0, ready: 'neverUpdated', since: 0.5, created: 0 },
      { at: 2, ready: 'runtimeDown', since: 2, created: 0 },
    ]);
    expect(neverPosted.map((d) => d.nextState?.notReady?.uncounted)).toEqual([
      'Startup',
      'Startup',
    ]);
    expect(episodesOf(last(neverPosted))).toEqual([]);
  });

  it('no record of a node that is not Ready after its start-up: counted as one episode (undecidable; documented)', () => {
    const ds = follow(policy(), [{ at: 60, ready: 'unknown', since: 59, created: 0 }]);
    expect(episodesOf(ds[0]!)).toEqual([59]);
  });

  it('a state written before this rule (no notReady) does not count the same start twice', () => {
    const old: RepairState = {
      ...initialRepairState(T0),
      phase: 'Suspect',
      episodes: [T0 + 10 * MIN],
    };
    const ds = follow(policy(), [{ at: 12, ready: 'unknown', since: 10 }], old);
    expect(episodesOf(ds[0]!)).toEqual([10]);
  });

  it('the period survives the annotation round trip (a restarted controller continues it)', () => {
    const ds = follow(policy(), [
      { at: 0, ready: 'ready', since: 0 },
      { at: 40, ready: 'shuttingDown', since: 40 },
    ]);
    const state = ds[1]!.nextState!;
    expect(parseRepairState(serializeRepairState(state))).toEqual(either.right(state));
    expect(JSON.parse(serializeRepairState(state))).toMatchObject({
      notReady: { since: '2026-01-01T00:40:00.000Z', uncounted: 'Shutdown' },
    });
  });
});

describe('the unhealthy-condition timeout when Ready flips between Unknown and False', () => {
  it('default policy: the clock runs from the start of the episode; Unknown 9 min -> False does not restart it', () => {
    const ds = follow(policy(), [
      { at: 0, ready: 'ready', since: 0 },
      { at: 60, ready: 'unknown', since: 60 },
      { at: 69, ready: 'runtimeDown', since: 69 },
      { at: 70, ready: 'runtimeDown', since: 69 },
      { at: 70 + 0.001 / 60, ready: 'runtimeDown', since: 69 },
    ]);
    // 69: suspect, looking again just past 70:00 (10 min after 60:00), not after 79:00.
    expect(ds[2]!.signal).toBe('suspect');
    expect(ds[2]!.requeueAfterMs).toBe(MIN + 1);
    expect(ds[2]!.reason).toBe(
      'not Ready since 2026-01-01T01:00:00.000Z (Ready=False since 2026-01-01T01:09:00.000Z), timeout 10m',
    );
    // Exactly at the deadline: not yet (strictly after, as Cluster API); 1 ms later: repair.
    expect(ds[3]!.signal).toBe('suspect');
    expect(last(ds).actions.map((a) => a.type)).toEqual(['Cordon', 'Drain', 'Remediate']);
    expect(last(ds).reason).toMatch(
      /not Ready for more than 10m \(Ready=False since 2026-01-01T01:09:00.000Z\)/,
    );
  });

  it('the timeout of the status Ready shows now applies, counted from the start of the episode', () => {
    const p = policy({
      unhealthyConditions: [
        { type: 'Ready', status: 'Unknown', timeout: '10m' },
        { type: 'Ready', status: 'False', timeout: '5m' },
      ],
    });
    const ds = follow(p, [
      { at: 0, ready: 'ready', since: 0 },
      { at: 60, ready: 'unknown', since: 60 },
      { at: 67, ready: 'runtimeDown', since: 67 },
    ]);
    expect(ds[1]!.requeueAfterMs).toBe(10 * MIN + 1);
    // Not Ready for 7 min, False now (timeout 5m): past it.
    expect(last(ds).actions.map((a) => a.type)).toEqual(['Cordon', 'Drain', 'Remediate']);
  });

  it('a node that shut down is waited for until it reports Ready again, however long it stays off', () => {
    const ds = follow(policy(), [
      { at: 0, ready: 'ready', since: 0 },
      { at: 40, ready: 'shuttingDown', since: 40 },
      { at: 45, ready: 'unknown', since: 45 },
      { at: 51, ready: 'unknown', since: 45 },
      { at: 600, ready: 'unknown', since: 45 },
      { at: 601, ready: 'ready', since: 601 },
      { at: 700, ready: 'unknown', since: 700 },
    ]);
    expect(ds.slice(1, 5).map((d) => d.phase)).toEqual([
      'Waiting',
      'Waiting',
      'Waiting',
      'Waiting',
    ]);
    expect(ds.slice(1, 5).flatMap((d) => d.actions)).toEqual([]);
    expect(ds[4]!.reason).toMatch(/never powering it on/);
    // Back: a later outage without a shutdown is judged as usual.
    expect(ds[5]!.phase).toBe('Healthy');
    expect(ds[6]!.signal).toBe('suspect');
  });

  it('another condition type keeps its own lastTransitionTime', () => {
    const p = policy({
      unhealthyConditions: [{ type: 'KernelDeadlock', status: 'True', timeout: '5m' }],
    });
    const at = T0 + 64 * MIN;
    const node = buildNode({
      name: 'a',
      ready: 'unknown',
      since: T0 + 60 * MIN,
      heartbeat: at,
      extraConditions: [
        {
          type: 'KernelDeadlock',
          status: 'True',
          lastTransitionTime: new Date(T0 + 62 * MIN).toISOString(),
        },
      ],
    });
    const d = decideRepair({ nodeName: 'a', node }, undefined, p, at);
    expect(d.requeueAfterMs).toBe(3 * MIN + 1);
  });
});
