import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { initialRepairState, serializeRepairState, type RepairState } from '../health/state.js';
import { MemoryStateStore, stateChanged, worthPersisting } from './state-store.js';

const t0 = Date.parse('2026-01-01T00:00:00Z');

describe('worthPersisting', () => {
  it('leaves a healthy node with nothing to remember unannotated', () => {
    expect(worthPersisting(undefined, initialRepairState(t0))).toBe(false);
  });

  it('writes anything worth remembering, and only changes after that', () => {
    const suspect: RepairState = { ...initialRepairState(t0), phase: 'Suspect', episodes: [t0] };
    expect(worthPersisting(undefined, suspect)).toBe(true);
    const flapHistory: RepairState = { ...initialRepairState(t0), episodes: [t0] };
    expect(worthPersisting(undefined, flapHistory)).toBe(true);
    const stored = serializeRepairState(suspect);
    expect(worthPersisting(stored, suspect)).toBe(false);
    expect(stateChanged(stored, suspect)).toBe(false);
    expect(worthPersisting(stored, initialRepairState(t0))).toBe(true);
  });
});

describe('MemoryStateStore', () => {
  it('round-trips a state by node name and forgets it', async () => {
    const s = new MemoryStateStore();
    const node = { metadata: { name: 'n1' } };
    expect(s.read(node)).toEqual(either.right(undefined));
    const st: RepairState = { ...initialRepairState(t0), phase: 'Unhealthy' };
    await s.write('n1', st);
    expect(s.read(node)).toEqual(either.right(st));
    expect(s.stored(node)).toBe(s.encode(st));
    s.forget('n1');
    expect(s.stored(node)).toBeUndefined();
  });
});
