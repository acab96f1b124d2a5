// The brakes over time (issue 46): the rate limit (stormGuard.maxStartsPerHour, counted from
// the start times the nodes' persisted states keep) and the latch (stormGuard.latch: held too
// long, then nothing starts until a person resets it). Pure: stormGuard over entries, and
// decideFleet over states as a restarted controller reads them.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode } from './builders.js';
import { decideFleet, type FleetMember } from './fleet.js';
import { defaultRepairPolicy, resolveRepairPolicy, type RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';
import {
  emptyStormMemory,
  RATE_WINDOW_MS,
  stormGuard,
  type StormEntry,
  type StormMemory,
} from './storm-guard.js';

const MIN = 60_000;
const ZONE = 'topology.kubernetes.io/zone';
const NOW = 10 * RATE_WINDOW_MS;

function resolve(input: unknown): RepairPolicy {
  const p = resolveRepairPolicy(input);
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

function healthy(name: string, startedAt?: number[], zone?: string): StormEntry {
  return {
    name,
    signal: 'healthy',
    phase: 'Healthy',
    wantsToStart: false,
    ...(startedAt !== undefined ? { startedAt } : {}),
    ...(zone !== undefined ? { labels: { [ZONE]: zone } } : {}),
  };
}

function wanting(name: string, since = 0, zone?: string): StormEntry {
  return {
    name,
    signal: 'unhealthy',
    phase: 'Unhealthy',
    wantsToStart: true,
    unhealthySince: since,
    ...(zone !== undefined ? { labels: { [ZONE]: zone } } : {}),
  };
}

describe('policy: maxStartsPerHour, minStartsPerHour, latch', () => {
  it('is off by default: the default policy is unchanged', () => {
    const p = resolve({});
    expect(p.stormGuard.maxStartsPerHour).toBeUndefined();
    expect(p.stormGuard.latch).toBeUndefined();
    expect(p).toEqual(defaultRepairPolicy);
  });

  it('reads a count, a percentage with its floor, and the latch time', () => {
    const p = resolve({
      stormGuard: { maxStartsPerHour: '10%', minStartsPerHour: 3, latch: { afterHeldFor: '10m' } },
    });
    expect(p.stormGuard.maxStartsPerHour).toEqual({ percent: 10 });
    expect(p.stormGuard.minStartsPerHour).toBe(3);
    expect(p.stormGuard.latch).toEqual({ afterHeldForMs: 10 * MIN });
    expect(resolve({ stormGuard: { maxStartsPerHour: 3 } }).stormGuard.maxStartsPerHour).toEqual({
      count: 3,
    });
    expect(resolve({ stormGuard: { latch: {} } }).stormGuard.latch).toEqual({
      afterHeldForMs: 30 * MIN,
    });
  });

  it('names the field of a bad value, and of an unknown one', () => {
    const bad = (input: unknown) => {
      const r = resolveRepairPolicy(input);
      return either.isLeft(r) ? r.left : 'resolved';
    };
    expect(bad({ stormGuard: { maxStartsPerHour: -1 } })).toMatch(/stormGuard\.maxStartsPerHour/);
    expect(bad({ stormGuard: { minStartsPerHour: 1.5 } })).toMatch(/stormGuard\.minStartsPerHour/);
    // A floor for a percentage only: with a count, or no rate limit, it would be ignored.
    expect(bad({ stormGuard: { minStartsPerHour: 3 } })).toMatch(
      /stormGuard\.minStartsPerHour: only a floor for a percentage/,
    );
    expect(bad({ stormGuard: { maxStartsPerHour: 5, minStartsPerHour: 3 } })).toMatch(
      /stormGuard\.minStartsPerHour: only a floor for a percentage/,
    );
    expect(bad({ stormGuard: { maxStartsPerHour: '10%', minStartsPerHour: 3 } })).toBe('resolved');
    expect(bad({ stormGuard: { latch: { afterHeldFor: '0s' } } })).toMatch(
      /stormGuard\.latch\.afterHeldFor/,
    );
    expect(bad({ stormGuard: { latch: { after: '10m' } } })).toMatch(/unknown field "after"/);
  });
});

describe('rate limit (maxStartsPerHour)', () => {
  const sg = (extra: Record<string, unknown>) =>
    resolve({ stormGuard: { maxUnhealthy: '100%', maxInFlight: 10, ...extra } }).stormGuard;

  it('holds a start once the starts of the last hour reach the limit, until the oldest is an hour old', () => {
    const entries = [
      healthy('a', [NOW - 50 * MIN]),
      healthy('b', [NOW - 2 * RATE_WINDOW_MS, NOW - 10 * MIN]),
      wanting('c'),
    ];
    const r = stormGuard(entries, sg({ maxStartsPerHour: 2 }), NOW);
    expect(r.verdicts.get('c')).toEqual({
      admitted: false,
      scope: 'rate',
      reason: expect.stringMatching(/^rate limit: 2 repairs started in the last hour/),
      hold: { kind: 'rate', started: 2, limit: 2, until: NOW - 50 * MIN + RATE_WINDOW_MS },
    });
    // Under the limit (the start two hours ago does not count): admitted.
    const r3 = stormGuard(entries, sg({ maxStartsPerHour: 3 }), NOW);
    expect(r3.verdicts.get('c')?.admitted).toBe(true);
  });

  it('counts the starts it admits in the same pass', () => {
    const entries = [healthy('a', [NOW - MIN]), wanting('b', 1), wanting('c', 2), wanting('d', 3)];
    const r = stormGuard(entries, sg({ maxStartsPerHour: 3 }), NOW);
    expect(r.verdicts.get('b')?.admitted).toBe(true);
    expect(r.verdicts.get('c')?.admitted).toBe(true);
    expect(r.verdicts.get('d')).toMatchObject({ admitted: false, scope: 'rate' });
  });

  it('a percentage of the pool, never below minStartsPerHour', () => {
    const pool = Array.from({ length: 40 }, (_, i) => healthy(`n${i}`, i < 3 ? [NOW - MIN] : []));
    // 10 % of 41 is 4: the fourth start goes, the fifth would not.
    const r = stormGuard([...pool, wanting('w')], sg({ maxStartsPerHour: '10%' }), NOW);
    expect(r.verdicts.get('w')?.admitted).toBe(true);
    // 10 % of 11 is 1, floored to minStartsPerHour 3: three starts already, held.
    const small = [...pool.slice(0, 10), wanting('w')];
    const held = stormGuard(small, sg({ maxStartsPerHour: '10%', minStartsPerHour: 3 }), NOW);
    expect(held.verdicts.get('w')).toMatchObject({ scope: 'rate', hold: { limit: 3, started: 3 } });
  });

  it('counts per failure domain when there are failure domains', () => {
    const entries = [
      healthy('a1', [NOW - MIN], 'a'),
      healthy('b1', [], 'b'),
      wanting('a2', 1, 'a'),
      wanting('b2', 2, 'b'),
    ];
    const r = stormGuard(entries, sg({ maxStartsPerHour: 1, failureDomainLabel: ZONE }), NOW);
    expect(r.verdicts.get('a2')).toMatchObject({
      scope: 'rate',
      hold: { domain: `${ZONE}=a`, started: 1 },
    });
    expect(r.verdicts.get('b2')?.admitted).toBe(true);
  });

  it('a node whose state cannot be read makes the count unknown: nothing starts, never zero', () => {
    const entries = [{ ...healthy('x'), startsUnknown: true }, wanting('w')];
    const r = stormGuard(entries, sg({ maxStartsPerHour: 100 }), NOW);
    expect(r.verdicts.get('w')).toMatchObject({
      admitted: false,
      scope: 'rate',
      hold: { kind: 'rate', unknown: 'x' },
    });
    // Without a rate limit it is none of its business.
    expect(stormGuard(entries, sg({}), NOW).verdicts.get('w')?.admitted).toBe(true);
  });

  it('counts from the persisted states: a restarted controller (no memory) holds the same', () => {
    const policy = resolve({
      unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '10s' }],
      stormGuard: { maxUnhealthy: '100%', maxInFlight: 10, maxStartsPerHour: 2 },
    });
    const ended = (id: string, startedAt: number): RepairState => ({
      v: 1,
      phase: 'Healthy',
      since: startedAt + MIN,
      episodes: [],
      history: [
        {
          id,
          cause: { kind: 'NotReady' },
          startedAt,
          endedAt: startedAt + MIN,
          outcome: 'Succeeded',
          steps: [{ action: 'SoftReboot', attempts: 1, result: 'Succeeded' }],
        },
      ],
    });
    const member = (name: string, ready: 'ready' | 'networkNotReady', state?: RepairState) => ({
      obs: { nodeName: name, node: buildNode({ name, ready, since: 0 }) },
      state,
    });
    const members: FleetMember[] = [
      member('a', 'ready', ended('a-1', NOW - 30 * MIN)),
      member('b', 'ready', ended('b-1', NOW - 20 * MIN)),
      member('c', 'networkNotReady'),
      member('d', 'ready'),
    ];
    // Fresh memory, as after a restart: the two starts of the last hour still hold c.
    const fleet = decideFleet(members, policy, NOW, emptyStormMemory);
    const c = fleet.decisions[2];
    expect(c?.held?.scope).toBe('rate');
    expect(c?.actions.some((x) => x.type === 'Cordon')).toBe(false);
    // An hour after a's start, one slot is free.
    const later = decideFleet(members, policy, NOW + 31 * MIN, emptyStormMemory);
    expect(later.decisions[2]?.held).toBeUndefined();
  });

  it('a repair that gave up counts once: its remediation and its history entry are one start', () => {
    const policy = resolve({
      unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '10s' }],
      stormGuard: { maxUnhealthy: '100%', maxInFlight: 10, maxStartsPerHour: 2 },
    });
    const startedAt = NOW - 30 * MIN;
    // As applyAdvance leaves a repair that gave up: phase Failed, the remediation kept (same
    // startedAt) and a history entry with that startedAt.
    const failed: RepairState = {
      v: 1,
      phase: 'Failed',
      since: startedAt + 20 * MIN,
      episodes: [],
      remediation: {
        id: `a/${startedAt}`,
        startedAt,
        cause: 'NotReady',
        step: 0,
        attempt: 1,
        cordoned: true,
      },
      history: [
        {
          id: `a/${startedAt}`,
          cause: { kind: 'NotReady' },
          startedAt,
          endedAt: startedAt + 20 * MIN,
          outcome: 'Failed',
          steps: [{ action: 'SoftReboot', attempts: 1, result: 'TimedOut' }],
        },
      ],
    };
    const members: FleetMember[] = [
      {
        obs: { nodeName: 'a', node: buildNode({ name: 'a', ready: 'ready', since: 0 }) },
        state: failed,
      },
      {
        obs: { nodeName: 'c', node: buildNode({ name: 'c', ready: 'networkNotReady', since: 0 }) },
        state: undefined,
      },
      {
        obs: { nodeName: 'd', node: buildNode({ name: 'd', ready: 'ready', since: 0 }) },
        state: undefined,
      },
    ];
    const fleet = decideFleet(members, policy, NOW, emptyStormMemory);
    expect(fleet.decisions[1]?.held).toBeUndefined();
    expect(fleet.decisions[1]?.actions.some((x) => x.type === 'Cordon')).toBe(true);
  });
});

