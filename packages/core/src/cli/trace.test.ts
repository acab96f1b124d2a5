// The trace format is user input: a misspelt field must be an error naming it. Before, a line
// with `conditons` decoded as a node without conditions (a node that never started), which
// the simulator then cordoned and rebooted.
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { defaultRepairPolicy } from '../health/policy.js';
import { simulate } from './simulate.js';
import { parseTrace, resultAt } from './trace.js';

const ready = (time: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    time,
    node: 'w1',
    conditions: [{ type: 'Ready', status: 'True' }],
    ...extra,
  });

const errorOf = (text: string): string => {
  const r = parseTrace(text);
  if (either.isRight(r)) throw new Error('expected the trace to be rejected');
  return r.left;
};

describe('trace lines: unknown fields', () => {
  it('a misspelt conditions is an error, not a phantom never-started node', () => {
    const text = [
      ready('2026-01-01T00:00:00Z'),
      JSON.stringify({
        time: '2026-01-01T00:00:00Z',
        node: 'w2',
        conditons: [{ type: 'Ready', status: 'True' }],
      }),
      ready('2026-01-01T02:00:00Z'),
    ].join('\n');
    expect(errorOf(text)).toBe(
      'invalid trace: line 2: conditons: unknown field "conditons" (did you mean "conditions"?); known fields: time, node, conditions, labels, annotations, taints, unschedulable, createdAt, deleted, leaseRenewTime, results',
    );
  });

  it('what the typo used to produce: a node line without conditions is repaired as never started', () => {
    const phantom = [
      ready('2026-01-01T00:00:00Z'),
      JSON.stringify({ time: '2026-01-01T00:00:00Z', node: 'w2' }),
      ready('2026-01-01T02:00:00Z'),
    ].join('\n');
    const trace = parseTrace(phantom);
    if (either.isLeft(trace)) throw new Error(trace.left);
    const actions = simulate(defaultRepairPolicy, trace.right, { horizonMs: 3_600_000 })
      .filter((d) => d.node === 'w2')
      .map((d) => d.action);
    expect(actions).toContain('Cordon');
    expect(actions).toContain('SoftReboot');
  });

  it('names unknown fields inside conditions and taints; accepts a taint timeAdded', () => {
    expect(
      errorOf(
        ready('2026-01-01T00:00:00Z', {
          conditions: [
            { type: 'Ready', status: 'True', lastTransitonTime: '2026-01-01T00:00:00Z' },
          ],
        }),
      ),
    ).toContain(
      'line 1: conditions[0].lastTransitonTime: unknown field "lastTransitonTime" (did you mean "lastTransitionTime"?)',
    );
    expect(
      errorOf(ready('2026-01-01T00:00:00Z', { taints: [{ key: 'k', efect: 'NoSchedule' }] })),
    ).toContain('line 1: taints[0].efect: unknown field "efect" (did you mean "effect"?)');
    const r = parseTrace(
      ready('2026-01-01T00:00:00Z', {
        taints: [
          {
            key: 'node.kubernetes.io/unreachable',
            effect: 'NoExecute',
            timeAdded: '2026-01-01T00:00:00Z',
          },
        ],
      }),
    );
    expect(either.isRight(r)).toBe(true);
  });

  it('checks results for every action kind, Rebuild included', () => {
    expect(errorOf(ready('2026-01-01T00:00:00Z', { results: { Rebuild: 'Falied' } }))).toContain(
      'line 1: results.Rebuild: expected one of Succeeded, Failed, Crash, got "Falied"',
    );
    expect(errorOf(ready('2026-01-01T00:00:00Z', { results: { Reboot: 'Failed' } }))).toContain(
      'line 1: results.Reboot: unknown field "Reboot"; known fields: SoftReboot, HardReboot, Rebuild, Replace',
    );
    const r = parseTrace(
      ready('2026-01-01T00:00:00Z', { results: { Rebuild: 'Failed', Replace: 'Crash' } }),
    );
    if (either.isLeft(r)) throw new Error(r.left);
    const at = Date.parse('2026-01-01T01:00:00Z');
    expect(resultAt(r.right, 'w1', 'Rebuild', at)).toBe('Failed');
    expect(resultAt(r.right, 'w1', 'Replace', at)).toBe('Crash');
    expect(resultAt(r.right, 'w1', 'SoftReboot', at)).toBe('Succeeded');
  });
});
