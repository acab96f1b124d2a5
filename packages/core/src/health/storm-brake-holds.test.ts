// The brakes over time hold a node as the storm limits do: a node the latch (stormGuard.latch)
// or the hourly rate limit (stormGuard.maxStartsPerHour) held is remembered as held
// (heldByStormSince). Its held NotReady periods leave its flap memory, so after a latch reset
// it is not "flapping" (unhealthy the moment it next turns NotReady, its condition timeout
// skipped); and a node that failed in a storm the latch hid waits out the cooldown once a
// person resets the latch. Driven through decideFleet, pass by pass, as the controller calls it.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode } from './builders.js';
import { decideFleet, type FleetMember } from './fleet.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';
import { emptyStormMemory, type LatchState, type StormMemory } from './storm-guard.js';

const S = 1000;
const MIN = 60 * S;
const HOUR = 60 * MIN;
const ZONE = 'topology.kubernetes.io/zone';
const T0 = 10 * HOUR;

function resolve(stormGuard: Record<string, unknown>): RepairPolicy {
  const p = resolveRepairPolicy({
    unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '10s' }],
    stormGuard: { maxUnhealthy: '100%', maxInFlight: 5, cooldown: '60s', ...stormGuard },
  });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

/** n-0..n-3 in zone a, n-4..n-9 in zone b; `down` maps a node to the start of its NotReady period. */
class Fleet {
  states = new Map<string, RepairState>();
  memory: StormMemory = emptyStormMemory;
  down = new Map<string, number>();
  readySince = new Map<string, number>();
  latch: LatchState | undefined;
  readonly names = Array.from({ length: 10 }, (_, i) => `n-${i}`);

  constructor(readonly policy: RepairPolicy) {}

  pass(now: number) {
    const members: FleetMember[] = this.names.map((name, i) => {
      const since = this.down.get(name);
      return {
        obs: {
          nodeName: name,
          node: buildNode({
            name,
            ready: since !== undefined ? 'networkNotReady' : 'ready',
            since: since ?? this.readySince.get(name) ?? 1,
            labels: { [ZONE]: i < 4 ? 'a' : 'b' },
          }),
        },
        state: this.states.get(name),
      };
    });
    const fleet = decideFleet(members, this.policy, now, this.memory, this.latch);
    this.memory = fleet.storm.memory;
    for (const d of fleet.decisions) if (d.nextState) this.states.set(d.node, d.nextState);
    return fleet;
  }

  recover(names: readonly string[], now: number) {
    for (const n of names) {
      this.down.delete(n);
      this.readySince.set(n, now);
    }
    return this.pass(now + S);
  }

  of(fleet: ReturnType<Fleet['pass']>, name: string) {
    return fleet.decisions.find((d) => d.node === name);
  }
}

const latched: LatchState = { kind: 'latched', since: T0 - HOUR, reason: 'held too long' };