describe('latch (stormGuard.latch)', () => {
  const sg = resolve({
    stormGuard: { maxUnhealthy: 1, minUnhealthyAllowed: 0, latch: { afterHeldFor: '10m' } },
  }).stormGuard;
  const storm = [wanting('a', 1), wanting('b', 2), healthy('c')];
  const calm = [wanting('a', 1), healthy('b'), healthy('c')];

  it('sets once the guard has held without a break for afterHeldFor, and then holds every start', () => {
    let memory: StormMemory = emptyStormMemory;
    const first = stormGuard(storm, sg, 0, memory);
    expect(first.tripped).toBe(true);
    expect(first.memory.heldSince).toBe(0);
    expect(first.latchNow).toBeUndefined();
    memory = first.memory;
    const nine = stormGuard(storm, sg, 9 * MIN, memory);
    expect(nine.latchNow).toBeUndefined();
    memory = nine.memory;
    const ten = stormGuard(storm, sg, 10 * MIN, memory);
    expect(ten.latchNow).toEqual({ since: 10 * MIN, reason: expect.stringMatching(/10m|600s/) });
    expect(ten.verdicts.get('a')).toMatchObject({ admitted: false, scope: 'latch' });
    // The storm lifts, but the persisted latch still holds.
    const persisted = { kind: 'latched' as const, ...ten.latchNow! };
    const after = stormGuard(calm, sg, 20 * MIN, ten.memory, undefined, persisted);
    expect(after.tripped).toBe(false);
    expect(after.verdicts.get('a')).toMatchObject({
      admitted: false,
      scope: 'latch',
      hold: { kind: 'latch', since: 10 * MIN },
    });
    // A person reset it (no latch read): the node starts.
    const reset = stormGuard(calm, sg, 21 * MIN, after.memory);
    expect(reset.verdicts.get('a')?.admitted).toBe(true);
  });

  it('a pass without a storm restarts the held time', () => {
    const m1 = stormGuard(storm, sg, 0).memory;
    const m2 = stormGuard(calm, sg, 5 * MIN, m1).memory;
    expect(m2.heldSince).toBeUndefined();
    const m3 = stormGuard(storm, sg, 6 * MIN, m2);
    expect(m3.memory.heldSince).toBe(6 * MIN);
    expect(stormGuard(storm, sg, 12 * MIN, m3.memory).latchNow).toBeUndefined();
    expect(stormGuard(storm, sg, 16 * MIN, m3.memory).latchNow).toBeDefined();
  });

  it('after a reset the guard must hold afterHeldFor again before it sets again', () => {
    const m1 = stormGuard(storm, sg, 0).memory;
    const latched = { kind: 'latched' as const, since: 10 * MIN, reason: 'x' };
    const during = stormGuard(storm, sg, 11 * MIN, m1, undefined, latched);
    expect(during.memory.heldSince).toBeUndefined();
    const reset = stormGuard(storm, sg, 12 * MIN, during.memory);
    expect(reset.latchNow).toBeUndefined();
    expect(reset.memory.heldSince).toBe(12 * MIN);
  });

  it('a latch record that cannot be read holds too', () => {
    const r = stormGuard(calm, sg, 0, emptyStormMemory, undefined, {
      kind: 'unreadable',
      problem: 'forbidden',
    });
    expect(r.verdicts.get('a')).toMatchObject({ admitted: false, scope: 'latch' });
  });

  it('off by default: a persisted latch of another policy and a long storm change nothing', () => {
    const off = resolve({ stormGuard: { maxUnhealthy: 1, minUnhealthyAllowed: 0 } }).stormGuard;
    const m1 = stormGuard(storm, off, 0).memory;
    expect(stormGuard(storm, off, 10 * RATE_WINDOW_MS, m1).latchNow).toBeUndefined();
    const latched = { kind: 'latched' as const, since: 0, reason: 'x' };
    expect(stormGuard(calm, off, MIN, m1, undefined, latched).verdicts.get('a')?.admitted).toBe(
      true,
    );
  });
});
