import { describe, expect, it } from 'vitest';
import { buildNode } from '../health/builders.js';
import { decideRepair } from '../health/decide.js';
import { defaultRepairPolicy } from '../health/policy.js';
import { withReplayDrain } from './replay.js';

const MIN = 60_000;
const t0 = Date.parse('2026-01-01T00:00:00Z');
const obs = { nodeName: 'n1', node: buildNode({ name: 'n1', ready: 'unknown', since: t0 }) };

describe('withReplayDrain', () => {
  const start = decideRepair(obs, undefined, defaultRepairPolicy, t0 + 11 * MIN);
  // A controller died after persisting start.nextState; the next one decides again.
  const replay = decideRepair(obs, start.nextState, defaultRepairPolicy, t0 + 12 * MIN);

  it('drains again before a replayed Remediate, as unreachable for an unreachable node', () => {
    expect(replay.actions.map((a) => a.type)).toEqual(['Remediate']);
    const actions = withReplayDrain(replay.actions, replay.nextState, defaultRepairPolicy);
    expect(actions.map((a) => a.type)).toEqual(['Drain', 'Remediate']);
    expect(actions[0]).toMatchObject({
      type: 'Drain',
      unreachable: true,
      timeoutMs: 15 * MIN,
      outOfServiceAfterMs: 5 * MIN,
    });
  });

  it('leaves first-time actions, drain-less policies and nodes we did not cordon alone', () => {
    expect(withReplayDrain(start.actions, start.nextState, defaultRepairPolicy)).toEqual(
      start.actions,
    );
    const noDrain = {
      ...defaultRepairPolicy,
      drain: { ...defaultRepairPolicy.drain, enabled: false },
    };
    expect(withReplayDrain(replay.actions, replay.nextState, noDrain)).toEqual(replay.actions);
    const notOurs = {
      ...replay.nextState!,
      remediation: { ...replay.nextState!.remediation!, cordoned: false },
    };
    expect(withReplayDrain(replay.actions, notOurs, defaultRepairPolicy)).toEqual(replay.actions);
  });
});
