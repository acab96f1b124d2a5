import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { getCapiCondition, markCapiFalse, markCapiTrue, setCapiCondition } from './capi-v1beta1.js';
import { findMetaCondition, isMetaConditionCurrent, setMetaCondition } from './metav1.js';

const T1 = '2026-01-01T00:00:00Z';
const T2 = '2026-01-01T00:05:00Z';

describe('metav1.Condition', () => {
  it('moves lastTransitionTime only when status changes; updates reason and observedGeneration', () => {
    let l = setMetaCondition(
      undefined,
      { type: 'Ready', status: 'False', reason: 'Booting', observedGeneration: 1 },
      T1,
    );
    l = setMetaCondition(
      l,
      {
        type: 'Ready',
        status: 'False',
        reason: 'StillBooting',
        message: 'm',
        observedGeneration: 2,
      },
      T2,
    );
    expect(findMetaCondition(l, 'Ready')).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'StillBooting',
      message: 'm',
      observedGeneration: 2,
      lastTransitionTime: T1,
    });
    l = setMetaCondition(l, { type: 'Ready', status: 'True', reason: 'Up' }, T2);
    expect(findMetaCondition(l, 'Ready')!.lastTransitionTime).toBe(T2);
    expect(isMetaConditionCurrent(l, 'Ready', 2)).toBe(false);
    expect(l).toHaveLength(1);
  });
  it('rejects a reason the API server would reject', () => {
    expect(() =>
      setMetaCondition([], { type: 'A', status: 'True', reason: 'has spaces' }, T1),
    ).toThrow(/reason must be CamelCase/);
  });
  it('property: setting the same status twice never changes lastTransitionTime and keeps one entry per type', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            type: fc.constantFrom('A', 'B'),
            status: fc.constantFrom('True', 'False', 'Unknown' as const),
          }),
        ),
        (ops) => {
          let l = setMetaCondition([], { type: 'A', status: 'Unknown', reason: 'Init' }, 't0');
          let i = 0;
          for (const op of ops) {
            const before = findMetaCondition(l, op.type);
            l = setMetaCondition(l, { ...op, reason: 'R' }, `t${++i}`);
            const after = findMetaCondition(l, op.type)!;
            if (
              before &&
              before.status === op.status &&
              after.lastTransitionTime !== before.lastTransitionTime
            )
              return false;
            if (new Set(l.map((c) => c.type)).size !== l.length) return false;
          }
          return true;
        },
      ),
    );
  });
});

describe('Cluster API v1beta1 conditions', () => {
  it('sorts Ready first, keeps the time when unchanged, sets severity on False', () => {
    let l = markCapiTrue(undefined, 'Zeta', T1);
    l = markCapiFalse(l, 'Ready', 'NodeNotReady', 'Warning', 'kubelet down', T1);
    l = markCapiTrue(l, 'Alpha', T1);
    expect(l.map((c) => c.type)).toEqual(['Ready', 'Alpha', 'Zeta']);
    expect(getCapiCondition(l, 'Ready')).toMatchObject({
      status: 'False',
      severity: 'Warning',
      reason: 'NodeNotReady',
    });
    l = markCapiFalse(l, 'Ready', 'NodeNotReady', 'Warning', 'kubelet down', T2);
    expect(getCapiCondition(l, 'Ready')!.lastTransitionTime).toBe(T1);
    l = markCapiFalse(l, 'Ready', 'NodeNotReady', 'Error', 'kubelet down', T2);
    expect(getCapiCondition(l, 'Ready')!.lastTransitionTime).toBe(T2);
    l = setCapiCondition(l, { type: 'Ready', status: 'True' }, T2);
    expect(getCapiCondition(l, 'Ready')).toEqual({
      type: 'Ready',
      status: 'True',
      lastTransitionTime: T2,
    });
  });
});
