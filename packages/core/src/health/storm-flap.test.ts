// Zone storms are not a node's flapping: a NotReady period the storm guard held a node through
// leaves its flap memory, so after a few storms the zone's nodes still wait their condition
// timeout (which lets the guard see the next storm whole) instead of being "flapping" and
// unhealthy the moment they turn NotReady. The chaos zone-storm tests once rebooted a zone
// node that way. Driven through decideFleet, pass by pass, as the controller calls it.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode } from './builders.js';
import { decideFleet, type FleetMember } from './fleet.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';
import { emptyStormMemory, type StormMemory } from './storm-guard.js';

const S = 1000;
const MIN = 60 * S;
const ZONE = 'topology.kubernetes.io/zone';

function policy(): RepairPolicy {
  const p = resolveRepairPolicy({
    unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '10s' }],
    stormGuard: {
      maxUnhealthy: '100%',
      maxInFlight: 5,
      failureDomainLabel: ZONE,
      maxUnhealthyPerDomain: 1,
      cooldown: '60s',
    },
  });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

/** Four nodes in zone a, six in zone b; `down` maps a node to the start of its NotReady period. */
class Fleet {
  states = new Map<string, RepairState>();
  memory: StormMemory = emptyStormMemory;
  down = new Map<string, number>();
  readySince = 1;
  readonly names = Array.from({ length: 10 }, (_, i) => `n-${i}`);

  pass(now: number) {
    const members: FleetMember[] = this.names.map((name, i) => {
      const since = this.down.get(name);
      return {
        obs: {
          nodeName: name,
          node: buildNode({
            name,
            ready: since !== undefined ? 'networkNotReady' : 'ready',
            since: since ?? this.readySince,
            labels: { [ZONE]: i < 4 ? 'a' : 'b' },
          }),
        },
        state: this.states.get(name),
      };
    });
    const fleet = decideFleet(members, policy(), now, this.memory);
    this.memory = fleet.storm.memory;
    for (const d of fleet.decisions) if (d.nextState) this.states.set(d.node, d.nextState);
    return fleet;
  }

  recover(now: number) {
    this.down.clear();
    this.readySince = now;
    return this.pass(now + S);
  }

  of(fleet: ReturnType<Fleet['pass']>, name: string) {
    return fleet.decisions.find((d) => d.node === name);
  }
}

const zoneA = ['n-0', 'n-1', 'n-2', 'n-3'];

describe('storm-held NotReady periods and the flap memory', () => {
  it('three zone storms do not make the zone nodes flapping: the next NotReady waits its timeout', () => {
    const f = new Fleet();
    for (const start of [10, 20, 30].map((m) => m * MIN)) {
      for (const n of zoneA) f.down.set(n, start);
      f.pass(start + S);
      const held = f.pass(start + 11 * S);
      for (const n of zoneA) {
        expect(held.storm.verdicts.get(n)).toMatchObject({
          admitted: false,
          scope: 'failure-domain',
        });
        expect(f.states.get(n)?.heldByStormSince).toBe(start + 11 * S);
      }
      f.recover(start + 2 * MIN);
      for (const n of zoneA) expect(f.states.get(n)?.episodes).toEqual([]);
    }

    // n-0 alone turns NotReady: one episode, inside its 10 s timeout, no repair yet.
    f.down.set('n-0', 40 * MIN);
    const first = f.pass(40 * MIN + S);
    expect(f.of(first, 'n-0')).toMatchObject({ signal: 'suspect', phase: 'Suspect' });
    expect(f.states.get('n-0')?.episodes).toEqual([40 * MIN]);
  });

  it("a node's own NotReady episodes still count: three within the window and it is flapping", () => {
    const f = new Fleet();
    for (const n of zoneA) f.down.set(n, 10 * MIN);
    f.pass(10 * MIN + 11 * S);
    f.recover(12 * MIN);
    expect(f.states.get('n-0')?.episodes).toEqual([]);

    // Not held (alone in its zone, Ready again within the timeout): these are n-0's own.
    for (const m of [20, 22]) {
      f.down.set('n-0', m * MIN);
      f.pass(m * MIN + S);
      f.recover(m * MIN + 5 * S);
    }
    f.down.set('n-0', 24 * MIN);
    // Past flap.settle (2 s) into the third episode.
    const third = f.pass(24 * MIN + 3 * S);
    expect(f.states.get('n-0')?.episodes).toEqual([20, 22, 24].map((m) => m * MIN));
    expect(f.of(third, 'n-0')).toMatchObject({ signal: 'unhealthy', phase: 'Remediating' });
    expect(f.of(third, 'n-0')?.reason).toMatch(/flapping: 3 NotReady episodes/);
  });
});
