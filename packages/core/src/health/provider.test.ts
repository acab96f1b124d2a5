import { describe, expect, it } from 'vitest';
import { buildNode } from './builders.js';
import { decideRepair, recordDrain, recordOutcome } from './decide.js';
import { defaultRepairPolicy } from './policy.js';
import { DryRunRebootProvider } from './provider.js';
import { parseRepairState, serializeRepairState, type RepairState } from './state.js';
import { either } from 'fp-ts';

const MIN = 60_000;

describe('DryRunRebootProvider and the intent protocol', () => {
  it('a replayed action id is recorded but executed once', async () => {
    const provider = new DryRunRebootProvider();
    const node = buildNode({ name: 'a', ready: 'unknown', since: 0 });
    const first = decideRepair({ nodeName: 'a', node }, undefined, defaultRepairPolicy, 11 * MIN);
    const action = first.actions.find((a) => a.type === 'Remediate');
    if (action?.type !== 'Remediate') throw new Error('expected a Remediate action');
    // Drained (its end recorded before the action, as the executor does), executed, then the
    // controller dies before recording the outcome.
    const persisted = serializeRepairState(
      recordDrain(first.nextState!, {
        remediationId: first.nextState!.remediation!.id,
        ended: { at: 11 * MIN, outcome: 'Drained' },
      }),
    );
    await provider.execute({
      node: 'a',
      action: action.action,
      actionId: action.actionId,
      replay: action.replay,
    });
    // A new controller reads the annotation and decides again.
    const restored = (parseRepairState(persisted) as either.Right<RepairState>).right;
    const second = decideRepair({ nodeName: 'a', node }, restored, defaultRepairPolicy, 12 * MIN);
    const replay = second.actions.find((a) => a.type === 'Remediate');
    if (replay?.type !== 'Remediate') throw new Error('expected a replayed Remediate action');
    expect(replay).toMatchObject({ actionId: action.actionId, replay: true });
    const r = await provider.execute({
      node: 'a',
      action: replay.action,
      actionId: replay.actionId,
      replay: replay.replay,
    });
    expect(r.result).toBe('Succeeded');
    expect(provider.requests).toHaveLength(2);
    expect(provider.executedActionIds()).toEqual([action.actionId]);
    const done = recordOutcome(second.nextState!, {
      actionId: replay.actionId,
      ...r,
      at: 12 * MIN,
    });
    expect(done.phase).toBe('Verifying');
    expect(
      decideRepair({ nodeName: 'a', node }, done, defaultRepairPolicy, 13 * MIN).actions,
    ).toEqual([]);
  });
});
