// A node that shut down on purpose: waited for for ever by default; with
// shutdown.poweredOff: FailAfter it is failed once down that long, on the provider's power
// state, and its repair then skips SoftReboot when the machine is off.
import fc from 'fast-check';
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import type { PowerState } from '../provider/port.js';
import { buildNode, type ReadyText } from './builders.js';
import { decideRepair, recordOutcome, type RepairDecision } from './decide.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import { needsPowerState } from './power-check.js';
import { judgeShutdown } from './shutdown.js';
import type { RepairState } from './state.js';

const MIN = 60_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');

function policy(input: unknown = {}): RepairPolicy {
  const p = resolveRepairPolicy(input);
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}
const failAfter2h = () => policy({ shutdown: { poweredOff: 'FailAfter', failAfter: '2h' } });

const offByStop: PowerState = {
  kind: 'Off',
  byRequest: true,
  evidence: 'Nova: server s-1 is SHUTOFF (last action stop)',
};

interface Step {
  at: number;
  ready: ReadyText;
  since: number;
  power?: PowerState;
}

/** Whether the controller asks the provider, for the Unknown node `a` at minute `at`. */
function asks(p: RepairPolicy, state: RepairState | undefined, at: number): boolean {
  const node = buildNode({
    name: 'a',
    ready: 'unknown',
    since: T0 + 45 * MIN,
    heartbeat: T0 + 45 * MIN,
    created: T0 - 24 * 60 * MIN,
  });
  return needsPowerState({ nodeName: 'a', node }, state, p, T0 + at * MIN);
}

/** Decides each snapshot in turn, as the controller does; a Remediate succeeds at once. */
function follow(p: RepairPolicy, steps: Step[]): RepairDecision[] {
  let state: RepairState | undefined;
  return steps.map((s) => {
    const at = T0 + s.at * MIN;
    const node = buildNode({
      name: 'a',
      ready: s.ready,
      since: T0 + s.since * MIN,
      heartbeat: at,
      created: T0 - 24 * 60 * MIN,
    });
    const d = decideRepair(
      { nodeName: 'a', node, ...(s.power ? { power: s.power } : {}) },
      state,
      p,
      at,
    );
    state = d.nextState;
    for (const a of d.actions)
      if (a.type === 'Remediate' && state !== undefined)
        state = recordOutcome(state, { actionId: a.actionId, result: 'Succeeded', at });
    return d;
  });
}

const shutDownAt40: Step[] = [
  { at: 0, ready: 'ready', since: 0 },
  { at: 40, ready: 'shuttingDown', since: 40 },
  { at: 45, ready: 'unknown', since: 45 },
];

describe('policy shutdown', () => {
  it('defaults to waiting for ever', () => {
    expect(policy().shutdown).toEqual({ poweredOff: 'Wait' });
  });

  it('FailAfter needs failAfter (above 0); failAfter without FailAfter is an error', () => {
    expect(failAfter2h().shutdown).toEqual({ poweredOff: 'FailAfter', failAfterMs: 120 * MIN });
    const bad = (input: unknown) => {
      const r = resolveRepairPolicy(input);
      return either.isLeft(r) ? r.left : 'accepted';
    };
    expect(bad({ shutdown: { poweredOff: 'FailAfter' } })).toMatch(/shutdown\.failAfter: .*needs/);
    expect(bad({ shutdown: { poweredOff: 'FailAfter', failAfter: 0 } })).toMatch(/above 0/);
    expect(bad({ shutdown: { failAfter: '2h' } })).toMatch(/shutdown\.failAfter: only used with/);
    expect(bad({ shutdown: { poweredOff: 'Never' } })).toMatch(/shutdown\.poweredOff/);
    expect(bad({ shutdown: { poweredOf: 'Wait' } })).toMatch(
      /shutdown\.poweredOf: unknown field "poweredOf"/,
    );
  });
});

