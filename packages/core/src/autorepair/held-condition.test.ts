import { describe, expect, it } from 'vitest';
import type { RepairDecision } from '../health/decide.js';
import type { NodeConditionSnapshot } from '../health/node.js';
import { heldConditionUpdate, NodeRepairHeld } from './held-condition.js';

const T = Date.parse('2026-12-05T12:00:00Z');

function decision(held?: RepairDecision['held']): RepairDecision {
  return {
    node: 'n1',
    at: T,
    cause: { kind: 'Other', message: '' },
    signal: 'unhealthy',
    previousPhase: 'Unhealthy',
    phase: held !== undefined ? 'Unhealthy' : 'Remediating',
    nextState: undefined,
    actions: [],
    reason: held !== undefined ? `held: ${held.reason}` : 'admitted',
    ...(held !== undefined ? { held } : {}),
  };
}

const storm: RepairDecision['held'] = {
  admitted: false,
  scope: 'fleet',
  reason: 'storm guard: 3 of 5 nodes unhealthy (limit 1)',
  hold: { kind: 'storm', unhealthy: 3, total: 5, limit: 1 },
};

describe('NodeRepairHeld', () => {
  it('a held node gets True with the brake as reason and the counts as message', () => {
    expect(heldConditionUpdate(decision(storm), [], T)).toEqual({
      type: NodeRepairHeld,
      status: 'True',
      reason: 'StormGuard',
      message: 'storm guard: 3 of 5 nodes unhealthy (limit 1)',
      lastTransitionTime: '2026-12-05T12:00:00.000Z',
    });
  });

  it('says until when for a cooldown and names the actor', () => {
    const until = T + 60_000;
    const cool = heldConditionUpdate(
      decision({ admitted: false, scope: 'fleet', reason: 'x', hold: { kind: 'cooldown', until } }),
      [],
      T,
    );
    expect(cool?.reason).toBe('StormCooldown');
    expect(cool?.message).toBe('storm guard cooldown until 2026-12-05T12:01:00.000Z');
    const actor = heldConditionUpdate(
      decision({
        admitted: false,
        scope: 'actor',
        reason: 'x',
        hold: {
          kind: 'actor',
          actor: 'NodeMaintenance',
          detail: 'NodeMaintenance nm-1 (phase Running)',
        },
      }),
      [],
      T,
    );
    expect(actor).toMatchObject({
      reason: 'OtherActor',
      message: 'NodeMaintenance: NodeMaintenance nm-1 (phase Running)',
    });
  });

  it('writes nothing when the Node already says it, and keeps the transition time on a new message', () => {
    const same = heldConditionUpdate(decision(storm), [], T)!;
    expect(heldConditionUpdate(decision(storm), [same], T + 5000)).toBeUndefined();
    const more = heldConditionUpdate(
      decision({ ...storm, hold: { kind: 'storm', unhealthy: 4, total: 5, limit: 1 } }),
      [same],
      T + 5000,
    );
    expect(more?.message).toContain('4 of 5');
    expect(more?.lastTransitionTime).toBe(same.lastTransitionTime);
  });

  it('a node never held gets no condition; a released one turns False once', () => {
    expect(heldConditionUpdate(decision(), undefined, T)).toBeUndefined();
    const held: NodeConditionSnapshot = {
      type: NodeRepairHeld,
      status: 'True',
      reason: 'StormGuard',
      message: 'm',
      lastTransitionTime: '2026-12-05T11:00:00.000Z',
    };
    const off = heldConditionUpdate(decision(), [held], T);
    expect(off).toMatchObject({ status: 'False', reason: 'NotHeld' });
    expect(off?.lastTransitionTime).toBe('2026-12-05T12:00:00.000Z');
    expect(heldConditionUpdate(decision(), [off!], T + 1000)).toBeUndefined();
  });
});
