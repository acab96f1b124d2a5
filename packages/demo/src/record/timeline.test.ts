import { describe, expect, it } from 'vitest';
import { buildRecord, sample } from '../testing/record-builder.js';
import {
  addAction,
  isSettledHealthy,
  newRecord,
  novaReboots,
  observe,
  sampleChanged,
} from './timeline.js';

describe('observe', () => {
  it('opens a segment per change of Ready or phase and closes the previous one', () => {
    const rec = buildRecord(
      [
        { t: 0, samples: [sample('zone-a-01', 'True')] },
        { t: 500, samples: [sample('zone-a-01', 'True')] },
        { t: 1000, samples: [sample('zone-a-01', 'Unknown', 'Suspect')] },
        { t: 2000, samples: [sample('zone-a-01', 'Unknown', 'Remediating')] },
        { t: 4000, samples: [sample('zone-a-01', 'True', 'Healthy')] },
      ],
      [],
      5000,
    );
    expect(rec.nodes.get('zone-a-01')?.segments).toEqual([
      { from: 0, to: 1000, ready: 'True', phase: 'Healthy' },
      { from: 1000, to: 2000, ready: 'Unknown', phase: 'Suspect' },
      { from: 2000, to: 4000, ready: 'Unknown', phase: 'Remediating' },
      { from: 4000, to: 5000, ready: 'True', phase: 'Healthy' },
    ]);
  });

  it('reports changes only, and a node missing from a listing as gone (once)', () => {
    const rec = newRecord(0);
    const a = sample('zone-a-01', 'True');
    const b = sample('zone-a-02', 'True');
    expect(observe(rec, 0, [a, b]).map((c) => c.type)).toEqual(['node', 'node']);
    expect(observe(rec, 500, [a, b])).toEqual([]);
    expect(observe(rec, 1000, [a])).toEqual([{ type: 'gone', t: 1000, node: 'zone-a-02' }]);
    expect(observe(rec, 1500, [a])).toEqual([]);
    expect(rec.nodes.get('zone-a-02')?.last?.ready).toBe('Gone');
  });

  it('remembers every cause and Ready message seen', () => {
    const rec = buildRecord([
      {
        t: 0,
        samples: [
          sample('n-01', 'False', 'Suspect', { readyMessage: 'container runtime is down' }),
        ],
      },
      {
        t: 1,
        samples: [
          sample('n-01', 'False', 'Remediating', {
            readyMessage: 'container runtime is down',
            cause: 'ContainerRuntimeDown',
          }),
        ],
      },
    ]);
    expect(rec.nodes.get('n-01')?.causes).toEqual(['ContainerRuntimeDown']);
    expect(rec.nodes.get('n-01')?.messages).toEqual(['container runtime is down']);
  });
});

describe('sampleChanged', () => {
  it('ignores nothing that matters and nothing else changes it', () => {
    const s = sample('n', 'True');
    expect(sampleChanged(undefined, s)).toBe(true);
    expect(sampleChanged(s, { ...s })).toBe(false);
    expect(sampleChanged(s, { ...s, phaseSince: 12 })).toBe(false);
    expect(sampleChanged(s, { ...s, unschedulable: true })).toBe(true);
    expect(sampleChanged(s, { ...s, step: 'SoftReboot' })).toBe(true);
  });
});

describe('isSettledHealthy', () => {
  it('needs Ready, Healthy and schedulable', () => {
    const rec = newRecord(0);
    observe(rec, 0, [
      sample('a', 'True'),
      sample('b', 'True', 'Verifying'),
      sample('c', 'True', 'Healthy', { unschedulable: true }),
    ]);
    expect(['a', 'b', 'c', 'd'].map((n) => isSettledHealthy(rec, n))).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });

  it('actions land on their node and in the global list', () => {
    const rec = newRecord(0);
    addAction(rec, { t: 5, node: 'a', source: 'nova', kind: 'SoftReboot', note: '' });
    expect(rec.nodes.get('a')?.actions).toHaveLength(1);
    expect(rec.actions).toHaveLength(1);
    expect(rec.now).toBe(5);
  });
});

describe('novaReboots', () => {
  it('counts a reboot whose SOFT/HARD nobody named, so no reboot goes unseen', () => {
    const rec = buildRecord(
      [{ t: 0, samples: [sample('zone-a-01', 'True')] }],
      [
        { t: 100, node: 'zone-a-01', source: 'nova', kind: 'SoftReboot' },
        { t: 200, node: 'zone-a-01', source: 'nova', kind: 'Reboot' },
        { t: 300, node: 'zone-a-01', source: 'noderepair', kind: 'ActionAccepted' },
      ],
      1000,
    );
    expect(novaReboots(rec, 'zone-a-01').map((a) => a.kind)).toEqual(['SoftReboot', 'Reboot']);
  });
});