describe('judgeShutdown', () => {
  const fa = { poweredOff: 'FailAfter', failAfterMs: 120 * MIN } as const;

  it('before the deadline waits and says when it will fail', () => {
    const v = judgeShutdown(T0, offByStop, fa, T0 + 120 * MIN);
    expect(v).toMatchObject({ kind: 'Wait', requeueAfterMs: 1 });
    expect(v.detail).toMatch(/treated as failed \(policy shutdown.poweredOff: FailAfter 2h\)/);
  });

  it('past it: Off or Gone fails as powered off, On fails as not powered off', () => {
    const at = T0 + 121 * MIN;
    expect(judgeShutdown(T0, offByStop, fa, at)).toMatchObject({
      kind: 'Failed',
      poweredOff: true,
      since: T0,
    });
    expect(judgeShutdown(T0, { kind: 'Gone', evidence: '404' }, fa, at)).toMatchObject({
      kind: 'Failed',
      poweredOff: true,
    });
    expect(judgeShutdown(T0, { kind: 'On' }, fa, at)).toMatchObject({
      kind: 'Failed',
      poweredOff: false,
    });
  });

  it('the clock runs from the last power-off when the provider knows a later one', () => {
    const v = judgeShutdown(T0, { ...offByStop, since: T0 + 60 * MIN }, fa, T0 + 121 * MIN);
    expect(v).toMatchObject({ kind: 'Wait', requeueAfterMs: 59 * MIN + 1 });
  });

  it('an outage of the provider or a provider that cannot tell is waiting, never a verdict', () => {
    const at = T0 + 500 * MIN;
    expect(judgeShutdown(T0, { kind: 'Unavailable', reason: 'Nova 503' }, fa, at).kind).toBe(
      'Wait',
    );
    expect(judgeShutdown(T0, undefined, fa, at).kind).toBe('Wait');
  });

  it('property: Wait never fails; FailAfter never fails before its deadline or without an answer', () => {
    const power = fc.constantFrom<PowerState | undefined>(
      undefined,
      { kind: 'On' },
      offByStop,
      { kind: 'Off', byRequest: false, evidence: 'x' },
      { kind: 'Gone', evidence: 'x' },
      { kind: 'Unavailable', reason: 'x' },
    );
    fc.assert(
      fc.property(
        power,
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 1, max: 1_000 }),
        (pw, afterMin, failMin) => {
          const now = T0 + afterMin * MIN;
          expect(judgeShutdown(T0, pw, { poweredOff: 'Wait' }, now).kind).toBe('Wait');
          const v = judgeShutdown(
            T0,
            pw,
            { poweredOff: 'FailAfter', failAfterMs: failMin * MIN },
            now,
          );
          if (v.kind === 'Failed') {
            expect(afterMin).toBeGreaterThan(failMin);
            expect(pw === undefined || pw.kind === 'Unavailable').toBe(false);
          }
        },
      ),
    );
  });
});

describe('a shut-down node in the state machine', () => {
  it('Wait (default): waits through days, even with the power state given, and never asks', () => {
    const ds = follow(policy(), [
      ...shutDownAt40,
      { at: 600, ready: 'unknown', since: 45, power: offByStop },
      { at: 5000, ready: 'unknown', since: 45, power: offByStop },
    ]);
    expect(ds.slice(1).map((d) => d.phase)).toEqual(['Waiting', 'Waiting', 'Waiting', 'Waiting']);
    expect(ds.flatMap((d) => d.actions)).toEqual([]);
    expect(ds[4]!.reason).toMatch(/waiting for ever .*shutdown.poweredOff: Wait/);
    expect(asks(policy(), ds[4]!.nextState, 5000)).toBe(false);
  });

  it('FailAfter: waits until the deadline, then repairs a powered-off machine from HardReboot', () => {
    const p = failAfter2h();
    const ds = follow(p, [
      ...shutDownAt40,
      { at: 100, ready: 'unknown', since: 45 },
      // Past 40 + 120 min: without the provider's answer it still waits ...
      { at: 161, ready: 'unknown', since: 45 },
      // ... with it, the node is failed.
      { at: 162, ready: 'unknown', since: 45, power: offByStop },
    ]);
    expect(ds.slice(1, 5).map((d) => d.phase)).toEqual([
      'Waiting',
      'Waiting',
      'Waiting',
      'Waiting',
    ]);
    // Looked at again just past the deadline, not only at the recheck pace.
    expect(ds[3]!.requeueAfterMs).toBe(30_000);
    expect(ds[2]!.reason).toMatch(/treated as failed .*FailAfter 2h/);
    expect(asks(p, ds[4]!.nextState, 162)).toBe(true);
    const failed = ds[5]!;
    expect(failed.cause.kind).toBe('ShutDownTooLong');
    expect(failed.phase).toBe('Remediating');
    const remediate = failed.actions.find((a) => a.type === 'Remediate');
    expect(remediate).toMatchObject({ action: 'HardReboot', step: 1 });
    expect(failed.reason).toMatch(/SoftReboot .* is skipped/);
  });

  it('FailAfter with the machine powered on again: the normal ladder from SoftReboot', () => {
    const ds = follow(failAfter2h(), [
      ...shutDownAt40,
      { at: 170, ready: 'unknown', since: 45, power: { kind: 'On' } },
    ]);
    expect(ds[3]!.actions.find((a) => a.type === 'Remediate')).toMatchObject({
      action: 'SoftReboot',
      step: 0,
    });
  });

  it('the repair that started is not paused by the shutdown it repairs', () => {
    const ds = follow(failAfter2h(), [
      ...shutDownAt40,
      { at: 170, ready: 'unknown', since: 45, power: offByStop },
      // HardReboot's timeout (15 m) runs out: its second attempt, not a pause.
      { at: 186, ready: 'unknown', since: 45 },
    ]);
    // While it runs, the provider is not asked about power any more.
    expect(asks(failAfter2h(), ds[3]!.nextState, 186)).toBe(false);
    expect(ds[4]!.phase).toBe('Remediating');
    expect(ds[4]!.actions.find((a) => a.type === 'Remediate')).toMatchObject({
      action: 'HardReboot',
      attempt: 2,
    });
  });
});
