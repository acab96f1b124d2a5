import { describe, expect, it } from 'vitest';
import type { RepairDecision } from '../health/decision.js';
import type { RepairState } from '../health/state.js';
import { repairTimes } from './repair-times.js';

const MIN = 60_000;
const rem = (id: string, startedAt: number) => ({
  id,
  startedAt,
  cause: 'NotReady',
  step: 0,
  attempt: 1,
  cordoned: true,
});
const decision = (phase: RepairDecision['phase'], nextState: RepairState) =>
  ({ phase, nextState }) as unknown as RepairDecision;

describe('repairTimes (time to repair, time between failures)', () => {
  it('time to repair: NotReady to Ready again, with a repair in flight', () => {
    const prev: RepairState = {
      v: 1,
      phase: 'Verifying',
      since: 15 * MIN,
      episodes: [],
      notReady: { since: 0 },
      remediation: rem('r1', 10 * MIN),
    };
    const next: RepairState = { ...prev, healthySince: 25 * MIN };
    delete next.notReady;
    expect(repairTimes(decision('Verifying', next), prev, 26 * MIN)).toEqual({
      toRepairMs: 25 * MIN,
    });
    // Still NotReady: nothing; no repair in flight: nothing.
    expect(repairTimes(decision('Verifying', prev), prev, 26 * MIN)).toEqual({});
    expect(repairTimes(decision('Healthy', next), { ...prev, phase: 'Suspect' }, 26 * MIN)).toEqual(
      {},
    );
  });

  it('time between failures: from the previous repair end to the NotReady that starts the next', () => {
    const prev: RepairState = {
      v: 1,
      phase: 'Unhealthy',
      since: 0,
      episodes: [],
      notReady: { since: 100 * MIN },
      history: [
        {
          id: 'r0',
          cause: { kind: 'NotReady' },
          startedAt: 0,
          endedAt: 40 * MIN,
          outcome: 'Succeeded',
          steps: [],
        },
      ],
    };
    const next: RepairState = { ...prev, phase: 'Remediating', remediation: rem('r1', 110 * MIN) };
    expect(repairTimes(decision('Remediating', next), prev, 110 * MIN)).toEqual({
      betweenFailuresMs: 60 * MIN,
    });
    // A first repair: no previous one, nothing measured.
    const first = { ...prev, history: [] };
    expect(repairTimes(decision('Remediating', next), first, 110 * MIN)).toEqual({});
  });
});
