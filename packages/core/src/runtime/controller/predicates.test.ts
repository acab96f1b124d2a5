import { describe, expect, it } from 'vitest';
import { requestForObject, requestForOwner } from './mappers.js';
import { anyOf, generationChanged, hasLabels, labelsChanged, passes } from './predicates.js';

const obj = (gen: number, labels: Record<string, string> = {}) => ({
  metadata: { name: 'x', namespace: 'ns', generation: gen, labels },
});

describe('predicates', () => {
  it('generationChanged passes spec changes only', () => {
    expect(passes([generationChanged], { type: 'update', old: obj(1), obj: obj(1) })).toBe(false);
    expect(passes([generationChanged], { type: 'update', old: obj(1), obj: obj(2) })).toBe(true);
    expect(passes([generationChanged], { type: 'create', obj: obj(1) })).toBe(true);
  });
  it('labelsChanged and hasLabels', () => {
    expect(
      passes([labelsChanged], { type: 'update', old: obj(1, { a: '1' }), obj: obj(1, { a: '1' }) }),
    ).toBe(false);
    expect(
      passes([labelsChanged], { type: 'update', old: obj(1, { a: '1' }), obj: obj(1, { a: '2' }) }),
    ).toBe(true);
    const sel = hasLabels({ role: 'worker' });
    expect(passes([sel], { type: 'create', obj: obj(1, { role: 'worker' }) })).toBe(true);
    expect(passes([sel], { type: 'create', obj: obj(1, { role: 'cp' }) })).toBe(false);
    expect(
      passes([anyOf(generationChanged, labelsChanged)], {
        type: 'update',
        old: obj(1, { a: '1' }),
        obj: obj(1, { a: '2' }),
      }),
    ).toBe(true);
  });
});

describe('mappers', () => {
  it('maps an object to itself and to its controlling owner', () => {
    expect(requestForObject(obj(1))).toEqual([{ name: 'x', namespace: 'ns' }]);
    const child = {
      metadata: {
        name: 'c',
        namespace: 'ns',
        ownerReferences: [
          {
            apiVersion: 'cluster.x-k8s.io/v1beta1',
            kind: 'Machine',
            name: 'm1',
            uid: '1',
            controller: true,
          },
          { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name: 'm2', uid: '2' },
          { apiVersion: 'v1', kind: 'Node', name: 'n', uid: '3', controller: true },
        ],
      },
    };
    expect(requestForOwner({ kind: 'Machine', apiGroup: 'cluster.x-k8s.io' })(child)).toEqual([
      { name: 'm1', namespace: 'ns' },
    ]);
    expect(requestForOwner({ kind: 'Machine', apiGroup: 'other.io' })(child)).toEqual([]);
    expect(requestForOwner({ kind: 'Node', clusterScopedOwner: true })(child)).toEqual([
      { name: 'n' },
    ]);
  });
});
