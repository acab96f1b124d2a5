import { passes } from '@noderepair/core/runtime';
import { describe, expect, it } from 'vitest';
import { osrChangedForReconcile, osrView, type RawOsr } from './controller.js';

const osr = (meta: object, status: object = {}): RawOsr => ({
  apiVersion: 'remediation.noderepair.dev/v1alpha1',
  kind: 'OpenStackRemediation',
  metadata: { name: 'r', namespace: 'capi', generation: 1, resourceVersion: '10', ...meta },
  status,
});
const wakes = (a: RawOsr, b: RawOsr) =>
  passes([osrChangedForReconcile], { type: 'update', old: osrView(a), obj: osrView(b) });

describe('which changes of a remediation wake it', () => {
  const before = osr({}, { phase: 'Draining' });

  it('its own status writes (and finalizer patches) do not: each reconcile says when to look again', () => {
    expect(wakes(before, osr({ resourceVersion: '11' }, { phase: 'Remediating' }))).toBe(false);
    expect(
      wakes(before, osr({ resourceVersion: '12', finalizers: ['x'] }, { phase: 'Draining' })),
    ).toBe(false);
  });

  it('a spec edit (generation) and the start of its deletion do', () => {
    expect(
      wakes(before, osr({ resourceVersion: '13', generation: 2 }, { phase: 'Draining' })),
    ).toBe(true);
    expect(
      wakes(before, osr({ resourceVersion: '14', deletionTimestamp: '2026-12-06T05:00:00Z' })),
    ).toBe(true);
  });

  it('creation always does', () => {
    expect(passes([osrChangedForReconcile], { type: 'create', obj: osrView(before) })).toBe(true);
  });
});
