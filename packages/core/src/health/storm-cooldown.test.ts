// The storm guard's cooldown: a storm ends one node at a time, and the nodes it held must not
// become repairs in the second the unhealthy count drops under the limit (the demo's zone
// storm once rebooted its last NotReady node that way). Driven through decideFleet, pass by
// pass with the memory carried over, as the controller calls it.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode, type ReadyText } from './builders.js';
import { decideFleet, type FleetMember } from './fleet.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';
import {
  emptyStormMemory,
  stormGuard,
  stormMemoryAtStart,
  type StormMemory,
} from './storm-guard.js';

const S = 1000;
const ZONE = 'topology.kubernetes.io/zone';

function policy(): RepairPolicy {
  const p = resolveRepairPolicy({
    unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '10s' }],
    stormGuard: {
      maxUnhealthy: '100%',
      maxInFlight: 5,
      failureDomainLabel: ZONE,
      maxUnhealthyPerDomain: '30%',
      cooldown: '60s',
    },
  });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

/** Ten nodes in zone c; `down` are NotReady since t=0, the rest Ready. */
class Zone {
  states = new Map<string, RepairState>();
  memory: StormMemory = emptyStormMemory;
  readonly names = Array.from({ length: 10 }, (_, i) => `c-${i + 1}`);
  constructor(public down: Set<string>) {}

  pass(now: number) {
    const members: FleetMember[] = this.names.map((name) => {
      const ready: ReadyText = this.down.has(name) ? 'networkNotReady' : 'ready';
      return {
        obs: {
          nodeName: name,
          node: buildNode({ name, ready, since: 0, labels: { [ZONE]: 'c' } }),
        },
        state: this.states.get(name),
      };
    });
    const fleet = decideFleet(members, policy(), now, this.memory);
    this.memory = fleet.storm.memory;
    for (const d of fleet.decisions) if (d.nextState) this.states.set(d.node, d.nextState);
    return fleet;
  }

  started(fleet: ReturnType<Zone['pass']>) {
    return fleet.decisions.filter((d) => d.phase === 'Remediating').map((d) => d.node);
  }
}

describe('storm guard cooldown', () => {
  it('a storm that ends one node at a time starts no repair for its last nodes', () => {
    const zone = new Zone(new Set(['c-2', 'c-4', 'c-6', 'c-8']));
    // 4 of 10 past the 10 s timeout: the zone limit (3) is exceeded; all four held.
    const held = zone.pass(11 * S);
    expect(zone.started(held)).toEqual([]);
    expect(
      [...held.storm.verdicts.values()].map((v) => (v.admitted ? 'admitted' : v.scope)),
    ).toEqual(Array(4).fill('failure-domain'));
    expect(zone.states.get('c-6')?.heldByStormSince).toBe(11 * S);

    // The storm lifts: c-2 recovers first; 3 of 10 is within the limit.
    zone.down.delete('c-2');
    const lifted = zone.pass(20 * S);
    expect(lifted.storm.verdicts.get('c-6')).toMatchObject({
      admitted: false,
      scope: 'failure-domain',
    });
    expect(lifted.storm.verdicts.get('c-6')?.reason).toMatch(
      /storm guard: the storm in topology.kubernetes.io\/zone=c has lifted; the nodes it held wait the 60s cooldown/,
    );
    expect(zone.started(lifted)).toEqual([]);
    expect(zone.states.get('c-2')?.heldByStormSince).toBeUndefined();

    // The rest recover within the cooldown: nobody was ever started.
    zone.down = new Set();
    const calm = zone.pass(25 * S);
    expect(zone.started(calm)).toEqual([]);
    expect([...zone.states.values()].every((s) => s.phase === 'Healthy')).toBe(true);
  });

  it('a held node still unhealthy after the cooldown is repaired then', () => {
    const zone = new Zone(new Set(['c-2', 'c-4', 'c-6', 'c-8']));
    zone.pass(11 * S);
    zone.down = new Set(['c-6']);
    expect(zone.started(zone.pass(20 * S))).toEqual([]);
    expect(zone.started(zone.pass(70 * S))).toEqual([]); // 59 s after the storm was last seen
    expect(zone.started(zone.pass(72 * S))).toEqual(['c-6']); // 61 s
    expect(zone.states.get('c-6')?.heldByStormSince).toBeUndefined();
  });

  it('a node the storm never held is not delayed by the cooldown', () => {
    const zone = new Zone(new Set(['c-2', 'c-4', 'c-6', 'c-8']));
    zone.pass(11 * S);
    zone.down = new Set(['c-9']); // fails after the storm; NotReady "since 0" in this model
    expect(zone.started(zone.pass(20 * S))).toEqual(['c-9']);
  });

  it('a maxInFlight hold is a queue, not a storm: no cooldown is remembered', () => {
    const p = policy();
    const entries = ['a', 'b'].map((name, i) => ({
      name,
      signal: 'unhealthy' as const,
      phase: undefined,
      unhealthySince: i,
      wantsToStart: true,
    }));
    const { failureDomainLabel: _l, maxUnhealthyPerDomain: _m, ...fleetOnly } = p.stormGuard;
    const r = stormGuard(entries, { ...fleetOnly, maxInFlight: 1 }, 5 * S);
    expect(r.verdicts.get('a')).toMatchObject({ admitted: true });
    expect(r.verdicts.get('b')).toMatchObject({ admitted: false, scope: 'in-flight' });
    expect(r.memory.lastTrippedAt).toEqual({});
  });

  it('a restarted controller (memory from its start) holds storm-held nodes for the cooldown', () => {
    const p = policy().stormGuard;
    const entry = {
      name: 'c-6',
      labels: { [ZONE]: 'c' },
      signal: 'unhealthy' as const,
      phase: 'Unhealthy' as const,
      wantsToStart: true,
      heldByStorm: true,
    };
    const start = 1_000 * S;
    expect(
      stormGuard([entry], p, start + 30 * S, stormMemoryAtStart(start)).verdicts.get('c-6'),
    ).toMatchObject({ admitted: false, scope: 'fleet' });
    expect(
      stormGuard([entry], p, start + 61 * S, stormMemoryAtStart(start)).verdicts.get('c-6'),
    ).toMatchObject({ admitted: true });
    // Without memory nothing is known: no cooldown.
    expect(stormGuard([entry], p, start).verdicts.get('c-6')).toMatchObject({ admitted: true });
  });

  it('policy: cooldown is a duration with a 1m default', () => {
    const d = resolveRepairPolicy({});
    expect(either.isRight(d) && d.right.stormGuard.cooldownMs).toBe(60 * S);
    const bad = resolveRepairPolicy({ stormGuard: { cooldown: 'soon' } });
    expect(either.isLeft(bad) && bad.left).toMatch(/stormGuard.*cooldown/);
  });
});