describe('latch and rate holds: the flap memory', () => {
  it('three NotReady periods held by the latch do not make the node flapping after a reset', () => {
    const f = new Fleet(resolve({ latch: { afterHeldFor: '10m' } }));
    f.latch = latched;
    for (const start of [0, 10, 20].map((m) => T0 + m * MIN)) {
      f.down.set('n-0', start);
      f.pass(start + S);
      const held = f.pass(start + 11 * S);
      expect(held.storm.verdicts.get('n-0')).toMatchObject({ admitted: false, scope: 'latch' });
      expect(f.states.get('n-0')?.heldByStormSince).toBe(start + 11 * S);
      f.recover(['n-0'], start + 2 * MIN);
      expect(f.states.get('n-0')?.episodes).toEqual([]);
      expect(f.states.get('n-0')?.heldByStormSince).toBeUndefined();
    }
    // A person resets the latch; n-0 turns NotReady again: one episode, inside its timeout.
    f.latch = undefined;
    f.down.set('n-0', T0 + 30 * MIN);
    const next = f.pass(T0 + 30 * MIN + 3 * S);
    expect(f.of(next, 'n-0')).toMatchObject({ signal: 'suspect', phase: 'Suspect' });
    expect(f.states.get('n-0')?.episodes).toEqual([T0 + 30 * MIN]);
  });

  it('three NotReady periods held by the rate limit do not make the node flapping', () => {
    const f = new Fleet(resolve({ maxStartsPerHour: 1 }));
    // n-9 started a repair 5 minutes before: the hour's one start is used.
    f.states.set('n-9', {
      v: 1,
      phase: 'Healthy',
      since: T0 - 4 * MIN,
      episodes: [],
      history: [
        {
          id: 'n-9/1',
          cause: { kind: 'NotReady' },
          startedAt: T0 - 5 * MIN,
          endedAt: T0 - 4 * MIN,
          outcome: 'Succeeded',
          steps: [{ action: 'SoftReboot', attempts: 1, result: 'Succeeded' }],
        },
      ],
    });
    for (const start of [0, 10, 20].map((m) => T0 + m * MIN)) {
      f.down.set('n-0', start);
      f.pass(start + S);
      const held = f.pass(start + 11 * S);
      expect(held.storm.verdicts.get('n-0')).toMatchObject({ admitted: false, scope: 'rate' });
      expect(f.states.get('n-0')?.heldByStormSince).toBe(start + 11 * S);
      f.recover(['n-0'], start + 2 * MIN);
      expect(f.states.get('n-0')?.episodes).toEqual([]);
    }
    f.down.set('n-0', T0 + 30 * MIN);
    const next = f.pass(T0 + 30 * MIN + 3 * S);
    expect(f.of(next, 'n-0')).toMatchObject({ signal: 'suspect', phase: 'Suspect' });
  });

  it('a maxInFlight hold is still a queue: its NotReady period stays a flap episode', () => {
    const f = new Fleet(resolve({ maxInFlight: 1 }));
    // n-5's repair takes the one slot.
    f.down.set('n-5', T0 - MIN);
    f.pass(T0 - MIN + S);
    f.pass(T0 - MIN + 11 * S);
    expect(f.states.get('n-5')?.phase).toBe('Remediating');
    f.down.set('n-0', T0);
    f.pass(T0 + S);
    const held = f.pass(T0 + 11 * S);
    expect(held.storm.verdicts.get('n-0')).toMatchObject({ admitted: false, scope: 'in-flight' });
    expect(f.states.get('n-0')?.heldByStormSince).toBeUndefined();
    f.recover(['n-0'], T0 + 2 * MIN);
    expect(f.states.get('n-0')?.episodes).toEqual([T0]);
  });
});

describe('latch holds: the cooldown after a reset', () => {
  it('a node that failed in a zone storm the latch hid waits out the cooldown after the reset', () => {
    const f = new Fleet(
      resolve({
        failureDomainLabel: ZONE,
        maxUnhealthyPerDomain: 1,
        latch: { afterHeldFor: '10m' },
      }),
    );
    f.latch = latched;
    const zoneA = ['n-0', 'n-1', 'n-2', 'n-3'];
    for (const n of zoneA) f.down.set(n, T0);
    f.pass(T0 + S);
    const held = f.pass(T0 + 11 * S);
    // The latch is asked first: its verdict is what the nodes get, though zone a is tripped.
    for (const n of zoneA) {
      expect(held.storm.verdicts.get(n)).toMatchObject({ admitted: false, scope: 'latch' });
      expect(f.states.get(n)?.heldByStormSince).toBe(T0 + 11 * S);
    }
    f.pass(T0 + 100 * S); // zone a last seen tripped
    f.recover(['n-1', 'n-2', 'n-3'], T0 + 109 * S); // one unhealthy left: the storm has lifted
    // A person resets the latch 20 s after the storm lifted: n-0 waits the 60 s cooldown.
    f.latch = undefined;
    const reset = f.pass(T0 + 120 * S);
    expect(reset.storm.verdicts.get('n-0')).toMatchObject({
      admitted: false,
      scope: 'failure-domain',
      hold: { kind: 'cooldown', until: T0 + 160 * S },
    });
    expect(f.of(reset, 'n-0')?.phase).toBe('Unhealthy');
    const after = f.pass(T0 + 161 * S);
    expect(after.storm.verdicts.get('n-0')?.admitted).toBe(true);
    expect(f.of(after, 'n-0')?.phase).toBe('Remediating');
  });
});
