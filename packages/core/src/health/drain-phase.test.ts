// The drain phase's decisions (pure): the state machine asks for one drain pass per
// reconcile and sends the action only after the drain's end is recorded.
import { describe, expect, it } from 'vitest';
import { buildNode } from './builders.js';
import { decideRepair, recordDrain } from './decide.js';
import { providerUnavailableWaitMs } from './drain-phase.js';
import { decideFleet } from './fleet.js';
import { defaultRepairPolicy, type RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';

const MIN = 60_000;
const node = buildNode({ name: 'a', ready: 'unknown', since: 0 });
const obs = { nodeName: 'a', node };
const p = defaultRepairPolicy;
const START = 11 * MIN;

function started(policy: RepairPolicy = p) {
  return decideRepair(obs, undefined, policy, START);
}

describe('drain phase decisions', () => {
  it('a repair starts with its drain recorded, a drain pass, then the action as a first send', () => {
    const d = started();
    expect(d.nextState?.remediation?.drain).toEqual({ startedAt: START });
    expect(d.actions.map((a) => a.type)).toEqual(['Cordon', 'Drain', 'Remediate']);
    expect(d.actions[1]).toMatchObject({
      type: 'Drain',
      remediationId: d.nextState!.remediation!.id,
      startedAt: START,
      unreachable: true,
      timeoutMs: p.drain.timeoutMs,
    });
    expect(d.actions[2]).toMatchObject({ type: 'Remediate', replay: false });
  });

  it('while draining each decision asks for another pass from the recorded start, and changes nothing', () => {
    const d = started();
    const later = decideRepair(obs, d.nextState, p, START + 3 * MIN);
    expect(later.nextState).toEqual(d.nextState);
    expect(later.actions.map((a) => a.type)).toEqual(['Drain', 'Remediate']);
    expect(later.actions[0]).toMatchObject({ startedAt: START });
    expect(later.actions[1]).toMatchObject({ replay: false });
    // The backstop requeue is the drain timeout (the shell's pass interval is shorter).
    expect(later.requeueAfterMs).toBe(p.drain.timeoutMs - 3 * MIN);
    expect(later.reason).toMatch(/draining since/);
  });

  it('a pass reports the last accepted eviction; the next pass carries it', () => {
    const d = started();
    const id = d.nextState!.remediation!.id;
    const st = recordDrain(d.nextState!, { remediationId: id, lastEvictedAt: START + MIN });
    expect(st.remediation?.drain).toEqual({ startedAt: START, lastEvictedAt: START + MIN });
    const next = decideRepair(obs, st, p, START + 2 * MIN);
    expect(next.actions[0]).toMatchObject({ type: 'Drain', lastEvictedAt: START + MIN });
    // Nothing new, another remediation, or an ended drain: the very same state (no write).
    expect(recordDrain(st, { remediationId: id, lastEvictedAt: START + MIN })).toBe(st);
    expect(recordDrain(st, { remediationId: 'other/1', lastEvictedAt: START + 2 * MIN })).toBe(st);
    const ended = recordDrain(st, {
      remediationId: id,
      ended: { at: START + 5 * MIN, outcome: 'TimedOut' },
    });
    expect(ended.remediation?.drain).toEqual({
      startedAt: START,
      lastEvictedAt: START + MIN,
      endedAt: START + 5 * MIN,
      outcome: 'TimedOut',
    });
    expect(recordDrain(ended, { remediationId: id, ended: { at: 0, outcome: 'Drained' } })).toBe(
      ended,
    );
  });

  it('once the end is recorded and the outcome is not, the action is re-issued as a replay, without another drain', () => {
    const d = started();
    const ended = recordDrain(d.nextState!, {
      remediationId: d.nextState!.remediation!.id,
      ended: { at: START + MIN, outcome: 'Drained' },
    });
    const r = decideRepair(obs, ended, p, START + 2 * MIN);
    expect(r.actions).toEqual([expect.objectContaining({ type: 'Remediate', replay: true })]);
  });

  it('an outage is waited out from the persisted state: no re-issue (and no write) before 5 s after the last send, doubling', () => {
    const d = started();
    const ended = recordDrain(d.nextState!, {
      remediationId: d.nextState!.remediation!.id,
      ended: { at: START + MIN, outcome: 'Drained' },
    });
    // Sent at the drain's end and unanswered (Unavailable records nothing): woken early.
    const early = decideRepair(obs, ended, p, START + MIN + 1000);
    expect(early.actions).toEqual([]);
    expect(early.nextState).toEqual(ended);
    expect(early.requeueAfterMs).toBe(4000);
    expect(early.reason).toMatch(/re-issued with the same id at/);
    // Due: re-issued once, the re-issue's time persisted with it.
    const at5 = START + MIN + providerUnavailableWaitMs(0);
    const r1 = decideRepair(obs, ended, p, at5);
    expect(r1.actions).toEqual([expect.objectContaining({ type: 'Remediate', replays: 1 })]);
    expect(r1.nextState?.remediation?.intent).toMatchObject({ replays: 1, replayedAt: at5 });
    // Unanswered again: the next one waits 10 s from that re-issue.
    expect(providerUnavailableWaitMs(1)).toBe(10_000);
    const w = decideRepair(obs, r1.nextState, p, at5 + 9999);
    expect(w.actions).toEqual([]);
    expect(w.nextState).toEqual(r1.nextState);
    const r2 = decideRepair(obs, r1.nextState, p, at5 + 10_000);
    expect(r2.actions).toEqual([expect.objectContaining({ type: 'Remediate', replays: 2 })]);
    // Capped at 5 min.
    expect(providerUnavailableWaitMs(20)).toBe(5 * MIN);
  });

  it('a state from before drain phases (cordoned, intent open) drains as a phase before the replay', () => {
    const d = started();
    const { drain: _d, ...remNoDrain } = d.nextState!.remediation!;
    const legacy: RepairState = { ...d.nextState!, remediation: remNoDrain };
    const r = decideRepair(obs, legacy, p, START + 2 * MIN);
    expect(r.nextState?.remediation?.drain).toEqual({ startedAt: START + 2 * MIN });
    expect(r.actions.map((a) => a.type)).toEqual(['Drain', 'Remediate']);
    expect(r.actions[1]).toMatchObject({ replay: true });
    // Still draining later: the re-issue stays a replay (it may have been sent before).
    const again = decideRepair(obs, r.nextState, p, START + 3 * MIN);
    expect(again.actions.map((a) => a.type)).toEqual(['Drain', 'Remediate']);
    expect(again.actions[1]).toMatchObject({ replay: true });
  });

  it('no drain phase without draining: drain disabled, or a dry run', () => {
    const off = started({ ...p, drain: { ...p.drain, enabled: false } });
    expect(off.nextState?.remediation?.drain).toBeUndefined();
    expect(off.actions.map((a) => a.type)).toEqual(['Cordon', 'Remediate']);
    const dry = started({ ...p, dryRun: true });
    expect(dry.nextState?.remediation?.drain).toBeUndefined();
    expect(dry.actions.map((a) => a.type)).toEqual(['Cordon', 'Drain', 'Remediate']);
  });

  it('the storm guard counts a node in its drain phase as a repair in flight, even once Ready', () => {
    const draining = started().nextState!;
    expect(draining.phase).toBe('Remediating');
    const policy: RepairPolicy = {
      ...p,
      stormGuard: { ...p.stormGuard, maxInFlight: 1, minUnhealthyAllowed: 2 },
    };
    const at = START + MIN;
    // Two unhealthy of two stay within the fleet limit here: only maxInFlight can hold `b`.
    // `a` is Ready again mid-drain; `b` has been NotReady past its timeout and wants to start.
    const fleet = decideFleet(
      [
        {
          obs: { nodeName: 'a', node: buildNode({ name: 'a', ready: 'ready', since: START }) },
          state: draining,
        },
        {
          obs: { nodeName: 'b', node: buildNode({ name: 'b', ready: 'unknown', since: 1 }) },
          state: undefined,
        },
      ],
      policy,
      at,
    );
    expect(fleet.storm.inFlight).toBe(1);
    expect(fleet.storm.unhealthy).toBe(2);
    expect(fleet.storm.verdicts.get('b')).toMatchObject({ admitted: false, scope: 'in-flight' });
    expect(fleet.decisions[0]!.actions.map((x) => x.type)).toEqual(['Drain', 'Remediate']);
  });
});
