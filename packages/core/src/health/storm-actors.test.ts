// Other actors in the fleet pass: a node another actor is disrupting is never admitted (its
// decision says which actor and why), and those disruptions count against maxInFlight with
// ours, so noderepair and kured (or a NodeMaintenance) together never exceed it.
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import type { ActorHold } from './actors.js';
import { buildNode } from './builders.js';
import { decideFleet, type FleetMember } from './fleet.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';

const S = 1000;
const NOW = 600 * S;

function policy(maxInFlight: number): RepairPolicy {
  const p = resolveRepairPolicy({
    unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '10s' }],
    stormGuard: { maxUnhealthy: '100%', maxInFlight },
  });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

const kured = (name: string): ActorHold => ({
  actor: 'Kured',
  detail: `kured holds its reboot lock for ${name}`,
  disrupting: true,
});
const cordonOnly: ActorHold = { actor: 'ManualCordon', detail: 'cordoned', disrupting: false };

function member(
  name: string,
  down: boolean,
  holds?: ActorHold[],
  state?: RepairState,
): FleetMember {
  return {
    obs: {
      nodeName: name,
      node: buildNode({ name, ready: down ? 'runtimeDown' : 'ready', since: 0 }),
      ...(holds !== undefined ? { actorHolds: holds } : {}),
    },
    state,
  };
}

describe('storm guard with other actors', () => {
  it('a node another actor disrupts is held with the actor and its detail, never admitted', () => {
    const f = decideFleet([member('a', true, [kured('a')]), member('b', false)], policy(5), NOW);
    const a = f.decisions[0]!;
    expect(a.phase).toBe('Unhealthy');
    expect(a.actions).toEqual([]);
    expect(a.held).toMatchObject({
      scope: 'actor',
      hold: { kind: 'actor', actor: 'Kured', detail: 'kured holds its reboot lock for a' },
    });
    expect(a.reason).toContain('held: another actor is disrupting the node: Kured');
    // Not a storm: no cooldown is remembered, so it starts as soon as the actor is done.
    expect(a.nextState?.heldByStormSince).toBeUndefined();
    const after = decideFleet([member('a', true, [], a.nextState)], policy(5), NOW + S);
    expect(after.decisions[0]!.phase).toBe('Remediating');
  });

  it("other actors' disruptions fill maxInFlight: our repair waits for a slot", () => {
    const fleet = [
      member('k1', false, [kured('k1')]),
      member('k2', false, [kured('k2')]),
      member('x', true),
    ];
    const held = decideFleet(fleet, policy(2), NOW);
    const x = held.decisions[2]!;
    expect(x.held).toMatchObject({
      scope: 'in-flight',
      hold: { kind: 'in-flight', inFlight: 2, maxInFlight: 2, byOthers: 2 },
    });
    expect(x.reason).toContain('2 of them by other actors');
    // One reboot ends: a slot frees, and the repair starts.
    const freed = decideFleet([fleet[0]!, member('k2', false), fleet[2]!], policy(2), NOW);
    expect(freed.decisions[2]!.phase).toBe('Remediating');
  });

  it('a mark that disrupts nothing (a cordon) holds its node but takes no slot', () => {
    const f = decideFleet([member('c', true, [cordonOnly]), member('x', true)], policy(1), NOW);
    expect(f.decisions[0]!.held?.scope).toBe('actor');
    expect(f.decisions[1]!.phase).toBe('Remediating');
  });

  // Issue 42: a person's cordon holds by default; the repair-now annotation is how that person
  // (or another) asks for the repair of the node anyway.
  it('the repair-now annotation lifts a cordon hold, and only that one', () => {
    const triggered = (name: string, holds: ActorHold[]): FleetMember => ({
      obs: {
        nodeName: name,
        node: buildNode({
          name,
          ready: 'runtimeDown',
          since: 0,
          annotations: { 'noderepair.io/repair-now': '2026-12-07' },
        }),
        actorHolds: holds,
      },
      state: undefined,
    });
    const cordoned = decideFleet([triggered('c', [cordonOnly])], policy(1), NOW).decisions[0]!;
    expect(cordoned.phase).toBe('Remediating');
    expect(cordoned.held).toBeUndefined();
    const rebooting = decideFleet([triggered('k', [cordonOnly, kured('k')])], policy(1), NOW)
      .decisions[0]!;
    expect(rebooting.phase).toBe('Unhealthy');
    expect(rebooting.held?.hold).toMatchObject({ actor: 'Kured' });
    // Without the annotation the cordon holds.
    const plain = decideFleet([member('c', true, [cordonOnly])], policy(1), NOW).decisions[0]!;
    expect(plain.held?.hold).toMatchObject({ actor: 'ManualCordon' });
  });

  it('never admits past maxInFlight counting both actors, whatever the mix (exhaustive, 6 nodes)', () => {
    // Every assignment of {healthy, down, down+kured, healthy+kured} to 6 nodes, maxInFlight 2.
    const kinds = ['ok', 'down', 'down+k', 'ok+k'] as const;
    for (let code = 0; code < 4 ** 6; code++) {
      const fleet = Array.from({ length: 6 }, (_, i) => {
        const k = kinds[Math.floor(code / 4 ** i) % 4]!;
        return member(
          `n${i}`,
          k.startsWith('down'),
          k.endsWith('+k') ? [kured(`n${i}`)] : undefined,
        );
      });
      const f = decideFleet(fleet, policy(2), NOW);
      const ours = f.decisions.filter((d) => d.phase === 'Remediating').length;
      const theirs = fleet.filter((m) => m.obs.actorHolds !== undefined).length;
      expect(ours + theirs <= Math.max(2, theirs)).toBe(true);
      // No node an actor holds is ever repaired by us.
      f.decisions.forEach((d, i) => {
        if (fleet[i]!.obs.actorHolds !== undefined) expect(d.phase).not.toBe('Remediating');
      });
      // And slots are used: as many of ours start as fit.
      const wanting = fleet.filter(
        (m, i) => kinds[Math.floor(code / 4 ** i) % 4] === 'down',
      ).length;
      expect(ours).toBe(Math.min(wanting, Math.max(0, 2 - theirs)));
    }
  });
});
