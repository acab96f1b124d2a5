// newFleetDecider: the one decider of the controller and the simulator. Its storm memory
// starts as a controller's does, so a node an earlier controller held for a storm waits out
// the cooldown in the simulator too (the simulator used to start with an empty memory and
// print a repair the controller would not have started).
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { VirtualTimeScheduler } from 'rxjs';
import { buildNode } from './builders.js';
import type { RepairDecision } from './decide.js';
import { newFleetDecider } from './fleet-decider.js';
import { decideFleet, type FleetMember } from './fleet.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import { runRepairLoop } from './runner.js';
import { initialRepairState, type RepairState } from './state.js';
import { stormMemoryAtStart } from './storm-guard.js';

const S = 1000;
const MIN = 60 * S;
const T0 = Date.parse('2026-01-01T00:00:00Z');

function policy(): RepairPolicy {
  const p = resolveRepairPolicy({
    unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '10s' }],
    stormGuard: {
      maxUnhealthy: 1,
      minUnhealthyAllowed: 0,
      recheckInterval: '10s',
      cooldown: '60s',
    },
  });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

const member = (name: string, down: boolean, state?: RepairState): FleetMember => ({
  obs: {
    nodeName: name,
    node: buildNode({ name, ready: down ? 'runtimeDown' : 'ready', since: T0 - 10 * MIN }),
  },
  state,
});

/** A node an earlier controller held for a storm: Unhealthy, heldByStormSince set. */
const heldEarlier: RepairState = {
  ...initialRepairState(T0 - 5 * MIN),
  phase: 'Unhealthy',
  heldByStormSince: T0 - 5 * MIN,
};

describe('newFleetDecider', () => {
  it('starts its storm memory as a controller does, at its start', () => {
    const d = newFleetDecider(policy(), T0);
    expect(d.memory).toEqual(stormMemoryAtStart(T0));
    expect(d.tripped).toBe(false);
  });

  it('decides alone only what the fleet cannot change, and never while the storm guard is tripped', () => {
    const p = policy();
    const d = newFleetDecider(p, T0);
    const quiet = member('a', false);
    expect(d.alone(quiet, T0)).toEqual(decideFleet([quiet], p, T0).decisions[0]);
    // Wants to start a repair: the storm guard must see the fleet.
    expect(d.alone(member('b', true), T0)).toBeUndefined();

    // Two of two down (limit 1): tripped; from now on every node takes the fleet path.
    const others = [member('c', true)];
    const r = d.withFleet(member('b', true), others, T0 + S);
    expect(r.storm.tripped).toBe(true);
    expect(r.decision.phase).toBe('Unhealthy');
    expect(d.tripped).toBe(true);
    expect(d.memory.lastTrippedAt['']).toBe(T0 + S);
    expect(d.alone(quiet, T0 + S)).toBeUndefined();
    // decide() is alone-else-withFleet: the same answer decideFleet gives that member.
    const fleet = [member('b', true), ...others];
    expect(d.decide(fleet[0]!, () => others, T0 + 2 * S).decision).toEqual(
      decideFleet(fleet, p, T0 + 2 * S, stormMemoryAtStart(T0 + S)).decisions[0],
    );
  });

  it('the simulator holds a node an earlier controller held for a storm for the cooldown, as the controller does', () => {
    const scheduler = new VirtualTimeScheduler();
    const out: RepairDecision[] = [];
    runRepairLoop({
      policy: policy(),
      scheduler,
      observations: [
        { at: T0, obs: member('a', true).obs },
        { at: T0, obs: member('b', false).obs },
      ],
      initialStates: new Map([['a', heldEarlier]]),
      horizonMs: 10 * MIN,
    }).subscribe((d) => out.push(d));
    scheduler.flush();
    const started = out.find((d) => d.node === 'a' && d.phase === 'Remediating');
    // Held at the start (the cooldown runs from the start, as after a controller restart),
    // started at the recheck (every 10 s) where the 60 s cooldown is over.
    expect(out.find((d) => d.node === 'a')?.reason).toMatch(
      /held before this controller started at .*; the nodes held then wait the 60s cooldown/,
    );
    expect(started?.at).toBe(T0 + 60 * S);
  });
});
